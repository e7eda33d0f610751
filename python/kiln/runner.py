"""Run an engine on numpy arrays without managing pointers.

``EngineRunner`` wraps one execution context of an engine::

    import kiln as trt
    from kiln.runner import EngineRunner

    runner = EngineRunner(engine)
    outputs = runner.run({"x": x})        # dict: output name -> numpy array

``run`` sets the input shapes, binds the inputs, allocates the outputs (through an
``IOutputAllocator`` for outputs whose shape depends on the data, e.g. NonZero), runs the
engine and returns the outputs as numpy arrays that the caller owns.

On Kiln's CPU backend every tensor lives in host memory, so numpy arrays are bound directly. On the CUDA backend
(``engine.backend == kiln.BackendKind.CUDA``) the runner allocates device memory for the inputs and outputs
(through torch when it is importable with CUDA, else through ctypes on libcudart: see kiln._cuda), copies numpy
inputs to the device, runs on the given stream, waits for it, and copies the outputs back into numpy arrays.
Inputs that already are device arrays (torch CUDA tensors, anything with ``__cuda_array_interface__``) of the
engine's dtype are bound without copying. ``run(..., device="cuda")`` returns torch CUDA tensors instead of numpy
arrays, without copying them back.
"""

import numpy as np

from . import _kiln as trt

__all__ = ["DeviceOutputAllocator", "EngineRunner", "NumpyOutputAllocator", "numpy_dtype"]

_DTYPES = {
    "FLOAT": np.float32,
    "HALF": np.float16,
    "INT8": np.int8,
    "INT32": np.int32,
    "INT64": np.int64,
    "BOOL": np.bool_,
    "UINT8": np.uint8,
}


def numpy_dtype(data_type):
    """Return the numpy dtype of a ``trt.DataType``; raise TypeError when numpy has none."""
    nptype = getattr(trt, "nptype", None)
    if nptype is not None:
        return np.dtype(nptype(data_type))
    name = getattr(data_type, "name", str(data_type).split(".")[-1])
    if name not in _DTYPES:
        raise TypeError(f"DataType {name} has no numpy equivalent")
    return np.dtype(_DTYPES[name])


def _is_cuda_engine(engine):
    backend = getattr(engine, "backend", None)
    return backend is not None and backend == trt.BackendKind.CUDA


