"""INetworkDefinition and ITensor from Python: properties, layer access, ownership and lifetimes, and errors.

No engine is built here (see test_layers_run.py): these tests check the structure the bindings expose and that
wrong arguments raise TypeError/ValueError/IndexError with a clear message instead of crashing.
"""

import gc
import weakref

import numpy as np
import pytest

import kiln as trt
from kiln import _kiln


def test_network_properties_and_layer_access(builder):
    net = builder.create_network(0)
    assert net.num_layers == 0 and len(net) == 0
    assert net.num_inputs == 0 and net.num_outputs == 0
    assert not net.has_implicit_batch_dimension
    net.name = "my network"
    assert net.name == "my network"
    assert net.flags == 0
    assert not net.get_flag(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED)
    x = net.add_input("x", trt.float32, (2, 3))
    relu = net.add_activation(x, trt.ActivationType.RELU)
    neg = net.add_unary(relu.get_output(0), trt.UnaryOperation.NEG)
    net.mark_output(neg.get_output(0))
    assert (net.num_layers, len(net), net.num_inputs, net.num_outputs) == (2, 2, 1, 1)
    assert net.get_input(0).name == "x"
    assert net.get_output(0).name == neg.get_output(0).name
    assert net.get_input(3) is None and net.get_output(3) is None and net.get_layer(7) is None
    # Layers come back as their interface class, by index, negative index and iteration.
    assert isinstance(net[0], trt.IActivationLayer)
    assert isinstance(net[-1], trt.IUnaryLayer)
    assert isinstance(net.get_layer(1), trt.IUnaryLayer)
    # ILayer.type (IActivationLayer.type is the activation type, as in TensorRT).
    assert [trt.ILayer.type.fget(layer) for layer in net] == [trt.LayerType.ACTIVATION, trt.LayerType.UNARY]
    assert net[0].name == relu.name
    with pytest.raises(IndexError, match="out of range"):
        net[2]
    with pytest.raises(IndexError):
        net[-3]
    with net as same:
        assert same is net


def test_strongly_typed_flag(builder):
    flags = 1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED)
    net = builder.create_network(flags)
    assert net.flags == flags
    assert net.get_flag(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED)


def test_tensor_properties(builder):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (-1, 3, 4))
    assert x.name == "x" and tuple(x.shape) == (-1, 3, 4) and x.dtype == trt.float32
    assert x.is_network_input and not x.is_network_output
    x.name = "renamed"
    assert x.name == "renamed"
    x.shape = (2, 3, 5)
    assert tuple(x.shape) == (2, 3, 5)
    x.shape = [-1, 3, 5]
    assert tuple(x.shape) == (-1, 3, 5)
    x.dtype = trt.float16
    assert x.dtype == trt.float16
    assert x.location == trt.TensorLocation.DEVICE
    assert not x.broadcast_across_batch
    assert x.dynamic_range is None
    assert x.set_dynamic_range(-2.0, 2.0)
    assert x.dynamic_range == (-2.0, 2.0)
    x.dynamic_range = (-1.0, 3.0)
    assert x.dynamic_range == (-1.0, 3.0)
    x.reset_dynamic_range()
    assert x.dynamic_range is None
    with pytest.raises(ValueError, match="min, max"):
        x.dynamic_range = (1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="min must be <= max"):
        x.dynamic_range = (3.0, 1.0)
    with pytest.raises(TypeError, match="pair"):
        x.dynamic_range = "wide"
    assert x.dynamic_range is None
    formats = 1 << int(trt.TensorFormat.LINEAR)
    x.allowed_formats = formats
    assert x.allowed_formats == formats
    assert x.get_dimension_name(0) is None
    x.set_dimension_name(0, "batch")
    assert x.get_dimension_name(0) == "batch"
    x.set_dimension_name(0, None)
    assert x.get_dimension_name(0) is None
    y = net.add_identity(x).get_output(0)
    net.mark_output(y)
    assert y.is_network_output and not y.is_network_input
    assert y.is_execution_tensor and not y.is_shape_tensor
    shape = net.add_shape(x).get_output(0)
    assert shape.dtype == trt.int64 and tuple(shape.shape) == (3,)
    assert "renamed" in repr(x)


def test_mark_unmark_and_remove(builder, logger):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (4,))
    y = net.add_identity(x).get_output(0)
    net.mark_output(y)
    assert net.num_outputs == 1
    net.unmark_output(y)
    assert net.num_outputs == 0 and not y.is_network_output
    unused = net.add_input("unused", trt.float32, (1,))
    assert net.num_inputs == 2
    net.remove_tensor(unused)
    assert net.num_inputs == 1


def test_layers_and_tensors_keep_the_network_alive(builder):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (2, 2))
    layer = net.add_activation(x, trt.ActivationType.SIGMOID)
    out = layer.get_output(0)
    net_ref = weakref.ref(net)
    del net
    gc.collect()
    assert net_ref() is not None, "a layer must keep its network alive"
    del layer, x
    gc.collect()
    assert net_ref() is not None, "a tensor must keep its network alive"
    assert out.dtype == trt.float32
    del out
    gc.collect()
    assert net_ref() is None, "the network is freed once nothing refers to it"


