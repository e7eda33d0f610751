#!/usr/bin/env bash
# fuzz-bundle.sh — packs the libFuzzer targets for long runs on another x86-64 Linux machine that has no compiler,
# no Kiln dependencies and no network (any glibc at least as new as the build machine's). It builds the targets
# (scripts/run-fuzz.sh --build-only: clang++, ASan+UBSan, build-fuzz/), then writes to DIR:
#   kiln-fuzz.tar.gz  the stripped targets, every shared library they load that is not part of glibc (oneDNN,
#                     protobuf, libstdc++, libgomp, ...), scripts/fuzz-long.sh, the seed corpora, the minimised
#                     regressions and a manifest with paths relative to the bundle
#   run.sh            the runner (scripts/fuzz-bundle-run.sh): unpacks, sets LD_LIBRARY_PATH to the bundle's
#                     libraries only, runs fuzz-long.sh --no-build with -jobs/-workers per target, prints the
#                     per-target rows and copies crash artefacts to its output folder
#   README.txt        the command to run and what comes back
# The debug information of each target stays on this machine, in DIR.debug/<target>.debug (objcopy
# --only-keep-debug, matched by build ID), to symbolize the module+offset frames of a crash found remotely:
#   llvm-symbolizer --obj=DIR.debug/<target>.debug 0xOFFSET
# DIR must stay under 60 MiB (checked). The bundle is a build output: keep it out of git (e.g. build-fuzz-bundle/).
# Usage: scripts/fuzz-bundle.sh DIR [--build-dir DIR] [--jobs N] [--no-build]
#   --build-dir  the fuzzing build (default build-fuzz or $KILN_FUZZ_BUILD_DIR)
#   --jobs       build jobs (default: all cores)
#   --no-build   pack what the build directory holds (its targets.tsv must list built targets)
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$KILN_REPO_ROOT" || exit 1

usage() { sed -n '2,21p' "$0"; }
out=""
buildDir="${KILN_FUZZ_BUILD_DIR:-build-fuzz}"
jobs="$(kiln_jobs)"
build=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build-dir) buildDir="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "fuzz-bundle.sh: unknown option $1" >&2; exit 2 ;;
        *) [[ -z "$out" ]] || { echo "fuzz-bundle.sh: one output folder only" >&2; exit 2; }; out="$1"; shift ;;
    esac
done
if [[ -z "$out" ]]; then
    usage >&2
    exit 2
fi
for tool in objcopy strip ldd readelf tar gzip sha256sum; do
    command -v "$tool" >/dev/null || { echo "fuzz-bundle.sh: $tool not found (binutils, libc-bin, tar, gzip, coreutils)" >&2; exit 1; }
done

if [[ $build -eq 1 ]]; then
    scripts/run-fuzz.sh --build-only --build-dir "$buildDir" --jobs "$jobs" || exit 1
fi
manifest="$buildDir/fuzz/targets.tsv"
if [[ ! -s "$manifest" ]]; then
    echo "fuzz-bundle.sh: $manifest is missing or empty (build first, or drop --no-build)" >&2
    exit 1
fi

mkdir -p "$out" || exit 1
out="$(cd "$out" && pwd)"
debugDir="$out.debug"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
bundle="$stage/kiln-fuzz"
mkdir -p "$bundle/fuzz" "$bundle/lib" "$bundle/scripts" "$bundle/tests/fuzz/corpus" "$bundle/tests/fuzz/regressions"
rm -rf "$debugDir" && mkdir -p "$debugDir" || exit 1
cp scripts/fuzz-long.sh scripts/common.sh "$bundle/scripts/" || exit 1

# Libraries of glibc itself come from the machine that runs the bundle (a newer glibc runs older binaries).
isGlibc() {
    case "$1" in
        linux-vdso.so*|ld-linux*|libc.so*|libm.so*|libmvec.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|\
        libutil.so*|libanl.so*|libnsl.so*|libBrokenLocale.so*) return 0 ;;
        *) return 1 ;;
    esac
}

# The commit label: this tree's HEAD ("-dirty" with uncommitted changes). A build configured from another source
# tree gets that tree's HEAD and "-unverified": the build may predate it.
sourceDir="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$buildDir/CMakeCache.txt" 2>/dev/null)"
sourceDir="${sourceDir:-$KILN_REPO_ROOT}"
commit="$(git -C "$sourceDir" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ "$(cd "$sourceDir" 2>/dev/null && pwd -P)" != "$(pwd -P)" ]]; then
    echo "fuzz-bundle.sh: $buildDir was built from $sourceDir, not this tree; labelled $commit-unverified" >&2
    commit="$commit-unverified"
