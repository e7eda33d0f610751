"""Device memory for the run helper (kiln.runner) on engines built for Kiln's CUDA backend.

The ``kiln`` module never links CUDA. Where the run helper must allocate device memory or copy between host and
device, it uses PyTorch when ``torch`` is importable and ``torch.cuda.is_available()``, and otherwise the CUDA
runtime library itself through ctypes (``libcudart.so``, loaded on first use from the library search path or
``$CUDA_HOME/lib64``, ``/usr/local/cuda/lib64``; ``KILN_CUDART`` names the file explicitly). Both are hidden behind ``DeviceMemory``; ``device_memory()`` picks one and
raises RuntimeError, saying what is missing, when neither works.
"""

import ctypes
import os

import numpy as np

__all__ = ["DeviceBuffer", "DeviceMemory", "device_memory"]


class DeviceBuffer:
    """``nbytes`` of device memory owned by Python: ``ptr`` is its address; it has ``__cuda_array_interface__``
    (as 1-D bytes) so that it can be bound directly. Freed when the object goes away."""

    def __init__(self, ptr, nbytes, owner, free=None):
        self.ptr = int(ptr)
        self.nbytes = int(nbytes)
        self._owner = owner  # a torch tensor, or None for cudaMalloc'ed memory
        self._free = free

    @property
    def __cuda_array_interface__(self):
        return {"shape": (self.nbytes,), "typestr": "|u1", "data": (self.ptr, False), "strides": None,
                "version": 3, "stream": None}

    def __del__(self):
        free, self._free = self._free, None
        if free is not None:
            try:
                free(self.ptr)
            except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to report to
                pass


class DeviceMemory:
    """Allocation and copies on the current CUDA device, ordered on a stream (an int cudaStream_t, 0 = default)."""

    name = "none"

    def alloc(self, nbytes):
        """A DeviceBuffer of at least ``nbytes`` (at least 1 byte, 256-byte aligned)."""
        raise NotImplementedError

    def to_device(self, dst_ptr, array, stream):
        """Copy the C-contiguous numpy ``array`` to ``dst_ptr``; the host array may be reused when this returns."""
        raise NotImplementedError

    def to_host(self, array, src_ptr, stream):
        """Copy ``array.nbytes`` from ``src_ptr`` into the C-contiguous numpy ``array`` (complete on return)."""
        raise NotImplementedError

    def synchronize(self, stream):
        """Wait for the work queued on ``stream``."""
        raise NotImplementedError


class _TorchMemory(DeviceMemory):
    name = "torch"

    def __init__(self, torch):
        self.torch = torch

    def _stream(self, stream):
        torch = self.torch
        if stream:
            return torch.cuda.stream(torch.cuda.ExternalStream(int(stream)))
        return torch.cuda.stream(torch.cuda.default_stream())

    def alloc(self, nbytes):
        tensor = self.torch.empty(max(int(nbytes), 1), dtype=self.torch.uint8, device="cuda")
        return DeviceBuffer(tensor.data_ptr(), tensor.numel(), tensor)

    def _view(self, ptr, nbytes):
        interface = {"shape": (int(nbytes),), "typestr": "|u1", "data": (int(ptr), False), "strides": None,
                     "version": 2}
        holder = type("_Raw", (), {"__cuda_array_interface__": interface})()
        return self.torch.as_tensor(holder, device="cuda")

    def to_device(self, dst_ptr, array, stream):
        if array.nbytes == 0:
            return
        src = self.torch.from_numpy(np.ascontiguousarray(array).reshape(-1).view(np.uint8))
        with self._stream(stream):
            self._view(dst_ptr, array.nbytes).copy_(src)
            # The source is pageable host memory: copy_ returns once it was read, so the array may be reused.

    def to_host(self, array, src_ptr, stream):
        if array.nbytes == 0:
            return
        dst = self.torch.from_numpy(array.reshape(-1).view(np.uint8))
        with self._stream(stream):
            dst.copy_(self._view(src_ptr, array.nbytes))
            self.torch.cuda.current_stream().synchronize()

    def synchronize(self, stream):
        with self._stream(stream):
            self.torch.cuda.current_stream().synchronize()


class _CudartMemory(DeviceMemory):
    name = "cudart"
    _H2D = 1
    _D2H = 2

    def __init__(self, lib):
        self.lib = lib
        lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        lib.cudaFree.argtypes = [ctypes.c_void_p]
        lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                        ctypes.c_void_p]
        lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
        lib.cudaGetErrorString.argtypes = [ctypes.c_int]
        lib.cudaGetErrorString.restype = ctypes.c_char_p

    def _check(self, code, what):
        if code != 0:
            message = self.lib.cudaGetErrorString(code)
            raise RuntimeError(f"kiln.runner: {what} failed: {message.decode() if message else code}")

    def alloc(self, nbytes):
        ptr = ctypes.c_void_p()
        self._check(self.lib.cudaMalloc(ctypes.byref(ptr), max(int(nbytes), 1)), f"cudaMalloc({nbytes})")
        return DeviceBuffer(ptr.value, max(int(nbytes), 1), None, free=lambda p: self.lib.cudaFree(ctypes.c_void_p(p)))

    def to_device(self, dst_ptr, array, stream):
        if array.nbytes == 0:
            return
        array = np.ascontiguousarray(array)
        self._check(self.lib.cudaMemcpyAsync(ctypes.c_void_p(dst_ptr), ctypes.c_void_p(array.ctypes.data),
                                             array.nbytes, self._H2D, ctypes.c_void_p(int(stream or 0))),
                    "cudaMemcpyAsync (host to device)")

    def to_host(self, array, src_ptr, stream):
        if array.nbytes == 0:
            return
        self._check(self.lib.cudaMemcpyAsync(ctypes.c_void_p(array.ctypes.data), ctypes.c_void_p(src_ptr),
                                             array.nbytes, self._D2H, ctypes.c_void_p(int(stream or 0))),
                    "cudaMemcpyAsync (device to host)")
        self.synchronize(stream)

    def synchronize(self, stream):
        self._check(self.lib.cudaStreamSynchronize(ctypes.c_void_p(int(stream or 0))), "cudaStreamSynchronize")


_CHOSEN = None


def _load_cudart():
    names = [os.environ["KILN_CUDART"]] if os.environ.get("KILN_CUDART") else []
    bases = ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]
    names += bases
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            names += [os.path.join(root, "lib64", base) for base in bases]
    errors = []
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError as exc:
            errors.append(f"{name}: {exc}")
    raise RuntimeError("kiln.runner: CUDA engines need device memory, but torch with CUDA is not importable and "
                       "the CUDA runtime library could not be loaded (" + "; ".join(errors) + "); install torch "
                       "or set KILN_CUDART to the path of libcudart.so")


def device_memory(prefer=None):
    """The DeviceMemory implementation: torch when available (or ``prefer="torch"``), else ctypes on libcudart
    (``prefer="cudart"`` forces it). Cached after the first automatic choice."""
    global _CHOSEN
    if prefer is None and _CHOSEN is not None:
        return _CHOSEN
    chosen = None
    if prefer in (None, "torch"):
        try:
            import torch

            if torch.cuda.is_available():
                chosen = _TorchMemory(torch)
        except ImportError:
            pass
        if chosen is None and prefer == "torch":
            raise RuntimeError("kiln.runner: torch with CUDA is not available")
    if chosen is None:
        chosen = _CudartMemory(_load_cudart())
    if prefer is None:
        _CHOSEN = chosen
    return chosen
