#!/usr/bin/env python3
"""Self-test of the GPU benchmark scripts that runs without a GPU and without torch:

  1. floors.py on hand-written layer-information/profile pairs: FLOPs and bytes checked against values computed
     here independently (formulas written out for the concrete shapes), peaks looked up by nvidia-smi names,
     including depthwise/grouped convolutions (group count) and the fused attention layer; model_table.py's model
     list and per-model batches (MODELS=all, BATCHES, BATCHES_<model>);
  2. run_kiln.py end to end with a CPU kilnexec (--backend left out) on four small FP16 ONNX models written here
     with the onnx package, shaped like the real ones: a conv net with input "input" (as resnet50), a BERT-like net
     with INT64 "input_ids"/"attention_mask", a MobileNetV3-like net (conv + hard-swish, depthwise convolution,
     squeeze-excitation with hard-sigmoid) and a GPT-2-like causal decoder block (vocabulary 50257, causal mask
     through Where, two heads, layer norms); batches 1,4 and, for the decoder, 1,2 (--model-batches): every run
     must succeed and produce times, profile and layer files; token ids cover each model's vocabulary, and the
     inspected depthwise convolution gets its FLOPs from its group count;
  3. check_outputs.py with the same kilnexec against onnxruntime: the default cases (one per model at batch 1,
     and bert:2 built in the check) pass, the classifiers get the range rule and top-1, the decoder the abs rule;
  4. make_table.py on that kiln.json plus a synthetic torch.json (with a failed and a skipped mode): the markdown
     has every section, each model's title, unit and batches, the ratios equal the ones computed here, and
     failures and skipped runs show as words, not numbers.

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
import check_outputs  # noqa: E402
import floors  # noqa: E402
import make_table  # noqa: E402
import model_table  # noqa: E402
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
    test_floors_new_kinds(tmp)


def test_floors_new_kinds(tmp):
    """Depthwise and grouped convolutions (FLOPs from nbGroups and kernelSize) and the fused attention layer."""
    def tensor(name, dims):
        return {"Name": name, "Location": "Device", "Dimensions": dims, "Format/Datatype": "Row major linear FP16"}

    depthwise = {"Name": "dw", "LayerType": "Convolution", "nbGroups": 96, "kernelSize": [5, 5],
                 "Inputs": [tensor("x", [32, 96, 56, 56])], "Outputs": [tensor("y", [32, 96, 28, 28])],
                 "Weights": [{"Type": "FP16", "Count": 96 * 5 * 5}, {"Type": "FP16", "Count": 96}]}
    grouped = {"Name": "gc", "LayerType": "Convolution", "nbGroups": 4, "kernelSize": [3, 3],
               "Inputs": [tensor("x", [2, 64, 14, 14])], "Outputs": [tensor("y", [2, 128, 14, 14])],
               "Weights": [{"Type": "FP16", "Count": 128 * 16 * 9}]}
    deconv = {"Name": "dc", "LayerType": "Deconvolution", "nbGroups": 2, "kernelSize": [2, 2],
              "Inputs": [tensor("x", [1, 8, 7, 7])], "Outputs": [tensor("y", [1, 6, 14, 14])],
              "Weights": [{"Type": "FP16", "Count": 8 * 3 * 4}]}
    attention = {"Name": "attn", "LayerType": "AttentionOutput", "causal": 1,
                 "Inputs": [tensor("q", [8, 12, 512, 64]), tensor("k", [8, 12, 512, 64]),
                            tensor("v", [8, 12, 512, 64]), tensor("mask", [1, 1, 512, 512])],
                 "Outputs": [tensor("o", [8, 12, 512, 64])]}
    trt_attention = dict(attention, Name="attn2", LayerType="Attention",
                         Inputs=attention["Inputs"][:3], Outputs=[tensor("o", [8, 12, 128, 64])])
    trt_attention["Inputs"] = [tensor("q", [8, 12, 128, 64]), tensor("k", [8, 12, 64, 512]),
                               tensor("v", [8, 12, 512, 64])]
    layers = [depthwise, grouped, deconv, attention, trt_attention]
    layers_path, profile_path = os.path.join(tmp, "l2.json"), os.path.join(tmp, "p2.json")
    with open(layers_path, "w") as f:
        json.dump({"Layers": layers}, f)
    with open(profile_path, "w") as f:
        json.dump([{"count": 1}] + [{"name": l["Name"], "averageMs": 0.1 + 0.01 * i} for i, l in enumerate(layers)], f)
    rows = {r["name"]: r for r in floors.floors_for(layers_path, profile_path, "NVIDIA H100 80GB HBM3", top=9)["rows"]}
    # Depthwise: every output is 5*5 multiply-adds over its own channel only.
    want = {"dw": 2 * (32 * 96 * 28 * 28) * 25, "gc": 2 * (2 * 128 * 14 * 14) * (64 // 4) * 9,
            "dc": 2 * (1 * 8 * 7 * 7) * (6 // 2) * 4,
            # Q·Kᵀ and P·V: 2 * 2 * b * h * sq * skv * d.
            "attn": 4 * 8 * 12 * 512 * 512 * 64, "attn2": 4 * 8 * 12 * 128 * 512 * 64}
    for name, flops in want.items():
        check(rows[name].get("flops") == flops, f"{name} flops {rows[name].get('flops')} != {flops}")
    attn_bytes = 2 * (4 * 8 * 12 * 512 * 64 + 512 * 512)
    check(rows["attn"].get("bytes") == attn_bytes, f"attention bytes {rows['attn'].get('bytes')} != {attn_bytes}")
    # Sequence 512, head size 64: 6.4 GFLOP = 6.5 µs of tensor-core time against 7.7 µs to move 25.7 MB.
    check(close(rows["attn"].get("compute_floor_ms"), want["attn"] / 989.4e12 * 1e3)
          and close(rows["attn"].get("memory_floor_ms"), attn_bytes / 3.35e12 * 1e3)
          and rows["attn"].get("bound") == "memory", f"attention floors: {rows['attn']}")
    check(rows["dw"].get("bound") == "memory", f"a depthwise convolution is memory-bound: {rows['dw']}")
    # Without the attributes the weight count gives the same depthwise FLOPs.
    bare = {k: v for k, v in depthwise.items() if k not in ("nbGroups", "kernelSize")}
    check(floors.layer_flops(bare) == want["dw"], f"depthwise flops from the weights: {floors.layer_flops(bare)}")


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
             helper.make_node("ReduceMean", ["h"], ["pooler_output"], axes=[1], keepdims=0)]  # opset 17: attribute
    inits = [init("emb", (0.1 * rng.standard_normal((vocab, hidden))).astype(np.float16)),
             init("w", (0.2 * rng.standard_normal((hidden, hidden))).astype(np.float16)),
             init("axis2", np.array([2], dtype=np.int64))]
    graph = helper.make_graph(
        nodes, "bertish",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", seq]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", seq])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT16, ["batch", seq, hidden]),
         helper.make_tensor_value_info("pooler_output", TensorProto.FLOAT16, ["batch", hidden])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(folder, "bert_fp16.onnx"))
    write_mobilenet_like(folder, rng)
    write_decoder_block(folder, rng)
    manifest = {"models": {
        "resnet50": {"inputs": [{"name": "input", "shape": [3, 16, 16], "type": "float"}], "outputs": ["logits"],
                     "files": {"fp16": {"file": "resnet50_fp16.onnx"}}},
        "bert": {"inputs": [{"name": "input_ids", "shape": [seq], "type": "int64"},
                            {"name": "attention_mask", "shape": [seq], "type": "int64"}],
                 "outputs": ["last_hidden_state", "pooler_output"], "files": {"fp16": {"file": "bert_fp16.onnx"}}},
        "mobilenetv3": {"inputs": [{"name": "input", "shape": [3, 16, 16], "type": "float"}], "outputs": ["logits"],
                        "files": {"fp16": {"file": "mobilenetv3_fp16.onnx"}}},
        # As export_models.py writes it: the token-id range travels in the manifest.
        "gpt2": {"inputs": [{"name": "input_ids", "shape": [DECODER_SEQ], "type": "int64", "vocab": 50257}],
                 "outputs": ["last_hidden_state"], "files": {"fp16": {"file": "gpt2_fp16.onnx"}}}}}
    with open(os.path.join(folder, "models.json"), "w") as f:
        json.dump(manifest, f)


DECODER_SEQ = 8


def write_mobilenet_like(folder, rng):
    """MobileNetV3's pieces: conv + hard-swish, a depthwise 3x3 convolution (group = channels) + hard-swish, a
    squeeze-excitation block (global pool, 1x1 convs, ReLU, hard-sigmoid, scale), global pool, classifier."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    def init(name, shape, scale=0.5):
        return numpy_helper.from_array((scale * rng.standard_normal(shape)).astype(np.float16), name)

    nodes = [helper.make_node("Conv", ["input", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("HardSwish", ["c1"], ["h1"]),
             helper.make_node("Conv", ["h1", "wd", "bd"], ["c2"], pads=[1, 1, 1, 1], group=8),
             helper.make_node("HardSwish", ["c2"], ["h2"]),
             helper.make_node("GlobalAveragePool", ["h2"], ["s0"]),
             helper.make_node("Conv", ["s0", "ws1", "bs1"], ["s1"]),
             helper.make_node("Relu", ["s1"], ["s2"]),
             helper.make_node("Conv", ["s2", "ws2", "bs2"], ["s3"]),
             helper.make_node("HardSigmoid", ["s3"], ["s4"], alpha=1.0 / 6.0),
             helper.make_node("Mul", ["h2", "s4"], ["se"]),
             helper.make_node("GlobalAveragePool", ["se"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "wf", "bf"], ["logits"], transB=1)]
    inits = [init("w1", (8, 3, 3, 3)), init("b1", (8,)), init("wd", (8, 1, 3, 3)), init("bd", (8,)),
             init("ws1", (4, 8, 1, 1)), init("bs1", (4,)), init("ws2", (8, 4, 1, 1)), init("bs2", (8,)),
             init("wf", (10, 8), 2.0), init("bf", (10,))]
    graph = helper.make_graph(nodes, "mobilenetish",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT16, ["batch", 3, 16, 16])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT16, ["batch", 10])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(folder, "mobilenetv3_fp16.onnx"))


