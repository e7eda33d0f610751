"""Networks built with the Python network API, run on the CPU and compared with numpy references on random data.

Covers elementwise/unary/activation, matrix multiply, convolution + pooling, shuffle/slice/concatenation/gather,
reduce/softmax/top-k, constants whose arrays were dropped before the build, and a dynamic-shape network run at
two shapes of one optimization profile. Outputs are poisoned (NaN) before every run.
"""

import gc

import numpy as np
import pytest

import kiln as trt
from network_util import EngineRunner, mark


def sigmoid(v):
    """numpy sigmoid."""
    return 1.0 / (1.0 + np.exp(-v))


def test_elementwise_unary_activation(builder, logger, rng):
    net = builder.create_network(0)
    shape = (2, 3, 4)
    a = net.add_input("a", trt.float32, shape)
    b = net.add_input("b", trt.float32, shape)
    ops = {
        "sum": trt.ElementWiseOperation.SUM,
        "prod": trt.ElementWiseOperation.PROD,
        "max": trt.ElementWiseOperation.MAX,
        "sub": trt.ElementWiseOperation.SUB,
        "div": trt.ElementWiseOperation.DIV,
    }
    for name, op in ops.items():
        mark(net, net.add_elementwise(a, b, op).get_output(0), name)
    mark(net, net.add_unary(a, trt.UnaryOperation.EXP).get_output(0), "exp")
    mark(net, net.add_unary(a, trt.UnaryOperation.ABS).get_output(0), "abs")
    mark(net, net.add_activation(a, trt.ActivationType.SIGMOID).get_output(0), "sigmoid")
    leaky = net.add_activation(a, trt.ActivationType.LEAKY_RELU)
    leaky.alpha = 0.125
    mark(net, leaky.get_output(0), "leaky")
    clip = net.add_activation(a, trt.ActivationType.CLIP)
    clip.alpha, clip.beta = -0.5, 0.75
    mark(net, clip.get_output(0), "clip")

    runner = EngineRunner(builder, net, logger)
    av = rng.standard_normal(shape).astype(np.float32)
    bv = (rng.random(shape).astype(np.float32) + 0.5) * rng.choice([-1.0, 1.0], shape).astype(np.float32)
    out = runner.run(a=av, b=bv)
    np.testing.assert_allclose(out["sum"], av + bv, rtol=1e-6)
    np.testing.assert_allclose(out["prod"], av * bv, rtol=1e-6)
    np.testing.assert_allclose(out["max"], np.maximum(av, bv))
    np.testing.assert_allclose(out["sub"], av - bv, rtol=1e-6)
    np.testing.assert_allclose(out["div"], av / bv, rtol=1e-5)
    np.testing.assert_allclose(out["exp"], np.exp(av), rtol=1e-5)
    np.testing.assert_allclose(out["abs"], np.abs(av))
    np.testing.assert_allclose(out["sigmoid"], sigmoid(av), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["leaky"], np.where(av >= 0, av, 0.125 * av), rtol=1e-6)
    np.testing.assert_allclose(out["clip"], np.clip(av, -0.5, 0.75))


def test_matrix_multiply(builder, logger, rng):
    net = builder.create_network(0)
    a = net.add_input("a", trt.float32, (2, 3, 4))
    b = net.add_input("b", trt.float32, (2, 5, 4))
    mm = net.add_matrix_multiply(a, trt.MatrixOperation.NONE, b, trt.MatrixOperation.TRANSPOSE)
    mark(net, mm.get_output(0), "ab_t")
    weights = rng.standard_normal((1, 4, 6)).astype(np.float32)
    w = net.add_constant(weights.shape, weights).get_output(0)
    mark(net, net.add_matrix_multiply(a, trt.MatrixOperation.NONE, w, trt.MatrixOperation.NONE).get_output(0), "aw")

    runner = EngineRunner(builder, net, logger)
    av = rng.standard_normal((2, 3, 4)).astype(np.float32)
    bv = rng.standard_normal((2, 5, 4)).astype(np.float32)
    out = runner.run(a=av, b=bv)
    np.testing.assert_allclose(out["ab_t"], av @ bv.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["aw"], av @ weights, rtol=1e-5, atol=1e-5)