class EngineRunner:
    """Runs an engine on dictionaries of arrays (one execution context)."""

    def __init__(self, engine, profile_index=0, context=None):
        """Create a runner; ``context`` defaults to a new context of ``engine``."""
        self.engine = engine
        self.context = context if context is not None else engine.create_execution_context()
        if self.context is None:
            raise RuntimeError("EngineRunner: the engine could not create an execution context")
        if profile_index != self.context.active_optimization_profile:
            if not self.context.set_optimization_profile_async(profile_index, 0):
                raise RuntimeError(f"EngineRunner: cannot select optimization profile {profile_index}")
        names = [engine.get_tensor_name(i) for i in range(engine.num_io_tensors)]
        self.input_names = [n for n in names if engine.get_tensor_mode(n) == trt.TensorIOMode.INPUT]
        self.output_names = [n for n in names if engine.get_tensor_mode(n) == trt.TensorIOMode.OUTPUT]
        self.on_device = _is_cuda_engine(engine)
        self._data_dependent = set()
        self._memory = None

    def _device_memory(self):
        if self._memory is None:
            from ._cuda import device_memory

            self._memory = device_memory()
        return self._memory

    def _check_feed(self, feed):
        missing = [n for n in self.input_names if n not in feed]
        if missing:
            raise KeyError(f"EngineRunner.run: missing inputs {missing}")
        unknown = [n for n in feed if n not in self.input_names]
        if unknown:
            raise KeyError(f"EngineRunner.run: {unknown} are not inputs of the engine "
                           f"(inputs: {self.input_names})")

    def _set_shape(self, name, shape):
        if not self.context.set_input_shape(name, tuple(shape)):
            raise ValueError(f"EngineRunner.run: shape {tuple(shape)} is not valid for input '{name}'")

    def _bind_inputs(self, feed):
        self._check_feed(feed)
        kept = []
        for name in self.input_names:
            dtype = numpy_dtype(self.engine.get_tensor_dtype(name))
            array = np.ascontiguousarray(feed[name], dtype=dtype)
            self._set_shape(name, array.shape)
            if array.size == 0:
                array = np.empty(max(array.nbytes, 1), dtype=np.uint8)
            if not self.context.set_tensor_address(name, array):
                raise RuntimeError(f"EngineRunner.run: cannot bind input '{name}'")
            kept.append(array)
        return kept

    def _bind_device_input(self, name, value, dtype, stream):
        """Bind one input of a CUDA engine; returns what must stay alive during the run."""
        interface = getattr(value, "__cuda_array_interface__", None) if not isinstance(value, np.ndarray) else None
        if interface is not None:
            try:
                import torch
            except ImportError:
                torch = None
            if torch is not None and isinstance(value, torch.Tensor):
                value = value.detach().to(_torch_dtype(torch, dtype)).contiguous()
                interface = value.__cuda_array_interface__
            if np.dtype(interface["typestr"]) != dtype:
                raise TypeError(f"EngineRunner.run: input '{name}' is a device array of type {interface['typestr']}, "
                                f"the engine expects {dtype} (convert it first)")
            self._set_shape(name, interface["shape"])
            if not self.context.set_tensor_address(name, value):
                raise RuntimeError(f"EngineRunner.run: cannot bind input '{name}'")
            return value
        array = np.ascontiguousarray(value, dtype=dtype)
        self._set_shape(name, array.shape)
        buffer = self._device_memory().alloc(array.nbytes)
        self._device_memory().to_device(buffer.ptr, array, stream)
        if not self.context.set_tensor_address(name, buffer.ptr):
            raise RuntimeError(f"EngineRunner.run: cannot bind input '{name}'")
        return buffer

    def run(self, feed, stream=0, device=None):
        """Run the engine on ``feed`` (input name -> array-like); return output name -> array.

        ``device`` (CUDA engines only): None or "cpu" returns numpy arrays, "cuda" returns torch CUDA tensors that
        stay on the device. The stream is synchronised before ``run`` returns.
        """
        if device not in (None, "cpu", "cuda"):
            raise ValueError(f"EngineRunner.run: device must be None, 'cpu' or 'cuda', not {device!r}")
        if self.on_device:
            return self._run_device(feed, stream, device == "cuda")
        if device == "cuda":
            raise ValueError("EngineRunner.run: device='cuda' needs an engine built for the CUDA backend "
                             "(this engine runs on the CPU backend)")
        kept = self._bind_inputs(feed)
        static, dynamic = self._output_shapes()
        outputs = {}
        for name, dtype, shape in static:
            array = np.empty(shape, dtype=dtype)
            target = array if array.size > 0 else np.empty(1, dtype=dtype)
            if not self.context.set_tensor_address(name, target):
                raise RuntimeError(f"EngineRunner.run: cannot bind output '{name}'")
            outputs[name] = array
        allocator = NumpyOutputAllocator(dynamic) if dynamic else None
        self._execute(allocator, dynamic, stream)
        del kept
        for name in dynamic:
            outputs[name] = allocator.array(name)
        return {name: outputs[name] for name in self.output_names}

    def _output_shapes(self):
        """After the inputs are bound: ([(name, dtype, shape)] of the outputs whose shapes are known, {name: dtype} of
        those whose shapes depend on data). The latter are remembered, since a context reports the last run's shape
        afterwards."""
        missing = self.context.infer_shapes()
        if missing:
            raise ValueError(f"EngineRunner.run: inputs not fully specified: {missing}")
        static = []
        dynamic = {}
        for name in self.output_names:
            dtype = numpy_dtype(self.engine.get_tensor_dtype(name))
            shape = tuple(self.context.get_tensor_shape(name))
            if name in self._data_dependent or any(d < 0 for d in shape):
                self._data_dependent.add(name)
                dynamic[name] = dtype
            else:
                static.append((name, dtype, shape))
        return static, dynamic

    def _execute(self, allocator, dynamic, stream):
        for name in dynamic:
            if not self.context.set_output_allocator(name, allocator):
                raise RuntimeError(f"EngineRunner.run: cannot set an output allocator for '{name}'")
        try:
            if not self.context.execute_async_v3(stream):
                raise RuntimeError("EngineRunner.run: execution failed (see the logger's messages)")
        finally:
            for name in dynamic:
                self.context.set_output_allocator(name, None)

    def _run_device(self, feed, stream, as_torch):
        torch = None
        if as_torch:
            try:
                import torch
            except ImportError as exc:
                raise RuntimeError("EngineRunner.run: device='cuda' returns torch tensors, but torch is not "
                                   "importable") from exc
        self._check_feed(feed)
        memory = self._device_memory()
        kept = []
        for name in self.input_names:
            dtype = numpy_dtype(self.engine.get_tensor_dtype(name))
            kept.append(self._bind_device_input(name, feed[name], dtype, stream))
        _wait_for_torch(kept)
        static, dynamic = self._output_shapes()
        bound = {}
        for name, dtype, shape in static:
            count = int(np.prod(shape, dtype=np.int64)) if shape else 1
            if as_torch:
                tensor = torch.empty(shape, dtype=_torch_dtype(torch, dtype), device="cuda")
                target = tensor if count > 0 else memory.alloc(1)
                bound[name] = (tensor, None)
            else:
                target = memory.alloc(count * dtype.itemsize)
                bound[name] = (target, (shape, dtype))
            if not self.context.set_tensor_address(name, target if as_torch and count > 0 else target.ptr):
                raise RuntimeError(f"EngineRunner.run: cannot bind output '{name}'")
            kept.append(target)
        allocator = DeviceOutputAllocator(dynamic, memory) if dynamic else None
        self._execute(allocator, dynamic, stream)
        memory.synchronize(stream)
        outputs = {}
        for name, (target, layout) in bound.items():
            if layout is None:
                outputs[name] = target
            else:
                shape, dtype = layout
                array = np.empty(shape, dtype=dtype)
                memory.to_host(array, target.ptr, stream)
                outputs[name] = array
        for name in dynamic:
            outputs[name] = allocator.tensor(name, torch) if as_torch else allocator.array(name, stream)
        del kept
        return {name: outputs[name] for name in self.output_names}


