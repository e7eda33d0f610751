"""kiln.plugin plugins through whole engines on the CPU backend: circular padding, autotuned elementwise ops with
tactics, a NonZero-style data-dependent output, attribute round trips through serialized engines, exceptions in
impl, and deserialization in processes with and without the plugin definitions."""

import os
import subprocess
import sys
import textwrap
from typing import Tuple

import numpy as np
import numpy.typing as npt
import pytest

import kiln as trt
import kiln.plugin as trtp

RNG = np.random.default_rng(2024)


class _Logger(trt.ILogger):
    """Collects every message so tests can assert on errors."""

    def __init__(self):
        trt.ILogger.__init__(self)
        self.messages = []

    def log(self, severity, msg):
        self.messages.append((severity, msg))

    def errors(self):
        return "\n".join(m for s, m in self.messages if s in (trt.Logger.ERROR, trt.Logger.INTERNAL_ERROR))


def _build(logger, make_network, profiles=(), fp16=False):
    """Build a plan: make_network(network) adds layers; profiles are (name, min, opt, max) tuples."""
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    config = builder.create_builder_config()
    if fp16:
        config.set_flag(trt.BuilderFlag.FP16)
    make_network(network)
    if profiles:
        profile = builder.create_optimization_profile()
        for name, lo, opt, hi in profiles:
            profile.set_shape(name, lo, opt, hi)
        config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    return bytes(plan)


def _engine(logger, plan):
    runtime = trt.Runtime(logger)
    engine = runtime.deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    return runtime, engine


def _run(engine, inputs, outputs):
    """Run with numpy inputs; outputs maps name -> numpy dtype. Returns poisoned-then-written output arrays."""
    ctx = engine.create_execution_context()
    for name, arr in inputs.items():
        ctx.set_input_shape(name, arr.shape)
        ctx.set_tensor_address(name, arr.ctypes.data)
    results = {}
    for name, dtype in outputs.items():
        shape = tuple(ctx.get_tensor_shape(name))
        buf = np.empty(shape, dtype=dtype)
        buf[...] = np.nan if np.issubdtype(dtype, np.floating) else -7
        ctx.set_tensor_address(name, buf.ctypes.data)
        results[name] = buf
    ok = ctx.execute_async_v3(0)
    return ok, results


# ---- circular padding --------------------------------------------------------------------------------------------

@trtp.register("qdp_test::circ_pad")
def _circ_pad_desc(inp: trtp.TensorDesc, pads: npt.NDArray[np.int32]) -> trtp.TensorDesc:
    out = inp.like()
    for i in range(len(pads) // 2):
        axis = len(out.shape_expr) - 1 - i
        out.shape_expr[axis] = out.shape_expr[axis] + int(pads[2 * i]) + int(pads[2 * i + 1])
    return out


@trtp.impl("qdp_test::circ_pad")
def _circ_pad_impl(inp: trtp.Tensor, pads: npt.NDArray[np.int32], outputs: Tuple[trtp.Tensor],
                   stream: int) -> None:
    x = np.asarray(inp)
    y = np.asarray(outputs[0])
    # Gather with modular indices along each padded (trailing) axis.
    result = x
    for i in range(len(pads) // 2):
        axis = x.ndim - 1 - i
        before = int(pads[2 * i])
        idx = (np.arange(y.shape[axis]) - before) % x.shape[axis]
        result = np.take(result, idx, axis=axis)
    y[...] = result


def test_circular_padding_two_shapes():
    logger = _Logger()
    pads = np.array([1, 2, 2, 1], dtype=np.int32)  # last axis (1, 2), second-to-last (2, 1)

    def make(network):
        x = network.add_input("x", trt.float32, (2, 3, -1, -1))
        layer = network.add_plugin(trtp.op.qdp_test.circ_pad(x, pads=pads))
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))

    plan = _build(logger, make, [("x", (2, 3, 3, 3), (2, 3, 5, 6), (2, 3, 8, 9))])
    _, engine = _engine(logger, plan)
    for shape in [(2, 3, 4, 5), (2, 3, 7, 3)]:
        x = RNG.standard_normal(shape).astype(np.float32)
        ok, out = _run(engine, {"x": x}, {"y": np.float32})
        assert ok, logger.errors()
        ref = np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 2)], mode="wrap")
        assert out["y"].shape == ref.shape
        np.testing.assert_array_equal(out["y"], ref)