def conv2d_reference(x, kernel, bias, pad):
    """Direct NCHW cross-correlation with symmetric zero padding and stride 1."""
    n, c, h, w = x.shape
    k, _, r, s = kernel.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - r + 1, w + 2 * pad - s + 1
    out = np.zeros((n, k, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i:i + r, j:j + s]
            out[:, :, i, j] = np.tensordot(patch, kernel, axes=([1, 2, 3], [1, 2, 3]))
    return out + bias.reshape(1, k, 1, 1)


def test_convolution_and_pooling(builder, logger, rng):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (1, 2, 6, 6))
    kernel = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    conv = net.add_convolution_nd(x, 3, (3, 3), kernel, bias)
    conv.padding_nd = (1, 1)
    mark(net, conv.get_output(0), "conv")
    pool = net.add_pooling_nd(conv.get_output(0), trt.PoolingType.MAX, (2, 2))
    pool.stride_nd = (2, 2)
    mark(net, pool.get_output(0), "pool")
    avg = net.add_pooling_nd(x, trt.PoolingType.AVERAGE, (3, 3))
    avg.stride_nd = (3, 3)
    mark(net, avg.get_output(0), "avg")
    # The arrays passed to add_convolution_nd may go away before the build.
    kernel_ref, bias_ref = kernel.copy(), bias.copy()
    del kernel, bias
    gc.collect()

    runner = EngineRunner(builder, net, logger)
    xv = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    out = runner.run(x=xv)
    ref = conv2d_reference(xv.astype(np.float64), kernel_ref, bias_ref, 1)
    np.testing.assert_allclose(out["conv"], ref, rtol=1e-4, atol=1e-4)
    pooled = ref.reshape(1, 3, 3, 2, 3, 2).max(axis=(3, 5))
    np.testing.assert_allclose(out["pool"], pooled, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out["avg"], xv.reshape(1, 2, 2, 3, 2, 3).mean(axis=(3, 5)), rtol=1e-5, atol=1e-6)


def test_shuffle_slice_concat_gather(builder, logger, rng):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (2, 3, 4))
    sh = net.add_shuffle(x)
    sh.first_transpose = (2, 0, 1)
    sh.reshape_dims = (4, 6)
    mark(net, sh.get_output(0), "shuffle")
    sl = net.add_slice(x, (0, 1, 0), (2, 2, 2), (1, 1, 2))
    mark(net, sl.get_output(0), "slice")
    y = net.add_input("y", trt.float32, (2, 1, 4))
    cat = net.add_concatenation([x, y])
    cat.axis = 1
    mark(net, cat.get_output(0), "concat")
    indices = np.array([3, 0, 2], np.int32)
    idx = net.add_constant(indices.shape, indices).get_output(0)
    mark(net, net.add_gather(x, idx, 2).get_output(0), "gather")
    four_d = net.add_shuffle(x)
    four_d.reshape_dims = (1, 2, 3, 4)
    pad = net.add_padding_nd(four_d.get_output(0), (1, 0), (0, 2))
    mark(net, pad.get_output(0), "pad")

    runner = EngineRunner(builder, net, logger)
    xv = rng.standard_normal((2, 3, 4)).astype(np.float32)
    yv = rng.standard_normal((2, 1, 4)).astype(np.float32)
    out = runner.run(x=xv, y=yv)
    np.testing.assert_array_equal(out["shuffle"], xv.transpose(2, 0, 1).reshape(4, 6))
    np.testing.assert_array_equal(out["slice"], xv[0:2, 1:3, 0:4:2])
    np.testing.assert_array_equal(out["concat"], np.concatenate([xv, yv], axis=1))
    np.testing.assert_array_equal(out["gather"], xv[:, :, indices])
    np.testing.assert_array_equal(out["pad"], np.pad(xv.reshape(1, 2, 3, 4), ((0, 0), (0, 0), (1, 0), (0, 2))))


