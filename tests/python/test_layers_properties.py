"""Property round trips (set -> get) of every layer class that kiln binds, and its enums.

Each test creates a small network, adds one layer through INetworkDefinition.add_*, checks its Python class and
type, sets each property to a non-default value and reads it back.
"""

import numpy as np
import pytest

import kiln as trt


@pytest.fixture
def net(builder):
    """A fresh network of the test's builder."""
    return builder.create_network(0)


def inp(network, name="x", shape=(1, 2, 6, 6), dtype=None):
    """Add a network input."""
    return network.add_input(name, trt.float32 if dtype is None else dtype, shape)


def const_int(network, values, shape=None):
    """An INT32/INT64 constant tensor (values keep their numpy dtype)."""
    values = np.asarray(values)
    return network.add_constant(values.shape if shape is None else shape, values).get_output(0)


def roundtrip(layer, name, value, expected=None):
    """Set ``layer.name = value`` and check it reads back as ``expected`` (default ``value``)."""
    setattr(layer, name, value)
    got = getattr(layer, name)
    want = value if expected is None else expected
    if isinstance(want, tuple):
        got = tuple(got)
    if isinstance(want, float):
        assert got == pytest.approx(want), name
    else:
        assert got == want, name


def check_kind(layer, cls, layer_type):
    """The layer has its interface class and LayerType."""
    assert layer is not None
    assert isinstance(layer, cls)
    assert isinstance(layer, trt.ILayer)
    # IActivationLayer.type and IPoolingLayer.type shadow ILayer.type, as in TensorRT: read the base property.
    assert trt.ILayer.type.fget(layer) == layer_type


def test_enum_members_use_tensorrt_python_names():
    assert trt.ActivationType.RELU != trt.ActivationType.SIGMOID
    assert int(trt.ActivationType.GELU_TANH) == 13
    assert int(trt.ElementWiseOperation.LESS) == 13
    assert int(trt.UnaryOperation.ISNAN) == 24
    assert int(trt.LayerType.CUMULATIVE) == 49
    assert int(trt.SampleMode.REFLECT) == 4
    assert trt.SliceMode is trt.SampleMode
    assert trt.ResizeMode is trt.InterpolationMode
    for enum in (trt.PoolingType, trt.ReduceOperation, trt.MatrixOperation, trt.PaddingMode, trt.ScaleMode,
                 trt.ResizeCoordinateTransformation, trt.ResizeSelector, trt.ResizeRoundMode, trt.FillOperation,
                 trt.GatherMode, trt.ScatterMode, trt.TopKOperation, trt.CumulativeOperation, trt.LoopOutput,
                 trt.TripLimit, trt.BoundingBoxFormat):
        assert len(enum.__members__) >= 1
        assert not any(name.startswith("k") for name in enum.__members__)


def test_convolution_and_deconvolution(net, rng):
    x = inp(net)
    kernel = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    conv = net.add_convolution_nd(x, 4, (3, 3), kernel)
    check_kind(conv, trt.IConvolutionLayer, trt.LayerType.CONVOLUTION)
    assert tuple(conv.kernel_size_nd) == (3, 3)
    np.testing.assert_array_equal(conv.kernel, kernel.ravel())
    assert conv.bias.size == 0
    roundtrip(conv, "num_output_maps", 8)
    roundtrip(conv, "num_groups", 2)
    roundtrip(conv, "stride_nd", (2, 1))
    roundtrip(conv, "dilation_nd", (1, 2))
    roundtrip(conv, "pre_padding", (1, 0))
    roundtrip(conv, "post_padding", (0, 1))
    roundtrip(conv, "padding_nd", (2, 2))
    roundtrip(conv, "padding_mode", trt.PaddingMode.SAME_UPPER)
    roundtrip(conv, "kernel_size_nd", (5, 5))
    bias = rng.standard_normal(8).astype(np.float32)
    conv.bias = bias
    np.testing.assert_array_equal(conv.bias, bias)
    new_kernel = rng.standard_normal(8 * 1 * 5 * 5).astype(np.float32)
    conv.kernel = trt.Weights(new_kernel)
    np.testing.assert_array_equal(conv.kernel, new_kernel)

    deconv = net.add_deconvolution_nd(x, 3, (2, 2), rng.standard_normal((2, 3, 2, 2)).astype(np.float32),
                                      rng.standard_normal(3).astype(np.float32))
    check_kind(deconv, trt.IDeconvolutionLayer, trt.LayerType.DECONVOLUTION)
    assert deconv.bias.size == 3
    roundtrip(deconv, "num_output_maps", 6)
    roundtrip(deconv, "stride_nd", (2, 2))
    roundtrip(deconv, "dilation_nd", (2, 1))
    roundtrip(deconv, "padding_mode", trt.PaddingMode.EXPLICIT_ROUND_UP)


