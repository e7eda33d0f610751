#!/usr/bin/env python3
"""Writes the ONNX models of the Kiln-vs-ONNX-Runtime CPU comparison, with random weights (fixed seed) and a dynamic
batch dimension:

  cnn.onnx      ResNet-style CNN: stem conv + 3 stages of two residual blocks (Conv-Relu-Conv + skip), max pool,
                global average pool, Gemm classifier. Input "image" [batch, 3, 112, 112].
  mlp.onnx      MLP 784-1024-1024-512-10 with Relu (MatMul + Add). Input "features" [batch, 784].
  encoder.onnx  Transformer encoder: 4 layers, d_model 256, 4 heads, FFN 1024, sequence 128, LayerNormalization,
                Softmax attention, GELU written with Erf. Input "tokens" [batch, 128, 256].
  resnet50.onnx ResNet-50's layer structure (torchvision v1.5, batch norm folded into the convolutions' biases):
                7x7/2 stem, max pool, bottleneck stages of 3-4-6-3 blocks (1x1, 3x3 with the stride, 1x1 x4; projection
                shortcut on each stage's first block), global average pool, Gemm 2048-1000.
                Input "image" [batch, 3, 224, 224].
  bert.onnx     BERT-base's encoder stack, the encoder above at 12 layers, hidden 768, 12 heads, FFN 3072, sequence
                128 (no attention mask, as the encoder has none). Input "tokens" [batch, 128, 768] (the embeddings).

Usage: python3 bench/onnx/makeModels.py OUTPUT_DIR [NAME ...]     (needs: pip install onnx numpy)
With names, only those models are written (the large ones take a while: BERT-base's weights are 340 MB).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
SEED = 2026


class Graph:
    """One model under construction; its weights come from its own generator (seeded by the model's name), so a
    model's weights do not depend on which other models are written."""

    def __init__(self, name):
        self.nodes, self.inits, self.count = [], [], 0
        self.rng = np.random.default_rng([SEED] + [ord(c) for c in name])

    def name(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def weight(self, shape, scale):
        n = self.name("w")
        self.inits.append(numpy_helper.from_array(self.rng.uniform(-scale, scale, shape).astype(np.float32), n))
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


def conv(g, x, cin, cout, stride=1, relu=True, kernel=3, gain=2.0):
    pad = kernel // 2
    y = g.op("Conv", [x, g.weight((cout, cin, kernel, kernel), (gain / (cin * kernel * kernel)) ** 0.5),
                      g.weight((cout,), 0.05)],
             kernel_shape=[kernel, kernel], pads=[pad] * 4, strides=[stride, stride])
    return g.op("Relu", [y]) if relu else y


def cnn():
    g = Graph("cnn")
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
    g = Graph("mlp")
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


def resnet50():
    g = Graph("resnet50")
    x = conv(g, "image", 3, 64, stride=2, kernel=7)
    x = g.op("MaxPool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for block in range(blocks):
            s = stride if block == 0 else 1
            y = conv(g, x, cin, width, kernel=1)
            y = conv(g, y, width, width, stride=s, kernel=3)
            # The last convolution of a block starts small (as zero-initialised batch norm scales do), so that the
            # residual sums of 16 blocks keep the activations in range.
            y = conv(g, y, width, width * 4, relu=False, kernel=1, gain=0.1)
            skip = x if block > 0 else conv(g, x, cin, width * 4, stride=s, relu=False, kernel=1, gain=1.0)
            x = g.op("Relu", [g.op("Add", [y, skip])])
            cin = width * 4
    x = g.op("GlobalAveragePool", [x])
    x = g.op("Flatten", [x], axis=1)
    x = g.op("Gemm", [x, g.weight((1000, 2048), (3.0 / 2048) ** 0.5), g.weight((1000,), 0.1)], transB=1)
    inp = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 224, 224])
    out = helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", 1000])
    return g.model(inp, out, "resnet50")


def encoder(layers=4, d=256, heads=4, ffn=1024, seq=128, name="encoder"):
    g = Graph(name)
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
    return g.model(inp, out, name)


def bert():
    return encoder(layers=12, d=768, heads=12, ffn=3072, seq=128, name="bert")


BUILDERS = {"cnn": cnn, "mlp": mlp, "encoder": encoder, "resnet50": resnet50, "bert": bert}


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    names = sys.argv[2:] or list(BUILDERS)
    unknown = [n for n in names if n not in BUILDERS]
    if unknown:
        print(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(BUILDERS)}", file=sys.stderr)
        return 2
    os.makedirs(sys.argv[1], exist_ok=True)
    for name in names:
        path = os.path.join(sys.argv[1], name + ".onnx")
        onnx.save(BUILDERS[name](), path)
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
