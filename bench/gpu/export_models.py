#!/usr/bin/env python3
"""Exports the models of the GPU performance table (model_table.py) to ONNX, with random weights and no network:

  resnet50     torchvision.models.resnet50(weights=None), input "input" [B,3,224,224], output "logits" [B,1000]
  mobilenetv3  torchvision.models.mobilenet_v3_large(weights=None), same I/O (depthwise convolutions, hard-swish,
               squeeze-excitation)
  efficientnet torchvision.models.efficientnet_b0(weights=None), same I/O (depthwise convolutions, SiLU, SE)
  bert         transformers BertModel(BertConfig()) (BERT-base: 12 layers, hidden 768, 12 heads), sequence 128,
               inputs "input_ids" and "attention_mask" [B,128] (INT64), outputs "last_hidden_state" [B,128,768]
               and "pooler_output" [B,768]
  gpt2         transformers GPT2Model(GPT2Config()) (12 layers, hidden 768, 12 heads), sequence 512, input
               "input_ids" [B,512] (INT64, no attention mask: causal attention over the whole sequence), output
               "last_hidden_state" [B,512,768]

The transformers models use eager attention (attn_implementation="eager"), so the export is plain MatMul/Softmax
(with the causal mask for GPT-2), not a fused SDPA whose form depends on the transformers version.
Each model is written as <name>_fp16.onnx (model.half(), exported from the GPU when there is one) and, with --fp32,
also as <name>_fp32.onnx. Opset 17, batch axis dynamic. The weights are random (torch.manual_seed(--seed)), so the
files are only good for timing. A manifest (models.json) records the input shapes, types and token-id ranges for
the other scripts. --models all exports the five.

The exporter is torch.onnx's TorchScript-based one (dynamo=False), which writes opset 17 directly; when a torch
version no longer has it, the dynamo-based exporter is used instead (it needs onnxscript).

A model that fails to export is recorded in the manifest ("errors") and the others go on; the exit code is then 1.
With --reuse, a model whose files an earlier export left in --out (same seed, every precision asked for) is kept.

Usage: python3 bench/gpu/export_models.py --out DIR [--models resnet50,bert|all] [--fp32] [--reuse] [--seed 0]
           [--device cuda]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_table  # noqa: E402

# No download may happen: the GPU machine has no network, and the weights are random anyway.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

OPSET = 17
# The dynamo-based exporter writes ops in their opset-18 forms (Split with num_outputs, reductions with axes as an
# input), which the opset-17 checker rejects: its files declare opset 18.
DYNAMO_OPSET = 18


def eager_config(config_class):
    """A transformers config with eager attention (plain MatMul/Softmax in the export)."""
    try:
        config = config_class(attn_implementation="eager")
    except TypeError:
        config = config_class()
    if getattr(config, "_attn_implementation", None) not in (None, "eager"):
        config._attn_implementation = "eager"
    return config


def build_bert():
    from transformers import BertConfig, BertModel

    return BertModel(eager_config(BertConfig), add_pooling_layer=True)


def build_gpt2():
    from transformers import GPT2Config, GPT2Model

    return GPT2Model(eager_config(GPT2Config))


def build_vision(name):
    import torchvision

    build = {"resnet50": torchvision.models.resnet50, "mobilenetv3": torchvision.models.mobilenet_v3_large,
             "efficientnet": torchvision.models.efficientnet_b0}[name]
    return build(weights=None)


def calibrate_batchnorm(model, batches=2, batch=8):
    """Gives the BatchNorm layers of a randomly initialised CNN the statistics of its own activations (a few forward
    passes in training mode on random images, cumulative averages), as a trained model has. Without it the
    activations of torchvision's depthwise networks shrink layer after layer (their fan-out initialisation of the
    depthwise kernels is far too small for a fan-in of 9 or 25): MobileNetV3-Large's and EfficientNet-B0's FP16
    logits were exactly 0, and an output check against them was meaningless."""
    import torch

    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # cumulative moving average over the calibration batches
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(batch, 3, 224, 224))
    return model


def make_module(name):
    """The torch module of a model, returning a tuple of its outputs in model_table's order (ONNX outputs need
    fixed names), in eval mode. torch is imported here, not at module load."""
    import torch

    if name in ("resnet50", "mobilenetv3", "efficientnet"):
        return calibrate_batchnorm(build_vision(name)).eval()

    class Bert(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
            return out.last_hidden_state, out.pooler_output

    class Gpt2(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask=None):
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, use_cache=False, return_dict=True)
            return out.last_hidden_state

    if name == "bert":
        return Bert(build_bert()).eval()
    if name == "gpt2":
        return Gpt2(build_gpt2()).eval()
    raise ValueError(f"unknown model {name!r} ({', '.join(model_table.ORDER)})")


def model_spec(name):
    """Input and output names, per-sample input shapes and ONNX element types of each model."""
    if name not in model_table.MODELS:
        raise ValueError(f"unknown model {name!r} ({', '.join(model_table.ORDER)})")
    return model_table.input_spec(name)


def make_inputs(name, batch, device, float_dtype):
    """Random inputs of a model as torch tensors: images from randn, token ids in the model's vocabulary, masks
    all ones (torch_baseline.py times with these; the export traces with batch 2)."""
    import torch

    tensors = []
    for i in model_table.MODELS[name]["inputs"]:
        shape = (batch, *i["shape"])
        if i["type"] == "float":
            tensors.append(torch.randn(*shape, dtype=float_dtype, device=device))
        else:
            low, high = model_table.int_input_range(name, i)
            tensors.append(torch.randint(low, high, shape, dtype=torch.int64, device=device))
    return tuple(tensors)


def make_model(name, half, device):
    """The model in eval mode on `device` and example inputs (batch 2, so the exporter never specialises 1)."""
    import torch

    model = make_module(name).to(device)
    if half:
        model = model.half()
    return model, make_inputs(name, 2, device, torch.float16 if half else torch.float32)


def export_one(name, half, device, path):
    """Exports one model to `path`; returns the manifest's file entry and the input spec the file has."""
    import torch

    spec = model_spec(name)
    model, example = make_model(name, half, device)
    try:
        exporter, seconds = export_file(name, model, example, spec, path)
        note = None
    except Exception as err:  # noqa: BLE001 - GPT-2 only: retried with an explicit all-ones mask below
        if name != "gpt2":
            raise
        # The export of GPT-2 without an attention mask failed (the transformers version builds its causal mask in
        # a form the exporter cannot trace): export it with an all-ones "attention_mask" input, as BERT has. The
        # manifest then lists that input, and run_kiln.py / check_outputs.py feed ones to it.
        note = f"exported with an all-ones attention_mask input: without one the export failed ({err})"[:400]
        print(f"[export] {name}: {note}", file=sys.stderr)
        spec["inputs"].append({"name": "attention_mask", "shape": [model_table.GPT2_SEQ], "type": "int64",
                               "ones": True})
        example = example + (torch.ones_like(example[0]),)
        exporter, seconds = export_file(name, model, example, spec, path)
    check_model(path, spec, half)
    info = {"file": os.path.basename(path), "exporter": exporter, "seconds": round(seconds, 2),
            "precision": "fp16" if half else "fp32"}
    if note:
        info["note"] = note
    return info, spec


