#!/usr/bin/env bash
# gpu-plugin-test.sh — the CUDA plugin library end to end, on the GPU machine: installs Kiln from a configured build
# tree into a temporary prefix, builds tests/install/cudaPluginLibrary as a separate project against the installed
# headers (find_package(Kiln), Kiln::headers, CUDA's static runtime; it must not link libkiln), then
#   1. builds and runs tests/install/cudaPluginConsumer.cpp: loadLibrary + KilnSwish (IPluginV2DynamicExt) and
#      KilnBiasGelu (IPluginV3, workspace) on the CUDA backend, checked against a float64 host reference;
#   2. writes a tiny ONNX model using both ops (cudaPluginLibrary/makeModel.py, Python `onnx` + numpy) and runs it with
#      kilnexec --onnx --dynamicPlugins --backend=cuda, checking the exported output against makeModel.py's reference.
# Without a usable CUDA backend step 1 prints "SKIP: no CUDA GPU" and step 2 is skipped (exit 0).
#
# Usage: scripts/gpu-plugin-test.sh <configured build dir> [--keep]
# Env: JOBS (build parallelism), CUDA_ARCHITECTURES (default 90), SANITIZE=1 (also run the consumer under
# compute-sanitizer memcheck), EXTRA_TARGETS (more targets to build before installing), KILN_ONNX_DEPS (as in
# scripts/gpu-test.sh: Debian's libonnx_proto for the parser, default .gpu-deps).
set -uo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-}"
keep=0
[[ "${2:-}" == "--keep" ]] && keep=1
if [[ -z "$build" || ! -f "$build/CMakeCache.txt" ]]; then
    echo "usage: scripts/gpu-plugin-test.sh <configured build dir> [--keep]" >&2
    exit 2
fi
build="$(cd "$build" && pwd)"
deps="${KILN_ONNX_DEPS:-$src/.gpu-deps}"
if [[ -d "$deps/lib" ]]; then
    export LD_LIBRARY_PATH="$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export PATH="$PATH:/usr/local/cuda/bin"

work="$(mktemp -d -t kiln-gpu-plugins-XXXXXX)"
if [[ $keep -eq 0 ]]; then
    trap 'rm -rf "$work"' EXIT
else
    echo "gpu-plugin-test.sh: keeping $work"
fi
prefix="$work/prefix"
failures=0
fail() {
    echo "gpu-plugin-test.sh: FAILED: $*" >&2
    failures=$((failures + 1))
}
finish() {
    if [[ $failures -eq 0 ]]; then
        echo "gpu-plugin-test.sh: PASSED"
        exit 0
    fi
    echo "gpu-plugin-test.sh: $failures failure(s)"
    exit 1
}

echo "==> building the installed targets in $build"
targets=(kiln kiln_plugin kiln_onnxparser kilnexec)
# The CUDA backend module libkiln_cuda.so (target kiln_cuda_module), installed next to libkiln.
if ninja -C "$build" -t targets all 2>/dev/null | grep -q '^kiln_cuda_module:'; then
    targets+=(kiln_cuda_module)
fi
# shellcheck disable=SC2206
targets+=(${EXTRA_TARGETS:-})
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${targets[@]}" || { fail "building ${targets[*]}"; finish; }

echo "==> installing into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; finish; }

echo "==> CUDA plugin library as a separate project (tests/install/cudaPluginLibrary), Kiln headers only"
pluginBuild="$work/cuda-plugins"
if cmake -S "$src/tests/install/cudaPluginLibrary" -B "$pluginBuild" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-90}" >"$work/plugin.log" 2>&1 \
    && cmake --build "$pluginBuild" >>"$work/plugin.log" 2>&1; then
    lib="$pluginBuild/libkilnCudaPlugins.so"
    needed="$(objdump -p "$lib" 2>/dev/null | awk '/NEEDED/ {print $2}' | tr '\n' ' ')"
    echo "    $lib needs: ${needed:-?}"
    if [[ "$needed" == *libkiln* || "$needed" == *libnvinfer* ]]; then
        fail "the CUDA plugin library links Kiln although it was built against the headers only"
    fi
else
    tail -n 40 "$work/plugin.log"
    fail "CUDA plugin library build"
    finish
fi

echo "==> kilnCudaPluginConsumer: loadLibrary, both plugins on the CUDA backend"
consumerBuild="$work/consumer"
skipped=0
if cmake -S "$src/tests/install" -B "$consumerBuild" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer.log" 2>&1 \
    && cmake --build "$consumerBuild" --target kilnCudaPluginConsumer >>"$work/consumer.log" 2>&1; then
    out="$("$consumerBuild/kilnCudaPluginConsumer" "$lib")" || fail "kilnCudaPluginConsumer returned non-zero"
    echo "$out"
    [[ "$out" == *"SKIP: no CUDA GPU"* ]] && skipped=1
    if [[ "${SANITIZE:-0}" == "1" && $skipped -eq 0 ]]; then
        sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
        "$sanitizer" --tool memcheck --error-exitcode 1 --print-limit 20 "$consumerBuild/kilnCudaPluginConsumer" "$lib" \
            || fail "kilnCudaPluginConsumer under compute-sanitizer memcheck"
    fi
else
    tail -n 40 "$work/consumer.log"
    fail "kilnCudaPluginConsumer build"
fi

echo "==> kilnexec --onnx --dynamicPlugins --backend=cuda on a model using KilnSwish and KilnBiasGelu"
if [[ $skipped -eq 1 ]]; then
    echo "SKIP: no CUDA GPU; kilnexec --backend=cuda not run"
elif ! python3 -c 'import onnx, numpy' 2>/dev/null; then
    echo "SKIP: the Python packages onnx and numpy are missing; the kilnexec step did not run"
else
    model="$work/model"
    python3 "$src/tests/install/cudaPluginLibrary/makeModel.py" "$model" || fail "makeModel.py"
    if "$prefix/bin/kilnexec" --onnx="$model/model.onnx" --dynamicPlugins="$lib" --backend=cuda \
            --loadInputs=x:"$model/x.bin" --exportOutput="$model/y.json" --iterations=10 --warmUp=10 --duration=0 \
            >"$work/kilnexec.log" 2>&1; then
        grep -E '^\[I\] (Backend|Device)|Throughput|Latency: min' "$work/kilnexec.log" | head -n 6
        python3 - "$model/y.json" "$model/y.bin" <<'PY' || fail "kilnexec output differs from the reference"
import json, sys
import numpy as np
outputs = {o["name"]: o for o in json.load(open(sys.argv[1]))}
got = np.array([float(v) for v in outputs["y"]["values"]], dtype=np.float64)
want = np.fromfile(sys.argv[2], dtype=np.float32).astype(np.float64)
assert got.shape == want.shape, (got.shape, want.shape)
err = np.abs(got - want) - (1e-5 + 1e-5 * np.abs(want))
print(f"    kilnexec output: {got.size} values, max |error| {np.max(np.abs(got - want)):.3g}")
sys.exit(0 if np.all(err <= 0) else 1)
PY
    else
        tail -n 40 "$work/kilnexec.log"
        fail "kilnexec --onnx --dynamicPlugins --backend=cuda"
    fi
fi
finish
