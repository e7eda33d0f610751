"""The IPluginV3 object and creator behind every kiln.plugin plugin (pure Python over the class-based bindings).

A _QuickPlugin is a class-based Python IPluginV3 (OneCore + OneBuildV2 + OneRuntime) that forwards the builder's
and runtime's questions to the user's functions: get_output_data_types / get_output_shapes call the register
function, supports_format_combination / get_valid_tactics use the autotune combinations (or the defaults),
enqueue calls the impl with Tensor objects. A _QuickCreator (IPluginCreatorV3One) per plugin id is registered in
the plugin registry, so engines containing the plugin deserialize wherever the defining module was imported.
"""

import numpy as np

from ._autotune import AutoTuneCombination, FormatTable
from ._shape import ShapeExpr, ShapeExprs, _Lowering
from ._tensor import Tensor, TensorDesc

__all__ = ["register_creator", "make_plugin"]

# Name of the internal field that carries what the runtime needs to know without the shape function.
_META_FIELD = "__kiln_qdp_meta"
_META_VERSION = 1


def _trt():
    from .. import _kiln

    return _kiln


def _host_buffers(*buffer_lists):
    """True when the enqueue's buffers are host memory (CPU backend); False on the CUDA backend.

    The bindings mark every PluginBuffer of one enqueue alike (``on_device``); with no buffer at all the
    answer does not matter and is host.
    """
    for buffers in buffer_lists:
        for buf in buffers:
            return not bool(getattr(buf, "on_device", False))
    return True


class _Meta:
    """Per-output facts: number of outputs, data-dependent outputs, size tensors, aliased inputs."""

    def __init__(self, num_outputs, data_dependent, size_tensor, aliased):
        self.num_outputs = num_outputs
        self.data_dependent = list(data_dependent)
        self.size_tensor = list(size_tensor)
        self.aliased = list(aliased)

    @classmethod
    def from_outputs(cls, outputs, inputs):
        data_dependent, size_tensor, aliased = [], [], []
        for out in outputs:
            size_tensor.append(bool(out.is_size_tensor))
            dds = out.has_shape and any(leaf.is_size_tensor for e in out.shape_expr for leaf in e._leaves())
            data_dependent.append(bool(dds))
            target = out.get_aliased()
            index = -1
            if target is not None:
                for i, inp in enumerate(inputs):
                    if inp is target:
                        index = i
            aliased.append(index)
        return cls(len(outputs), data_dependent, size_tensor, aliased)

    def encode(self):
        values = [_META_VERSION, self.num_outputs]
        for i in range(self.num_outputs):
            values += [int(self.data_dependent[i]), int(self.size_tensor[i]), self.aliased[i]]
        return np.array(values, dtype=np.int32)

    @classmethod
    def decode(cls, values, plugin_id):
        values = [int(v) for v in values]
        if len(values) < 2 or values[0] != _META_VERSION or len(values) != 2 + 3 * values[1]:
            raise ValueError(f"plugin '{plugin_id}': the engine's kiln.plugin metadata field is malformed")
        n = values[1]
        body = values[2:]
        return cls(n, [bool(body[3 * i]) for i in range(n)], [bool(body[3 * i + 1]) for i in range(n)],
                   [body[3 * i + 2] for i in range(n)])


def _dims_tuple(dims):
    return tuple(int(dims[i]) for i in range(len(dims)))


def _enum_key(value):
    return int(value) if not hasattr(value, "value") else int(value.value)


