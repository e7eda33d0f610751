#!/usr/bin/env bash
# fuzz-bundle-run.sh — the runner of the fuzz bundle that scripts/fuzz-bundle.sh writes (it is the bundle's run.sh):
# unpacks kiln-fuzz.tar.gz into OUTDIR/work/, points LD_LIBRARY_PATH at the bundle's libraries only, and runs the
# bundle's scripts/fuzz-long.sh --no-build on every target (or those named), one target after the other, each with
# libFuzzer -jobs=N -workers=N. Then it writes OUTDIR/summary.md (the per-target rows: date, commit, target,
# executions, crashes; and the machine) and copies every crash, leak, timeout or out-of-memory artefact, the logs
# that report it and its minimised reproducer (minimised/, for tests/fuzz/regressions/<target>/) to
# OUTDIR/crashes/<target>/. Needs bash, tar, gzip, coreutils.
# Usage: bash run.sh OUTDIR [--runs N | --time SECONDS] [--workers N] [target...]
#   --runs     executions per target, all workers together (default 10000000); each worker runs N / workers
#   --time     per-target wall time instead of --runs
#   --workers  libFuzzer jobs and workers per target (default: the CPUs this process may use)
# Running again into the same OUTDIR keeps the corpus grown so far (the bundle is unpacked again only when it
# changed). Exits non-zero when a target crashed or could not run.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { sed -n '2,13p' "${BASH_SOURCE[0]}"; }
out=""
runs=10000000
seconds=""
workers="$(nproc 2>/dev/null || echo 1)"
targets=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="$2"; seconds=""; shift 2 ;;
        --time) seconds="$2"; runs=""; shift 2 ;;
        --workers) workers="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) if [[ -z "$out" ]]; then out="$1"; else targets+=("$1"); fi; shift ;;
    esac
done
if [[ -z "$out" ]]; then
    usage >&2
    exit 2
fi
isCount() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }
if ! isCount "$workers" || { [[ -n "$runs" ]] && ! isCount "$runs"; } || { [[ -n "$seconds" ]] && ! isCount "$seconds"; }; then
    echo "run.sh: --runs, --time and --workers take positive integers" >&2
    exit 2
fi
archive="$here/kiln-fuzz.tar.gz"
if [[ ! -f "$archive" ]]; then
    echo "run.sh: $archive not found (run.sh must stay next to the archive)" >&2
    exit 1
fi
if [[ -f "$archive.sha256" ]] && ! (cd "$here" && sha256sum -c --quiet kiln-fuzz.tar.gz.sha256); then
    echo "run.sh: kiln-fuzz.tar.gz does not match kiln-fuzz.tar.gz.sha256 (copied incompletely?)" >&2
    exit 1
fi

mkdir -p "$out" || exit 1
out="$(cd "$out" && pwd)"
work="$out/work"
root="$work/kiln-fuzz"
sum="$(sha256sum "$archive" | cut -d' ' -f1)"
if [[ ! -f "$work/.bundle-sha256" || "$(cat "$work/.bundle-sha256")" != "$sum" ]]; then
    echo "==> unpacking the bundle into $work"
    rm -rf "$work" && mkdir -p "$work" || exit 1
    gzip -dc "$archive" | tar -C "$work" -xf - || { echo "run.sh: unpacking failed" >&2; exit 1; }
    echo "$sum" >"$work/.bundle-sha256"
fi

export LD_LIBRARY_PATH="$root/lib"
KILN_FUZZ_COMMIT="$(cat "$root/COMMIT")"
export KILN_FUZZ_COMMIT
# No llvm-symbolizer here: stacks come as module+offset; the README of scripts/fuzz-bundle.sh says how to symbolize
# them on the build machine.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=0:allocator_may_return_null=1}"

