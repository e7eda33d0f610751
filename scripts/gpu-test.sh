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
# and mbarriers that racecheck reports as hazards and synccheck cannot track, docs/testing.md).
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
if [[ -n "$tools" ]]; then
    sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
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