def test_weights_stay_alive_until_the_network_is_deleted(builder, rng):
    net = builder.create_network(0)
    values = rng.standard_normal((3, 4)).astype(np.float32)
    expected = values.copy()
    array_ref = weakref.ref(values)
    const = net.add_constant((3, 4), values)
    del values
    gc.collect()
    assert array_ref() is not None, "the network keeps the weights array alive"
    np.testing.assert_array_equal(const.weights.reshape(3, 4), expected)
    # Non-contiguous and non-float32 inputs are converted (and the converted copy kept).
    strided = rng.standard_normal((4, 6)).astype(np.float32)[:, ::2]
    layer = net.add_constant(strided.shape, strided)
    np.testing.assert_array_equal(layer.weights.reshape(strided.shape), strided)
    # A setter keeps its array alive too.
    new_values = rng.standard_normal(12).astype(np.float32)
    new_ref = weakref.ref(new_values)
    const.weights = new_values
    del new_values
    gc.collect()
    assert new_ref() is not None
    del const, layer, net
    gc.collect()
    assert array_ref() is None and new_ref() is None, "deleting the network releases the weights"


def test_wrong_arguments_raise(builder):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (2, 3))
    with pytest.raises(TypeError):
        net.add_activation(None, trt.ActivationType.RELU)
    with pytest.raises(TypeError):
        net.add_activation(x, "relu")
    with pytest.raises(TypeError):
        net.add_elementwise(x, 3.0, trt.ElementWiseOperation.SUM)
    with pytest.raises(TypeError, match="integers"):
        net.add_input("bad", trt.float32, (2, "a"))
    with pytest.raises(TypeError, match="sequence"):
        net.add_input("bad", trt.float32, 5)
    with pytest.raises(ValueError, match="at most"):
        net.add_input("bad", trt.float32, (1,) * 9)
    with pytest.raises(ValueError, match="None"):
        net.add_concatenation([x, None])
    with pytest.raises(TypeError):
        net.add_concatenation([x, "y"])
    with pytest.raises(TypeError, match="(?i)weights"):
        net.add_constant((2,), {"a": 1})
    with pytest.raises(TypeError, match="data type"):
        net.add_constant((2,), np.array([1.0, 2.0], dtype=np.float64))
    with pytest.raises(TypeError, match="IPluginV3"):
        net.add_plugin_v3([x], [], object())
    with pytest.raises(TypeError, match="IPluginV2"):
        net.add_plugin_v2([x], 42)
    layer = net.add_shuffle(x)
    with pytest.raises(TypeError):
        layer.reshape_dims = 3
    with pytest.raises(ValueError, match="at most"):
        layer.first_transpose = tuple(range(9))
    with pytest.raises(ValueError, match="einsum"):
        net.add_einsum([x], "ij->ij").equation = "ij->->"
    fill = net.add_fill((2, 3), trt.FillOperation.LINSPACE, trt.float32)
    with pytest.raises(TypeError, match="number"):
        fill.alpha = "a"
    with pytest.raises(TypeError, match="number"):
        fill.beta = None
    with pytest.raises(TypeError):
        net.add_resize(x).scales = ["a"]
    with pytest.raises(TypeError, match="Permutation"):
        layer.first_transpose = "ab"
    with pytest.raises(IndexError, match="out of range"):
        trt.Permutation([1, 0])[8]
    assert net.num_layers >= 1


def test_bad_input_index_is_logged_not_raised(builder, logger):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (2, 3))
    layer = net.add_activation(x, trt.ActivationType.RELU)
    logger.clear()
    layer.set_input(5, x)
    assert "out of range" in logger.errors()
    assert layer.num_inputs == 1 and layer.get_input(0).name == "x"


def test_refused_layers_return_none_and_log(builder, logger):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (2, 3))
    logger.clear()
    # Mismatched ranks: Kiln refuses the layer at once or at build time; either way nothing crashes.
    y = net.add_input("y", trt.int32, (2,))
    layer = net.add_elementwise(x, y, trt.ElementWiseOperation.SUM)
    if layer is not None:
        net.mark_output(layer.get_output(0))
        config = builder.create_builder_config()
        assert builder.build_serialized_network(net, config) is None
    assert logger.errors(), "the reason is logged"
    # A quantize layer with a float output type is refused: the add_* returns None with an error naming the API.
    logger.clear()
    scale = net.add_constant((), np.array(0.5, np.float32)).get_output(0)
    assert net.add_quantize(x, scale, trt.float32) is None
    assert "addQuantize" in logger.errors()
    q = net.add_quantize(x, scale, trt.int8)
    assert isinstance(q, trt.IQuantizeLayer)
    assert q.axis == -1 and q.to_type == trt.int8


def test_loops_and_conditionals_bound(builder, logger):
    net = builder.create_network(0)
    loop = net.add_loop()
    cond = net.add_if_conditional()
    if loop is None:
        assert "addLoop" in logger.errors()
    else:
        assert isinstance(loop, trt.ILoop)
        loop.name = "my loop"
        assert loop.name == "my loop"
    if cond is None:
        assert "addIfConditional" in logger.errors()
    else:
        assert isinstance(cond, trt.IIfConditional)
        cond.name = "my if"
        assert cond.name == "my if"


