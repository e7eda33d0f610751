"""IExecutionContext from Python: addresses, shapes, execute_v2 vs execute_async_v3, the deprecated binding-index
methods of seed 003, profiles, and memory objects accepted as tensor addresses."""

import numpy as np
import pytest

import kiln as trt
from conftest import poisoned
from runtime_testlib import add_sum_product_network, build_engine, sum_product_reference


@pytest.fixture
def dynamic_engine(builder, logger):
    network, profiles = add_sum_product_network(builder, dynamic=True)
    return build_engine(builder, network, logger, profiles)[1]


@pytest.fixture
def static_engine(builder, logger):
    network, _ = add_sum_product_network(builder)
    return build_engine(builder, network, logger)[1]


def inputs_for(rng, rows):
    return (rng.standard_normal((rows, 3)).astype(np.float32), rng.standard_normal((rows, 3)).astype(np.float32))


def test_context_properties(static_engine):
    context = static_engine.create_execution_context()
    assert context.engine is static_engine
    context.name = "ctx-under-test"
    assert context.name == "ctx-under-test"
    assert context.debug_sync is False
    context.debug_sync = True
    assert context.debug_sync is True
    assert context.profiler is None
    assert context.error_recorder is None
    assert context.enqueue_emits_profile is True
    context.persistent_cache_limit = 4096
    assert context.persistent_cache_limit == 4096
    assert isinstance(context.nvtx_verbosity, trt.ProfilingVerbosity)
    assert context.active_optimization_profile == 0
    assert context.all_input_dimensions_specified
    assert context.all_binding_shapes_specified
    assert context.all_shape_inputs_specified
    assert context.get_input_consumed_event() == 0
    assert context.temporary_allocator is None
    context.set_aux_streams([])
    with context as entered:
        assert entered is context


def test_dynamic_shapes_and_execute_async_v3(dynamic_engine, rng):
    context = dynamic_engine.create_execution_context()
    assert not context.all_input_dimensions_specified
    assert sorted(context.infer_shapes()) == ["a", "b"]
    for rows in (1, 5, 8):
        a, b = inputs_for(rng, rows)
        assert context.set_input_shape("a", a.shape)
        assert context.set_input_shape("b", b.shape)
        assert context.all_input_dimensions_specified
        assert context.infer_shapes() == []
        assert tuple(context.get_tensor_shape("sum")) == (rows, 3)
        assert tuple(context.get_tensor_strides("sum")) == (3, 1)
        outputs = {"sum": poisoned((rows, 3)), "prod": poisoned((rows, 3))}
        assert context.set_tensor_address("a", a.ctypes.data)
        assert context.set_tensor_address("b", b.ctypes.data)
        for name, array in outputs.items():
            assert context.set_tensor_address(name, array.ctypes.data)
            assert context.get_tensor_address(name) == array.ctypes.data
            assert context.get_output_tensor_address(name) == array.ctypes.data
            assert context.get_max_output_size(name) >= rows * 3 * 4
        assert context.execute_async_v3(0)
        expected = sum_product_reference(a, b)
        for name, array in outputs.items():
            np.testing.assert_allclose(array, expected[name], rtol=1e-6)


def test_shape_outside_profile_fails(dynamic_engine, logger):
    context = dynamic_engine.create_execution_context()
    assert not context.set_input_shape("a", (9, 3))
    assert logger.errors()
    assert not context.set_input_shape("missing", (1, 3))


def test_execute_v2_matches_execute_async_v3(static_engine, rng):
    context = static_engine.create_execution_context()
    a, b = inputs_for(rng, 2)
    order = [static_engine.get_tensor_name(i) for i in range(static_engine.num_io_tensors)]
    results = {}
    for method in ("execute_v2", "execute_async_v3"):
        outputs = {"sum": poisoned((2, 3)), "prod": poisoned((2, 3))}
        arrays = {"a": a, "b": b, **outputs}
        if method == "execute_v2":
            assert context.execute_v2([arrays[name].ctypes.data for name in order])
        else:
            for name in order:
                assert context.set_tensor_address(name, arrays[name].ctypes.data)
            assert context.execute_async_v3(stream_handle=0)
        results[method] = outputs
    expected = sum_product_reference(a, b)
    for name in ("sum", "prod"):
        np.testing.assert_allclose(results["execute_v2"][name], expected[name], rtol=1e-6)
        np.testing.assert_array_equal(results["execute_v2"][name], results["execute_async_v3"][name])
    with pytest.raises(ValueError, match="4 bindings"):
        context.execute_v2([a.ctypes.data])


