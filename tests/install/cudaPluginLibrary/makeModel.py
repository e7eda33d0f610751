#!/usr/bin/env python3
"""makeModel.py — writes the tiny ONNX model that runs the CUDA plugin library's two ops through kilnexec:

    x [2, 16, 64] -> KilnSwish(beta=1.5) -> KilnBiasGelu(bias [64], approximate=0) -> y [2, 16, 64]

Both nodes are in domain "kiln_cuda" (the library's plugin namespace) with plugin_version "1"; the bias is an
initializer. Also writes x.bin (raw little-endian FP32 input) and y.bin (the expected output, computed here with
numpy in float64) next to the model, for a check of kilnexec's exported output.

Usage: makeModel.py OUTDIR            (needs the `onnx` and `numpy` Python packages)
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHAPE = [2, 16, 64]
BETA = 1.5


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip())
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(2026)
    bias = rng.uniform(-0.5, 0.5, size=[SHAPE[-1]]).astype(np.float32)
    x = rng.uniform(-3.0, 3.0, size=SHAPE).astype(np.float32)

    swish = helper.make_node("KilnSwish", ["x"], ["s"], name="swish", domain="kiln_cuda", beta=BETA,
                             plugin_version="1")
    gelu = helper.make_node("KilnBiasGelu", ["s", "bias"], ["y"], name="biasGelu", domain="kiln_cuda",
                            approximate=0, plugin_version="1")
    graph = helper.make_graph(
        [swish, gelu], "kilnCudaPlugins",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)],
        initializer=[numpy_helper.from_array(bias, "bias")])
    model = helper.make_model(graph, producer_name="kiln makeModel.py",
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("kiln_cuda", 1)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, "model.onnx"))

    xd = x.astype(np.float64)
    s = xd / (1.0 + np.exp(-BETA * xd))
    t = s + bias.astype(np.float64)
    erf = np.vectorize(math.erf)
    y = 0.5 * t * (1.0 + erf(t / math.sqrt(2.0)))
    x.tofile(os.path.join(out, "x.bin"))
    y.astype(np.float32).tofile(os.path.join(out, "y.bin"))
    print(f"makeModel.py: wrote {out}/model.onnx, x.bin, y.bin")
    return 0


if __name__ == "__main__":
    sys.exit(main())
