"""Runtime, ICudaEngine, EngineInspector and the serialization/runtime configs from Python."""

import json

import numpy as np
import pytest

import kiln as trt
from conftest import poisoned
from runtime_testlib import add_sum_product_network, build_engine, build_plan, sum_product_reference


@pytest.fixture
def static_engine(builder, logger):
    network, _ = add_sum_product_network(builder)
    runtime, engine, plan = build_engine(builder, network, logger)
    return runtime, engine, plan


def run_static(engine, rng):
    """Run the static sum/product engine once and compare with numpy."""
    context = engine.create_execution_context()
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    outputs = {"sum": poisoned((2, 3)), "prod": poisoned((2, 3))}
    for name, array in [("a", a), ("b", b)] + list(outputs.items()):
        assert context.set_tensor_address(name, array.ctypes.data)
    assert context.execute_async_v3(0)
    expected = sum_product_reference(a, b)
    for name in outputs:
        np.testing.assert_allclose(outputs[name], expected[name], rtol=1e-6)


def test_runtime_properties(logger):
    runtime = trt.Runtime(logger)
    assert runtime.logger is logger
    assert runtime.num_DLA_cores == 0
    assert runtime.max_threads >= 1
    runtime.max_threads = 3
    assert runtime.max_threads == 3
    with pytest.raises(RuntimeError):
        runtime.max_threads = 0
    assert runtime.engine_host_code_allowed is False
    runtime.engine_host_code_allowed = True
    assert runtime.engine_host_code_allowed is True
    runtime.temporary_directory = "/tmp/kiln-test"
    assert runtime.temporary_directory == "/tmp/kiln-test"
    runtime.temporary_directory = None
    flags = 1 << int(trt.TempfileControlFlag.ALLOW_IN_MEMORY_FILES)
    runtime.tempfile_control_flags = flags
    assert runtime.tempfile_control_flags == flags
    assert runtime.error_recorder is None
    assert isinstance(runtime.get_plugin_registry(), trt.IPluginRegistry)
    with runtime as entered:
        assert entered is runtime


def test_runtime_load_runtime_fails_cleanly(logger):
    runtime = trt.Runtime(logger)
    assert runtime.load_runtime("/nonexistent/libnvinfer_lean.so") is None
    assert "lean" in logger.errors()


def test_deserialize_from_every_buffer_kind(builder, logger, rng):
    network, _ = add_sum_product_network(builder)
    plan = build_plan(builder, network, logger)
    raw = bytes(plan)
    runtime = trt.Runtime(logger)
    for blob in (plan, raw, bytearray(raw), memoryview(raw), np.frombuffer(raw, dtype=np.uint8)):
        engine = runtime.deserialize_cuda_engine(blob)
        assert engine is not None, logger.errors()
        run_static(engine, rng)


def test_deserialize_garbage_returns_none_and_records(logger, rng):
    runtime = trt.Runtime(logger)
    garbage = rng.integers(0, 256, 4096, dtype=np.uint8).tobytes()
    assert runtime.deserialize_cuda_engine(garbage) is None
    assert logger.errors(), "a failed deserialization must be logged"
    with pytest.raises(TypeError):
        runtime.deserialize_cuda_engine("not a buffer")
    with pytest.raises(TypeError):
        runtime.deserialize_cuda_engine(12345)


def test_engine_tensor_queries(static_engine):
    _, engine, _ = static_engine
    assert engine.num_io_tensors == 4
    names = [engine.get_tensor_name(i) for i in range(engine.num_io_tensors)]
    assert sorted(names) == ["a", "b", "prod", "sum"]
    for i, name in enumerate(names):
        assert engine[i] == name
        assert engine[name] == i
    assert engine["missing"] == -1
    assert list(engine) == names  # iteration through __getitem__ stops at IndexError
    with pytest.raises(IndexError):
        engine.get_tensor_name(engine.num_io_tensors)
    with pytest.raises(IndexError):
        engine.get_tensor_name(-1)
    for name in names:
        mode = engine.get_tensor_mode(name)
        assert mode == (trt.TensorIOMode.INPUT if name in ("a", "b") else trt.TensorIOMode.OUTPUT)
        assert tuple(engine.get_tensor_shape(name)) == (2, 3)
        assert engine.get_tensor_dtype(name) == trt.float32
        assert engine.get_tensor_location(name) == trt.TensorLocation.DEVICE
        assert engine.get_tensor_format(name) == trt.TensorFormat.LINEAR
        assert engine.get_tensor_format(name, 0) == trt.TensorFormat.LINEAR
        assert isinstance(engine.get_tensor_format_desc(name), str)
        assert engine.get_tensor_vectorized_dim(name) == -1
        assert engine.get_tensor_bytes_per_component(name) in (-1, 4)
        assert engine.get_tensor_components_per_element(name, 0) in (-1, 1)
        assert engine.is_shape_inference_io(name) is False
        assert engine.is_debug_tensor(name) is False
        assert engine.get_aliased_input_tensor(name) is None
    assert engine.get_tensor_mode("missing") == trt.TensorIOMode.NONE


