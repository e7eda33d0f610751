"""Python plugins on Kiln's CUDA backend: circular padding written as IPluginV2DynamicExt, IPluginV3 and kiln.plugin,
each doing its work with torch on the device (buffers taken through __cuda_array_interface__ on the enqueue stream),
compared with numpy.pad(mode="wrap"); an exception inside a GPU plugin fails the run with the Python message.
Skips without a GPU."""

from typing import Tuple

import numpy as np
import numpy.typing as npt
import pytest

import kiln as trt
import kiln.plugin as trtp
from gpu_testlib import (build_engine_for, external_stream, poisoned_cuda, require_gpu, torch_wrap_pad,
                         wrap_pad_reference)
from plugin_testlib import CircPadCreatorV2, CircPadCreatorV3, CircPadV2, CircPadV3, register

PROFILE = {"x": ((1, 2, 2, 2), (2, 2, 4, 4), (3, 2, 6, 7))}
SHAPES = [(1, 2, 3, 4), (3, 2, 6, 2)]
SEEN = []  # (generation, on_device, stream) of every GPU enqueue


def torch_enqueue(generation, pads, inputs, outputs, stream):
    import torch

    SEEN.append((generation, inputs[0].on_device, int(stream)))
    with external_stream(torch, stream):
        x = torch.as_tensor(inputs[0], device="cuda")
        y = torch.as_tensor(outputs[0], device="cuda")
        assert x.data_ptr() == int(inputs[0]) and y.data_ptr() == int(outputs[0])
        y.copy_(torch_wrap_pad(torch, x, pads))


class TorchCircPadV2(CircPadV2):
    def __init__(self, pads=(1, 1, 1, 1)):
        super().__init__(pads)
        self.plugin_type = "CircPadTorchV2"

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        torch_enqueue("v2", self.pads, inputs, outputs, stream)

    def clone(self):
        return TorchCircPadV2(self.pads)


class TorchCircPadCreatorV2(CircPadCreatorV2):
    def __init__(self):
        super().__init__()
        self.name = "CircPadTorchV2"

    def create_plugin(self, name, field_collection, phase=None):
        return TorchCircPadV2(super().create_plugin(name, field_collection, phase).pads)

    def deserialize_plugin(self, name, data):
        return TorchCircPadV2(np.frombuffer(bytes(data), dtype=np.int32).tolist())


class TorchCircPadV3(CircPadV3):
    def __init__(self, pads=(1, 1, 1, 1), fail=False):
        super().__init__(pads)
        self.plugin_name = "CircPadTorchV3"
        self.fail = fail

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        if self.fail:
            raise ValueError("torch plugin failed on purpose")
        torch_enqueue("v3", self.pads, inputs, outputs, stream)

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection(
            [trt.PluginField("pads", np.array(self.pads, dtype=np.int32), trt.PluginFieldType.INT32),
             trt.PluginField("fail", np.array([int(self.fail)], dtype=np.int32), trt.PluginFieldType.INT32)])

    def clone(self):
        return TorchCircPadV3(self.pads, self.fail)


class TorchCircPadCreatorV3(CircPadCreatorV3):
    def __init__(self):
        super().__init__()
        self.name = "CircPadTorchV3"

    def create_plugin(self, name, field_collection, phase):
        pads, fail = (1, 1, 1, 1), False
        for field in field_collection:
            if field.name == "pads":
                pads = field.data.tolist()
            elif field.name == "fail":
                fail = bool(field.data[0])
        return TorchCircPadV3(pads, fail)


@trtp.register("gpu_test::circ_pad")
def _circ_pad_desc(inp: trtp.TensorDesc, pads: npt.NDArray[np.int32]) -> trtp.TensorDesc:
    out = inp.like()
    rank = len(out.shape_expr)
    out.shape_expr[rank - 2] = out.shape_expr[rank - 2] + int(pads[0]) + int(pads[1])
    out.shape_expr[rank - 1] = out.shape_expr[rank - 1] + int(pads[2]) + int(pads[3])
    return out


