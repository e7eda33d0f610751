"""Data-dependent outputs without an IOutputAllocator (issue 18): as in TensorRT, the application sizes the buffer
itself (get_max_output_size gives the bound), binds it with set_tensor_address, runs execute_async_v3, and reads the
real shape with get_tensor_shape afterwards. Kiln writes the output in place, says in the verbose log that the
application's buffer size is trusted, and refuses a run with neither an allocator nor an address, naming the output.
Runs on the CPU backend (host buffers).
"""

import numpy as np

import kiln as trt

from conftest import poisoned
from runtime_testlib import add_non_zero_network, build_engine, non_zero_reference, sparse_random

SHAPE = (6, 7)
TRUSTED = "the application's buffer size is trusted"


def make_context(builder, logger):
    _, engine, _ = build_engine(builder, add_non_zero_network(builder, SHAPE), logger)
    context = engine.create_execution_context()
    assert context is not None, logger.errors()
    return engine, context


def test_non_zero_output_goes_to_the_bound_buffer(builder, logger, rng):
    engine, context = make_context(builder, logger)
    dtype = trt.nptype(engine.get_tensor_dtype("indices"))
    itemsize = np.dtype(dtype).itemsize
    max_bytes = context.get_max_output_size("indices")
    assert max_bytes == len(SHAPE) * SHAPE[0] * SHAPE[1] * itemsize
    assert context.get_output_allocator("indices") is None
    capacity = max_bytes // itemsize
    guard = 8
    out = poisoned((capacity + guard,), dtype)
    sentinel = out[-1]
    assert context.set_tensor_address("indices", out.ctypes.data)

    for density in (0.3, 0.9, 0.0):
        x = sparse_random(rng, SHAPE, density) if density > 0 else np.zeros(SHAPE, np.float32)
        expected = non_zero_reference(x)
        count = expected.shape[1]
        out.fill(sentinel)
        assert context.set_tensor_address("x", x)
        logger.clear()
        assert context.execute_async_v3(0), logger.errors()
        assert tuple(context.get_tensor_shape("indices")) == (len(SHAPE), count)
        got = out[:len(SHAPE) * count].reshape(len(SHAPE), count)
        np.testing.assert_array_equal(got, expected.astype(dtype))
        assert np.all(out[capacity:] == sentinel), "written past get_max_output_size"


def test_verbose_log_says_the_buffer_size_is_trusted(builder, logger, rng):
    engine, context = make_context(builder, logger)
    dtype = trt.nptype(engine.get_tensor_dtype("indices"))
    out = poisoned((context.get_max_output_size("indices") // np.dtype(dtype).itemsize,), dtype)
    x = sparse_random(rng, SHAPE)
    assert context.set_tensor_address("x", x)
    assert context.set_tensor_address("indices", out.ctypes.data)
    logger.clear()
    assert context.execute_async_v3(0), logger.errors()
    trusted = [m for m in logger.of_severity(trt.ILogger.VERBOSE) if TRUSTED in m]
    assert len(trusted) == 1 and "'indices'" in trusted[0], trusted


def test_neither_allocator_nor_address_is_a_clear_error(builder, logger, rng):
    _, context = make_context(builder, logger)
    x = sparse_random(rng, SHAPE)
    assert context.set_tensor_address("x", x)
    logger.clear()
    assert not context.execute_async_v3(0)
    errors = logger.errors()
    assert "'indices'" in errors and "neither an IOutputAllocator nor an address" in errors, errors
    assert "getMaxOutputSize" in errors, errors
