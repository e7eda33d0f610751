#!/usr/bin/env python3
"""PyTorch baselines of the GPU performance table: the same models as export_models.py (resnet50, mobilenetv3,
efficientnet, bert, gpt2: random weights, FP16 `.half()`, eval, torch.inference_mode, the inputs of model_table.py:
images from randn, token ids in the model's vocabulary, all-ones masks) run by PyTorch eager and by torch.compile,
timed with CUDA events.

Per model, batch and mode:
  latency     median of --iters runs, each between two CUDA events and synchronised on its own (GPU time of one
              inference; the host launch cost shows only where the GPU waits for it, as in eager at batch 1)
  throughput  batch * --iters / time of --iters back-to-back runs between two events
  compile_s   torch.compile only: the wall time of the first call at that batch (compilation plus one run)

torch.compile modes: "default" (Inductor, no CUDA graphs) and "max-autotune-no-cudagraphs" (Inductor with Triton /
cuBLAS template autotuning, no CUDA graphs), chosen with --modes. The models are compiled with dynamic=False, so
every batch gets its own static compilation (no symbolic batch). torch.backends.cudnn.benchmark is on for every
mode. No new compilation (model, mode, batch) starts once --budget-s has passed; those are recorded as skipped.

Batches: --batches applies to every model; without it each model gets model_table.py's default (1,32; GPT-2 1,8);
--model-batches "gpt2=1,8;bert=1" overrides single models.

Usage: python3 bench/gpu/torch_baseline.py --out torch.json [--models resnet50,bert|all] [--batches 1,32]
           [--model-batches gpt2=1,8] [--modes eager,default,max-autotune-no-cudagraphs] [--iters 50]
           [--warmup 10] [--budget-s 300]
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_table  # noqa: E402
from export_models import make_inputs as export_inputs, make_module  # noqa: E402  (also sets the HF offline switches)


def make_inputs(name, batch, device):
    """The model's inputs (model_table.py): images from randn in FP16, token ids in its vocabulary, masks of ones."""
    import torch

    return export_inputs(name, batch, device, torch.float16)


def make_model(name, device):
    return make_module(name).eval().to(device).half()


def time_model_host(fn, inputs, iters, warmup):
    """time_model for --device cpu (tests of this script without a GPU): wall-clock times instead of events."""
    for _ in range(warmup):
        fn(*inputs)
    latencies = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn(*inputs)
        latencies.append((time.perf_counter() - t0) * 1000.0)
    t0 = time.perf_counter()
    for _ in range(iters):
        fn(*inputs)
    return latencies, (time.perf_counter() - t0) * 1000.0 / iters


def time_model(fn, inputs, iters, warmup):
    """(latencies in ms of synchronised single runs, mean ms per run of a back-to-back loop)."""
    import torch

    for _ in range(warmup):
        fn(*inputs)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    latencies = []
    for _ in range(iters):
        start.record()
        fn(*inputs)
        end.record()
        end.synchronize()
        latencies.append(start.elapsed_time(end))
    start.record()
    for _ in range(iters):
        fn(*inputs)
    end.record()
    end.synchronize()
    return latencies, start.elapsed_time(end) / iters