@trtp.impl("gpu_test::circ_pad")
def _circ_pad_impl(inp: trtp.Tensor, pads: npt.NDArray[np.int32], outputs: Tuple[trtp.Tensor],
                   stream: int) -> None:
    import torch

    SEEN.append(("qdp", not hasattr(inp, "__array_interface__"), int(stream)))
    with external_stream(torch, stream):
        x = torch.as_tensor(inp, device="cuda")
        y = torch.as_tensor(outputs[0], device="cuda")
        y.copy_(torch_wrap_pad(torch, x, [int(p) for p in pads]))


@pytest.fixture
def torch():
    return require_gpu()


def make_network(builder, generation, pads):
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (-1, 2, -1, -1))
    if generation == "v2":
        register(TorchCircPadCreatorV2())
        layer = network.add_plugin_v2([x], TorchCircPadV2(pads))
    elif generation == "v3":
        register(TorchCircPadCreatorV3())
        layer = network.add_plugin_v3([x], [], TorchCircPadV3(pads))
    else:
        layer = network.add_plugin(trtp.op.gpu_test.circ_pad(x, pads=np.array(pads, dtype=np.int32)))
    y = layer.get_output(0)
    y.name = "y"
    network.mark_output(y)
    return network


@pytest.mark.parametrize("generation", ["v2", "v3", "qdp"])
def test_torch_circ_pad_plugin_on_gpu_matches_numpy_wrap(torch, builder, logger, rng, generation):
    pads = tuple(int(p) for p in rng.integers(0, 3, size=4))
    network = make_network(builder, generation, pads)
    _, engine = build_engine_for(builder, network, logger, trt.BackendKind.CUDA, PROFILE)
    context = engine.create_execution_context()
    stream = torch.cuda.Stream()
    top, bottom, left, right = pads
    for shape in SHAPES:
        SEEN.clear()
        x = rng.standard_normal(shape).astype(np.float32)
        out_shape = (shape[0], shape[1], shape[2] + top + bottom, shape[3] + left + right)
        x_gpu = torch.from_numpy(x).cuda()
        y_gpu = poisoned_cuda(torch, out_shape)
        assert context.set_input_shape("x", shape)
        assert context.set_tensor_address("x", x_gpu)
        assert context.set_tensor_address("y", y_gpu)
        stream.wait_stream(torch.cuda.current_stream())
        assert context.execute_async_v3(stream.cuda_stream), logger.errors()
        stream.synchronize()
        assert SEEN == [(generation, True, stream.cuda_stream)]
        np.testing.assert_array_equal(y_gpu.cpu().numpy(), wrap_pad_reference(x, pads))


def test_exception_in_gpu_plugin_fails_the_run_with_the_python_message(torch, builder, logger, rng):
    register(TorchCircPadCreatorV3())
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (1, 2, 3, 3))
    layer = network.add_plugin_v3([x], [], TorchCircPadV3((1, 1, 1, 1), fail=True))
    y = layer.get_output(0)
    y.name = "y"
    network.mark_output(y)
    _, engine = build_engine_for(builder, network, logger, trt.BackendKind.CUDA)
    context = engine.create_execution_context()
    x = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
    assert context.set_tensor_address("x", torch.from_numpy(x).cuda())
    assert context.set_tensor_address("y", poisoned_cuda(torch, (1, 2, 5, 5)))
    logger.clear()
    assert not context.execute_async_v3(0)
    torch.cuda.synchronize()
    assert "torch plugin failed on purpose" in logger.errors()
    assert "ValueError" in trt.last_plugin_error()
    # The process and the context survive: a later run of a working engine still succeeds.
    network2 = make_network(builder, "v3", (0, 1, 1, 0))
    _, engine2 = build_engine_for(builder, network2, logger, trt.BackendKind.CUDA, PROFILE)
    context2 = engine2.create_execution_context()
    x2 = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    y2 = poisoned_cuda(torch, (1, 2, 4, 5))
    assert context2.set_input_shape("x", x2.shape)
    assert context2.set_tensor_address("x", torch.from_numpy(x2).cuda())
    assert context2.set_tensor_address("y", y2)
    assert context2.execute_async_v3(0), logger.errors()
    torch.cuda.synchronize()
    np.testing.assert_array_equal(y2.cpu().numpy(), wrap_pad_reference(x2, (0, 1, 1, 0)))
