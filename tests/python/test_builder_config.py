"""Builder, BuilderConfig, IOptimizationProfile, IHostMemory, ITimingCache and IProgressMonitor from Python:
flags, pools and properties, valid and invalid profiles, building a tiny network into a serialized engine, the
buffer protocol of the result, lifetimes, and a progress monitor that observes or cancels the build."""

import gc
import threading

import numpy as np
import pytest

import kiln as trt
from conftest import RecordingLogger, make_tiny_network, poisoned


def _dynamic_relu(builder, rows_max=8):
    """input (-1, 3) -> ReLU -> output, plus a config with a matching profile."""
    network, x, _ = make_tiny_network(builder, shape=(-1, 3))
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape(x.name, (1, 3), (2, 3), (rows_max, 3))
    assert config.add_optimization_profile(profile) == 0
    return network, config


# ----------------------------------------------------------------------------------------------------------------
# Builder
# ----------------------------------------------------------------------------------------------------------------

def test_builder_properties(builder, logger):
    assert builder.logger is logger
    assert isinstance(builder.platform_has_fast_fp16, bool)
    assert isinstance(builder.platform_has_fast_int8, bool)
    assert isinstance(builder.platform_has_tf32, bool)
    assert builder.num_DLA_cores == 0
    assert isinstance(builder.max_DLA_batch_size, int)
    builder.max_threads = 3
    assert builder.max_threads == 3
    with pytest.raises(RuntimeError, match="max_threads"):
        builder.max_threads = 0
    assert builder.max_threads == 3
    assert builder.error_recorder is None
    assert builder.get_plugin_registry() is not None
    builder.reset()
    with trt.Builder(logger) as scoped:
        assert scoped.num_DLA_cores == 0


def test_builder_requires_a_logger():
    with pytest.raises(TypeError):
        trt.Builder(None)
    with pytest.raises(TypeError):
        trt.Builder("logger")


def test_network_and_config_keep_builder_alive(logger):
    builder = trt.Builder(logger)
    network, config = _dynamic_relu(builder)
    del builder
    gc.collect()
    # The network and the config keep their builder alive; building still needs one, so make a second builder.
    assert network.num_inputs == 1 and config.num_optimization_profiles == 1
    plan = trt.Builder(logger).build_serialized_network(network, config)
    assert plan is not None, logger.errors()


# ----------------------------------------------------------------------------------------------------------------
# BuilderConfig
# ----------------------------------------------------------------------------------------------------------------

def test_config_flags(builder, rng):
    config = builder.create_builder_config()
    chosen = [trt.BuilderFlag.DEBUG, trt.BuilderFlag.REFIT, trt.BuilderFlag.STRICT_NANS, trt.BuilderFlag.TF32]
    config.flags = 0
    for flag in chosen:
        assert not config.get_flag(flag)
        config.set_flag(flag)
        assert config.get_flag(flag)
    expected = 0
    for flag in chosen:
        expected |= 1 << int(flag)
    assert config.flags == expected
    config.clear_flag(trt.BuilderFlag.REFIT)
    assert not config.get_flag(trt.BuilderFlag.REFIT)
    assert config.flags == expected & ~(1 << int(trt.BuilderFlag.REFIT))
    bits = int(rng.integers(0, 1 << 20))
    config.flags = bits
    assert config.flags == bits
    for flag in trt.BuilderFlag.__members__.values():
        assert config.get_flag(flag) == bool(bits >> int(flag) & 1)


def test_config_memory_pools_and_properties(builder, rng):
    config = builder.create_builder_config()
    size = int(rng.integers(1 << 10, 1 << 30))
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, size)
    assert config.get_memory_pool_limit(trt.MemoryPoolType.WORKSPACE) == size
    level = int(rng.integers(0, 6))
    config.builder_optimization_level = level
    assert config.builder_optimization_level == level
    iterations = int(rng.integers(1, 10))
    config.avg_timing_iterations = iterations
    assert config.avg_timing_iterations == iterations
    config.profiling_verbosity = trt.ProfilingVerbosity.DETAILED
    assert config.profiling_verbosity == trt.ProfilingVerbosity.DETAILED
    config.max_aux_streams = 2
    assert config.max_aux_streams == 2
    assert config.default_device_type == trt.DeviceType.GPU
    assert config.engine_capability == trt.EngineCapability.STANDARD
    assert config.hardware_compatibility_level == trt.HardwareCompatibilityLevel.NONE
    config.plugins_to_serialize = ["/tmp/libA.so", "/tmp/libB.so"]
    assert config.plugins_to_serialize == ["/tmp/libA.so", "/tmp/libB.so"]
    config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, True)
    assert config.get_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03)
    config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, False)
    assert not config.get_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03)
    assert isinstance(config.get_tactic_sources(), int)
    assert config.progress_monitor is None
    config.reset()
    assert config.builder_optimization_level == 3
    assert config.num_optimization_profiles == 0


def test_config_max_workspace_size_alias(builder):
    config = builder.create_builder_config()
    with pytest.warns(DeprecationWarning, match="max_workspace_size"):
        config.max_workspace_size = 2**20
    assert config.get_memory_pool_limit(trt.MemoryPoolType.WORKSPACE) == 2**20
    with pytest.warns(DeprecationWarning):
        assert config.max_workspace_size == 2**20


