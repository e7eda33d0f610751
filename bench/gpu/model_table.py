"""The models of the GPU benchmark in one table, read by every script of bench/gpu and by run.sh (`python3
model_table.py MODELS` prints the model list, "all" expanded); no torch import here:
input and output names, per-sample input shapes and types, the token-id range of integer inputs, the table title
and unit, the default batches and the output check's rule (the time each model adds to a run: README.md).

  resnet50     torchvision.models.resnet50(weights=None)             input [B,3,224,224] -> logits [B,1000], img/s
  mobilenetv3  torchvision.models.mobilenet_v3_large(weights=None)   same I/O, img/s (depthwise, hard-swish, SE)
  efficientnet torchvision.models.efficientnet_b0(weights=None)      same I/O, img/s (depthwise, SiLU, SE)
  bert         transformers BertModel(BertConfig()), sequence 128    input_ids, attention_mask [B,128] INT64 ->
                                                                      last_hidden_state [B,128,768], pooler_output
  gpt2         transformers GPT2Model(GPT2Config()), sequence 512    input_ids [B,512] INT64 -> last_hidden_state
                                                                      [B,512,768], seq/s (causal self-attention)

Batches: BATCHES (one list for every model) overrides the per-model defaults; a per-model override
(run.sh's BATCHES_<model>=1,8, the scripts' --model-batches gpt2=1,8;bert=1) wins over both.
"""

IMAGE = [{"name": "input", "shape": [3, 224, 224], "type": "float"}]
BERT_SEQ = 128
GPT2_SEQ = 512
BERT_VOCAB = 30522
GPT2_VOCAB = 50257

# Output check rules. "range": max abs diff <= value × (max - min of the reference output), and for a classifier
# the same top-1 class (a near tie, reference gap < tie × range, counts); "abs": max abs diff <= value.
CLASSIFIER_RULE = {"kind": "range", "value": 5e-2, "tie": 1e-2}
HIDDEN_RULE = {"kind": "abs", "value": 5e-2}

MODELS = {
    "resnet50": {"title": "ResNet-50", "unit": "img/s", "inputs": IMAGE, "outputs": ["logits"],
                 "classifier": "logits", "threshold": CLASSIFIER_RULE, "batches": [1, 32],
                 "source": "torchvision `resnet50(weights=None)`"},
    "mobilenetv3": {"title": "MobileNetV3-Large", "unit": "img/s", "inputs": IMAGE, "outputs": ["logits"],
                    "classifier": "logits", "threshold": CLASSIFIER_RULE, "batches": [1, 32],
                    "source": "torchvision `mobilenet_v3_large(weights=None)`"},
    "efficientnet": {"title": "EfficientNet-B0", "unit": "img/s", "inputs": IMAGE, "outputs": ["logits"],
                     "classifier": "logits", "threshold": CLASSIFIER_RULE, "batches": [1, 32],
                     "source": "torchvision `efficientnet_b0(weights=None)`"},
    "bert": {"title": f"BERT-base (seq {BERT_SEQ})", "unit": "seq/s",
             "inputs": [{"name": "input_ids", "shape": [BERT_SEQ], "type": "int64", "vocab": BERT_VOCAB},
                        {"name": "attention_mask", "shape": [BERT_SEQ], "type": "int64", "ones": True}],
             "outputs": ["last_hidden_state", "pooler_output"], "threshold": HIDDEN_RULE, "batches": [1, 32],
             "source": f"transformers `BertModel(BertConfig())`, eager attention, sequence {BERT_SEQ}, all-ones "
                       "attention mask"},
    "gpt2": {"title": f"GPT-2 (seq {GPT2_SEQ})", "unit": "seq/s",
             "inputs": [{"name": "input_ids", "shape": [GPT2_SEQ], "type": "int64", "vocab": GPT2_VOCAB}],
             "outputs": ["last_hidden_state"], "threshold": HIDDEN_RULE, "batches": [1, 8],
             "source": f"transformers `GPT2Model(GPT2Config())`, eager causal attention, sequence {GPT2_SEQ}"},
}
ORDER = ["resnet50", "bert", "mobilenetv3", "efficientnet", "gpt2"]
DEFAULT_MODELS = "resnet50,bert"


def model_names(text):
    """'all' -> the five models; otherwise the comma list, checked against the table."""
    if text.strip() == "all":
        return list(ORDER)
    names = [m.strip() for m in text.split(",") if m.strip()]
    unknown = [m for m in names if m not in MODELS]
    if unknown:
        raise ValueError(f"unknown model(s) {', '.join(unknown)} (known: {', '.join(ORDER)}, or all)")
    return names


def parse_batches(text):
    batches = [int(b) for b in text.split(",") if b.strip()]
    if any(b < 1 for b in batches):
        raise ValueError(f"batch list '{text}' has a batch below 1")
    return batches


def parse_model_batches(text):
    """'gpt2=1,8;bert=1' (';' or whitespace between models) -> {model: [batches]}."""
    out = {}
    for item in text.replace(";", " ").split():
        model, sep, batches = item.partition("=")
        if not sep or model not in MODELS:
            raise ValueError(f"--model-batches: '{item}' is not model=b1,b2 with a known model")
        out[model] = parse_batches(batches)
    return out


def batches_for(model, batches="", model_batches=""):
    """The batches of one model: its per-model override, else the common list, else the table's default."""
    override = parse_model_batches(model_batches).get(model) if model_batches else None
    if override:
        return override
    if batches and batches.strip():
        return parse_batches(batches)
    return list(MODELS[model]["batches"]) if model in MODELS else [1, 32]


def title(model):
    return MODELS.get(model, {}).get("title", model)


def unit(model):
    return MODELS.get(model, {}).get("unit", "/s")


def input_spec(model):
    """Input and output names, per-sample shapes and ONNX element types (the manifest's entry of the model)."""
    m = MODELS[model]
    return {"inputs": [dict(i) for i in m["inputs"]], "outputs": list(m["outputs"])}


def int_input_range(model, inp, vocab=None):
    """(low, high) of an integer input: all ones for a mask, [0, vocab) for token ids. The vocabulary is the
    input's own (models.json), else the table's, else `vocab` (an explicit override wins over both)."""
    if inp.get("ones") or inp.get("name") == "attention_mask":
        return 1, 2
    table = {i["name"]: i for i in MODELS.get(model, {}).get("inputs", [])}
    size = vocab or inp.get("vocab") or table.get(inp["name"], {}).get("vocab") or BERT_VOCAB
    return 0, int(size)


def threshold(model):
    """The output check's rule of a model (None: check_outputs.py's default rule)."""
    return MODELS.get(model, {}).get("threshold")


def classifier_output(model):
    return MODELS.get(model, {}).get("classifier")


if __name__ == "__main__":
    # run.sh: `python3 model_table.py MODELS` prints the model list (all -> the five) or names the unknown model.
    import sys

    try:
        print(",".join(model_names(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_MODELS)))
    except ValueError as err:
        print(f"MODELS: {err}", file=sys.stderr)
        sys.exit(2)
