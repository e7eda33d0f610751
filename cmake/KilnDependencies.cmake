# KilnDependencies.cmake — finds the libraries the kiln core links against (Threads, dl, optional oneDNN) and
# gathers them, with the KILN_HAVE_* feature macros, in the interface target kiln_dependencies; and those of
# the ONNX parser (protobuf, ONNX) in kiln_onnx_dependencies.
# Test/bench dependencies (GoogleTest, Google Benchmark) are found where they are used.

find_package(Threads REQUIRED)

add_library(kiln_dependencies INTERFACE)
target_link_libraries(kiln_dependencies INTERFACE Threads::Threads ${CMAKE_DL_LIBS})

# oneDNN (Debian: libdnnl-dev). Its CMake package needs OpenCL's (ocl-icd-opencl-dev) because Debian builds it
# with the OpenCL GPU runtime; if that package is missing we fall back to locating header and library directly.
set(KILN_HAVE_ONEDNN 0)
if(NOT KILN_WITH_ONEDNN STREQUAL "OFF")
    find_package(dnnl CONFIG QUIET)
    if(dnnl_FOUND AND TARGET DNNL::dnnl)
        target_link_libraries(kiln_dependencies INTERFACE DNNL::dnnl)
        set(KILN_HAVE_ONEDNN 1)
        message(STATUS "Kiln: oneDNN ${dnnl_VERSION} found (CMake package)")
    else()
        find_path(KILN_DNNL_INCLUDE_DIR dnnl.hpp)
        find_library(KILN_DNNL_LIBRARY NAMES dnnl)
        if(KILN_DNNL_INCLUDE_DIR AND KILN_DNNL_LIBRARY)
            add_library(kiln_dnnl UNKNOWN IMPORTED)
            set_target_properties(kiln_dnnl PROPERTIES
                IMPORTED_LOCATION "${KILN_DNNL_LIBRARY}"
                INTERFACE_INCLUDE_DIRECTORIES "${KILN_DNNL_INCLUDE_DIR}")
            target_link_libraries(kiln_dependencies INTERFACE kiln_dnnl)
            set(KILN_HAVE_ONEDNN 1)
            message(STATUS "Kiln: oneDNN found at ${KILN_DNNL_LIBRARY}")
        endif()
    endif()
    if(NOT KILN_HAVE_ONEDNN)
        if(KILN_WITH_ONEDNN STREQUAL "ON")
            message(FATAL_ERROR "KILN_WITH_ONEDNN=ON but oneDNN was not found (apt-get install libdnnl-dev).")
        endif()
        message(STATUS "Kiln: oneDNN not found; the CPU backend uses its reference kernels only")
    endif()
endif()

# The CUDA backend is planned (see KILN_WITH_CUDA in the top-level CMakeLists.txt).
set(KILN_HAVE_CUDA 0)

target_compile_definitions(kiln_dependencies INTERFACE
    KILN_HAVE_ONEDNN=${KILN_HAVE_ONEDNN}
    KILN_HAVE_CUDA=${KILN_HAVE_CUDA})

# The ONNX parser (kiln_onnxparser only; libkiln and plugin libraries never see these): protobuf
# (Debian: libprotobuf-dev) and ONNX's generated protobuf classes (libonnx-dev, libonnx_proto). They are
# gathered in kiln_onnx_dependencies, which CMakeLists.txt links privately into the parser's objects.
find_package(Protobuf REQUIRED)
add_library(kiln_onnx_dependencies INTERFACE)
find_package(ONNX CONFIG QUIET)
if(ONNX_FOUND AND TARGET onnx_proto)
    target_link_libraries(kiln_onnx_dependencies INTERFACE onnx_proto protobuf::libprotobuf)
    message(STATUS "Kiln: ONNX ${ONNX_VERSION} found (CMake package), protobuf ${Protobuf_VERSION}")
else()
    # ONNX's CMake package is missing or unusable: locate the header and libonnx_proto directly.
    find_path(KILN_ONNX_INCLUDE_DIR onnx/onnx_pb.h)
    find_library(KILN_ONNX_PROTO_LIBRARY NAMES onnx_proto)
    if(NOT KILN_ONNX_INCLUDE_DIR OR NOT KILN_ONNX_PROTO_LIBRARY)
        message(FATAL_ERROR "Kiln: ONNX was not found; the ONNX parser needs it (apt-get install libonnx-dev).")
    endif()
    add_library(kiln_onnx_proto UNKNOWN IMPORTED)
    set_target_properties(kiln_onnx_proto PROPERTIES
        IMPORTED_LOCATION "${KILN_ONNX_PROTO_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${KILN_ONNX_INCLUDE_DIR}"
        INTERFACE_COMPILE_DEFINITIONS "ONNX_NAMESPACE=onnx;ONNX_ML=1")
    target_link_libraries(kiln_onnx_dependencies INTERFACE kiln_onnx_proto protobuf::libprotobuf)
    message(STATUS "Kiln: ONNX found at ${KILN_ONNX_PROTO_LIBRARY}, protobuf ${Protobuf_VERSION}")
endif()
