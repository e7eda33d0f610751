"""kiln.plugin decorators: signature checks at decoration time, op calls, attribute fields, aot_impl."""

from typing import Tuple

import numpy as np
import numpy.typing as npt
import pytest

import kiln as trt
import kiln.plugin as trtp
from kiln.plugin._attrs import AttrSpec

RNG = np.random.default_rng(99)


def _ok_shape(inp: trtp.TensorDesc, k: int) -> trtp.TensorDesc:
    return inp.like()


def test_plugin_id_must_be_namespace_and_name():
    for bad in ("noseparator", "::name", "ns::", "a::b::c", "ns::not-ident"):
        with pytest.raises(ValueError, match="plugin id"):
            trtp.register(bad)
    with pytest.raises(TypeError):
        trtp.register(42)


def test_register_signature_errors_name_the_plugin():
    with pytest.raises(TypeError, match="dec_t::nohint.*'k'"):
        @trtp.register("dec_t::nohint", lazy_register=True)
        def _a(inp: trtp.TensorDesc, k) -> trtp.TensorDesc:
            return inp.like()

    with pytest.raises(ValueError, match="dec_t::order.*after an attribute"):
        @trtp.register("dec_t::order", lazy_register=True)
        def _b(k: int, inp: trtp.TensorDesc) -> trtp.TensorDesc:
            return inp.like()

    with pytest.raises(TypeError, match="dec_t::listattr.*lists and tuples"):
        @trtp.register("dec_t::listattr", lazy_register=True)
        def _c(inp: trtp.TensorDesc, k: list) -> trtp.TensorDesc:
            return inp.like()

    with pytest.raises(TypeError, match="dec_t::dictattr.*unsupported annotation"):
        @trtp.register("dec_t::dictattr", lazy_register=True)
        def _d(inp: trtp.TensorDesc, k: dict) -> trtp.TensorDesc:
            return inp.like()

    with pytest.raises(TypeError, match="dec_t::noret.*return annotation"):
        @trtp.register("dec_t::noret", lazy_register=True)
        def _e(inp: trtp.TensorDesc):
            return inp.like()

    with pytest.raises(TypeError, match="dec_t::badret"):
        @trtp.register("dec_t::badret", lazy_register=True)
        def _f(inp: trtp.TensorDesc) -> int:
            return 0

    with pytest.raises(ValueError, match="dec_t::varargs.*\\*args"):
        @trtp.register("dec_t::varargs", lazy_register=True)
        def _g(*inps: trtp.TensorDesc) -> trtp.TensorDesc:
            return inps[0].like()

    with pytest.raises(TypeError, match="dec_t::arrdtype.*NDArray"):
        @trtp.register("dec_t::arrdtype", lazy_register=True)
        def _h(inp: trtp.TensorDesc, w: npt.NDArray[np.complex64]) -> trtp.TensorDesc:
            return inp.like()

    with pytest.raises(ValueError, match="dec_t::reserved.*reserved"):
        @trtp.register("dec_t::reserved", lazy_register=True)
        def _i(inp: trtp.TensorDesc, stream: int) -> trtp.TensorDesc:
            return inp.like()


def test_register_twice_and_impl_errors():
    trtp.register("dec_t::twice", lazy_register=True)(_ok_shape)
    with pytest.raises(ValueError, match="already registered"):
        trtp.register("dec_t::twice", lazy_register=True)(_ok_shape)

    with pytest.raises(ValueError, match="dec_t::unknown.*registered first"):
        @trtp.impl("dec_t::unknown")
        def _a(inp, outputs, stream):
            pass

    with pytest.raises(ValueError, match="dec_t::twice.*'j'.*not an attribute"):
        @trtp.impl("dec_t::twice")
        def _b(inp, j: int, outputs, stream):
            pass

    with pytest.raises(ValueError, match="dec_t::twice.*'stream'"):
        @trtp.impl("dec_t::twice")
        def _c(inp, k: int, outputs):
            pass

    with pytest.raises(ValueError, match="dec_t::twice.*'outputs'"):
        @trtp.impl("dec_t::twice")
        def _d(inp, k: int, stream):
            pass

    with pytest.raises(ValueError, match="dec_t::twice.*must end with"):
        @trtp.impl("dec_t::twice")
        def _e(inp, outputs, stream, k: int):
            pass

    with pytest.raises(ValueError, match="dec_t::twice.*inputs"):
        @trtp.impl("dec_t::twice")
        def _f():
            pass

    with pytest.raises(TypeError, match="dec_t::twice.*expected Tensor"):
        @trtp.impl("dec_t::twice")
        def _g(inp: int, outputs, stream):
            pass

    @trtp.impl("dec_t::twice")
    def _ok(inp: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int, tactic: int):
        pass

    with pytest.raises(ValueError, match="already has an impl"):
        trtp.impl("dec_t::twice")(_ok)

    with pytest.raises(ValueError, match="takes no 'stream'"):
        @trtp.autotune("dec_t::twice")
        def _h(inp, outputs, stream):
            return []

    with pytest.raises(ValueError, match="takes no 'tactic'"):
        @trtp.autotune("dec_t::twice")
        def _i(inp, outputs, tactic):
            return []


