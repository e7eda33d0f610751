"""Plugin attributes of kiln.plugin: the supported annotations, value checks and PluginField round trips.

Attributes are the parameters of a registered shape function that are not TensorDescs. Supported types are int,
float, str, bool, bytes and 1-D numpy arrays annotated ``numpy.typing.NDArray[dtype]``. Each value is stored in a
PluginField; decoding is driven by the annotation, so a bool comes back as a bool and an int64 array as one.
"""

import typing

import numpy as np
import numpy.typing as npt

__all__ = ["AttrSpec", "attr_spec_from_annotation"]

_ARRAY_DTYPES = ("int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool")

# numpy dtype name -> PluginFieldType member name used to store it (bools as INT8 bytes).
_ARRAY_FIELD_TYPES = {"int8": "INT8", "int16": "INT16", "int32": "INT32", "int64": "INT64",
                      "float16": "FLOAT16", "float32": "FLOAT32", "float64": "FLOAT64", "bool": "INT8"}


def _trt():
    from .. import _kiln

    return _kiln


class AttrSpec:
    """One attribute: its name, kind ('int', 'float', 'str', 'bool', 'bytes', 'array') and array dtype."""

    def __init__(self, name, kind, dtype=None, default=None, has_default=False):
        self.name = name
        self.kind = kind
        self.dtype = np.dtype(dtype) if dtype is not None else None
        self.default = default
        self.has_default = has_default

    def describe(self):
        """Human-readable type, used in error messages."""
        if self.kind == "array":
            return f"numpy.typing.NDArray[{self.dtype.name}]"
        return self.kind

    def check(self, value, plugin_id):
        """Validate and normalise a value given by the user; TypeError/ValueError naming the plugin."""
        where = f"plugin '{plugin_id}': attribute '{self.name}'"
        if self.kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{where} expects a bool, got {type(value).__name__}")
            return bool(value)
        if self.kind == "int":
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{where} expects an int, got {type(value).__name__}")
            value = int(value)
            if not -(2 ** 63) <= value < 2 ** 63:
                raise ValueError(f"{where}: {value} does not fit in 64 bits")
            return value
        if self.kind == "float":
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise TypeError(f"{where} expects a float, got {type(value).__name__}")
            return float(value)
        if self.kind == "str":
            if not isinstance(value, str):
                raise TypeError(f"{where} expects a str, got {type(value).__name__}")
            if "\0" in value:
                raise ValueError(f"{where}: strings must not contain NUL characters")
            return value
        if self.kind == "bytes":
            if not isinstance(value, (bytes, bytearray)):
                raise TypeError(f"{where} expects bytes, got {type(value).__name__}")
            return bytes(value)
        if not isinstance(value, np.ndarray):
            raise TypeError(f"{where} expects a numpy array of {self.dtype.name}, got {type(value).__name__}")
        if value.ndim != 1:
            raise ValueError(f"{where} expects a 1-D array, got {value.ndim} dimensions")
        if value.dtype != self.dtype:
            raise TypeError(f"{where} expects dtype {self.dtype.name}, got {value.dtype.name}")
        return np.array(value, copy=True)

    def _field_type_and_data(self, value):
        if self.kind == "int":
            return "INT64", np.array([value], dtype=np.int64)
        if self.kind == "float":
            return "FLOAT64", np.array([value], dtype=np.float64)
        if self.kind == "bool":
            return "INT8", np.array([1 if value else 0], dtype=np.int8)
        if self.kind == "str":
            return "CHAR", np.frombuffer(value.encode("utf-8") + b"\0", dtype=np.int8).copy()
        if self.kind == "bytes":
            return "INT8", np.frombuffer(value, dtype=np.int8).copy()
        data = value.astype(np.int8) if self.dtype == np.bool_ else np.ascontiguousarray(value)
        return _ARRAY_FIELD_TYPES[self.dtype.name], data

    def to_field(self, value):
        """A kiln.PluginField holding `value` (already checked)."""
        trt = _trt()
        type_name, data = self._field_type_and_data(value)
        return trt.PluginField(self.name, data, getattr(trt.PluginFieldType, type_name))

    def from_field(self, field, plugin_id):
        """Decode the value of a PluginField written by to_field (or by an application through PluginFields)."""
        raw = _field_bytes(field)
        where = f"plugin '{plugin_id}': attribute '{self.name}'"
        if self.kind == "str":
            return raw.split(b"\0", 1)[0].decode("utf-8")
        if self.kind == "bytes":
            return raw
        type_name = _enum_name(getattr(field, "type", None))
        if self.kind == "array":
            stored = np.dtype(np.int8) if self.dtype == np.bool_ else self.dtype
            if type_name and type_name != _ARRAY_FIELD_TYPES[self.dtype.name]:
                stored = _numpy_of_field_type(type_name, where)
            if len(raw) % stored.itemsize:
                raise ValueError(f"{where}: {len(raw)} bytes is not a whole number of {stored.name} elements")
            arr = np.frombuffer(raw, dtype=stored).copy()
            return arr.astype(self.dtype)
        stored = _numpy_of_field_type(type_name, where) if type_name else {
            "int": np.dtype(np.int64), "float": np.dtype(np.float64), "bool": np.dtype(np.int8)}[self.kind]
        values = np.frombuffer(raw[: stored.itemsize], dtype=stored)
        if values.size != 1:
            raise ValueError(f"{where}: the field holds no value")
        value = values[0]
        if self.kind == "int":
            return int(value)
        if self.kind == "float":
            return float(value)
        return bool(value)