def test_weights_name_and_refit_calls_do_not_crash(builder, logger, rng):
    net = builder.create_network(0)
    values = rng.standard_normal(4).astype(np.float32)
    w = trt.Weights(values)
    const = net.add_constant((4,), w)
    assert const.weights.size == 4
    assert net.set_weights_name(w, "my_weights") in (True, False)
    assert isinstance(net.mark_weights_refittable("my_weights"), bool)
    assert isinstance(net.are_weights_marked_refittable("my_weights"), bool)


def test_plugin_v3_layer_keeps_its_python_plugin_alive(builder, logger):
    plugin_testlib = pytest.importorskip("plugin_testlib")
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (1, 1, 3, 3))
    plugin = plugin_testlib.CircPadV3()
    plugin_ref = weakref.ref(plugin)
    layer = net.add_plugin_v3([x], [], plugin)
    assert layer is not None, logger.errors()
    assert isinstance(layer, trt.IPluginV3Layer)
    assert trt.ILayer.type.fget(layer) == trt.LayerType.PLUGIN_V3
    # The C++ plugin behind the layer (a trt.IPluginV3; not necessarily the same Python object).
    assert isinstance(layer.plugin, trt.IPluginV3)
    del plugin, layer
    gc.collect()
    assert plugin_ref() is not None, "the network keeps the Python plugin alive"
    assert isinstance(net[0], trt.IPluginV3Layer)
    del net, x
    gc.collect()
    assert plugin_ref() is None, "deleting the network releases the plugin"


def _leaf_layer_classes():
    """The layer classes the module binds, without the abstract bases (ILoopBoundaryLayer, ...)."""
    leaves, pending = [], [trt.ILayer]
    while pending:
        cls = pending.pop()
        subclasses = cls.__subclasses__()
        if cls is not trt.ILayer and not subclasses:
            leaves.append(cls)
        pending.extend(subclasses)
    return leaves


def test_every_bound_layer_class_is_the_interface_of_a_kind():
    # _layer_interfaces comes from the one list of layer kinds (src/core/layerKinds.h), like the downcast itself.
    interfaces = _kiln._layer_interfaces
    assert set(interfaces) == set(trt.LayerType.__members__), "the list and the LayerType enum name the same kinds"
    leaves = {cls.__name__ for cls in _leaf_layer_classes()}
    assert len(leaves) >= 40
    missing = leaves - set(interfaces.values())
    assert not missing, f"bound layer classes that no kind downcasts to: {sorted(missing)}"


def test_layers_read_back_from_the_network_are_downcast_to_their_kind(builder, rng):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (1, 3, 4, 4))
    a = net.add_input("a", trt.float32, (2, 3))
    b = net.add_constant((2, 3), rng.standard_normal((2, 3)).astype(np.float32)).get_output(0)
    axes = net.add_constant((1,), np.array([0], np.int32)).get_output(0)
    net.add_convolution_nd(x, 2, (1, 1), rng.standard_normal((2, 3, 1, 1)).astype(np.float32))
    net.add_pooling_nd(x, trt.PoolingType.MAX, (2, 2))
    net.add_activation(x, trt.ActivationType.RELU)
    net.add_lrn(x, 3, 0.1, 0.75, 1.5)
    net.add_softmax(x)
    net.add_elementwise(a, b, trt.ElementWiseOperation.SUM)
    net.add_unary(a, trt.UnaryOperation.EXP)
    net.add_matrix_multiply(a, trt.MatrixOperation.NONE, b, trt.MatrixOperation.TRANSPOSE)
    net.add_reduce(a, trt.ReduceOperation.SUM, 0b10, False)
    net.add_topk(a, trt.TopKOperation.MAX, 2, 0b10)
    net.add_parametric_relu(a, b)
    net.add_einsum([a, b], "ij,ij->i")
    net.add_shuffle(a)
    net.add_slice(a, (0, 1), (2, 2), (1, 1))
    net.add_concatenation([a, b])
    net.add_padding_nd(x, (1, 2), (0, 1))
    net.add_shape(a)
    net.add_unsqueeze(a, axes)
    net.add_identity(a)
    net.add_cast(a, trt.float16)
    net.add_fill((2, 3), trt.FillOperation.LINSPACE, trt.float32)
    net.add_non_zero(a)
    net.add_resize(x)
    interfaces = _kiln._layer_interfaces
    kinds = set()
    for i in range(net.num_layers):
        layer = net[i]
        kind = trt.ILayer.type.fget(layer)  # (IPoolingLayer.type, IActivationLayer.type, ... shadow ILayer.type)
        kinds.add(kind)
        assert type(layer).__name__ == interfaces[kind.name], f"layer {i} ({kind}) is {type(layer).__name__}"
        assert type(net.get_layer(i)) is type(layer)
    assert len(kinds) == 24, sorted(str(k) for k in kinds)