def _make_plugin_class():
    trt = _trt()
    build_base = getattr(trt, "IPluginV3OneBuildV2", None) or trt.IPluginV3OneBuild

    class _QuickPlugin(trt.IPluginV3, trt.IPluginV3OneCore, build_base, trt.IPluginV3OneRuntime):
        """IPluginV3 of a kiln.plugin plugin (see the module docstring)."""

        def __init__(self, pdef, attrs, in_ranks=None, in_dtypes=None, meta=None):
            trt.IPluginV3.__init__(self)
            trt.IPluginV3OneCore.__init__(self)
            build_base.__init__(self)
            trt.IPluginV3OneRuntime.__init__(self)
            self._def = pdef
            self._attrs = dict(attrs)
            self._in_ranks = list(in_ranks) if in_ranks is not None else None
            self._in_dtypes = list(in_dtypes) if in_dtypes is not None else None
            self._meta = meta
            self._table = None
            self._config = None
            self._tactic = 0
            self.plugin_name = pdef.name
            self.plugin_namespace = pdef.namespace
            self.plugin_version = "1"
            if self._meta is None:
                self._meta = _Meta.from_outputs(*self._run_register(self._opaque_inputs()))
            self.num_outputs = self._meta.num_outputs

        # Helpers -------------------------------------------------------------------------------------------
        @property
        def _label(self):
            return f"plugin '{self._def.plugin_id}'"

        def _register_attrs(self):
            missing = [n for n in self._def.attrs if n not in self._attrs]
            if missing:
                raise ValueError(f"{self._label}: the shape function needs attribute(s) {', '.join(missing)}, "
                                 "which were not serialized (only attributes named in impl are kept in engines)")
            return {n: self._attrs[n] for n in self._def.attrs}

        def _opaque_inputs(self, dtypes=None):
            n_in = len(self._def.input_names)
            if self._in_ranks is None:
                raise ValueError(f"{self._label}: input ranks are unknown; add kiln.plugin plugins with "
                                 "INetworkDefinition.add_plugin(kiln.plugin.op.<ns>.<name>(...))")
            dtypes = dtypes if dtypes is not None else (self._in_dtypes or [None] * n_in)
            descs = []
            for i, name in enumerate(self._def.input_names):
                shape = ShapeExprs([ShapeExpr._dim(None, f"{name}[{j}]") for j in range(self._in_ranks[i])])
                descs.append(self._input_desc(shape, dtypes[i], i))
            return descs

        @staticmethod
        def _input_desc(shape, dtype, index):
            desc = TensorDesc(shape, dtype)
            desc._index = index
            desc._immutable = True
            return desc

        def _run_register(self, inputs):
            result = self._def.register_fn(*inputs, **self._register_attrs())
            outputs = list(result) if isinstance(result, (tuple, list)) else [result]
            if not outputs:
                raise ValueError(f"{self._label}: the shape function returned no outputs")
            for i, out in enumerate(outputs):
                if not isinstance(out, TensorDesc):
                    raise TypeError(f"{self._label}: the shape function returned {type(out).__name__} as output "
                                    f"{i}; expected TensorDesc")
                if not out.has_shape:
                    raise ValueError(f"{self._label}: output {i} of the shape function has no shape")
            if self._meta is not None and len(outputs) != self._meta.num_outputs:
                raise ValueError(f"{self._label}: the shape function returned {len(outputs)} outputs, earlier "
                                 f"{self._meta.num_outputs}")
            return outputs, inputs

        def _output_descs(self):
            outputs, _ = self._run_register(self._opaque_inputs())
            return outputs

        def _format_table(self):
            if self._table is not None:
                return self._table
            outputs = self._output_descs()
            dtypes = list(self._in_dtypes or []) + [o.dtype for o in outputs]
            if self._def.autotune_fn is None:
                self._table = FormatTable.from_defaults(dtypes)
                return self._table
            inputs = self._opaque_inputs()
            kwargs = {n: self._attrs[n] for n in self._def.autotune_attr_names}
            combos = self._def.autotune_fn(*inputs, outputs=tuple(outputs), **kwargs)
            if isinstance(combos, AutoTuneCombination):
                combos = [combos]
            combos = list(combos)
            for c in combos:
                if not isinstance(c, AutoTuneCombination):
                    raise TypeError(f"{self._label}: autotune must return AutoTuneCombination objects, got "
                                    f"{type(c).__name__}")
            self._table = FormatTable(combos, len(inputs) + len(outputs))
            return self._table

        def _copy(self):
            other = _QuickPlugin(self._def, self._attrs, self._in_ranks, self._in_dtypes, self._meta)
            other._table = self._table
            other._config = self._config
            other._tactic = self._tactic
            return other

        # IPluginV3 / OneCore --------------------------------------------------------------------------------
        def get_capability_interface(self, type):  # noqa: A002 - tensorrt's parameter name
            return self

        def clone(self):
            return self._copy()

        def destroy(self):
            pass

        # OneBuild -----------------------------------------------------------------------------------------
        def get_output_data_types(self, input_types):
            self._in_dtypes = list(input_types)
            self._table = None
            dtypes = [o.dtype for o in self._output_descs()]
            for i, dtype in enumerate(dtypes):
                if dtype is None:
                    raise ValueError(f"{self._label}: output {i} of the shape function has no dtype")
            return dtypes

        def get_output_shapes(self, inputs, shape_inputs, expr_builder):
            descs = []
            for i, dims in enumerate(inputs):
                name = self._def.input_names[i]
                exprs = [ShapeExpr._dim(dims[j], f"{name}[{j}]") for j in range(len(dims))]
                dtype = self._in_dtypes[i] if self._in_dtypes else None
                descs.append(self._input_desc(ShapeExprs(exprs), dtype, i))
            outputs, _ = self._run_register(descs)
            size_outputs = {id(o): k for k, o in enumerate(outputs) if o.is_size_tensor}
            lowering = _Lowering(expr_builder, trt.DimensionOperation, size_outputs, self._label)
            result = []
            for out in outputs:
                if out.is_size_tensor:
                    lowering._declare(out)
                lowered = [lowering.lower(e) for e in out.shape_expr]
                result.append(_make_dims_exprs(trt, lowered))
            return result

        def supports_format_combination(self, pos, in_out, num_inputs):
            table = self._format_table()
            return table.supports(pos, [(d.desc.type, d.desc.format) for d in in_out])

        def configure_plugin(self, inp, out):
            self._config = [(d.desc.type, d.desc.format) for d in list(inp) + list(out)]
            self._in_dtypes = [d.desc.type for d in inp]

        def get_workspace_size(self, inp, out):
            return 0

        def get_valid_tactics(self):
            if self._config is None:
                return []
            return self._format_table().tactics(self._config)

        def set_tactic(self, tactic):
            self._tactic = int(tactic)

        def get_aliased_input(self, output_index):
            if 0 <= output_index < self._meta.num_outputs:
                return self._meta.aliased[output_index]
            return -1

        # OneRuntime ---------------------------------------------------------------------------------------
        def on_shape_change(self, inp, out):
            pass

        def attach_to_context(self, context):
            return self._copy()

        def get_fields_to_serialize(self):
            fields = [self._def.attrs[n].to_field(self._attrs[n]) for n in self._def.impl_attr_names]
            fields.append(trt.PluginField(_META_FIELD, self._meta.encode(), trt.PluginFieldType.INT32))
            return trt.PluginFieldCollection(fields)

        def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
            pdef = self._def
            if pdef.impl_fn is None:
                raise RuntimeError(f"{self._label} has no impl (decorate one with @kiln.plugin.impl)")
            on_host = _host_buffers(inputs, outputs, [workspace])
            in_tensors = [Tensor._create(int(p), _dims_tuple(d.dims), d.type, d.format, on_host, stream=stream)
                          for d, p in zip(input_desc, inputs)]
            out_tensors = []
            for k, (d, p) in enumerate(zip(output_desc, outputs)):
                t = Tensor._create(int(p), _dims_tuple(d.dims), d.type, d.format, on_host,
                                   data_dependent=self._meta.data_dependent[k], stream=stream)
                alias = self._meta.aliased[k]
                if alias >= 0:
                    t._aliased_to = in_tensors[alias]
                out_tensors.append(t)
            kwargs = {n: self._attrs[n] for n in pdef.impl_attr_names}
            kwargs["outputs"] = tuple(out_tensors)
            kwargs["stream"] = int(stream or 0)
            if pdef.impl_has_tactic:
                kwargs["tactic"] = self._tactic
            try:
                pdef.impl_fn(*in_tensors, **kwargs)
            except Exception as exc:
                raise RuntimeError(f"{self._label}: impl raised {type(exc).__name__}: {exc}") from exc

    return _QuickPlugin


