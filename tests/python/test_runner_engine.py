"""kiln.runner.EngineRunner: numpy in, numpy out, with dynamic shapes and data-dependent outputs."""

import numpy as np
import pytest

import kiln as trt
from kiln.runner import EngineRunner, NumpyOutputAllocator, numpy_dtype
from runtime_testlib import (add_non_zero_network, add_sum_product_network, build_engine, non_zero_reference,
                             sparse_random, sum_product_reference)


def test_runner_static(builder, logger, rng):
    network, _ = add_sum_product_network(builder)
    _, engine, _ = build_engine(builder, network, logger)
    runner = EngineRunner(engine)
    assert runner.input_names == ["a", "b"] or sorted(runner.input_names) == ["a", "b"]
    assert sorted(runner.output_names) == ["prod", "sum"]
    for _ in range(3):
        a = rng.standard_normal((2, 3))  # float64: converted to the engine's float32
        b = rng.standard_normal((2, 3)).astype(np.float32)
        outputs = runner.run({"a": a, "b": b})
        expected = sum_product_reference(a.astype(np.float32), b)
        assert set(outputs) == {"sum", "prod"}
        for name, value in outputs.items():
            assert value.dtype == np.float32
            np.testing.assert_allclose(value, expected[name], rtol=1e-6)


def test_runner_outputs_are_independent_copies(builder, logger, rng):
    network, _ = add_sum_product_network(builder)
    _, engine, _ = build_engine(builder, network, logger)
    runner = EngineRunner(engine)
    a, b = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))
    first = runner.run({"a": a, "b": b})
    kept = first["sum"].copy()
    runner.run({"a": b, "b": b * 3})
    np.testing.assert_array_equal(first["sum"], kept)


def test_runner_dynamic_shapes(builder, logger, rng):
    network, profiles = add_sum_product_network(builder, dynamic=True)
    _, engine, _ = build_engine(builder, network, logger, profiles)
    runner = EngineRunner(engine)
    for rows in (1, 7, 8, 3):
        a, b = (rng.standard_normal((rows, 3)).astype(np.float32) for _ in range(2))
        outputs = runner.run({"a": a, "b": b})
        expected = sum_product_reference(a, b)
        for name in expected:
            assert outputs[name].shape == (rows, 3)
            np.testing.assert_allclose(outputs[name], expected[name], rtol=1e-6)


def test_runner_data_dependent_output(builder, logger, rng):
    _, engine, _ = build_engine(builder, add_non_zero_network(builder), logger)
    runner = EngineRunner(engine)
    for density in (0.1, 0.5, 0.9):
        x = sparse_random(rng, (3, 5), density)
        indices = runner.run({"x": x})["indices"]
        assert indices.dtype == trt.nptype(engine.get_tensor_dtype("indices"))
        np.testing.assert_array_equal(indices, non_zero_reference(x))


def test_runner_errors(builder, logger, rng):
    network, profiles = add_sum_product_network(builder, dynamic=True)
    _, engine, _ = build_engine(builder, network, logger, profiles)
    runner = EngineRunner(engine)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    with pytest.raises(KeyError, match="missing inputs"):
        runner.run({"a": a})
    with pytest.raises(KeyError, match="not inputs"):
        runner.run({"a": a, "b": a, "c": a})
    with pytest.raises(ValueError, match="not valid for input 'a'"):
        runner.run({"a": np.ones((9, 3), np.float32), "b": np.ones((9, 3), np.float32)})
    with pytest.raises(RuntimeError, match="profile"):
        EngineRunner(engine, profile_index=3)


def test_runner_helpers():
    assert numpy_dtype(trt.float32) == np.float32
    assert numpy_dtype(trt.int64) == np.int64
    allocator = NumpyOutputAllocator({"y": np.int32})
    address = allocator.reallocate_output("y", 0, 24, 64)
    assert address % 64 == 0
    values = np.arange(6, dtype=np.int32)
    np.ctypeslib.as_array((np.ctypeslib.ctypes.c_int32 * 6).from_address(address))[:] = values
    allocator.notify_shape("y", (2, 3))
    np.testing.assert_array_equal(allocator.array("y"), values.reshape(2, 3))
    allocator.notify_shape("y", (0, 3))
    assert allocator.array("y").shape == (0, 3)
    with pytest.raises(RuntimeError, match="did not report"):
        NumpyOutputAllocator({"z": np.float32}).array("z")
