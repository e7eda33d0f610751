#!/usr/bin/env bash
# test-python-package.sh — checks the Python package the way users get it: creates a virtual environment inside the
# build dir (<build>/python-package/venv, with the system site-packages for numpy/pytest), runs `pip install .` from
# the repository into it (scikit-build-core; its CMake tree is kept in <build>/python-package/build, so reruns are
# incremental), then, from a directory outside the repository, imports kiln, checks that the module and its shared
# libraries come from the installed package, and runs a few pytest files against the installed package.
# Usage: scripts/test-python-package.sh [--build-dir DIR] [--jobs N]     (default build dir: build)
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$KILN_REPO_ROOT" || exit 1

buildDir="build"
jobs="$(kiln_jobs)"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build-dir) buildDir="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
        *) echo "test-python-package.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

python="${PYTHON:-python3}"
if ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
    echo "test-python-package.sh: $python has no venv/ensurepip (Debian: apt-get install python3-venv)" >&2
    exit 1
fi

mkdir -p "$buildDir/python-package"
work="$(cd "$buildDir/python-package" && pwd)"
venv="$work/venv"
unset PYTHONPATH

if [[ ! -x "$venv/bin/python" ]]; then
    echo "test-python-package.sh: creating $venv"
    "$python" -m venv --system-site-packages "$venv" || exit 1
fi
vpython="$venv/bin/python"

# Build requirements: use the installed ones when present (no network), else let pip fetch them from PyPI.
pipArgs=(install --quiet --no-deps --force-reinstall --config-settings=build-dir="$work/build")
if "$vpython" -c "import scikit_build_core, pybind11" >/dev/null 2>&1; then
    pipArgs+=(--no-build-isolation)
fi
export CMAKE_BUILD_PARALLEL_LEVEL="$jobs"
if command -v ccache >/dev/null 2>&1; then
    export CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
fi
echo "test-python-package.sh: pip ${pipArgs[*]} $KILN_REPO_ROOT"
if ! "$vpython" -m pip "${pipArgs[@]}" "$KILN_REPO_ROOT"; then
    echo "test-python-package.sh: FAILED: pip install" >&2
    exit 1
fi

outside="$(mktemp -d -t kiln-pypkg-XXXXXX)"
trap 'rm -rf "$outside"' EXIT
cd "$outside" || exit 1

failures=0
fail() {
    echo "test-python-package.sh: FAILED: $*" >&2
    failures=$((failures + 1))
}

# The module, its pure-Python parts and its libraries must all come from the venv.
if ! "$vpython" - "$venv" <<'EOF'
import os
import sys

import kiln as trt

venv = os.path.realpath(sys.argv[1])
module = os.path.realpath(trt._kiln.__file__)
assert module.startswith(venv), f"kiln._kiln comes from {module}, not from {venv}"
package = os.path.dirname(module)
maps = open("/proc/self/maps").read() if os.path.exists("/proc/self/maps") else ""
# The libraries ship under their SONAMEs, TensorRT's names (a wheel holds no symlinks).
for lib in ("libnvinfer.so.10", "libnvinfer_plugin.so.10", "libnvonnxparser.so.10"):
    assert os.path.isfile(os.path.join(package, lib)), f"{lib} is missing from {package}"
    if maps:
        loaded = {line.split()[-1] for line in maps.splitlines() if line.endswith("/" + lib)}
        assert loaded and all(os.path.realpath(p).startswith(package) for p in loaded), loaded
logger = trt.Logger(trt.Logger.ERROR)
builder = trt.Builder(logger)
config = builder.create_builder_config()
assert config.get_memory_pool_limit(trt.MemoryPoolType.WORKSPACE) >= 0
print(f"test-python-package.sh: kiln {trt.__kiln_version__} (TensorRT API {trt.__version__}) from {package}")
EOF
then
    fail "import kiln from the installed package"
fi

testFiles=(test_core_types.py test_core_logger.py test_builder_config.py test_runtime_user_buffers.py)
testPaths=()
for f in "${testFiles[@]}"; do
    testPaths+=("$KILN_REPO_ROOT/tests/python/$f")
done
if "$vpython" -c "import pytest" >/dev/null 2>&1; then
    if ! "$vpython" -m pytest -q -p no:cacheprovider "${testPaths[@]}"; then
        fail "pytest against the installed package"
    fi
else
    echo "test-python-package.sh: pytest is not installed; skipping the pytest files"
fi

if [[ $failures -ne 0 ]]; then
    echo "test-python-package.sh: $failures check(s) failed" >&2
    exit 1
fi
echo "test-python-package.sh: OK"