def test_engine_properties(static_engine):
    _, engine, _ = static_engine
    assert engine.num_layers >= 1
    assert isinstance(engine.name, str)
    assert engine.num_optimization_profiles == 1
    assert engine.refittable is False
    assert engine.has_implicit_batch_dimension is False
    assert engine.engine_capability == trt.EngineCapability.STANDARD
    assert engine.device_memory_size_v2 >= 0
    assert engine.device_memory_size == engine.device_memory_size_v2
    assert engine.get_device_memory_size_for_profile_v2(0) <= engine.device_memory_size_v2
    assert engine.num_aux_streams >= 0
    assert engine.streamable_weights_size == 0
    assert isinstance(engine.profiling_verbosity, trt.ProfilingVerbosity)
    assert engine.get_engine_stat(trt.EngineStat.TOTAL_WEIGHTS_SIZE) >= 0
    with engine as entered:
        assert entered is engine


def test_weight_streaming_budget_is_refused(static_engine, logger):
    _, engine, _ = static_engine
    with pytest.raises(RuntimeError, match="weight_streaming_budget_v2"):
        engine.weight_streaming_budget_v2 = 1 << 20
    assert "weight streaming" in logger.errors().lower()


def test_dynamic_profile_queries(builder, logger):
    network, profiles = add_sum_product_network(builder, dynamic=True)
    _, engine, _ = build_engine(builder, network, logger, profiles)
    assert tuple(engine.get_tensor_shape("a")) == (-1, 3)
    shapes = engine.get_tensor_profile_shape("a", 0)
    assert [tuple(s) for s in shapes] == [(1, 3), (2, 3), (8, 3)]
    assert engine.get_tensor_profile_values("a", 0) == [[], [], []]


def test_serialize_round_trip(static_engine, logger, rng):
    runtime, engine, plan = static_engine
    again = engine.serialize()
    assert isinstance(again, trt.IHostMemory)
    assert bytes(again) == bytes(plan)
    config = engine.create_serialization_config()
    assert config.flags == 0
    assert config.set_flag(trt.SerializationFlag.EXCLUDE_LEAN_RUNTIME)
    assert config.get_flag(trt.SerializationFlag.EXCLUDE_LEAN_RUNTIME)
    with_config = engine.serialize_with_config(config)
    assert with_config is not None, logger.errors()
    reloaded = runtime.deserialize_cuda_engine(with_config)
    assert reloaded is not None
    run_static(reloaded, rng)
    assert config.clear_flag(trt.SerializationFlag.EXCLUDE_LEAN_RUNTIME)
    assert not config.get_flag(trt.SerializationFlag.EXCLUDE_LEAN_RUNTIME)


def test_runtime_config_strategies(static_engine, rng):
    _, engine, _ = static_engine
    config = engine.create_runtime_config()
    assert config.get_execution_context_allocation_strategy() == trt.ExecutionContextAllocationStrategy.STATIC
    config.set_execution_context_allocation_strategy(trt.ExecutionContextAllocationStrategy.ON_PROFILE_CHANGE)
    context = engine.create_execution_context(config)
    assert context is not None
    assert (context.get_runtime_config().get_execution_context_allocation_strategy()
            == trt.ExecutionContextAllocationStrategy.ON_PROFILE_CHANGE)
    for strategy in trt.ExecutionContextAllocationStrategy.__members__.values():
        assert engine.create_execution_context(strategy) is not None


