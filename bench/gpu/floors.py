#!/usr/bin/env python3
"""Per-layer floors of a Kiln engine on the GPU: for the layers that take the most time in the profile, the time
the layer cannot beat on this GPU, and how far the measured time is from it.

  memory floor   = bytes moved / HBM bandwidth, where bytes moved = every device input and output tensor of the
                   layer read or written once, plus its weights once (each at its element size; floating-point
                   weights counted at the output's element size, since the kernels convert them to that type)
  compute floor  = FLOPs / dense FP16 tensor-core peak, for the layers whose work is a matrix product
                   (Convolution, Deconvolution, MatrixMultiply, the fused attention: AttentionOutput, or Attention;
                   not Einsum); the others have no compute floor
  floor          = max(memory floor, compute floor); ratio = measured / floor

FLOPs: convolution 2 * output volume * (input channels / groups) * kernel area, deconvolution 2 * input volume *
(output channels / groups) * kernel area (groups = the layer's nbGroups: a depthwise convolution has as many groups
as channels; kernelSize from the layer; without those attributes, the weight count / output (input) channels,
which is the same number); matrix multiply 2 * output volume * K (K from input 0's dimensions and its "op0"
operation); attention (inputs query [b,h,sq,d], key, value [b,h,skv,dv], optional mask; output [b,h,sq,dv])
2*b*h*sq*skv*d + 2*b*h*sq*skv*dv, i.e. 4*b*h*sq*skv*d, counted in full for causal attention too (a kernel that
skips the masked blocks can do half: its ratio can then fall below 1). Bytes of an attention: query, key, value,
mask and output once (the scores are never stored). The layer information is the engine inspector's JSON (kilnexec --exportLayerInfo, ProfilingVerbosity
kDETAILED, shapes of the inference context); the times are kilnexec --exportProfile's averageMs.

The peaks are published datasheet figures of the GPU named by nvidia-smi (table PEAKS below); --peak-tflops and
--peak-tbps override them (for another GPU, or to use a measured bandwidth).

Usage: python3 bench/gpu/floors.py --layers L.json --profile P.json [--gpu "NVIDIA H200"] [--top 10] [--out F.json]
"""
import argparse
import json
import re
import subprocess
import sys

# Dense (no sparsity) FP16 tensor-core peak in TFLOP/s and HBM bandwidth in TB/s, by the name nvidia-smi reports.
# Sources: NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100/: SXM 1,979 / PCIe 1,513 /
# NVL 1,671 FP16 TFLOPS "with sparsity", i.e. half that dense; 3.35 / 2.0 / 3.9 TB/s) and NVIDIA H200 datasheet
# (nvidia.com/en-us/data-center/h200/: 1,979 TFLOPS with sparsity for SXM, 1,671 for NVL; 4.8 TB/s for both).
# The dense H100 SXM figure 989.4 TFLOPS also appears in glennklockwood.com/garden/processors/h100. The repository's
# reference/performance-anchors.md holds the MLPerf and demoBERT anchors these floors are read against.
# The first pattern that matches the lower-cased name wins (more specific names first).
PEAKS = [
    (r"h200.*nvl", {"label": "H200 NVL", "fp16_dense_tflops": 835.5, "hbm_tbps": 4.8}),
    (r"h200", {"label": "H200 SXM", "fp16_dense_tflops": 989.5, "hbm_tbps": 4.8}),
    (r"h100.*nvl", {"label": "H100 NVL", "fp16_dense_tflops": 835.5, "hbm_tbps": 3.9}),
    (r"h100.*pcie", {"label": "H100 PCIe", "fp16_dense_tflops": 756.5, "hbm_tbps": 2.0}),
    (r"h100", {"label": "H100 SXM", "fp16_dense_tflops": 989.4, "hbm_tbps": 3.35}),
]

TYPE_BYTES = {"FP32": 4, "FP16": 2, "BF16": 2, "INT8": 1, "UINT8": 1, "FP8": 1, "INT32": 4, "INT64": 8, "BOOL": 1,
              "E8M0": 1, "INT4": 0.5, "FP4": 0.5}
FLOAT_TYPES = {"FP32", "FP16", "BF16"}
# The inspector's name of the builder's fused attention (kATTENTION_OUTPUT), and TensorRT's "Attention" name.
ATTENTION_KINDS = ("AttentionOutput", "Attention")


