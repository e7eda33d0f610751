#!/usr/bin/env python3
"""Writes the three ONNX models of the Kiln-vs-ONNX-Runtime CPU comparison, with random weights (fixed seed) and a
dynamic batch dimension:

  cnn.onnx      ResNet-style CNN: stem conv + 3 stages of two residual blocks (Conv-Relu-Conv + skip), max pool,
                global average pool, Gemm classifier. Input "image" [batch, 3, 112, 112].
  mlp.onnx      MLP 784-1024-1024-512-10 with Relu (MatMul + Add). Input "features" [batch, 784].
  encoder.onnx  Transformer encoder: 4 layers, d_model 256, 4 heads, FFN 1024, sequence 128, LayerNormalization,
                Softmax attention, GELU written with Erf. Input "tokens" [batch, 128, 256].

Usage: python3 bench/onnx/makeModels.py OUTPUT_DIR     (needs: pip install onnx numpy)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
RNG = np.random.default_rng(2026)


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def weight(self, shape, scale):
        n = self.name("w")
        self.inits.append(numpy_helper.from_array(RNG.uniform(-scale, scale, shape).astype(np.float32), n))
        return n

    def const(self, values, dtype=np.int64):
        n = self.name("c")
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=dtype), n))
        return n

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def model(self, inp, out, name):
        graph = helper.make_graph(self.nodes, name, [inp], [out], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=8)
        onnx.checker.check_model(model)
        return model


def conv(g, x, cin, cout, stride=1, relu=True):
    y = g.op("Conv", [x, g.weight((cout, cin, 3, 3), (2.0 / (cin * 9)) ** 0.5), g.weight((cout,), 0.05)],
             kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[stride, stride])
    return g.op("Relu", [y]) if relu else y


def cnn():
    g = Graph()
    x = conv(g, "image", 3, 32, stride=2)
    x = g.op("MaxPool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])
    cin = 32
    for cout, stride in ((32, 1), (64, 2), (128, 2)):
        for block in range(2):
            s = stride if block == 0 else 1
            y = conv(g, x, cin, cout, stride=s)
            y = conv(g, y, cout, cout, relu=False)
            skip = x if (s == 1 and cin == cout) else conv(g, x, cin, cout, stride=s, relu=False)
            x = g.op("Relu", [g.op("Add", [y, skip])])
            cin = cout
    x = g.op("GlobalAveragePool", [x])
    x = g.op("Flatten", [x], axis=1)
    x = g.op("Gemm", [x, g.weight((10, 128), 0.1), g.weight((10,), 0.1)], transB=1)
    inp = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 112, 112])
    out = helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", 10])
    return g.model(inp, out, "cnn")


def mlp():
    g = Graph()
    x = "features"
    sizes = [784, 1024, 1024, 512, 10]
    for i in range(len(sizes) - 1):
        x = g.op("MatMul", [x, g.weight((sizes[i], sizes[i + 1]), (1.0 / sizes[i]) ** 0.5)])
        x = g.op("Add", [x, g.weight((sizes[i + 1],), 0.05)])
        if i < len(sizes) - 2:
            x = g.op("Relu", [x])
    inp = helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 784])
    out = helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", 10])
    return g.model(inp, out, "mlp")


def encoder(layers=4, d=256, heads=4, ffn=1024, seq=128):
    g = Graph()
    x = "tokens"
    hd = d // heads
    split_heads = g.const([0, seq, heads, hd])
    merge_heads = g.const([0, seq, d])
    scale = g.const([1.0 / hd ** 0.5], np.float32)
    sqrt2 = g.const([2.0 ** 0.5], np.float32)
    one = g.const([1.0], np.float32)
    half = g.const([0.5], np.float32)

    def linear(v, fin, fout):
        return g.op("Add", [g.op("MatMul", [v, g.weight((fin, fout), (1.0 / fin) ** 0.5)]), g.weight((fout,), 0.02)])

    def norm(v):
        return g.op("LayerNormalization", [v, g.weight((d,), 1.0), g.weight((d,), 0.1)], axis=-1, epsilon=1e-5)

    for _ in range(layers):
        qkv = []
        for _ in range(3):
            t = g.op("Reshape", [linear(x, d, d), split_heads])
            qkv.append(g.op("Transpose", [t], perm=[0, 2, 1, 3]))
        q, k, v = qkv
        kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
        scores = g.op("Mul", [g.op("MatMul", [q, kt]), scale])
        attn = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        attn = g.op("Reshape", [g.op("Transpose", [attn], perm=[0, 2, 1, 3]), merge_heads])
        x = norm(g.op("Add", [x, linear(attn, d, d)]))
        h = linear(x, d, ffn)
        gelu = g.op("Mul", [g.op("Mul", [h, half]), g.op("Add", [g.op("Erf", [g.op("Div", [h, sqrt2])]), one])])
        x = norm(g.op("Add", [x, linear(gelu, ffn, d)]))
    inp = helper.make_tensor_value_info("tokens", TensorProto.FLOAT, ["batch", seq, d])
    out = helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", seq, d])
    return g.model(inp, out, "encoder")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, build in (("cnn", cnn), ("mlp", mlp), ("encoder", encoder)):
        path = os.path.join(sys.argv[1], name + ".onnx")
        onnx.save(build(), path)
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
