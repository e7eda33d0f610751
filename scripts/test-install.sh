#!/usr/bin/env bash
# test-install.sh — checks the installed package the way users consume it: installs a built tree into a
# temporary prefix, builds tests/install/consumer.cpp with find_package(Kiln CONFIG) and runs it, then builds
# it again with plain g++ and `pkg-config --cflags --libs nvinfer` (-lnvinfer) and runs that too. Finally it
# builds tests/install/trtNamesConsumer.cpp with plain `g++ -lnvinfer` and runs it with LD_LIBRARY_PATH (it dlopens
# libnvinfer_plugin.so.10 and libnvonnxparser.so.10 by name; the .so.10 links and the SONAMEs are checked too). It
# builds the plugin library of tests/install/pluginLibrary as a separate project against the installed headers
# only, and runs tests/install/pluginConsumer.cpp: loadLibrary + a network with the plugin on the CPU, then an
# engine with the library embedded, loaded again in a fresh process after the library file is gone. Where nvcc
# exists it also builds the CUDA plugin library of tests/install/cudaPluginLibrary the same way and runs
# kilnCudaPluginConsumer with it (on a machine without a GPU it loads the library and prints "SKIP: no CUDA GPU").
# Usage: scripts/test-install.sh [--build-dir DIR] [--keep]     (default build dir: build)
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$KILN_REPO_ROOT" || exit 1

buildDir="build"
keep=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build-dir) buildDir="$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
        *) echo "test-install.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

if [[ ! -f "$buildDir/CMakeCache.txt" ]]; then
    echo "test-install.sh: $buildDir is not a configured build tree" >&2
    exit 1
fi

work="$(mktemp -d -t kiln-install-XXXXXX)"
if [[ $keep -eq 0 ]]; then
    trap 'rm -rf "$work"' EXIT
else
    echo "test-install.sh: keeping $work"
fi
prefix="$work/prefix"
failures=0
fail() {
    echo "test-install.sh: FAILED: $*" >&2
    failures=$((failures + 1))
}

echo "==> installing $buildDir into $prefix"
cmake --install "$buildDir" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; exit 1; }

libkiln="$(find "$prefix" -name 'libkiln.so' -print -quit)"
if [[ -z "$libkiln" ]]; then
    fail "libkiln.so not installed"
    exit 1
fi
libdir="$(dirname "$libkiln")"
for f in include/NvInferVersion.h include/NvInfer.h include/NvInferPlugin.h include/kiln/KilnPluginCpu.h; do
    [[ -f "$prefix/$f" ]] || fail "$f not installed"
done
# TensorRT's names: lib<name>.so.10 (the SONAME, what programs load) and lib<name>.so (for -l<name>), links to Kiln's
# libraries, whose SONAME is the TensorRT name.
for pair in nvinfer:kiln nvinfer_plugin:kiln_plugin nvonnxparser:kiln_onnxparser; do
    name="${pair%%:*}"
    kilnName="${pair##*:}"
    for link in "lib$name.so.10" "lib$name.so"; do
        [[ -L "$libdir/$link" && -e "$libdir/$link" ]] || fail "$link symlink missing or dangling"
        [[ "$(readlink -f "$libdir/$link")" == "$(readlink -f "$libdir/lib$kilnName.so")" ]] \
            || fail "$link does not lead to lib$kilnName.so"
    done
    libSoname="$(objdump -p "$libdir/lib$kilnName.so" 2>/dev/null | awk '/SONAME/ {print $2}')"
    [[ "$libSoname" == "lib$name.so.10" ]] || fail "lib$kilnName.so has SONAME '$libSoname', not lib$name.so.10"
done
for f in cmake/Kiln/KilnConfig.cmake cmake/Kiln/KilnConfigVersion.cmake cmake/Kiln/KilnTargets.cmake \
         pkgconfig/kiln.pc pkgconfig/nvinfer.pc; do
    [[ -f "$libdir/$f" ]] || fail "$f not installed in $libdir"
done
soname="$(objdump -p "$libkiln" 2>/dev/null | awk '/SONAME/ {print $2}')"
echo "    libkiln SONAME: ${soname:-?}; exported dynamic symbols: $(nm -D --defined-only "$libkiln" 2>/dev/null | wc -l)"

echo "==> find_package(Kiln CONFIG): configure, build and run tests/install"
if cmake -S tests/install -B "$work/consumer-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
        >"$work/consumer-configure.log" 2>&1 \
    && cmake --build "$work/consumer-build" >"$work/consumer-build.log" 2>&1; then
    needed="$(objdump -p "$work/consumer-build/kilnConsumer" 2>/dev/null | awk '/NEEDED/ {print $2}' | tr '\n' ' ')"
    [[ "$needed" == *libnvinfer.so.10* ]] || fail "the Kiln::nvinfer consumer needs '$needed', not libnvinfer.so.10"
    "$work/consumer-build/kilnConsumer" || fail "consumer (CMake package) returned non-zero"
else
    cat "$work/consumer-configure.log" "$work/consumer-build.log" 2>/dev/null | tail -n 40
    fail "consumer build with find_package(Kiln)"
fi

