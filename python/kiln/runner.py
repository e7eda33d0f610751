"""Run an engine on numpy arrays without managing pointers.

``EngineRunner`` wraps one execution context of an engine::

    import kiln as trt
    from kiln.runner import EngineRunner

    runner = EngineRunner(engine)
    outputs = runner.run({"x": x})        # dict: output name -> numpy array

``run`` sets the input shapes, binds the inputs, allocates the outputs (through an
``IOutputAllocator`` for outputs whose shape depends on the data, e.g. NonZero), runs the
engine and returns the outputs as numpy arrays that the caller owns.

On Kiln's CPU backend every tensor lives in host memory, so numpy arrays are bound directly.
"""

import numpy as np

from . import _kiln as trt

__all__ = ["EngineRunner", "NumpyOutputAllocator", "numpy_dtype"]

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


class EngineRunner:
    """Runs an engine on dictionaries of numpy arrays (one execution context)."""

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
        self._data_dependent = set()

    def _bind_inputs(self, feed):
        missing = [n for n in self.input_names if n not in feed]
        if missing:
            raise KeyError(f"EngineRunner.run: missing inputs {missing}")
        unknown = [n for n in feed if n not in self.input_names]
        if unknown:
            raise KeyError(f"EngineRunner.run: {unknown} are not inputs of the engine "
                           f"(inputs: {self.input_names})")
        kept = []
        for name in self.input_names:
            dtype = numpy_dtype(self.engine.get_tensor_dtype(name))
            array = np.ascontiguousarray(feed[name], dtype=dtype)
            if not self.context.set_input_shape(name, array.shape):
                raise ValueError(f"EngineRunner.run: shape {array.shape} is not valid for input '{name}'")
            if array.size == 0:
                array = np.empty(max(array.nbytes, 1), dtype=np.uint8)
            if not self.context.set_tensor_address(name, array):
                raise RuntimeError(f"EngineRunner.run: cannot bind input '{name}'")
            kept.append(array)
        return kept

    def run(self, feed, stream=0):
        """Run the engine on ``feed`` (input name -> array-like); return output name -> numpy array."""
        kept = self._bind_inputs(feed)
        missing = self.context.infer_shapes()
        if missing:
            raise ValueError(f"EngineRunner.run: inputs not fully specified: {missing}")
        outputs = {}
        dynamic = {}
        for name in self.output_names:
            dtype = numpy_dtype(self.engine.get_tensor_dtype(name))
            shape = tuple(self.context.get_tensor_shape(name))
            if name in self._data_dependent or any(d < 0 for d in shape):
                # Data-dependent shape: remembered, since a context reports the last run's shape afterwards.
                self._data_dependent.add(name)
                dynamic[name] = dtype
                continue
            array = np.empty(shape, dtype=dtype)
            target = array if array.size > 0 else np.empty(1, dtype=dtype)
            if not self.context.set_tensor_address(name, target):
                raise RuntimeError(f"EngineRunner.run: cannot bind output '{name}'")
            outputs[name] = array
        allocator = None
        if dynamic:
            allocator = NumpyOutputAllocator(dynamic)
            for name in dynamic:
                if not self.context.set_output_allocator(name, allocator):
                    raise RuntimeError(f"EngineRunner.run: cannot set an output allocator for '{name}'")
        try:
            if not self.context.execute_async_v3(stream):
                raise RuntimeError("EngineRunner.run: execution failed (see the logger's messages)")
        finally:
            for name in dynamic:
                self.context.set_output_allocator(name, None)
        del kept
        for name in dynamic:
            outputs[name] = allocator.array(name)
        return {name: outputs[name] for name in self.output_names}


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
