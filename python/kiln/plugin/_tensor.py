"""Tensor descriptors and tensors of kiln.plugin (tensorrt.plugin's TensorDesc, SizeTensorDesc, Tensor, Shape).

TensorDesc describes a plugin input or output while the network is built (symbolic shape, data type, format);
it never holds data. Tensor wraps the buffer of an input or output during enqueue. On the CPU backend a Tensor
offers ``__array_interface__`` (``np.asarray(t)`` is a zero-copy view); on a GPU backend it offers
``__cuda_array_interface__`` instead, so CuPy, PyTorch and Numba can wrap it.
"""

import math

import numpy as np

from ._shape import ShapeExpr, ShapeExprs, _as_expr

__all__ = ["TensorDesc", "SizeTensorDesc", "Tensor", "Shape", "from_shape_expr", "size_tensor"]


def _trt():
    from .. import _kiln  # the extension module, imported by kiln/__init__.py before this package

    return _kiln


# DataType member name -> numpy dtype (types without a numpy equivalent are absent).
_NUMPY_DTYPES = {
    "FLOAT": np.dtype(np.float32),
    "HALF": np.dtype(np.float16),
    "INT8": np.dtype(np.int8),
    "INT32": np.dtype(np.int32),
    "BOOL": np.dtype(np.bool_),
    "UINT8": np.dtype(np.uint8),
    "INT64": np.dtype(np.int64),
}

# DataType member name -> size in bits (sub-byte types included).
_BITS = {"FLOAT": 32, "HALF": 16, "INT8": 8, "INT32": 32, "BOOL": 8, "UINT8": 8, "FP8": 8, "BF16": 16,
         "INT64": 64, "INT4": 4, "FP4": 4, "E8M0": 8}


def _dtype_name(dtype):
    return getattr(dtype, "name", str(dtype))


def numpy_dtype(dtype):
    """The numpy dtype of a DataType; TypeError for types numpy cannot hold (BF16, FP8, INT4, FP4, E8M0)."""
    name = _dtype_name(dtype)
    if name not in _NUMPY_DTYPES:
        raise TypeError(f"DataType.{name} has no numpy equivalent; use Tensor.data_ptr to reach the buffer")
    return _NUMPY_DTYPES[name]


class Shape(tuple):
    """The concrete shape of a Tensor during enqueue: a tuple of ints with numel()."""

    def numel(self):
        """Number of elements."""
        return math.prod(self)

    @property
    def ndim(self):
        """Number of dimensions."""
        return len(self)


class TensorDesc:
    """Descriptor of a plugin input or output while the network is built: symbolic shape, dtype, format.

    ``TensorDesc((10, 2), dtype=kiln.float32)`` makes a descriptor with constant dimensions. Inside a shape
    function, inputs arrive as TensorDescs; ``like()`` copies one, ``aliased()`` makes an output that shares the
    input's buffer (an in-place plugin).
    """

    def __init__(self, shape_expr=None, dtype=None, format=None, scale=None):  # noqa: A002 - tensorrt's name
        """Create a descriptor; `shape_expr` is a ShapeExprs or a sequence of ints/ShapeExpr."""
        self._shape_expr = None
        if shape_expr is not None:
            self._shape_expr = shape_expr if isinstance(shape_expr, ShapeExprs) else ShapeExprs(shape_expr)
        self._dtype = dtype
        self._format = format
        self._scale = scale
        self._aliased_to = None
        self._immutable = False
        self._index = None  # position among the plugin's inputs, set for the descriptors handed to user code

    def _check_mutable(self, what):
        if self._immutable:
            raise ValueError(f"TensorDesc: cannot set {what} of an aliased (immutable) descriptor")

    @property
    def shape_expr(self):
        """The symbolic shape (ShapeExprs)."""
        if self._shape_expr is None:
            raise ValueError("TensorDesc: this descriptor has no shape (has_shape is False)")
        return self._shape_expr

    @shape_expr.setter
    def shape_expr(self, value):
        self._check_mutable("shape_expr")
        self._shape_expr = value if isinstance(value, ShapeExprs) else ShapeExprs(value)

    @property
    def has_shape(self):
        """True when the descriptor carries a shape."""
        return self._shape_expr is not None

    @property
    def ndim(self):
        """Number of dimensions."""
        return len(self.shape_expr)

    @property
    def dtype(self):
        """Data type (a kiln.DataType)."""
        return self._dtype

    @dtype.setter
    def dtype(self, value):
        self._check_mutable("dtype")
        self._dtype = value

    @property
    def format(self):
        """Format (kiln.TensorFormat); LINEAR unless set."""
        if self._format is None:
            return _trt().TensorFormat.LINEAR
        return self._format

    @format.setter
    def format(self, value):  # noqa: A003
        self._check_mutable("format")
        self._format = value

    @property
    def scale(self):
        """INT8 scale, if any."""
        return self._scale

    @scale.setter
    def scale(self, value):
        self._check_mutable("scale")
        self._scale = value

    @property
    def is_size_tensor(self):
        """True for size tensors (see size_tensor())."""
        return False

    @property
    def is_aliased(self):
        """True when this descriptor shares its buffer with another (an input)."""
        return self._aliased_to is not None

    def get_aliased(self):
        """The descriptor this one is aliased to, or None."""
        return self._aliased_to

    def like(self):
        """A new descriptor with the same shape, dtype and format."""
        desc = TensorDesc(ShapeExprs(list(self.shape_expr)) if self.has_shape else None, self._dtype,
                          self._format, self._scale)
        return desc

    def aliased(self):
        """An immutable descriptor with the same properties that shares this tensor's buffer (in-place output)."""
        desc = self.like()
        desc._aliased_to = self
        desc._immutable = True
        return desc

    def __repr__(self):
        shape = self._shape_expr if self._shape_expr is not None else "no shape"
        return f"TensorDesc({shape}, dtype={self._dtype})"