def test_pooling_activation_lrn_scale_softmax(net, rng):
    x = inp(net)
    pool = net.add_pooling_nd(x, trt.PoolingType.MAX, (2, 2))
    check_kind(pool, trt.IPoolingLayer, trt.LayerType.POOLING)
    assert tuple(pool.window_size_nd) == (2, 2)
    roundtrip(pool, "type", trt.PoolingType.AVERAGE)
    roundtrip(pool, "window_size_nd", (3, 3))
    roundtrip(pool, "stride_nd", (2, 2))
    roundtrip(pool, "padding_nd", (1, 1))
    roundtrip(pool, "pre_padding", (1, 0))
    roundtrip(pool, "post_padding", (0, 1))
    roundtrip(pool, "average_count_excludes_padding", False)
    roundtrip(pool, "blend_factor", 0.25)
    roundtrip(pool, "padding_mode", trt.PaddingMode.SAME_LOWER)

    act = net.add_activation(x, trt.ActivationType.LEAKY_RELU)
    check_kind(act, trt.IActivationLayer, trt.LayerType.ACTIVATION)
    assert act.type == trt.ActivationType.LEAKY_RELU
    roundtrip(act, "type", trt.ActivationType.CLIP)
    roundtrip(act, "alpha", -0.5)
    roundtrip(act, "beta", 2.5)

    lrn = net.add_lrn(x, 3, 0.1, 0.75, 1.5)
    check_kind(lrn, trt.ILRNLayer, trt.LayerType.LRN)
    assert (lrn.window_size, lrn.alpha, lrn.beta, lrn.k) == (3, pytest.approx(0.1), 0.75, 1.5)
    roundtrip(lrn, "window_size", 5)
    roundtrip(lrn, "alpha", 0.25)
    roundtrip(lrn, "beta", 0.5)
    roundtrip(lrn, "k", 2.0)

    shift = rng.standard_normal(2).astype(np.float32)
    scale = net.add_scale(x, trt.ScaleMode.CHANNEL, shift=shift)
    check_kind(scale, trt.IScaleLayer, trt.LayerType.SCALE)
    np.testing.assert_array_equal(scale.shift, shift)
    assert scale.scale.size == 0 and scale.power.size == 0
    roundtrip(scale, "mode", trt.ScaleMode.UNIFORM)
    roundtrip(scale, "channel_axis", 2)
    factors = rng.standard_normal(1).astype(np.float32)
    scale.scale = factors
    np.testing.assert_array_equal(scale.scale, factors)
    scale.power = None
    assert scale.power.size == 0
    scale_nd = net.add_scale_nd(x, trt.ScaleMode.CHANNEL, None, factors, None, 1)
    assert scale_nd.channel_axis == 1

    softmax = net.add_softmax(x)
    check_kind(softmax, trt.ISoftMaxLayer, trt.LayerType.SOFTMAX)
    roundtrip(softmax, "axes", 1 << 3)


