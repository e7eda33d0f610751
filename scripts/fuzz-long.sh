#!/usr/bin/env bash
# fuzz-long.sh — long fuzzing runs (hours, or a number of executions per target) of every libFuzzer target in
# tests/fuzz/ (byte-level engineReaderFuzz and onnxModelFuzz, structure-aware engineStructureFuzz and
# onnxStructureFuzz), built by scripts/run-fuzz.sh --build-only (clang++, ASan+UBSan, build-fuzz/).
# Usage: scripts/fuzz-long.sh [--time SECONDS | --runs N] [--workers N] [--build-dir DIR] [--update-corpus]
#                             [target...]
#   --time           per-target wall time (libFuzzer -max_total_time); default 3600
#   --runs           per-target executions instead (-runs=N; with --workers, per worker)
#   --workers        parallel libFuzzer jobs per target (-jobs/-workers); default 1
#   --build-dir      default build-fuzz or $KILN_FUZZ_BUILD_DIR
#   --update-corpus  merge what was found into tests/fuzz/corpus/<target>/ (libFuzzer -merge=1 keeps only inputs
#                    that add coverage), refused when the result exceeds 64 files or 512 KiB: the repository corpus
#                    stays small
# Each crash, leak or timeout is minimised (-minimize_crash=1) into tests/fuzz/regressions/<target>/, where the
# ctest fuzzReplay.<target> replays it from then on: a regression test that fails until the bug is fixed. The last
# lines give, per target, the executions, new coverage units and crashes, and a Markdown row with the date and commit
# for docs/building.md. Exits non-zero when any target crashed.
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$KILN_REPO_ROOT" || exit 1

seconds=3600
runs=""
workers=1
buildDir="${KILN_FUZZ_BUILD_DIR:-build-fuzz}"
updateCorpus=0
only=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --time) seconds="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --workers) workers="$2"; shift 2 ;;
        --build-dir) buildDir="$2"; shift 2 ;;
        --update-corpus) updateCorpus=1; shift ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        -*) echo "fuzz-long.sh: unknown option $1" >&2; exit 2 ;;
        *) only+=("$1"); shift ;;
    esac
done

scripts/run-fuzz.sh --build-only --build-dir "$buildDir" || exit 1
manifest="$buildDir/fuzz/targets.tsv"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
root="$(pwd)"
abs() { if [[ "$1" == /* ]]; then echo "$1"; else echo "$root/$1"; fi; }
today="$(date -u +%Y-%m-%d)"

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
    echo "==> $target: ${runs:+$runs runs}${runs:-${seconds}s}, $workers worker(s)"
    exe="$(abs "$exe")"
    (cd "$work" && "$exe" "${args[@]}" "$corpus" "${seeds[@]}") >"$work/run.log" 2>&1
    rc=$?
    # With -jobs, each worker logs to fuzz-<n>.log in the working directory; sum their statistics.
    logs=("$work/run.log")
    for l in "$work"/fuzz-*.log; do [[ -f "$l" ]] && logs+=("$l"); done
    execs="$(cat "${logs[@]}" | awk -F: '/^stat::number_of_executed_units/ {s += $2} END {print s + 0}')"
    units="$(cat "${logs[@]}" | awk -F: '/^stat::new_units_added/ {s += $2} END {print s + 0}')"
    found=0
    for crash in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
        [[ -f "$crash" ]] || continue
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
