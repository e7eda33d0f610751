"""Helpers of the GPU tests (test_gpu_*.py): skipping without a GPU, building for a chosen backend, torch streams,
and circular padding done with torch on the device for the Python plugins.

The GPU tests need Kiln's CUDA backend (kiln.is_backend_available(kiln.BackendKind.CUDA)) and PyTorch with CUDA;
without either they skip with the reason.
"""

import numpy as np
import pytest

import kiln as trt


def require_gpu():
    """Return the torch module, or skip the calling test (visibly, with the reason) when there is no GPU path."""
    if not trt.is_backend_available(trt.BackendKind.CUDA):
        pytest.skip("Kiln's CUDA backend is not available here (no libkiln_cuda.so or no CUDA device)")
    try:
        import torch
    except ImportError:
        pytest.skip("torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("torch.cuda.is_available() is False")
    return torch


def build_engine_for(builder, network, logger, backend, profiles=None):
    """Build ``network`` for ``backend`` (a kiln.BackendKind) and deserialize it; returns (runtime, engine)."""
    config = builder.create_builder_config()
    config.backend = backend
    if profiles:
        profile = builder.create_optimization_profile()
        for name, (lo, opt, hi) in profiles.items():
            profile.set_shape(name, lo, opt, hi)
        config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, "build failed:\n" + logger.errors()
    runtime = trt.Runtime(logger)
    engine = runtime.deserialize_cuda_engine(plan)
    assert engine is not None, "deserialize failed:\n" + logger.errors()
    assert engine.backend == backend
    return runtime, engine


def wrap_pad_reference(x, pads):
    """numpy.pad(..., mode="wrap") of the last two dimensions; pads = (top, bottom, left, right)."""
    top, bottom, left, right = pads
    return np.pad(x, ((0, 0),) * (x.ndim - 2) + ((top, bottom), (left, right)), mode="wrap")


def torch_wrap_pad(torch, x, pads):
    """Circular padding of the last two dimensions with torch on x's device (torch.cat of wrapped slices)."""
    top, bottom, left, right = pads
    height, width = x.shape[-2], x.shape[-1]
    rows = [x[..., (r % height):(r % height) + 1, :] for r in range(-top, height + bottom)]
    x = torch.cat(rows, dim=-2)
    cols = [x[..., (c % width):(c % width) + 1] for c in range(-left, width + right)]
    return torch.cat(cols, dim=-1)


def external_stream(torch, stream):
    """A context manager that makes ``stream`` (an int cudaStream_t from enqueue, 0 = default) torch's current one."""
    if stream:
        return torch.cuda.stream(torch.cuda.ExternalStream(int(stream)))
    return torch.cuda.stream(torch.cuda.default_stream())


def poisoned_cuda(torch, shape, dtype=None):
    """A CUDA tensor filled with NaN, to detect outputs that a run did not write."""
    return torch.full(tuple(shape), float("nan"), dtype=dtype or torch.float32, device="cuda")
