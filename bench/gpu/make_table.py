#!/usr/bin/env python3
"""Writes the GPU section of docs/performance.md from the JSON files of one run of bench/gpu/run.sh:

  system.json   machine and versions (run.sh writes it: date, GPU, driver, CUDA, CPU, Kiln commit)
  torch.json    torch_baseline.py: PyTorch eager and torch.compile, per model and batch
  kiln.json     run_kiln.py: Kiln's runs (plain, CUDA graph, profile), per model and batch; the per-layer profile
                and layer information files named there are read from its work folder
  check.json    check_outputs.py (optional, --check): Kiln's outputs against onnxruntime on the same inputs

Titles and units come from model_table.py (ResNet-50, MobileNetV3-Large, EfficientNet-B0: img/s; BERT-base, GPT-2:
seq/s); every model gets the rows of the batches it ran (e.g. GPT-2 1 and 8, the others 1 and 32).
Tables: (1) batch-1 latency and larger-batch throughput of Kiln, eager and torch.compile, with Kiln/peer ratios;
(2) enqueue (host) time per inference with and without CUDA graphs; (3) the slowest layers of each engine against
their memory and compute floors (floors.py); (4) with --check, the output check (max abs/rel diff, top-1
agreement, verdict per model, batch and output; a missing check.json or a failed case shows as FAILED). Missing or failed runs show as "—" or "failed", with the reason in
the notes, never as a number.

Usage: python3 bench/gpu/make_table.py --system system.json --torch torch.json --kiln kiln.json [--top 8]
           [--check check.json] [--out table.md]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floors  # noqa: E402
import model_table  # noqa: E402

MODEL_TITLES = {m: model_table.title(m) for m in model_table.MODELS}
UNITS = {m: model_table.unit(m) for m in model_table.MODELS}


def load(path):
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def fmt(value, digits=3):
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:.1f}"
    return f"{value:.{digits}g}" if abs(value) < 1 else f"{value:.{digits}f}".rstrip("0").rstrip(".")


def ratio(a, b):
    return a / b if a and b else None


def torch_lookup(torch_data):
    table = {}
    for r in (torch_data or {}).get("runs", []):
        table[(r["model"], r["mode"], r["batch"])] = r
    return table


def kiln_lookup(kiln_data):
    table = {}
    for r in (kiln_data or {}).get("runs", []):
        if "batch" in r:
            table[(r["model"], r["batch"])] = r
    return table


def metric_torch(run, batch):
    """Batch 1: median latency in ms; other batches: throughput per second. None when missing or failed."""
    if run is None or "error" in run or "skipped" in run:
        return None
    return run.get("latency_ms_median") if batch == 1 else run.get("throughput_per_s")


def metric_kiln(part, batch):
    if not part or part.get("exit") != 0:
        return None
    return part.get("compute_ms_median") if batch == 1 else part.get("throughput_per_s")


def status_torch(run):
    if run is None:
        return "—"
    if "skipped" in run:
        return "skipped"
    if "error" in run:
        return "failed"
    return None


def header(system, torch_data, kiln_data, models=()):
    s = system or {}
    lines = [f"## GPU backend — {s.get('date', '?')}", ""]
    lines.append(f"**Machine:** {s.get('gpu', '?')} (driver {s.get('driver', '?')}, CUDA {s.get('cuda', '?')}), "
                 f"{s.get('cpu', '?')}, {s.get('cores', '?')} cores. Kiln {s.get('kiln_commit', '?')} "
                 f"({s.get('kiln_build', 'RelWithDebInfo')}); PyTorch {(torch_data or {}).get('torch', '?')} "
                 f"(CUDA {(torch_data or {}).get('cuda', '?')}, cuDNN {(torch_data or {}).get('cudnn', '?')}), "
                 f"torchvision {(torch_data or {}).get('torchvision', '?')}, transformers "
                 f"{(torch_data or {}).get('transformers', '?')}.")
    lines.append("")
    names = [m for m in model_table.ORDER if m in set(models)] + [m for m in models if m not in model_table.MODELS]
    described = "; ".join(f"{model_table.title(m)}: {model_table.MODELS[m]['source']}" if m in model_table.MODELS
                          else m for m in names)
    lines.append("Models (random weights): " + (described or "none") + ". Exported to FP16 ONNX (opset 17, dynamic "
                 "batch) by `bench/gpu/export_models.py` in the same run. Kiln: `kilnexec --fp16 --backend=cuda`, one "
                 "engine per batch (min = opt = max), `--noDataTransfers` (inputs uploaded once), time = GPU compute "
                 "time per inference (CUDA events around `enqueueV3`, median), throughput = batch / mean compute "
                 "time. PyTorch: FP16 `model.half()`, `torch.inference_mode()`, `cudnn.benchmark`, CUDA events; latency = median of "
                 f"{(torch_data or {}).get('iters', '?')} synchronised runs, throughput = batch × runs / time of "
                 "back-to-back runs. torch.compile: Inductor, `dynamic=False` (one compilation per batch); the mode "
                 "is in the column name; compile time is not in the figures. Reproduce: `bench/gpu/run.sh` "
                 "(bench/gpu/README.md).")
    lines.append("")
    return lines


def speed_table(torch_data, kiln_data, models, batches, modes):
    tl, kl = torch_lookup(torch_data), kiln_lookup(kiln_data)
    lines = []
    cols = ["model", "batch", "metric", "Kiln", "Kiln + CUDA graph"] + [mode_title(m) for m in modes]
    cols += [f"Kiln / {mode_title(m)}" for m in modes]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "---|" * len(cols))
    for model in models:
        for batch in batches.get(model, []):
            k = kl.get((model, batch), {})
            kiln_plain = metric_kiln(k.get("plain"), batch)
            kiln_graph = metric_kiln(k.get("graph"), batch) if (k.get("graph") or {}).get("graph_used") else None
            metric = "latency (ms, lower is better)" if batch == 1 else f"throughput ({UNITS.get(model, '/s')})"
            row = [MODEL_TITLES.get(model, model), str(batch), metric,
                   fmt(kiln_plain) if kiln_plain is not None else kiln_status(k),
                   fmt(kiln_graph) if kiln_graph is not None else graph_status(k)]
            peers = []
            for m in modes:
                run = tl.get((model, m, batch))
                value = metric_torch(run, batch)
                peers.append(value)
                row.append(fmt(value) if value is not None else (status_torch(run) or "—"))
            for value in peers:
                # Ratio of Kiln's time to the peer's: batch 1 latency / latency, batch N peer rate / Kiln rate.
                r = ratio(kiln_plain, value) if batch == 1 else ratio(value, kiln_plain)
                row.append(f"{r:.2f}×" if r else "—")
            lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("Kiln / peer is Kiln's time over the peer's time (Kiln without CUDA graphs, as the PyTorch runs use "
                 "none): above 1 Kiln is slower.")
    lines.append("")
    return lines


def kiln_status(k):
    """The word for a Kiln cell without a figure: not run at all, skipped for the time budget, or failed."""
    if not k:
        return "—"
    return "skipped" if "skipped" in k else "failed"


def graph_status(k):
    g = k.get("graph") if k else None
    if not g:
        return "skipped" if k and "skipped" in k else "—"
    if g.get("exit") != 0:
        return "failed"
    return "not used"


def mode_title(mode):
    return "eager" if mode == "eager" else f"compile ({mode})"


def enqueue_table(kiln_data, models, batches):
    kl = kiln_lookup(kiln_data)
    lines = ["| model | batch | enqueue (ms), plain `enqueueV3` | enqueue (ms), automatic graph (no flag) | "
             "enqueue (ms), --useCudaGraph replay | GPU compute (ms), plain | GPU compute (ms), automatic graph | "
             "GPU compute (ms), --useCudaGraph | graph used |", "|---|---|---|---|---|---|---|---|---|"]
    for model in models:
        for batch in batches.get(model, []):
            k = kl.get((model, batch), {})
            p, a, g = k.get("plain") or {}, k.get("auto") or {}, k.get("graph") or {}
            used = g.get("graph_used")
            lines.append("| " + " | ".join([
                MODEL_TITLES.get(model, model), str(batch), fmt(p.get("enqueue_ms_median")),
                fmt(a.get("enqueue_ms_median")), fmt(g.get("enqueue_ms_median")) if used else "—",
                fmt(p.get("compute_ms_median")), fmt(a.get("compute_ms_median")),
                fmt(g.get("compute_ms_median")) if used else "—",
                "yes" if used else ("no" if g else "—")]) + " |")
    lines.append("")
    lines.append("Enqueue = host wall time of one `enqueueV3` call (plain: KILN_AUTO_CUDA_GRAPH=0; automatic: Kiln's "
                 "default, which replays its own graph from the third run on) or of one `cudaGraphLaunch` "
                 "(--useCudaGraph), median over the timed runs (kilnexec --exportTimes, endEnqMs − startEnqMs).")
    lines.append("")
    return lines


def floor_tables(kiln_data, system, models, batches, top, notes):
    kl = kiln_lookup(kiln_data)
    work = (kiln_data or {}).get("work", "")
    gpu = (system or {}).get("gpu", "")
    lines = []
    peak_line = None
    for model in models:
        for batch in batches.get(model, []):
            k = kl.get((model, batch), {})
            prof = k.get("profile") or {}
            if "profile_json" not in prof:
                if k:
                    reason = (prof.get("error") or "not run").strip().splitlines() or ["failed"]
                    notes.append(f"{model} batch {batch}: no per-layer profile ({reason[-1]})")
                continue
            data = floors.floors_for(os.path.join(work, prof["layers_json"]), os.path.join(work, prof["profile_json"]),
                                     gpu, top, batch=batch)
            peak = data["peak"]
            if peak and peak_line is None:
                peak_line = (f"Floors use the {peak['label']} datasheet peaks: {peak['fp16_dense_tflops']} TFLOP/s "
                             f"dense FP16 tensor core, {peak['hbm_tbps']} TB/s HBM (bench/gpu/floors.py cites the "
                             "sources). Memory floor = bytes of the layer's inputs, outputs and weights / bandwidth; "
                             "compute floor = FLOPs / peak (convolutions with their group count, matrix products, fused "
                             "attention); ratio = measured / max(floors).")
            lines.append(f"**{MODEL_TITLES.get(model, model)}, batch {batch}** — {data['layers_profiled']} layers, "
                         f"{fmt(data['profile_total_ms'])} ms in the profile run (sum of layer times):")
            lines.append("")
            lines.append("| layer | kind | output | time (ms) | share | memory floor (ms) | compute floor (ms) | "
                         "bound | measured / floor |")
            lines.append("|---|---|---|---|---|---|---|---|---|")
            for r in data["rows"]:
                name = r["name"] if len(r["name"]) <= 48 else r["name"][:45] + "..."
                dims = "×".join(str(d) for d in r.get("output_dims", []))
                lines.append("| " + " | ".join([
                    f"`{name}`", r.get("kind", "?"), dims, fmt(r["measured_ms"]),
                    f"{100 * r['share']:.1f}%" if r.get("share") is not None else "—",
                    fmt(r.get("memory_floor_ms")), fmt(r.get("compute_floor_ms")), r.get("bound", "—"),
                    f"{r['ratio']:.1f}×" if r.get("ratio") else "—"]) + " |")
            lines.append("")
            if peak is None:
                notes.append(f"GPU '{gpu}' is not in floors.py's peak table: no floors computed")
    if peak_line:
        lines.insert(0, "")
        lines.insert(0, peak_line)
    if not lines:
        lines = ["No per-layer profile was collected (see the notes).", ""]
    return lines


def check_section(check_data, title="Output check", file="check.json"):
    """The "Output check" section from check_outputs.py's check.json: one row per model, batch and output."""
    lines = [f"### {title}", ""]
    if check_data is None:
        return lines + [f"Not run or no result: {file} is missing (see logs/): **FAILED**.", ""]
    lines += ["| model | batch | output | max abs diff | max rel diff | top-1 agreement | verdict |",
              "|---|---|---|---|---|---|---|"]
    notes, references = [], []
    for case in check_data.get("cases", []):
        model, batch = case.get("model", "?"), case.get("batch", "?")
        title = MODEL_TITLES.get(model, model)
        status = case.get("status", "pending")
        outputs = case.get("outputs") or []
        if case.get("reference") and case["reference"] not in references:
            references.append(case["reference"])
        if not outputs:
            verdict = {"skipped": "skipped", "pending": "FAILED (not finished)"}.get(status, "FAILED")
            lines.append(f"| {title} | {batch} | — | — | — | — | {verdict} |")
        for o in outputs:
            top1 = "—"
            if "top1_rows" in o:
                top1 = f"{o['top1_equal']}/{o['top1_rows']}"
                if o.get("top1_near_ties"):
                    top1 += f" (+{o['top1_near_ties']} near tie)"
            verdict = "pass" if o.get("passed") else "FAILED"
            lines.append("| " + " | ".join([title, str(batch), f"`{o.get('output', '?')}`",
                                             f"{o['max_abs_diff']:.3g}" if "max_abs_diff" in o else "—",
                                             f"{o['max_rel_diff']:.3g}" if o.get("max_rel_diff") is not None
                                             else "—", top1, verdict]) + " |")
        if case.get("reason"):
            notes.append(f"{title} batch {batch} {status}: {case['reason'].strip().splitlines()[-1]}")
    lines.append("")
    lines.append(f"Same random inputs (seed {check_data.get('seed', '?')}; images uniform in [-1, 1], token ids "
                 "uniform over the vocabulary, all-ones attention mask) to Kiln (`kilnexec --loadInputs "
                 f"--exportOutput`, backend {check_data.get('backend') or 'default'}, "
                 f"{check_data.get('precision', '?')}) and to the reference: "
                 + ("; ".join(references) if references else "onnxruntime on the CPU") + ". "
                 f"Max rel diff: {check_data.get('rel_floor', '?')}. Pass thresholds "
                 f"({str(check_data.get('precision', 'fp16')).upper()} end to end): "
                 + "; ".join(f"{MODEL_TITLES.get(m, m)}: {t}" for m, t in check_data.get("thresholds", {}).items())
                 + ". A failed run, a missing output, a shape mismatch or a NaN/Inf where the reference is finite "
                 "is a failure; the weights are random, so this checks agreement, not accuracy.")
    lines.append("")
    lines += [f"- {n}" for n in notes] + ([""] if notes else [])
    return lines