def _wait_for_torch(objects):
    """Device inputs given as torch tensors (or converted by torch) were written on torch's current stream, which
    the engine's stream does not wait for: wait for it here."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and any(isinstance(o, torch.Tensor) for o in objects):
        torch.cuda.current_stream().synchronize()


def _torch_dtype(torch, dtype):
    """The torch dtype of a numpy dtype."""
    return torch.from_numpy(np.empty(0, dtype=dtype)).dtype


class NumpyOutputAllocator(trt.IOutputAllocator):
    """An ``IOutputAllocator`` that keeps each output in a numpy buffer.

    ``reallocate_output`` returns an aligned buffer of the requested size and ``notify_shape``
    records the final shape; after the run, ``array(name)`` returns the output, typed and shaped.
    """

    def __init__(self, dtypes):
        """Create the allocator; ``dtypes`` maps output names to numpy dtypes."""
        trt.IOutputAllocator.__init__(self)
        self._dtypes = {name: np.dtype(dtype) for name, dtype in dtypes.items()}
        self._buffers = {}
        self._offsets = {}
        self.shapes = {}

    def reallocate_output(self, tensor_name, memory, size, alignment):
        """Return the address of a fresh buffer of at least ``size`` bytes aligned to ``alignment``."""
        alignment = max(int(alignment), 1)
        buffer = np.empty(max(int(size), 1) + alignment, dtype=np.uint8)
        offset = (-buffer.ctypes.data) % alignment
        self._buffers[tensor_name] = buffer
        self._offsets[tensor_name] = offset
        return buffer.ctypes.data + offset

    def notify_shape(self, tensor_name, shape):
        """Remember the final shape of an output."""
        self.shapes[tensor_name] = tuple(int(d) for d in shape)

    def array(self, tensor_name):
        """Return a copy of an output as a typed, shaped numpy array."""
        shape = self.shapes.get(tensor_name)
        if shape is None:
            raise RuntimeError(f"the engine did not report the shape of '{tensor_name}'")
        dtype = self._dtypes[tensor_name]
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if count == 0:
            return np.empty(shape, dtype=dtype)
        buffer = self._buffers[tensor_name]
        offset = self._offsets[tensor_name]
        return buffer[offset:offset + count * dtype.itemsize].view(dtype).reshape(shape).copy()


class DeviceOutputAllocator(trt.IOutputAllocator):
    """An ``IOutputAllocator`` for CUDA engines: device buffers from a kiln._cuda.DeviceMemory.

    After the run, ``array(name, stream)`` copies an output to a typed, shaped numpy array and ``tensor(name, torch)``
    returns it as a torch CUDA tensor viewing the buffer (the tensor keeps the buffer alive).
    """

    def __init__(self, dtypes, memory):
        """Create the allocator; ``dtypes`` maps output names to numpy dtypes."""
        trt.IOutputAllocator.__init__(self)
        self._dtypes = {name: np.dtype(dtype) for name, dtype in dtypes.items()}
        self._memory = memory
        self._buffers = {}
        self.shapes = {}

    def reallocate_output(self, tensor_name, memory, size, alignment):
        """Return the address of a fresh device buffer of at least ``size`` bytes (256-byte aligned)."""
        if int(alignment) > 256:
            return None
        buffer = self._memory.alloc(max(int(size), 1))
        self._buffers[tensor_name] = buffer
        return buffer.ptr

    def notify_shape(self, tensor_name, shape):
        """Remember the final shape of an output."""
        self.shapes[tensor_name] = tuple(int(d) for d in shape)

    def _layout(self, tensor_name):
        shape = self.shapes.get(tensor_name)
        if shape is None:
            raise RuntimeError(f"the engine did not report the shape of '{tensor_name}'")
        return shape, self._dtypes[tensor_name]

    def array(self, tensor_name, stream=0):
        """Copy an output to a new numpy array."""
        shape, dtype = self._layout(tensor_name)
        array = np.empty(shape, dtype=dtype)
        if array.size:
            self._memory.to_host(array, self._buffers[tensor_name].ptr, stream)
        return array

    def tensor(self, tensor_name, torch):
        """An output as a torch CUDA tensor (no copy)."""
        shape, dtype = self._layout(tensor_name)
        buffer = self._buffers[tensor_name]
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        owner = getattr(buffer, "_owner", None)
        if isinstance(owner, torch.Tensor):  # torch memory: a view of the owning tensor keeps it alive
            return owner[:count * dtype.itemsize].view(_torch_dtype(torch, dtype)).reshape(shape)
        tensor = torch.as_tensor(_DeviceView(buffer, shape, dtype), device="cuda")
        tensor._kiln_buffer = buffer  # cudaMalloc'ed memory: freed with the tensor
        return tensor


class _DeviceView:
    """A typed, shaped __cuda_array_interface__ over a DeviceBuffer (kept alive by the consumer's reference)."""

    def __init__(self, buffer, shape, dtype):
        self._buffer = buffer
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": np.dtype(dtype).str,
                                         "data": (buffer.ptr, False), "strides": None, "version": 2}
