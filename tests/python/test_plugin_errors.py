"""Exceptions raised inside Python plugin methods: the build or run that called the method fails, the Python
message and the plugin name reach the logger, and the process survives (later builds and runs still work)."""

import numpy as np
import pytest

import kiln as trt
from plugin_testlib import (CircPadCreatorV2, CircPadCreatorV3, CircPadV2, CircPadV3, Runner, build_plan,
                            register)

PROFILE = {"x": ((1, 1, 2, 2), (1, 1, 3, 3), (2, 1, 4, 4))}


class ShapesRaise(CircPadV3):
    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        raise ValueError("boom in get_output_shapes")

    def clone(self):
        return ShapesRaise(self.pads)


class CloneRaises(CircPadV3):
    def clone(self):
        raise RuntimeError("boom in clone")


class EnqueueRaisesV3(CircPadV3):
    fail = True

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        if EnqueueRaisesV3.fail:
            raise ValueError("boom in enqueue v3")
        super().enqueue(input_desc, output_desc, inputs, outputs, workspace, stream)

    def clone(self):
        return EnqueueRaisesV3(self.pads)


class EnqueueRaisesCreatorV3(CircPadCreatorV3):
    def create_plugin(self, name, field_collection, phase):
        return EnqueueRaisesV3([f.data.tolist() for f in field_collection][0])


class EnqueueRaisesV2(CircPadV2):
    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        raise KeyError("boom in enqueue v2")

    def clone(self):
        return EnqueueRaisesV2(self.pads)


class EnqueueRaisesCreatorV2(CircPadCreatorV2):
    def deserialize_plugin(self, name, data):
        return EnqueueRaisesV2(np.frombuffer(bytes(data), dtype=np.int32).tolist())


def network_with(builder, plugin, v2=False):
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (-1, 1, -1, -1))
    layer = network.add_plugin_v2([x], plugin) if v2 else network.add_plugin_v3([x], [], plugin)
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    return network


def try_build(builder, logger, plugin):
    """Add ``plugin`` (V3) and build; None when adding the layer or building fails."""
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (-1, 1, -1, -1))
    layer = network.add_plugin_v3([x], [], plugin)
    if layer is None:
        return None
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    return build_plan(builder, network, logger, PROFILE)


def assert_logged(logger, *fragments):
    errors = logger.errors()
    for fragment in fragments:
        assert fragment in errors, "missing %r in:\n%s" % (fragment, errors)


@pytest.mark.parametrize("plugin_class, message", [(ShapesRaise, "boom in get_output_shapes"),
                                                   (CloneRaises, "boom in clone")])
def test_build_fails_with_python_message(builder, logger, plugin_class, message):
    register(CircPadCreatorV3())
    # The failing method may already run when the layer is added (Kiln clones and infers shapes then).
    assert try_build(builder, logger, plugin_class((1, 1, 1, 1))) is None
    assert_logged(logger, message, "CircPadPyV3")
    assert message in trt.last_plugin_error()

    # The process survives and a healthy plugin still builds.
    logger.clear()
    plan = build_plan(builder, network_with(builder, CircPadV3((1, 1, 1, 1))), logger, PROFILE)
    assert plan is not None, logger.errors()


def test_enqueue_exception_fails_the_run_v3(builder, logger):
    register(EnqueueRaisesCreatorV3())
    EnqueueRaisesV3.fail = True
    plan = build_plan(builder, network_with(builder, EnqueueRaisesV3((0, 1, 1, 0))), logger, PROFILE)
    assert plan is not None, logger.errors()
    runner = Runner(plan, logger)
    x = np.random.default_rng().normal(size=(1, 1, 3, 2)).astype(np.float32)
    ok, _ = runner.run({"y": ((1, 1, 4, 3), np.float32)}, x=x)
    assert not ok
    assert_logged(logger, "boom in enqueue v3", "ValueError", "CircPadPyV3")

    EnqueueRaisesV3.fail = False  # the same context runs again once the plugin stops raising
    ok, out = runner.run({"y": ((1, 1, 4, 3), np.float32)}, x=x)
    assert ok, logger.errors()
    np.testing.assert_array_equal(out["y"], np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 0)), mode="wrap"))


def test_enqueue_exception_fails_the_run_v2(builder, logger):
    register(EnqueueRaisesCreatorV2())
    plan = build_plan(builder, network_with(builder, EnqueueRaisesV2((1, 1, 1, 1)), v2=True), logger, PROFILE)
    assert plan is not None, logger.errors()
    runner = Runner(plan, logger)
    x = np.random.default_rng().normal(size=(1, 1, 2, 2)).astype(np.float32)
    ok, _ = runner.run({"y": ((1, 1, 4, 4), np.float32)}, x=x)
    assert not ok
    assert_logged(logger, "boom in enqueue v2", "KeyError", "CircPadPy")


def test_missing_required_method_is_reported(builder, logger):
    class NoShapes(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
        def __init__(self):
            trt.IPluginV3.__init__(self)
            trt.IPluginV3OneCore.__init__(self)
            trt.IPluginV3OneBuild.__init__(self)
            trt.IPluginV3OneRuntime.__init__(self)
            self.num_outputs = 1
            self.plugin_name = "NoShapesPy"
            self.plugin_version = "1"
            self.plugin_namespace = ""

        def get_capability_interface(self, type):
            return self

    assert try_build(builder, logger, NoShapes()) is None
    assert_logged(logger, "NoShapesPy", "is not implemented")


def test_attributes_are_read_only_on_cpp_objects():
    trt.init_libnvinfer_plugins(None, "")
    creator = trt.get_plugin_registry().get_creator("LReLU_TRT", "1", "")
    with pytest.raises(AttributeError):
        creator.name = "other"
    plugin = creator.create_plugin("lrelu", trt.PluginFieldCollection([]))
    with pytest.raises(AttributeError):
        plugin.num_outputs = 3
    with pytest.raises(ValueError):
        CircPadV3().num_outputs = 0


def test_v2_shape_exception_fails_add_or_build(builder, logger):
    class DimsRaise(CircPadV2):
        def get_output_dimensions(self, output_index, inputs, expr_builder):
            raise ArithmeticError("boom in get_output_dimensions")

        def clone(self):
            return DimsRaise(self.pads)

    register(CircPadCreatorV2())
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (-1, 1, -1, -1))
    layer = network.add_plugin_v2([x], DimsRaise((1, 1, 1, 1)))
    if layer is not None:
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))
        assert build_plan(builder, network, logger, PROFILE) is None
    assert_logged(logger, "boom in get_output_dimensions", "ArithmeticError", "CircPadPy")
