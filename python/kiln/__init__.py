"""Kiln: an open-source engine with TensorRT's Python API. Use it as ``import kiln as trt``."""
from ._kiln import *  # noqa: F401,F403
from . import _kiln

# Star imports skip dunder names: the TensorRT API version, and Kiln's own version.
__version__ = getattr(_kiln, "__version__", "0")
__kiln_version__ = getattr(_kiln, "__kiln_version__", "0")

# kiln.plugin (decorator-based plugins) installs INetworkDefinition.add_plugin.
from .plugin import _network as _plugin_network  # noqa: E402

_plugin_network.install(_kiln)
