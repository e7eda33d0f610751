"""Seed 001: the add_plugin_v3 example, run as written (``import kiln as trt``) against a class-based Python
IPluginV3 registered as MY_PLUGIN whose enqueue computes sqrt(x*x + epsilon) in numpy on the CPU."""

import numpy as np

import kiln as trt
from plugin_testlib import Runner, register

SEED_SOURCE = '''
import kiln as trt
import numpy as np
TRT_LOGGER = trt.Logger()
trt.init_libnvinfer_plugins(TRT_LOGGER, '')
def get_trt_plugin(plugin_name, plugin_version, plugin_namespace):
    plugin = None
    plugin_creator = trt.get_plugin_registry().get_creator(plugin_name, plugin_version, plugin_namespace)
    # trt will automatically downcast to IPluginCreator or IPluginCreatorInterface
    # Can inspect plugin_creator.interface_info to make sure
    if plugin_creator is not None:
        lrelu_slope_field = trt.PluginField("epsilon", np.array([0.00000001], dtype=np.float32), trt.PluginFieldType.FLOAT32)
        field_collection = trt.PluginFieldCollection([lrelu_slope_field])
        plugin = plugin_creator.create_plugin(name=plugin_name, field_collection=field_collection, phase=trt.TensorRTPhase.BUILD)
    return plugin
def main():
    builder = trt.Builder(TRT_LOGGER)
    network = builder.create_network()
    config = builder.create_builder_config()
    config.max_workspace_size = 2**20
    input_layer = network.add_input(name="input_layer", dtype=trt.float32, shape=(1, 1))
    plugin = network.add_plugin_v3(inputs=[input_layer], shape_inputs=[], plugin=get_trt_plugin("MY_PLUGIN", "1", ""))
    plugin.get_output(0).name = "outputs"
    network.mark_output(plugin.get_output(0))
'''
RETURN_LINE = "    return builder, network, config\n"


class MyPlugin(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    """MY_PLUGIN: y = sqrt(x * x + epsilon), elementwise, float32."""

    def __init__(self, epsilon):
        trt.IPluginV3.__init__(self)
        trt.IPluginV3OneCore.__init__(self)
        trt.IPluginV3OneBuild.__init__(self)
        trt.IPluginV3OneRuntime.__init__(self)
        self.epsilon = float(epsilon)
        self.num_outputs = 1
        self.plugin_namespace = ""
        self.plugin_name = "MY_PLUGIN"
        self.plugin_version = "1"

    def get_capability_interface(self, type):
        return self

    def get_output_data_types(self, input_types):
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        return [trt.DimsExprs(inputs[0])]

    def supports_format_combination(self, pos, in_out, num_inputs):
        return in_out[pos].desc.type == trt.DataType.FLOAT

    def configure_plugin(self, inp, out):
        pass

    def on_shape_change(self, inp, out):
        pass

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        if inputs[0].on_device:  # Kiln's CUDA backend: device buffers, viewed by torch (__cuda_array_interface__)
            import torch
            from gpu_testlib import external_stream

            with external_stream(torch, stream):
                x = torch.as_tensor(inputs[0], device="cuda")
                floor = torch.full_like(x, float(np.sqrt(np.float32(self.epsilon))))
                torch.as_tensor(outputs[0], device="cuda").copy_(torch.hypot(x, floor))
            return
        x = inputs[0].numpy()
        outputs[0].numpy()[...] = np.hypot(x, np.float32(np.sqrt(self.epsilon)))

    def attach_to_context(self, context):
        return self.clone()

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection(
            [trt.PluginField("epsilon", np.array([self.epsilon], dtype=np.float32), trt.PluginFieldType.FLOAT32)])

    def clone(self):
        return MyPlugin(self.epsilon)


class MyPluginCreator(trt.IPluginCreatorV3One):
    """Creator of MY_PLUGIN, with the keyword names the seed calls create_plugin with."""

    def __init__(self):
        trt.IPluginCreatorV3One.__init__(self)
        self.name = "MY_PLUGIN"
        self.plugin_namespace = ""
        self.plugin_version = "1"
        self.field_names = trt.PluginFieldCollection(
            [trt.PluginField("epsilon", np.array([], dtype=np.float32), trt.PluginFieldType.FLOAT32)])
        self.phases = []

    def create_plugin(self, name, field_collection, phase):
        self.phases.append(phase)
        epsilon = 0.0
        for field in field_collection:
            if field.name == "epsilon":
                epsilon = float(field.data[0])
        return MyPlugin(epsilon)


def test_seed_add_plugin_v3_builds_and_runs(logger):
    creator = register(MyPluginCreator())
    namespace = {"__name__": "seed_001"}
    exec(compile(SEED_SOURCE + RETURN_LINE, "seed_001", "exec"), namespace)

    found = trt.get_plugin_registry().get_creator("MY_PLUGIN", "1", "")
    assert found is creator
    assert found.interface_info.kind == "PLUGIN CREATOR_V3ONE"

    builder, network, config = namespace["main"]()
    assert creator.phases == [trt.TensorRTPhase.BUILD]
    plan = builder.build_serialized_network(network, config)
    assert plan is not None
    runner = Runner(plan, logger)
    assert trt.TensorRTPhase.RUNTIME in creator.phases  # the engine recreated the plugin from its fields
    rng = np.random.default_rng()
    for _ in range(3):
        x = rng.normal(size=(1, 1)).astype(np.float32)
        ok, out = runner.run({"outputs": ((1, 1), np.float32)}, input_layer=x)
        assert ok, logger.errors()
        np.testing.assert_allclose(out["outputs"], np.sqrt(x.astype(np.float64) ** 2 + 1e-8), rtol=1e-5)
    trt.get_plugin_registry().deregister_creator(creator)


def test_seed_get_trt_plugin_without_creator_returns_none():
    namespace = {"__name__": "seed_001"}
    exec(compile(SEED_SOURCE, "seed_001", "exec"), namespace)
    assert namespace["get_trt_plugin"]("MY_PLUGIN_NOT_REGISTERED", "1", "") is None