def export_file(name, model, example, spec, path):
    """torch.onnx.export of one module with a dynamic batch axis; (exporter used, seconds)."""
    import torch

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
            torch.onnx.export(model, example, path, dynamo=True, opset_version=DYNAMO_OPSET, input_names=input_names,
                              output_names=output_names, dynamic_shapes=shapes, external_data=False)
            exporter = "dynamo"
    return exporter, time.perf_counter() - start


def check_model(path, spec, half):
    """The written file loads, passes onnx.checker, has opset 17 (18 from the dynamo exporter), the expected I/O names
    and a dynamic batch."""
    import onnx

    model = onnx.load(path)
    onnx.checker.check_model(model)
    opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    if opsets.get("ai.onnx") not in (OPSET, DYNAMO_OPSET):
        raise RuntimeError(f"{path}: opset {opsets.get('ai.onnx')} instead of {OPSET} or {DYNAMO_OPSET}")
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
    parser.add_argument("--models", default=model_table.DEFAULT_MODELS, help="comma list, or all")
    parser.add_argument("--fp32", action="store_true", help="also export FP32 models")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the files of an earlier export in --out (same seed) instead of exporting again")
    args = parser.parse_args(argv)

    try:
        names = model_table.model_names(args.models)
    except ValueError as err:
        parser.error(str(err))
    precisions = ["fp16", "fp32"] if args.fp32 else ["fp16"]
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "models.json")
    previous = load_manifest(manifest_path) if args.reuse else {}
    manifest = {"seed": args.seed, "opset": OPSET, "models": {}}
    for key in ("device", "torch"):
        if key in previous:
            manifest[key] = previous[key]
    failed = 0
    for name in names:
        old = (previous.get("models") or {}).get(name)
        if old and previous.get("seed") == args.seed and reusable(args.out, old, precisions):
            manifest["models"][name] = old
            print(f"[export] {name}: reusing {', '.join(old['files'][p]['file'] for p in precisions)}", flush=True)
            continue
        import torch  # only when a model is exported (a run that reuses every file needs no torch)

        device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
        manifest.update(device=device, torch=torch.__version__)
        entry = dict(model_spec(name))
        entry["files"] = {}
        entry["title"] = model_table.title(name)
        manifest["models"][name] = entry
        for precision in precisions:
            torch.manual_seed(args.seed)
            path = os.path.join(args.out, f"{name}_{precision}.onnx")
            try:
                info, spec = export_one(name, precision == "fp16", device, path)
            except Exception as err:  # noqa: BLE001 - one model that fails to export must not lose the others
                entry.setdefault("errors", {})[precision] = f"{type(err).__name__}: {err}"[:600]
                print(f"[export] {name} {precision}: FAILED: {entry['errors'][precision]}", flush=True)
                failed += 1
                continue
            entry["files"][precision] = info
            entry["inputs"] = spec["inputs"]
            print(f"[export] {name} {precision}: {path} ({info['exporter']}, {info['seconds']} s)", flush=True)
        save_manifest(manifest_path, manifest)
    save_manifest(manifest_path, manifest)
    return 1 if failed else 0


def load_manifest(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def reusable(folder, entry, precisions):
    """The manifest entry of an earlier export has a file of every precision asked for, and the files exist."""
    files = entry.get("files") or {}
    return all(p in files and os.path.exists(os.path.join(folder, files[p]["file"])) for p in precisions)


def save_manifest(path, manifest):
    """Written after every model: a run cut short by run.sh's time limit keeps the models it exported."""
    with open(path + ".tmp", "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
