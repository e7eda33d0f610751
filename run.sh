#!/usr/bin/env bash
# run.sh — Kiln's main job on a fresh Debian 12 machine: installs missing packages, builds build/, generates an ONNX
# model whose custom op ("ScaleTacticsPlugin") is served by a plugin library (samples/onnx), builds and saves an
# engine from it with kilnexec (--dynamicPlugins), loads and runs the engine on the default backend (the GPU when
# one is present and Kiln was built with CUDA, else the CPU; KILN_BACKEND=cpu chooses the CPU),
# checks the output against a plain C++ reference and prints kilnexec's report. Nothing is downloaded at run time.
# Usage: ./run.sh [--jobs N] [--build-dir DIR] [--cnn-mlp] [-- extra kilnexec inference flags...]
#   --cnn-mlp   run the older API-only sample instead (samples/cnnMlp: a CNN and an MLP built with the TensorRT API)
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/scripts/common.sh"
cd "$KILN_REPO_ROOT" || exit 1

buildDir="${KILN_BUILD_DIR:-build}"
jobs="$(kiln_jobs)"
cnnMlp=0
extraArgs=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --jobs) jobs="$2"; shift 2 ;;
        --build-dir) buildDir="$2"; shift 2 ;;
        --cnn-mlp) cnnMlp=1; shift ;;
        --) shift; extraArgs=("$@"); break ;;
        -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

set -e
scripts/install-deps.sh
kiln_configure "$buildDir" >/dev/null
if [[ $cnnMlp -eq 1 ]]; then
    echo "run.sh: building sampleCnnMlp in $buildDir (-j$jobs)"
    cmake --build "$buildDir" --target sampleCnnMlp -j "$jobs"
    set +e
    "$buildDir/bin/sampleCnnMlp" --dir "$buildDir" "${extraArgs[@]}"
    rc=$?
    echo "run.sh: sampleCnnMlp exited with $rc"
    exit $rc
fi
echo "run.sh: building kilnexec, sampleOnnxPlugin and libkilnSampleOnnxPlugins.so in $buildDir (-j$jobs)"
cmake --build "$buildDir" --target kilnexec sampleOnnxPlugin kilnSampleOnnxPlugins -j "$jobs"
set +e

job="$buildDir/mainJob"
mkdir -p "$job"
plugins="$buildDir/lib/libkilnSampleOnnxPlugins.so"
kilnexec="$buildDir/bin/kilnexec"

step() {
    echo
    echo "run.sh: $*"
}

step "1/4 generate the ONNX model with a custom op (samples/onnx)"
"$buildDir/bin/sampleOnnxPlugin" generate "$job" || { echo "run.sh: FAILED generating the model"; exit 1; }

step "2/4 build and save the engine: kilnexec --onnx --dynamicPlugins --minShapes/--optShapes/--maxShapes --saveEngine"
"$kilnexec" --onnx="$job/model.onnx" --dynamicPlugins="$plugins" \
    --minShapes=x:1x8 --optShapes=x:4x8 --maxShapes=x:16x8 \
    --saveEngine="$job/model.plan" --skipInference \
    || { echo "run.sh: FAILED building the engine (exit $?)"; exit 1; }

step "3/4 load and run the engine on its backend with the report: kilnexec --loadEngine --loadInputs --exportOutput"
"$kilnexec" --loadEngine="$job/model.plan" --dynamicPlugins="$plugins" --shapes=x:4x8 \
    --loadInputs=x:"$job/x.bin" --exportOutput="$job/output.json" --exportTimes="$job/times.json" \
    --iterations=200 --duration=0 --warmUp=100 --avgRuns=50 --dumpProfile --separateProfileRun "${extraArgs[@]}" \
    || { echo "run.sh: FAILED running the engine (exit $?)"; exit 1; }

step "4/4 check the output against the C++ reference"
"$buildDir/bin/sampleOnnxPlugin" check "$job" "$job/output.json"
rc=$?
echo
if [[ $rc -eq 0 ]]; then
    echo "run.sh: main job PASSED (model, engine, output and timings in $job)"
else
    echo "run.sh: main job FAILED: the output differs from the reference"
fi
exit $rc