def write_decoder_block(folder, rng):
    """GPT-2's pieces: token (vocabulary 50257) and position embeddings, layer norm, one QKV projection split into
    two heads, causal attention as exported with eager attention (MatMul, scale, Where with a lower-triangular
    mask, Softmax, MatMul), head merge, output projection, residual add and the final layer norm."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    vocab, seq, hidden, heads = 50257, DECODER_SEQ, 16, 2
    dim = hidden // heads

    def init(name, array):
        return numpy_helper.from_array(array, name)

    def f16(shape, scale):
        return (scale * rng.standard_normal(shape)).astype(np.float16)

    causal = np.tril(np.ones((seq, seq), dtype=bool)).reshape(1, 1, seq, seq)
    nodes = [helper.make_node("Gather", ["wte", "input_ids"], ["tok"]),
             helper.make_node("Add", ["tok", "wpe"], ["x"]),
             helper.make_node("LayerNormalization", ["x", "g1", "b1"], ["ln1"], axis=-1, epsilon=1e-5),
             helper.make_node("MatMul", ["ln1", "wqkv"], ["qkv0"]),
             helper.make_node("Add", ["qkv0", "bqkv"], ["qkv"]),
             helper.make_node("Split", ["qkv", "splits"], ["q", "k", "v"], axis=2),
             helper.make_node("Reshape", ["q", "heads"], ["q4"]),
             helper.make_node("Reshape", ["k", "heads"], ["k4"]),
             helper.make_node("Reshape", ["v", "heads"], ["v4"]),
             helper.make_node("Transpose", ["q4"], ["qh"], perm=[0, 2, 1, 3]),
             helper.make_node("Transpose", ["k4"], ["kt"], perm=[0, 2, 3, 1]),
             helper.make_node("Transpose", ["v4"], ["vh"], perm=[0, 2, 1, 3]),
             helper.make_node("MatMul", ["qh", "kt"], ["scores0"]),
             helper.make_node("Div", ["scores0", "scale"], ["scores"]),
             helper.make_node("Where", ["causal", "scores", "lowest"], ["masked"]),
             helper.make_node("Softmax", ["masked"], ["probs"], axis=-1),
             helper.make_node("MatMul", ["probs", "vh"], ["ctx4"]),
             helper.make_node("Transpose", ["ctx4"], ["ctxt"], perm=[0, 2, 1, 3]),
             helper.make_node("Reshape", ["ctxt", "merge"], ["ctx"]),
             helper.make_node("MatMul", ["ctx", "wo"], ["proj"]),
             helper.make_node("Add", ["proj", "x"], ["res"]),
             helper.make_node("LayerNormalization", ["res", "g2", "b2"], ["last_hidden_state"], axis=-1,
                              epsilon=1e-5)]
    inits = [init("wte", f16((vocab, hidden), 0.5)), init("wpe", f16((seq, hidden), 0.2)),
             init("g1", np.ones(hidden, np.float16)), init("b1", np.zeros(hidden, np.float16)),
             init("wqkv", f16((hidden, 3 * hidden), 0.4)), init("bqkv", f16((3 * hidden,), 0.1)),
             init("splits", np.array([hidden] * 3, dtype=np.int64)),
             init("heads", np.array([0, 0, heads, dim], dtype=np.int64)),
             init("merge", np.array([0, 0, hidden], dtype=np.int64)),
             init("scale", np.array(np.sqrt(dim), dtype=np.float16)), init("causal", causal),
             init("lowest", np.array(np.finfo(np.float16).min, dtype=np.float16)),
             init("wo", f16((hidden, hidden), 0.3)),
             init("g2", (1.0 + 0.1 * rng.standard_normal(hidden)).astype(np.float16)),
             init("b2", f16((hidden,), 0.1))]
    graph = helper.make_graph(
        nodes, "decoder_block", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", seq])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT16, ["batch", seq, hidden])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(folder, "gpt2_fp16.onnx"))


def test_constant_reference():
    """A constant reference output (a model whose logits are all zero) fails the check instead of passing."""
    zeros = np.zeros((1, 10))
    entry = check_outputs.compare("mobilenetv3", "logits", zeros, [1, 10], np.zeros(10))
    check(not entry["passed"] and "constant" in entry.get("reason", ""), "a constant reference is not a pass")
    ref = np.linspace(-1.0, 1.0, 10).reshape(1, 10)
    entry = check_outputs.compare("mobilenetv3", "logits", ref, [1, 10], ref.reshape(10).copy())
    check(entry["passed"], "an equal, varying output passes")


def test_bf16_thresholds():
    """BF16 checks allow BF16_FACTOR times the FP16 difference: an error between the two passes only in BF16."""
    ref = np.linspace(-1.0, 1.0, 10).reshape(1, 10)
    fp16_tol = check_outputs.compare("mobilenetv3", "logits", ref, [1, 10], ref.reshape(10).copy())["tolerance"]
    off = ref.reshape(10).copy()
    off[3] += 2.0 * fp16_tol  # above the FP16 tolerance, below the BF16 one; top-1 unchanged (element 9)
    check(not check_outputs.compare("mobilenetv3", "logits", ref, [1, 10], off)["passed"], "2x the tolerance fails in FP16")
    entry = check_outputs.compare("mobilenetv3", "logits", ref, [1, 10], off, precision="bf16")
    check(entry["passed"] and abs(entry["tolerance"] - check_outputs.BF16_FACTOR * fp16_tol) < 1e-12,
          f"2x the FP16 tolerance passes in BF16 at {check_outputs.BF16_FACTOR}x it")


def test_model_table():
    """Per-model batches and the model list of run.sh's MODELS/BATCHES/BATCHES_<model>."""
    check(model_table.model_names("all") == ["resnet50", "bert", "mobilenetv3", "efficientnet", "gpt2"], "MODELS=all")
    check(model_table.batches_for("gpt2") == [1, 8] and model_table.batches_for("efficientnet") == [1, 32],
          "default batches: GPT-2 1,8, the others 1,32")
    check(model_table.batches_for("gpt2", "1,32") == [1, 32], "BATCHES applies to every model")
    check(model_table.batches_for("gpt2", "1,32", "gpt2=8;bert=1") == [8]
          and model_table.batches_for("bert", "", "gpt2=8 bert=1") == [1]
          and model_table.batches_for("resnet50", "", "gpt2=8;") == [1, 32], "BATCHES_<model> wins")
    for bad in (lambda: model_table.model_names("resnet50,vgg"), lambda: model_table.parse_model_batches("gpt2:8"),
                lambda: model_table.parse_batches("0,8")):
        try:
            bad()
            check(False, "a bad model or batch list is refused")
        except ValueError:
            pass