def _make_dims_exprs(trt, exprs):
    dims = trt.DimsExprs(len(exprs))
    for i, e in enumerate(exprs):
        dims[i] = e
    return dims


def _make_creator_class():
    trt = _trt()

    class _QuickCreator(trt.IPluginCreatorV3One):
        """IPluginCreatorV3One of one kiln.plugin plugin id."""

        def __init__(self, pdef):
            trt.IPluginCreatorV3One.__init__(self)
            self._def = pdef
            self.name = pdef.name
            self.plugin_namespace = pdef.namespace
            self.plugin_version = "1"
            self.field_names = trt.PluginFieldCollection(
                [trt.PluginField(n, None, _field_type(trt, s)) for n, s in pdef.attrs.items()])

        def create_plugin(self, name, field_collection, phase):
            pdef = self._def
            values = {}
            meta = None
            for field in field_collection:
                if field.name == _META_FIELD:
                    meta = _Meta.decode(np.asarray(field.data).astype(np.int64).tolist(), pdef.plugin_id)
                elif field.name in pdef.attrs:
                    values[field.name] = pdef.attrs[field.name].from_field(field, pdef.plugin_id)
            runtime = _enum_key(phase) == _enum_key(trt.TensorRTPhase.RUNTIME)
            needed = pdef.impl_attr_names if runtime else list(pdef.attrs)
            for n in needed:
                if n not in values:
                    spec = pdef.attrs[n]
                    if not spec.has_default:
                        raise ValueError(f"plugin '{pdef.plugin_id}': field '{n}' ({spec.describe()}) is missing")
                    values[n] = spec.default
            if runtime:
                if pdef.impl_fn is None:
                    raise ValueError(f"plugin '{pdef.plugin_id}' has no impl in this process (import the module "
                                     "that defines its @kiln.plugin.impl before deserializing the engine)")
                if meta is None:
                    raise ValueError(f"plugin '{pdef.plugin_id}': the engine lacks the kiln.plugin metadata field")
            return _plugin_class()(pdef, values, meta=meta)

    return _QuickCreator


