#!/usr/bin/env python3
"""Kiln (kilnexec, CPU backend) against ONNX Runtime (CPU execution provider) on the models of makeModels.py, in one
run on one machine: latency at batch 1 and throughput at batch 16, reported as Kiln/ORT ratios, plus a table of
Kiln's slowest layers against their roofline on this machine.

Method (robust on a shared machine):
- Both engines use the same thread count (--threads, default: all cores): ORT's intra_op_num_threads, and for Kiln
  KILN_CPU_THREADS and OMP_NUM_THREADS (oneDNN's OpenMP threads) in kilnexec's environment.
- Each model is built once per batch size into an engine file (kilnexec --saveEngine); every timed Kiln run loads it.
- Before any timing counts, Kiln's outputs at batch 1 and 16 are compared with ORT's on the same random input: the
  largest absolute difference over the largest absolute ORT output must be at most --tolerance (1e-4 in FP32).
- --precision bf16 builds Kiln's engines with kBF16 (kilnexec --bf16, KILN_PRECISION=1 so that FP32 layers lower to
  BF16 where the CPU runs it natively: AMX / AVX-512-BF16) against ORT's FP32 run of the same model; the output check
  then allows --tolerance 3e-2 by default (BF16 keeps 8 bits of mantissa).
- --precision int8 runs both engines on a QDQ form of each model (<model>-int8.onnx next to it, written when
  missing by onnxruntime's quantize_static: QDQ format, INT8 activations and per-channel INT8 weights, symmetric,
  calibrated on 4 random batch-1 inputs of the same distribution as the timed ones). ORT runs its INT8 kernels; Kiln
  runs the Q/DQ layers and computes between them in FP32 (docs/precision.md). The output check allows --tolerance
  5e-2 by default (ORT requantizes inside its INT8 kernels, Kiln where the model's Q nodes are).
- Each figure (one model, one batch, one engine) is measured --repeats times (default 5), Kiln's and ORT's runs
  interleaved (alternating which goes first). One measurement is the median of at least --iterations inferences
  lasting at least --seconds, after a --warmup (ms) of inferences. The table gives the median of the per-repeat Kiln/ORT ratios and
  their spread (min-max); latency = median inference time at batch 1, throughput = 16 / median inference time at
  batch 16.
- Slowest layers: one profiled Kiln run per model at batch 16 (kilnexec --exportProfile, engine built with
  --profilingVerbosity=detailed for the layer shapes). Each layer's roofline time is max(FLOPs / peak, bytes / bandwidth)
  with FLOPs and bytes from its shapes (convolution and matrix multiply: 2 x MACs; other layers: one operation per
  output element; bytes: inputs, outputs and weights read or written once), peak = kilnBench's machinePeak
  (single-core FMA peak) x threads, bandwidth = a copy of 256 MiB measured here (numpy, one thread).

Usage:
  python3 bench/onnx/compareOrt.py --kilnexec build/bin/kilnexec [--models cnn,mlp,...] [--repeats N]
      [--threads N] [--precision fp32|bf16|int8] [--quick] [--markdown F] [--modelDir DIR]
Needs: pip install onnx onnxruntime numpy
"""
import argparse
import json
import shutil
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importScaling import cpu_name, git_commit  # noqa: E402  (the machine and commit lines of every bench/onnx table)

HERE = os.path.dirname(os.path.abspath(__file__))
# model -> (input name, input shape without the batch)
MODELS = {"cnn": ("image", (3, 112, 112)), "mlp": ("features", (784,)), "encoder": ("tokens", (128, 256)),
          "resnet50": ("image", (3, 224, 224)), "bert": ("tokens", (128, 768))}
BATCHES = (1, 16)


