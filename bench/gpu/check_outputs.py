#!/usr/bin/env python3
"""Whole-model output check of the GPU benchmark: feeds the same random inputs to onnxruntime (CPU) and to a Kiln
engine (kilnexec, CUDA backend by default) and compares the outputs.

Cases are model:batch pairs. Default: one case per model of models.json (the models of the run), at batch 1, or
at the model's smallest batch in kiln.json when batch 1 was not run; and bert:2 when BERT is there. Per case:

  inputs     fixed seed; float inputs uniform in [-1, 1] (rounded to FP16 for the FP16 model, and the same values
             given to an FP32 reference); input_ids uniform over the model's vocabulary (BERT [0, 30522), GPT-2
             [0, 50257): models.json's "vocab", else model_table.py's; --vocab overrides both), attention masks all
             ones (as the export and run_kiln.py use)
  reference  onnxruntime CPUExecutionProvider on the same ONNX file Kiln ran (<model>_fp16.onnx); when ORT cannot
             load or run it, the FP32 export (<model>_fp32.onnx, EXPORT_FP32=1) if there is one
  Kiln       the engine run_kiln.py saved for that model and batch (kiln.json), run once with --loadInputs and
             --exportOutput; when there is no such engine (BERT batch 2 with the default BATCHES), kilnexec builds
             one from the ONNX file in the same command, but only when the build time run_kiln.py measured for that
             model fits in what is left of --budget-s
  compare    per output: max abs diff, mean abs diff, max rel diff over the reference values with
             |ref| >= 10% of max |ref|, non-finite values; for classifier logits the top-1 class of every row

Verdict (THRESHOLDS below, one table from model_table.py, stated in the table notes): the classifiers' logits
(ResNet-50, MobileNetV3-Large, EfficientNet-B0): max abs diff <= 5% of the reference logit range (max - min; batch
norm in eval mode with random weights can make the logits large, so the rule is relative) and the same top-1 class
in every row (a "near tie", where the reference's logits of the two classes differ by less than 1% of the range,
counts as agreement and is marked); BERT and GPT-2 outputs: max abs diff <= 0.05 (the values are O(1), after a
layer norm). A model not in the table: max abs diff <= 0.05 × max(1, max |ref|).
--precision bf16: Kiln builds the FP32 export (<model>_fp32.onnx, EXPORT_FP32=1) with --bf16 (the FP16 export's
tensors are typed FP16 and stay FP16 whatever the flag), never reuses run_kiln.py's FP16 engines, and the
tolerances and near-tie gaps are BF16_FACTOR (4) times the FP16 ones: BF16 keeps 8 significand bits to FP16's 11. Any NaN/Inf in Kiln's output where the reference is finite, a shape mismatch, a missing output
or a failed run is a failure.

check.json is rewritten after every case (a run cut short by run.sh's timeout keeps the finished cases; the others
stay "pending" and the table shows them as FAILED). The script always exits 0 unless its arguments are wrong.

Usage: python3 bench/gpu/check_outputs.py --kilnexec K --models DIR --kiln-json kiln.json --work DIR --out check.json
           [--cases resnet50:1,bert:1,bert:2] [--backend cuda] [--budget-s 40] [--seed 7] [--vocab N]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_table  # noqa: E402

# model -> output checked for top-1 agreement
CLASSIFIERS = {m: model_table.classifier_output(m) for m in model_table.MODELS if model_table.classifier_output(m)}
# Pass thresholds. "range": max abs diff <= factor * (max - min of the reference output); "abs": <= the value.
THRESHOLDS = {m: model_table.threshold(m) for m in model_table.MODELS}
DEFAULT_THRESHOLD = {"kind": "scale", "value": 5e-2}   # <= value * max(1, max |ref|) for any other model
REL_FLOOR = 0.1                                          # max rel diff over |ref| >= REL_FLOOR * max |ref|
BF16_FACTOR = 4.0                                        # BF16 tolerances: 2^-8 against FP16's 2^-11 spacing, 8x,
                                                         # of which half is kept (errors partly average out)


def threshold_for(model, precision="fp16"):
    """The model's threshold, scaled by BF16_FACTOR for BF16 engines."""
    t = dict(THRESHOLDS.get(model, DEFAULT_THRESHOLD))
    if precision == "bf16":
        t["value"] = t["value"] * BF16_FACTOR
        t["tie"] = t.get("tie", 0.0) * BF16_FACTOR
    return t