def test_reduce_softmax_topk(builder, logger, rng):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (2, 3, 5))
    mark(net, net.add_reduce(x, trt.ReduceOperation.SUM, 0b010, True).get_output(0), "sum")
    mark(net, net.add_reduce(x, trt.ReduceOperation.MAX, 0b101, False).get_output(0), "max")
    sm = net.add_softmax(x)
    sm.axes = 1 << 2
    mark(net, sm.get_output(0), "softmax")
    topk = net.add_topk(x, trt.TopKOperation.MAX, 2, 1 << 2)
    mark(net, topk.get_output(0), "values")
    mark(net, topk.get_output(1), "indices")

    runner = EngineRunner(builder, net, logger)
    xv = rng.standard_normal((2, 3, 5)).astype(np.float32)
    out = runner.run(x=xv)
    np.testing.assert_allclose(out["sum"], xv.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["max"], xv.max(axis=(0, 2)))
    e = np.exp(xv - xv.max(axis=2, keepdims=True))
    np.testing.assert_allclose(out["softmax"], e / e.sum(axis=2, keepdims=True), rtol=1e-5, atol=1e-6)
    order = np.argsort(-xv, axis=2, kind="stable")[:, :, :2]
    np.testing.assert_array_equal(out["indices"], order)
    np.testing.assert_allclose(out["values"], np.take_along_axis(xv, order, axis=2))


def test_dynamic_shape_profile_two_shapes(builder, logger, rng):
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (-1, 4))
    scale = rng.standard_normal((1, 4)).astype(np.float32)
    s = net.add_constant(scale.shape, scale).get_output(0)
    relu = net.add_activation(x, trt.ActivationType.RELU)
    prod = net.add_elementwise(relu.get_output(0), s, trt.ElementWiseOperation.PROD)
    mark(net, prod.get_output(0), "y")
    total = net.add_reduce(x, trt.ReduceOperation.SUM, 0b01, False)
    mark(net, total.get_output(0), "colsum")
    runner = EngineRunner(builder, net, logger, profiles={"x": ((1, 4), (3, 4), (8, 4))})
    for rows in (2, 7):
        xv = rng.standard_normal((rows, 4)).astype(np.float32)
        out = runner.run(x=xv)
        assert out["y"].shape == (rows, 4)
        np.testing.assert_allclose(out["y"], np.maximum(xv, 0) * scale, rtol=1e-6)
        np.testing.assert_allclose(out["colsum"], xv.sum(axis=0), rtol=1e-5, atol=1e-6)


def test_network_from_python_lists_and_layer_iteration(builder, logger, rng):
    """Layers found again through network[i] are usable like the ones add_* returned."""
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (3, 3))
    net.add_activation(x, trt.ActivationType.RELU)
    layer = net[0]
    assert isinstance(layer, trt.IActivationLayer)
    layer.type = trt.ActivationType.TANH
    mark(net, layer.get_output(0), "y")
    runner = EngineRunner(builder, net, logger)
    xv = rng.standard_normal((3, 3)).astype(np.float32)
    np.testing.assert_allclose(runner.run(x=xv)["y"], np.tanh(xv), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_constant_output_types(builder, logger, rng, dtype):
    net = builder.create_network(0)
    values = (rng.standard_normal((2, 5)) * 10).astype(dtype)
    const = net.add_constant(values.shape, values)
    x = net.add_input("x", trt.float32 if dtype == np.float32 else trt.int32, (2, 5))
    mark(net, net.add_elementwise(x, const.get_output(0), trt.ElementWiseOperation.SUM).get_output(0), "y")
    runner = EngineRunner(builder, net, logger)
    xv = (rng.standard_normal((2, 5)) * 10).astype(dtype)
    np.testing.assert_array_equal(runner.run(x=xv)["y"], xv + values)
