# common.sh — shell helpers sourced by ./run.sh, ./test.sh and scripts/*.sh: the one place that says how the
# default build tree (build/) is configured, so that run.sh and test.sh share it without rebuilding.
# shellcheck shell=bash

# KILN_REPO_ROOT: absolute path of the repository.
KILN_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# kiln_jobs: parallel build/test jobs (KILN_JOBS overrides; default: all cores).
kiln_jobs() {
    if [[ -n "${KILN_JOBS:-}" ]]; then
        echo "$KILN_JOBS"
    else
        nproc 2>/dev/null || echo 2
    fi
}

# kiln_configure <buildDir> [extra cmake args...]: configures a Ninja RelWithDebInfo tree (asserts on).
kiln_configure() {
    local buildDir="$1"
    shift
    if [[ -f "$buildDir/CMakeCache.txt" ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$buildDir/CMakeCache.txt"; then
        echo "$buildDir was configured with another generator; remove it or set KILN_BUILD_DIR" >&2
        return 1
    fi
    cmake -S "$KILN_REPO_ROOT" -B "$buildDir" -G Ninja \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DKILN_ENABLE_ASSERTS=ON \
        "$@"
}