def make_qdq(fp32_path, qdq_path, input_name, shape):
    """Writes the QDQ form of fp32_path (see --precision int8) to qdq_path."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,  # noqa: E402
                                          quantize_static)

    class Reader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(11)
            self.batches = iter([{input_name: rng.uniform(-1.0, 1.0, (1,) + shape).astype(np.float32)}
                                 for _ in range(4)])

        def get_next(self):
            return next(self.batches, None)

    quantize_static(fp32_path, qdq_path, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                    extra_options={"ActivationSymmetric": True, "WeightSymmetric": True})


def ort_measure(session, feeds, seconds, iterations, warmup_ms=300):
    start = time.perf_counter()
    session.run(None, feeds)
    while time.perf_counter() - start < warmup_ms / 1000.0:
        session.run(None, feeds)
    times, start = [], time.perf_counter()
    while len(times) < iterations or time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times)


class Kiln:
    """kilnexec with the benchmark's environment (threads) and a work directory."""

    def __init__(self, kilnexec, threads, workdir, precision="fp32"):
        self.kilnexec, self.workdir, self.precision = kilnexec, workdir, precision
        self.env = dict(os.environ, KILN_CPU_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
        if precision == "bf16":
            self.env["KILN_PRECISION"] = "1"

    def run(self, args):
        cmd = [self.kilnexec, "--backend=cpu"] + args
        done = subprocess.run(cmd, capture_output=True, text=True, env=self.env)
        if done.returncode != 0:
            raise RuntimeError(f"kilnexec failed ({done.returncode}): {' '.join(cmd)}\n{done.stdout[-3000:]}\n"
                               f"{done.stderr[-3000:]}")
        return done.stdout

    def build(self, model, name, shape, tag):
        engine = os.path.join(self.workdir, f"{tag}.engine")
        self.run([f"--onnx={model}", f"--shapes={name}:{'x'.join(map(str, shape))}", f"--saveEngine={engine}",
                  "--profilingVerbosity=detailed", "--skipInference"] + (["--bf16"] if self.precision == "bf16" else []))
        return engine

    def measure(self, engine, name, data, seconds, iterations, tag, outputs=False, profile=False, warmup_ms=300):
        """Median latency (ms); with outputs, also the first output's values; with profile, the profile and layer
        information JSON instead of timings."""
        inp = os.path.join(self.workdir, f"{tag}.in.bin")
        data.astype(np.float32).tofile(inp)
        shape = "x".join(str(d) for d in data.shape)
        times_json = os.path.join(self.workdir, f"{tag}.times.json")
        args = [f"--loadEngine={engine}", f"--shapes={name}:{shape}", f"--loadInputs={name}:{inp}", f"--warmUp={warmup_ms}",
                f"--duration={seconds}", f"--iterations={iterations}", f"--exportTimes={times_json}"]
        out_json = os.path.join(self.workdir, f"{tag}.out.json")
        if outputs:
            args.append(f"--exportOutput={out_json}")
        if profile:
            prof, info = (os.path.join(self.workdir, f"{tag}.{k}.json") for k in ("profile", "layers"))
            self.run(args + [f"--exportProfile={prof}", f"--exportLayerInfo={info}"])
            with open(prof) as f, open(info) as g:
                return json.load(f), json.load(g)
        self.run(args)
        with open(times_json) as f:
            median = statistics.median(float(t["latencyMs"]) for t in json.load(f))
        if not outputs:
            return median, None
        with open(out_json) as f:
            return median, np.array(json.load(f)[0]["values"], dtype=np.float64)


def relative_error(got, want):
    want = want.astype(np.float64).ravel()
    if got.size != want.size:
        return float("inf")
    return float(np.max(np.abs(got.ravel() - want)) / (np.max(np.abs(want)) + 1e-30))


def spread(values, fmt="{:.2f}"):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}–{fmt.format(max(values))})"


# ---- roofline -------------------------------------------------------------------------------------------------

def measured_bandwidth_gbs():
    """Copy bandwidth (read + write bytes per second) of a 256 MiB buffer, best of 5, one thread."""
    src = np.ones(64 * 1024 * 1024, dtype=np.float32)
    dst = np.empty_like(src)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return 2 * src.nbytes / best / 1e9


def machine_peak_gflops(kilnbench, threads, tries=3):
    """kilnBench's machinePeak (FMA throughput of one core; the best of `tries` runs, since a probe that shares its
    core with other work measures less) times the threads; None without kilnBench."""
    if not kilnbench or not os.path.exists(kilnbench):
        return None
    best = None
    for _ in range(tries):
        done = subprocess.run([kilnbench, "--benchmark_filter=^machinePeak", "--benchmark_format=json"],
                              capture_output=True, text=True)
        try:
            benchmarks = json.loads(done.stdout)["benchmarks"] if done.returncode == 0 else []
        except (ValueError, KeyError):
            return None
        for b in benchmarks:
            if b["name"].startswith("machinePeak"):
                best = max(best or 0.0, float(b["coreGFLOP/s"]))
    return best * threads if best else None


def volume(dims):
    v = 1
    for d in dims:
        v *= int(d)
    return v