# ---- autotune over FP32/FP16, tactics -----------------------------------------------------------------------------

_SEEN = {"types": [], "tactics": []}


@trtp.register("qdp_test::scaled_add")
def _scaled_add_desc(a: trtp.TensorDesc, b: trtp.TensorDesc, alpha: float) -> trtp.TensorDesc:
    return a.like()


@trtp.autotune("qdp_test::scaled_add")
def _scaled_add_tune(a: trtp.TensorDesc, b: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc]):
    return [trtp.AutoTuneCombination("FP32|FP16, FP32|FP16, FP32|FP16", "LINEAR", [1, 2])]


@trtp.impl("qdp_test::scaled_add")
def _scaled_add_impl(a: trtp.Tensor, b: trtp.Tensor, alpha: float, outputs: Tuple[trtp.Tensor], stream: int,
                     tactic: int) -> None:
    _SEEN["types"].append((a.dtype, b.dtype, outputs[0].dtype))
    _SEEN["tactics"].append(tactic)
    av, bv = np.asarray(a), np.asarray(b)
    np.asarray(outputs[0])[...] = (av.astype(np.float32) + alpha * bv.astype(np.float32)).astype(av.dtype)


@pytest.mark.parametrize("in_type,np_type,fp16", [(trt.float32, np.float32, True), (trt.float16, np.float16, False),
                                                  (trt.float32, np.float32, False)])
def test_autotune_fp32_fp16_and_tactics(in_type, np_type, fp16):
    logger = _Logger()
    alpha = float(RNG.uniform(0.5, 2.0))
    shape = (3, 17)

    def make(network):
        a = network.add_input("a", in_type, shape)
        b = network.add_input("b", in_type, shape)
        layer = network.add_plugin(trtp.op.qdp_test.scaled_add(a, b, alpha=alpha))
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))

    _SEEN["types"].clear()
    _SEEN["tactics"].clear()
    plan = _build(logger, make, fp16=fp16)
    _, engine = _engine(logger, plan)
    _SEEN["types"].clear()
    _SEEN["tactics"].clear()
    a = RNG.standard_normal(shape).astype(np_type)
    b = RNG.standard_normal(shape).astype(np_type)
    ok, out = _run(engine, {"a": a, "b": b}, {"y": np_type})
    assert ok, logger.errors()
    assert len(_SEEN["types"]) == 1
    chosen = _SEEN["types"][0]
    assert chosen[0] == chosen[1] == chosen[2] and chosen[0] in (trt.float32, trt.float16)
    if not fp16 and in_type == trt.float32:
        assert chosen[0] == trt.float32  # FP16 is not allowed without the flag
    assert _SEEN["tactics"][0] in (1, 2)
    ref = a.astype(np.float64) + alpha * b.astype(np.float64)
    tol = 1e-5 if chosen[0] == trt.float32 and np_type == np.float32 else 1e-2
    np.testing.assert_allclose(out["y"].astype(np.float64), ref, rtol=tol, atol=tol)


@trtp.register("qdp_test::negate_default")
def _negate_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.like()


@trtp.impl("qdp_test::negate_default")
def _negate_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int, tactic: int) -> None:
    _SEEN["types"].append((x.dtype, outputs[0].dtype))
    _SEEN["tactics"].append(tactic)
    np.asarray(outputs[0])[...] = -np.asarray(x)


def test_without_autotune_network_types_and_linear_are_used():
    logger = _Logger()

    def make(network):
        x = network.add_input("x", trt.float32, (5, 4))
        layer = network.add_plugin(trtp.op.qdp_test.negate_default(x))
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))

    plan = _build(logger, make, fp16=True)
    _, engine = _engine(logger, plan)
    _SEEN["types"].clear()
    _SEEN["tactics"].clear()
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    ok, out = _run(engine, {"x": x}, {"y": np.float32})
    assert ok, logger.errors()
    assert _SEEN["types"] == [(trt.float32, trt.float32)]
    assert _SEEN["tactics"] == [0]
    np.testing.assert_array_equal(out["y"], -x)