def _enum_name(value):
    if value is None:
        return None
    return getattr(value, "name", None) or str(value).rsplit(".", 1)[-1]


def _numpy_of_field_type(type_name, where):
    table = {"INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "INT64": np.int64, "FLOAT16": np.float16,
             "FLOAT32": np.float32, "FLOAT64": np.float64, "CHAR": np.int8, "UNKNOWN": np.uint8}
    if type_name not in table:
        raise TypeError(f"{where}: PluginFieldType.{type_name} cannot be decoded")
    return np.dtype(table[type_name])


def _field_bytes(field):
    """The raw bytes of a PluginField's data, whatever Python type the binding returns for it."""
    data = getattr(field, "data", field)
    if isinstance(data, str):
        return data.encode("utf-8")
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    arr = np.asarray(data)
    return np.ascontiguousarray(arr).tobytes()


def _is_ndarray_annotation(annotation):
    origin = typing.get_origin(annotation)
    # numpy.typing.NDArray[dt] is ndarray[shape, dtype[dt]] on older numpy; on numpy 2.x with Python 3.12 NDArray is
    # a type alias, and the subscripted alias keeps the alias as its origin.
    return origin is np.ndarray or (origin is not None and origin is getattr(npt, "NDArray", None))


def _ndarray_dtype(annotation):
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is np.ndarray:
        if len(args) != 2:
            return None
        inner = typing.get_args(args[1])
        scalar = inner[0] if inner else None
    else:
        scalar = args[0] if len(args) == 1 else None
    if scalar is None:
        return None
    try:
        return np.dtype(scalar)
    except TypeError:
        return None


def attr_spec_from_annotation(name, annotation, plugin_id, default=None, has_default=False):
    """The AttrSpec of a parameter, or TypeError naming the plugin for an unsupported annotation."""
    simple = {int: "int", float: "float", str: "str", bool: "bool", bytes: "bytes"}
    if annotation in simple:
        return AttrSpec(name, simple[annotation], default=default, has_default=has_default)
    if _is_ndarray_annotation(annotation):
        dtype = _ndarray_dtype(annotation)
        if dtype is None or dtype.name not in _ARRAY_DTYPES:
            raise TypeError(f"plugin '{plugin_id}': attribute '{name}': numpy arrays must be annotated "
                            f"numpy.typing.NDArray[dtype] with dtype one of {', '.join(_ARRAY_DTYPES)}")
        return AttrSpec(name, "array", dtype=dtype, default=default, has_default=has_default)
    if annotation in (list, tuple) or typing.get_origin(annotation) in (list, tuple):
        raise TypeError(f"plugin '{plugin_id}': attribute '{name}': lists and tuples are not supported attribute "
                        "types (use a 1-D numpy array)")
    raise TypeError(f"plugin '{plugin_id}': attribute '{name}' has unsupported annotation {annotation!r} (supported: "
                    "int, float, str, bool, bytes, numpy.typing.NDArray[dtype])")
