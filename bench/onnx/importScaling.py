#!/usr/bin/env python3
"""Import scaling: how the time to parse an ONNX model and build its engine on the CPU backend grows with the
model's size (issue 13: 10,000 nodes under 10 s, time linear in depth).

The script writes ONNX models of about N nodes each: a deep stack of transformer-like blocks over an input
"tokens" [batch, seq, D] whose batch and sequence are dynamic. Each block (about 50 nodes) has
  - LayerNormalization, MatMul + Add for a fused QKV projection;
  - shape arithmetic: Shape -> Gather (batch, seq) -> Unsqueeze -> Concat -> Reshape to [batch, seq, 3, H, D/H],
    with D/H computed by Div from the Shape of the input;
  - Slice (q, k, v along axis 2, and a Slice of the sequence axis whose end comes from the Shape), Squeeze,
    Transpose;
  - attention: MatMul q.k^T, Mul by the scale, Softmax, MatMul with v, Transpose back, Reshape to
    [batch, seq, D] through a Concat of the gathered dimensions;
  - output projection and residual Add, then LayerNormalization, a feed-forward MatMul/Add/Relu/MatMul/Add and a
    second residual Add.
Weights are random (fixed seed) and distinct per block, as in a real export.

Each model is imported and built by `kilnexec --onnx=MODEL --backend=cpu --skipInference --saveEngine=...` with a
dynamic-shape profile (--minShapes/--optShapes/--maxShapes). kilnexec prints the parser's time ("Parse time") and
the builder's time ("Engine built in"), measured around `IParser::parseFromFile` and
`IBuilder::buildSerializedNetwork` only; the script reports both, their sum, and the whole process's wall time and
CPU time (user + system; it adds start-up, reading the model file and writing the engine, and unlike wall time it
does not grow when other processes share the machine). Each size runs --repeat times; the table shows the median.

Usage: python3 bench/onnx/importScaling.py --kilnexec build/bin/kilnexec [--nodes 1000,5000,10000]
           [--repeat 3] [--workdir DIR] [--markdown FILE] [--keep]
Needs: pip install onnx numpy
"""
import argparse
import datetime
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
HIDDEN = 32       # D
HEADS = 4         # H
FFN = 64          # feed-forward width
PROFILE = {"min": (1, 1), "opt": (2, 16), "max": (4, 64)}  # (batch, seq)


class Builder:
    """Accumulates nodes and initializers with unique names."""

    def __init__(self, seed):
        self.nodes, self.inits, self.count = [], [], 0
        self.rng = np.random.default_rng(seed)

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, shape):
        n = self.name("w")
        scale = 1.0 / np.sqrt(shape[0])
        self.inits.append(numpy_helper.from_array(self.rng.uniform(-scale, scale, shape).astype(np.float32), n))
        return n

    def const(self, values, dtype=np.int64):
        n = self.name("c")
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=dtype), n))
        return n

    def op(self, op_type, inputs, nb_outputs=1, **attrs):
        outs = [self.name(op_type.lower()) for _ in range(nb_outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=self.name("n_" + op_type), **attrs))
        return outs[0] if nb_outputs == 1 else outs


