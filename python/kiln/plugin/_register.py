"""Decorators and bookkeeping of kiln.plugin: register, impl, autotune, aot_impl and the `op` namespace.

Each plugin id ("namespace::name") has one PluginDef holding the shape function, the implementation, the
optional autotune function and the attribute specs. `register` validates the shape function's signature and puts
a creator for the plugin into the plugin registry (see _plugin.py); `impl` and `autotune` attach to a registered
id. ``op.<ns>.<name>(*tensors, **attrs)`` makes a call object for ``INetworkDefinition.add_plugin``.
"""

import inspect
import typing

from ._attrs import attr_spec_from_annotation
from ._tensor import Tensor, TensorDesc

__all__ = ["register", "impl", "autotune", "aot_impl", "op", "PluginDef"]

# plugin id -> PluginDef, for every registered plugin in this process.
_DEFS = {}

_RESERVED = ("outputs", "stream", "tactic")


def _split_id(plugin_id):
    if not isinstance(plugin_id, str):
        raise TypeError(f"plugin id must be a str of the form 'namespace::name', got {type(plugin_id).__name__}")
    parts = plugin_id.split("::")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        raise ValueError(f"plugin id '{plugin_id}' must have the form 'namespace::name' (both parts non-empty)")
    for part in parts:
        if not part.isidentifier():
            raise ValueError(f"plugin id '{plugin_id}': '{part}' is not a valid Python identifier (the plugin is "
                             "reached as kiln.plugin.op.<namespace>.<name>)")
    return parts[0], parts[1]


def _hints(fn, plugin_id, what):
    try:
        return typing.get_type_hints(fn)
    except Exception as exc:  # unresolvable forward references and the like
        raise TypeError(f"plugin '{plugin_id}': cannot resolve the type hints of the {what} function: {exc}") from exc


def _is_tensor_desc_annotation(annotation):
    return annotation is TensorDesc or (inspect.isclass(annotation) and issubclass(annotation, TensorDesc))


def _check_plain_params(sig, plugin_id, what):
    for p in sig.parameters.values():
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise ValueError(f"plugin '{plugin_id}': the {what} function must not take *args or **kwargs")
        if p.kind == inspect.Parameter.POSITIONAL_ONLY:
            raise ValueError(f"plugin '{plugin_id}': the {what} function must not have positional-only parameters")


