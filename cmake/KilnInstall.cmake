# KilnInstall.cmake — install rules: public headers, the three shared libraries, TensorRT-named symlinks,
# kilnexec, the CMake package (find_package(Kiln CONFIG)) and pkg-config files. The libraries are lib<name>.so with
# TensorRT's SONAMEs (libnvinfer.so.10 ...), reached through the TensorRT-named links installed next to them.
# Included last by the top-level CMakeLists.txt.

include(CMakePackageConfigHelpers)

set(KILN_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Kiln" CACHE STRING
    "Where KilnConfig.cmake is installed, relative to the prefix")
set(KILN_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig" CACHE STRING
    "Where the .pc files are installed, relative to the prefix")

# Headers: every public header (NvInfer*.h, NvOnnxParser.h, impl/, kiln/ ...) keeps its place below include/.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
    COMPONENT Kiln_Development
    FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp" PATTERN "*.inl")

# Kiln::headers: the public headers alone, for plugin libraries that are built against Kiln's headers but do not
# link libkiln (everything they call in Kiln is reached through the interfaces Kiln hands them).
add_library(kiln_headers INTERFACE)
target_include_directories(kiln_headers INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(kiln_headers PROPERTIES EXPORT_NAME headers)
add_library(Kiln::headers ALIAS kiln_headers)

install(TARGETS kiln_headers EXPORT KilnTargets)

install(TARGETS kiln kiln_plugin kiln_onnxparser
    EXPORT KilnTargets
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        COMPONENT Kiln_Runtime
        NAMELINK_COMPONENT Kiln_Development
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Kiln_Development
    RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT Kiln_Runtime)

# TensorRT's names (created in the build tree by kiln_add_trt_name_links): libnvinfer.so.10 -> libkiln.so etc., the
# SONAMEs that programs load, and libnvinfer.so -> libnvinfer.so.10 etc. for linking with -lnvinfer.
install(FILES ${KILN_TRT_SONAME_LINKS}
    DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    COMPONENT Kiln_Runtime)
install(FILES ${KILN_TRT_NAME_LINKS}
    DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    COMPONENT Kiln_Development)

# The CUDA backend module, loaded by libkiln at run time from its own directory.
if(TARGET kiln_cuda_module)
    install(TARGETS kiln_cuda_module LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Kiln_Runtime)
endif()

# Tools (tools/kilnexec arrives with a later issue; its CMakeLists.txt defines the target, we install it).
if(TARGET kilnexec)
    install(TARGETS kilnexec RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT Kiln_Runtime)
endif()

# CMake package.
install(EXPORT KilnTargets
    FILE KilnTargets.cmake
    NAMESPACE Kiln::
    DESTINATION "${KILN_INSTALL_CMAKEDIR}"
    COMPONENT Kiln_Development)

configure_package_config_file(
    "${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/KilnConfig.cmake"
    INSTALL_DESTINATION "${KILN_INSTALL_CMAKEDIR}")
# 0.x releases make no compatibility promise across minor versions.
write_basic_package_version_file(
    "${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake"
    VERSION ${PROJECT_VERSION}
    COMPATIBILITY SameMinorVersion)
install(FILES
    "${PROJECT_BINARY_DIR}/KilnConfig.cmake"
    "${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake"
    DESTINATION "${KILN_INSTALL_CMAKEDIR}"
    COMPONENT Kiln_Development)

# pkg-config: kiln*.pc name Kiln's libraries, nv*.pc the TensorRT spellings (-lnvinfer via the symlinks).
# The prefix is computed from the .pc file's own location, so an installed tree can be moved.
file(RELATIVE_PATH KILN_PC_PREFIX_FROM_PCDIR
    "${CMAKE_INSTALL_PREFIX}/${KILN_INSTALL_PKGCONFIGDIR}" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" KILN_PC_PREFIX_FROM_PCDIR "${KILN_PC_PREFIX_FROM_PCDIR}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(KILN_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
    set(KILN_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    set(KILN_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
    set(KILN_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()

set(KILN_PC_FILES "")
foreach(entry
        "kiln|kiln|Kiln core library (TensorRT-compatible builder and runtime)|"
        "kiln_plugin|kiln_plugin|Kiln standard plugin library (initLibNvInferPlugins)|kiln"
        "kiln_onnxparser|kiln_onnxparser|Kiln ONNX parser (nvonnxparser API)|kiln"
        "nvinfer|nvinfer|TensorRT-compatible name for the Kiln core library|"
        "nvinfer_plugin|nvinfer_plugin|TensorRT-compatible name for the Kiln plugin library|nvinfer"
        "nvonnxparser|nvonnxparser|TensorRT-compatible name for the Kiln ONNX parser|nvinfer")
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 KILN_PC_NAME)
    list(GET fields 1 KILN_PC_LIB)
    list(GET fields 2 KILN_PC_DESCRIPTION)
    list(GET fields 3 KILN_PC_REQUIRES)
    configure_file("${PROJECT_SOURCE_DIR}/cmake/kiln.pc.in" "${PROJECT_BINARY_DIR}/pkgconfig/${KILN_PC_NAME}.pc" @ONLY)
    list(APPEND KILN_PC_FILES "${PROJECT_BINARY_DIR}/pkgconfig/${KILN_PC_NAME}.pc")
endforeach()
install(FILES ${KILN_PC_FILES}
    DESTINATION "${KILN_INSTALL_PKGCONFIGDIR}"
    COMPONENT Kiln_Development)