def test_binary_unary_matmul_reduce_topk(net):
    a = inp(net, "a", (2, 3))
    b = inp(net, "b", (2, 3))
    ew = net.add_elementwise(a, b, trt.ElementWiseOperation.SUM)
    check_kind(ew, trt.IElementWiseLayer, trt.LayerType.ELEMENTWISE)
    roundtrip(ew, "op", trt.ElementWiseOperation.POW)

    un = net.add_unary(a, trt.UnaryOperation.EXP)
    check_kind(un, trt.IUnaryLayer, trt.LayerType.UNARY)
    roundtrip(un, "op", trt.UnaryOperation.SQRT)

    mm = net.add_matrix_multiply(a, trt.MatrixOperation.NONE, b, trt.MatrixOperation.TRANSPOSE)
    check_kind(mm, trt.IMatrixMultiplyLayer, trt.LayerType.MATRIX_MULTIPLY)
    assert (mm.op0, mm.op1) == (trt.MatrixOperation.NONE, trt.MatrixOperation.TRANSPOSE)
    roundtrip(mm, "op0", trt.MatrixOperation.TRANSPOSE)
    roundtrip(mm, "op1", trt.MatrixOperation.NONE)

    red = net.add_reduce(a, trt.ReduceOperation.SUM, 0b10, False)
    check_kind(red, trt.IReduceLayer, trt.LayerType.REDUCE)
    assert (red.axes, red.keep_dims) == (2, False)
    roundtrip(red, "op", trt.ReduceOperation.MAX)
    roundtrip(red, "axes", 1)
    roundtrip(red, "keep_dims", True)

    topk = net.add_topk(a, trt.TopKOperation.MAX, 2, 0b10)
    check_kind(topk, trt.ITopKLayer, trt.LayerType.TOPK)
    assert topk.indices_type == trt.int32
    roundtrip(topk, "op", trt.TopKOperation.MIN)
    roundtrip(topk, "k", 1)
    roundtrip(topk, "axes", 1)
    roundtrip(topk, "indices_type", trt.int64)
    with pytest.raises(ValueError, match="indices_type"):
        topk.indices_type = trt.float32
    topk64 = net.add_topk(a, trt.TopKOperation.MAX, 1, 1, trt.int64)
    assert topk64.indices_type == trt.int64

    prelu = net.add_parametric_relu(a, b)
    check_kind(prelu, trt.IParametricReLULayer, trt.LayerType.PARAMETRIC_RELU)

    ein = net.add_einsum([a, b], "ij,ij->i")
    check_kind(ein, trt.IEinsumLayer, trt.LayerType.EINSUM)
    assert ein.equation == "ij,ij->i"
    roundtrip(ein, "equation", "ij,kj->ik")


def test_cumulative_normalization_grid_sample(net):
    x = inp(net, "x", (2, 3, 4, 4))
    axis = net.add_constant((), np.array(1, dtype=np.int32)).get_output(0)
    cum = net.add_cumulative(x, axis, trt.CumulativeOperation.SUM, False, True)
    check_kind(cum, trt.ICumulativeLayer, trt.LayerType.CUMULATIVE)
    assert (cum.op, cum.exclusive, cum.reverse) == (trt.CumulativeOperation.SUM, False, True)
    roundtrip(cum, "exclusive", True)
    roundtrip(cum, "reverse", False)
    roundtrip(cum, "op", trt.CumulativeOperation.SUM)

    scale = net.add_constant((1, 3, 1, 1), np.ones((1, 3, 1, 1), np.float32)).get_output(0)
    bias = net.add_constant((1, 3, 1, 1), np.zeros((1, 3, 1, 1), np.float32)).get_output(0)
    norm = net.add_normalization(x, scale, bias, 0b1100)
    check_kind(norm, trt.INormalizationLayer, trt.LayerType.NORMALIZATION)
    assert norm.axes == 0b1100 and not norm.is_v2
    roundtrip(norm, "epsilon", 1e-3)
    roundtrip(norm, "axes", 0b1110)
    roundtrip(norm, "num_groups", 3)
    norm2 = net.add_normalization_v2(x, scale, bias, 0b1100)
    assert norm2.is_v2

    grid = inp(net, "grid", (2, 4, 4, 2))
    gs = net.add_grid_sample(x, grid)
    check_kind(gs, trt.IGridSampleLayer, trt.LayerType.GRID_SAMPLE)
    roundtrip(gs, "interpolation_mode", trt.InterpolationMode.NEAREST)
    roundtrip(gs, "align_corners", True)
    roundtrip(gs, "sample_mode", trt.SampleMode.CLAMP)
    with pytest.raises(ValueError, match="sample_mode"):
        gs.sample_mode = trt.SampleMode.WRAP