def block(g, x):
    """One transformer-like block on x [batch, seq, D]; returns its output (same shape)."""
    d, h = HIDDEN, HEADS
    ln1 = g.op("LayerNormalization", [x, g.weight((d,)), g.weight((d,))], axis=-1, epsilon=1e-5)
    qkv = g.op("Add", [g.op("MatMul", [ln1, g.weight((d, 3 * d))]), g.weight((3 * d,))])

    # Shape arithmetic: batch and seq from the input's shape; the head size from D / H.
    shape = g.op("Shape", [x])
    batch = g.op("Unsqueeze", [g.op("Gather", [shape, g.const(0)], axis=0), g.const([0])])
    seq = g.op("Unsqueeze", [g.op("Gather", [shape, g.const(1)], axis=0), g.const([0])])
    width = g.op("Gather", [shape, g.const([2])], axis=0)
    head = g.op("Div", [width, g.const([h])])
    qkv5 = g.op("Reshape", [qkv, g.op("Concat", [batch, seq, g.const([3, h]), head], axis=0)])

    # q, k, v: slices of axis 2, squeezed and moved to [batch, H, seq, D/H] (k as [batch, H, D/H, seq]).
    parts = []
    for i, perm in enumerate(([0, 2, 1, 3], [0, 2, 3, 1], [0, 2, 1, 3])):
        part = g.op("Slice", [qkv5, g.const([i]), g.const([i + 1]), g.const([2])])
        part = g.op("Squeeze", [part, g.const([2])])
        parts.append(g.op("Transpose", [part], perm=perm))
    q, k, v = parts
    scores = g.op("Mul", [g.op("MatMul", [q, k]), g.const([1.0 / np.sqrt(d // h)], np.float32)])
    attn = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
    merged = g.op("Reshape", [g.op("Transpose", [attn], perm=[0, 2, 1, 3]),
                              g.op("Concat", [batch, seq, width], axis=0)])
    # A slice of the sequence axis whose end is the sequence length itself (all of it, computed at run time).
    merged = g.op("Slice", [merged, g.const([0]), seq, g.const([1])])
    x = g.op("Add", [x, g.op("Add", [g.op("MatMul", [merged, g.weight((d, d))]), g.weight((d,))])])

    ln2 = g.op("LayerNormalization", [x, g.weight((d,)), g.weight((d,))], axis=-1, epsilon=1e-5)
    ff = g.op("Relu", [g.op("Add", [g.op("MatMul", [ln2, g.weight((d, FFN))]), g.weight((FFN,))])])
    ff = g.op("Add", [g.op("MatMul", [ff, g.weight((FFN, d))]), g.weight((d,))])
    return g.op("Add", [x, ff])


def nodes_per_block():
    g = Builder(0)
    block(g, "x")
    return len(g.nodes)


def make_model(target_nodes, seed=2026):
    """A model of about target_nodes nodes (whole blocks); returns (model, blocks, node count)."""
    blocks = max(1, round(target_nodes / nodes_per_block()))
    g = Builder(seed)
    x = "tokens"
    for _ in range(blocks):
        x = block(g, x)
    g.nodes[-1].output[0] = "output"
    inp = helper.make_tensor_value_info("tokens", TensorProto.FLOAT, ["batch", "seq", HIDDEN])
    out = helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", "seq", HIDDEN])
    graph = helper.make_graph(g.nodes, f"importScaling{blocks}", [inp], [out], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=8)
    onnx.checker.check_model(model)
    return model, blocks, len(g.nodes)


def shapes_flag(which):
    batch, seq = PROFILE[which]
    return f"--{which}Shapes=tokens:{batch}x{seq}x{HIDDEN}"


def run_kilnexec(kilnexec, model_path, engine_path, timeout):
    cmd = [kilnexec, f"--onnx={model_path}", "--backend=cpu", "--skipInference", f"--saveEngine={engine_path}",
           shapes_flag("min"), shapes_flag("opt"), shapes_flag("max")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if run.returncode != 0:
        sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:])
        raise RuntimeError(f"kilnexec failed ({run.returncode}) on {model_path}")
    parse = re.search(r"Parse time: ([0-9.eE+-]+) s", run.stdout)
    build = re.search(r"Engine built in ([0-9.eE+-]+) sec", run.stdout)
    layers = re.search(r"Network: \d+ inputs, \d+ outputs, (\d+) layers", run.stdout)
    if parse is None or build is None:
        raise RuntimeError("kilnexec did not print its parse and build times:\n" + run.stdout[-2000:])
    return {"parse": float(parse.group(1)), "build": float(build.group(1)), "wall": wall, "cpu": cpu,
            "layers": int(layers.group(1)) if layers else -1}


def git_commit():
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kilnexec", required=True)
    ap.add_argument("--nodes", default="1000,5000,10000", help="comma-separated target node counts")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per kilnexec run")
    ap.add_argument("--workdir", default=None, help="where models and engines go (default: a temporary folder)")
    ap.add_argument("--markdown", default=None, help="also write the table to this file")
    ap.add_argument("--keep", action="store_true", help="keep the models and engines")
    args = ap.parse_args()

    targets = [int(n) for n in args.nodes.split(",") if n.strip()]
    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-import-scaling-")
    os.makedirs(workdir, exist_ok=True)
    rows = []
    for target in targets:
        model, blocks, nodes = make_model(target)
        path = os.path.join(workdir, f"stack{nodes}.onnx")
        onnx.save(model, path)
        engine = os.path.join(workdir, f"stack{nodes}.plan")
        runs = [run_kilnexec(args.kilnexec, path, engine, args.timeout) for _ in range(args.repeat)]
        med = {key: statistics.median(r[key] for r in runs) for key in ("parse", "build", "wall", "cpu")}
        rows.append({"nodes": nodes, "blocks": blocks, "layers": runs[0]["layers"],
                     "model_mb": os.path.getsize(path) / 1e6, **med})
        print(f"{nodes:6d} nodes ({blocks} blocks, {runs[0]['layers']} layers): parse {med['parse']:.3f} s, "
              f"build {med['build']:.3f} s, parse+build {med['parse'] + med['build']:.3f} s, "
              f"wall {med['wall']:.3f} s, process CPU {med['cpu']:.3f} s", flush=True)
        if not args.keep:
            os.remove(path)
            if os.path.exists(engine):
                os.remove(engine)

    base = rows[0]
    lines = [f"Machine: {cpu_name()}, {os.cpu_count()} logical CPUs; date {datetime.date.today().isoformat()}; "
             f"commit {git_commit()}; median of {args.repeat} runs; kilnexec --backend=cpu --skipInference "
             f"--saveEngine, profile batch 1/2/4 x seq 1/16/64, D={HIDDEN}.",
             "",
             "| ONNX nodes | blocks | network layers | model MB | parse s | build s | parse + build s | "
             "per 1k nodes s | process wall s | process CPU s |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        total = r["parse"] + r["build"]
        lines.append(f"| {r['nodes']} | {r['blocks']} | {r['layers']} | {r['model_mb']:.1f} | {r['parse']:.3f} | "
                     f"{r['build']:.3f} | {total:.3f} | {1000.0 * total / r['nodes']:.3f} | {r['wall']:.3f} | "
                     f"{r['cpu']:.3f} |")
    if len(rows) > 1:
        last = rows[-1]
        ratio = (last["parse"] + last["build"]) / max(base["parse"] + base["build"], 1e-9)
        lines += ["", f"Growth {base['nodes']} -> {last['nodes']} nodes ({last['nodes'] / base['nodes']:.1f}x): "
                      f"parse + build time {ratio:.1f}x."]
    table = "\n".join(lines)
    print()
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    if not args.keep and args.workdir is None:
        os.rmdir(workdir)


if __name__ == "__main__":
    main()
