#!/usr/bin/env bash
# gpu-deps.sh — fills .gpu-deps/ (ignored by git) with what the GPU machine lacks and scripts/gpu-test.sh and
# scripts/gpu-python-test.sh need, copied from this machine: Debian's ONNX headers and libonnx_proto, the cuDNN
# frontend's headers (.gpu-deps/cudnn_frontend/include)
# (scripts/install-deps.sh installs them); for the Python module, pybind11 (header-only: its include/ and
# share/cmake/ dirs, in .gpu-deps/pybind11), CPython 3.12's headers (.gpu-deps/python3.12/include/python3.12, for a
# GPU machine whose python3.12 lacks Python.h) and pytest with its pure-Python dependencies (.gpu-deps/pylib, used
# only when the GPU machine's python cannot import pytest). Carry .gpu-deps along with the checkout to the GPU
# machine, which reaches no package registry.
# Usage: scripts/gpu-deps.sh [dir]     (default: <repo>/.gpu-deps)
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$repo/.gpu-deps}"
header="$(dpkg -L libonnx-dev 2>/dev/null | grep '/onnx/onnx_pb.h$' | head -1 || true)"
if [[ -z "$header" ]]; then
    echo "gpu-deps.sh: libonnx-dev is not installed (scripts/install-deps.sh installs it)" >&2
    exit 1
fi
includeDir="$(dirname "$(dirname "$header")")"
libDir="$(dirname "$(dpkg -L libonnx-dev | grep '/libonnx_proto.so$' | head -1)")"
mkdir -p "$dest/include" "$dest/lib"
cp -r "$includeDir/onnx" "$dest/include/"
cp -a "$libDir"/libonnx_proto.so* "$dest/lib/"

# ---- Python module (scripts/gpu-python-test.sh) ---------------------------------------------------------------
python="${PYTHON:-python3}"
if pybindCmake="$("$python" -c 'import pybind11; print(pybind11.get_cmake_dir())' 2>/dev/null)"; then
    pybindRoot="$(cd "$pybindCmake/../../.." && pwd)"   # <root>/share/cmake/pybind11 -> <root>
    rm -rf "$dest/pybind11"
    mkdir -p "$dest/pybind11/share/cmake"
    cp -r "$pybindRoot/include" "$dest/pybind11/"
    cp -r "$pybindCmake" "$dest/pybind11/share/cmake/"
else
    echo "gpu-deps.sh: warning: pybind11 is not importable by $python; the Python module cannot be built there" >&2
fi
# CPython 3.12 headers: from a local 3.12 (pyenv, python3.12-config), else from Debian's packages (apt-get download).
py312Include=""
for candidate in "$(python3.12 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null || true)" \
    "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/include/python3.12 /usr/include/python3.12; do
    if [[ -n "$candidate" && -f "$candidate/Python.h" ]]; then
        py312Include="$candidate"
        break
    fi
done
if [[ -z "$py312Include" ]]; then
    tmp="$(mktemp -d)"
    if (cd "$tmp" && apt-get download libpython3.12-dev python3.12-dev >/dev/null 2>&1); then
        for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$tmp/root"; done
        [[ -f "$tmp/root/usr/include/python3.12/Python.h" ]] && py312Include="$tmp/root/usr/include/python3.12"
    fi
fi
if [[ -n "$py312Include" ]]; then
    rm -rf "$dest/python3.12"
    mkdir -p "$dest/python3.12/include"
    cp -r "$py312Include" "$dest/python3.12/include/python3.12"
    # Debian's multiarch pyconfig.h lives apart; a flat copy of it is enough for the module.
    multiarch="$(dirname "$py312Include")/x86_64-linux-gnu/python3.12/pyconfig.h"
    if [[ ! -f "$dest/python3.12/include/python3.12/pyconfig.h" && -f "$multiarch" ]]; then
        cp "$multiarch" "$dest/python3.12/include/python3.12/"
    fi
else
    echo "gpu-deps.sh: warning: no CPython 3.12 headers found (pyenv, python3.12-config or apt-get download);" \
        "the GPU machine must have its own Python.h" >&2
fi
# pytest and its pure-Python dependencies, for a GPU machine without pytest.
pytestProbe='import os, pytest, _pytest, pluggy, iniconfig, packaging, pygments
print(os.path.dirname(os.path.dirname(pytest.__file__)))'
if pylib="$("$python" -c "$pytestProbe" 2>/dev/null)"; then
    rm -rf "$dest/pylib"
    mkdir -p "$dest/pylib"
    for module in pytest _pytest pluggy iniconfig packaging pygments py.py exceptiongroup tomli; do
        [[ -e "$pylib/$module" ]] && cp -r "$pylib/$module" "$dest/pylib/"
    done
    find "$dest/pylib" -name __pycache__ -prune -exec rm -rf {} +
else
    echo "gpu-deps.sh: warning: pytest is not importable by $python; the GPU machine must have its own" >&2
fi

# The cuDNN frontend's headers (header-only, PyPI nvidia-cudnn-frontend) for the graph-API convolutions; the CMake
# configuration finds them in .gpu-deps/cudnn_frontend/include.
frontendProbe='import importlib.metadata as m
print(next(str(f.locate().parent) for f in (m.files("nvidia-cudnn-frontend") or []) if f.name == "cudnn_frontend.h"))'
if frontendInclude="$("$python" -c "$frontendProbe" 2>/dev/null)"; then
    rm -rf "$dest/cudnn_frontend"
    mkdir -p "$dest/cudnn_frontend"
    cp -r "$frontendInclude" "$dest/cudnn_frontend/include"
else
    echo "gpu-deps.sh: warning: nvidia-cudnn-frontend is not installed for $python (scripts/install-deps.sh installs" \
        "it); convolutions on the GPU machine will use cuDNN's legacy calls only" >&2
fi

# Keep git from sending it to CI while letting the device tool carry it.
exclude="$repo/.git/info/exclude"
if [[ -f "$exclude" ]] && ! grep -qx "/.gpu-deps/" "$exclude"; then
    echo "/.gpu-deps/" >> "$exclude"
fi
echo "gpu-deps.sh: $(du -sh "$dest" | cut -f1) in $dest"
