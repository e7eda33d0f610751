"""kiln.runner.EngineRunner on Kiln's CUDA backend: numpy in and out (device memory through torch, and through
ctypes on libcudart), torch CUDA tensors in, device="cuda" out, and a data-dependent output (NonZero) through the
device output allocator; compared with the same engine on the CPU backend. Skips without a GPU."""

import numpy as np
import pytest

import kiln as trt
from gpu_testlib import build_engine_for, require_gpu
from kiln._cuda import device_memory
from kiln.runner import EngineRunner
from runtime_testlib import (add_non_zero_network, add_sum_product_network, non_zero_reference, sparse_random,
                             sum_product_reference)


@pytest.fixture
def torch():
    return require_gpu()


def sum_product_engines(builder, logger):
    network, profiles = add_sum_product_network(builder, dynamic=True)
    _, gpu = build_engine_for(builder, network, logger, trt.BackendKind.CUDA, profiles)
    _, cpu = build_engine_for(builder, network, logger, trt.BackendKind.CPU, profiles)
    return gpu, cpu


@pytest.mark.parametrize("memory", ["torch", "cudart"])
def test_runner_numpy_round_trip_on_gpu(torch, builder, logger, rng, memory):
    gpu, cpu = sum_product_engines(builder, logger)
    runner = EngineRunner(gpu)
    assert runner.on_device
    runner._memory = device_memory(prefer=memory)
    cpu_runner = EngineRunner(cpu)
    assert not cpu_runner.on_device
    for rows in (3, 8, 1):
        a = rng.standard_normal((rows, 3)).astype(np.float32)
        b = rng.standard_normal((rows, 3)).astype(np.float32)
        got = runner.run({"a": a, "b": b})
        expected = cpu_runner.run({"a": a, "b": b})
        reference = sum_product_reference(a, b)
        for name in ("sum", "prod"):
            assert isinstance(got[name], np.ndarray) and got[name].shape == (rows, 3)
            np.testing.assert_allclose(got[name], expected[name], rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(got[name], reference[name], rtol=1e-6, atol=1e-6)


def test_runner_torch_in_torch_out(torch, builder, logger, rng):
    gpu, _ = sum_product_engines(builder, logger)
    runner = EngineRunner(gpu)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal((4, 3))  # float64: converted to the engine's float32
    stream = torch.cuda.Stream()
    out = runner.run({"a": torch.from_numpy(a).cuda(), "b": torch.from_numpy(b).cuda()}, stream=stream.cuda_stream,
                     device="cuda")
    reference = sum_product_reference(a, b.astype(np.float32))
    for name in ("sum", "prod"):
        assert isinstance(out[name], torch.Tensor) and out[name].is_cuda and out[name].dtype == torch.float32
        np.testing.assert_allclose(out[name].cpu().numpy(), reference[name], rtol=1e-6, atol=1e-6)


def test_runner_refuses_a_device_array_of_another_dtype(torch, builder, logger):
    gpu, _ = sum_product_engines(builder, logger)

    class Int32DeviceArray:
        def __init__(self):
            self.tensor = torch.zeros(2, 3, dtype=torch.int32, device="cuda")
            self.__cuda_array_interface__ = self.tensor.__cuda_array_interface__

    with pytest.raises(TypeError, match="'a'.*expects"):
        EngineRunner(gpu).run({"a": Int32DeviceArray(), "b": np.zeros((2, 3), np.float32)})


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_runner_data_dependent_output_on_gpu(torch, builder, logger, rng, device):
    network = add_non_zero_network(builder, shape=(4, 6))
    _, gpu = build_engine_for(builder, network, logger, trt.BackendKind.CUDA)
    runner = EngineRunner(gpu)
    for _ in range(2):
        x = sparse_random(rng, (4, 6))
        out = runner.run({"x": x}, device=device)["indices"]
        got = out.cpu().numpy() if device == "cuda" else out
        np.testing.assert_array_equal(got, non_zero_reference(x))