def test_missing_address_fails(static_engine, logger, rng):
    context = static_engine.create_execution_context()
    a, _ = inputs_for(rng, 2)
    assert context.set_tensor_address("a", a.ctypes.data)
    assert not context.execute_async_v3(0)
    assert logger.errors()


def test_deprecated_binding_index_methods(dynamic_engine, rng):
    engine = dynamic_engine
    context = engine.create_execution_context()
    index = {engine.get_tensor_name(i): i for i in range(engine.num_io_tensors)}
    a, b = inputs_for(rng, 4)
    assert not context.all_binding_shapes_specified
    assert context.set_binding_shape(index["a"], a.shape)
    assert context.set_binding_shape(index["b"], trt.Dims(b.shape) if hasattr(trt, "Dims") else b.shape)
    assert context.all_binding_shapes_specified
    assert tuple(context.get_binding_shape(index["sum"])) == (4, 3)
    assert tuple(context.get_strides(index["prod"])) == (3, 1)
    assert tuple(context.get_binding_shape(99)) == ()
    assert not context.set_binding_shape(99, (1, 3))
    with pytest.raises(IndexError):
        context.get_strides(-1)
    outputs = {"sum": poisoned((4, 3)), "prod": poisoned((4, 3))}
    arrays = {"a": a, "b": b, **outputs}
    bindings = [arrays[engine.get_tensor_name(i)].ctypes.data for i in range(engine.num_io_tensors)]
    assert context.execute_async_v2(bindings, 0)
    expected = sum_product_reference(a, b)
    for name in outputs:
        np.testing.assert_allclose(outputs[name], expected[name], rtol=1e-6)
        outputs[name].fill(np.nan)
    assert context.execute_async(1, bindings, 0)
    np.testing.assert_allclose(outputs["prod"], expected["prod"], rtol=1e-6)
    outputs["sum"].fill(np.nan)
    assert context.execute(bindings)
    assert context.execute(batch_size=1, bindings=bindings)
    np.testing.assert_allclose(outputs["sum"], expected["sum"], rtol=1e-6)
    with pytest.raises(ValueError, match="not a shape"):
        context.set_shape_input(index["a"], [1, 2])
    with pytest.raises(ValueError, match="not a shape"):
        context.get_shape(index["a"])
    assert not context.set_shape_input(99, [1])


def test_numpy_arrays_as_addresses(static_engine, rng):
    context = static_engine.create_execution_context()
    a, b = inputs_for(rng, 2)
    outputs = {"sum": poisoned((2, 3)), "prod": poisoned((2, 3))}
    assert context.set_input_tensor_address("a", a)
    assert context.set_tensor_address("b", b)
    assert context.set_output_tensor_address("sum", outputs["sum"])
    assert context.set_tensor_address("prod", outputs["prod"])
    a_copy = a.copy()
    del a  # the context keeps the array it was given alive
    assert context.execute_async_v3(0)
    np.testing.assert_allclose(outputs["sum"], a_copy + b, rtol=1e-6)
    np.testing.assert_allclose(outputs["prod"], np.maximum(a_copy * b, 0), rtol=1e-6)
    # DLPack on the CPU works like a numpy array.
    b2 = rng.standard_normal((2, 3)).astype(np.float32)
    assert context.set_tensor_address("b", np.from_dlpack(b2))


class FakeDeviceArray:
    """An object that only exposes __cuda_array_interface__ (device memory)."""

    __cuda_array_interface__ = {"shape": (2, 3), "typestr": "<f4", "data": (0x1000, False), "version": 3}


class FakeCudaDlpack:
    """An object whose DLPack device is CUDA."""

    def __dlpack__(self, stream=None):
        raise AssertionError("must not be called for a CUDA tensor")

    def __dlpack_device__(self):
        return (2, 0)


