#!/usr/bin/env bash
# run.sh — the GPU performance table of docs/performance.md in one run on the GPU machine: exports the models
# (default ResNet-50 and BERT-base; MODELS=all adds MobileNetV3-Large, EfficientNet-B0 and GPT-2) to FP16 ONNX
# (random weights), runs them through Kiln (kilnexec, CUDA backend, with and without CUDA graphs, per-layer profile),
# checks Kiln's outputs against onnxruntime on the CPU (check_outputs.py), runs them through PyTorch eager and
# torch.compile, and prints the markdown table (also written to $WORK/gpu-table.md and, when OUT is set, to
# $OUT/gpu-table.md with the JSON files and logs).
#
# Usage: bench/gpu/run.sh                      (builds kilnexec in $KILN_BUILD if $KILNEXEC is not given)
# Environment:
#   KILNEXEC=path       a kilnexec built with CUDA (skips the build)
#   KILN_BUILD=dir      build folder for kilnexec (default /tmp/kiln-gpu-build, the one scripts/gpu-test.sh uses)
#   BUILD_ONLY=1        build kilnexec and stop (the device tool allows 10 minutes per command: build in one call,
#                       then run with KILNEXEC=$KILN_BUILD/bin/kilnexec in the next)
#   EXPORT_ONLY=1       export the models and stop (e.g. in the build's call);  REUSE_MODELS=1 keeps the ONNX files
#                       an earlier export left in $WORK/models (same models and seed) instead of exporting again
#   WORK=dir            models, engines, logs (default /tmp/kiln-bench-gpu)
#   OUT=dir             where the table, the JSON files and the logs are copied (the device tool's output folder)
#   MODELS=resnet50,bert   any of resnet50,mobilenetv3,efficientnet,bert,gpt2, or all (the five)
#   BATCHES=1,32        batches of every model; unset, each model has its own default (bench/gpu/model_table.py:
#                       1,32; GPT-2 1,8); BATCHES_<model>=1,8 (e.g. BATCHES_gpt2=8) sets one model's and wins over both
#   TORCH_MODES=eager,default   add max-autotune-no-cudagraphs for the autotuned Inductor (minutes more)
#   TOTAL_BUDGET_S      the run after the build (default 450 s, plus 30 s per model beyond two: 540 s for all
#                       five); Kiln and the output check get what is left minus TORCH_RESERVE_S, PyTorch the rest
#   TORCH_RESERVE_S=200 seconds kept for the PyTorch baselines when the Kiln runs start
#   TORCH_BUDGET_S      no new torch.compile compilation starts after this many seconds of the baseline script
#                       (default: its time limit minus 60 s)
#   KILN_DURATION=1.5   seconds of timed runs per kilnexec run;  EXPORT_FP32=1 also writes FP32 ONNX files
#   CHECK=1             output check (check_outputs.py: Kiln against onnxruntime CPU on the same inputs), given
#                       CHECK_BUDGET_S (default 20 s + 10 s per model) taken from Kiln's share; CHECK_CASES=model:batch,...
#                       (default: one case per model of MODELS at batch 1, and bert:2 with BERT; a case with no saved
#                       engine is built only when run_kiln.py's build time for the model fits); CHECK=0 skips it
#   CHECK_BF16=1        also the output check of BF16 engines (check_outputs.py --precision bf16: the FP32 exports,
#                       so EXPORT_FP32=1 too, built with --bf16), given CHECK_BF16_BUDGET_S (default 30 s + 20 s per
#                       model) taken from Kiln's share; written to check-bf16.json and its own table section
#   KILN_BACKEND=cuda, TORCH_DEVICE=cuda, KILN_ITERATIONS=100, TORCH_ITERS=50, PYTHON=python3
#                       (KILN_BACKEND= and TORCH_DEVICE=cpu only to try the script on a machine without a GPU)
# The whole run (without the kilnexec build) stays within TOTAL_BUDGET_S: every step runs under `timeout` against
# the total budget, no new Kiln engine starts in the last 45 s of Kiln's share, and the JSON files are written after
# every measurement, so a step cut short keeps what it measured (the rest shows as "skipped" or "failed").
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
work="${WORK:-/tmp/kiln-bench-gpu}"
build="${KILN_BUILD:-/tmp/kiln-gpu-build}"
batches="${BATCHES:-}"
models="${MODELS:-resnet50,bert}"
python="${PYTHON:-python3}"
models="$("$python" "$here/model_table.py" "$models")" || exit 2   # all -> the five; an unknown name stops here
nModels=$(( $(tr -cd , <<<"$models" | wc -c) + 1 ))
# Per-model batches (BATCHES_gpt2=1,8 ...) for the scripts' --model-batches.
modelBatches=""
for m in ${models//,/ }; do
    var="BATCHES_$m"
    [[ -n "${!var:-}" ]] && modelBatches+="$m=${!var};"
done
totalBudget="${TOTAL_BUDGET_S:-$(( 450 + 30 * (nModels > 2 ? nModels - 2 : 0) ))}"
mkdir -p "$work"
start=$(date +%s)
stamp() { echo "[run.sh] $(( $(date +%s) - start )) s: $*"; }
# Seconds left of the total budget (TOTAL_BUDGET_S, default 450 for two models: under 8 minutes), minus a margin.
# Never below 30 s: `timeout` refuses a negative duration, and a step that starts at all needs some time.
left() {
    local s=$(( totalBudget - ($(date +%s) - start) - ${1:-0} ))
    echo $(( s < 30 ? 30 : s ))
}

# The ONNX parser's libonnx_proto travels in .gpu-deps (scripts/gpu-deps.sh), as for scripts/gpu-test.sh.
deps="${KILN_ONNX_DEPS:-$src/.gpu-deps}"
onnxArgs=()
if [[ -f "$deps/include/onnx/onnx_pb.h" ]]; then
    onnxArgs=(-DKILN_ONNX_INCLUDE_DIR="$deps/include" -DKILN_ONNX_PROTO_LIBRARY="$deps/lib/libonnx_proto.so")
    export LD_LIBRARY_PATH="$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

kilnexec="${KILNEXEC:-}"
if [[ -z "$kilnexec" ]]; then
    stamp "building kilnexec in $build"
    cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DKILN_BUILD_BENCH=OFF -DKILN_BUILD_PYTHON=OFF -DKILN_WITH_ONEDNN=OFF -DKILN_WITH_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-90}" "${onnxArgs[@]}" > "$work/cmake.log"
    cmake --build "$build" -j "${JOBS:-$(nproc)}" --target kilnexec > "$work/build.log" \
        || { tail -30 "$work/build.log"; exit 1; }
    kilnexec="$build/bin/kilnexec"
