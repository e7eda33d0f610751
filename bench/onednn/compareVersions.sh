#!/usr/bin/env bash
# Compares two oneDNN builds on the primitives of compareVersions.cpp: builds the program against the system oneDNN
# (Debian's libdnnl-dev) and against the one under PREFIX (e.g. a pip install of onednn-cpu-gomp +
# onednn-devel-cpu-gomp into a virtual environment), then runs them ROUNDS times, interleaved, with THREADS OpenMP
# threads. Prints each round's lines; summarise with compareVersions.py.
# Usage: bench/onednn/compareVersions.sh PREFIX [ROUNDS=3] [THREADS=nproc] [BATCH]   (BATCH: 1 or 16; default both)
set -euo pipefail
prefix="${1:?usage: compareVersions.sh PREFIX [ROUNDS] [THREADS] [BATCH]}"
rounds="${2:-3}"
threads="${3:-$(nproc)}"
batch="${4:-}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
g++ -O2 -std=c++17 -o "$work/system" "$here/compareVersions.cpp" -ldnnl
g++ -O2 -std=c++17 -I"$prefix/include" -o "$work/prefix" "$here/compareVersions.cpp" -L"$prefix/lib" -ldnnl \
    -Wl,-rpath,"$prefix/lib"
for ((r = 0; r < rounds; ++r)); do
    order=(system prefix)
    if ((r % 2 == 1)); then order=(prefix system); fi
    for which in "${order[@]}"; do
        echo "# round $r $which"
        OMP_NUM_THREADS="$threads" LD_LIBRARY_PATH="$prefix/lib" "$work/$which" $batch
    done
done
rm -rf "$work"