def threshold_text(model, precision="fp16"):
    t = threshold_for(model, precision)
    if t["kind"] == "range":
        text = f"max abs diff <= {t['value']:g} × reference range"
    elif t["kind"] == "abs":
        text = f"max abs diff <= {t['value']:g}"
    else:
        text = f"max abs diff <= {t['value']:g} × max(1, max |ref|)"
    if model in CLASSIFIERS:
        text += f", top-1 equal (near tie: reference gap < {t.get('tie', 0):g} × range)"
    return text


def make_inputs(model, spec, batch, seed, float_dtype, vocab=None):
    """Named numpy inputs for one case: the same values for every consumer (the FP32 reference gets them cast).
    Integer inputs: model_table.int_input_range (masks all ones, token ids over the vocabulary; `vocab` overrides)."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for i in spec["inputs"]:
        shape = [batch] + list(i["shape"])
        if i["type"] == "float":
            feeds[i["name"]] = rng.uniform(-1.0, 1.0, size=shape).astype(float_dtype)
        else:
            low, high = model_table.int_input_range(model, i, vocab)
            feeds[i["name"]] = rng.integers(low, high, size=shape, dtype=np.int64)
    return feeds


def ort_dtype(type_text):
    return {"tensor(float16)": np.float16, "tensor(float)": np.float32, "tensor(double)": np.float64,
            "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(bool)": np.bool_}.get(type_text)


class Reference:
    """onnxruntime sessions on the CPU, one per model; falls back to the FP32 file when the FP16 one fails."""

    def __init__(self, models_dir, manifest):
        self.models_dir = models_dir
        self.manifest = manifest
        self.sessions = {}

    def _session(self, path):
        import onnxruntime as ort

        if path not in self.sessions:
            options = ort.SessionOptions()
            options.log_severity_level = 3
            self.sessions[path] = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        return self.sessions[path]

    def run(self, model, first_precision, feeds):
        """(outputs by name, the file used, notes). Raises when no reference file could run."""
        files = self.manifest["models"][model]["files"]
        order = [first_precision] + [p for p in ("fp16", "fp32") if p != first_precision]
        notes, last = [], None
        for precision in order:
            if precision not in files:
                continue
            path = os.path.join(self.models_dir, files[precision]["file"])
            try:
                session = self._session(path)
                cast = {}
                for i in session.get_inputs():
                    dtype = ort_dtype(i.type)
                    cast[i.name] = feeds[i.name].astype(dtype) if dtype is not None else feeds[i.name]
                names = [o.name for o in session.get_outputs()]
                values = session.run(names, cast)
                return dict(zip(names, values)), files[precision]["file"], notes
            except Exception as err:  # noqa: BLE001 - any ORT failure moves on to the next file
                text = str(err) if len(str(err)) <= 400 else str(err)[:150] + " ... " + str(err)[-250:]
                last = f"onnxruntime on {files[precision]['file']}: {type(err).__name__}: {text}"
                notes.append(last)
        raise RuntimeError(last or f"no ONNX file of {model} to run")


def read_kiln_outputs(path):
    """{name: (dims list, float64 array)} from a kilnexec --exportOutput file ("NaN"/"Infinity" strings allowed)."""
    with open(path) as f:
        data = json.load(f)
    special = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}
    out = {}
    for tensor in data:
        dims_text = tensor["dimensions"]
        dims = [] if dims_text == "scalar" else [int(d) for d in dims_text.split("x")]
        values = np.array([special[v] if isinstance(v, str) else v for v in tensor["values"]], dtype=np.float64)
        out[tensor["name"]] = (dims, values)
    return out


def compare(model, name, ref, kiln_dims, kiln_values, precision="fp16"):
    """Figures and verdict of one output."""
    ref = np.asarray(ref, dtype=np.float64)
    entry = {"output": name, "shape": list(ref.shape), "kiln_shape": kiln_dims}
    if list(ref.shape) != list(kiln_dims) or ref.size != kiln_values.size:
        entry.update(passed=False, reason=f"shape {kiln_dims} instead of the reference's {list(ref.shape)}")
        return entry
    kiln = kiln_values.reshape(ref.shape)
    finite = np.isfinite(ref)
    bad = int(np.count_nonzero(finite & ~np.isfinite(kiln)))
    both = finite & np.isfinite(kiln)
    diff = np.abs(kiln - ref)[both]
    ref_abs_max = float(np.abs(ref[finite]).max()) if finite.any() else 0.0
    ref_range = float(ref[finite].max() - ref[finite].min()) if finite.any() else 0.0
    floor = REL_FLOOR * ref_abs_max
    big = both & (np.abs(ref) >= floor) & (np.abs(ref) > 0)
    rel = (np.abs(kiln - ref)[big] / np.abs(ref[big])) if big.any() else np.zeros(0)
    t = threshold_for(model, precision)
    if t["kind"] == "range":
        tolerance = t["value"] * ref_range
    elif t["kind"] == "abs":
        tolerance = t["value"]
    else:
        tolerance = t["value"] * max(1.0, ref_abs_max)
    max_abs = float(diff.max()) if diff.size else 0.0
    entry.update(max_abs_diff=max_abs, mean_abs_diff=float(diff.mean()) if diff.size else 0.0,
                 max_rel_diff=float(rel.max()) if rel.size else None, rel_floor=floor, ref_abs_max=ref_abs_max,
                 ref_range=ref_range, tolerance=tolerance, nonfinite=bad)
    reasons = []
    if ref.size > 1 and ref_range == 0.0:
        # A constant reference (all zeros, say) cannot tell a right engine from a wrong one: not a pass.
        reasons.append("the reference output is constant (range 0): the check cannot tell right from wrong")
    if bad:
        reasons.append(f"{bad} non-finite values where the reference is finite")
    if max_abs > tolerance:
        reasons.append(f"max abs diff {max_abs:.4g} > {tolerance:.4g}")
    if CLASSIFIERS.get(model) == name and ref.ndim == 2:
        ref_top = ref.argmax(axis=1)
        kiln_top = np.where(np.isfinite(kiln), kiln, -np.inf).argmax(axis=1)
        rows = np.arange(ref.shape[0])
        gap = ref[rows, ref_top] - ref[rows, kiln_top]
        tie = t.get("tie", 0.0) * ref_range
        equal = int(np.count_nonzero(ref_top == kiln_top))
        ties = int(np.count_nonzero((ref_top != kiln_top) & (gap < tie)))
        entry.update(top1_equal=equal, top1_near_ties=ties, top1_rows=int(ref.shape[0]),
                     top1_ref=[int(v) for v in ref_top], top1_kiln=[int(v) for v in kiln_top])
        if equal + ties < ref.shape[0]:
            reasons.append(f"top-1 differs in {ref.shape[0] - equal - ties} of {ref.shape[0]} rows")
    entry["passed"] = not reasons
    if reasons:
        entry["reason"] = "; ".join(reasons)
    return entry


def find_engine(kiln, model, batch):
    """The saved engine of run_kiln.py for model and batch, or None."""
    work = (kiln or {}).get("work", "")
    for r in (kiln or {}).get("runs", []):
        if r.get("model") == model and r.get("batch") == batch and (r.get("build") or {}).get("exit") == 0:
            path = os.path.join(work, f"{model}_b{batch}.plan")
            if os.path.exists(path):
                return path
    return None


def build_estimate(kiln, model):
    """The longest kilnexec build (seconds) run_kiln.py measured for the model, or None."""
    times = [(r.get("build") or {}).get("wall_s") for r in (kiln or {}).get("runs", []) if r.get("model") == model]
    times = [t for t in times if t]
    return max(times) if times else None


def tail(text, lines=6):
    return "\n".join(text.strip().splitlines()[-lines:])


def run_case(args, manifest, kiln, reference, case, deadline):
    model, batch = case["model"], case["batch"]
    spec = manifest["models"].get(model)
    if spec is None:
        case.update(status="skipped", reason=f"{model} is not in models.json")
        return
    # BF16 engines come from the FP32 export: the FP16 export's tensors are typed FP16 and stay FP16 under --bf16.
    kiln_precision = "fp16" if args.precision == "fp16" else "fp32"
    info = spec["files"].get(kiln_precision)
    if info is None:
        why = " (the BF16 check builds the FP32 export: run.sh with EXPORT_FP32=1)" if args.precision == "bf16" else ""
        case.update(status="failed", reason=f"no {kiln_precision} export of {model}{why}")
        return
    onnx_path = os.path.join(args.models, info["file"])
    float_dtype = np.float16 if kiln_precision == "fp16" else np.float32
    feeds = make_inputs(model, spec, batch, args.seed + batch, float_dtype, args.vocab)
    tag = f"{model}_b{batch}"
    os.makedirs(args.work, exist_ok=True)
    load = []
    for name, array in feeds.items():
        path = os.path.join(args.work, f"{tag}_{name}.bin")
        np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False).tofile(path)
        load.append(f"{name}:{path}")
    shapes = ",".join(f"{n}:" + "x".join(str(d) for d in a.shape) for n, a in feeds.items())
    out_json = os.path.join(args.work, f"{tag}.outputs.json")
    if os.path.exists(out_json):
        os.remove(out_json)

    # run_kiln.py's saved engines are FP16 ones: only the FP16 check reuses them.
    engine = find_engine(kiln, model, batch) if args.precision == "fp16" else None
    if engine:
        cmd = [args.kilnexec, f"--loadEngine={engine}"]
        case["engine"] = os.path.basename(engine)
    else:
        estimate = build_estimate(kiln, model)
        left = deadline - time.monotonic()
        if estimate is not None and estimate * 1.2 + 5 > left:
            case.update(status="skipped", reason=f"no engine for batch {batch}, and building one (~{estimate:.0f} s "
                                                 f"in run_kiln.py) does not fit in the {left:.0f} s left")
            return
        cmd = [args.kilnexec, f"--onnx={onnx_path}"]
        if args.precision in ("fp16", "bf16"):
            cmd.append(f"--{args.precision}")
        case["engine"] = "built here from " + info["file"]
    if args.backend:
        cmd.append(f"--backend={args.backend}")
    cmd += [f"--shapes={shapes}", f"--loadInputs={','.join(load)}", f"--exportOutput={out_json}",
            "--iterations=1", "--duration=0", "--warmUp=0"]
    timeout = max(1.0, min(args.timeout, deadline - time.monotonic()))
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        code, text = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        code, text = 124, f"kilnexec timed out after {timeout:.0f} s"
    case["kiln_s"] = round(time.perf_counter() - start, 2)
    with open(os.path.join(args.work, f"{tag}.check.log"), "w") as f:
        f.write(" ".join(cmd) + "\n\n" + text)
    if code != 0 or not os.path.exists(out_json):
        case.update(status="failed", reason=f"kilnexec exit {code}: {tail(text)}")
        return
    # kilnexec prints "[I] Engine backend: CUDA (<GPU>)" or "... CPU": the check must be of the backend asked for.
    ran_on = re.search(r"Engine backend:\s*(\w+)", text)
    case["kiln_backend"] = ran_on.group(1) if ran_on else "?"
    if args.backend in ("cpu", "cuda") and case["kiln_backend"].lower() != args.backend:
        case.update(status="failed", reason=f"the engine ran on the {case['kiln_backend']} backend, not "
                                            f"{args.backend} (see {tag}.check.log)")
        return

    start = time.perf_counter()
    try:
        ref, ref_file, ref_notes = reference.run(model, kiln_precision, feeds)
    except Exception as err:  # noqa: BLE001 - a reference failure is a failed check, not a crash
        case.update(status="failed", reason=f"no reference: {err}")
        return
    case.update(reference=f"onnxruntime {reference_version()} CPU, {ref_file}",
                reference_s=round(time.perf_counter() - start, 2))
    if ref_notes:
        case["reference_notes"] = ref_notes
    try:
        outputs = read_kiln_outputs(out_json)
    except (OSError, ValueError, KeyError) as err:
        case.update(status="failed", reason=f"cannot read {out_json}: {err}")
        return
    results = []
    for name in spec.get("outputs") or list(ref):
        if name not in ref:
            results.append({"output": name, "passed": False, "reason": "not an output of the reference"})
        elif name not in outputs:
            results.append({"output": name, "passed": False, "reason": "not in kilnexec's --exportOutput file"})
        else:
            results.append(compare(model, name, ref[name], *outputs[name], precision=args.precision))
    case["outputs"] = results
    failed = [f"{r['output']}: {r['reason']}" for r in results if not r["passed"]]
    case["status"] = "failed" if failed else "passed"
    if failed:
        case["reason"] = "; ".join(failed)


def reference_version():
    try:
        import onnxruntime

        return onnxruntime.__version__
    except ImportError:
        return "?"


def save(path, result):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(path + ".tmp", path)


def default_cases(manifest, kiln):
    """One case per model of the manifest: batch 1, or the model's smallest batch in kiln.json when batch 1 has no
    run there (a saved engine then serves the case); and bert:2 (built here if it fits) when BERT is there."""
    cases = []
    for model in (manifest or {}).get("models", {}):
        ran = sorted({r["batch"] for r in (kiln or {}).get("runs", []) if r.get("model") == model and "batch" in r})
        cases.append(f"{model}:{1 if not ran or 1 in ran else ran[0]}")
        if model == "bert":
            cases.append("bert:2")
    return ",".join(cases)


def parse_cases(text):
    cases = []
    for item in [c for c in text.split(",") if c]:
        model, _, batch = item.partition(":")
        if not model or not batch.isdigit() or int(batch) < 1:
            raise ValueError(f"--cases: '{item}' is not model:batch")
        cases.append({"model": model, "batch": int(batch), "status": "pending"})
    return cases


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kilnexec", required=True)
    parser.add_argument("--models", required=True, help="the folder export_models.py wrote (with models.json)")
    parser.add_argument("--kiln-json", default=None, help="run_kiln.py's kiln.json (its engines are reused)")
    parser.add_argument("--work", required=True, help="folder for inputs, outputs and logs")
    parser.add_argument("--out", required=True)
    parser.add_argument("--cases", default="", help="model:batch list (default: one per model of models.json)")
    parser.add_argument("--backend", default="cuda", help="kilnexec --backend value ('' to leave it out)")
    parser.add_argument("--precision", default="fp16", choices=["fp16", "fp32", "bf16"])
    parser.add_argument("--budget-s", type=float, default=40.0, help="no new case starts after this many seconds")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds allowed to one kilnexec command")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--vocab", type=int, default=None,
                        help="input_ids are in [0, vocab) (default: each model's vocabulary)")
    args = parser.parse_args(argv)
    try:
        cases = parse_cases(args.cases)
    except ValueError as err:
        parser.error(str(err))
    manifest, manifest_error = None, None
    try:
        with open(os.path.join(args.models, "models.json")) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as err:
        manifest_error = err
    kiln = None
    kiln_error = None
    if args.kiln_json and os.path.exists(args.kiln_json):
        try:
            with open(args.kiln_json) as f:
                kiln = json.load(f)
        except (OSError, ValueError) as err:
            kiln_error = str(err)   # no saved engines: every case builds its own
    if not args.cases:
        cases = parse_cases(default_cases(manifest, kiln))

    deadline = time.monotonic() + args.budget_s
    result = {"backend": args.backend, "precision": args.precision, "seed": args.seed, "cases": cases,
              "thresholds": {m: threshold_text(m, args.precision) for m in sorted({c["model"] for c in cases})},
              "rel_floor": f"over the reference values with |ref| >= {REL_FLOOR:g} × max |ref|"}
    if kiln_error:
        result["kiln_json_error"] = kiln_error
    save(args.out, result)
    if manifest is None:
        for c in cases:
            c.update(status="failed", reason=f"no models.json: {manifest_error}")
        save(args.out, result)
        return 0
    reference = Reference(args.models, manifest)
    for case in cases:
        if time.monotonic() >= deadline:
            case.update(status="failed", reason=f"not run: the check's {args.budget_s:g} s budget was spent")
        else:
            try:
                run_case(args, manifest, kiln, reference, case, deadline)
            except Exception as err:  # noqa: BLE001 - one broken case must not lose the others
                case.update(status="failed", reason=f"{type(err).__name__}: {err}")
        line = f"[check] {case['model']} batch {case['batch']}: {case['status']}"
        for o in case.get("outputs", []):
            if "max_abs_diff" in o:
                line += f"; {o['output']} max abs {o['max_abs_diff']:.3g} (tol {o['tolerance']:.3g})"
                if "top1_rows" in o:
                    line += f", top-1 {o['top1_equal']}/{o['top1_rows']}"
        if case.get("reason"):
            line += f" — {case['reason'].splitlines()[-1] if case['reason'] else ''}"
        print(line, flush=True)
        save(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
