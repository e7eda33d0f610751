"""The plugin registry from Python: registration keeps Python creators alive, lookups downcast creators to their
Python type (a Python creator comes back as the same object), PluginField/PluginFieldCollection, and plugin
lifetimes over many builds."""

import gc
import weakref

import numpy as np
import pytest

import kiln as trt
from plugin_testlib import CircPadCreatorV2, CircPadCreatorV3, CircPadV3, build_plan, register


def test_python_creators_come_back_as_themselves():
    registry = trt.get_plugin_registry()
    v3 = register(CircPadCreatorV3(), "pyd_ns")
    v1 = register(CircPadCreatorV2(), "pyd_ns")
    assert registry.get_creator("CircPadPyV3", "1", "pyd_ns") is v3
    assert registry.get_creator("CircPadPy", "1", "pyd_ns") is v1
    assert type(registry.get_creator("CircPadPyV3", "1", "pyd_ns")) is CircPadCreatorV3
    assert any(c is v3 for c in registry.all_creators)
    assert any(c is v1 for c in registry.plugin_creator_list)
    assert v3.interface_info.kind == "PLUGIN CREATOR_V3ONE"
    assert v1.interface_info.kind == "PLUGIN CREATOR_V1"
    assert v3.api_language == trt.APILanguage.PYTHON
    # Same key again: refused.
    assert not registry.register_creator(CircPadCreatorV3(), "pyd_ns")
    assert registry.deregister_creator(v3)
    assert registry.deregister_creator(v1)
    assert registry.get_creator("CircPadPyV3", "1", "pyd_ns") is None
    assert not registry.deregister_creator(v3)


def test_registry_keeps_python_creator_alive():
    registry = trt.get_plugin_registry()
    creator = CircPadCreatorV3()
    creator.plugin_namespace = "keepalive"
    alive = weakref.ref(creator)
    assert registry.register_creator(creator, "keepalive")
    del creator
    gc.collect()
    assert alive() is not None
    found = registry.get_creator("CircPadPyV3", "1", "keepalive")
    assert found is alive() and found.name == "CircPadPyV3"
    assert [f.name for f in found.field_names] == ["pads"]
    assert registry.deregister_creator(found)
    del found
    gc.collect()
    assert alive() is None


def test_cpp_creators_are_downcast():
    assert trt.init_libnvinfer_plugins(None, "")
    registry = trt.get_plugin_registry()
    lrelu = registry.get_creator("LReLU_TRT", "1", "")
    assert type(lrelu) is trt.IPluginCreator
    assert lrelu.name == "LReLU_TRT" and lrelu.plugin_version == "1"
    assert [f.name for f in lrelu.field_names] == ["negSlope"]
    assert lrelu.api_language == trt.APILanguage.CPP
    roi = registry.get_creator("ROIAlign_TRT", "2", "")
    assert type(roi) is trt.IPluginCreatorV3One
    plugin = roi.create_plugin("roi", trt.PluginFieldCollection([]), trt.TensorRTPhase.BUILD)
    assert isinstance(plugin, trt.IPluginV3)
    core = plugin.get_capability_interface(trt.PluginCapabilityType.CORE)
    assert isinstance(core, trt.IPluginV3OneCore)
    assert core.plugin_name == "ROIAlign_TRT" and core.plugin_version == "2"
    build = plugin.get_capability_interface(trt.PluginCapabilityType.BUILD)
    assert isinstance(build, trt.IPluginV3OneBuild) and build.num_outputs == 1
    copy = plugin.clone()
    assert copy.get_capability_interface(trt.PluginCapabilityType.CORE).plugin_name == "ROIAlign_TRT"


def test_plugin_field_and_collection():
    rng = np.random.default_rng()
    values = rng.normal(size=5)
    field = trt.PluginField("w", values, trt.PluginFieldType.FLOAT32)   # float64 data converted
    assert field.name == "w" and field.size == 5 and field.type == trt.PluginFieldType.FLOAT32
    assert field.data.dtype == np.float32
    np.testing.assert_allclose(field.data, values.astype(np.float32))
    text = trt.PluginField("s", "hello", trt.PluginFieldType.CHAR)
    assert text.size == 5 and bytes(text.data.astype(np.uint8)) == b"hello"
    raw = trt.PluginField("b", b"\x01\x02\x03", trt.PluginFieldType.UNKNOWN)
    assert raw.size == 3
    empty = trt.PluginField("none")
    assert empty.data is None and empty.size == 0

    fc = trt.PluginFieldCollection([field, text])
    assert len(fc) == 2 and fc[0].name == "w" and fc[-1].name == "s"
    fc.append(raw)
    assert [f.name for f in fc] == ["w", "s", "b"]
    with pytest.raises(IndexError):
        fc[3]
    with pytest.raises(TypeError):
        trt.PluginFieldCollection([1, 2])


def test_fields_reach_a_cpp_creator(builder, logger):
    # A PluginField's numpy data reaches the C++ LReLU_TRT creator: its slope shows in the output.
    trt.init_libnvinfer_plugins(None, "")
    creator = trt.get_plugin_registry().get_creator("LReLU_TRT", "1", "")
    slope = float(np.random.default_rng().uniform(0.2, 0.9))
    plugin = creator.create_plugin("lrelu", trt.PluginFieldCollection(
        [trt.PluginField("neg_slope", np.array([slope]), trt.PluginFieldType.FLOAT32)]))
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 3))
    layer = network.add_plugin_v2([x], plugin)
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    from plugin_testlib import Runner
    runner = Runner(build_plan(builder, network, logger), logger)
    data = -np.random.default_rng().uniform(0.5, 2.0, size=(2, 3)).astype(np.float32)
    ok, out = runner.run({"y": ((2, 3), np.float32)}, x=data)
    assert ok, logger.errors()
    np.testing.assert_allclose(out["y"], np.float32(slope) * data, rtol=1e-6)


def test_no_leak_over_many_builds(builder, logger):
    register(CircPadCreatorV3())
    live = weakref.WeakSet()

    class Tracked(CircPadV3):
        def __init__(self, pads=(1, 1, 1, 1)):
            super().__init__(pads)
            live.add(self)

        def clone(self):
            return Tracked(self.pads)

    for _ in range(100):
        network = builder.create_network()
        x = network.add_input("x", trt.float32, (1, 1, 2, 2))
        layer = network.add_plugin_v3([x], [], Tracked())
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))
        plan = build_plan(builder, network, logger)
        assert plan is not None, logger.errors()
        del network, x, layer, plan
    gc.collect()
    assert len(live) == 0


def test_registry_library_and_settings(tmp_path, logger):
    registry = trt.get_plugin_registry()
    runtime = trt.Runtime(logger)  # makes `logger` the registry logger while it lives
    assert registry.load_library(str(tmp_path / "no_such_plugin_library.so")) is None
    assert "no_such_plugin_library.so" in logger.errors()
    assert registry.parent_search_enabled in (True, False)
    assert registry.get_creator("NoSuchPlugin", "1") is None
    assert registry.get_plugin_creator("NoSuchPlugin", "1") is None
    assert isinstance(registry.all_creators_recursive, list)
    del runtime
