#!/usr/bin/env python3
"""Peer timing for bench/models/smallCnnBench.cpp: the same small CNN (same layers, shapes and FLOPs) built as
an ONNX model and run by ONNX Runtime's CPU execution provider with as many threads as the machine has cores.

Usage: python3 bench/peers/smallCnnOrt.py [--iterations N]
Prints mean latency (ms) and GFLOP/s for batch 1 and 8, in the same units as kilnBench's smallCnn benchmark.
Needs: pip install onnx onnxruntime numpy
"""
import argparse
import os
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HW = 112
CONVS = [(3, 32, 2), (32, 64, 1), (64, 128, 1)]


def flops(batch):
    total, hw = 0.0, HW
    for i, (cin, cout, stride) in enumerate(CONVS):
        hw = (hw + 2 - 3) // stride + 1
        total += 2.0 * batch * cout * hw * hw * cin * 9
        if i == 1:
            hw //= 2
    return total + 2.0 * batch * 128 * 10


def build_model():
    rng = np.random.default_rng(1)
    nodes, inits = [], []
    x = "image"
    for i, (cin, cout, stride) in enumerate(CONVS):
        w = numpy_helper.from_array(rng.uniform(-0.1, 0.1, (cout, cin, 3, 3)).astype(np.float32), f"w{i}")
        b = numpy_helper.from_array(rng.uniform(-0.1, 0.1, (cout,)).astype(np.float32), f"b{i}")
        inits += [w, b]
        nodes.append(helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [f"c{i}"], kernel_shape=[3, 3],
                                      pads=[1, 1, 1, 1], strides=[stride, stride]))
        nodes.append(helper.make_node("Relu", [f"c{i}"], [f"r{i}"]))
        x = f"r{i}"
        if i == 1:
            nodes.append(helper.make_node("MaxPool", [x], ["p"], kernel_shape=[2, 2], strides=[2, 2]))
            x = "p"
    nodes.append(helper.make_node("ReduceMean", [x], ["gap"], axes=[2, 3], keepdims=0))
    inits.append(numpy_helper.from_array(rng.uniform(-0.1, 0.1, (128, 10)).astype(np.float32), "fcw"))
    inits.append(numpy_helper.from_array(rng.uniform(-0.1, 0.1, (1, 10)).astype(np.float32), "fcb"))
    nodes.append(helper.make_node("MatMul", ["gap", "fcw"], ["fc"]))
    nodes.append(helper.make_node("Add", ["fc", "fcb"], ["logits"]))
    nodes.append(helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1))
    graph = helper.make_graph(
        nodes, "smallCnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, HW, HW])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["N", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # readable by every onnxruntime release that supports opset 17
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args()
    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    session = ort.InferenceSession(build_model().SerializeToString(), options, providers=["CPUExecutionProvider"])
    print(f"onnxruntime {ort.__version__}, {options.intra_op_num_threads} threads")
    for batch in (1, 8):
        image = np.full((batch, 3, HW, HW), 0.5, dtype=np.float32)
        for _ in range(10):
            session.run(None, {"image": image})
        iterations = max(20, args.iterations // batch)
        start = time.perf_counter()
        for _ in range(iterations):
            session.run(None, {"image": image})
        ms = (time.perf_counter() - start) / iterations * 1e3
        print(f"smallCnn/onnxruntime/{batch}: {ms:.3f} ms, {flops(batch) / ms * 1e-6:.1f} GFLOP/s")


if __name__ == "__main__":
    main()