class SizeTensorDesc(TensorDesc):
    """A 0-D INT32 output holding the size of a data-dependent dimension. Made by size_tensor(opt, upper_bound).

    Use ``expr()`` in the shape of the data-dependent output and return the SizeTensorDesc itself as an extra
    output of the shape function; the impl writes the real size into it.
    """

    def __init__(self, opt, upper_bound):
        """Create from the expected (`opt`) and largest (`upper_bound`) value of the size."""
        super().__init__(ShapeExprs(0), _trt().DataType.INT32)
        self._opt = _as_expr(opt, "size_tensor")
        self._upper_bound = _as_expr(upper_bound, "size_tensor")
        self._expr = ShapeExpr._size(self)

    @property
    def is_size_tensor(self):
        """Always True."""
        return True

    @property
    def opt(self):
        """Expected value of the size (ShapeExpr)."""
        return self._opt

    @property
    def upper_bound(self):
        """Largest value of the size (ShapeExpr)."""
        return self._upper_bound

    def expr(self):
        """The symbolic value of the size, for use in output shapes."""
        return self._expr

    def like(self):
        """SizeTensorDescs cannot be copied (each declares one data-dependent dimension)."""
        raise ValueError("SizeTensorDesc: like() is not supported for size tensors")

    def aliased(self):
        """SizeTensorDescs cannot be aliased."""
        raise ValueError("SizeTensorDesc: aliased() is not supported for size tensors")


def from_shape_expr(shape_expr, dtype):
    """A TensorDesc with the given symbolic shape (ShapeExprs or sequence of ShapeExpr/int) and data type."""
    if isinstance(shape_expr, ShapeExprs):
        shape_expr = ShapeExprs(list(shape_expr))
    return TensorDesc(shape_expr, dtype)


def size_tensor(opt, upper_bound):
    """Declare a data-dependent size: returns a SizeTensorDesc (see its docstring)."""
    return SizeTensorDesc(opt, upper_bound)