fi
[[ -x "$kilnexec" ]] || { echo "run.sh: no kilnexec at $kilnexec" >&2; exit 1; }
if [[ "${BUILD_ONLY:-0}" == "1" ]]; then
    stamp "built $kilnexec (BUILD_ONLY=1: stopping here)"
    exit 0
fi
start=$(date +%s)   # the budget starts after the build

# Machine and versions.
"$python" - "$work/system.json" "$src" "$kilnexec" <<'EOF'
import json, os, platform, subprocess, sys, datetime
def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:
        return ""
smi = sh("nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader").splitlines()
name, driver, memory = ([p.strip() for p in smi[0].split(",")] + ["?", "?", "?"])[:3] if smi else ("?", "?", "?")
cuda = ""
for line in sh("nvidia-smi").splitlines():
    if "CUDA Version" in line:
        cuda = line.split("CUDA Version:")[1].split()[0]
cpu = ""
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip(); break
except OSError:
    pass
commit = sh("git", "-C", sys.argv[2], "rev-parse", "--short", "HEAD")
dirty = sh("git", "-C", sys.argv[2], "status", "--porcelain", "--untracked-files=no")
info = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "gpu": name, "driver": driver, "gpu_memory": memory, "cuda": cuda or "?", "cpu": cpu or platform.processor(),
        "cores": os.cpu_count(), "kiln_commit": (commit or "?") + (" + local changes" if dirty else ""),
        "kilnexec": sys.argv[3], "python": platform.python_version()}
json.dump(info, open(sys.argv[1], "w"), indent=1)
print("[run.sh] " + ", ".join(f"{k}={v}" for k, v in info.items()))
EOF

stamp "exporting $models"
exportArgs=(--out "$work/models" --models "$models")
[[ "${EXPORT_FP32:-0}" == "1" ]] && exportArgs+=(--fp32)
[[ "${REUSE_MODELS:-0}" == "1" ]] && exportArgs+=(--reuse)
[[ "${EXPORT_ONLY:-0}" == "1" ]] && totalBudget=590   # the export alone: the device tool's 10 minutes
timeout "$(left 300)" "$python" "$here/export_models.py" "${exportArgs[@]}" 2>&1 | tee "$work/export.log" | grep -v Warning || true
[[ -f "$work/models/models.json" ]] || { echo "run.sh: the export failed (see $work/export.log)" >&2; tail -20 "$work/export.log"; exit 1; }
if [[ "${EXPORT_ONLY:-0}" == "1" ]]; then
    stamp "exported $models to $work/models (EXPORT_ONLY=1: stopping here)"
    exit 0
fi

