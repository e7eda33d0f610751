#!/usr/bin/env python3
"""Exports the two models of the GPU performance table to ONNX, with random weights and no network access:

  resnet50   torchvision.models.resnet50(weights=None), input "input" [B,3,224,224], output "logits" [B,1000]
  bert       transformers BertModel(BertConfig()) (BERT-base: 12 layers, hidden 768, 12 heads), sequence 128,
             inputs "input_ids" and "attention_mask" [B,128] (INT64), outputs "last_hidden_state" [B,128,768]
             and "pooler_output" [B,768]

Each model is written as <name>_fp16.onnx (model.half(), exported from the GPU when there is one) and, with --fp32,
also as <name>_fp32.onnx. Opset 17, batch axis dynamic. The weights are random (torch.manual_seed(--seed)), so the
files are only good for timing. A manifest (models.json) records the input shapes and types for the other scripts.

The exporter is torch.onnx's TorchScript-based one (dynamo=False), which writes opset 17 directly; when a torch
version no longer has it, the dynamo-based exporter is used instead (it needs onnxscript).

Usage: python3 bench/gpu/export_models.py --out DIR [--models resnet50,bert] [--fp32] [--seed 0] [--device cuda|cpu]
"""
import argparse
import json
import os
import sys
import time

# No download may happen: the GPU machine has no network, and the weights are random anyway.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

SEQ_LEN = 128
OPSET = 17


def build_resnet50():
    import torchvision

    return torchvision.models.resnet50(weights=None)


def build_bert():
    from transformers import BertConfig, BertModel

    # "eager" attention exports as plain MatMul/Softmax; the SDPA path would depend on the transformers version.
    try:
        config = BertConfig(attn_implementation="eager")
    except TypeError:
        config = BertConfig()
    if getattr(config, "_attn_implementation", None) not in (None, "eager"):
        config._attn_implementation = "eager"
    return BertModel(config, add_pooling_layer=True)


class BertWrapper:
    """A module returning a tuple (ONNX outputs need fixed names), built lazily so that torch is imported late."""

    @staticmethod
    def wrap(model):
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, input_ids, attention_mask):
                out = self.inner(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
                return out.last_hidden_state, out.pooler_output

        return Wrapped(model)


def model_spec(name):
    """Input and output names, per-sample input shapes and ONNX element types of each model."""
    if name == "resnet50":
        return {"inputs": [{"name": "input", "shape": [3, 224, 224], "type": "float"}], "outputs": ["logits"]}
    if name == "bert":
        return {"inputs": [{"name": "input_ids", "shape": [SEQ_LEN], "type": "int64"},
                           {"name": "attention_mask", "shape": [SEQ_LEN], "type": "int64"}],
                "outputs": ["last_hidden_state", "pooler_output"]}
    raise ValueError(f"unknown model {name!r} (resnet50 or bert)")


def make_model(name, half, device):
    """The model in eval mode on `device` and example inputs (batch 2, so the exporter never specialises 1)."""
    import torch

    if name == "resnet50":
        model = build_resnet50()
        dtype = torch.float16 if half else torch.float32
        example = (torch.randn(2, 3, 224, 224, dtype=dtype, device=device),)
    else:
        model = BertWrapper.wrap(build_bert())
        ids = torch.randint(0, 30522, (2, SEQ_LEN), dtype=torch.int64, device=device)
        mask = torch.ones(2, SEQ_LEN, dtype=torch.int64, device=device)
        example = (ids, mask)
    model = model.eval().to(device)
    if half:
        model = model.half()
    return model, example


def export_one(name, half, device, path):
    import torch

    spec = model_spec(name)
    model, example = make_model(name, half, device)
    input_names = [i["name"] for i in spec["inputs"]]
    output_names = spec["outputs"]
    dynamic_axes = {n: {0: "batch"} for n in input_names + output_names}
    start = time.perf_counter()
    with torch.no_grad():
        try:
            torch.onnx.export(model, example, path, dynamo=False, opset_version=OPSET, input_names=input_names,
                              output_names=output_names, dynamic_axes=dynamic_axes, do_constant_folding=True)
            exporter = "torchscript"
        except (TypeError, RuntimeError, AttributeError) as err:
            # torch versions without the TorchScript exporter: the dynamo-based one with a dynamic batch dimension.
            print(f"[export] {name}: TorchScript exporter unavailable ({err}); using dynamo=True", file=sys.stderr)
            batch = torch.export.Dim("batch", min=1, max=1024)
            shapes = {n: {0: batch} for n in input_names}
            torch.onnx.export(model, example, path, dynamo=True, opset_version=OPSET, input_names=input_names,
                              output_names=output_names, dynamic_shapes=shapes, external_data=False)
            exporter = "dynamo"
    seconds = time.perf_counter() - start
    check_model(path, spec, half)
    return {"file": os.path.basename(path), "exporter": exporter, "seconds": round(seconds, 2),
            "precision": "fp16" if half else "fp32"}


def check_model(path, spec, half):
    """The written file loads, passes onnx.checker, has opset 17, the expected I/O names and a dynamic batch."""
    import onnx

    model = onnx.load(path)
    onnx.checker.check_model(model)
    opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    if opsets.get("ai.onnx") != OPSET:
        raise RuntimeError(f"{path}: opset {opsets.get('ai.onnx')} instead of {OPSET}")
    names = [i.name for i in model.graph.input]
    expected = [i["name"] for i in spec["inputs"]]
    if names[: len(expected)] != expected:
        raise RuntimeError(f"{path}: inputs {names}, expected {expected}")
    float_type = onnx.TensorProto.FLOAT16 if half else onnx.TensorProto.FLOAT
    for graph_input, want in zip(model.graph.input, spec["inputs"]):
        tensor_type = graph_input.type.tensor_type
        want_type = float_type if want["type"] == "float" else onnx.TensorProto.INT64
        if tensor_type.elem_type != want_type:
            raise RuntimeError(f"{path}: input {graph_input.name} has ONNX type {tensor_type.elem_type}, "
                               f"expected {want_type}")
        first = tensor_type.shape.dim[0]
        if first.HasField("dim_value"):
            raise RuntimeError(f"{path}: input {graph_input.name} has a fixed batch {first.dim_value}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--models", default="resnet50,bert")
    parser.add_argument("--fp32", action="store_true", help="also export FP32 models")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    args = parser.parse_args(argv)

    import torch

    torch.manual_seed(args.seed)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    os.makedirs(args.out, exist_ok=True)
    manifest = {"seed": args.seed, "opset": OPSET, "device": device, "torch": torch.__version__, "models": {}}
    for name in [m for m in args.models.split(",") if m]:
        entry = dict(model_spec(name))
        entry["files"] = {}
        for half in ([True, False] if args.fp32 else [True]):
            torch.manual_seed(args.seed)
            precision = "fp16" if half else "fp32"
            path = os.path.join(args.out, f"{name}_{precision}.onnx")
            info = export_one(name, half, device, path)
            entry["files"][precision] = info
            print(f"[export] {name} {precision}: {path} ({info['exporter']}, {info['seconds']} s)", flush=True)
        manifest["models"][name] = entry
    with open(os.path.join(args.out, "models.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
