"""Seed 002, section 9.2.1: the LReLU_TRT get_trt_plugin example, run as written (``import kiln as trt``),
then built and run on the CPU and compared with a numpy leaky ReLU."""

import numpy as np

import kiln as trt
from plugin_testlib import Runner

# The example exactly as the seed gives it (typographic quotes replaced by ASCII ones); the only addition is the
# last line of main(), which hands the objects to the test.
SEED_SOURCE = '''
import kiln as trt
import numpy as np
TRT_LOGGER = trt.Logger()
trt.init_libnvinfer_plugins(TRT_LOGGER, '')
PLUGIN_CREATORS = trt.get_plugin_registry().plugin_creator_list
def get_trt_plugin(plugin_name):
    plugin = None
    for plugin_creator in PLUGIN_CREATORS:
        if plugin_creator.name == plugin_name:
            lrelu_slope_field = trt.PluginField("neg_slope", np.array([0.1], dtype=np.float32), trt.PluginFieldType.FLOAT32)
            field_collection = trt.PluginFieldCollection([lrelu_slope_field])
            plugin = plugin_creator.create_plugin(name=plugin_name, field_collection=field_collection)
    return plugin
def main():
    builder = trt.Builder(TRT_LOGGER)
    network = builder.create_network()
    config = builder.create_builder_config()
    config.max_workspace_size = 2**20
    input_layer = network.add_input(name="input_layer", dtype=trt.float32, shape=(1, 1))
    lrelu = network.add_plugin_v2(inputs=[input_layer], plugin=get_trt_plugin("LReLU_TRT"))
    lrelu.get_output(0).name = "outputs"
    network.mark_output(lrelu.get_output(0))
'''
RETURN_LINE = "    return builder, network, config\n"


def run_seed():
    """Execute the seed; returns its namespace and what main() built."""
    namespace = {"__name__": "seed_002_9_2_1"}
    exec(compile(SEED_SOURCE + RETURN_LINE, "seed_002_9_2_1", "exec"), namespace)
    return namespace, namespace["main"]()


def test_seed_creator_list_and_plugin():
    namespace, _ = run_seed()
    creators = namespace["PLUGIN_CREATORS"]
    names = [c.name for c in creators]
    assert "LReLU_TRT" in names
    lrelu = [c for c in creators if c.name == "LReLU_TRT"][0]
    assert type(lrelu) is trt.IPluginCreator  # a C++ creator, downcast by its interface kind
    plugin = namespace["get_trt_plugin"]("LReLU_TRT")
    assert isinstance(plugin, trt.IPluginV2)
    assert plugin.plugin_type == "LReLU_TRT"
    assert plugin.plugin_version == "1"
    assert plugin.num_outputs == 1
    assert namespace["get_trt_plugin"]("NO_SUCH_PLUGIN") is None


def test_seed_network_builds_and_runs(logger):
    namespace, (builder, network, config) = run_seed()
    assert network.num_layers == 1
    plan = builder.build_serialized_network(network, config)
    assert plan is not None
    runner = Runner(plan, logger)
    rng = np.random.default_rng()
    for sign in (1.0, -1.0):
        x = (sign * rng.uniform(0.5, 4.0, size=(1, 1))).astype(np.float32)
        ok, out = runner.run({"outputs": ((1, 1), np.float32)}, input_layer=x)
        assert ok, logger.errors()
        expected = np.where(x > 0, x, np.float32(0.1) * x)
        np.testing.assert_allclose(out["outputs"], expected, rtol=1e-6)


def test_seed_plugin_kept_alive_by_network(logger):
    # The seed passes a temporary plugin to add_plugin_v2; the network must keep it alive.
    import gc
    _, (builder, network, config) = run_seed()
    gc.collect()
    plan = builder.build_serialized_network(network, config)
    assert plan is not None