def gpu_name_from_smi():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return ""


def peaks_for(gpu_name):
    name = gpu_name.lower()
    for pattern, peak in PEAKS:
        if re.search(pattern, name):
            return dict(peak)
    return None


def volume(dims):
    v = 1
    for d in dims:
        v *= max(int(d), 0)
    return v


def tensor_type(t):
    """'Row major linear FP16' -> 'FP16' (the inspector's Format/Datatype field ends with the type)."""
    words = str(t.get("Format/Datatype", "")).split()
    for w in reversed(words):
        if w in TYPE_BYTES:
            return w
    return "FP32"


def tensor_bytes(t):
    return volume(t.get("Dimensions", [])) * TYPE_BYTES.get(tensor_type(t), 4)


def layer_flops(layer):
    """FLOPs of the matrix-product layers (multiply-add = 2); None for the others."""
    kind = layer.get("LayerType", "")
    inputs = [t for t in layer.get("Inputs", []) if isinstance(t, dict)]
    outputs = [t for t in layer.get("Outputs", []) if isinstance(t, dict)]
    weights = layer.get("Weights", []) or []
    if not outputs:
        return None
    out_dims = outputs[0].get("Dimensions", [])
    if kind in ("Convolution", "Deconvolution"):
        in_dims = inputs[0].get("Dimensions", []) if inputs else []
        kernel_size = layer.get("kernelSize")
        groups = int(layer.get("nbGroups", 1) or 1)
        if isinstance(kernel_size, list) and kernel_size and len(in_dims) > 1 and len(out_dims) > 1 and groups > 0:
            per_output = volume(kernel_size)
            if kind == "Convolution":
                return 2 * volume(out_dims) * (int(in_dims[1]) // groups) * per_output
            return 2 * volume(in_dims) * (int(out_dims[1]) // groups) * per_output
        # No attributes: the kernel's weight count is out channels * in channels / groups * kernel area already.
        kernel = max((int(w.get("Count", 0)) for w in weights), default=0)
        if kernel == 0 and len(inputs) > 1:  # kernel given as a tensor input
            kernel = volume(inputs[1].get("Dimensions", []))
        if kind == "Convolution":
            channels = out_dims[1] if len(out_dims) > 1 else 0
            return 2 * volume(out_dims) * kernel // channels if channels else None
        channels = in_dims[1] if len(in_dims) > 1 else 0
        return 2 * volume(in_dims) * kernel // channels if channels else None
    if kind in ATTENTION_KINDS:
        if len(inputs) < 3:
            return None
        query, value = inputs[0].get("Dimensions", []), inputs[2].get("Dimensions", [])
        if len(query) < 2 or len(value) < 2:
            return None
        skv = int(value[-2])
        return 2 * volume(query) * skv + 2 * volume(out_dims) * skv
    if kind == "MatrixMultiply" and inputs:
        a = inputs[0].get("Dimensions", [])
        op0 = int(layer.get("op0", 0))
        if not a:
            return None
        if op0 == 2 or len(a) == 1:  # kVECTOR: the last dimension is K
            k = a[-1]
        elif op0 == 1:  # kTRANSPOSE
            k = a[-2]
        else:
            k = a[-1]
        return 2 * volume(out_dims) * int(k)
    return None


def layer_bytes(layer):
    # The kernels convert floating-point weights to the activation type: count them at the output's element size
    # (the inspector's "Precision" is the requested compute precision, FP32 unless set, not the storage type).
    outs = [t for t in layer.get("Outputs", []) if isinstance(t, dict)]
    precision = tensor_type(outs[0]) if outs else str(layer.get("Precision", "FP32"))
    total = 0
    for t in list(layer.get("Inputs", [])) + list(layer.get("Outputs", [])):
        if isinstance(t, dict) and t.get("Location", "Device") == "Device":
            total += tensor_bytes(t)
    for w in layer.get("Weights", []) or []:
        wtype = str(w.get("Type", "FP32"))
        size = TYPE_BYTES.get(precision, 4) if wtype in FLOAT_TYPES and precision in FLOAT_TYPES else \
            TYPE_BYTES.get(wtype, 4)
        total += int(w.get("Count", 0)) * size
    return total


def load_profile(path):
    """{layer name: average ms} from kilnexec --exportProfile ([{"count"}, {"name", "averageMs", ...}...])."""
    with open(path) as f:
        data = json.load(f)
    times = {}
    for item in data:
        if isinstance(item, dict) and "name" in item:
            times[item["name"]] = float(item.get("averageMs", item.get("timeMs", 0.0)))
    return times


def load_layers(path, batch=None):
    """{layer name: layer} from the inspector's JSON. Without an execution context the inspector prints dynamic
    extents as -1; with `batch` given, a -1 in the first axis becomes that value. Any other -1 stays, and such a
    layer gets no floors (its size is unknown)."""
    with open(path) as f:
        data = json.load(f)
    layers = data.get("Layers", []) if isinstance(data, dict) else data
    if batch is not None:
        for l in layers:
            if not isinstance(l, dict):
                continue
            for t in list(l.get("Inputs", [])) + list(l.get("Outputs", [])):
                if isinstance(t, dict) and "Dimensions" in t:
                    dims = list(t["Dimensions"])
                    if dims and int(dims[0]) == -1:
                        dims[0] = batch
                    t["Dimensions"] = dims
    return {l["Name"]: l for l in layers if isinstance(l, dict) and "Name" in l}


def compute_floors(layers, times, peak, top):
    """Rows for the `top` slowest layers of the profile."""
    rows = []
    total_ms = sum(times.values())
    for name, ms in sorted(times.items(), key=lambda kv: -kv[1])[:top]:
        layer = layers.get(name)
        row = {"name": name, "measured_ms": ms, "share": ms / total_ms if total_ms > 0 else None}
        if layer is None:
            row["note"] = "not in the layer information"
            rows.append(row)
            continue
        row["kind"] = layer.get("LayerType", "?")
        row["precision"] = layer.get("Precision", "?")
        row["tactic"] = layer.get("TacticName", "")
        outs = [t for t in layer.get("Outputs", []) if isinstance(t, dict)]
        row["output_dims"] = outs[0].get("Dimensions", []) if outs else []
        tensors = [t for t in list(layer.get("Inputs", [])) + outs if isinstance(t, dict)]
        if any(int(d) < 0 for t in tensors for d in t.get("Dimensions", [])):
            row["note"] = "dynamic extents in the layer information (no execution context): no floors"
            rows.append(row)
            continue
        row["bytes"] = layer_bytes(layer)
        row["flops"] = layer_flops(layer)
        if peak is not None:
            mem_ms = row["bytes"] / (peak["hbm_tbps"] * 1e12) * 1e3
            comp_ms = row["flops"] / (peak["fp16_dense_tflops"] * 1e12) * 1e3 if row["flops"] else None
            floor = max(mem_ms, comp_ms or 0.0)
            row.update({"memory_floor_ms": mem_ms, "compute_floor_ms": comp_ms, "floor_ms": floor,
                        "bound": "compute" if comp_ms and comp_ms > mem_ms else "memory",
                        "ratio": ms / floor if floor > 0 else None})
        rows.append(row)
    return rows


def floors_for(layers_path, profile_path, gpu_name, top=10, peak_tflops=None, peak_tbps=None, batch=None):
    peak = peaks_for(gpu_name)
    if peak_tflops or peak_tbps:
        peak = dict(peak or {"label": gpu_name or "given"})
        peak["fp16_dense_tflops"] = peak_tflops or peak.get("fp16_dense_tflops")
        peak["hbm_tbps"] = peak_tbps or peak.get("hbm_tbps")
        if not peak["fp16_dense_tflops"] or not peak["hbm_tbps"]:
            peak = None
    layers = load_layers(layers_path, batch)
    times = load_profile(profile_path)
    return {"gpu": gpu_name, "peak": peak, "layers_profiled": len(times),
            "profile_total_ms": sum(times.values()), "rows": compute_floors(layers, times, peak, top)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", required=True, help="kilnexec --exportLayerInfo JSON")
    parser.add_argument("--profile", required=True, help="kilnexec --exportProfile JSON")
    parser.add_argument("--gpu", default=None, help="GPU name (default: nvidia-smi's)")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--peak-tflops", type=float, default=None)
    parser.add_argument("--peak-tbps", type=float, default=None)
    parser.add_argument("--batch", type=int, default=None, help="value for -1 extents (layer info without context)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    gpu = args.gpu if args.gpu is not None else gpu_name_from_smi()
    result = floors_for(args.layers, args.profile, gpu, args.top, args.peak_tflops, args.peak_tbps, args.batch)
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