def test_address_conversion_errors(static_engine, rng):
    context = static_engine.create_execution_context()
    readonly = rng.standard_normal((2, 3)).astype(np.float32)
    readonly.flags.writeable = False
    assert context.set_tensor_address("a", readonly)  # inputs may be read-only
    with pytest.raises(ValueError, match="read-only"):
        context.set_tensor_address("sum", readonly)
    strided = rng.standard_normal((2, 6)).astype(np.float32)[:, ::2]
    with pytest.raises(ValueError, match="C-contiguous"):
        context.set_tensor_address("a", strided)
    with pytest.raises(ValueError, match="device memory"):
        context.set_tensor_address("a", FakeDeviceArray())
    with pytest.raises(ValueError, match="device memory"):
        context.set_tensor_address("a", FakeCudaDlpack())
    with pytest.raises(TypeError, match="integer address"):
        context.set_tensor_address("a", "not memory")
    with pytest.raises(ValueError, match="negative"):
        context.set_tensor_address("a", -8)
    assert context.set_tensor_address("a", None)
    assert context.get_tensor_address("a") == 0


def test_optimization_profile_selection(builder, logger, rng):
    network, profiles = add_sum_product_network(builder, dynamic=True)
    config = builder.create_builder_config()
    for lo, hi in (((1, 3), (4, 3)), ((5, 3), (16, 3))):
        profile = builder.create_optimization_profile()
        for name in ("a", "b"):
            profile.set_shape(name, lo, lo, hi)
        config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine.num_optimization_profiles == 2
    context = engine.create_execution_context()
    assert context.set_optimization_profile_async(1, 0)
    assert context.active_optimization_profile == 1
    a, b = inputs_for(rng, 12)
    assert context.set_input_shape("a", a.shape) and context.set_input_shape("b", b.shape)
    out_sum, out_prod = poisoned((12, 3)), poisoned((12, 3))
    for name, array in (("a", a), ("b", b), ("sum", out_sum), ("prod", out_prod)):
        assert context.set_tensor_address(name, array)
    assert context.execute_async_v3(0)
    np.testing.assert_allclose(out_sum, a + b, rtol=1e-6)
    context.active_optimization_profile = 0
    assert context.active_optimization_profile == 0
    assert not context.set_optimization_profile_async(7, 0)
    with pytest.raises(RuntimeError, match="active_optimization_profile"):
        context.active_optimization_profile = 7


def test_input_consumed_event_is_refused_on_cpu(static_engine, logger):
    context = static_engine.create_execution_context()
    assert not context.set_input_consumed_event(0x1234)
    assert "event" in logger.errors().lower()
    assert context.set_input_consumed_event(0) or context.get_input_consumed_event() == 0


def test_shape_tensor_input_through_binding_methods(builder, logger, rng):
    """set_shape_input / get_shape on a shape-tensor input that reshapes a data input."""
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (-1,))
    s = network.add_input("s", trt.int32, (2,))
    shuffle = network.add_shuffle(x)
    shuffle.set_input(1, s)
    y = shuffle.get_output(0)
    y.name = "y"
    network.mark_output(y)
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape_input("s", (1, 1), (2, 3), (6, 6))
    profile.set_shape("x", (1,), (6,), (36,))
    config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine.is_shape_inference_io("s")
    assert engine.get_tensor_location("s") == trt.TensorLocation.HOST
    assert engine.get_tensor_profile_values("s", 0) == [[1, 1], [2, 3], [6, 6]]
    index = {engine.get_tensor_name(i): i for i in range(engine.num_io_tensors)}
    context = engine.create_execution_context()
    for rows, cols in ((3, 2), (1, 6), (5, 4)):
        assert context.set_input_shape("x", (rows * cols,))
        assert context.set_shape_input(index["s"], [rows, cols])
        assert context.get_shape(index["s"]) == [rows, cols]
        assert context.infer_shapes() == []
        assert tuple(context.get_tensor_shape("y")) == (rows, cols)
        data = rng.standard_normal(rows * cols).astype(np.float32)
        out = poisoned((rows, cols))
        assert context.set_tensor_address("x", data)
        assert context.set_tensor_address("y", out)
        assert context.execute_async_v3(0)
        np.testing.assert_array_equal(out, data.reshape(rows, cols))