def layer_work(layer):
    """(FLOPs, bytes) of one layer of kilnexec's --exportLayerInfo (detailed) from its shapes."""
    ins = [volume(t.get("Dimensions", [])) for t in layer.get("Inputs", [])]
    outs = [volume(t.get("Dimensions", [])) for t in layer.get("Outputs", [])]
    weights = sum(int(w.get("Count", 0)) for w in layer.get("Weights", []))
    kind = str(layer.get("LayerType", ""))
    out = outs[0] if outs else 0
    flops = float(out)
    if kind in ("Convolution", "Deconvolution") and layer.get("Outputs"):
        # The kernel: the first weights slot, or input 1 when the kernel is a tensor.
        w = layer.get("Weights", [])
        kernel = int(w[0]["Count"]) if w else (ins[1] if len(ins) > 1 else 0)
        if kind == "Convolution":
            # Each output element takes (kernel / output channels) multiply-adds.
            channels = int(layer["Outputs"][0]["Dimensions"][1])
            flops = 2.0 * out * kernel / max(channels, 1)
        elif ins:
            # Each input element is spread over (kernel / input channels) outputs.
            channels = int(layer["Inputs"][0]["Dimensions"][1])
            flops = 2.0 * ins[0] * kernel / max(channels, 1)
    elif kind == "MatrixMultiply" and len(layer.get("Inputs", [])) >= 2:
        a = layer["Inputs"][0]["Dimensions"]
        # "op0": MatrixOperation of input 0 (0 kNONE: [.., M, K], 1 kTRANSPOSE: [.., K, M], 2 kVECTOR: [.., K]).
        k = int(a[-2] if int(layer.get("op0", 0)) == 1 and len(a) >= 2 else a[-1])
        flops = 2.0 * out * k
    nbytes = 4.0 * (sum(ins) + sum(outs) + weights)
    return flops, nbytes


def slowest_layers(profile, info, peak, bandwidth, count):
    layers = {l.get("Name"): l for l in info.get("Layers", []) if isinstance(l, dict)}
    rows = []
    for entry in profile:
        if "name" not in entry:
            continue
        ms = float(entry.get("medianMs", entry.get("averageMs", 0.0)))
        layer = layers.get(entry["name"])
        flops, nbytes = layer_work(layer) if layer else (0.0, 0.0)
        roof = max(flops / (peak * 1e9) if peak else 0.0, nbytes / (bandwidth * 1e9)) * 1000.0
        rows.append((ms, entry["name"], layer.get("LayerType", "?") if layer else "?", flops, nbytes, roof,
                     layer.get("TacticName", "") if layer else "", float(entry.get("percentage", 0.0))))
    rows.sort(reverse=True)
    return rows[:count]


# ---- main -----------------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kilnexec", required=True)
    parser.add_argument("--kilnbench", default=None, help="kilnBench, for the peak (default: next to kilnexec)")
    parser.add_argument("--models", default=",".join(MODELS), help=f"comma list (default: {','.join(MODELS)})")
    parser.add_argument("--modelDir", default=None, help="directory of the models (written there when missing)")
    parser.add_argument("--repeats", type=int, default=5, help="measurements of each figure (default 5)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="threads of both engines")
    parser.add_argument("--seconds", type=float, default=1.0, help="least duration of one measurement")
    parser.add_argument("--iterations", type=int, default=5, help="least inferences of one measurement")
    parser.add_argument("--warmup", type=int, default=300, help="warm-up of each measurement (ms)")
    parser.add_argument("--precision", choices=["fp32", "bf16", "int8"], default="fp32",
                        help="Kiln's engines (ORT runs FP32, or the same QDQ model with int8)")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="largest relative output difference (default 1e-4 in FP32, 3e-2 in BF16, 5e-2 "
                             "in INT8)")
    parser.add_argument("--slowest", type=int, default=5, help="slowest layers listed per model (0: no profile)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 repeats, 1 iteration, 0.1 s, no profile")
    parser.add_argument("--markdown", default=None, help="also write the tables to this file")
    args = parser.parse_args()
    if args.tolerance is None:
        args.tolerance = {"fp32": 1e-4, "bf16": 3e-2, "int8": 5e-2}[args.precision]
    if args.quick:
        args.repeats, args.iterations, args.seconds, args.slowest, args.warmup = 2, 1, 0.1, 0, 50
    names = [m for m in args.models.split(",") if m]
    unknown = [m for m in names if m not in MODELS]
    if unknown or not names:
        parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    if args.repeats < 1 or args.threads < 1:
        parser.error("--repeats and --threads must be at least 1")

    workdir = tempfile.mkdtemp(prefix="kiln-ort-")
    try:
        return run(args, names, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)  # engines and outputs (BERT-base's engines are 340 MB each)