class PluginDef:
    """Everything kiln.plugin knows about one plugin id."""

    def __init__(self, plugin_id, register_fn, lazy):
        self.plugin_id = plugin_id
        self.namespace, self.name = _split_id(plugin_id)
        self.register_fn = register_fn
        self.lazy = lazy
        self.input_names = []
        self.attrs = {}  # name -> AttrSpec, in declaration order
        self.impl_fn = None
        self.impl_attr_names = []
        self.impl_has_tactic = False
        self.autotune_fn = None
        self.autotune_attr_names = []
        self.creator = None
        self._parse_register_signature()

    # Signatures ---------------------------------------------------------------------------------------------
    def _parse_register_signature(self):
        pid = self.plugin_id
        fn = self.register_fn
        if not callable(fn):
            raise TypeError(f"plugin '{pid}': register must decorate a function")
        sig = inspect.signature(fn)
        _check_plain_params(sig, pid, "register")
        hints = _hints(fn, pid, "register")
        seen_attr = False
        for p in sig.parameters.values():
            if p.name not in hints:
                raise TypeError(f"plugin '{pid}': parameter '{p.name}' of the register function has no type hint "
                                "(inputs are annotated TensorDesc, attributes with their type)")
            ann = hints[p.name]
            if _is_tensor_desc_annotation(ann):
                if seen_attr:
                    raise ValueError(f"plugin '{pid}': input '{p.name}' comes after an attribute; declare every "
                                     "TensorDesc input before the attributes")
                if p.default is not inspect.Parameter.empty:
                    raise ValueError(f"plugin '{pid}': input '{p.name}' must not have a default value")
                self.input_names.append(p.name)
            else:
                if p.name in _RESERVED:
                    raise ValueError(f"plugin '{pid}': '{p.name}' is reserved and cannot name an attribute")
                seen_attr = True
                has_default = p.default is not inspect.Parameter.empty
                spec = attr_spec_from_annotation(p.name, ann, pid, p.default if has_default else None, has_default)
                if has_default:
                    spec.default = spec.check(p.default, pid)
                self.attrs[p.name] = spec
        if "return" not in hints:
            raise TypeError(f"plugin '{pid}': the register function needs a return annotation (TensorDesc or "
                            "Tuple[TensorDesc, ...])")
        ret = hints["return"]
        if _is_tensor_desc_annotation(ret):
            return
        origin = typing.get_origin(ret)
        args = typing.get_args(ret)
        if origin is tuple and args and all(a is Ellipsis or _is_tensor_desc_annotation(a) for a in args):
            return
        raise TypeError(f"plugin '{pid}': the register function's return annotation must be TensorDesc or "
                        f"Tuple[TensorDesc, ...], got {ret!r}")

    def _parse_callee(self, fn, what, allow_stream, allow_tactic):
        """Validate an impl/autotune signature; returns (attribute names, has tactic)."""
        pid = self.plugin_id
        if not callable(fn):
            raise TypeError(f"plugin '{pid}': {what} must decorate a function")
        sig = inspect.signature(fn)
        _check_plain_params(sig, pid, what)
        params = list(sig.parameters.values())
        n_in = len(self.input_names)
        if len(params) < n_in:
            raise ValueError(f"plugin '{pid}': the {what} function takes {len(params)} parameters but the plugin "
                             f"has {n_in} inputs, which come first")
        try:
            hints = typing.get_type_hints(fn)
        except Exception:  # noqa: BLE001 - hints are optional here; only checked when resolvable
            hints = {}
        expected_input = Tensor if allow_stream else TensorDesc
        for p in params[:n_in]:
            if p.name in self.attrs or p.name in _RESERVED:
                raise ValueError(f"plugin '{pid}': the {what} function must take the {n_in} inputs first; "
                                 f"'{p.name}' is not an input")
            ann = hints.get(p.name)
            if ann is not None and not (inspect.isclass(ann) and issubclass(ann, expected_input)):
                raise TypeError(f"plugin '{pid}': input '{p.name}' of the {what} function is annotated {ann!r}, "
                                f"expected {expected_input.__name__}")
        attr_names = []
        rest = params[n_in:]
        names = [p.name for p in rest]
        for p in rest:
            if p.name in _RESERVED:
                continue
            if p.name not in self.attrs:
                raise ValueError(f"plugin '{pid}': parameter '{p.name}' of the {what} function is not an "
                                 f"attribute of the plugin (attributes: {', '.join(self.attrs) or 'none'})")
            attr_names.append(p.name)
        if "outputs" not in names:
            raise ValueError(f"plugin '{pid}': the {what} function needs an 'outputs' parameter")
        if allow_stream and "stream" not in names:
            raise ValueError(f"plugin '{pid}': the {what} function needs a 'stream' parameter")
        if not allow_stream and "stream" in names:
            raise ValueError(f"plugin '{pid}': the {what} function takes no 'stream' parameter")
        if "tactic" in names and not allow_tactic:
            raise ValueError(f"plugin '{pid}': the {what} function takes no 'tactic' parameter")
        expected_tail = ["outputs"] + (["stream"] if allow_stream else []) + (["tactic"] if "tactic" in names else [])
        tail = [n for n in names if n in _RESERVED]
        if tail != expected_tail or names[-len(tail):] != tail:
            raise ValueError(f"plugin '{pid}': the {what} function must end with the parameters "
                             f"({', '.join(expected_tail)}) after its attributes")
        return attr_names, "tactic" in names

    # Calls ----------------------------------------------------------------------------------------------------
    def check_attrs(self, attrs):
        """Complete (defaults) and validate a dict of attribute values; TypeError/ValueError name the plugin."""
        unknown = [k for k in attrs if k not in self.attrs]
        if unknown:
            raise TypeError(f"plugin '{self.plugin_id}': unknown attribute(s) {', '.join(unknown)} (attributes: "
                            f"{', '.join(self.attrs) or 'none'})")
        values = {}
        for name, spec in self.attrs.items():
            if name in attrs:
                values[name] = spec.check(attrs[name], self.plugin_id)
            elif spec.has_default:
                values[name] = spec.default
            else:
                raise TypeError(f"plugin '{self.plugin_id}': missing attribute '{name}' ({spec.describe()})")
        return values

    def ensure_registered(self):
        """Put the plugin's creator into the plugin registry if it is not there yet (lazy registration)."""
        if self.creator is None:
            from ._plugin import register_creator

            self.creator = register_creator(self)
        return self.creator