def test_run_kiln(tmp, kilnexec):
    models = os.path.join(tmp, "models")
    write_models(models)
    out = os.path.join(tmp, "kiln.json")
    code = run_kiln.main(["--kilnexec", kilnexec, "--models", models, "--work", os.path.join(tmp, "kiln"),
                          "--out", out, "--batches", "1,4", "--model-batches", "gpt2=1,2", "--backend", "",
                          "--iterations", "5", "--duration", "0", "--warmup-ms", "0", "--profile-iterations", "3"])
    check(code == 0, "run_kiln.py exit code")
    with open(out) as f:
        kiln = json.load(f)
    ran = sorted((r["model"], r["batch"]) for r in kiln["runs"])
    want = sorted([(m, b) for m in ("resnet50", "bert", "mobilenetv3") for b in (1, 4)] + [("gpt2", 1), ("gpt2", 2)])
    check(ran == want, f"Kiln runs per model and batch (--batches 1,4, --model-batches gpt2=1,2): {ran}")
    # Token ids over each model's vocabulary: GPT-2's reach above BERT's 30522 (seeded, 16 draws of 50257).
    work = os.path.join(tmp, "kiln")
    gpt2_ids = np.fromfile(os.path.join(work, "gpt2_b2_input_ids.bin"), dtype=np.int64)
    bert_ids = np.fromfile(os.path.join(work, "bert_b4_input_ids.bin"), dtype=np.int64)
    bert_mask = np.fromfile(os.path.join(work, "bert_b4_attention_mask.bin"), dtype=np.int64)
    check(gpt2_ids.size == 2 * DECODER_SEQ and gpt2_ids.min() >= 0 and 30522 <= gpt2_ids.max() < 50257,
          f"GPT-2 ids in [0, 50257): {gpt2_ids}")
    check(bert_ids.min() >= 0 and bert_ids.max() < 30522 and np.all(bert_mask == 1), "BERT ids and mask")
    # The depthwise convolution as the real inspector reports it: FLOPs from its group count.
    with open(os.path.join(work, "mobilenetv3_b4.layers.json")) as f:
        inspected = [l for l in json.load(f)["Layers"] if l.get("nbGroups") == 8]
    check(len(inspected) == 1, f"one depthwise convolution in the layer information: {len(inspected)}")
    if inspected:
        check(floors.layer_flops(inspected[0]) == 2 * (4 * 8 * 8 * 8) * 9,
              f"depthwise FLOPs of the inspected layer: {floors.layer_flops(inspected[0])}")
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
    for model in ("resnet50", "bert", "mobilenetv3", "gpt2"):
        for mode in ("eager", "default", "max-autotune-no-cudagraphs"):
            for batch in ((1, 2) if model == "gpt2" else (1, 4)):
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
    # The new models: titles, units, their own batches only, their floor tables, and the models line.
    rows = [l for l in text.splitlines() if l.startswith("| ")]
    for want in ("| MobileNetV3-Large | 1 | latency (ms", "| MobileNetV3-Large | 4 | throughput (img/s)",
                 "| GPT-2 (seq 512) | 1 | latency (ms", "| GPT-2 (seq 512) | 2 | throughput (seq/s)",
                 "| BERT-base (seq 128) | 4 | throughput (seq/s)"):
        check(any(l.startswith(want) for l in rows), f"table row '{want}'")
    for unwanted in ("| GPT-2 (seq 512) | 4 |", "| ResNet-50 | 2 |", "| MobileNetV3-Large | 2 |"):
        check(not any(l.startswith(unwanted) for l in rows), f"no row '{unwanted}' (a batch the model did not run)")
    for want in ("**MobileNetV3-Large, batch 4**", "**GPT-2 (seq 512), batch 2**",
                 "GPT-2 (seq 512): transformers `GPT2Model(GPT2Config())`", "MobileNetV3-Large: torchvision"):
        check(want in text, f"table has '{want}'")
    gpt2_rows = [l for l in rows if l.startswith("| GPT-2 (seq 512) | 2 | throughput")]
    k2 = runs[("gpt2", 2)]["plain"]["throughput_per_s"]
    want2 = f"{trun[('gpt2', 'eager', 2)]['throughput_per_s'] / k2:.2f}×"
    check(gpt2_rows and want2 in gpt2_rows[0], f"GPT-2 batch-2 ratio {want2} in {gpt2_rows}")
    # A Kiln run that failed to build shows as failed, with its reason.
    broken = json.loads(json.dumps(kiln))
    broken["runs"][0] = {"model": broken["runs"][0]["model"], "batch": broken["runs"][0]["batch"],
                         "build": {"exit": 1}, "error": "build failed: kilnexec: synthetic failure"}
    text2 = make_table.make_markdown(system, torch_data, broken, top=3)
    check("synthetic failure" in text2, "a failed Kiln build is in the notes")
    first = [l for l in text2.splitlines() if l.startswith("| ResNet-50 | 1 | latency")]
    check(first and first[0].split("|")[4].strip() == "failed", f"failed Kiln cell: {first}")
    # A Kiln run skipped for run_kiln.py's time budget shows as skipped, with the reason in the notes.
    last = broken["runs"][-1]
    broken["runs"][-1] = {"model": last["model"], "batch": last["batch"], "skipped": "time budget (60 s) spent"}
    text3 = make_table.make_markdown(system, torch_data, broken, top=3)
    cells = [l.split("|")[4:6] for l in text3.splitlines()
             if l.startswith(f"| {model_table.title(last['model'])} | {last['batch']} |")]
    check(cells and [c.strip() for c in cells[0]] == ["skipped", "skipped"], f"skipped Kiln cells: {cells}")
    check("skipped: time budget (60 s) spent" in text3, "the skip reason is in the notes")
    with open(os.path.join(tmp, "table.md"), "w") as f:
        f.write(text)
    return text