def summarize(latencies, loop_ms, batch):
    return {"latency_ms_median": statistics.median(latencies), "latency_ms_min": min(latencies),
            "latency_ms_mean": statistics.fmean(latencies), "loop_ms_per_batch": loop_ms,
            "throughput_per_s": batch * 1000.0 / loop_ms, "iters": len(latencies)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=model_table.DEFAULT_MODELS, help="comma list, or all")
    parser.add_argument("--batches", default="", help="batches of every model (default: model_table.py's)")
    parser.add_argument("--model-batches", default="", help="per-model batches: gpt2=1,8;bert=1")
    parser.add_argument("--modes", default="eager,default")
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--budget-s", type=float, default=300.0, help="stop compiling new modes after this long")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cuda", help="cuda; cpu only to test this script (wall-clock timing)")
    args = parser.parse_args(argv)

    import torch

    device = args.device
    if device == "cuda" and not torch.cuda.is_available():
        print("torch_baseline: no CUDA device: nothing to measure", file=sys.stderr)
        return 3
    on_gpu = device == "cuda"
    # cuDNN picks its fastest convolution algorithm per shape (as TensorRT-style engines do at build time).
    torch.backends.cudnn.benchmark = True
    sync = torch.cuda.synchronize if on_gpu else (lambda: None)
    timer = time_model if on_gpu else time_model_host
    began = time.perf_counter()
    try:
        names = model_table.model_names(args.models)
        batches_of = {n: model_table.batches_for(n, args.batches, args.model_batches) for n in names}
    except ValueError as err:
        parser.error(str(err))
    modes = [m for m in args.modes.split(",") if m]
    result = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
              "gpu": torch.cuda.get_device_name(0) if on_gpu else "none (cpu test run)", "iters": args.iters,
              "warmup": args.warmup, "compile_dynamic": False, "cudnn_benchmark": True,
              "timing": "cuda events" if on_gpu else "wall clock",
              "runs": []}
    try:
        import transformers

        result["transformers"] = transformers.__version__
    except ImportError:
        pass
    try:
        import torchvision

        result["torchvision"] = torchvision.__version__
    except ImportError:
        pass

    for name in names:
        torch.manual_seed(args.seed)
        try:
            model = make_model(name, device)
        except Exception as err:  # noqa: BLE001 - a model that cannot be built fails its rows, not the script
            for mode in modes:
                for batch in batches_of[name]:
                    result["runs"].append({"model": name, "mode": mode, "batch": batch,
                                           "error": f"building the model: {type(err).__name__}: {err}"[:500]})
            save(args.out, result, began)
            print(f"[torch] {name}: {type(err).__name__}: {err}", flush=True)
            continue
        for mode in modes:
            if mode == "eager":
                fn = model
            else:
                torch._dynamo.reset()
                fn = torch.compile(model, mode=mode, dynamic=False)
            for batch in batches_of[name]:
                entry = {"model": name, "mode": mode, "batch": batch}
                elapsed = time.perf_counter() - began
                if mode != "eager" and elapsed > args.budget_s:
                    # dynamic=False: every batch is a compilation of its own; none starts after the budget.
                    entry["skipped"] = f"time budget ({args.budget_s:.0f} s) spent"
                    result["runs"].append(entry)
                    save(args.out, result, began)
                    print(f"[torch] {name} {mode} b{batch}: skipped (budget)", flush=True)
                    continue
                try:
                    with torch.inference_mode():
                        torch.manual_seed(args.seed + batch)
                        inputs = make_inputs(name, batch, device)
                        t0 = time.perf_counter()
                        fn(*inputs)
                        sync()
                        first = time.perf_counter() - t0
                        latencies, loop_ms = timer(fn, inputs, args.iters, args.warmup)
                    entry.update(summarize(latencies, loop_ms, batch))
                    if mode != "eager":
                        entry["compile_s"] = round(first, 2)
                except Exception as err:  # a failed compilation is a result too; the other runs go on
                    entry["error"] = f"{type(err).__name__}: {err}"[:500]
                result["runs"].append(entry)
                save(args.out, result, began)
                print(f"[torch] {name} {mode} b{batch}: "
                      + (f"{entry['latency_ms_median']:.3f} ms, {entry['throughput_per_s']:.1f}/s"
                         if "latency_ms_median" in entry else entry.get("error", "")), flush=True)
        del model
        if on_gpu:
            torch.cuda.empty_cache()
    save(args.out, result, began)
    return 0


def save(path, result, began):
    """Write the results so far (after every run: a run killed by run.sh's time limit keeps what it measured)."""
    result["seconds"] = round(time.perf_counter() - began, 1)
    with open(path + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
