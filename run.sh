#!/usr/bin/env bash
# run.sh — Kiln's main job on a fresh Debian 12 machine: installs missing packages, builds build/ and runs the
# cnnMlp sample, which builds a CNN and an MLP with the TensorRT API, saves and reloads the engines, runs them on
# the CPU backend, checks every output against a plain reference and prints timings.
# Usage: ./run.sh [--jobs N] [--build-dir DIR] [-- sample arguments...]
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/scripts/common.sh"
cd "$KILN_REPO_ROOT" || exit 1

buildDir="${KILN_BUILD_DIR:-build}"
jobs="$(kiln_jobs)"
sampleArgs=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --jobs) jobs="$2"; shift 2 ;;
        --build-dir) buildDir="$2"; shift 2 ;;
        --) shift; sampleArgs=("$@"); break ;;
        -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

set -e
scripts/install-deps.sh
kiln_configure "$buildDir" >/dev/null
echo "run.sh: building sampleCnnMlp in $buildDir (-j$jobs)"
cmake --build "$buildDir" --target sampleCnnMlp -j "$jobs"
set +e

echo
"$buildDir/bin/sampleCnnMlp" --dir "$buildDir" "${sampleArgs[@]}"
rc=$?
echo "run.sh: sampleCnnMlp exited with $rc"
exit $rc
