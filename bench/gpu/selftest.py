#!/usr/bin/env python3
"""Self-test of the GPU benchmark scripts that runs without a GPU and without torch:

  1. floors.py on a hand-written layer-information/profile pair: FLOPs and bytes checked against values computed
     here independently (formulas written out for the concrete shapes), peaks looked up by nvidia-smi names;
  2. run_kiln.py end to end with a CPU kilnexec (--backend left out) on two small ONNX models written here with the
     onnx package, shaped like the real ones (an FP16 conv net with input "input", and a BERT-like FP16 net with
     INT64 "input_ids"/"attention_mask"): every run must succeed and produce times, profile and layer files;
  3. make_table.py on that kiln.json plus a synthetic torch.json (with a failed and a skipped mode): the markdown
     has every section, the ratios equal the ones computed here, and failures show as words, not numbers.

Usage: python3 bench/gpu/selftest.py --kilnexec build/bin/kilnexec [--keep DIR]
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import floors  # noqa: E402
import make_table  # noqa: E402
import run_kiln  # noqa: E402

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print(f"FAIL: {message}")


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-30)


def test_floors(tmp):
    conv = {"Name": "conv1 + relu1", "LayerType": "Convolution",
            "Inputs": [{"Name": "x", "Location": "Device", "Dimensions": [8, 64, 56, 56],
                        "Format/Datatype": "Row major linear FP16"}],
            "Outputs": [{"Name": "y", "Location": "Device", "Dimensions": [8, 128, 28, 28],
                         "Format/Datatype": "Row major linear FP16"}],
            "Weights": [{"Type": "FP32", "Count": 128 * 64 * 3 * 3}, {"Type": "FP32", "Count": 128}],
            "Precision": "FP16"}
    mm = {"Name": "fc", "LayerType": "MatrixMultiply", "op0": 1, "op1": 0,
          "Inputs": [{"Name": "a", "Location": "Device", "Dimensions": [4, 96, 384],
                      "Format/Datatype": "Row major linear FP16"},
                     {"Name": "b", "Location": "Device", "Dimensions": [4, 96, 200],
                      "Format/Datatype": "Row major linear FP16"}],
          "Outputs": [{"Name": "c", "Location": "Device", "Dimensions": [4, 384, 200],
                       "Format/Datatype": "Row major linear FP32"}], "Precision": "FP16"}
    shape = {"Name": "shape", "LayerType": "Shape",
             "Inputs": [{"Name": "c", "Location": "Device", "Dimensions": [4, 384, 200],
                         "Format/Datatype": "Row major linear FP32"}],
             "Outputs": [{"Name": "s", "Location": "Host", "Dimensions": [3],
                          "Format/Datatype": "Row major linear INT64"}], "Precision": "INT64"}
    layers_path, profile_path = os.path.join(tmp, "l.json"), os.path.join(tmp, "p.json")
    with open(layers_path, "w") as f:
        json.dump({"Layers": [conv, mm, shape], "Bindings": ["x"]}, f)
    with open(profile_path, "w") as f:
        json.dump([{"count": 10}, {"name": "conv1 + relu1", "averageMs": 0.5},
                   {"name": "fc", "averageMs": 0.25}, {"name": "shape", "averageMs": 0.001},
                   {"name": "missing", "averageMs": 0.1}], f)
    data = floors.floors_for(layers_path, profile_path, "NVIDIA H100 80GB HBM3", top=10)
    rows = {r["name"]: r for r in data["rows"]}
    # conv: 8*128*28*28 outputs, each 64*3*3 multiply-adds.
    conv_flops = 2 * (8 * 128 * 28 * 28) * (64 * 3 * 3)
    conv_bytes = 2 * (8 * 64 * 56 * 56) + 2 * (8 * 128 * 28 * 28) + 2 * (128 * 64 * 9 + 128)
    check(rows["conv1 + relu1"]["flops"] == conv_flops, f"conv flops {rows['conv1 + relu1']['flops']} != {conv_flops}")
    check(rows["conv1 + relu1"]["bytes"] == conv_bytes, f"conv bytes {rows['conv1 + relu1']['bytes']} != {conv_bytes}")
    # matmul with input 0 transposed: [4, 96, 384]^T -> K = 96.
    mm_flops = 2 * 4 * 384 * 200 * 96
    mm_bytes = 2 * 4 * 96 * 384 + 2 * 4 * 96 * 200 + 4 * 4 * 384 * 200
    check(rows["fc"]["flops"] == mm_flops, f"matmul flops {rows['fc']['flops']} != {mm_flops}")
    check(rows["fc"]["bytes"] == mm_bytes, f"matmul bytes {rows['fc']['bytes']} != {mm_bytes}")
    check(rows["shape"]["flops"] is None and rows["shape"]["bytes"] == 4 * 4 * 384 * 200,
          "shape layer: host output not counted, no FLOPs")
    check(rows["missing"].get("note") == "not in the layer information", "unknown profile name reported")
    mem = conv_bytes / 3.35e12 * 1e3
    comp = conv_flops / 989.4e12 * 1e3
    check(close(rows["conv1 + relu1"]["memory_floor_ms"], mem), "conv memory floor")
    check(close(rows["conv1 + relu1"]["compute_floor_ms"], comp), "conv compute floor")
    check(close(rows["conv1 + relu1"]["ratio"], 0.5 / max(mem, comp)), "conv ratio")
    check(close(data["profile_total_ms"], 0.851), "profile total")
    for name, label in (("NVIDIA H200", "H200 SXM"), ("NVIDIA H200 NVL", "H200 NVL"), ("NVIDIA H100 PCIe", "H100 PCIe"),
                        ("NVIDIA H100 NVL", "H100 NVL"), ("NVIDIA H100 80GB HBM3", "H100 SXM")):
        check((floors.peaks_for(name) or {}).get("label") == label, f"peak table: {name} -> {label}")
    check(floors.peaks_for("NVIDIA A100-SXM4-80GB") is None, "unknown GPU has no peaks")
    none = floors.floors_for(layers_path, profile_path, "Some GPU", top=2)
    check(none["peak"] is None and len(none["rows"]) == 2 and "ratio" not in none["rows"][0],
          "no peaks: no floors, top limits rows")
    given = floors.floors_for(layers_path, profile_path, "Some GPU", top=1, peak_tflops=100.0, peak_tbps=1.0)
    check(close(given["rows"][0]["compute_floor_ms"], conv_flops / 100e12 * 1e3), "--peak-tflops override")
    # Layer information without an execution context: -1 in the batch axis takes --batch, any other -1 is unknown.
    dyn = json.loads(json.dumps(mm))
    dyn["Inputs"][0]["Dimensions"] = [-1, 96, 384]
    dyn["Outputs"][0]["Dimensions"] = [-1, 384, 200]
    unknown = json.loads(json.dumps(mm))
    unknown["Name"] = "fcUnknown"
    unknown["Outputs"][0]["Dimensions"] = [4, -1, 200]
    with open(layers_path, "w") as f:
        json.dump({"Layers": [conv, dyn, shape, unknown]}, f)
    with open(profile_path, "w") as f:
        json.dump([{"count": 1}, {"name": "fc", "averageMs": 0.25}, {"name": "fcUnknown", "averageMs": 0.2}], f)
    rows = {r["name"]: r for r in floors.floors_for(layers_path, profile_path, "NVIDIA H200", top=5, batch=4)["rows"]}
    check(rows["fc"].get("flops") == mm_flops, f"batch axis filled from --batch: {rows['fc']}")
    check("flops" not in rows["fcUnknown"] and "no floors" in rows["fcUnknown"].get("note", ""),
          f"other dynamic extents give no floors: {rows['fcUnknown']}")


def write_models(folder):
    """Two small FP16 models with the real models' input names and types, and their manifest."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(3)
    os.makedirs(folder, exist_ok=True)

    def init(name, array):
        return numpy_helper.from_array(array, name)

    # Conv net: conv 3->8 (3x3) + relu, global average pool, flatten, gemm 8->10.
    nodes = [helper.make_node("Conv", ["input", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("GlobalAveragePool", ["r1"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "w2", "b2"], ["logits"], transB=1)]
    inits = [init("w1", rng.standard_normal((8, 3, 3, 3)).astype(np.float16)),
             init("b1", rng.standard_normal(8).astype(np.float16)),
             init("w2", rng.standard_normal((10, 8)).astype(np.float16)),
             init("b2", rng.standard_normal(10).astype(np.float16))]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("input", TensorProto.FLOAT16,
                                                                             ["batch", 3, 16, 16])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT16, ["batch", 10])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(folder, "resnet50_fp16.onnx"))

    # BERT-like: embedding gather of the ids, mask as an additive bias, one matmul, softmax over the last axis.
    vocab, seq, hidden = 30522, 8, 16
    nodes = [helper.make_node("Gather", ["emb", "input_ids"], ["e"]),
             helper.make_node("Cast", ["attention_mask"], ["mf"], to=TensorProto.FLOAT16),
             helper.make_node("Unsqueeze", ["mf", "axis2"], ["mu"]),
             helper.make_node("Mul", ["e", "mu"], ["em"]),
             helper.make_node("MatMul", ["em", "w"], ["h"]),
             helper.make_node("Softmax", ["h"], ["last_hidden_state"], axis=-1),
             helper.make_node("ReduceMean", ["h", "axis1"], ["pooler_output"], keepdims=0)]
    inits = [init("emb", (0.1 * rng.standard_normal((vocab, hidden))).astype(np.float16)),
             init("w", (0.2 * rng.standard_normal((hidden, hidden))).astype(np.float16)),
             init("axis2", np.array([2], dtype=np.int64)), init("axis1", np.array([1], dtype=np.int64))]
    graph = helper.make_graph(
        nodes, "bertish",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", seq]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", seq])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT16, ["batch", seq, hidden]),
         helper.make_tensor_value_info("pooler_output", TensorProto.FLOAT16, ["batch", hidden])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(folder, "bert_fp16.onnx"))
    manifest = {"models": {
        "resnet50": {"inputs": [{"name": "input", "shape": [3, 16, 16], "type": "float"}], "outputs": ["logits"],
                     "files": {"fp16": {"file": "resnet50_fp16.onnx"}}},
        "bert": {"inputs": [{"name": "input_ids", "shape": [seq], "type": "int64"},
                            {"name": "attention_mask", "shape": [seq], "type": "int64"}],
                 "outputs": ["last_hidden_state", "pooler_output"], "files": {"fp16": {"file": "bert_fp16.onnx"}}}}}
    with open(os.path.join(folder, "models.json"), "w") as f:
        json.dump(manifest, f)