def test_aot_impl_is_not_supported():
    with pytest.raises(NotImplementedError, match="ahead-of-time"):
        trtp.aot_impl("dec_t::twice")


def test_op_calls_check_inputs_and_attributes():
    @trtp.register("dec_ops::scale", lazy_register=True)
    def _shape(a: trtp.TensorDesc, b: trtp.TensorDesc, factor: float, name: str = "x") -> trtp.TensorDesc:
        return a.like()

    call = trtp.op.dec_ops.scale("A", "B", factor=2)
    assert call.attrs == {"factor": 2.0, "name": "x"}
    assert isinstance(call.attrs["factor"], float)
    with pytest.raises(ValueError, match="takes 2 input"):
        trtp.op.dec_ops.scale("A", factor=1.0)
    with pytest.raises(TypeError, match="missing attribute 'factor'"):
        trtp.op.dec_ops.scale("A", "B")
    with pytest.raises(TypeError, match="unknown attribute"):
        trtp.op.dec_ops.scale("A", "B", factor=1.0, other=3)
    with pytest.raises(TypeError, match="'factor' expects a float"):
        trtp.op.dec_ops.scale("A", "B", factor="big")
    with pytest.raises(AttributeError, match="dec_ops::missing"):
        _ = trtp.op.dec_ops.missing
    with pytest.raises(AttributeError, match="namespace"):
        _ = trtp.op.no_such_namespace


def test_attribute_value_checks():
    pid = "dec_t::checks"
    assert AttrSpec("a", "int").check(np.int32(5), pid) == 5
    with pytest.raises(TypeError):
        AttrSpec("a", "int").check(True, pid)
    with pytest.raises(TypeError):
        AttrSpec("a", "bool").check(1, pid)
    with pytest.raises(ValueError):
        AttrSpec("a", "str").check("a\0b", pid)
    with pytest.raises(ValueError, match="1-D"):
        AttrSpec("a", "array", np.float32).check(np.zeros((2, 2), np.float32), pid)
    with pytest.raises(TypeError, match="dtype"):
        AttrSpec("a", "array", np.float32).check(np.zeros(2, np.float64), pid)


ROUND_TRIP = [
    ("int", None, lambda: int(RNG.integers(-2**40, 2**40))),
    ("float", None, lambda: float(RNG.standard_normal())),
    ("bool", None, lambda: bool(RNG.integers(0, 2))),
    ("str", None, lambda: "naïve-" + str(int(RNG.integers(1000)))),
    ("bytes", None, lambda: RNG.integers(0, 256, size=7).astype(np.uint8).tobytes()),
    ("array", np.int8, lambda: RNG.integers(-100, 100, size=5).astype(np.int8)),
    ("array", np.int16, lambda: RNG.integers(-1000, 1000, size=5).astype(np.int16)),
    ("array", np.int32, lambda: RNG.integers(-10**6, 10**6, size=5).astype(np.int32)),
    ("array", np.int64, lambda: RNG.integers(-10**12, 10**12, size=5).astype(np.int64)),
    ("array", np.float16, lambda: RNG.standard_normal(5).astype(np.float16)),
    ("array", np.float32, lambda: RNG.standard_normal(5).astype(np.float32)),
    ("array", np.float64, lambda: RNG.standard_normal(5)),
    ("array", np.bool_, lambda: RNG.integers(0, 2, size=5).astype(bool)),
]


@pytest.mark.parametrize("kind,dtype,make", ROUND_TRIP)
def test_attribute_plugin_field_round_trip(kind, dtype, make):
    spec = AttrSpec("attr", kind, dtype)
    value = spec.check(make(), "dec_t::fields")
    field = spec.to_field(value)
    assert isinstance(field, trt.PluginField) and field.name == "attr"
    back = spec.from_field(field, "dec_t::fields")
    if kind == "array":
        assert back.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(back, value)
    else:
        assert type(back) is type(value) and back == value