def notes_for(torch_data, kiln_data):
    notes = []
    for r in (torch_data or {}).get("runs", []):
        if "error" in r:
            notes.append(f"PyTorch {r['model']} {r['mode']} batch {r['batch']} failed: {r['error']}")
        if "skipped" in r:
            notes.append(f"PyTorch {r['model']} {r['mode']} batch {r['batch']} skipped: {r['skipped']}")
        if "compile_s" in r:
            notes.append(f"torch.compile {r['mode']} {r['model']} batch {r['batch']}: first call "
                         f"(compilation) {r['compile_s']} s")
    for r in (kiln_data or {}).get("runs", []):
        tag = f"Kiln {r.get('model')} batch {r.get('batch')}"
        if "error" in r:
            notes.append(f"{tag}: {r['error'].splitlines()[-1] if r['error'] else 'failed'}")
        if "skipped" in r:
            notes.append(f"{tag} skipped: {r['skipped']}")
        build = r.get("build") or {}
        if build.get("exit") == 0:
            notes.append(f"{tag}: engine build {fmt(build.get('engine_build_s'))} s as kilnexec reports it, "
                         f"{fmt(build.get('wall_s'))} s for the whole kilnexec command (parse, build, save)")
        for kind in ("plain", "auto", "graph"):
            part = r.get(kind) or {}
            if part.get("error"):
                notes.append(f"{tag} {kind} run failed: {part['error'].splitlines()[-1]}")
            for w in part.get("graph_warnings", []):
                notes.append(f"{tag} {kind}: {w}")
    return notes


