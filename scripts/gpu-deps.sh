#!/usr/bin/env bash
# gpu-deps.sh — fills .gpu-deps/ (ignored by git) with what the GPU machine lacks and scripts/gpu-test.sh needs:
# Debian's ONNX headers and libonnx_proto, copied from this machine (scripts/install-deps.sh installs them). Carry
# .gpu-deps along with the checkout to the GPU machine, which reaches no package registry.
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
# Keep git from sending it to CI while letting the device tool carry it.
exclude="$repo/.git/info/exclude"
if [[ -f "$exclude" ]] && ! grep -qx "/.gpu-deps/" "$exclude"; then
    echo "/.gpu-deps/" >> "$exclude"
fi
echo "gpu-deps.sh: $(du -sh "$dest" | cut -f1) in $dest"
