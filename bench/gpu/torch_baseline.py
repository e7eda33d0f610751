#!/usr/bin/env python3
"""PyTorch baselines of the GPU performance table: the same models as export_models.py (random weights, FP16,
eval, torch.inference_mode) run by PyTorch eager and by torch.compile, timed with CUDA events.

Per model, batch and mode:
  latency     median of --iters runs, each between two CUDA events and synchronised on its own (GPU time of one
              inference; the host launch cost shows only where the GPU waits for it, as in eager at batch 1)
  throughput  batch * --iters / time of --iters back-to-back runs between two events
  compile_s   torch.compile only: the wall time of the first call at that batch (compilation plus one run)

torch.compile modes: "default" (Inductor, no CUDA graphs) and "max-autotune-no-cudagraphs" (Inductor with Triton /
cuBLAS template autotuning, no CUDA graphs), chosen with --modes. The models are compiled with dynamic=False, so
every batch gets its own static compilation (no symbolic batch). torch.backends.cudnn.benchmark is on for every
mode. A mode is skipped, and recorded as skipped, when
the remaining --budget-s would not allow it.

Usage: python3 bench/gpu/torch_baseline.py --out torch.json [--models resnet50,bert] [--batches 1,32]
           [--modes eager,default,max-autotune-no-cudagraphs] [--iters 50] [--warmup 10] [--budget-s 300]
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_models import SEQ_LEN, build_bert, build_resnet50  # noqa: E402  (also sets the HF offline switches)


def make_inputs(name, batch, device):
    import torch

    if name == "resnet50":
        return (torch.randn(batch, 3, 224, 224, dtype=torch.float16, device=device),)
    ids = torch.randint(0, 30522, (batch, SEQ_LEN), dtype=torch.int64, device=device)
    mask = torch.ones(batch, SEQ_LEN, dtype=torch.int64, device=device)
    return (ids, mask)


def make_model(name, device):
    import torch

    if name == "resnet50":
        model = build_resnet50()
    else:
        bert = build_bert()

        class Wrapped(torch.nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, input_ids, attention_mask):
                out = self.inner(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
                return out.last_hidden_state, out.pooler_output

        model = Wrapped(bert)
    return model.eval().to(device).half()


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
    parser.add_argument("--models", default="resnet50,bert")
    parser.add_argument("--batches", default="1,32")
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
    batches = [int(b) for b in args.batches.split(",") if b]
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

    for name in [m for m in args.models.split(",") if m]:
        torch.manual_seed(args.seed)
        model = make_model(name, device)
        for mode in modes:
            elapsed = time.perf_counter() - began
            if mode != "eager" and elapsed > args.budget_s:
                for batch in batches:
                    result["runs"].append({"model": name, "mode": mode, "batch": batch,
                                           "skipped": f"time budget ({args.budget_s:.0f} s) spent"})
                save(args.out, result, began)
                print(f"[torch] {name} {mode}: skipped (budget)", flush=True)
                continue
            if mode == "eager":
                fn = model
            else:
                torch._dynamo.reset()
                fn = torch.compile(model, mode=mode, dynamic=False)
            for batch in batches:
                entry = {"model": name, "mode": mode, "batch": batch}
                try:
                    with torch.inference_mode():
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
