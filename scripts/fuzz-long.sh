#!/usr/bin/env bash
# fuzz-long.sh — long fuzzing runs (hours, or a number of executions per target) of every libFuzzer target in
# tests/fuzz/ (byte-level engineReaderFuzz and onnxModelFuzz, structure-aware engineStructureFuzz and
# onnxStructureFuzz), built by scripts/run-fuzz.sh --build-only (clang++, ASan+UBSan, build-fuzz/).
# Usage: scripts/fuzz-long.sh [--time SECONDS | --runs N] [--workers N] [--build-dir DIR] [--no-build]
#                             [--update-corpus] [target...]
#   --time           per-target wall time (libFuzzer -max_total_time); default 3600
#   --runs           per-target executions instead (-runs=N; with --workers, per worker)
#   --workers        parallel libFuzzer jobs per target (-jobs/-workers); default 1
#   --build-dir      default build-fuzz or $KILN_FUZZ_BUILD_DIR
#   --no-build       use the targets already in DIR/fuzz/targets.tsv (paths relative to the repository root or
#                    absolute); the bundle of scripts/fuzz-bundle.sh runs this script so, without a compiler
#   --update-corpus  merge what was found into tests/fuzz/corpus/<target>/ (libFuzzer -merge=1 keeps only inputs
#                    that add coverage), refused when the result exceeds 64 files or 512 KiB: the repository corpus
#                    stays small
# Each crash, leak or timeout is minimised (-minimize_crash=1) into tests/fuzz/regressions/<target>/, where the
# ctest fuzzReplay.<target> replays it from then on: a regression test that fails until the bug is fixed. The last
# lines give, per target, the executions, new coverage units and crashes, and a Markdown row with the date and commit
# for docs/building.md (the commit is $KILN_FUZZ_COMMIT when set, else git's). Every target runs with
# KILN_CPU_THREADS=1 and OMP_NUM_THREADS=1 unless they are set: the workers are the parallelism. Exits non-zero when
# any target crashed.
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$KILN_REPO_ROOT" || exit 1

seconds=3600
runs=""
workers=1
buildDir="${KILN_FUZZ_BUILD_DIR:-build-fuzz}"
updateCorpus=0
build=1
only=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --time) seconds="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --workers) workers="$2"; shift 2 ;;
        --build-dir) buildDir="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --update-corpus) updateCorpus=1; shift ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        -*) echo "fuzz-long.sh: unknown option $1" >&2; exit 2 ;;
        *) only+=("$1"); shift ;;
    esac
done

if [[ $build -eq 1 ]]; then
    scripts/run-fuzz.sh --build-only --build-dir "$buildDir" || exit 1
