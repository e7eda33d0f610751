"""Plugin libraries compiled with -fno-rtti reach Python without a crash (issue 17).

pybind11 asks the dynamic type of every polymorphic object it hands to Python (typeid), which crashes on objects
of code compiled without RTTI; python/src/pyTypeHook.h asks Kiln's check first. The libraries are the contract
checker's toy plugins built with -fno-rtti by tests/tools/CMakeLists.txt (found next to the build tree's module).
"""

import gc
import os

import numpy as np
import pytest

import kiln as trt


def _library(name):
    path = os.path.join(os.path.dirname(trt.__file__), "..", "..", "lib", "lib%s.so" % name)
    if not os.path.exists(path):
        pytest.skip("%s is built with the C++ tests only" % path)
    return os.path.normpath(path)


def _check_library_objects(registry):
    v2 = registry.get_creator("NoRttiToy", "1", "")
    assert v2 is not None
    assert v2.name == "NoRttiToy"
    fields = [f.name for f in v2.field_names]
    assert fields == ["defect", "alpha", "kiln_cpu_support"]
    alpha = trt.PluginField("alpha", np.array([2.5], dtype=np.float32), trt.PluginFieldType.FLOAT32)
    plugin = v2.create_plugin("toy", trt.PluginFieldCollection([alpha]))
    assert plugin is not None
    assert plugin.plugin_type == "NoRttiToy"
    v3 = registry.get_creator("NoRttiToyV3", "1", "")
    assert v3 is not None and v3.name == "NoRttiToyV3"
    plugin3 = v3.create_plugin("toy3", trt.PluginFieldCollection([]), trt.TensorRTPhase.BUILD)
    core = plugin3.get_capability_interface(trt.PluginCapabilityType.CORE)
    assert core.plugin_name == "NoRttiToyV3"
    assert len(registry.all_creators) >= 2


def test_creators_and_plugins_without_rtti_reach_python(logger):
    registry = trt.get_plugin_registry()
    handle = registry.load_library(_library("kilnNoRttiToyPlugins"))
    assert handle is not None, logger.errors()
    try:
        _check_library_objects(registry)
    finally:
        gc.collect()  # the plugin objects must go before their library's code is unloaded
        registry.deregister_library(handle)
