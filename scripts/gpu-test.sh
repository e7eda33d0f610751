#!/usr/bin/env bash
# gpu-test.sh — builds Kiln's GPU test suite from this checkout and runs it, on the GPU machine (Ubuntu, CUDA 13,
# cuDNN 9, no package registry). For now the suite is kilnCudaTests (CUDA kernels against the CPU reference kernels,
# tests/backends/cuda). Only the targets the suite needs are built.
#
# The ONNX parser's dependency (libonnx-dev) is missing on that machine: run scripts/gpu-deps.sh here first; it fills
# .gpu-deps/ (Debian's ONNX headers and libonnx_proto; ignored by git) which travels with the checkout (device tool:
# carry ".gpu-deps"). KILN_ONNX_DEPS names another folder of the same layout.
#
# Usage: scripts/gpu-test.sh [build dir] (default /tmp/kiln-gpu-build); extra arguments after -- go to the tests,
# e.g. scripts/gpu-test.sh /tmp/b -- --gtest_filter='CudaParity.*'. JOBS sets the build parallelism (default: nproc).
# SANITIZE=1 runs the suite a second time under compute-sanitizer's memcheck (any error fails the script).
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
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target kilnCudaTests
rc=0
"$build/bin/kilnCudaTests" --gtest_brief=1 "$@" || rc=$?
if [[ "${SANITIZE:-0}" == "1" ]]; then
    sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
    "$sanitizer" --tool memcheck --error-exitcode 1 --print-limit 20 "$build/bin/kilnCudaTests" --gtest_brief=1 "$@" \
        || rc=$?
fi
exit "$rc"