def test_timing_cache(builder, logger):
    config = builder.create_builder_config()
    cache = config.create_timing_cache(b"")
    assert cache is not None, logger.errors()
    assert config.set_timing_cache(cache, False)
    assert config.get_timing_cache() is not None
    blob = bytes(cache.serialize())
    assert len(blob) > 0
    again = config.create_timing_cache(blob)
    assert again is not None
    assert again.combine(cache, False)
    logger.clear()
    assert config.create_timing_cache(b"definitely not a timing cache") is None
    assert any("timing cache" in m for m in logger.of_severity(trt.ILogger.ERROR)), logger.messages


# ----------------------------------------------------------------------------------------------------------------
# IOptimizationProfile
# ----------------------------------------------------------------------------------------------------------------

def test_profile_shapes_round_trip(builder, rng):
    profile = builder.create_optimization_profile()
    lo = tuple(int(v) for v in rng.integers(1, 4, size=3))
    opt = tuple(v + int(rng.integers(0, 3)) for v in lo)
    hi = tuple(v + int(rng.integers(0, 3)) for v in opt)
    profile.set_shape("data", lo, opt, hi)
    assert profile.get_shape("data") == [lo, opt, hi]
    assert profile.is_valid() and bool(profile)
    unset = profile.get_shape("missing")
    assert all(len(d) == 0 for d in unset)
    values = [int(v) for v in rng.integers(1, 9, size=2)]
    profile.set_shape_input("shape_in", values, [v + 1 for v in values], [v + 2 for v in values])
    assert profile.get_shape_input("shape_in") == [values, [v + 1 for v in values], [v + 2 for v in values]]
    assert profile.get_shape_input("missing") == [[], [], []]
    profile.extra_memory_target = 0.5
    assert profile.extra_memory_target == 0.5


def test_profile_errors(builder, logger):
    profile = builder.create_optimization_profile()
    with pytest.raises(RuntimeError, match="min input provided to optimization profile is invalid"):
        profile.set_shape("neg", (-1, 2), (1, 2), (1, 2))
    assert any("neg" in m for m in logger.of_severity(trt.ILogger.ERROR))
    with pytest.raises(RuntimeError, match="extra_memory_target"):
        profile.extra_memory_target = -0.5
    with pytest.raises(RuntimeError, match="set_shape_input"):
        profile.set_shape_input("vals", [1, 2], [1, 2, 3], [1, 2])


def test_invalid_profile_is_refused_by_config(builder, logger):
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (4, 3), (2, 3), (1, 3))  # min > max
    assert not profile.is_valid()
    assert not profile
    config = builder.create_builder_config()
    logger.clear()
    assert config.add_optimization_profile(profile) == -1
    assert logger.of_severity(trt.ILogger.ERROR), logger.messages
    assert config.num_optimization_profiles == 0


# ----------------------------------------------------------------------------------------------------------------
# Building, IHostMemory
# ----------------------------------------------------------------------------------------------------------------

def test_build_serialized_network_and_host_memory(builder, logger, tmp_path):
    network, config = _dynamic_relu(builder)
    assert builder.is_network_supported(network, config)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    assert isinstance(plan, trt.IHostMemory)
    assert plan.dtype == trt.DataType.UINT8
    assert plan.nbytes > 0 and len(plan) == plan.nbytes
    raw = bytes(plan)
    assert len(raw) == plan.nbytes
    as_array = np.frombuffer(plan, dtype=np.uint8)
    assert as_array.size == plan.nbytes
    assert as_array.tobytes() == raw
    view = memoryview(plan)
    assert view.format == "B" and view.nbytes == plan.nbytes
    path = tmp_path / "relu.engine"
    with open(path, "wb") as f:
        f.write(plan)
    assert path.read_bytes() == raw
    # Builds are deterministic: the same network and config give the same bytes.
    assert bytes(builder.build_serialized_network(network, config)) == raw


def test_built_engine_runs_when_runtime_is_bound(builder, logger, rng):
    if not hasattr(trt, "Runtime"):
        pytest.skip("trt.Runtime is not bound yet")
    network, config = _dynamic_relu(builder)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    rows = int(rng.integers(1, 9))
    x = rng.standard_normal((rows, 3)).astype(np.float32)
    y = np.full((rows, 3), np.nan, dtype=np.float32)
    context.set_input_shape("x", (rows, 3))
    context.set_tensor_address("x", x.ctypes.data)
    context.set_tensor_address("y", y.ctypes.data)
    assert context.execute_async_v3(0)
    np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_build_engine_with_config(builder, logger):
    network, config = _dynamic_relu(builder)
    engine = builder.build_engine_with_config(network, config)
    assert engine is not None, logger.errors()
    if hasattr(engine, "num_io_tensors"):
        assert engine.num_io_tensors == 2