echo "==> pkg-config nvinfer + g++ -lnvinfer"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
if pcFlags="$(pkg-config --cflags --libs nvinfer)"; then
    echo "    pkg-config --cflags --libs nvinfer: $pcFlags"
    # shellcheck disable=SC2086
    if g++ -std=c++14 -Wall -Wextra -o "$work/consumer-pkgconfig" tests/install/consumer.cpp $pcFlags \
            -Wl,-rpath,"$libdir"; then
        needed="$(objdump -p "$work/consumer-pkgconfig" 2>/dev/null | awk '/NEEDED/ {print $2}' | tr '\n' ' ')"
        [[ "$needed" == *libnvinfer.so.10* ]] || fail "the -lnvinfer consumer needs '$needed', not libnvinfer.so.10"
        "$work/consumer-pkgconfig" || fail "consumer (pkg-config) returned non-zero"
    else
        fail "g++ build of the consumer with pkg-config"
    fi
else
    fail "pkg-config nvinfer"
fi

echo "==> plain g++ -lnvinfer: tests/install/trtNamesConsumer.cpp dlopens libnvinfer_plugin.so.10 and libnvonnxparser.so.10"
# No RPATH: the program finds Kiln as TensorRT programs find TensorRT, through LD_LIBRARY_PATH.
if g++ -std=c++14 -Wall -Wextra -o "$work/trtNamesConsumer" tests/install/trtNamesConsumer.cpp -I"$prefix/include" \
        -L"$libdir" -lnvinfer -ldl; then
    LD_LIBRARY_PATH="$libdir" KILN_BACKEND=cpu "$work/trtNamesConsumer" || fail "trtNamesConsumer returned non-zero"
else
    fail "g++ build of tests/install/trtNamesConsumer.cpp with -lnvinfer"
fi

echo "==> plugin library as a separate project (tests/install/pluginLibrary), headers only"
pluginBuild="$work/plugin-build"
if cmake -S tests/install/pluginLibrary -B "$pluginBuild" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
        >"$work/plugin-configure.log" 2>&1 \
    && cmake --build "$pluginBuild" >"$work/plugin-build.log" 2>&1; then
    pluginLib="$pluginBuild/libkilnInterleavePlugin.so"
    needed="$(objdump -p "$pluginLib" 2>/dev/null | awk '/NEEDED/ {print $2}' | tr '\n' ' ')"
    echo "    $pluginLib needs: ${needed:-?}"
    if [[ "$needed" == *libkiln* || "$needed" == *libnvinfer* ]]; then
        fail "the plugin library links Kiln although it was built against the headers only"
    fi
    consumer="$work/consumer-build/kilnPluginConsumer"
    engine="$work/interleave.engine"
    if [[ -x "$consumer" ]]; then
        "$consumer" build "$pluginLib" "$engine" || fail "kilnPluginConsumer build (loadLibrary, run, embed)"
        # The engine must not need the library file any more.
        mv "$pluginLib" "$pluginLib.moved"
        if [[ -f "$engine" ]]; then
            "$consumer" load "$engine" || fail "kilnPluginConsumer load (embedded library, fresh process)"
        fi
    else
        fail "kilnPluginConsumer was not built"
    fi
else
    cat "$work/plugin-configure.log" "$work/plugin-build.log" 2>/dev/null | tail -n 40
    fail "plugin library build with find_package(Kiln) and Kiln::headers"
fi

nvcc="$(command -v nvcc || true)"
[[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ -n "$nvcc" ]]; then
    echo "==> CUDA plugin library as a separate project (tests/install/cudaPluginLibrary), headers only"
    cudaPluginBuild="$work/cuda-plugin-build"
    if cmake -S tests/install/cudaPluginLibrary -B "$cudaPluginBuild" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
            -DCMAKE_CUDA_COMPILER="$nvcc" >"$work/cuda-plugin-configure.log" 2>&1 \
        && cmake --build "$cudaPluginBuild" >"$work/cuda-plugin-build.log" 2>&1; then
        cudaPluginLib="$cudaPluginBuild/libkilnCudaPlugins.so"
        needed="$(objdump -p "$cudaPluginLib" 2>/dev/null | awk '/NEEDED/ {print $2}' | tr '\n' ' ')"
        echo "    $cudaPluginLib needs: ${needed:-?}"
        if [[ "$needed" == *libkiln* || "$needed" == *libnvinfer* ]]; then
            fail "the CUDA plugin library links Kiln although it was built against the headers only"
        fi
        if [[ -x "$work/consumer-build/kilnCudaPluginConsumer" ]]; then
            "$work/consumer-build/kilnCudaPluginConsumer" "$cudaPluginLib" || fail "kilnCudaPluginConsumer"
        else
            fail "kilnCudaPluginConsumer was not built (tests/install found no CUDA toolkit)"
        fi
    else
        cat "$work/cuda-plugin-configure.log" "$work/cuda-plugin-build.log" 2>/dev/null | tail -n 40
        fail "CUDA plugin library build with find_package(Kiln) and Kiln::headers"
    fi
else
    echo "==> no nvcc: the CUDA plugin library (tests/install/cudaPluginLibrary) is not built"
fi

if [[ $failures -eq 0 ]]; then
    echo "test-install.sh: PASSED"
else
    echo "test-install.sh: $failures failure(s)"
fi
[[ $failures -eq 0 ]]
