"""Helpers of the network and layer tests (test_network_*.py, test_layers_*.py).

``EngineRunner`` builds a network into an engine and runs it on the CPU with numpy buffers, through the runtime
bindings (Runtime, ICudaEngine, IExecutionContext). Tests that need it skip themselves while the runtime bindings
are missing (``require_runtime``).
"""

import numpy as np
import pytest

import kiln as trt
from conftest import poisoned


def require_runtime():
    """Skip the calling test when the runtime bindings are not available yet."""
    needed = ("Runtime", "TensorIOMode")
    if not all(hasattr(trt, name) for name in needed):
        pytest.skip("runtime bindings (trt.Runtime, trt.TensorIOMode) are not available yet")


class EngineRunner:
    """A network built once into an engine, run any number of times with numpy inputs."""

    def __init__(self, builder, network, logger, profiles=None):
        """Build ``network``. ``profiles`` maps input names to (min, opt, max) shapes for one profile."""
        require_runtime()
        config = builder.create_builder_config()
        if profiles:
            profile = builder.create_optimization_profile()
            for name, (lo, opt, hi) in profiles.items():
                profile.set_shape(name, lo, opt, hi)
            config.add_optimization_profile(profile)
        plan = builder.build_serialized_network(network, config)
        assert plan is not None, "build failed:\n" + logger.errors()
        self.runtime = trt.Runtime(logger)
        self.engine = self.runtime.deserialize_cuda_engine(plan)
        assert self.engine is not None, "deserialize failed:\n" + logger.errors()
        self.context = self.engine.create_execution_context()
        assert self.context is not None, logger.errors()
        self.logger = logger

    def run(self, **inputs):
        """Run with the given input arrays (by tensor name); returns {output name: numpy array}."""
        keep = []
        for name, value in inputs.items():
            array = np.require(value, requirements="C")  # unlike ascontiguousarray, keeps 0-D arrays 0-D
            keep.append(array)
            if self.engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT:
                assert self.context.set_input_shape(name, array.shape), self.logger.errors()
            self.context.set_tensor_address(name, array.ctypes.data)
        outputs = {}
        for i in range(self.engine.num_io_tensors):
            name = self.engine.get_tensor_name(i)
            if self.engine.get_tensor_mode(name) != trt.TensorIOMode.OUTPUT:
                continue
            shape = tuple(self.context.get_tensor_shape(name))
            dtype = trt.nptype(self.engine.get_tensor_dtype(name))
            out = poisoned(shape, dtype)
            outputs[name] = out
            self.context.set_tensor_address(name, out.ctypes.data)
        assert self.context.execute_async_v3(0), "execution failed:\n" + self.logger.errors()
        return outputs


def mark(network, tensor, name):
    """Name ``tensor`` and mark it as a network output; returns it."""
    tensor.name = name
    network.mark_output(tensor)
    return tensor
