"""A NonZero-style IPluginV3 written in Python: output 0 (K x 2 indices) has a data-dependent row count declared
with declare_size_tensor; its memory comes from a Python IOutputAllocator. Compared with numpy.argwhere."""

import numpy as np

import kiln as trt
from plugin_testlib import NonZeroCreatorV3, NonZeroV3, build_plan, register


class NumpyOutputAllocator(trt.IOutputAllocator):
    """Allocates output memory as numpy byte arrays and records the shapes Kiln reports."""

    def __init__(self):
        trt.IOutputAllocator.__init__(self)
        self.buffers = {}
        self.shapes = {}
        self.sizes = []

    def reallocate_output(self, tensor_name, memory, size, alignment):
        self.sizes.append(size)
        buffer = np.full(max(int(size), 1), 0xAB, dtype=np.uint8)  # poisoned
        self.buffers[tensor_name] = buffer
        return buffer.ctypes.data

    def notify_shape(self, tensor_name, shape):
        self.shapes[tensor_name] = tuple(shape)


def test_nonzero_size_tensor_with_output_allocator(builder, logger):
    register(NonZeroCreatorV3())
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (-1, -1))
    layer = network.add_plugin_v3([x], [], NonZeroV3())
    indices = layer.get_output(0)
    indices.name = "indices"
    network.mark_output(indices)
    assert indices.dtype == trt.DataType.INT32

    plan = build_plan(builder, network, logger, {"x": ((1, 1), (4, 4), (6, 8))})
    assert plan is not None, logger.errors()
    runtime = trt.Runtime(logger)
    engine = runtime.deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    allocator = NumpyOutputAllocator()
    assert context.set_output_allocator("indices", allocator)

    rng = np.random.default_rng()
    for shape in [(3, 5), (6, 8)]:
        values = rng.normal(size=shape).astype(np.float32)
        values[rng.random(shape) < 0.5] = 0.0
        values[0, 0] = 1.5                              # at least one non-zero element
        assert context.set_input_shape("x", shape)
        context.set_tensor_address("x", values.ctypes.data)
        assert context.execute_async_v3(0), logger.errors()

        expected = np.argwhere(values != 0).astype(np.int32)
        k = expected.shape[0]
        assert allocator.shapes["indices"] == (k, 2)
        got = allocator.buffers["indices"][: k * 2 * 4].view(np.int32).reshape(k, 2)
        np.testing.assert_array_equal(got, expected)
    assert min(allocator.sizes) >= 2 * 4
