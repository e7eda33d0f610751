#!/usr/bin/env bash
# gpu-python-test.sh — builds the Python module `kiln` with the CUDA backend from this checkout and runs the Python
# GPU tests on the GPU machine (CUDA 13, python 3.12 with torch and numpy, no package registry, maybe no pybind11,
# Python.h or pytest). What that machine lacks comes from .gpu-deps/ (scripts/gpu-deps.sh, run on the development
# machine first; device tool: carry ".gpu-deps"): pybind11 (.gpu-deps/pybind11), CPython 3.12 headers
# (.gpu-deps/python3.12, used only when the machine's own Python.h is missing), pytest (.gpu-deps/pylib, used only
# when the machine's python cannot import it) and the ONNX parser's dependency (.gpu-deps/include, lib).
#
# It runs, with PYTHONPATH=<build>/python:
#   1. tests/python/test_gpu_*.py and the seed tests (test_plugin_seed_*.py) with the default backend (the GPU);
#   2. the rest of the Python suite with KILN_BACKEND=cpu (the CPU backend on the same machine: unchanged
#      behaviour next to a loaded CUDA driver), unless CPU_SUITE=0.
# Anything missing (CUDA device, torch, pybind11, Python.h, pytest) fails the script with a message saying what.
#
# Usage: scripts/gpu-python-test.sh [build dir] (default /tmp/kiln-gpu-python-build); extra arguments after --
# go to pytest. PYTHON selects the interpreter (default python3), JOBS the build parallelism (default nproc).
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-/tmp/kiln-gpu-python-build}"
shift || true
[[ "${1:-}" == "--" ]] && shift
deps="${KILN_GPU_DEPS:-$src/.gpu-deps}"
python="${PYTHON:-python3}"

fail()
{
    echo "gpu-python-test.sh: $*" >&2
    exit 2
}

command -v "$python" >/dev/null || fail "no '$python' interpreter (set PYTHON)"
pyVersion="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
"$python" -c 'import numpy' 2>/dev/null || fail "$python cannot import numpy"
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null \
    || fail "$python cannot import torch with CUDA (torch.cuda.is_available() is False): the GPU tests need it"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || fail "nvidia-smi failed: no GPU?"

# pybind11: the machine's own, else the copy in .gpu-deps.
cmakeArgs=()
if pybindDir="$("$python" -c 'import pybind11; print(pybind11.get_cmake_dir())' 2>/dev/null)"; then
    cmakeArgs+=(-Dpybind11_DIR="$pybindDir")
elif [[ -f "$deps/pybind11/share/cmake/pybind11/pybind11Config.cmake" ]]; then
    cmakeArgs+=(-Dpybind11_DIR="$deps/pybind11/share/cmake/pybind11")
else
    fail "pybind11 is neither importable by $python nor in $deps/pybind11 (run scripts/gpu-deps.sh and carry .gpu-deps)"
fi

# Python.h: the interpreter's own include dir, else the CPython headers in .gpu-deps for the same minor version.
pyInclude="$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
if [[ ! -f "$pyInclude/Python.h" ]]; then
    pyInclude="$deps/python$pyVersion/include/python$pyVersion"
    [[ -f "$pyInclude/Python.h" ]] \
        || fail "Python.h for python $pyVersion is missing (not in the interpreter's include dir, not in $pyInclude)"
    echo "gpu-python-test.sh: using the CPython $pyVersion headers from $pyInclude"
fi
cmakeArgs+=(-DPython3_EXECUTABLE="$(command -v "$python")" -DPython3_INCLUDE_DIR="$pyInclude")

# pytest: the machine's own, else the copy in .gpu-deps/pylib.
pyPath="$build/python"
if ! "$python" -c 'import pytest' 2>/dev/null; then
    [[ -d "$deps/pylib/pytest" ]] \
        || fail "$python cannot import pytest and $deps/pylib has none (run scripts/gpu-deps.sh)"
    pyPath="$pyPath:$deps/pylib"
fi

if [[ -f "$deps/include/onnx/onnx_pb.h" ]]; then
    cmakeArgs+=(-DKILN_ONNX_INCLUDE_DIR="$deps/include" -DKILN_ONNX_PROTO_LIBRARY="$deps/lib/libonnx_proto.so")
    export LD_LIBRARY_PATH="$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# The GPU machine's default compiler (/opt/gcc, also its $CXX) links libstdc++ statically into shared libraries; a
# Python process that loaded the system libstdc++ first (numpy does) then mixes two copies and crashes. Build with
# the system g++ (KILN_PYTHON_CXX names another compiler).
pythonCxx="${KILN_PYTHON_CXX:-/usr/bin/g++}"
if [[ -x "$pythonCxx" ]]; then
    export CXX="$pythonCxx" CUDAHOSTCXX="$pythonCxx"
fi
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKILN_BUILD_BENCH=OFF -DKILN_BUILD_PYTHON=ON -DKILN_WITH_ONEDNN=OFF -DKILN_WITH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-90}" "${cmakeArgs[@]}"
grep -q '^KILN_BUILD_PYTHON:[A-Z]*=ON' "$build/CMakeCache.txt" || fail "CMake did not enable the Python module"
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target kiln_python kiln_cuda_module
ls "$build"/python/kiln/_kiln*.so >/dev/null 2>&1 || fail "the module was not built ($build/python/kiln)"

export PYTHONPATH="$pyPath" PYTHONDONTWRITEBYTECODE=1
cd "$src/tests/python"
"$python" -c 'import kiln as trt, sys
ok = trt.is_backend_available(trt.BackendKind.CUDA)
print("kiln", trt.__kiln_version__, "CUDA backend available:", ok)
sys.exit(0 if ok else 1)' || fail "kiln cannot use its CUDA backend here (libkiln_cuda.so next to libkiln? a device?)"

rc=0
echo "=== Python GPU tests + seed tests (default backend: GPU)"
"$python" -m pytest -q -p no:cacheprovider -rs test_gpu_*.py test_plugin_seed_*.py "$@" || rc=$?
if [[ "${CPU_SUITE:-1}" == "1" ]]; then
    echo "=== whole Python suite on the CPU backend (KILN_BACKEND=cpu)"
    KILN_BACKEND=cpu "$python" -m pytest -q -p no:cacheprovider -rs --ignore-glob='test_gpu_*.py' . "$@" || rc=$?
fi
exit "$rc"