def make_markdown(system, torch_data, kiln_data, top=8, check_data=None, with_check=False, bf16_data=None,
                  with_bf16=False):
    models = []
    for source in ((kiln_data or {}).get("runs", []), (torch_data or {}).get("runs", [])):
        for r in source:
            if r.get("model") and r["model"] not in models:
                models.append(r["model"])
    batches = {m: sorted({r["batch"] for r in (kiln_data or {}).get("runs", []) + (torch_data or {}).get("runs", [])
                          if "batch" in r and r.get("model") == m}) for m in models}
    modes = []
    for r in (torch_data or {}).get("runs", []):
        if r["mode"] not in modes:
            modes.append(r["mode"])
    notes = notes_for(torch_data, kiln_data)
    lines = header(system, torch_data, kiln_data, models)
    lines += ["### Latency and throughput", ""] + speed_table(torch_data, kiln_data, models, batches, modes)
    lines += ["### Enqueue (host) time per inference", ""] + enqueue_table(kiln_data, models, batches)
    lines += ["### Slowest layers against their floors", ""]
    lines += floor_tables(kiln_data, system, models, batches, top, notes)
    if with_check:
        lines += check_section(check_data)
    if with_bf16:
        lines += check_section(bf16_data, "Output check in BF16 (FP32 exports built with --bf16)", "check-bf16.json")
    if notes:
        lines += ["### Notes from the run", ""] + [f"- {n}" for n in notes] + [""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--system", default=None)
    parser.add_argument("--torch", default=None)
    parser.add_argument("--kiln", default=None)
    parser.add_argument("--check", default=None, help="check_outputs.py's check.json (adds the Output check)")
    parser.add_argument("--check-bf16", default=None, help="check_outputs.py --precision bf16's result (adds a section)")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    text = make_markdown(load(args.system), load(args.torch), load(args.kiln), args.top, load(args.check),
                         with_check=args.check is not None, bf16_data=load(args.check_bf16),
                         with_bf16=args.check_bf16 is not None)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
