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

# The CUDA backend (KILN_WITH_CUDA = AUTO/ON/OFF in the top-level CMakeLists.txt): nvcc, the CUDA toolkit (cudart,
# cuBLASLt) and optionally cuDNN (header cudnn.h, library cudnn). Architectures: CMAKE_CUDA_ARCHITECTURES (default 90,
# H100/H200). The backend's target kiln_cuda is defined in src/backends/cuda/CMakeLists.txt.
set(KILN_HAVE_CUDA 0)
set(KILN_HAVE_CUDNN 0)
set(KILN_HAVE_CUDNN_FRONTEND 0)
if(NOT KILN_WITH_CUDA STREQUAL "OFF")
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
        find_package(CUDAToolkit QUIET)
    endif()
    if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
        set(CMAKE_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures of the CUDA backend (90 = H100/H200)")
        enable_language(CUDA)
        set(KILN_HAVE_CUDA 1)
        find_path(KILN_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
        find_library(KILN_CUDNN_LIBRARY NAMES cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} "${CUDAToolkit_LIBRARY_ROOT}/lib")
        if(KILN_CUDNN_INCLUDE_DIR AND KILN_CUDNN_LIBRARY)
            set(KILN_HAVE_CUDNN 1)
            message(STATUS "Kiln: CUDA ${CUDAToolkit_VERSION} (architectures ${CMAKE_CUDA_ARCHITECTURES}), cuDNN at ${KILN_CUDNN_LIBRARY}")
            # The header-only cuDNN frontend (PyPI nvidia-cudnn-frontend) for cuDNN's graph API: KILN_CUDNN_FRONTEND_DIR,
            # .gpu-deps/cudnn_frontend/include (scripts/gpu-deps.sh), or the python3 package's include directory.
            find_program(KILN_PYTHON3 NAMES python3)
            set(kilnFrontendHint "")
            if(KILN_PYTHON3)
                execute_process(COMMAND "${KILN_PYTHON3}" -c "import importlib.metadata as m; print(next(str(f.locate().parent) for f in (m.files('nvidia-cudnn-frontend') or []) if f.name == 'cudnn_frontend.h'))"
                    OUTPUT_VARIABLE kilnFrontendHint OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
            endif()
            find_path(KILN_CUDNN_FRONTEND_INCLUDE_DIR cudnn_frontend.h
                HINTS ${KILN_CUDNN_FRONTEND_DIR} "${CMAKE_SOURCE_DIR}/.gpu-deps/cudnn_frontend/include" ${kilnFrontendHint})
            if(KILN_CUDNN_FRONTEND_INCLUDE_DIR)
                set(KILN_HAVE_CUDNN_FRONTEND 1)
                message(STATUS "Kiln: cuDNN frontend headers at ${KILN_CUDNN_FRONTEND_INCLUDE_DIR}")
            else()
                message(STATUS "Kiln: cuDNN frontend headers not found (pip install nvidia-cudnn-frontend): convolutions "
                               "use cuDNN's legacy calls only")
            endif()
        else()
            message(STATUS "Kiln: CUDA ${CUDAToolkit_VERSION} found but not cuDNN (cudnn.h / libcudnn): the CUDA backend "
                           "builds without its cuDNN tactics (convolution, deconvolution, pooling)")
        endif()
    elseif(KILN_WITH_CUDA STREQUAL "ON")
        message(FATAL_ERROR "KILN_WITH_CUDA=ON but no CUDA compiler (nvcc) or CUDA toolkit was found")
    else()
        message(STATUS "Kiln: no CUDA compiler or toolkit found; the CUDA backend is not built")
    endif()
endif()

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
