#!/usr/bin/env python3
"""Kiln's runs of the GPU performance table: for every model and batch of the manifest written by export_models.py,
kilnexec builds one engine (--fp16 --backend=cuda, min = opt = max = the batch, as trtexec --shapes does) and runs it
four times from the saved engine:

  plain    timed enqueueV3 runs, KILN_AUTO_CUDA_GRAPH=0 -> GPU compute time per inference, enqueue (host) time
  auto     the same with Kiln's defaults                -> automatic CUDA graphs (no flag): the same figures
  graph    the same with --useCudaGraph               -> the same, replaying the graph kilnexec captured
  profile  --dumpProfile --separateProfileRun ...     -> per-layer times (IProfiler), --exportLayerInfo (inspector)

The timed runs use --noDataTransfers (the inputs are uploaded once), so the compute time is comparable with
PyTorch's, whose inputs live on the GPU too. Token-id inputs get ids in [0, vocabulary) of their model (BERT 30522,
GPT-2 50257; the manifest's "vocab", else model_table.py's) and attention masks all ones, through --loadInputs; the
image models get kilnexec's random data in [-1, 1].

Batches: --batches applies to every model; without it each model gets model_table.py's default (1,32; GPT-2 1,8);
--model-batches "gpt2=1,8;bert=1" overrides single models. With --budget-s, no new model/batch starts after that
many seconds (the ones left are recorded as skipped), so a run under run.sh's time limit ends between engines.

Per run, figures come from --exportTimes (per-inference computeMs, latencyMs, startEnqMs/endEnqMs) and from the
report's "Throughput: N qps" line. Everything is written to --out as one JSON file; every kilnexec command line
and its log are kept in --work.

Usage: python3 bench/gpu/run_kiln.py --kilnexec build/bin/kilnexec --models DIR --work DIR --out kiln.json
           [--batches 1,32] [--model-batches gpt2=1,8] [--duration 2] [--iterations 100] [--backend cuda]
           [--precision fp16] [--budget-s S]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_table  # noqa: E402


def shape_spec(inputs, batch):
    return ",".join(f"{i['name']}:" + "x".join(str(d) for d in [batch] + list(i["shape"])) for i in inputs)


def write_inputs(name, inputs, batch, work, seed):
    """--loadInputs files for the integer inputs (token ids, masks); float inputs use kilnexec's own random data."""
    import numpy as np

    rng = np.random.default_rng(seed)
    specs = []
    for i in inputs:
        if i["type"] == "float":
            continue
        shape = [batch] + list(i["shape"])
        low, high = model_table.int_input_range(name, i)
        data = rng.integers(low, high, size=shape, dtype=np.int64)
        path = os.path.join(work, f"{name}_b{batch}_{i['name']}.bin")
        data.tofile(path)
        specs.append(f"{i['name']}:{path}")
    return specs


def run(cmd, log_path, timeout, env=None):
    """Run a kilnexec command; (exit code, stdout+stderr text, seconds). The log file holds the command and output.
    `env`: variables added to this process's environment for the command."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **env} if env else None)
        code, text = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as err:
        code = 124
        text = (err.stdout or b"").decode(errors="replace") if isinstance(err.stdout, bytes) else (err.stdout or "")
        text += f"\n[run_kiln] timed out after {timeout} s\n"
    seconds = time.perf_counter() - start
    with open(log_path, "w") as f:
        f.write(" ".join(cmd) + "\n\n" + text)
    return code, text, seconds


def parse_report(text):
    """The figures of kilnexec's report that the JSON files do not carry."""
    out = {}
    m = re.search(r"Throughput:\s*([0-9.eE+-]+)\s*qps", text)
    if m:
        out["qps"] = float(m.group(1))
    m = re.search(r"Engine built in\s*([0-9.eE+-]+)\s*sec", text)
    if m:
        out["engine_build_s"] = float(m.group(1))
    # kilnexec prints "Captured one enqueueV3 into a CUDA graph ..." when the timed runs replay a graph, and a
    # warning naming the reason when it falls back (CPU backend, data-dependent shapes, failed capture).
    out["graph_captured"] = "Captured one enqueueV3 into a CUDA graph" in text
    warnings = [line.strip() for line in text.splitlines()
                if re.search(r"CUDA graph", line) and re.search(r"fail|not|without", line)
                and "Captured one" not in line]
    if warnings:
        out["graph_warnings"] = warnings[:3]
    return out


