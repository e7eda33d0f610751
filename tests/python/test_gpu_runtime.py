"""Engines on Kiln's CUDA backend driven from Python with torch CUDA tensors: addresses through
__cuda_array_interface__ and through DLPack, execute_async_v3 on a torch stream and execute_v2, compared with the
same network on the CPU backend and with numpy. Host arrays are refused for GPU engines. Skips without a GPU."""

import numpy as np
import pytest

import kiln as trt
from gpu_testlib import build_engine_for, poisoned_cuda, require_gpu
from runtime_testlib import add_sum_product_network, sum_product_reference


class DlpackOnly:
    """Exposes a torch tensor through DLPack only (no __cuda_array_interface__), to test that path."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, stream=None):
        return self.tensor.__dlpack__() if stream is None else self.tensor.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


@pytest.fixture
def torch():
    return require_gpu()


def engines(builder, logger, dynamic=False):
    network, profiles = add_sum_product_network(builder, dynamic=dynamic)
    _, gpu = build_engine_for(builder, network, logger, trt.BackendKind.CUDA, profiles)
    _, cpu = build_engine_for(builder, network, logger, trt.BackendKind.CPU, profiles)
    return gpu, cpu


def run_cpu(engine, a, b):
    context = engine.create_execution_context()
    out = {name: np.full(a.shape, np.nan, np.float32) for name in ("sum", "prod")}
    for name, value in (("a", a), ("b", b)):
        assert context.set_input_shape(name, a.shape)
        assert context.set_tensor_address(name, value)
    for name, value in out.items():
        assert context.set_tensor_address(name, value)
    assert context.execute_async_v3(0)
    return out


@pytest.mark.parametrize("protocol", ["cuda_array_interface", "dlpack"])
def test_gpu_engine_with_torch_tensors_matches_cpu(torch, builder, logger, rng, protocol):
    gpu, cpu = engines(builder, logger, dynamic=True)
    assert gpu.backend == trt.BackendKind.CUDA and cpu.backend == trt.BackendKind.CPU
    context = gpu.create_execution_context()
    wrap = DlpackOnly if protocol == "dlpack" else (lambda t: t)
    stream = torch.cuda.Stream()
    for rows in (5, 2):
        a = rng.standard_normal((rows, 3)).astype(np.float32)
        b = rng.standard_normal((rows, 3)).astype(np.float32)
        inputs = {"a": torch.from_numpy(a).cuda(), "b": torch.from_numpy(b).cuda()}
        outputs = {name: poisoned_cuda(torch, (rows, 3)) for name in ("sum", "prod")}
        for name, tensor in inputs.items():
            assert context.set_input_shape(name, tuple(tensor.shape))
            assert context.set_tensor_address(name, wrap(tensor))
            assert context.get_tensor_address(name) == tensor.data_ptr()
        for name, tensor in outputs.items():
            assert context.set_tensor_address(name, wrap(tensor))
        stream.wait_stream(torch.cuda.current_stream())
        assert context.execute_async_v3(stream.cuda_stream), logger.errors()
        stream.synchronize()
        expected = run_cpu(cpu, a, b)
        reference = sum_product_reference(a, b)
        for name in ("sum", "prod"):
            got = outputs[name].cpu().numpy()
            np.testing.assert_allclose(got, expected[name], rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(got, reference[name], rtol=1e-6, atol=1e-6)


def test_gpu_execute_v2_with_torch_tensors(torch, builder, logger, rng):
    gpu, _ = engines(builder, logger)
    context = gpu.create_execution_context()
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    bindings = [torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), poisoned_cuda(torch, (2, 3)),
                poisoned_cuda(torch, (2, 3))]
    torch.cuda.synchronize()
    assert context.execute_v2(bindings), logger.errors()
    reference = sum_product_reference(a, b)
    np.testing.assert_allclose(bindings[2].cpu().numpy(), reference["sum"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(bindings[3].cpu().numpy(), reference["prod"], rtol=1e-6, atol=1e-6)
    # Integer device addresses work too (the caller vouches for them).
    out = poisoned_cuda(torch, (2, 3))
    ints = [bindings[0].data_ptr(), bindings[1].data_ptr(), out.data_ptr(), bindings[3].data_ptr()]
    assert context.execute_v2(ints), logger.errors()
    np.testing.assert_allclose(out.cpu().numpy(), reference["sum"], rtol=1e-6, atol=1e-6)


def test_gpu_engine_refuses_host_memory(torch, builder, logger, rng):
    gpu, _ = engines(builder, logger)
    context = gpu.create_execution_context()
    host = rng.standard_normal((2, 3)).astype(np.float32)
    with pytest.raises(ValueError, match=r"tensor 'a'.*host memory.*CUDA backend"):
        context.set_tensor_address("a", host)
    with pytest.raises(ValueError, match=r"tensor 'b'.*host memory.*CUDA backend"):
        context.set_input_tensor_address("b", np.from_dlpack(host))
    with pytest.raises(ValueError, match=r"tensor 'a'.*host memory.*CUDA backend"):
        context.set_tensor_address("a", torch.from_numpy(host))  # a CPU torch tensor (DLPack on the CPU)
    with pytest.raises(ValueError, match=r"binding 2 \(tensor 'sum'\).*host memory"):
        context.execute_v2([torch.zeros(2, 3, device="cuda"), torch.zeros(2, 3, device="cuda"),
                            np.zeros((2, 3), np.float32), torch.zeros(2, 3, device="cuda")])


def test_gpu_engine_refuses_strided_and_read_only_device_arrays(torch, builder, logger):
    gpu, _ = engines(builder, logger)
    context = gpu.create_execution_context()
    strided = torch.zeros(2, 6, device="cuda")[:, ::2]
    with pytest.raises(ValueError, match="C-contiguous"):
        context.set_tensor_address("a", strided)
    with pytest.raises(ValueError, match="C-contiguous"):
        context.set_tensor_address("a", DlpackOnly(strided))

    class ReadOnly:
        def __init__(self, tensor):
            iface = dict(tensor.__cuda_array_interface__)
            iface["data"] = (tensor.data_ptr(), True)
            self.__cuda_array_interface__ = iface
            self.tensor = tensor

    with pytest.raises(ValueError, match="read-only"):
        context.set_tensor_address("sum", ReadOnly(torch.zeros(2, 3, device="cuda")))
    assert context.set_tensor_address("a", ReadOnly(torch.zeros(2, 3, device="cuda")))  # inputs may be read-only