def test_shuffle_slice_concat_padding_shape(net):
    x = inp(net, "x", (2, 3, 4))
    sh = net.add_shuffle(x)
    check_kind(sh, trt.IShuffleLayer, trt.LayerType.SHUFFLE)
    sh.first_transpose = (2, 0, 1)
    assert sh.first_transpose == (2, 0, 1)
    assert isinstance(sh.first_transpose, trt.Permutation)
    sh.second_transpose = trt.Permutation([1, 0])
    assert sh.second_transpose == [1, 0]
    assert sh.second_transpose[1] == 0 and len(sh.second_transpose) == 8
    roundtrip(sh, "reshape_dims", (4, 6))
    roundtrip(sh, "zero_is_placeholder", False)

    sl = net.add_slice(x, (0, 1, 0), (2, 2, 2), (1, 1, 2))
    check_kind(sl, trt.ISliceLayer, trt.LayerType.SLICE)
    assert tuple(sl.start) == (0, 1, 0) and tuple(sl.shape) == (2, 2, 2) and tuple(sl.stride) == (1, 1, 2)
    roundtrip(sl, "start", (1, 0, 1))
    roundtrip(sl, "shape", (1, 3, 3))
    roundtrip(sl, "stride", (1, 1, 1))
    roundtrip(sl, "mode", trt.SampleMode.WRAP)
    roundtrip(sl, "axes", (0, 1, 2))

    cat = net.add_concatenation([x, x])
    check_kind(cat, trt.IConcatenationLayer, trt.LayerType.CONCATENATION)
    roundtrip(cat, "axis", 2)

    pad = net.add_padding_nd(inp(net, "img", (1, 1, 4, 4)), (1, 2), (0, 1))
    check_kind(pad, trt.IPaddingLayer, trt.LayerType.PADDING)
    assert tuple(pad.pre_padding_nd) == (1, 2) and tuple(pad.post_padding_nd) == (0, 1)
    roundtrip(pad, "pre_padding_nd", (2, 2))
    roundtrip(pad, "post_padding_nd", (1, 1))

    check_kind(net.add_shape(x), trt.IShapeLayer, trt.LayerType.SHAPE)
    axes = const_int(net, np.array([0], np.int64))
    check_kind(net.add_unsqueeze(x, axes), trt.IUnsqueezeLayer, trt.LayerType.UNSQUEEZE)
    one = inp(net, "one", (1, 3))
    check_kind(net.add_squeeze(one, axes), trt.ISqueezeLayer, trt.LayerType.SQUEEZE)


def test_constant_identity_cast_fill(net, rng):
    values = rng.standard_normal((2, 3)).astype(np.float32)
    const = net.add_constant((2, 3), values)
    check_kind(const, trt.IConstantLayer, trt.LayerType.CONSTANT)
    np.testing.assert_array_equal(const.weights, values.ravel())
    assert tuple(const.shape) == (2, 3)
    roundtrip(const, "shape", (3, 2))
    ints = rng.integers(-5, 5, 6).astype(np.int32)
    const.weights = ints
    assert const.weights.dtype == np.int32
    np.testing.assert_array_equal(const.weights, ints)

    x = const.get_output(0)
    check_kind(net.add_identity(x), trt.IIdentityLayer, trt.LayerType.IDENTITY)
    cast = net.add_cast(x, trt.float16)
    check_kind(cast, trt.ICastLayer, trt.LayerType.CAST)
    roundtrip(cast, "to_type", trt.int32)

    fill = net.add_fill((2, 3), trt.FillOperation.LINSPACE, trt.float32)
    check_kind(fill, trt.IFillLayer, trt.LayerType.FILL)
    assert fill.to_type == trt.float32
    roundtrip(fill, "shape", (4, 5))
    roundtrip(fill, "operation", trt.FillOperation.RANDOM_UNIFORM)
    roundtrip(fill, "alpha", -1.5)
    roundtrip(fill, "beta", 2.5)
    assert not fill.is_alpha_beta_int64
    fill64 = net.add_fill((3,), trt.FillOperation.LINSPACE, trt.int64)
    fill64.alpha = 7
    fill64.beta = 3
    assert fill64.is_alpha_beta_int64
    assert (fill64.alpha, fill64.beta) == (7, 3)
    roundtrip(fill64, "to_type", trt.int64)