def test_check(tmp, kilnexec, kiln):
    """check_outputs.py with a CPU kilnexec on the small models: its default cases (one per model at batch 1, and
    bert:2 built in the check), each model's thresholds and inputs, and the table's output-check section."""
    out = os.path.join(tmp, "check.json")
    code = check_outputs.main(["--kilnexec", kilnexec, "--models", os.path.join(tmp, "models"),
                               "--kiln-json", os.path.join(tmp, "kiln.json"), "--work", os.path.join(tmp, "check"),
                               "--out", out, "--backend", "", "--budget-s", "120"])
    check(code == 0, "check_outputs.py exit code")
    with open(out) as f:
        data = json.load(f)
    cases = [(c["model"], c["batch"]) for c in data["cases"]]
    check(cases == [("resnet50", 1), ("bert", 1), ("bert", 2), ("mobilenetv3", 1), ("gpt2", 1)],
          f"default cases: one per model at batch 1, and bert:2: {cases}")
    for c in data["cases"]:
        check(c.get("status") == "passed", f"check {c['model']}:{c['batch']}: {c.get('status')} {c.get('reason')}")
    by_case = {(c["model"], c["batch"]): c for c in data["cases"]}
    mobile = (by_case[("mobilenetv3", 1)].get("outputs") or [{}])[0]
    check("top1_rows" in mobile and close(mobile.get("tolerance"), 0.05 * mobile.get("ref_range", 0)),
          f"MobileNetV3: top-1 and the range rule: {mobile}")
    decoder = (by_case[("gpt2", 1)].get("outputs") or [{}])[0]
    check("top1_rows" not in decoder and decoder.get("tolerance") == 0.05, f"GPT-2: the absolute rule: {decoder}")
    check(data["thresholds"].get("mobilenetv3", "").startswith("max abs diff <= 0.05 × reference range, top-1")
          and data["thresholds"].get("gpt2") == "max abs diff <= 0.05", f"thresholds text: {data['thresholds']}")
    for model in ("mobilenetv3", "efficientnet"):
        check(check_outputs.THRESHOLDS[model] == check_outputs.THRESHOLDS["resnet50"]
              and check_outputs.CLASSIFIERS.get(model) == "logits", f"{model} checked like ResNet-50")
    spec = {"inputs": [{"name": "input_ids", "shape": [512], "type": "int64"}]}
    ids = check_outputs.make_inputs("gpt2", spec, 4, 1, np.float16)["input_ids"]
    check(ids.min() >= 0 and 30522 <= ids.max() < 50257, f"GPT-2 check inputs over its vocabulary: {ids.max()}")
    section = "\n".join(make_table.check_section(data))
    for want in ("| MobileNetV3-Large | 1 | `logits` |", "| GPT-2 (seq 512) | 1 | `last_hidden_state` |",
                 "MobileNetV3-Large: max abs diff <= 0.05 × reference range", "GPT-2 (seq 512): max abs diff <= 0.05"):
        check(want in section, f"output check section has '{want}'")
    check("FAILED" not in section, "no failed case in the output check section")
    # BF16: the FP32 export is required (these models have FP16 ones only), and no FP16 engine is reused.
    out16 = os.path.join(tmp, "check-bf16.json")
    check_outputs.main(["--kilnexec", kilnexec, "--models", os.path.join(tmp, "models"), "--kiln-json",
                        os.path.join(tmp, "kiln.json"), "--work", os.path.join(tmp, "check-bf16"), "--out", out16,
                        "--backend", "", "--budget-s", "60", "--cases", "gpt2:1", "--precision", "bf16"])
    with open(out16) as f:
        bf16 = json.load(f)
    case = bf16["cases"][0]
    check(case.get("status") == "failed" and "EXPORT_FP32" in case.get("reason", ""),
          f"a BF16 check without the FP32 export fails and says why: {case}")
    check(bf16["thresholds"].get("gpt2") == f"max abs diff <= {0.05 * check_outputs.BF16_FACTOR:g}",
          f"BF16 thresholds: {bf16['thresholds']}")
    check("BF16 end to end" in "\n".join(make_table.check_section(bf16, "Output check in BF16")),
          "the BF16 section names its precision")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kilnexec", required=True)
    parser.add_argument("--keep", default=None, help="keep the files in this folder")
    args = parser.parse_args(argv)
    tmp = args.keep or tempfile.mkdtemp(prefix="kiln-bench-selftest-")
    os.makedirs(tmp, exist_ok=True)
    try:
        test_model_table()
        test_constant_reference()
        test_bf16_thresholds()
        test_floors(tmp)
        kiln = test_run_kiln(tmp, args.kilnexec)
        if FAILURES:
            print("selftest: the Kiln runs failed; check_outputs.py and make_table.py are not tested")
        else:
            test_check(tmp, args.kilnexec, kiln)
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