def test_user_managed_device_memory(static_engine, rng):
    _, engine, _ = static_engine
    context = engine.create_execution_context(trt.ExecutionContextAllocationStrategy.USER_MANAGED)
    size = max(engine.device_memory_size_v2, 1)
    arena = np.empty(size + 256, dtype=np.uint8)
    offset = (-arena.ctypes.data) % 256
    context.set_device_memory(arena.ctypes.data + offset, size)
    assert context.update_device_memory_size_for_shapes() >= 0
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    out_sum, out_prod = poisoned((2, 3)), poisoned((2, 3))
    for name, array in (("a", a), ("b", b), ("sum", out_sum), ("prod", out_prod)):
        assert context.set_tensor_address(name, array)
    assert context.execute_async_v3(0)
    np.testing.assert_allclose(out_sum, a + b, rtol=1e-6)
    deprecated = engine.create_execution_context_without_device_memory()
    assert deprecated is not None


def test_engine_inspector(static_engine):
    _, engine, _ = static_engine
    inspector = engine.create_engine_inspector()
    assert isinstance(inspector, trt.EngineInspector)
    text = inspector.get_engine_information(trt.LayerInformationFormat.JSON)
    info = json.loads(text)
    assert isinstance(info, dict)
    one = inspector.get_layer_information(0, trt.LayerInformationFormat.ONELINE)
    assert isinstance(one, str) and one
    assert inspector.execution_context is None
    context = engine.create_execution_context()
    inspector.execution_context = context
    assert inspector.execution_context is context
    inspector.execution_context = None
    assert inspector.execution_context is None


def test_objects_keep_their_owners_alive(builder, logger, rng):
    network, _ = add_sum_product_network(builder)
    plan = build_plan(builder, network, logger)
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)  # the runtime is only referenced by the engine
    context = engine.create_execution_context()
    del engine
    import gc
    gc.collect()
    assert context.engine.num_io_tensors == 4
    run_static(context.engine, rng)


def test_refitter_is_not_supported(static_engine, logger):
    _, engine, _ = static_engine
    with pytest.raises(RuntimeError, match="[Rr]efit"):
        trt.Refitter(engine, logger)


class BytesReader(trt.IStreamReader):
    """An IStreamReader over bytes, in chunks of at most ``chunk`` bytes."""

    def __init__(self, data, chunk=1000):
        trt.IStreamReader.__init__(self)
        self.data, self.position, self.chunk, self.calls = bytes(data), 0, chunk, 0

    def read(self, size):
        self.calls += 1
        size = min(size, self.chunk)
        piece = self.data[self.position:self.position + size]
        self.position += len(piece)
        return piece


class SeekableReader(trt.IStreamReaderV2):
    """An IStreamReaderV2 over bytes."""

    def __init__(self, data):
        trt.IStreamReaderV2.__init__(self)
        self.data, self.position, self.streams = bytes(data), 0, set()

    def read(self, size, stream):
        self.streams.add(stream)
        piece = self.data[self.position:self.position + size]
        self.position += len(piece)
        return piece

    def seek(self, offset, where):
        base = {trt.SeekPosition.SET: 0, trt.SeekPosition.CUR: self.position,
                trt.SeekPosition.END: len(self.data)}[where]
        if not 0 <= base + offset <= len(self.data):
            return False
        self.position = base + offset
        return True


def test_deserialize_from_stream_readers(builder, logger, rng):
    network, _ = add_sum_product_network(builder)
    plan = bytes(build_plan(builder, network, logger))
    runtime = trt.Runtime(logger)
    reader = BytesReader(plan)
    engine = runtime.deserialize_cuda_engine(reader)
    assert engine is not None, logger.errors()
    assert reader.calls >= 1
    run_static(engine, rng)
    engine2 = runtime.deserialize_cuda_engine(SeekableReader(plan))
    assert engine2 is not None, logger.errors()
    run_static(engine2, rng)

    class Failing(trt.IStreamReader):
        def __init__(self):
            trt.IStreamReader.__init__(self)

        def read(self, size):
            raise IOError("disk on fire")

    logger.clear()
    assert runtime.deserialize_cuda_engine(Failing()) is None
    assert "disk on fire" in logger.errors()
    assert runtime.deserialize_cuda_engine(BytesReader(plan[: len(plan) // 2])) is None
