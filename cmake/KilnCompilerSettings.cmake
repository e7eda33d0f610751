# KilnCompilerSettings.cmake — language standard, warnings, PIC, assert policy and the sanitizer flags of the
# fuzzing configuration. Visibility is set per library in KilnLibrary.cmake (only Kiln's own libraries hide
# symbols; test plugins and samples keep the default visibility).

# Internal code is C++20. Public headers are checked separately for C++14/C++17 (tests/api/headerCompat).
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)

# Objects go into a shared library and a static one; both need PIC.
set(CMAKE_POSITION_INDEPENDENT_CODE ON)

set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(WARNING "Kiln is developed with g++ and clang++; ${CMAKE_CXX_COMPILER_ID} is untested.")
endif()

# Warnings for every target defined by this project: libraries, plugins, tests, benchmarks, samples, tools and the
# Python module, C++ and the host side of CUDA (nvcc forwards these to the host compiler). Third-party code comes in
# as imported targets. Kiln's own sources implement and exercise TensorRT's deprecated APIs on purpose (IPluginV2,
# old overloads), so deprecation warnings are off for project code; the public-header checks (tests/api/headerCompat)
# keep them on.
set(KILN_CXX_WARNING_OPTIONS -Wall -Wextra -Wno-deprecated-declarations)
add_compile_options(${KILN_CXX_WARNING_OPTIONS})

# -Werror=switch, always: a `switch` over an enum without `default` that misses an enumerator does not compile. Every
# per-kind table is such a switch over nvinfer1::LayerType (core/layerKinds.h), so a layer kind added to the list and
# forgotten in a table is a compile error (tests/core/layerKindSwitchCheck.cpp proves it in ctest). nvcc has its own
# -Werror, so CUDA sources pass the flag to the host compiler explicitly.
set(KILN_CXX_ERROR_OPTIONS -Werror=switch)
add_compile_options(
    "$<$<COMPILE_LANGUAGE:CXX>:${KILN_CXX_ERROR_OPTIONS}>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Werror=switch>")

# KILN_WARNINGS_AS_ERRORS (./test.sh, hence CI, turns it on): every warning of every target above is an error, in
# C++, in CUDA host code (-Xcompiler=-Werror) and in nvcc's own diagnostics (--Werror=all-warnings).
if(KILN_WARNINGS_AS_ERRORS)
    add_compile_options(
        "$<$<COMPILE_LANGUAGE:CXX>:-Werror>"
        "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Werror;--Werror=all-warnings>")
endif()

# RelWithDebInfo keeps assertions by default: tests should trip on broken invariants. -UNDEBUG comes after
# the -DNDEBUG of CMAKE_CXX_FLAGS_RELWITHDEBINFO on the command line, so it wins.
if(KILN_ENABLE_ASSERTS)
    add_compile_options($<$<CONFIG:RelWithDebInfo>:-UNDEBUG>)
endif()

# Fuzzing configuration: every object (kiln sources included) gets coverage instrumentation plus ASan and
# UBSan; fuzz executables add -fsanitize=fuzzer at link time (tests/fuzz/CMakeLists.txt).
if(KILN_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR "KILN_FUZZ=ON needs clang++ (e.g. CXX=clang++ cmake ...); found ${CMAKE_CXX_COMPILER_ID}.")
    endif()
    set(KILN_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
    add_compile_options(-fsanitize=fuzzer-no-link ${KILN_SANITIZE_FLAGS})
    add_link_options(-fsanitize=address,undefined)
endif()

# Sanitizer builds of the whole test suite (scripts/sanitize-test.sh): KILN_SANITIZE=address (AddressSanitizer with
# UndefinedBehaviorSanitizer, which stops at the first finding) or thread (ThreadSanitizer). Not with KILN_FUZZ.
set(KILN_SANITIZE "" CACHE STRING "Sanitizer build of everything: empty, address (ASan + UBSan) or thread (TSan)")
set_property(CACHE KILN_SANITIZE PROPERTY STRINGS "" address thread)
if(KILN_SANITIZE STREQUAL "address")
    add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address,undefined)
elseif(KILN_SANITIZE STREQUAL "thread")
    add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
    add_link_options(-fsanitize=thread)
elseif(NOT KILN_SANITIZE STREQUAL "")
    message(FATAL_ERROR "KILN_SANITIZE must be empty, address or thread (got '${KILN_SANITIZE}')")
endif()
if(KILN_SANITIZE AND KILN_FUZZ)
    message(FATAL_ERROR "KILN_SANITIZE and KILN_FUZZ cannot be combined (the fuzzing build has its own sanitizers)")
endif()

# Shared libraries must not leave symbols unresolved (catches a forgotten source or a hidden symbol used
# across libraries at link time instead of at dlopen time). Sanitizer runtimes are linked only into
# executables, so the check is off in the fuzzing and sanitizer configurations.
if(NOT KILN_FUZZ AND NOT KILN_SANITIZE)
    set(KILN_SHARED_LINK_OPTIONS -Wl,--no-undefined)
else()
    set(KILN_SHARED_LINK_OPTIONS "")
endif()
