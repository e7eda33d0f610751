"""Circular padding written in Python as IPluginV2DynamicExt and as IPluginV3, built with a dynamic-shape profile
and run at two input shapes on the CPU; both compared with numpy.pad(..., mode="wrap")."""

import numpy as np
import pytest

import kiln as trt
from plugin_testlib import (CircPadCreatorV2, CircPadCreatorV3, CircPadV2, CircPadV3, Runner, build_plan,
                            register)

PROFILE = {"x": ((1, 2, 2, 2), (2, 2, 4, 4), (3, 2, 6, 7))}
SHAPES = [(1, 2, 3, 4), (3, 2, 6, 2)]


def reference(x, pads):
    top, bottom, left, right = pads
    return np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), mode="wrap")


def make_network(builder, plugin, generation):
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (-1, 2, -1, -1))
    if generation == "v2":
        layer = network.add_plugin_v2([x], plugin)
    else:
        layer = network.add_plugin_v3([x], [], plugin)
    y = layer.get_output(0)
    y.name = "y"
    network.mark_output(y)
    return network, y


@pytest.mark.parametrize("generation", ["v2", "v3"])
def test_circ_pad_matches_numpy_wrap(builder, logger, generation):
    rng = np.random.default_rng()
    pads = tuple(int(p) for p in rng.integers(0, 3, size=4))
    if generation == "v2":
        register(CircPadCreatorV2())
        plugin = CircPadV2(pads)
    else:
        register(CircPadCreatorV3())
        plugin = CircPadV3(pads)
    network, y = make_network(builder, plugin, generation)
    top, bottom, left, right = pads
    assert tuple(y.shape) == (-1, 2, -1, -1)

    plan = build_plan(builder, network, logger, PROFILE)
    assert plan is not None, logger.errors()
    runner = Runner(plan, logger)
    for shape in SHAPES:
        x = rng.normal(size=shape).astype(np.float32)
        out_shape = (shape[0], shape[1], shape[2] + top + bottom, shape[3] + left + right)
        ok, out = runner.run({"y": (out_shape, np.float32)}, x=x)
        assert ok, logger.errors()
        assert tuple(runner.context.get_tensor_shape("y")) == out_shape
        np.testing.assert_array_equal(out["y"], reference(x, pads))


def test_v3_on_shape_change_sees_each_shape(builder, logger):
    creator = register(CircPadCreatorV3())
    network, _ = make_network(builder, CircPadV3((1, 0, 0, 1)), "v3")
    plan = build_plan(builder, network, logger, PROFILE)
    assert plan is not None, logger.errors()
    runner = Runner(plan, logger)
    assert trt.TensorRTPhase.RUNTIME in creator.created
    rng = np.random.default_rng()
    for shape in SHAPES:
        x = rng.normal(size=shape).astype(np.float32)
        out_shape = (shape[0], shape[1], shape[2] + 1, shape[3] + 1)
        ok, out = runner.run({"y": (out_shape, np.float32)}, x=x)
        assert ok, logger.errors()
        np.testing.assert_array_equal(out["y"], reference(x, (1, 0, 0, 1)))


def test_plugin_buffer_views_without_copy():
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    desc = trt.PluginTensorDesc()
    desc.dims = trt.Dims([3, 4])
    desc.type = trt.DataType.FLOAT
    desc.format = trt.TensorFormat.LINEAR
    buf = trt.PluginBuffer(data.ctypes.data, (3, 4), "<f4", data.nbytes, desc)
    assert isinstance(buf, int) and int(buf) == data.ctypes.data
    assert np.array([buf], dtype=np.uint64)[0] == data.ctypes.data  # still usable as a plain pointer
    view = buf.numpy()
    assert view.shape == (3, 4) and view.dtype == np.float32
    view[1, 2] = -5.0                                               # writes through: no copy
    assert data[1, 2] == -5.0
    flat = buf.numpy(shape=(12,), dtype=np.int32)
    assert flat.shape == (12,) and flat.dtype == np.int32
    assert trt.PluginBuffer(0, (1,), "<f4", 4).numpy() is None


def test_python_plugin_runs_from_worker_threads(builder, logger):
    # Each thread runs its own execution context; the trampolines take the GIL for every Python call.
    import threading
    register(CircPadCreatorV3())
    network, _ = make_network(builder, CircPadV3((0, 1, 1, 0)), "v3")
    plan = build_plan(builder, network, logger, PROFILE)
    assert plan is not None, logger.errors()
    runners = [Runner(plan, logger) for _ in range(3)]
    rng = np.random.default_rng()
    inputs = [rng.normal(size=SHAPES[i % 2]).astype(np.float32) for i in range(3)]
    results = [None] * 3

    def work(i):
        shape = inputs[i].shape
        out_shape = (shape[0], shape[1], shape[2] + 1, shape[3] + 1)
        for _ in range(5):
            results[i] = runners[i].run({"y": (out_shape, np.float32)}, x=inputs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(3):
        ok, out = results[i]
        assert ok, logger.errors()
        np.testing.assert_array_equal(out["y"], reference(inputs[i], (0, 1, 1, 0)))