def _field_type(trt, spec):
    type_name, _ = spec._field_type_and_data(spec.default if spec.has_default else _SAMPLE[spec.kind](spec))
    return getattr(trt.PluginFieldType, type_name)


_SAMPLE = {"int": lambda s: 0, "float": lambda s: 0.0, "bool": lambda s: False, "str": lambda s: "",
           "bytes": lambda s: b"", "array": lambda s: np.zeros(0, dtype=s.dtype)}

_CLASSES = {}


def _plugin_class():
    if "plugin" not in _CLASSES:
        _CLASSES["plugin"] = _make_plugin_class()
    return _CLASSES["plugin"]


def _creator_class():
    if "creator" not in _CLASSES:
        _CLASSES["creator"] = _make_creator_class()
    return _CLASSES["creator"]


def register_creator(pdef):
    """Create the plugin's creator and register it in the plugin registry under the plugin's namespace."""
    trt = _trt()
    creator = _creator_class()(pdef)
    registry = trt.get_plugin_registry()
    ok = registry.register_creator(creator, pdef.namespace)
    if ok is False:
        raise ValueError(f"plugin '{pdef.plugin_id}': the plugin registry refused the creator (is a plugin "
                         f"'{pdef.name}' version 1 already registered in namespace '{pdef.namespace}'?)")
    return creator


def make_plugin(pdef, attrs, in_ranks, in_dtypes):
    """A plugin object for INetworkDefinition.add_plugin (attributes already checked)."""
    return _plugin_class()(pdef, attrs, in_ranks=in_ranks, in_dtypes=in_dtypes)