def register(plugin_id, lazy_register=False):
    """Decorator: register a plugin and describe its outputs.

    The decorated function takes the inputs (parameters annotated TensorDesc) followed by the attributes (int,
    float, str, bool, bytes or numpy.typing.NDArray[dtype]) and returns a TensorDesc or a tuple of them. A creator
    for "namespace::name" goes into the plugin registry right away, or on first use with ``lazy_register=True``.
    """
    _split_id(plugin_id)

    def decorator(fn):
        if plugin_id in _DEFS:
            raise ValueError(f"plugin '{plugin_id}' is already registered")
        pdef = PluginDef(plugin_id, fn, lazy_register)
        if not lazy_register:
            pdef.ensure_registered()
        _DEFS[plugin_id] = pdef
        return fn

    return decorator


def _lookup(plugin_id, what):
    _split_id(plugin_id)
    pdef = _DEFS.get(plugin_id)
    if pdef is None:
        raise ValueError(f"plugin '{plugin_id}': {what} needs the plugin to be registered first with "
                         "@kiln.plugin.register")
    return pdef


def impl(plugin_id):
    """Decorator: the implementation (inputs: Tensor..., attributes..., outputs, stream[, tactic]) -> None.

    Only the attributes named here are serialized into engines.
    """

    def decorator(fn):
        pdef = _lookup(plugin_id, "impl")
        if pdef.impl_fn is not None:
            raise ValueError(f"plugin '{plugin_id}' already has an impl")
        pdef.impl_attr_names, pdef.impl_has_tactic = pdef._parse_callee(fn, "impl", True, True)
        pdef.impl_fn = fn
        return fn

    return decorator


def autotune(plugin_id):
    """Decorator: (inputs: TensorDesc..., attributes..., outputs) -> List[AutoTuneCombination]."""

    def decorator(fn):
        pdef = _lookup(plugin_id, "autotune")
        if pdef.autotune_fn is not None:
            raise ValueError(f"plugin '{plugin_id}' already has an autotune function")
        pdef.autotune_attr_names, _ = pdef._parse_callee(fn, "autotune", False, False)
        pdef.autotune_fn = fn
        return fn

    return decorator


def aot_impl(plugin_id):
    """Ahead-of-time implementations (compiled kernels embedded in the engine) are not supported by Kiln yet."""
    raise NotImplementedError(f"kiln.plugin.aot_impl('{plugin_id}'): ahead-of-time (AOT) plugin implementations "
                              "are not supported by Kiln yet; use @kiln.plugin.impl (JIT, runs Python at enqueue)")


class PluginCall:
    """A plugin applied to network tensors with attribute values: the argument of INetworkDefinition.add_plugin."""

    def __init__(self, pdef, inputs, attrs):
        self.plugin_def = pdef
        self.inputs = list(inputs)
        self.attrs = attrs

    def __repr__(self):
        return f"<kiln.plugin call {self.plugin_def.plugin_id} on {len(self.inputs)} input(s)>"


class _OpCallable:
    def __init__(self, pdef):
        self._def = pdef
        self.__doc__ = f"Apply plugin '{pdef.plugin_id}' (see INetworkDefinition.add_plugin)."

    def __call__(self, *inputs, **attrs):
        pdef = self._def
        if len(inputs) != len(pdef.input_names):
            raise ValueError(f"plugin '{pdef.plugin_id}' takes {len(pdef.input_names)} input tensor(s) "
                             f"({', '.join(pdef.input_names)}), got {len(inputs)}")
        return PluginCall(pdef, inputs, pdef.check_attrs(attrs))


class _OpNamespace:
    def __init__(self, namespace):
        self._namespace = namespace

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        pdef = _DEFS.get(f"{self._namespace}::{name}")
        if pdef is None:
            raise AttributeError(f"kiln.plugin.op.{self._namespace}: no plugin '{self._namespace}::{name}' is "
                                 "registered")
        return _OpCallable(pdef)

    def __dir__(self):
        return sorted(d.name for d in _DEFS.values() if d.namespace == self._namespace)


class _Op:
    """``op.<namespace>.<name>``: the registered plugins, callable on network tensors."""

    def __getattr__(self, namespace):
        if namespace.startswith("__"):
            raise AttributeError(namespace)
        if not any(d.namespace == namespace for d in _DEFS.values()):
            raise AttributeError(f"kiln.plugin.op: no plugin is registered in namespace '{namespace}'")
        return _OpNamespace(namespace)

    def __dir__(self):
        return sorted({d.namespace for d in _DEFS.values()})


op = _Op()
