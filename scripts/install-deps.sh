#!/usr/bin/env bash
# install-deps.sh — installs the Debian/Ubuntu packages Kiln needs to build, test and benchmark (used by
# ./run.sh and ./test.sh). Does nothing when everything is already installed.
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
packages=(
    cmake ninja-build g++ pkg-config python3
    libgtest-dev libgmock-dev libbenchmark-dev
    libdnnl-dev ocl-icd-opencl-dev
    libprotobuf-dev libonnx-dev libonnx-testdata
)
if [[ $withFuzz -eq 1 ]]; then
    packages+=(clang libclang-rt-14-dev)
fi

installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps.sh: not a Debian-based system; install these yourself: ${packages[*]}" >&2
    for tool in cmake ninja c++ pkg-config; do
        command -v "$tool" >/dev/null 2>&1 || { echo "install-deps.sh: $tool is missing" >&2; exit 1; }
    done
    exit 0
fi

missing=()
for pkg in "${packages[@]}"; do
    installed "$pkg" || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps.sh: all ${#packages[@]} packages present"
    exit 0
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
echo "install-deps.sh: done"