# ---- aliased (in-place) output --------------------------------------------------------------------------------------

_ALIAS_SEEN = []


@trtp.register("qdp_test::add_one_inplace")
def _inplace_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.aliased()


@trtp.impl("qdp_test::add_one_inplace")
def _inplace_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    _ALIAS_SEEN.append((x.data_ptr, outputs[0].data_ptr, outputs[0].get_aliased() is x))
    y = np.asarray(outputs[0])
    y += 1.0  # the output buffer holds the input's values: update them in place


def test_aliased_output_updates_input_buffer_in_place():
    logger = _Logger()

    def make(network):
        x = network.add_input("x", trt.float32, (4, 3))
        neg = network.add_plugin(trtp.op.qdp_test.negate_default(x))
        layer = network.add_plugin(trtp.op.qdp_test.add_one_inplace(neg.get_output(0)))
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))

    plan = _build(logger, make)
    _, engine = _engine(logger, plan)
    _ALIAS_SEEN.clear()
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    ok, out = _run(engine, {"x": x}, {"y": np.float32})
    assert ok, logger.errors()
    assert len(_ALIAS_SEEN) == 1
    in_ptr, out_ptr, linked = _ALIAS_SEEN[0]
    assert in_ptr == out_ptr and linked
    np.testing.assert_allclose(out["y"], -x + 1.0, rtol=1e-6)


# ---- data-dependent output ----------------------------------------------------------------------------------------

