#!/usr/bin/env bash
# sanitize-test.sh — builds Kiln and its whole CPU test suite with a sanitizer and runs ctest there:
#   address: AddressSanitizer + UndefinedBehaviorSanitizer (leaks, out-of-bounds, use-after-free, undefined behaviour;
#            UBSan stops at the first finding), build dir build-asan
#   thread:  ThreadSanitizer (data races, e.g. contexts on several threads), build dir build-tsan
# The CUDA backend and the Python module are left out (their runtimes are not instrumented); ctest skips the
# "python" and "gpu" labels. Any report fails its test, and the script exits non-zero. The last results are in
# docs/testing.md.
# Usage: scripts/sanitize-test.sh address|thread [--build-dir DIR] [--jobs N] [--opt LEVEL] [-- extra ctest arguments]
#   --opt  the optimisation level, 2 (default) or 0, 1, g: -O0 compiles about twice as fast on a busy machine
#   e.g. scripts/sanitize-test.sh thread -- -L threads   (only the tests that run Kiln on several threads)
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$KILN_REPO_ROOT" || exit 1

kind="${1:-}"
case "$kind" in
    address) buildDir="build-asan" ;;
    thread) buildDir="build-tsan" ;;
    *) sed -n '2,11p' "$0"; exit 2 ;;
esac
shift
jobs="$(kiln_jobs)"
opt=2
ctestArgs=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build-dir) buildDir="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --opt) opt="$2"; shift 2 ;;
        --) shift; ctestArgs=("$@"); break ;;
        *) echo "sanitize-test.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

# -g1 (line tables): all a sanitizer report needs for file:line, and far cheaper to compile than full -g.
kiln_configure "$buildDir" -DKILN_SANITIZE="$kind" -DKILN_WITH_CUDA=OFF -DKILN_BUILD_PYTHON=OFF \
    -DKILN_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O$opt -g1 -DNDEBUG" || exit 1
cmake --build "$buildDir" -j "$jobs" || exit 1

# alloc_dealloc_mismatch=0: libstdc++ 12's std::stable_sort takes its temporary buffer with operator new(nothrow)
# in an inline header and gives it back through a path ASan sees as free() (a false positive in third-party code,
# about 300 tests with stable_sort; ASan has no per-stack suppression for this check, so it is off for the run).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:alloc_dealloc_mismatch=0"
# Third-party false positives, one comment per entry: scripts/sanitizers/*.supp.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$KILN_REPO_ROOT/scripts/sanitizers/ubsan.supp"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$KILN_REPO_ROOT/scripts/sanitizers/tsan.supp"
if [[ "$kind" == "thread" ]]; then
    # oneDNN and the libgomp it runs on are not instrumented: TSan cannot see the OpenMP barriers that order the
    # work of oneDNN's worker threads against Kiln's code, and would report races that are not there. The thread
    # limit keeps every oneDNN parallel region on the thread that calls it (Kiln's omp_set_num_threads stays within
    # it; OMP_NUM_THREADS=1 does the same for the tests that create oneDNN kernels directly), while Kiln's own
    # thread pool keeps its threads: 4 unless KILN_CPU_THREADS says otherwise, more than this machine's cores, so
    # that tasks of one call and two contexts on two threads interleave.
    export OMP_THREAD_LIMIT=1
    export OMP_NUM_THREADS=1
    export KILN_CPU_THREADS="${KILN_CPU_THREADS:-4}"
fi
# Failing tests still run to the end; the summary names them.
KILN_BACKEND=cpu ctest --test-dir "$buildDir" -j "$jobs" -LE "python|gpu" --output-on-failure "${ctestArgs[@]}"
