#!/usr/bin/env python3
"""Times every kHWC8 depthwise-convolution variant (KILN_DEPTHWISE_VARIANT, docs/gpu.md) on the depthwise layers of
MobileNetV3-Large and EfficientNet-B0 (torchvision, 224x224 images) and prints a markdown table: shape, variant,
time, memory floor, ratio.

For each shape (batch 32 and batch 1) the script writes a single-layer FP16 ONNX model with random weights: the
depthwise Conv (groups = channels, bias = the folded BatchNorm) followed by the activation the real network has there
(MobileNetV3: ReLU or HardSwish; EfficientNet: SiLU as x * Sigmoid(x), which the fusion turns into the gated
epilogue). It builds each model once with `kilnexec --fp16 --backend=cuda` (KILN_TACTIC_TIMING=0 keeps the first
tactic, `depthwise`, and the channel-last pass puts the convolution in kHWC8; --exportLayerInfo shows the tactic and
the formats), then times the same engine under every variant: the variable is read when the kernel is created, at
engine load, so the engine is reused. (Without the variable, builds time the layouts that won this sweep as the
tactics depthwise, depthwise.pixel and depthwise.strip, SiLU with the approximate sigmoid; the variable overrides
whichever depthwise tactic the engine holds.) Timing is kilnexec --dumpProfile with --noDataTransfers (the per-layer
averageMs of --exportProfile); the row is the convolution layer's time (the reformats at the model's edges are not
counted). floor = (input + output + weights bytes) / --peak-tbps.

--budget-s stops starting new runs after that long (the table then says which rows are missing); --dry-run writes
the models and prints the commands without running kilnexec. --models DIR reuses the models found there (written
elsewhere with --dry-run, for a machine without the onnx package) and writes the missing ones. For a CPU smoke test: --backend cpu --precision fp32
(the variants do not exist there; the table shows the CPU's layer times).

Usage: python3 bench/gpu/depthwise_sweep.py --kilnexec build/bin/kilnexec --work /tmp/dw [--variants 0,1,2,3,4,5,6,7,8,9]
           [--batches 32,1] [--budget-s 420] [--peak-tbps 4.8] [--iterations 200] [--out table.md] [--dry-run]
"""
import argparse
import json
import os
import subprocess
import sys
import time

# (tag, channels, input size, kernel, stride, activation) of the depthwise layers of the per-layer profile (827906a,
# H200, batch 32). The profile's "32x672x14x14 (5x5)" row cannot be a depthwise layer of MobileNetV3-Large (its 672-channel
# 5x5 layer is stride 2, 14 -> 7; the 3x3 one is 14 -> 14): both are here.
SHAPES = [
    ("mnv3.b2", 64, 112, 3, 2, "relu"),
    ("mnv3.b3", 72, 56, 3, 1, "relu"),
    ("mnv3.b1", 16, 112, 3, 1, "relu"),
    ("mnv3.b12", 672, 14, 3, 1, "hardswish"),
    ("mnv3.b13", 672, 14, 5, 2, "hardswish"),
    ("mnv3.b5", 120, 28, 5, 1, "relu"),
    ("effnet.s2b1", 96, 112, 3, 2, "silu"),
    ("effnet.s2b2", 144, 56, 3, 1, "silu"),
    ("effnet.s3b2", 240, 28, 5, 1, "silu"),
]


def out_size(size, kernel, stride):
    pad = kernel // 2
    return (size + 2 * pad - kernel) // stride + 1