def test_run_kiln(tmp, kilnexec):
    models = os.path.join(tmp, "models")
    write_models(models)
    out = os.path.join(tmp, "kiln.json")
    code = run_kiln.main(["--kilnexec", kilnexec, "--models", models, "--work", os.path.join(tmp, "kiln"),
                          "--out", out, "--batches", "1,4", "--backend", "", "--iterations", "5",
                          "--duration", "0", "--warmup-ms", "0", "--profile-iterations", "3"])
    check(code == 0, "run_kiln.py exit code")
    with open(out) as f:
        kiln = json.load(f)
    check(len(kiln["runs"]) == 4, f"4 Kiln runs, got {len(kiln['runs'])}")
    for r in kiln["runs"]:
        tag = f"{r['model']} b{r['batch']}"
        check("error" not in r, f"{tag}: {r.get('error')}")
        check(r.get("build", {}).get("exit") == 0, f"{tag}: build")
        for kind in ("plain", "graph"):
            part = r.get(kind, {})
            check(part.get("exit") == 0 and part.get("runs", 0) >= 5, f"{tag} {kind}: {part}")
            check(part.get("compute_ms_median", 0) > 0 and part.get("enqueue_ms_median", 0) > 0,
                  f"{tag} {kind}: positive times")
            if part.get("compute_ms_mean"):
                check(close(part["throughput_per_s"], r["batch"] * 1000.0 / part["compute_ms_mean"]),
                      f"{tag} {kind}: throughput = batch / mean compute")
            check(part.get("qps", 0) > 0, f"{tag} {kind}: qps parsed from the report")
        check("profile_json" in r.get("profile", {}), f"{tag}: profile files ({r.get('profile')})")
    # The CPU backend cannot capture CUDA graphs: the graph run must not claim one was used.
    check(all(r.get("graph", {}).get("graph_used") is False for r in kiln["runs"]), "no CUDA graph on the CPU backend")
    # The report parser: a capture message counts, a fallback warning wins over it.
    captured = run_kiln.parse_report("[I] Captured one enqueueV3 into a CUDA graph; the timed runs replay it\n"
                                     "[I] Throughput: 123.5 qps\n")
    check(captured["graph_captured"] and "graph_warnings" not in captured and captured["qps"] == 123.5,
          f"capture message parsed: {captured}")
    fallback = run_kiln.parse_report("[W] The CUDA graph capture on the stream has failed (x); running enqueueV3 "
                                     "without a CUDA graph.\n")
    check(not fallback["graph_captured"] and fallback.get("graph_warnings"), f"fallback parsed: {fallback}")
    return kiln