def test_indexing_layers(net):
    data = inp(net, "data", (3, 4))
    idx = inp(net, "idx", (2,), trt.int32)
    g = net.add_gather(data, idx, 1)
    check_kind(g, trt.IGatherLayer, trt.LayerType.GATHER)
    assert g.axis == 1 and g.mode == trt.GatherMode.DEFAULT
    roundtrip(g, "axis", 0)
    roundtrip(g, "num_elementwise_dims", 1)
    roundtrip(g, "mode", trt.GatherMode.ELEMENT)
    g2 = net.add_gather_v2(data, inp(net, "idx2", (3, 4), trt.int32), trt.GatherMode.ELEMENT)
    assert g2.mode == trt.GatherMode.ELEMENT

    upd = inp(net, "upd", (3, 4))
    sc = net.add_scatter(data, inp(net, "sidx", (3, 4), trt.int32), upd, trt.ScatterMode.ELEMENT)
    check_kind(sc, trt.IScatterLayer, trt.LayerType.SCATTER)
    roundtrip(sc, "axis", 1)
    roundtrip(sc, "mode", trt.ScatterMode.ND)

    values = net.add_constant((2,), np.array([0.0, 1.0], np.float32)).get_output(0)
    depth = net.add_constant((), np.array(5, np.int32)).get_output(0)
    oh = net.add_one_hot(idx, values, depth, -1)
    check_kind(oh, trt.IOneHotLayer, trt.LayerType.ONE_HOT)
    roundtrip(oh, "axis", 0)

    nz = net.add_non_zero(data)
    check_kind(nz, trt.INonZeroLayer, trt.LayerType.NON_ZERO)
    assert nz.indices_type == trt.int32
    roundtrip(nz, "indices_type", trt.int64)

    boxes = inp(net, "boxes", (1, 5, 4))
    scores = inp(net, "scores", (1, 2, 5))
    max_out = net.add_constant((), np.array(3, np.int32)).get_output(0)
    nms = net.add_nms(boxes, scores, max_out)
    check_kind(nms, trt.INMSLayer, trt.LayerType.NMS)
    roundtrip(nms, "bounding_box_format", trt.BoundingBoxFormat.CENTER_SIZES)
    roundtrip(nms, "topk_box_limit", 100)
    roundtrip(nms, "indices_type", trt.int64)
    with pytest.raises(ValueError):
        nms.indices_type = trt.float32

    lens = inp(net, "lens", (4,), trt.int32)
    rs = net.add_reverse_sequence(data, lens)
    check_kind(rs, trt.IReverseSequenceLayer, trt.LayerType.REVERSE_SEQUENCE)
    roundtrip(rs, "batch_axis", 0)
    roundtrip(rs, "sequence_axis", 1)

    cond = inp(net, "cond", (3, 4), trt.bool)
    sel = net.add_select(cond, data, upd)
    check_kind(sel, trt.ISelectLayer, trt.LayerType.SELECT)

    shape_ok = net.add_constant((1,), np.array([1], np.bool_)).get_output(0)
    asrt = net.add_assertion(shape_ok, "must hold")
    check_kind(asrt, trt.IAssertionLayer, trt.LayerType.ASSERTION)
    assert asrt.message == "must hold"
    roundtrip(asrt, "message", "other message")


def test_resize(net):
    x = inp(net, "x", (1, 1, 4, 4))
    rz = net.add_resize(x)
    check_kind(rz, trt.IResizeLayer, trt.LayerType.RESIZE)
    roundtrip(rz, "shape", (1, 1, 8, 6))
    rz.scales = [1.0, 1.0, 2.0, 1.5]
    assert rz.scales == pytest.approx([1.0, 1.0, 2.0, 1.5])
    roundtrip(rz, "resize_mode", trt.InterpolationMode.LINEAR)
    roundtrip(rz, "coordinate_transformation", trt.ResizeCoordinateTransformation.HALF_PIXEL)
    roundtrip(rz, "selector_for_single_pixel", trt.ResizeSelector.UPPER)
    roundtrip(rz, "nearest_rounding", trt.ResizeRoundMode.CEIL)
    roundtrip(rz, "cubic_coeff", -0.5)
    roundtrip(rz, "exclude_outside", True)


def test_layer_base_properties(net):
    x = inp(net, "x", (2, 3))
    layer = net.add_activation(x, trt.ActivationType.RELU)
    roundtrip(layer, "name", "my_relu")
    roundtrip(layer, "metadata", "note: 1")
    assert layer.num_inputs == 1 and layer.num_outputs == 1
    assert layer.get_input(0) is x or layer.get_input(0).name == "x"
    assert layer.get_input(1) is None
    assert layer.get_output(5) is None
    assert not layer.precision_is_set
    layer.precision = trt.float16
    assert layer.precision == trt.float16 and layer.precision_is_set
    layer.reset_precision()
    assert not layer.precision_is_set
    assert not layer.output_type_is_set(0)
    layer.set_output_type(0, trt.float16)
    assert layer.output_type_is_set(0) and layer.get_output_type(0) == trt.float16
    layer.reset_output_type(0)
    assert not layer.output_type_is_set(0)
    y = inp(net, "y", (2, 3))
    layer.set_input(0, y)
    assert layer.get_input(0).name == "y"
