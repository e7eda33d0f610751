#!/usr/bin/env bash
# install-deps.sh — installs the Debian/Ubuntu packages Kiln needs to build, test and benchmark (used by
# ./run.sh and ./test.sh), and the Python packages of the Python module and its tests (numpy, pytest, pybind11,
# scikit-build-core, onnx) for python3 through pip. Does nothing when everything is already installed.
# Usage: scripts/install-deps.sh [--fuzz] [--check]
#   --fuzz   also install clang and the compiler-rt sanitizer/libFuzzer runtimes (scripts/run-fuzz.sh)
#   --check  only report what is missing; exit 1 if anything is
set -euo pipefail

withFuzz=0
checkOnly=0
for arg in "$@"; do
    case "$arg" in
        --fuzz) withFuzz=1 ;;
        --check) checkOnly=1 ;;
        -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
        *) echo "install-deps.sh: unknown argument $arg" >&2; exit 2 ;;
    esac
done

# Build: CMake >= 3.25, Ninja, g++ 12. Tests: GoogleTest/GoogleMock. Bench: Google Benchmark.
# CPU backend: oneDNN (its CMake package needs the OpenCL development files, only "recommended" by Debian).
# ONNX parser: protobuf and ONNX's protobuf classes; libonnx-testdata holds the ONNX backend node tests.
# Python: onnx (PyPI) lets the parser tests in tests/python generate their models.
packages=(
    cmake ninja-build g++ pkg-config python3 python3-dev python3-venv python3-pip
    libgtest-dev libgmock-dev libbenchmark-dev
    libdnnl-dev ocl-icd-opencl-dev
    libprotobuf-dev libonnx-dev libonnx-testdata
)
if [[ $withFuzz -eq 1 ]]; then
    packages+=(clang libclang-rt-14-dev)
fi

# Python: what the module and its tests need, for the python3 that runs the tests (PyPI; quiet; skipped when present).
pythonPackages=(numpy pytest pybind11 scikit-build-core onnx)
install_python_packages() {
    local python="${PYTHON:-python3}"
    command -v "$python" >/dev/null 2>&1 || return 0
    local missing=()
    local pkg module
    for pkg in "${pythonPackages[@]}"; do
        module="${pkg//-/_}"
        "$python" -c "import $module" >/dev/null 2>&1 || missing+=("$pkg")
    done
    # With nvcc (the CUDA backend is built): the cuDNN frontend's C++ headers (PyPI nvidia-cudnn-frontend, installed
    # without its Python-side dependencies; CMake finds its include directory through the package's file list).
    local frontend=()
    if command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]]; then
        "$python" -c 'import importlib.metadata as m; m.files("nvidia-cudnn-frontend")' >/dev/null 2>&1 \
            || frontend=(nvidia-cudnn-frontend)
    fi
    if [[ ${#missing[@]} -eq 0 && ${#frontend[@]} -eq 0 ]]; then
        echo "install-deps.sh: Python packages present (${pythonPackages[*]})"
        return 0
    fi
    if [[ ${#frontend[@]} -gt 0 ]]; then
        echo "install-deps.sh: missing Python package: ${frontend[*]} (headers only)"
        if [[ $checkOnly -eq 1 ]]; then
            return 1
        fi
        "$python" -m pip install --quiet --disable-pip-version-check --no-deps "${frontend[@]}" \
            || "$python" -m pip install --quiet --disable-pip-version-check --no-deps --break-system-packages "${frontend[@]}"
        [[ ${#missing[@]} -eq 0 ]] && return 0
    fi
    echo "install-deps.sh: missing Python packages: ${missing[*]}"
    if [[ $checkOnly -eq 1 ]]; then
        return 1
    fi
    # Debian's python3 is "externally managed" (PEP 668): allow pip to install next to it.
    "$python" -m pip install --quiet --disable-pip-version-check "${missing[@]}" \
        || "$python" -m pip install --quiet --disable-pip-version-check --break-system-packages "${missing[@]}"
}

installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps.sh: not a Debian-based system; install these yourself: ${packages[*]}" >&2
    for tool in cmake ninja c++ pkg-config; do
        command -v "$tool" >/dev/null 2>&1 || { echo "install-deps.sh: $tool is missing" >&2; exit 1; }
    done
    install_python_packages
    exit 0
fi

missing=()
for pkg in "${packages[@]}"; do
    installed "$pkg" || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps.sh: all ${#packages[@]} packages present"
    install_python_packages
    exit $?
fi
echo "install-deps.sh: missing: ${missing[*]}"
if [[ $checkOnly -eq 1 ]]; then
    exit 1
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "install-deps.sh: not root and no sudo; run as root: apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"

# Debian 12 ships CMake 3.25; older distributions do not.
cmakeVersion="$(cmake --version | sed -n 's/^cmake version \([0-9][0-9.]*\).*/\1/p')"
if [[ "$(printf '%s\n3.25\n' "$cmakeVersion" | sort -V | head -1)" != "3.25" ]]; then
    echo "install-deps.sh: CMake $cmakeVersion is too old; Kiln needs 3.25 or newer" >&2
    exit 1
fi
install_python_packages || exit 1
echo "install-deps.sh: done"