class Tensor:
    """A plugin input or output during enqueue: a buffer plus shape, dtype, format and strides.

    It never copies data. On the CPU backend ``np.asarray(t)`` is a writable zero-copy view
    (``__array_interface__``); on a GPU backend the object exposes ``__cuda_array_interface__`` instead.
    """

    def __init__(self):
        """Tensors are created by kiln.plugin for impl functions; the empty constructor makes an invalid one."""
        self._ptr = 0
        self._shape = Shape(())
        self._dtype = None
        self._format = None
        self._on_host = True
        self._data_dependent = False
        self._capacity = 0
        self._aliased_to = None
        self._stream = 0
        self._read_only = False

    @classmethod
    def _create(cls, ptr, shape, dtype, fmt, on_host, data_dependent=False, read_only=False, stream=0):
        t = cls()
        t._ptr = int(ptr or 0)
        t._shape = Shape(int(d) for d in shape)
        t._dtype = dtype
        t._format = fmt
        t._on_host = on_host
        t._data_dependent = data_dependent
        # Data-dependent outputs arrive with -1 in their data-dependent dimensions: their capacity is unknown.
        t._capacity = None if any(d < 0 for d in t._shape) else math.prod(t._shape)
        t._read_only = read_only
        t._stream = stream
        return t

    @property
    def data_ptr(self):
        """Address of the buffer (int)."""
        return self._ptr

    @property
    def shape(self):
        """The shape (Shape, a tuple of ints). For a data-dependent output, -1 in the data-dependent dimensions."""
        return self._shape

    @property
    def ndim(self):
        """Number of dimensions."""
        return len(self._shape)

    @property
    def dtype(self):
        """Data type (kiln.DataType)."""
        return self._dtype

    @property
    def format(self):
        """Format (kiln.TensorFormat)."""
        return self._format

    @property
    def strides(self):
        """Strides in elements, row-major."""
        strides = []
        step = 1
        for d in reversed(self._shape):
            strides.append(step)
            step *= _builtin_int(d)
        return tuple(reversed(strides))

    @property
    def is_data_dependent(self):
        """True for outputs whose shape depends on the input values (their size comes from a size tensor)."""
        return self._data_dependent

    @property
    def is_aliased(self):
        """True when this tensor shares its buffer with another tensor."""
        return self._aliased_to is not None

    def get_aliased(self):
        """The tensor this one is aliased to, or None."""
        return self._aliased_to

    def numel(self):
        """Number of elements; ValueError for a data-dependent output (alias it with its real shape first)."""
        if self._data_dependent or self._capacity is None:
            raise ValueError("Tensor.numel(): the tensor has a data-dependent shape; use aliased(shape) with the "
                             "shape computed in the impl")
        return self._shape.numel()

    def aliased(self, shape=None):
        """A Tensor with the same buffer and the given shape (same number of elements; for a data-dependent
        output, at most as many elements as its upper bound)."""
        if shape is None:
            new_shape = self._shape
        elif isinstance(shape, (tuple, list)):
            new_shape = Shape(_builtin_int(d) for d in shape)
        elif hasattr(shape, "dims") or hasattr(shape, "__len__"):
            dims = getattr(shape, "dims", shape)
            new_shape = Shape(_builtin_int(d) for d in dims)
        else:
            raise ValueError(f"Tensor.aliased: unsupported shape of type {type(shape).__name__}")
        if any(d < 0 for d in new_shape):
            raise ValueError(f"Tensor.aliased: negative dimension in {tuple(new_shape)}")
        volume = new_shape.numel()
        if self._data_dependent or self._capacity is None:
            if self._capacity is not None and volume > self._capacity:
                raise ValueError(f"Tensor.aliased: shape {tuple(new_shape)} has {volume} elements, more than the "
                                 f"{self._capacity} the output was allocated for")
        elif volume != self._shape.numel():
            raise ValueError(f"Tensor.aliased: shape {tuple(new_shape)} has {volume} elements, the tensor has "
                             f"{self._shape.numel()}")
        t = Tensor._create(self._ptr, new_shape, self._dtype, self._format, self._on_host,
                           read_only=self._read_only, stream=self._stream)
        t._aliased_to = self
        return t

    def _interface(self):
        if self._capacity is None:
            raise ValueError("Tensor: this output has a data-dependent shape; view it through aliased(shape) with "
                             "the shape computed in the impl")
        np_dtype = numpy_dtype(self._dtype)
        ptr = self._ptr
        return {
            "shape": tuple(self._shape),
            "typestr": np_dtype.str,
            "data": (ptr, self._read_only),
            "strides": None,
            "version": 3,
        }

    @property
    def __array_interface__(self):
        """numpy's array interface (CPU backend only): ``np.asarray(tensor)`` views the buffer without copying."""
        if not self._on_host:
            raise AttributeError("Tensor.__array_interface__: the buffer is device memory; use "
                                 "__cuda_array_interface__")
        return self._interface()

    @property
    def __cuda_array_interface__(self):
        """The CUDA array interface (GPU backends only)."""
        if self._on_host:
            raise AttributeError("Tensor.__cuda_array_interface__: the buffer is host memory (CPU backend); use "
                                 "numpy.asarray(tensor)")
        iface = self._interface()
        # Protocol v3: consumers order their work after this stream (the enqueue stream). 0 is ambiguous in the
        # protocol; the legacy default stream is spelled 1.
        iface["stream"] = int(self._stream) if self._stream else 1
        return iface

    def __repr__(self):
        return f"Tensor(shape={tuple(self._shape)}, dtype={self._dtype}, data_ptr={self._ptr:#x})"


_builtin_int = int
