"""The Kiln backend extension in Python (kiln.BackendKind, BuilderConfig.backend, ICudaEngine.backend,
kiln.is_backend_available) and the device-memory objects of the bindings (PluginBuffer and kiln.plugin.Tensor with
__cuda_array_interface__, device memory refused for CPU engines). These run everywhere: no GPU is needed."""

import numpy as np
import pytest

import kiln as trt
import kiln.plugin as trtp
from kiln.runner import EngineRunner
from runtime_testlib import add_sum_product_network


def test_backend_kind_members():
    kinds = {trt.BackendKind.DEFAULT, trt.BackendKind.CPU, trt.BackendKind.CUDA}
    assert len(kinds) == 3
    assert int(trt.BackendKind.DEFAULT) == 0 and int(trt.BackendKind.CPU) == 1 and int(trt.BackendKind.CUDA) == 2


def test_builder_config_backend_round_trip(builder):
    config = builder.create_builder_config()
    assert config.backend == trt.BackendKind.DEFAULT
    for kind in (trt.BackendKind.CUDA, trt.BackendKind.CPU, trt.BackendKind.DEFAULT):
        config.backend = kind
        assert config.backend == kind
    with pytest.raises(TypeError):
        config.backend = 1  # an int is not a BackendKind


def test_is_backend_available():
    assert trt.is_backend_available(trt.BackendKind.CPU) is True
    assert trt.is_backend_available(trt.BackendKind.DEFAULT) is True
    assert isinstance(trt.is_backend_available(trt.BackendKind.CUDA), bool)


def build_cpu_engine(builder, logger):
    network, _ = add_sum_product_network(builder)
    config = builder.create_builder_config()
    config.backend = trt.BackendKind.CPU
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    return engine


def test_cpu_engine_reports_its_backend(builder, logger):
    assert build_cpu_engine(builder, logger).backend == trt.BackendKind.CPU


def test_cuda_build_without_cuda_fails_clearly(builder, logger):
    if trt.is_backend_available(trt.BackendKind.CUDA):
        pytest.skip("the CUDA backend is available here: this test covers machines without it")
    network, _ = add_sum_product_network(builder)
    config = builder.create_builder_config()
    config.backend = trt.BackendKind.CUDA
    assert builder.build_serialized_network(network, config) is None
    assert "CUDA backend" in logger.errors()


class FakeDeviceArray:
    """Only __cuda_array_interface__: device memory as far as the bindings can tell."""

    __cuda_array_interface__ = {"shape": (2, 3), "typestr": "<f4", "data": (0x1000, False), "version": 3,
                                "stream": 1}


class FakeCudaDlpack:
    """A DLPack producer on CUDA device 0."""

    def __dlpack__(self, stream=None):
        raise AssertionError("a CPU engine must refuse the tensor before asking for the capsule")

    def __dlpack_device__(self):
        return (2, 0)


def test_cpu_engine_refuses_device_memory_naming_the_tensor(builder, logger):
    context = build_cpu_engine(builder, logger).create_execution_context()
    with pytest.raises(ValueError, match=r"tensor 'a'.*device memory.*CPU backend"):
        context.set_tensor_address("a", FakeDeviceArray())
    with pytest.raises(ValueError, match=r"tensor 'sum'.*device memory.*CPU backend"):
        context.set_output_tensor_address("sum", FakeCudaDlpack())
    with pytest.raises(ValueError, match=r"binding 1 \(tensor 'b'\).*device memory"):
        context.execute_v2([np.zeros((2, 3), np.float32), FakeDeviceArray(), np.zeros((2, 3), np.float32),
                            np.zeros((2, 3), np.float32)])


def test_runner_device_cuda_needs_a_cuda_engine(builder, logger, rng):
    runner = EngineRunner(build_cpu_engine(builder, logger))
    a = rng.standard_normal((2, 3)).astype(np.float32)
    with pytest.raises(ValueError, match="CUDA backend"):
        runner.run({"a": a, "b": a}, device="cuda")
    with pytest.raises(ValueError, match="device must be"):
        runner.run({"a": a, "b": a}, device="gpu")


def test_plugin_buffer_on_device_offers_cuda_interface():
    buf = trt.PluginBuffer(0x2000, (2, 3), "<f4", 24, None, True, 0)
    assert buf == 0x2000 and buf.on_device
    iface = buf.__cuda_array_interface__
    assert iface["shape"] == (2, 3) and iface["typestr"] == "<f4" and iface["data"] == (0x2000, False)
    assert iface["version"] == 3 and iface["strides"] is None
    assert iface["stream"] == 1  # the legacy default stream: 0 is not allowed by the protocol
    assert trt.PluginBuffer(0x2000, (2, 3), "<f4", 24, None, True, 77).__cuda_array_interface__["stream"] == 77
    view = buf.cuda_array(shape=(6,), dtype=np.int32)
    assert view.__cuda_array_interface__["shape"] == (6,)
    assert view.__cuda_array_interface__["typestr"] == np.dtype(np.int32).str
    with pytest.raises(TypeError, match="device memory"):
        buf.numpy()
    assert trt.PluginBuffer(0, (0,), "|u1", 0, None, True, 0).cuda_array() is None


def test_plugin_buffer_on_host_has_no_cuda_interface(rng):
    data = rng.standard_normal((2, 3)).astype(np.float32)
    buf = trt.PluginBuffer(data.ctypes.data, (2, 3), "<f4", data.nbytes)
    assert not buf.on_device
    assert not hasattr(buf, "__cuda_array_interface__")
    np.testing.assert_array_equal(buf.numpy(), data)
    with pytest.raises(TypeError, match="host memory"):
        buf.cuda_array()


def test_quick_tensor_default_stream_is_spelled_one():
    t = trtp.Tensor._create(0x1000, (4,), trt.float32, trt.TensorFormat.LINEAR, False, stream=0)
    assert t.__cuda_array_interface__["stream"] == 1