def write_model(path, batch, channels, size, kernel, stride, act, precision, seed):
    """A single depthwise Conv + activation model (opset 17), FP16 (or FP32) input, output and weights."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    dtype = np.float16 if precision == "fp16" else np.float32
    elem = TensorProto.FLOAT16 if precision == "fp16" else TensorProto.FLOAT
    fan_in = kernel * kernel
    w = (rng.standard_normal((channels, 1, kernel, kernel)) * (2.0 / fan_in) ** 0.5).astype(dtype)
    b = (rng.standard_normal(channels) * 0.1).astype(dtype)
    pad = kernel // 2
    osz = out_size(size, kernel, stride)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["conv"], group=channels, kernel_shape=[kernel, kernel],
                              strides=[stride, stride], pads=[pad, pad, pad, pad], name="dwconv")]
    if act == "relu":
        nodes.append(helper.make_node("Relu", ["conv"], ["y"], name="act"))
    elif act == "hardswish":
        nodes.append(helper.make_node("HardSwish", ["conv"], ["y"], name="act"))
    elif act == "silu":
        nodes.append(helper.make_node("Sigmoid", ["conv"], ["gate"], name="sigmoid"))
        nodes.append(helper.make_node("Mul", ["conv", "gate"], ["y"], name="silu"))
    else:
        raise ValueError(f"unknown activation {act}")
    graph = helper.make_graph(
        nodes, "depthwise",
        [helper.make_tensor_value_info("x", elem, [batch, channels, size, size])],
        [helper.make_tensor_value_info("y", elem, [batch, channels, osz, osz])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="depthwise_sweep")
    onnx.checker.check_model(model)
    onnx.save(model, path)


def floor_us(batch, channels, size, kernel, stride, peak_tbps, elem_bytes):
    osz = out_size(size, kernel, stride)
    bytes_ = elem_bytes * (batch * channels * (size * size + osz * osz) + channels * (kernel * kernel + 1))
    return bytes_ / (peak_tbps * 1e12) * 1e6


def run(cmd, env, log, timeout, dry):
    line = " ".join(f"{k}={v}" for k, v in env.items()) + (" " if env else "") + " ".join(cmd)
    if dry:
        print("would run:", line)
        return 0, ""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout,
                           env={**os.environ, **env})
        code, text = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        code, text = 124, (e.stdout or "") if isinstance(e.stdout, str) else ""
    with open(log, "w") as f:
        f.write(line + "\n" + text)
    return code, text


def conv_layer(layers_path):
    """(name, tactic, input format) of the convolution layer in an --exportLayerInfo file."""
    with open(layers_path) as f:
        info = json.load(f)
    for layer in info.get("Layers", []):
        if not isinstance(layer, dict):
            continue
        kind = str(layer.get("LayerType", ""))
        if "onvolution" in kind or "dwconv" in str(layer.get("Name", "")):
            inputs = layer.get("Inputs") or [{}]
            return layer.get("Name", ""), layer.get("TacticName", ""), inputs[0].get("Format/Datatype", "")
    return None, "", ""


def layer_ms(profile_path, name):
    with open(profile_path) as f:
        items = json.load(f)
    for item in items:
        if isinstance(item, dict) and item.get("name") == name:
            return float(item.get("averageMs", item.get("timeMs", 0.0)))
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kilnexec", required=True)
    parser.add_argument("--work", required=True, help="folder for models, engines, logs and JSON files")
    parser.add_argument("--models", default="",
                        help="folder of the ONNX models: existing ones are reused, missing ones written (default: --work)")
    parser.add_argument("--variants", default="0,1,2,3,4,5,6,7,8,9",
                        help="variants 5-9 (the approximate sigmoid) run only on the SiLU shapes")
    parser.add_argument("--batches", default="32,1")
    parser.add_argument("--only", default="", help="comma list of shape tags (default: all)")
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--precision", default="fp16", choices=["fp16", "fp32"])
    parser.add_argument("--peak-tbps", type=float, default=4.8, help="DRAM bandwidth of the floor (H200: 4.8)")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--budget-s", type=float, default=420.0, help="no new run starts after this long")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per kilnexec command")
    parser.add_argument("--out", default="", help="also write the table to this file")
    parser.add_argument("--dry-run", action="store_true", help="write the models, print the commands, run nothing")
    args = parser.parse_args(argv)

    os.makedirs(args.work, exist_ok=True)
    models = args.models or args.work
    os.makedirs(models, exist_ok=True)
    variants = [v for v in args.variants.split(",") if v != ""]
    batches = [int(b) for b in args.batches.split(",") if b != ""]
    only = set(x for x in args.only.split(",") if x)
    shapes = [s for s in SHAPES if not only or s[0] in only]
    elem_bytes = 2 if args.precision == "fp16" else 4
    start = time.monotonic()
    rows, missing = [], []
    base_env = {"KILN_TACTIC_TIMING": "0", "KILN_CHANNEL_LAST": "1"}
    for batch in batches:
        for seed, (tag, c, size, k, s, act) in enumerate(shapes):
            name = f"{tag}.b{batch}"
            osz = out_size(size, k, s)
            shape = f"{batch}x{c}x{osz}x{osz} ({k}x{k} s{s} from {size}, {act})"
            model = os.path.join(models, f"{name}.{args.precision}.onnx")
            if not os.path.exists(model):
                write_model(model, batch, c, size, k, s, act, args.precision, seed)
            if time.monotonic() - start > args.budget_s:
                missing.append(f"{shape}: all variants (budget)")
                continue
            engine = os.path.join(args.work, f"{name}.engine")
            layers = os.path.join(args.work, f"{name}.layers.json")
            build = [args.kilnexec, f"--onnx={model}", f"--saveEngine={engine}", "--skipInference",
                     f"--backend={args.backend}", f"--exportLayerInfo={layers}", "--profilingVerbosity=detailed"]
            if args.precision == "fp16":
                build.append("--fp16")
            code, text = run(build, base_env, os.path.join(args.work, f"{name}.build.log"), args.timeout, args.dry_run)
            if args.dry_run:
                conv, tactic, fmt = "dwconv", "?", "?"
            elif code != 0 or not os.path.exists(layers):
                missing.append(f"{shape}: the build failed (exit {code}, {name}.build.log)")
                continue
            else:
                conv, tactic, fmt = conv_layer(layers)
            floor = floor_us(batch, c, size, k, s, args.peak_tbps, elem_bytes)
            for v in variants:
                if int(v) >= 5 and act != "silu":
                    continue  # the same kernel as variant v - 5 without a sigmoid
                if time.monotonic() - start > args.budget_s:
                    missing.append(f"{shape}: variant {v} (budget)")
                    continue
                profile = os.path.join(args.work, f"{name}.v{v}.profile.json")
                timed = [args.kilnexec, f"--loadEngine={engine}", f"--backend={args.backend}", "--noDataTransfers",
                         "--warmUp=50", f"--iterations={args.iterations}", "--duration=0", "--dumpProfile",
                         "--separateProfileRun", f"--exportProfile={profile}", "--profilingVerbosity=detailed"]
                code, text = run(timed, {**base_env, "KILN_DEPTHWISE_VARIANT": v},
                                 os.path.join(args.work, f"{name}.v{v}.log"), args.timeout, args.dry_run)
                if args.dry_run:
                    continue
                ms = layer_ms(profile, conv) if code == 0 and os.path.exists(profile) else None
                if ms is None:
                    missing.append(f"{shape}: variant {v} failed (exit {code}, {name}.v{v}.log)")
                    continue
                rows.append((shape, v, tactic, fmt, ms * 1000.0, floor))
    lines = ["| shape | variant | tactic | format | time (us) | floor (us) | ratio |", "|---|---|---|---|---|---|---|"]
    for shape, v, tactic, fmt, us, floor in rows:
        lines.append(f"| {shape} | {v} | {tactic} | {fmt} | {us:.1f} | {floor:.2f} | {us / floor:.1f} |")
    table = "\n".join(lines)
    print(table)
    for m in missing:
        print("missing:", m)
    print(f"({time.monotonic() - start:.0f} s; floors at {args.peak_tbps} TB/s)")
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n" + "".join(f"missing: {m}\n" for m in missing))
    return 0 if not missing else 1


if __name__ == "__main__":
    sys.exit(main())