@trtp.register("qdp_test::nonzero")
def _nonzero_desc(x: trtp.TensorDesc) -> Tuple[trtp.TensorDesc, trtp.TensorDesc]:
    upper = x.shape_expr.numel()
    st = trtp.size_tensor(upper // 2, upper)
    return trtp.from_shape_expr((st.expr(), 2), dtype=trt.int32), st


@trtp.impl("qdp_test::nonzero")
def _nonzero_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    assert outputs[0].is_data_dependent and not outputs[1].is_data_dependent
    rows, cols = np.nonzero(np.asarray(x))
    k = len(rows)
    out = np.asarray(outputs[0].aliased((k, 2)))
    out[:, 0] = rows
    out[:, 1] = cols
    np.asarray(outputs[1])[()] = k


class _Allocator(trt.IOutputAllocator):
    """Allocates output buffers as numpy arrays and records the final shapes."""

    def __init__(self):
        trt.IOutputAllocator.__init__(self)
        self.buffers = {}
        self.shapes = {}

    def reallocate_output(self, tensor_name, memory, size, alignment):
        buf = np.full(max(int(size), 1), 0x5A, dtype=np.uint8)
        self.buffers[tensor_name] = buf
        return buf.ctypes.data

    def notify_shape(self, tensor_name, shape):
        self.shapes[tensor_name] = tuple(shape)


def test_nonzero_with_size_tensor_and_output_allocator():
    logger = _Logger()

    def make(network):
        x = network.add_input("x", trt.float32, (-1, 6))
        layer = network.add_plugin(trtp.op.qdp_test.nonzero(x))
        layer.get_output(0).name = "idx"
        network.mark_output(layer.get_output(0))

    plan = _build(logger, make, [("x", (1, 6), (4, 6), (8, 6))])
    _, engine = _engine(logger, plan)
    for rows in (5, 8):
        x = RNG.standard_normal((rows, 6)).astype(np.float32)
        x[RNG.random(x.shape) < 0.5] = 0.0
        ctx = engine.create_execution_context()
        ctx.set_input_shape("x", x.shape)
        ctx.set_tensor_address("x", x.ctypes.data)
        alloc = _Allocator()
        assert ctx.set_output_allocator("idx", alloc)
        assert ctx.execute_async_v3(0), logger.errors()
        ref = [(r, c) for r in range(rows) for c in range(6) if x[r, c] != 0]
        assert alloc.shapes["idx"] == (len(ref), 2)
        got = alloc.buffers["idx"][: len(ref) * 2 * 4].view(np.int32).reshape(len(ref), 2)
        np.testing.assert_array_equal(got, np.array(ref, dtype=np.int32).reshape(-1, 2))


# ---- attributes through serialized engines ------------------------------------------------------------------------

_ATTRS_SEEN = []


@trtp.register("qdp_test::attrs")
def _attrs_desc(x: trtp.TensorDesc, i: int, f: float, s: str, b: bool, raw: bytes, w: npt.NDArray[np.int64],
                h: npt.NDArray[np.float16], unused: int) -> trtp.TensorDesc:
    return x.like()


@trtp.impl("qdp_test::attrs")
def _attrs_impl(x: trtp.Tensor, i: int, f: float, s: str, b: bool, raw: bytes, w: npt.NDArray[np.int64],
                h: npt.NDArray[np.float16], outputs: Tuple[trtp.Tensor], stream: int) -> None:
    _ATTRS_SEEN.append(dict(i=i, f=f, s=s, b=b, raw=raw, w=w, h=h))
    np.asarray(outputs[0])[...] = np.asarray(x) * f + i


def test_attributes_round_trip_through_engine():
    logger = _Logger()
    attrs = dict(i=int(RNG.integers(-1000, 1000)), f=float(RNG.uniform(-3, 3)), s="wrap-" + str(RNG.integers(99)),
                 b=bool(RNG.integers(0, 2)), raw=RNG.integers(0, 256, 9).astype(np.uint8).tobytes(),
                 w=RNG.integers(-10**12, 10**12, 4).astype(np.int64), h=RNG.standard_normal(3).astype(np.float16))

    def make(network):
        x = network.add_input("x", trt.float32, (2, 5))
        layer = network.add_plugin(trtp.op.qdp_test.attrs(x, unused=3, **attrs))
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))

    plan = _build(logger, make)
    _ATTRS_SEEN.clear()
    _, engine = _engine(logger, plan)  # a fresh runtime: the plugin comes from the engine's fields
    x = RNG.standard_normal((2, 5)).astype(np.float32)
    ok, out = _run(engine, {"x": x}, {"y": np.float32})
    assert ok, logger.errors()
    seen = _ATTRS_SEEN[-1]
    for name in ("i", "f", "s", "b", "raw"):
        assert type(seen[name]) is type(attrs[name]) and seen[name] == attrs[name], name
    for name in ("w", "h"):
        assert seen[name].dtype == attrs[name].dtype
        np.testing.assert_array_equal(seen[name], attrs[name])
    np.testing.assert_allclose(out["y"], x * attrs["f"] + attrs["i"], rtol=1e-6, atol=1e-4)


def test_only_impl_attributes_are_serialized():
    from kiln.plugin._plugin import make_plugin
    from kiln.plugin._register import _DEFS

    pdef = _DEFS["qdp_test::attrs"]
    values = pdef.check_attrs(dict(i=1, f=2.0, s="a", b=True, raw=b"x", w=np.zeros(1, np.int64),
                                   h=np.ones(2, np.float16), unused=5))
    plugin = make_plugin(pdef, values, [2], [trt.float32])
    names = [field.name for field in plugin.get_fields_to_serialize()]
    assert "unused" not in names
    assert {"i", "f", "s", "b", "raw", "w", "h"} <= set(names)


# ---- errors ---------------------------------------------------------------------------------------------------------

@trtp.register("qdp_test::raises")
def _raises_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.like()


@trtp.impl("qdp_test::raises")
def _raises_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    raise ValueError("negative input value 42 is not allowed")


def test_exception_in_impl_fails_enqueue_with_message():
    logger = _Logger()

    def make(network):
        x = network.add_input("x", trt.float32, (3,))
        layer = network.add_plugin(trtp.op.qdp_test.raises(x))
        network.mark_output(layer.get_output(0))
        layer.get_output(0).name = "y"

    plan = _build(logger, make)
    _, engine = _engine(logger, plan)
    x = RNG.standard_normal(3).astype(np.float32)
    ok, _ = _run(engine, {"x": x}, {"y": np.float32})
    assert not ok
    assert "negative input value 42 is not allowed" in logger.errors()
    assert "qdp_test::raises" in logger.errors()
    # The process survives and the next run reports the same failure.
    ok, _ = _run(engine, {"x": x}, {"y": np.float32})
    assert not ok