elif [[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
    commit="$commit-dirty"
fi
bundleManifest=""
buildIds=""
while IFS=$'\t' read -r target exe seedDir; do
    [[ -z "$target" ]] && continue
    if [[ ! -x "$exe" ]]; then
        echo "fuzz-bundle.sh: $exe (target $target) is not built" >&2
        exit 1
    fi
    echo "==> $target"
    objcopy --only-keep-debug "$exe" "$debugDir/$target.debug" || exit 1
    strip --strip-all -o "$bundle/fuzz/$target" "$exe" || exit 1
    objcopy --add-gnu-debuglink="$debugDir/$target.debug" "$bundle/fuzz/$target" || exit 1
    id="$(readelf -n "$exe" | awk '/Build ID/ {print $3}')"
    buildIds+="$target ${id:-none}"$'\n'
    # ldd lists every library the process loads (dependencies of dependencies too).
    lddOut="$(ldd "$exe")" || { echo "fuzz-bundle.sh: ldd $exe failed" >&2; exit 1; }
    if grep -q "not found" <<<"$lddOut"; then
        echo "fuzz-bundle.sh: $exe has unresolved libraries:" >&2
        grep "not found" <<<"$lddOut" >&2
        exit 1
    fi
    while read -r name arrow path _; do
        [[ "$arrow" == "=>" && -n "$path" && -f "$path" ]] || continue
        isGlibc "$name" && continue
        [[ -f "$bundle/lib/$name" ]] || cp -L "$path" "$bundle/lib/$name" || exit 1
    done <<<"$lddOut"
    if [[ -d "$seedDir" ]]; then
        cp -r "$seedDir" "$bundle/tests/fuzz/corpus/$target" || exit 1
    fi
    [[ -d "tests/fuzz/regressions/$target" ]] && cp -r "tests/fuzz/regressions/$target" "$bundle/tests/fuzz/regressions/"
    [[ -f "tests/fuzz/$target.dict" ]] && cp "tests/fuzz/$target.dict" "$bundle/tests/fuzz/"
    bundleManifest+="$target"$'\t'"fuzz/$target"$'\t'"tests/fuzz/corpus/$target"$'\n'
done <"$manifest"
printf '%s' "$bundleManifest" >"$bundle/fuzz/targets.tsv"
printf '%s' "$buildIds" >"$bundle/BUILD-IDS"
printf '%s' "$buildIds" >"$debugDir/BUILD-IDS"
echo "$commit" >"$bundle/COMMIT"
{
    echo "built $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -srm)"
    echo "glibc $(ldd --version | head -n1 | awk '{print $NF}') or newer needed"
    echo "compiler $(clang++ --version 2>/dev/null | head -n1)"
} >"$bundle/BUILD-INFO"

rm -f "$out/kiln-fuzz.tar.gz" "$out/run.sh" "$out/README.txt"
echo "==> packing (gzip: every Linux has it; xz is not always installed)"
tar -C "$stage" -cf - kiln-fuzz | gzip -9 >"$out/kiln-fuzz.tar.gz" || exit 1
cp scripts/fuzz-bundle-run.sh "$out/run.sh" && chmod +x "$out/run.sh" || exit 1
(cd "$out" && sha256sum kiln-fuzz.tar.gz >kiln-fuzz.tar.gz.sha256) || exit 1
cat >"$out/README.txt" <<EOF
Kiln fuzz bundle, commit $commit ($(date -u +%Y-%m-%d)); targets: $(cut -f1 "$bundle/fuzz/targets.tsv" | tr '\n' ' ')

Run (bash, tar, gzip and coreutils are all it needs; no compiler, no packages, no network):
    bash run.sh OUTDIR --runs 10000000 --workers \$(nproc)
--runs is the executions per target, all workers together; the targets run one after the other. OUTDIR/summary.md
gets the per-target rows (date, commit, executions, crashes) for docs/building.md; OUTDIR/crashes/<target>/ any
crash, leak or timeout with its minimised reproducer and the worker logs that report it. Bring OUTDIR/summary.md,
OUTDIR/fuzz-long.log and OUTDIR/crashes/ back. bash run.sh --help lists the options.
EOF

# Self-check on the packed archive: with LD_LIBRARY_PATH at the bundle's lib/ only, every library outside glibc
# resolves inside the bundle, and every target starts.
check="$stage/check"
mkdir -p "$check" && gzip -dc "$out/kiln-fuzz.tar.gz" | tar -C "$check" -xf - || exit 1
while IFS=$'\t' read -r target exe _; do
    lddOut="$(LD_LIBRARY_PATH="$check/kiln-fuzz/lib" ldd "$check/kiln-fuzz/$exe")" || exit 1
    while read -r name arrow path _; do
        [[ "$arrow" == "=>" ]] || continue
        isGlibc "$name" && continue
        if [[ "$path" != "$check/kiln-fuzz/lib/"* ]]; then
            echo "fuzz-bundle.sh: $target loads $name from $path, outside the bundle" >&2
            exit 1
        fi
    done <<<"$lddOut"
    if ! env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$check/kiln-fuzz/lib" "$check/kiln-fuzz/$exe" -help=1 \
        >"$stage/help.log" 2>&1; then
        echo "fuzz-bundle.sh: the packed $target does not start:" >&2
        tail -n 5 "$stage/help.log" >&2
        exit 1
    fi
done <"$check/kiln-fuzz/fuzz/targets.tsv"

size="$(du -sb "$out" | cut -f1)"
limit=$((60 * 1024 * 1024))
echo "fuzz-bundle.sh: $out is $((size / 1024 / 1024)) MiB ($(find "$bundle/lib" -type f | wc -l) libraries); debug information in $debugDir"
if [[ "$size" -gt "$limit" ]]; then
    echo "fuzz-bundle.sh: the bundle exceeds 60 MiB" >&2
    exit 1
fi
