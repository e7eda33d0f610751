#!/usr/bin/env bash
# test.sh — runs every Kiln test on a fresh Debian 12 machine: installs missing packages, builds build/
# (Ninja, RelWithDebInfo, asserts on, warnings as errors), runs ctest (unit tests, header checks, the
# include-direction check, fuzz replays, the ONNX conformance suite, whose summary becomes docs/onnx-conformance.md),
# checks the installed package (scripts/test-install.sh), pip-installs the Python package into a venv and tests it
# (scripts/test-python-package.sh) and fuzzes each target briefly (scripts/run-fuzz.sh). Prints a summary and
# exits non-zero if anything failed.
# Usage: ./test.sh [--jobs N] [--fuzz-time SECONDS] [--no-fuzz] [--no-install-test] [--no-python-package]
#                  [--build-dir DIR]
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/scripts/common.sh"
cd "$KILN_REPO_ROOT" || exit 1

buildDir="${KILN_BUILD_DIR:-build}"
jobs="$(kiln_jobs)"
fuzzTime=30
doFuzz=1
doInstall=1
doPythonPackage=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --jobs) jobs="$2"; shift 2 ;;
        --fuzz-time) fuzzTime="$2"; shift 2 ;;
        --no-fuzz) doFuzz=0; shift ;;
        --no-install-test) doInstall=0; shift ;;
        --no-python-package) doPythonPackage=0; shift ;;
        --build-dir) buildDir="$2"; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "test.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

names=()
results=()
times=()
record() { # record <name> <result> <seconds>
    names+=("$1")
    results+=("$2")
    times+=("$3")
}
# run_step <name> <command...>: runs a step, records PASS/FAIL and its duration.
run_step() {
    local name="$1"
    shift
    echo
    echo "=================== $name ==================="
    local start=$SECONDS
    if "$@"; then
        record "$name" PASS $((SECONDS - start))
        return 0
    fi
    record "$name" FAIL $((SECONDS - start))
    return 1
}
summary() {
    echo
    echo "=================== summary ==================="
    local failed=0
    for i in "${!names[@]}"; do
        printf '  %-28s %-5s %5ss\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
        [[ "${results[$i]}" == FAIL ]] && failed=1
    done
    if [[ $failed -eq 0 ]]; then
        echo "test.sh: ALL PASSED"
    else
        echo "test.sh: FAILURES (see above)"
    fi
    return $failed
}

depsArgs=()
[[ $doFuzz -eq 1 ]] && depsArgs+=(--fuzz)
if ! run_step "dependencies" scripts/install-deps.sh "${depsArgs[@]}"; then
    summary
    exit 1
fi

# CI builds with warnings as errors (-Werror for C++ and CUDA host code, see cmake/KilnCompilerSettings.cmake).
if ! run_step "configure ($buildDir)" kiln_configure "$buildDir" -DKILN_WARNINGS_AS_ERRORS=ON; then
    summary
    exit 1
fi

if run_step "build (-j$jobs)" cmake --build "$buildDir" -j "$jobs"; then
    # The ctest suite exercises the CPU backend with host buffers: pin the default backend to the CPU even on a
    # machine with a GPU (the GPU suite is scripts/gpu-test.sh, which leaves the default alone).
    export KILN_BACKEND="${KILN_BACKEND:-cpu}"
    run_step "ctest" ctest --test-dir "$buildDir" --output-on-failure -j "$jobs" --no-tests=error
    # The ctest "onnxConformance" ran the ONNX backend node tests; publish its summary page.
    if [[ -f "$buildDir/onnx-conformance.md" ]]; then
        cp "$buildDir/onnx-conformance.md" docs/onnx-conformance.md
        passed="$(awk -F'|' '/^\| passed \|/ {gsub(/ /, "", $3); gsub(/ /, "", $4); print $3 " (" $4 ")"; exit}' docs/onnx-conformance.md)"
        echo "test.sh: ONNX node tests passed: $passed; details in docs/onnx-conformance.md"
    fi
    if [[ $doInstall -eq 1 ]]; then
        run_step "install + consumers" scripts/test-install.sh --build-dir "$buildDir"
    fi
    if [[ $doPythonPackage -eq 1 ]]; then
        run_step "python package" scripts/test-python-package.sh --build-dir "$buildDir" --jobs "$jobs"
    fi
else
    record "ctest" SKIP 0
    [[ $doInstall -eq 1 ]] && record "install + consumers" SKIP 0
    [[ $doPythonPackage -eq 1 ]] && record "python package" SKIP 0
fi

if [[ $doFuzz -eq 1 ]]; then
    run_step "fuzz (${fuzzTime}s/target)" scripts/run-fuzz.sh --time "$fuzzTime" --jobs "$jobs"
fi

summary