def test_table(tmp, kiln):
    torch_data = {"torch": "2.11.0", "cuda": "13.0", "cudnn": 91000, "iters": 50, "runs": []}
    rng = np.random.default_rng(5)
    for model in ("resnet50", "bert"):
        for mode in ("eager", "default", "max-autotune-no-cudagraphs"):
            for batch in (1, 4):
                run = {"model": model, "mode": mode, "batch": batch}
                if mode == "max-autotune-no-cudagraphs" and model == "bert":
                    run["skipped"] = "time budget (240 s) spent"
                elif mode == "default" and model == "bert" and batch == 4:
                    run["error"] = "BackendCompilerFailed: synthetic"
                else:
                    lat = float(rng.uniform(0.5, 3.0))
                    run.update({"latency_ms_median": lat, "throughput_per_s": batch * 1000.0 / (lat * 0.9)})
                    if mode != "eager":
                        run["compile_s"] = 12.5
                torch_data["runs"].append(run)
    system = {"date": "2026-11-21 10:00 UTC", "gpu": "NVIDIA H200", "driver": "580.00", "cuda": "13.0",
              "cpu": "test CPU", "cores": 16, "kiln_commit": "abc1234"}
    text = make_table.make_markdown(system, torch_data, kiln, top=3)
    for heading in ("## GPU backend — 2026-11-21 10:00 UTC", "### Latency and throughput",
                    "### Enqueue (host) time per inference", "### Slowest layers against their floors",
                    "### Notes from the run", "NVIDIA H200", "H200 SXM datasheet peaks"):
        check(heading in text, f"table has '{heading}'")
    graph_cells = [l.split("|")[5].strip() for l in text.splitlines() if l.startswith("| ResNet-50 |")
                   and "latency (ms" in l]
    check(graph_cells == ["not used"], f"no graph figure without a capture: {graph_cells}")
    runs = {(r["model"], r["batch"]): r for r in kiln["runs"]}
    trun = {(r["model"], r["mode"], r["batch"]): r for r in torch_data["runs"]}
    # Batch-1 ratio: Kiln latency / eager latency; batch-4 ratio: eager rate / Kiln rate.
    k1 = runs[("resnet50", 1)]["plain"]["compute_ms_median"]
    want1 = f"{k1 / trun[('resnet50', 'eager', 1)]['latency_ms_median']:.2f}×"
    k4 = runs[("resnet50", 4)]["plain"]["throughput_per_s"]
    want4 = f"{trun[('resnet50', 'eager', 4)]['throughput_per_s'] / k4:.2f}×"
    lines = {l.split("|")[1].strip() + "/" + l.split("|")[2].strip(): l for l in text.splitlines()
             if l.startswith("| ResNet-50 |") and "metric" not in l and ("latency (ms" in l or "throughput" in l)}
    check(want1 in lines.get("ResNet-50/1", ""), f"batch-1 ratio {want1} in {lines.get('ResNet-50/1')}")
    check(want4 in lines.get("ResNet-50/4", ""), f"batch-4 ratio {want4} in {lines.get('ResNet-50/4')}")
    bert4 = [l for l in text.splitlines() if l.startswith("| BERT-base (seq 128) | 4 | throughput")]
    check(bert4 and "failed" in bert4[0] and "skipped" in bert4[0], f"failed/skipped shown as words: {bert4}")
    check("BackendCompilerFailed: synthetic" in text, "the failure reason is in the notes")
    # A Kiln run that failed to build shows as failed, with its reason.
    broken = json.loads(json.dumps(kiln))
    broken["runs"][0] = {"model": broken["runs"][0]["model"], "batch": broken["runs"][0]["batch"],
                         "build": {"exit": 1}, "error": "build failed: kilnexec: synthetic failure"}
    text2 = make_table.make_markdown(system, torch_data, broken, top=3)
    check("synthetic failure" in text2, "a failed Kiln build is in the notes")
    first = [l for l in text2.splitlines() if l.startswith("| ResNet-50 | 1 | latency")]
    check(first and first[0].split("|")[4].strip() == "failed", f"failed Kiln cell: {first}")
    with open(os.path.join(tmp, "table.md"), "w") as f:
        f.write(text)
    return text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kilnexec", required=True)
    parser.add_argument("--keep", default=None, help="keep the files in this folder")
    args = parser.parse_args(argv)
    tmp = args.keep or tempfile.mkdtemp(prefix="kiln-bench-selftest-")
    os.makedirs(tmp, exist_ok=True)
    try:
        test_floors(tmp)
        kiln = test_run_kiln(tmp, args.kilnexec)
        if FAILURES:
            print("selftest: the Kiln runs failed; make_table.py is not tested")
        else:
            text = test_table(tmp, kiln)
            if args.keep:
                print(text)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"selftest: {len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