def test_add_plugin_errors():
    logger = _Logger()
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (3,))
    with pytest.raises(NotImplementedError, match="ahead-of-time"):
        network.add_plugin(trtp.op.qdp_test.negate_default(x), aot=True)
    with pytest.raises(TypeError, match="kiln.plugin.op"):
        network.add_plugin("not a call")

    @trtp.register("qdp_test::no_impl")
    def _no_impl(x: trtp.TensorDesc) -> trtp.TensorDesc:
        return x.like()

    with pytest.raises(ValueError, match="no impl"):
        network.add_plugin(trtp.op.qdp_test.no_impl(x))


def test_lazy_registration_happens_on_first_use():
    registry = trt.get_plugin_registry()

    @trtp.register("qdp_lazy::double", lazy_register=True)
    def _double_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
        return x.like()

    @trtp.impl("qdp_lazy::double")
    def _double_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int) -> None:
        np.asarray(outputs[0])[...] = 2 * np.asarray(x)

    assert registry.get_creator("double", "1", "qdp_lazy") is None
    logger = _Logger()

    def make(network):
        x = network.add_input("x", trt.float32, (6,))
        layer = network.add_plugin(trtp.op.qdp_lazy.double(x))
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))

    plan = _build(logger, make)
    assert registry.get_creator("double", "1", "qdp_lazy") is not None
    _, engine = _engine(logger, plan)
    x = RNG.standard_normal(6).astype(np.float32)
    ok, out = _run(engine, {"x": x}, {"y": np.float32})
    assert ok, logger.errors()
    np.testing.assert_allclose(out["y"], 2 * x, rtol=1e-6)


# ---- engines in other processes -------------------------------------------------------------------------------------

_CHILD = textwrap.dedent('''
    import sys
    from typing import Tuple
    import numpy as np
    import kiln as trt
    if sys.argv[2] == "define":
        import kiln.plugin as trtp

        @trtp.register("qdp_test::negate_default")
        def _desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
            return x.like()

        @trtp.impl("qdp_test::negate_default")
        def _impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int, tactic: int) -> None:
            np.asarray(outputs[0])[...] = -np.asarray(x)

    class Logger(trt.ILogger):
        def __init__(self):
            trt.ILogger.__init__(self)
        def log(self, severity, msg):
            print("LOG:", msg)

    logger = Logger()
    runtime = trt.Runtime(logger)
    engine = runtime.deserialize_cuda_engine(open(sys.argv[1], "rb").read())
    if engine is None:
        print("NO ENGINE")
        sys.exit(3)
    ctx = engine.create_execution_context()
    x = np.arange(1, 21, dtype=np.float32).reshape(5, 4)
    y = np.full((5, 4), np.nan, dtype=np.float32)
    ctx.set_tensor_address("x", x.ctypes.data)
    ctx.set_tensor_address("y", y.ctypes.data)
    assert ctx.execute_async_v3(0)
    assert np.array_equal(y, -x)
    print("OK")
''')


def test_engine_deserializes_only_where_plugin_is_defined(tmp_path):
    logger = _Logger()

    def make(network):
        x = network.add_input("x", trt.float32, (5, 4))
        layer = network.add_plugin(trtp.op.qdp_test.negate_default(x))
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))

    plan_path = tmp_path / "negate.plan"
    plan_path.write_bytes(_build(logger, make))
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    good = subprocess.run([sys.executable, str(script), str(plan_path), "define"], capture_output=True, text=True,
                          env=env, timeout=120)
    assert good.returncode == 0 and "OK" in good.stdout, good.stdout + good.stderr
    bad = subprocess.run([sys.executable, str(script), str(plan_path), "nodefine"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert bad.returncode == 3, bad.stdout + bad.stderr
    assert "negate_default" in bad.stdout
