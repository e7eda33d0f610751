"""Python callbacks called by the engine: IOutputAllocator (seed 003), IProfiler / trt.Profiler, IErrorRecorder,
IGpuAllocator; exceptions inside callbacks; callbacks from several Python threads at once."""

import gc
import threading

import numpy as np
import pytest

import kiln as trt
from conftest import poisoned
from runtime_testlib import (NumpyOutputAllocator, add_non_zero_network, add_sum_product_network, build_engine,
                             non_zero_reference, sparse_random)


@pytest.fixture
def non_zero_engine(builder, logger):
    return build_engine(builder, add_non_zero_network(builder), logger)[1]


@pytest.fixture
def static_engine(builder, logger):
    network, _ = add_sum_product_network(builder)
    return build_engine(builder, network, logger)[1]


def index_dtype(engine):
    """numpy dtype of the NonZero output (INT32 or INT64 as the engine says)."""
    return trt.nptype(engine.get_tensor_dtype("indices"))


def bind_static(context, rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    arrays = {"a": a, "b": b, "sum": poisoned((2, 3)), "prod": poisoned((2, 3))}
    for name, array in arrays.items():
        assert context.set_tensor_address(name, array)
    return arrays


# ---------------------------------------------------------------------------------------------------------------
# IOutputAllocator
# ---------------------------------------------------------------------------------------------------------------

def test_seed_003_output_allocator(non_zero_engine, rng):
    """The seed's IOutputAllocator skeleton, filled in with numpy buffers (host memory on the CPU backend)."""

    class MyOutputAllocator(trt.IOutputAllocator):
        def __init__(self):
            trt.IOutputAllocator.__init__(self)
            self.buffers = {}
            self.shapes = {}

        def reallocate_output(self, tensor_name, memory, size, alignment):
            buffer = np.empty(size + alignment, dtype=np.uint8)
            offset = (-buffer.ctypes.data) % alignment
            self.buffers[tensor_name] = (buffer, offset)
            return buffer.ctypes.data + offset

        def notify_shape(self, tensor_name, shape):
            self.shapes[tensor_name] = tuple(shape)

    engine = non_zero_engine
    dtype = trt.nptype(engine.get_tensor_dtype("indices"))
    assert engine.get_tensor_dtype("indices") in (trt.int32, trt.int64)
    assert tuple(engine.get_tensor_shape("indices"))[0] == 2
    context = engine.create_execution_context()
    x = sparse_random(rng, (3, 5))
    assert context.set_tensor_address("x", x.ctypes.data)
    allocator = MyOutputAllocator()
    assert context.set_output_allocator("indices", allocator)
    assert context.get_output_allocator("indices") is allocator
    assert context.get_max_output_size("indices") >= 2 * x.size * np.dtype(dtype).itemsize
    assert context.execute_async_v3(0)
    expected = non_zero_reference(x)
    assert allocator.shapes["indices"] == expected.shape
    buffer, offset = allocator.buffers["indices"]
    nbytes = expected.size * np.dtype(dtype).itemsize
    got = buffer[offset:offset + nbytes].view(dtype).reshape(expected.shape)
    np.testing.assert_array_equal(got, expected)
    assert context.get_tensor_address("indices") == buffer.ctypes.data + offset
    assert tuple(context.get_tensor_shape("indices")) == expected.shape


def test_output_allocator_defaults_and_async_override(non_zero_engine, rng):
    engine = non_zero_engine
    context = engine.create_execution_context()
    x = sparse_random(rng, (3, 5))
    context.set_tensor_address("x", x)

    plain = NumpyOutputAllocator()  # only reallocate_output: reallocate_output_async's default forwards to it
    context.set_output_allocator("indices", plain)
    assert context.execute_async_v3(0)
    assert plain.requests and plain.requests[0][0] == "indices"
    np.testing.assert_array_equal(plain.result("indices", index_dtype(engine)), non_zero_reference(x))
    # The base-class method called from Python forwards to the Python reallocate_output too.
    address = plain.reallocate_output_async("indices", 0, 64, 16, 0)
    assert address % 16 == 0 and plain.requests[-1] == ("indices", 0, 64, 16)

    class AsyncAllocator(NumpyOutputAllocator):
        def __init__(self):
            super().__init__()
            self.streams = []

        def reallocate_output_async(self, tensor_name, memory, size, alignment, stream):
            self.streams.append(stream)
            return self.reallocate_output(tensor_name, memory, size, alignment)

    asynchronous = AsyncAllocator()
    context.set_output_allocator("indices", asynchronous)
    x[...] = sparse_random(rng, (3, 5))
    assert context.execute_async_v3(0)
    assert asynchronous.streams == [0]
    np.testing.assert_array_equal(asynchronous.result("indices", index_dtype(engine)), non_zero_reference(x))

    assert context.set_output_allocator("indices", None)
    assert context.get_output_allocator("indices") is None
    assert not context.set_output_allocator("x", plain)  # inputs have no output allocator


def test_context_keeps_the_allocator_alive(non_zero_engine, rng):
    context = non_zero_engine.create_execution_context()
    x = sparse_random(rng, (3, 5))
    context.set_tensor_address("x", x)
    context.set_output_allocator("indices", NumpyOutputAllocator())  # the only reference is the context's
    gc.collect()
    assert context.execute_async_v3(0)
    allocator = context.get_output_allocator("indices")
    np.testing.assert_array_equal(allocator.result("indices", index_dtype(non_zero_engine)), non_zero_reference(x))


@pytest.mark.parametrize("failure", ["raise", "none", "missing"])
def test_output_allocator_failures(non_zero_engine, logger, rng, failure):
    class Broken(trt.IOutputAllocator):
        def __init__(self):
            trt.IOutputAllocator.__init__(self)

        if failure == "raise":
            def reallocate_output(self, tensor_name, memory, size, alignment):
                raise MemoryError("no memory for " + tensor_name)
        elif failure == "none":
            def reallocate_output(self, tensor_name, memory, size, alignment):
                return None

        def notify_shape(self, tensor_name, shape):
            pass

    context = non_zero_engine.create_execution_context()
    x = sparse_random(rng, (3, 5))
    context.set_tensor_address("x", x)
    context.set_output_allocator("indices", Broken())
    assert not context.execute_async_v3(0)
    errors = logger.errors()
    assert errors
    if failure == "raise":
        assert "MemoryError: no memory for indices" in errors
    if failure == "missing":
        assert "reallocate_output is not implemented" in errors
    # The process survives and the context still works with a good allocator.
    good = NumpyOutputAllocator()
    context.set_output_allocator("indices", good)
    assert context.execute_async_v3(0)
    np.testing.assert_array_equal(good.result("indices", index_dtype(non_zero_engine)), non_zero_reference(x))


def test_notify_shape_exception_is_logged(non_zero_engine, logger, rng):
    class BadNotify(NumpyOutputAllocator):
        def notify_shape(self, tensor_name, shape):
            raise ValueError("cannot take shape " + str(tuple(shape)))

    context = non_zero_engine.create_execution_context()
    x = sparse_random(rng, (3, 5))
    context.set_tensor_address("x", x)
    context.set_output_allocator("indices", BadNotify())
    context.execute_async_v3(0)
    assert "ValueError: cannot take shape" in logger.errors()


# ---------------------------------------------------------------------------------------------------------------
# IProfiler
# ---------------------------------------------------------------------------------------------------------------

class RecordingProfiler(trt.IProfiler):
    def __init__(self):
        trt.IProfiler.__init__(self)
        self.records = []
        self.threads = set()

    def report_layer_time(self, layer_name, ms):
        self.records.append((layer_name, ms))
        self.threads.add(threading.get_ident())


def test_profiler_reports_every_layer(static_engine, rng):
    context = static_engine.create_execution_context()
    profiler = RecordingProfiler()
    context.profiler = profiler
    assert context.profiler is profiler
    bind_static(context, rng)
    assert context.execute_async_v3(0)
    assert len(profiler.records) == static_engine.num_layers
    assert all(isinstance(name, str) and name for name, _ in profiler.records)
    assert all(ms >= 0.0 for _, ms in profiler.records)

    # With enqueue_emits_profile off, timings arrive only through report_to_profiler().
    profiler.records.clear()
    context.enqueue_emits_profile = False
    assert context.execute_async_v3(0)
    assert profiler.records == []
    assert context.report_to_profiler()
    assert len(profiler.records) == static_engine.num_layers
    context.profiler = None
    assert context.profiler is None
    assert not context.report_to_profiler()


def test_builtin_profiler_prints(static_engine, rng, capsys):
    context = static_engine.create_execution_context()
    context.profiler = trt.Profiler()
    bind_static(context, rng)
    assert context.execute_async_v3(0)
    lines = [line for line in capsys.readouterr().out.splitlines() if line.endswith("ms")]
    assert len(lines) == static_engine.num_layers
    assert all(": " in line for line in lines)


def test_profiler_exception_is_logged_and_run_succeeds(static_engine, logger, rng):
    class Exploding(trt.IProfiler):
        def __init__(self):
            trt.IProfiler.__init__(self)

        def report_layer_time(self, layer_name, ms):
            raise RuntimeError("profiler exploded at " + layer_name)

    context = static_engine.create_execution_context()
    context.profiler = Exploding()
    arrays = bind_static(context, rng)
    assert context.execute_async_v3(0)  # timing reports cannot fail inference
    np.testing.assert_allclose(arrays["sum"], arrays["a"] + arrays["b"], rtol=1e-6)
    assert "RuntimeError: profiler exploded at" in logger.errors()


# ---------------------------------------------------------------------------------------------------------------
# IErrorRecorder
# ---------------------------------------------------------------------------------------------------------------

class ListErrorRecorder(trt.IErrorRecorder):
    def __init__(self, capacity=64):
        trt.IErrorRecorder.__init__(self)
        self.capacity = capacity
        self.errors = []
        self.overflowed = False

    def num_errors(self):
        return len(self.errors)

    def get_error_code(self, index):
        return self.errors[index][0]

    def get_error_desc(self, index):
        return self.errors[index][1]

    def has_overflowed(self):
        return self.overflowed

    def clear(self):
        self.errors.clear()
        self.overflowed = False

    def report_error(self, code, desc):
        if len(self.errors) >= self.capacity:
            self.overflowed = True
        else:
            self.errors.append((code, desc))
        return False


def test_error_recorder_on_runtime_and_context(static_engine, logger, rng):
    assert trt.IErrorRecorder.MAX_DESC_LENGTH == 127
    runtime = trt.Runtime(logger)
    recorder = ListErrorRecorder()
    runtime.error_recorder = recorder
    assert runtime.error_recorder is recorder
    assert runtime.deserialize_cuda_engine(rng.integers(0, 256, 512, dtype=np.uint8).tobytes()) is None
    assert recorder.num_errors() >= 1
    code, desc = recorder.errors[0]
    assert isinstance(code, trt.ErrorCodeTRT) and code != trt.ErrorCodeTRT.SUCCESS
    assert isinstance(desc, str) and desc

    context = static_engine.create_execution_context()
    context_recorder = ListErrorRecorder(capacity=1)
    context.error_recorder = context_recorder
    assert context.error_recorder is context_recorder
    assert not context.set_input_shape("no_such_tensor", (1,))
    assert not context.set_input_shape("a", (7, 7))
    assert context_recorder.num_errors() == 1 and context_recorder.has_overflowed()
    assert "no_such_tensor" in context_recorder.get_error_desc(0)
    context_recorder.clear()
    assert context_recorder.num_errors() == 0
    context.error_recorder = None
    assert context.error_recorder is None


def test_error_recorder_exception_is_contained(static_engine, logger):
    class Raising(ListErrorRecorder):
        def report_error(self, code, desc):
            raise KeyError("recorder is broken")

    context = static_engine.create_execution_context()
    context.error_recorder = Raising()
    assert not context.set_input_shape("no_such_tensor", (1,))
    assert "recorder is broken" in logger.errors()


# ---------------------------------------------------------------------------------------------------------------
# IGpuAllocator
# ---------------------------------------------------------------------------------------------------------------

class NumpyGpuAllocator(trt.IGpuAllocator):
    def __init__(self):
        trt.IGpuAllocator.__init__(self)
        self.live = {}

    def allocate(self, size, alignment, flags):
        buffer = np.empty(size + max(alignment, 1), dtype=np.uint8)
        address = buffer.ctypes.data + (-buffer.ctypes.data) % max(alignment, 1)
        self.live[address] = buffer
        return address

    def deallocate(self, memory):
        return self.live.pop(memory, None) is not None


def test_gpu_allocators(logger, static_engine):
    allocator = NumpyGpuAllocator()
    address = allocator.allocate_async(100, 64, 0, 0)  # base default forwards to allocate
    assert address in allocator.live and address % 64 == 0
    assert allocator.deallocate_async(address, 0)
    assert allocator.reallocate(0, 16, 32) is None
    runtime = trt.Runtime(logger)
    runtime.gpu_allocator = allocator
    assert runtime.gpu_allocator is allocator

    class AsyncOnly(trt.IGpuAsyncAllocator):
        def __init__(self):
            trt.IGpuAsyncAllocator.__init__(self)
            self.calls = []

        def allocate_async(self, size, alignment, flags, stream):
            self.calls.append(("allocate", size, stream))
            return 4096

        def deallocate_async(self, memory, stream):
            self.calls.append(("deallocate", memory, stream))
            return True

    async_allocator = AsyncOnly()
    assert isinstance(async_allocator, trt.IGpuAllocator)
    context = static_engine.create_execution_context()
    context.temporary_allocator = async_allocator
    assert context.temporary_allocator is async_allocator
    context.temporary_allocator = None
    assert context.temporary_allocator is None


# ---------------------------------------------------------------------------------------------------------------
# Threads
# ---------------------------------------------------------------------------------------------------------------

def test_callbacks_from_concurrent_python_threads(non_zero_engine, logger):
    """Several Python threads run their own contexts of one engine; every run calls an output allocator and a
    profiler written in Python. The GIL is released during execution and re-taken by each callback."""
    engine = non_zero_engine
    threads, iterations = 4, 15
    failures = []
    profilers = []
    barrier = threading.Barrier(threads)

    def worker(seed):
        try:
            rng = np.random.default_rng(seed)
            context = engine.create_execution_context()
            profiler = RecordingProfiler()
            profilers.append(profiler)
            context.profiler = profiler
            barrier.wait()
            for _ in range(iterations):
                x = sparse_random(rng, (3, 5))
                allocator = NumpyOutputAllocator()
                context.set_tensor_address("x", x)
                context.set_output_allocator("indices", allocator)
                if not context.execute_async_v3(0):
                    failures.append("execution failed: " + logger.errors())
                    return
                got = allocator.result("indices", index_dtype(engine))
                np.testing.assert_array_equal(got, non_zero_reference(x))
        except Exception as error:  # reported by the main thread
            failures.append(repr(error))

    workers = [threading.Thread(target=worker, args=(1000 + i,)) for i in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in workers), "a worker thread hung (GIL deadlock?)"
    assert failures == []
    assert len(profilers) == threads
    for profiler in profilers:
        assert len(profiler.records) == iterations * engine.num_layers