# The targets' AddressSanitizer (clang 14) needs the kernel's default mmap randomisation (28 bits): with more
# (vm.mmap_rnd_bits=32, as on Ubuntu 24.04's kernels) its shadow memory can collide with the program and it fails at
# start. Then the runs go without address randomisation (setarch -R, inherited by every worker) where the system
# allows it; otherwise `sudo sysctl vm.mmap_rnd_bits=28` before running.
launch=()
rndBits="$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)"
if [[ "$rndBits" -gt 28 ]]; then
    if setarch "$(uname -m)" -R true 2>/dev/null; then
        launch=(setarch "$(uname -m)" -R)
        echo "==> vm.mmap_rnd_bits is $rndBits: running without address randomisation (setarch -R)"
    else
        echo "run.sh: vm.mmap_rnd_bits is $rndBits and setarch -R is not permitted; if the targets fail to start," \
            "run 'sudo sysctl vm.mmap_rnd_bits=28' first" >&2
    fi
fi

# Every target must start here before hours are spent: a missing library or a too-old glibc shows now.
while IFS=$'\t' read -r target exe _; do
    [[ -z "$target" ]] && continue
    if ! timeout 60 "${launch[@]}" "$root/$exe" -help=1 >"$work/preflight-$target.log" 2>&1; then
        echo "run.sh: $target does not start on this machine:" >&2
        tail -n 5 "$work/preflight-$target.log" >&2
        exit 1
    fi
done <"$root/fuzz/targets.tsv"

args=(--no-build --build-dir "$root" --workers "$workers")
if [[ -n "$runs" ]]; then
    perWorker=$(((runs + workers - 1) / workers))
    args+=(--runs "$perWorker")
    what="$runs executions per target ($perWorker per worker)"
else
    args+=(--time "$seconds")
    what="${seconds}s per target"
fi
started="$work/.run-started"
touch "$started"
echo "==> commit $KILN_FUZZ_COMMIT, $what, $workers worker(s) per target, on $(nproc) CPU(s)"
"${launch[@]}" bash "$root/scripts/fuzz-long.sh" "${args[@]}" "${targets[@]}" 2>&1 | tee "$out/fuzz-long.log"
rc=${PIPESTATUS[0]}

# Crash artefacts, the reproducers fuzz-long.sh minimised, and the logs of the workers that found them.
found=0
for dir in "$root"/fuzz-long/*/; do
    target="$(basename "$dir")"
    for f in "$dir"artifacts/*; do
        [[ -f "$f" && "$f" -nt "$started" ]] || continue
        mkdir -p "$out/crashes/$target"
        cp "$f" "$out/crashes/$target/" && found=$((found + 1))
    done
    for f in "$root/tests/fuzz/regressions/$target"/*; do
        [[ -f "$f" && "$f" -nt "$started" ]] || continue
        mkdir -p "$out/crashes/$target/minimised"
        cp "$f" "$out/crashes/$target/minimised/"
    done
    if [[ -d "$out/crashes/$target" ]]; then
        for log in "$dir"run.log "$dir"fuzz-*.log "$dir"minimize-*.log; do
            [[ -f "$log" ]] || continue
            if grep -qE "ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|SUMMARY:" "$log"; then
                cp "$log" "$out/crashes/$target/"
            fi
        done
    fi
done

{
    echo "# Kiln fuzz bundle run"
    echo
    echo "Commit $KILN_FUZZ_COMMIT; $what; $workers worker(s) per target; $(nproc) CPU(s), $(uname -srm)," \
        "$(ldd --version 2>/dev/null | head -n1)."
    echo "Finished $(date -u '+%Y-%m-%d %H:%M UTC'); fuzz-long.sh exit status $rc; $found crash file(s) in crashes/."
    echo
    sed -n '/^| Date | Commit | Target/,$p' "$out/fuzz-long.log"
} >"$out/summary.md"
if [[ $found -gt 0 ]]; then
    echo "==> summary: $out/summary.md; crash files: $out/crashes/"
else
    echo "==> summary: $out/summary.md"
fi
[[ $rc -eq 0 && $found -eq 0 ]]
