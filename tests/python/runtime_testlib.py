"""Helpers of the runtime, parser and runner tests (test_runtime_*.py, test_parser_*.py, test_runner_*.py).

Networks are built with the network bindings (add_input, add_elementwise, add_non_zero, ...) and turned into
engines through ``Builder.build_serialized_network`` and ``Runtime.deserialize_cuda_engine``. Every helper skips
the calling test when a binding it needs is missing, so these tests run as soon as the pieces exist.
"""

import numpy as np
import pytest

import kiln as trt


def require(obj, *names):
    """Skip the calling test unless ``obj`` has every attribute in ``names``."""
    missing = [name for name in names if not hasattr(obj, name)]
    if missing:
        pytest.skip(f"{getattr(obj, '__name__', type(obj).__name__)} lacks {missing} (not bound yet)")


def build_plan(builder, network, logger, profiles=None):
    """Build ``network`` into a serialized engine (IHostMemory); ``profiles`` maps inputs to (min, opt, max)."""
    config = builder.create_builder_config()
    if profiles:
        profile = builder.create_optimization_profile()
        for name, (lo, opt, hi) in profiles.items():
            profile.set_shape(name, lo, opt, hi)
        config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, "build failed:\n" + logger.errors()
    return plan


def build_engine(builder, network, logger, profiles=None):
    """Build and deserialize ``network``; returns (runtime, engine, plan)."""
    plan = build_plan(builder, network, logger, profiles)
    runtime = trt.Runtime(logger)
    engine = runtime.deserialize_cuda_engine(plan)
    assert engine is not None, "deserialize failed:\n" + logger.errors()
    return runtime, engine, plan


def add_sum_product_network(builder, dynamic=False):
    """Network ``sum = a + b`` and ``prod = relu(a * b)`` over float32 inputs of shape (2, 3) or (-1, 3).

    Returns (network, profiles) where profiles is None for the static network.
    """
    network = builder.create_network(0)
    require(network, "add_input", "add_elementwise", "add_activation", "mark_output")
    shape = (-1, 3) if dynamic else (2, 3)
    a = network.add_input("a", trt.float32, shape)
    b = network.add_input("b", trt.float32, shape)
    total = network.add_elementwise(a, b, trt.ElementWiseOperation.SUM).get_output(0)
    total.name = "sum"
    product = network.add_elementwise(a, b, trt.ElementWiseOperation.PROD).get_output(0)
    relu = network.add_activation(product, trt.ActivationType.RELU).get_output(0)
    relu.name = "prod"
    network.mark_output(total)
    network.mark_output(relu)
    profiles = {"a": ((1, 3), (2, 3), (8, 3)), "b": ((1, 3), (2, 3), (8, 3))} if dynamic else None
    return network, profiles


def sum_product_reference(a, b):
    """numpy reference of add_sum_product_network."""
    return {"sum": a + b, "prod": np.maximum(a * b, 0.0)}


def add_non_zero_network(builder, shape=(3, 5)):
    """Network ``indices = NonZero(x)`` with a float32 input: its output shape depends on the data."""
    network = builder.create_network(0)
    require(network, "add_input", "add_non_zero", "mark_output")
    x = network.add_input("x", trt.float32, shape)
    indices = network.add_non_zero(x).get_output(0)
    indices.name = "indices"
    network.mark_output(indices)
    return network


def sparse_random(rng, shape, density=0.4):
    """Random float32 data with about ``density`` of the entries non-zero (never all zeros)."""
    data = rng.standard_normal(shape).astype(np.float32)
    mask = rng.random(shape) < density
    mask.flat[rng.integers(0, mask.size)] = True
    return np.where(mask, data, np.float32(0.0)).astype(np.float32)


def non_zero_reference(x):
    """numpy reference of NonZero: int64 indices of shape (rank, count)."""
    return np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)


class NumpyOutputAllocator(trt.IOutputAllocator):
    """The seed-003 output allocator, implemented with numpy buffers (the CPU backend's memory is host memory)."""

    def __init__(self):
        trt.IOutputAllocator.__init__(self)
        self.buffers = {}
        self.shapes = {}
        self.requests = []

    def reallocate_output(self, tensor_name, memory, size, alignment):
        """Return an aligned numpy buffer of at least ``size`` bytes."""
        self.requests.append((tensor_name, memory, size, alignment))
        buffer = np.empty(max(size, 1) + alignment, dtype=np.uint8)
        offset = (-buffer.ctypes.data) % max(alignment, 1)
        self.buffers[tensor_name] = (buffer, offset)
        return buffer.ctypes.data + offset

    def notify_shape(self, tensor_name, shape):
        """Record the final shape."""
        self.shapes[tensor_name] = tuple(shape)

    def result(self, tensor_name, dtype):
        """The output as a numpy array of the notified shape."""
        buffer, offset = self.buffers[tensor_name]
        shape = self.shapes[tensor_name]
        count = int(np.prod(shape)) if shape else 1
        nbytes = count * np.dtype(dtype).itemsize
        return buffer[offset:offset + nbytes].view(dtype).reshape(shape).copy()