checkBudget="${CHECK_BUDGET_S:-$(( 20 + 10 * nModels ))}"
[[ "${CHECK:-1}" == "1" ]] || checkBudget=0
bf16Budget=0
[[ "${CHECK_BF16:-0}" == "1" ]] && bf16Budget="${CHECK_BF16_BUDGET_S:-$(( 30 + 20 * nModels ))}"
kilnLimit="$(left $(( ${TORCH_RESERVE_S:-200} + checkBudget + bf16Budget )))"
stamp "Kiln runs (${kilnLimit} s)"
timeout "$kilnLimit" "$python" "$here/run_kiln.py" --kilnexec "$kilnexec" --models "$work/models" \
    --work "$work/kiln" --out "$work/kiln.json" --batches "$batches" --model-batches "$modelBatches" \
    --budget-s "$(( kilnLimit > 90 ? kilnLimit - 45 : kilnLimit / 2 ))" --duration "${KILN_DURATION:-1.5}" \
    --timeout 120 --backend "${KILN_BACKEND-cuda}" --iterations "${KILN_ITERATIONS:-100}" \
    || echo "run.sh: run_kiln.py did not finish (exit $?): the table shows what it wrote" >&2

# Output check: Kiln's outputs against onnxruntime (CPU) on the same inputs; it never fails the run (a failed or
# unfinished check shows as FAILED in the table). No new case starts after CHECK_BUDGET_S seconds.
if [[ "${CHECK:-1}" == "1" ]]; then
    stamp "output check (${checkBudget} s)"
    timeout "$(( checkBudget + 10 ))" "$python" "$here/check_outputs.py" --kilnexec "$kilnexec" --models "$work/models" \
        --kiln-json "$work/kiln.json" --work "$work/check" --out "$work/check.json" --budget-s "$checkBudget" \
        --cases "${CHECK_CASES:-}" --backend "${KILN_BACKEND-cuda}" 2>&1 | tee "$work/check.log" \
        || echo "run.sh: check_outputs.py did not finish: the table shows what it wrote" >&2
fi
if [[ "${CHECK_BF16:-0}" == "1" ]]; then
    stamp "BF16 output check (${bf16Budget} s)"
    timeout "$(( bf16Budget + 10 ))" "$python" "$here/check_outputs.py" --kilnexec "$kilnexec" --models "$work/models" \
        --kiln-json "$work/kiln.json" --work "$work/check-bf16" --out "$work/check-bf16.json" --budget-s "$bf16Budget" \
        --cases "${CHECK_CASES:-}" --backend "${KILN_BACKEND-cuda}" --precision bf16 2>&1 | tee "$work/check-bf16.log" \
        || echo "run.sh: the BF16 check did not finish: the table shows what it wrote" >&2
fi

# PyTorch gets what is left; no new torch.compile compilation starts in its last 60 seconds (a default-mode
# compilation took 7-9 s on the H100 for ResNet-50 and BERT-base, plus the timed runs).
torchLimit="$(left 15)"
stamp "PyTorch baselines (${torchLimit} s left)"
if (( torchLimit > 30 )); then
    timeout "$torchLimit" "$python" "$here/torch_baseline.py" --out "$work/torch.json" --models "$models" \
        --batches "$batches" --model-batches "$modelBatches" --modes "${TORCH_MODES:-eager,default}" \
        --budget-s "${TORCH_BUDGET_S:-$(( torchLimit - 60 ))}" \
        --device "${TORCH_DEVICE:-cuda}" --iters "${TORCH_ITERS:-50}" \
        2>&1 | tee "$work/torch.log" | grep -E '^\[torch\]|Error|error' || true
else
    echo "run.sh: no time left for the PyTorch baselines" >&2
fi

stamp "table"
checkArgs=()
[[ "${CHECK:-1}" == "1" ]] && checkArgs=(--check "$work/check.json")
[[ "${CHECK_BF16:-0}" == "1" ]] && checkArgs+=(--check-bf16 "$work/check-bf16.json")
"$python" "$here/make_table.py" --system "$work/system.json" --torch "$work/torch.json" --kiln "$work/kiln.json" \
    "${checkArgs[@]}" --out "$work/gpu-table.md"

if [[ -n "${OUT:-}" ]]; then
    mkdir -p "$OUT/logs"
    cp "$work/gpu-table.md" "$work"/*.json "$OUT/" 2>/dev/null || true
    cp "$work"/*.log "$OUT/logs/" 2>/dev/null || true
    if [[ -d "$work/kiln" ]]; then
        cp "$work"/kiln/*.log "$work"/kiln/*.json "$OUT/logs/" 2>/dev/null || true
    fi
    cp "$work"/check/*.log "$OUT/logs/" 2>/dev/null || true
fi
stamp "done"
