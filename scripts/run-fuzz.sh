#!/usr/bin/env bash
# run-fuzz.sh — builds the libFuzzer configuration (clang++, -DKILN_FUZZ=ON, ASan+UBSan, CPU only: no CUDA) in build-fuzz/ and runs
# every fuzz target (tests/fuzz/*Fuzz.cpp) for a bounded time, seeded from tests/fuzz/corpus/<target>/.
# Usage: scripts/run-fuzz.sh [--time SECONDS] [--build-dir DIR] [--jobs N] [--build-only] [target...]
#   --time       per-target bound (libFuzzer -max_total_time); default 60 or $KILN_FUZZ_SECONDS
#   --build-dir  default build-fuzz or $KILN_FUZZ_BUILD_DIR
#   --build-only configure and build the targets, run nothing (scripts/fuzz-long.sh uses it)
# Exits non-zero if a target crashes/leaks/times out or the build fails. New inputs go to
# <build-dir>/fuzz-corpus/<target>/ and crash reproducers to <build-dir>/fuzz-artifacts/<target>/.
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$KILN_REPO_ROOT" || exit 1

seconds="${KILN_FUZZ_SECONDS:-60}"
buildDir="${KILN_FUZZ_BUILD_DIR:-build-fuzz}"
jobs="$(kiln_jobs)"
only=()
buildOnly=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --time) seconds="$2"; shift 2 ;;
        --build-dir) buildDir="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --build-only) buildOnly=1; shift ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        -*) echo "run-fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) only+=("$1"); shift ;;
    esac
done

clang="$(command -v clang++ || true)"
if [[ -z "$clang" ]]; then
    echo "run-fuzz.sh: clang++ not found (scripts/install-deps.sh --fuzz installs it)" >&2
    exit 1
fi

echo "==> configuring $buildDir (clang++, KILN_FUZZ=ON)"
mkdir -p "$buildDir"
cmake -S . -B "$buildDir" -G Ninja \
    -DCMAKE_CXX_COMPILER="$clang" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKILN_FUZZ=ON -DKILN_WITH_CUDA=OFF \
    -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_BENCH=OFF -DKILN_BUILD_SAMPLES=OFF -DKILN_BUILD_TOOLS=OFF \
    >"$buildDir/configure.log" 2>&1 || { cat "$buildDir/configure.log"; echo "run-fuzz.sh: configure failed" >&2; exit 1; }

echo "==> building fuzz targets (-j$jobs)"
cmake --build "$buildDir" -j "$jobs" --target kilnFuzzTargets || { echo "run-fuzz.sh: build failed" >&2; exit 1; }
if [[ $buildOnly -eq 1 ]]; then
    exit 0
fi

manifest="$buildDir/fuzz/targets.tsv"
if [[ ! -s "$manifest" ]]; then
    echo "run-fuzz.sh: no fuzz targets (tests/fuzz/*Fuzz.cpp)"
    exit 0
fi

# allocator_may_return_null (and -malloc_limit_mb below): a crafted engine or model may ask for absurd sizes; Kiln must report the failed
# allocation (as it does outside ASan), not have the fuzzer stop at ASan's allocation limit.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

failed=()
passed=()
while IFS=$'\t' read -r target exe seedDir; do
    [[ -z "$target" ]] && continue
    if [[ ${#only[@]} -gt 0 ]] && [[ ! " ${only[*]} " == *" $target "* ]]; then
        continue
    fi
    workCorpus="$buildDir/fuzz-corpus/$target"
    artifacts="$buildDir/fuzz-artifacts/$target"
    log="$buildDir/fuzz-logs/$target.log"
    mkdir -p "$workCorpus" "$artifacts" "$(dirname "$log")"
    args=(-max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 -malloc_limit_mb=2000000000 -print_final_stats=1
          -artifact_prefix="$artifacts/")
    if [[ -f "tests/fuzz/$target.dict" ]]; then
        args+=(-dict="tests/fuzz/$target.dict")
    fi
    corpora=("$workCorpus")
    if [[ -d "$seedDir" ]]; then
        corpora+=("$seedDir")
    fi
    echo "==> $target for ${seconds}s (seeds: $([[ -d "$seedDir" ]] && echo "$seedDir" || echo none))"
    "$exe" "${args[@]}" "${corpora[@]}" >"$log" 2>&1
    rc=$?
    if [[ $rc -eq 0 ]]; then
        passed+=("$target")
        grep -E '^(stat::number_of_executed_units|stat::new_units_added)' "$log" | sed 's/^/    /'
    else
        failed+=("$target")
        tail -n 60 "$log"
        echo "    $target FAILED (exit $rc); log: $log; reproducers: $artifacts/" >&2
    fi
done < "$manifest"

echo "run-fuzz.sh: ${#passed[@]} passed, ${#failed[@]} failed${failed:+: ${failed[*]}}"
[[ ${#failed[@]} -eq 0 ]]
