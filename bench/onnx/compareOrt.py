#!/usr/bin/env python3
"""Kiln (kilnexec, CPU backend) against ONNX Runtime (CPU execution provider) on the models of makeModels.py, in one
run on one machine: latency at batch 1 and throughput at batch 16, reported as Kiln/ORT ratios.

Both engines run the same model file with the same random input, one inference at a time, after a warm-up, for at
least --seconds and --iterations. Latency is the median of per-inference wall times; throughput is batch / mean
latency. Kiln's figures come from `kilnexec --exportTimes` (per-inference latencyMs); its batch-1 outputs are checked
against ORT's (--loadInputs / --exportOutput) before any timing is trusted.

Usage: python3 bench/onnx/compareOrt.py --kilnexec build/bin/kilnexec [--models DIR] [--seconds S] [--markdown F]
Needs: pip install onnx onnxruntime numpy
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {"cnn": ("image", (3, 112, 112)), "mlp": ("features", (784,)), "encoder": ("tokens", (128, 256))}


def ort_times(session, feeds, seconds, iterations):
    for _ in range(3):
        session.run(None, feeds)
    times, start = [], time.perf_counter()
    while len(times) < iterations or time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - t0) * 1000.0)
    return times


def kiln_run(kilnexec, model, name, data, seconds, iterations, workdir, tag):
    inp = os.path.join(workdir, f"{tag}.in.bin")
    data.astype(np.float32).tofile(inp)
    times_json = os.path.join(workdir, f"{tag}.times.json")
    out_json = os.path.join(workdir, f"{tag}.out.json")
    shape = "x".join(str(d) for d in data.shape)
    cmd = [kilnexec, f"--onnx={model}", f"--shapes={name}:{shape}", f"--loadInputs={name}:{inp}",
           "--warmUp=300", f"--duration={seconds}", f"--iterations={iterations}", f"--exportTimes={times_json}",
           f"--exportOutput={out_json}"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"kilnexec failed ({run.returncode}):\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    with open(times_json) as f:
        times = [float(t["latencyMs"]) for t in json.load(f)]
    with open(out_json) as f:
        outputs = json.load(f)
    return times, np.array(outputs[0]["values"], dtype=np.float64)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kilnexec", required=True)
    parser.add_argument("--models", default=None, help="directory for the models (default: a temporary one)")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--markdown", default=None, help="also write the table to this file")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="kiln-ort-")
    models = args.models or workdir
    subprocess.run([sys.executable, os.path.join(HERE, "makeModels.py"), models], check=True, capture_output=True)
    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count()
    rng = np.random.default_rng(7)
    rows = []
    for model_name, (input_name, shape) in MODELS.items():
        path = os.path.join(models, model_name + ".onnx")
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        row = {"model": model_name}
        for batch in (1, 16):
            data = rng.uniform(-1.0, 1.0, (batch,) + shape).astype(np.float32)
            ort_ms = ort_times(session, {input_name: data}, args.seconds, args.iterations)
            kiln_ms, kiln_out = kiln_run(args.kilnexec, path, input_name, data, args.seconds, args.iterations,
                                         workdir, f"{model_name}-{batch}")
            want = session.run(None, {input_name: data})[0].astype(np.float64).ravel()
            err = float(np.max(np.abs(kiln_out.ravel() - want)) / (np.max(np.abs(want)) + 1e-12))
            if err > 1e-3:
                raise RuntimeError(f"{model_name} batch {batch}: Kiln's output differs from ORT's (rel. error {err:.2e})")
            row[batch] = {"kiln_median": statistics.median(kiln_ms), "ort_median": statistics.median(ort_ms),
                          "kiln_tput": batch * 1000.0 / statistics.mean(kiln_ms),
                          "ort_tput": batch * 1000.0 / statistics.mean(ort_ms), "err": err}
        rows.append(row)

    lines = [f"Machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}; "
             f"onnxruntime {ort.__version__} ({os.cpu_count()} intra-op threads); date {time.strftime('%Y-%m-%d')}.",
             "",
             "| model | Kiln latency b1 (ms) | ORT latency b1 (ms) | latency Kiln/ORT | Kiln b16 (inf/s) | "
             "ORT b16 (inf/s) | throughput Kiln/ORT | max rel. output diff |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b1, b16 = r[1], r[16]
        lines.append(f"| {r['model']} | {b1['kiln_median']:.2f} | {b1['ort_median']:.2f} | "
                     f"{b1['kiln_median'] / b1['ort_median']:.2f} | {b16['kiln_tput']:.1f} | {b16['ort_tput']:.1f} | "
                     f"{b16['kiln_tput'] / b16['ort_tput']:.2f} | {max(b1['err'], b16['err']):.1e} |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