def run(args, names, workdir):
    model_dir = args.modelDir or workdir
    missing = [m for m in names if not os.path.exists(os.path.join(model_dir, m + ".onnx"))]
    if missing:
        subprocess.run([sys.executable, os.path.join(HERE, "makeModels.py"), model_dir] + missing, check=True,
                       capture_output=True)
    kiln = Kiln(os.path.abspath(args.kilnexec), args.threads, workdir, args.precision)
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    rng = np.random.default_rng(7)
    rows, profiles = [], {}
    for model_name in names:
        input_name, shape = MODELS[model_name]
        path = os.path.join(model_dir, model_name + ".onnx")
        if args.precision == "int8":
            qdq = os.path.join(model_dir, model_name + "-int8.onnx")
            if not os.path.exists(qdq):
                make_qdq(path, qdq, input_name, shape)
            path = qdq
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        row = {"model": model_name}
        for batch in BATCHES:
            tag = f"{model_name}-{batch}"
            data = rng.uniform(-1.0, 1.0, (batch,) + shape).astype(np.float32)
            feeds = {input_name: data}
            engine = kiln.build(path, input_name, data.shape, tag)
            # Correctness first: no timing counts unless Kiln's output matches ORT's.
            _, kiln_out = kiln.measure(engine, input_name, data, 0, 1, tag, outputs=True, warmup_ms=0)
            err = relative_error(kiln_out, session.run(None, feeds)[0])
            if not err <= args.tolerance:
                raise RuntimeError(f"{model_name} batch {batch}: Kiln's output differs from ORT's (relative "
                                   f"difference {err:.2e} > {args.tolerance:.0e}); no timing reported")
            kiln_ms, ort_ms = [], []
            for r in range(args.repeats):
                steps = [("kiln", lambda: kiln.measure(engine, input_name, data, args.seconds, args.iterations,
                                                       tag, warmup_ms=args.warmup)[0]),
                         ("ort", lambda: ort_measure(session, feeds, args.seconds, args.iterations, args.warmup))]
                for who, step in (steps if r % 2 == 0 else steps[::-1]):
                    (kiln_ms if who == "kiln" else ort_ms).append(step())
            row[batch] = {"kiln": kiln_ms, "ort": ort_ms, "err": err,
                          "ratios": [k / o for k, o in zip(kiln_ms, ort_ms)]}
            print(f"{model_name} b{batch}: Kiln {spread(kiln_ms)} ms, ORT {spread(ort_ms)} ms, rel. diff {err:.1e}",
                  file=sys.stderr, flush=True)
            if batch == BATCHES[-1] and args.slowest > 0:
                profiles[model_name] = kiln.measure(engine, input_name, data, 0, max(args.iterations, 3),
                                                    tag + "-profile", profile=True, warmup_ms=args.warmup)
        rows.append(row)

    lines = [f"Machine: {cpu_name()}, {os.cpu_count()} cores ({platform.machine()}, {platform.platform()}); "
             f"{args.threads} threads for both engines; Kiln {args.precision.upper()}, "
             f"ORT {'INT8 (same QDQ model)' if args.precision == 'int8' else 'FP32'}; "
             f"onnxruntime {ort.__version__}; "
             f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; Kiln commit {git_commit()}; "
             f"{args.repeats} interleaved repeats per figure, each the median of at least {args.iterations} "
             f"inferences and {args.seconds:g} s; medians with (min–max) over the repeats.",
             "",
             "| model | Kiln latency b1 (ms) | ORT latency b1 (ms) | latency Kiln/ORT | Kiln b16 (inf/s) | "
             "ORT b16 (inf/s) | throughput Kiln/ORT | max rel. output diff |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b1, b16 = r[1], r[16]
        lines.append(f"| {r['model']} | {spread(b1['kiln'])} | {spread(b1['ort'])} | {spread(b1['ratios'])} | "
                     f"{spread([16000.0 / t for t in b16['kiln']], '{:.1f}')} | "
                     f"{spread([16000.0 / t for t in b16['ort']], '{:.1f}')} | "
                     f"{spread([1.0 / x for x in b16['ratios']])} | {max(b1['err'], b16['err']):.1e} |")
    if profiles:
        peak = machine_peak_gflops(args.kilnbench or os.path.join(os.path.dirname(args.kilnexec), "kilnBench"),
                                   args.threads)
        bandwidth = measured_bandwidth_gbs()
        peak_text = f"{peak:.0f} GFLOP/s (kilnBench machinePeak x {args.threads} threads)" if peak else \
            "unknown (no kilnBench: roofline from bandwidth only)"
        lines += ["", f"Slowest layers at batch 16 (Kiln profile, median per layer). Peak {peak_text}; copy "
                      f"bandwidth {bandwidth:.1f} GB/s (one thread). Roofline = max(FLOPs / peak, bytes / "
                      "bandwidth); 'x roofline' = measured / roofline.",
                  "",
                  "| model | layer | type | tactic | time (ms) | share | GFLOP | MB | roofline (ms) | x roofline |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for model_name, (profile, info) in profiles.items():
            for ms, name, kind, flops, nbytes, roof, tactic, share in slowest_layers(profile, info, peak, bandwidth,
                                                                                  args.slowest):
                short = name if len(name) <= 60 else name[:57] + "..."
                lines.append(f"| {model_name} | `{short}` | {kind} | {tactic} | {ms:.3f} | {share:.1f}% | "
                             f"{flops / 1e9:.3f} | {nbytes / 1e6:.1f} | {roof:.3f} | "
                             f"{ms / roof if roof > 0 else float('nan'):.1f} |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