def summarize_times(path, batch):
    """Median/mean figures of an --exportTimes file (per-inference records)."""
    with open(path) as f:
        records = json.load(f)
    compute = [float(r["computeMs"]) for r in records]
    latency = [float(r["latencyMs"]) for r in records]
    enqueue = [float(r["endEnqMs"]) - float(r["startEnqMs"]) for r in records]
    mean_compute = statistics.fmean(compute)
    return {"runs": len(records), "compute_ms_median": statistics.median(compute), "compute_ms_min": min(compute),
            "compute_ms_mean": mean_compute, "latency_ms_median": statistics.median(latency),
            "enqueue_ms_median": statistics.median(enqueue), "enqueue_ms_mean": statistics.fmean(enqueue),
            "throughput_per_s": batch * 1000.0 / mean_compute if mean_compute > 0 else None}


def kiln_model(args, name, spec, model_path, batch, result):
    work = args.work
    tag = f"{name}_b{batch}"
    engine = os.path.join(work, f"{tag}.plan")
    shapes = shape_spec(spec["inputs"], batch)
    load = write_inputs(name, spec["inputs"], batch, work, args.seed)
    load_flag = [f"--loadInputs={','.join(load)}"] if load else []
    entry = {"model": name, "batch": batch, "precision": args.precision, "shapes": shapes}
    result["runs"].append(entry)

    build = [args.kilnexec, f"--onnx={model_path}", f"--shapes={shapes}", f"--saveEngine={engine}",
             "--skipInference", "--profilingVerbosity=detailed"]
    if args.precision in ("fp16", "bf16"):
        build.append(f"--{args.precision}")
    if args.backend:
        build.append(f"--backend={args.backend}")
    code, text, seconds = run(build, os.path.join(work, f"{tag}.build.log"), args.timeout)
    entry["build"] = {"exit": code, "wall_s": round(seconds, 2), **parse_report(text)}
    print(f"[kiln] {tag}: build exit {code} in {seconds:.1f} s", flush=True)
    if code != 0:
        entry["error"] = "build failed: " + tail(text)
        return

    timed = [args.kilnexec, f"--loadEngine={engine}", f"--shapes={shapes}", *load_flag, "--noDataTransfers",
             f"--warmUp={args.warmup_ms}", f"--iterations={args.iterations}", f"--duration={args.duration}"]
    no_auto = {"KILN_AUTO_CUDA_GRAPH": "0"}
    for kind, extra, env in (("plain", [], no_auto), ("auto", [], None), ("graph", ["--useCudaGraph"], no_auto)):
        times = os.path.join(work, f"{tag}.{kind}.times.json")
        code, text, seconds = run(timed + extra + [f"--exportTimes={times}"],
                                  os.path.join(work, f"{tag}.{kind}.log"), args.timeout, env)
        figures = {"exit": code, "wall_s": round(seconds, 2), **parse_report(text)}
        if code == 0 and os.path.exists(times):
            figures.update(summarize_times(times, batch))
            if "qps" in figures:
                figures["throughput_walltime_per_s"] = figures["qps"] * batch
        else:
            figures["error"] = tail(text)
        if kind == "graph":
            figures["graph_used"] = code == 0 and figures["graph_captured"] and "graph_warnings" not in figures
        entry[kind] = figures
        print(f"[kiln] {tag} {kind}: exit {code}"
              + (f", compute {figures['compute_ms_median']:.3f} ms, enqueue {figures['enqueue_ms_median']:.4f} ms"
                 if "compute_ms_median" in figures else ""), flush=True)

    profile = os.path.join(work, f"{tag}.profile.json")
    layers = os.path.join(work, f"{tag}.layers.json")
    code, text, seconds = run(
        [args.kilnexec, f"--loadEngine={engine}", f"--shapes={shapes}", *load_flag, "--noDataTransfers",
         f"--warmUp={args.warmup_ms}", f"--iterations={args.profile_iterations}", "--duration=0",
         "--dumpProfile", "--separateProfileRun", f"--exportProfile={profile}", f"--exportLayerInfo={layers}",
         "--profilingVerbosity=detailed"],
        os.path.join(work, f"{tag}.profile.log"), args.timeout)
    entry["profile"] = {"exit": code, "wall_s": round(seconds, 2)}
    if code == 0 and os.path.exists(profile) and os.path.exists(layers):
        entry["profile"].update({"profile_json": os.path.basename(profile), "layers_json": os.path.basename(layers)})
    else:
        entry["profile"]["error"] = tail(text)


