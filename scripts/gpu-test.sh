#!/usr/bin/env bash
# gpu-test.sh — builds Kiln's GPU test suite from this checkout and runs it, on the GPU machine (Ubuntu, CUDA 13,
# cuDNN 9, no package registry). The suite: kilnCudaTests (the CUDA kernels' tactics, fusions and formats against
# the CPU reference kernels, tests/backends/cuda), kilnGpuTests (engines on the CUDA backend: runtime, plugins on the
# GPU, tests/gpu; and the CUDA instances of the layer tests, tests/layers, named <Suite>.<Test>/CUDA) and, when
# scripts/gpu-plugin-test.sh exists, the separately built CUDA plugin library (install, build against the installed
# headers, loadLibrary and kilnexec --dynamicPlugins). Only the targets the suite needs are built.
#
# The ONNX parser's dependency (libonnx-dev) is missing on that machine: run scripts/gpu-deps.sh here first; it fills
# .gpu-deps/ (Debian's ONNX headers and libonnx_proto; ignored by git) which travels with the checkout (device tool:
# carry ".gpu-deps"). KILN_ONNX_DEPS names another folder of the same layout.
#
# Usage: scripts/gpu-test.sh [build dir] (default /tmp/kiln-gpu-build); extra arguments after -- go to the tests,
# e.g. scripts/gpu-test.sh /tmp/b -- --gtest_filter='CudaParity.*'. JOBS sets the build parallelism (default: nproc).
# SANITIZE=1 runs the suite again under compute-sanitizer's memcheck (any error fails the script); SANITIZE_TOOLS
# names the tools instead (e.g. SANITIZE_TOOLS="memcheck racecheck synccheck"; racecheck and synccheck check Kiln's own
# kernels only, those whose names contain "kiln": cuDNN's and cuBLASLt's closed Hopper kernels synchronise through TMA
# and mbarriers that racecheck reports as hazards and synccheck cannot track, docs/testing.md). PER_TEST=1 runs each
# test in its own sanitizer process, spread over every GPU (SANITIZE_JOBS at once, default 4 per GPU;
# PER_TEST_TIMEOUT seconds each, default 240; failing tests' logs in SANITIZE_LOGS, default <build>/sanitize-logs).
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-/tmp/kiln-gpu-build}"
shift || true
[[ "${1:-}" == "--" ]] && shift
deps="${KILN_ONNX_DEPS:-$src/.gpu-deps}"

onnxArgs=()
if [[ -f "$deps/include/onnx/onnx_pb.h" ]]; then
    onnxArgs=(-DKILN_ONNX_INCLUDE_DIR="$deps/include" -DKILN_ONNX_PROTO_LIBRARY="$deps/lib/libonnx_proto.so")
    export LD_LIBRARY_PATH="$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKILN_BUILD_BENCH=OFF -DKILN_BUILD_PYTHON=OFF -DKILN_WITH_ONEDNN=OFF -DKILN_WITH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-90}" "${onnxArgs[@]}"
targets=(kilnCudaTests kilnGpuTests kiln_cuda_module)
[[ "${GPU_TOOLS:-1}" == "1" ]] && targets+=(kilnexec kiln_plugin kiln_onnxparser)
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${targets[@]}"
rc=0
suites=(kilnCudaTests kilnGpuTests)
for suite in "${suites[@]}"; do
    echo "=== $suite"
    "$build/bin/$suite" --gtest_brief=1 "$@" || rc=$?
done
tools="${SANITIZE_TOOLS:-}"
[[ -z "$tools" && "${SANITIZE:-0}" == "1" ]] && tools=memcheck
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
# One test under one tool, in its own process, on GPU $4 (PER_TEST=1): a tool failure inside a closed library kernel
# then loses one test, not every later one. A test that makes no CUDA call ends with the tool's "terminated before
# first instrumented API call" and passes.
sanitizeOne() { # tool suite test gpu logdir
    local only=() log="$5/$1.${3//\//_}.log" rc
    [[ "$1" != "memcheck" ]] && only=(--kernel-name kns=kiln)
    CUDA_VISIBLE_DEVICES="$4" timeout "${PER_TEST_TIMEOUT:-240}" "$sanitizer" --tool "$1" "${only[@]}" \
        --error-exitcode 99 --print-limit 10 "$build/bin/$2" --gtest_brief=1 "--gtest_filter=$3" >"$log" 2>&1
    rc=$?
    grep -q "terminated before first instrumented API call" "$log" && grep -q "PASSED" "$log" && rc=0
    if [[ $rc -eq 0 ]]; then
        rm -f "$log"
    else
        echo "$1 $3: exit $rc, $(grep -m1 -o 'Internal Sanitizer Error.*\|[0-9]* hazards\? displayed.*\|ERROR SUMMARY.*' "$log")"
    fi
}
if [[ -n "$tools" && "${PER_TEST:-0}" == "1" ]]; then
    export -f sanitizeOne; export sanitizer build PER_TEST_TIMEOUT
    logs="${SANITIZE_LOGS:-$build/sanitize-logs}"; mkdir -p "$logs"
    gpus=$(nvidia-smi -L | wc -l); (( gpus > 0 )) || gpus=1
    i=0
    for tool in $tools; do
        for suite in "${suites[@]}"; do
            "$build/bin/$suite" --gtest_list_tests "$@" | awk -v s="$suite" '/^[^ ]/{p=$1; next} {print s" "p$1}' |
                while read -r suiteName test; do echo "$tool $suiteName $test $((i++ % gpus)) $logs"; done
        done
    done > "$logs/jobs"
    failures="$(xargs -P "${SANITIZE_JOBS:-$((4 * gpus))}" -L 1 bash -c 'sanitizeOne "$@"' _ < "$logs/jobs")"
    echo "=== per-test sanitizers ($tools): $(wc -l < "$logs/jobs") runs," \
        "$(grep -c . <<<"$failures") not clean (logs in $logs)"
    [[ -n "$failures" ]] && { echo "$failures"; rc=1; }
elif [[ -n "$tools" ]]; then
    for tool in $tools; do
        only=()
        [[ "$tool" != "memcheck" ]] && only=(--kernel-name kns=kiln)
        for suite in "${suites[@]}"; do
            echo "=== $tool $suite"
            "$sanitizer" --tool "$tool" "${only[@]}" --error-exitcode 1 --print-limit 20 "$build/bin/$suite" \
                --gtest_brief=1 "$@" || rc=$?
        done
    done
fi
if [[ "${GPU_TOOLS:-1}" == "1" && -x "$src/scripts/gpu-plugin-test.sh" ]]; then
    echo "=== gpu-plugin-test"
    "$src/scripts/gpu-plugin-test.sh" "$build" || rc=$?
fi
exit "$rc"