fi
manifest="$buildDir/fuzz/targets.tsv"
if [[ ! -s "$manifest" ]]; then
    echo "fuzz-long.sh: no fuzz targets listed in $manifest" >&2
    exit 1
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export KILN_CPU_THREADS="${KILN_CPU_THREADS:-1}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
commit="${KILN_FUZZ_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
root="$(pwd)"
abs() { if [[ "$1" == /* ]]; then echo "$1"; else echo "$root/$1"; fi; }
today="$(date -u +%Y-%m-%d)"

# statSum NAME LOG...: the sum of libFuzzer's final "stat::NAME: value" lines in the logs.
statSum() {
    local key="stat::$1"
    shift
    cat "$@" /dev/null | awk -F: -v key="$key" '$1 "::" $3 == key {s += $NF} END {print s + 0}'
}

crashed=()
rows=()
while IFS=$'\t' read -r target exe seedDir; do
    [[ -z "$target" ]] && continue
    if [[ ${#only[@]} -gt 0 ]] && [[ ! " ${only[*]} " == *" $target "* ]]; then
        continue
    fi
    work="$(abs "$buildDir")/fuzz-long/$target"
    corpus="$work/corpus"
    artifacts="$work/artifacts"
    regressions="$root/tests/fuzz/regressions/$target"
    mkdir -p "$corpus" "$artifacts"
    # Logs of an earlier run in this folder would be summed with this one's, and its artefacts counted again.
    rm -f "$work"/fuzz-*.log "$work/run.log"
    started="$work/.started"
    touch "$started"
    args=(-timeout=25 -rss_limit_mb=4096 -malloc_limit_mb=2000000000 -print_final_stats=1 -artifact_prefix="$artifacts/")
    if [[ -n "$runs" ]]; then
        args+=(-runs="$runs")
    else
        args+=(-max_total_time="$seconds")
    fi
    if [[ "$workers" -gt 1 ]]; then
        args+=(-jobs="$workers" -workers="$workers")
    fi
    if [[ -f "$root/tests/fuzz/$target.dict" ]]; then
        args+=(-dict="$root/tests/fuzz/$target.dict")
    fi
    seeds=()
    seedDir="$(abs "$seedDir")"
    [[ -d "$seedDir" ]] && seeds+=("$seedDir")
    [[ -d "$regressions" ]] && seeds+=("$regressions")
    if [[ -n "$runs" ]]; then
        echo "==> $target: $runs runs a worker, $workers worker(s)"
    else
        echo "==> $target: ${seconds}s, $workers worker(s)"
    fi
    exe="$(abs "$exe")"
    (cd "$work" && "$exe" "${args[@]}" "$corpus" "${seeds[@]}") >"$work/run.log" 2>&1
    rc=$?
    # With -jobs, each worker logs to fuzz-<n>.log in the working directory, and libFuzzer copies each finished
    # worker's log into its own output as well: sum the workers' logs only. The statistics lines read
    # "stat::name: value" (the value is the last ':' field).
    logs=("$work/run.log")
    if [[ "$workers" -gt 1 ]]; then
        logs=()
        for l in "$work"/fuzz-*.log; do [[ -f "$l" ]] && logs+=("$l"); done
    fi
    execs="$(statSum number_of_executed_units "${logs[@]}")"
    units="$(statSum new_units_added "${logs[@]}")"
    found=0
    for crash in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
        [[ -f "$crash" && "$crash" -nt "$started" ]] || continue
        found=$((found + 1))
        mkdir -p "$regressions"
        name="$(basename "$crash")"
        "$exe" -minimize_crash=1 -runs=20000 -exact_artifact_path="$regressions/$name" "$crash" \
            >"$work/minimize-$name.log" 2>&1 || true
        [[ -f "$regressions/$name" ]] || cp "$crash" "$regressions/$name"
        echo "    minimised reproducer: $regressions/$name (replayed by ctest fuzzReplay.$target)"
    done
    if [[ $rc -ne 0 || $found -gt 0 ]]; then
        crashed+=("$target")
        tail -n 40 "$work/run.log"
    fi
    echo "    $target: $execs executions, $units new units, $found crash(es) (log: $work/run.log)"
    rows+=("| $today | $commit | $target | $execs | $found |")
    if [[ $updateCorpus -eq 1 && -d "$seedDir" ]]; then
        merged="$work/merged"
        rm -rf "$merged" && mkdir -p "$merged"
        "$exe" -merge=1 "$merged" "$seedDir" "$corpus" >"$work/merge.log" 2>&1
        files="$(find "$merged" -type f | wc -l)"
        kib="$(du -sk "$merged" | cut -f1)"
        if [[ "$files" -le 64 && "$kib" -le 512 ]]; then
            rm -f "$seedDir"/* && cp "$merged"/* "$seedDir"/
            echo "    corpus $seedDir: $files files, ${kib} KiB"
        else
            echo "    corpus not updated: the merge has $files files, ${kib} KiB (limits 64 files, 512 KiB)"
        fi
    fi
done < "$manifest"

echo
echo "| Date | Commit | Target | Executions | Crashes |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "fuzz-long.sh: ${#crashed[@]} target(s) crashed${crashed:+: ${crashed[*]}}"
[[ ${#crashed[@]} -eq 0 ]]