def test_build_failure_returns_none_and_logs(builder, logger):
    network, x, _ = make_tiny_network(builder, shape=(-1, 3))
    config = builder.create_builder_config()  # no profile for the dynamic input
    logger.clear()
    assert builder.build_serialized_network(network, config) is None
    assert logger.errors(), logger.messages
    empty = builder.create_network()
    logger.clear()
    assert builder.build_serialized_network(empty, builder.create_builder_config()) is None
    assert logger.errors()


def test_build_releases_the_gil(builder, logger):
    network, config = _dynamic_relu(builder)
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.0005)

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        for _ in range(3):
            assert builder.build_serialized_network(network, config) is not None
    finally:
        stop.set()
        thread.join()
    assert ticks


# ----------------------------------------------------------------------------------------------------------------
# IProgressMonitor
# ----------------------------------------------------------------------------------------------------------------

class RecordingMonitor(trt.IProgressMonitor):
    """Records the calls; cancels at step ``cancel_at`` of the first phase that reaches it (None: never)."""

    def __init__(self, cancel_at=None, raise_in=None):
        trt.IProgressMonitor.__init__(self)
        self.events = []
        self.cancel_at = cancel_at
        self.raise_in = raise_in

    def phase_start(self, phase_name, parent_phase, num_steps):
        if self.raise_in == "phase_start":
            raise KeyError("monitor failure in phase_start")
        self.events.append(("start", phase_name, parent_phase, num_steps))

    def step_complete(self, phase_name, step):
        if self.raise_in == "step_complete":
            raise ValueError("monitor failure in step_complete")
        self.events.append(("step", phase_name, step))
        return self.cancel_at is None or step < self.cancel_at

    def phase_finish(self, phase_name):
        self.events.append(("finish", phase_name))


def test_progress_monitor_sees_nested_phases(builder, logger):
    network, config = _dynamic_relu(builder)
    monitor = RecordingMonitor()
    config.progress_monitor = monitor
    assert config.progress_monitor is monitor
    del monitor
    gc.collect()
    assert builder.build_serialized_network(network, config) is not None, logger.errors()
    events = config.progress_monitor.events
    starts = [e for e in events if e[0] == "start"]
    finishes = [e for e in events if e[0] == "finish"]
    steps = [e for e in events if e[0] == "step"]
    assert starts and steps
    assert sorted(e[1] for e in starts) == sorted(e[1] for e in finishes)
    assert starts[0][2] is None  # the top-level phase has no parent
    open_phases = []
    for event in events:
        if event[0] == "start":
            if open_phases:
                assert event[2] == open_phases[-1]
            open_phases.append(event[1])
        elif event[0] == "finish":
            assert open_phases.pop() == event[1]
        else:
            assert event[1] == open_phases[-1]
    assert not open_phases


def test_progress_monitor_cancels_build(builder, logger):
    network, config = _dynamic_relu(builder)
    config.progress_monitor = RecordingMonitor(cancel_at=0)
    assert builder.build_serialized_network(network, config) is None
    assert logger.errors()


@pytest.mark.parametrize("where", ["step_complete", "phase_start"])
def test_progress_monitor_exception_is_contained(where):
    logger = RecordingLogger()
    builder = trt.Builder(logger)
    network, config = _dynamic_relu(builder)
    config.progress_monitor = RecordingMonitor(raise_in=where)
    result = builder.build_serialized_network(network, config)
    if where == "step_complete":
        assert result is None
    text = "\n".join(m for _, m in logger.messages)
    assert f"monitor failure in {where}" in text, text
    # The process and the builder still work afterwards.
    config.progress_monitor = None
    assert builder.build_serialized_network(network, config) is not None


def test_cpu_thread_count(builder, rng):
    """kiln.set_cpu_thread_count / get_cpu_thread_count (include/kiln/KilnCpuThreads.h): the count is set, bad values
    raise ValueError and change nothing, 0 goes back to the default, and a CPU run gives the same bits with 1 and 3
    threads."""
    default = trt.get_cpu_thread_count()
    assert default >= 1
    try:
        trt.set_cpu_thread_count(3)
        assert trt.get_cpu_thread_count() == 3
        for bad in (-1, 1025):
            with pytest.raises(ValueError):
                trt.set_cpu_thread_count(bad)
            assert trt.get_cpu_thread_count() == 3
        network, x, _ = make_tiny_network(builder, shape=(64, 1031))
        config = builder.create_builder_config()
        config.backend = trt.BackendKind.CPU
        engine = trt.Runtime(RecordingLogger()).deserialize_cuda_engine(
            builder.build_serialized_network(network, config))
        data = rng.standard_normal((64, 1031)).astype(np.float32)
        outputs = []
        for threads in (1, 3):
            trt.set_cpu_thread_count(threads)
            context = engine.create_execution_context()
            out = poisoned(data.shape)
            context.set_tensor_address(x.name, data.ctypes.data)
            context.set_tensor_address(engine.get_tensor_name(1), out.ctypes.data)
            assert context.execute_async_v3(0)
            outputs.append(out)
        assert np.array_equal(outputs[0], np.maximum(data, 0))
        assert np.array_equal(outputs[0], outputs[1])
    finally:
        trt.set_cpu_thread_count(0)
    assert trt.get_cpu_thread_count() >= 1
