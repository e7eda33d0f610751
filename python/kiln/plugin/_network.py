"""INetworkDefinition.add_plugin for kiln.plugin plugins, installed on the network class when kiln is imported."""

from ._plugin import make_plugin
from ._register import PluginCall

__all__ = ["add_plugin", "install"]


def add_plugin(network, op_call, aot=False):
    """Add a kiln.plugin plugin to `network`; returns the plugin layer (an IPluginV3Layer).

    `op_call` is ``kiln.plugin.op.<ns>.<name>(*tensors, **attrs)``. ``aot=True`` (ahead-of-time implementations)
    raises NotImplementedError: Kiln runs kiln.plugin plugins through their Python impl only.
    """
    if aot:
        raise NotImplementedError("INetworkDefinition.add_plugin(aot=True): ahead-of-time (AOT) plugin "
                                  "implementations are not supported by Kiln yet; use aot=False")
    if not isinstance(op_call, PluginCall):
        raise TypeError("INetworkDefinition.add_plugin expects kiln.plugin.op.<namespace>.<name>(*inputs, **attrs), "
                        f"got {type(op_call).__name__}")
    pdef = op_call.plugin_def
    if pdef.impl_fn is None:
        raise ValueError(f"plugin '{pdef.plugin_id}' has no impl; decorate one with @kiln.plugin.impl")
    pdef.ensure_registered()
    ranks = []
    dtypes = []
    for i, tensor in enumerate(op_call.inputs):
        try:
            shape = tensor.shape
            dtype = tensor.dtype
        except AttributeError:
            raise TypeError(f"plugin '{pdef.plugin_id}': input {i} is a {type(tensor).__name__}, expected an "
                            "ITensor of this network") from None
        ranks.append(len(shape))
        dtypes.append(dtype)
    plugin = make_plugin(pdef, op_call.attrs, ranks, dtypes)
    layer = network.add_plugin_v3(list(op_call.inputs), [], plugin)
    if layer is None:
        raise RuntimeError(f"plugin '{pdef.plugin_id}': add_plugin_v3 failed (see the log)")
    return layer


def install(module):
    """Attach add_plugin to module.INetworkDefinition (called by kiln/__init__.py)."""
    network_class = getattr(module, "INetworkDefinition", None)
    if network_class is not None and not hasattr(network_class, "add_plugin"):
        network_class.add_plugin = add_plugin