def tail(text, lines=8):
    return "\n".join(text.strip().splitlines()[-lines:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kilnexec", required=True)
    parser.add_argument("--models", required=True, help="the folder export_models.py wrote (with models.json)")
    parser.add_argument("--work", required=True, help="folder for engines, inputs, logs and JSON files")
    parser.add_argument("--out", required=True)
    parser.add_argument("--batches", default="", help="batches of every model (default: model_table.py's)")
    parser.add_argument("--model-batches", default="", help="per-model batches: gpt2=1,8;bert=1")
    parser.add_argument("--budget-s", type=float, default=None, help="no new model/batch starts after this long")
    parser.add_argument("--only", default="", help="comma list of model names (default: all in the manifest)")
    parser.add_argument("--precision", default="fp16", choices=["fp16", "fp32", "bf16"],
                        help="the ONNX file to use (fp16 or fp32) and the builder flag (--fp16/--bf16)")
    parser.add_argument("--backend", default="cuda", help="kilnexec --backend value ('' to leave it out)")
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--profile-iterations", type=int, default=20)
    parser.add_argument("--duration", type=float, default=2.0, help="seconds of timed runs (kilnexec --duration)")
    parser.add_argument("--warmup-ms", type=int, default=300)
    parser.add_argument("--timeout", type=int, default=300, help="seconds allowed to one kilnexec command")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        only = model_table.model_names(args.only) if args.only else []
        model_table.batches_for("resnet50", args.batches, args.model_batches)   # checks both lists
    except ValueError as err:
        parser.error(str(err))

    with open(os.path.join(args.models, "models.json")) as f:
        manifest = json.load(f)
    os.makedirs(args.work, exist_ok=True)
    onnx_precision = "fp32" if args.precision == "fp32" else "fp16"
    result = {"kilnexec": os.path.abspath(args.kilnexec), "backend": args.backend, "precision": args.precision,
              "work": os.path.abspath(args.work), "iterations": args.iterations, "duration_s": args.duration,
              "runs": []}
    began = time.monotonic()
    for name, spec in manifest["models"].items():
        if only and name not in only:
            continue
        info = spec["files"].get(onnx_precision)
        batches = model_table.batches_for(name, args.batches, args.model_batches)
        if info is None:
            why = (spec.get("errors") or {}).get(onnx_precision, "")
            for batch in batches:
                result["runs"].append({"model": name, "batch": batch,
                                       "error": f"no {onnx_precision} export" + (f" ({why})" if why else "")})
            continue
        model_path = os.path.join(args.models, info["file"])
        for batch in batches:
            if args.budget_s is not None and time.monotonic() - began > args.budget_s:
                result["runs"].append({"model": name, "batch": batch, "precision": args.precision,
                                       "skipped": f"time budget ({args.budget_s:.0f} s) spent"})
                print(f"[kiln] {name}_b{batch}: skipped (budget)", flush=True)
            else:
                kiln_model(args, name, spec, model_path, batch, result)
            save(args.out, result)
    save(args.out, result)
    return 0


def save(path, result):
    """Write the results so far (a run killed by run.sh's time limit keeps what it measured)."""
    with open(path + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
