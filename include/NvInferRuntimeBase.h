// NvInferRuntimeBase.h — the lowest layer of Kiln's TensorRT-compatible API: attribute macros, CUDA handle
// types, DataType, Dims, versioned-interface base, error codes and the IErrorRecorder callback interface.
#ifndef NV_INFER_RUNTIME_BASE_H
#define NV_INFER_RUNTIME_BASE_H

#include "NvInferVersion.h"
#include <cstddef>
#include <cstdint>

// ---------------------------------------------------------------------------------------------------------------
// CUDA handle types.
//
// Kiln builds and runs without the CUDA toolkit, so the two CUDA handle types that appear in the API are declared
// here exactly as CUDA's driver_types.h declares them. Repeating an identical typedef is legal C++, so these
// declarations coexist with CUDA's own headers in either include order.
//
// TensorRT code often relies on NvInfer.h pulling in <cuda_runtime_api.h> (cudaMalloc, cudaStreamCreate, ...).
// To keep such code compiling, that header is included whenever the compiler can find it. Define
// KILN_NO_CUDA_RUNTIME_INCLUDE before including any Kiln header to prevent this.
// ---------------------------------------------------------------------------------------------------------------
#if !defined(KILN_NO_CUDA_RUNTIME_INCLUDE) && defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define KILN_CUDA_RUNTIME_API_INCLUDED 1
#endif
#endif

struct CUstream_st;
struct CUevent_st;
typedef struct CUstream_st* cudaStream_t; //!< Opaque CUDA stream handle (a null handle means the default stream).
typedef struct CUevent_st* cudaEvent_t;   //!< Opaque CUDA event handle.

// ---------------------------------------------------------------------------------------------------------------
// Attribute macros (names and meaning as in TensorRT).
// ---------------------------------------------------------------------------------------------------------------
#if __cplusplus >= 201402L
#define TRT_DEPRECATED [[deprecated]]
#define TRT_DEPRECATED_BECAUSE(REASON) [[deprecated(REASON)]]
#ifdef _MSC_VER
#define TRT_DEPRECATED_API __declspec(dllexport)
#else
#define TRT_DEPRECATED_API [[deprecated]] __attribute__((visibility("default")))
#endif
#else
#ifdef _MSC_VER
#define TRT_DEPRECATED
#define TRT_DEPRECATED_API __declspec(dllexport)
#else
#define TRT_DEPRECATED __attribute__((deprecated))
#define TRT_DEPRECATED_API __attribute__((deprecated, visibility("default")))
#endif
#define TRT_DEPRECATED_BECAUSE(REASON) TRT_DEPRECATED
#endif

// Attributes on enumerators are standard only from C++17; in C++14 mode the marker expands to nothing so that
// the headers stay warning-free under -Wpedantic and clang's extension warnings.
#if __cplusplus >= 201703L
#define TRT_DEPRECATED_ENUM TRT_DEPRECATED
#else
#define TRT_DEPRECATED_ENUM
#endif

//! Portable [[nodiscard]] that degrades gracefully on older language modes.
#if __cplusplus >= 201907L
#define TRT_NODISCARD [[nodiscard]]
#define TRT_NODISCARD_BECAUSE(REASON) [[nodiscard(REASON)]]
#elif __cplusplus >= 201603L
#define TRT_NODISCARD [[nodiscard]]
#define TRT_NODISCARD_BECAUSE(REASON) [[nodiscard]]
#else
#define TRT_NODISCARD
#define TRT_NODISCARD_BECAUSE(REASON)
#endif

// Symbols exported from the Kiln libraries. The library build defines TENSORRT_BUILD_LIB (or KILN_BUILD_LIB).
#if defined(TENSORRT_BUILD_LIB) || defined(KILN_BUILD_LIB)
#ifdef _MSC_VER
#define TENSORRTAPI __declspec(dllexport)
#else
#define TENSORRTAPI __attribute__((visibility("default")))
#endif
#else
#define TENSORRTAPI
#endif
#define TRTNOEXCEPT

// Kiln-internal helpers: silence deprecation warnings for the headers' own uses of deprecated declarations
// (TensorRT keeps deprecated plugin generations working; their inline code must not warn in user builds).
#if defined(__clang__) || defined(__GNUC__)
#define KILN_IGNORE_DEPRECATED_BEGIN                                                                                   \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")
#define KILN_IGNORE_DEPRECATED_END _Pragma("GCC diagnostic pop")
#elif defined(_MSC_VER)
#define KILN_IGNORE_DEPRECATED_BEGIN __pragma(warning(push)) __pragma(warning(disable : 4996))
#define KILN_IGNORE_DEPRECATED_END __pragma(warning(pop))
#else
#define KILN_IGNORE_DEPRECATED_BEGIN
#define KILN_IGNORE_DEPRECATED_END
#endif

//! Library handles that appear in the (deprecated) IPluginV2Ext::attachToContext. Kiln never creates them.
extern "C"
{
    struct cublasContext;
    struct cudnnContext;
}

//! Combine a version triple into one integer: major * 10000 + minor * 100 + patch. Usable in #if.
#define NV_TENSORRT_VERSION_INT(major, minor, patch) ((major) *10000L + (minor) *100L + (patch) *1L)

//! The TensorRT API level that these headers implement, as a single integer.
#define NV_TENSORRT_VERSION NV_TENSORRT_VERSION_INT(NV_TENSORRT_MAJOR, NV_TENSORRT_MINOR, NV_TENSORRT_PATCH)

//!
//! \namespace nvinfer1
//! \brief The TensorRT API namespace, implemented by Kiln.
//!
namespace nvinfer1
{
//! Character type used for all strings in the API.
using char_t = char;

//! Character type for strings that must be plain ASCII (names, versions, namespaces).
using AsciiChar = char_t;

namespace v_1_0
{
class IErrorRecorder;
} // namespace v_1_0
using IErrorRecorder = v_1_0::IErrorRecorder;

namespace impl
{
//! Holds the number of enumerators of enum T in a static member kVALUE; specialised next to each enum.
template <typename T>
struct EnumMaxImpl;
} // namespace impl

//! Number of enumerators of enum type T.
template <typename T>
constexpr int32_t EnumMax() noexcept
{
    return impl::EnumMaxImpl<T>::kVALUE;
}

//!
//! \enum DataType
//! \brief Element type of tensors and weights.
//!
//! kBOOL, kINT32 and kINT64 hold exact values; all others are "activation" types.
//!
enum class DataType : int32_t
{
    kFLOAT = 0, //!< IEEE 754 binary32.
    kHALF = 1,  //!< IEEE 754 binary16.
    kINT8 = 2,  //!< Signed 8-bit integer, usually a quantized real value.
    kINT32 = 3, //!< Signed 32-bit integer.
    kBOOL = 4,  //!< One byte per element: 0 is false, 1 is true.
    kUINT8 = 5, //!< Unsigned 8-bit integer (not a quantized type; convert with a cast/identity layer).
    kFP8 = 6,   //!< 8-bit float E4M3 (1 sign, 4 exponent, 3 mantissa bits, bias 7).
    kBF16 = 7,  //!< bfloat16 (8 exponent bits, 8 significand bits).
    kINT64 = 8, //!< Signed 64-bit integer.
    kINT4 = 9,  //!< Signed 4-bit integer, two per byte.
    kFP4 = 10,  //!< 4-bit float E2M1.
    kE8M0 = 11, //!< Unsigned exponent-only 8-bit float, used for block quantization scales.
};

namespace impl
{
template <>
struct EnumMaxImpl<DataType>
{
    static constexpr int32_t kVALUE = 12;
};
} // namespace impl

//!
//! \class Dims64
//! \brief Shape of a tensor: a rank and up to MAX_DIMS 64-bit extents.
//!
//! An "invalid" Dims has nbDims == -1 and all d[i] == 0; an "unknown rank" Dims has nbDims == -1 and all
//! d[i] == -1. A dynamic extent is written as -1.
//!
class Dims64
{
public:
    //! Largest rank supported.
    static constexpr int32_t MAX_DIMS{8};

    //! Rank of the tensor.
    int32_t nbDims;

    //! Extent of each dimension; entries at and beyond nbDims are unused.
    int64_t d[MAX_DIMS];
};

//! The shape type used throughout the API.
using Dims = Dims64;

//! Name of an interface family, e.g. "PLUGIN_V3ONE_CORE" (see InterfaceInfo).
using InterfaceKind = char const*;

//!
//! \class InterfaceInfo
//! \brief Identifies which interface (and which version of it) an IVersionedInterface object implements.
//!
class InterfaceInfo
{
public:
    InterfaceKind kind;
    int32_t major;
    int32_t minor;
};

//!
//! \enum APILanguage
//! \brief Language in which an interface implementation is written (C++ or Python trampolines).
//!
enum class APILanguage : int32_t
{
    kCPP = 0,
    kPYTHON = 1
};

namespace impl
{
template <>
struct EnumMaxImpl<APILanguage>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//!
//! \class IVersionedInterface
//! \brief Root of every interface whose kind and version the library inspects at run time.
//!
//! Applications implementing a derived interface must not override getAPILanguage() or getInterfaceInfo(); the
//! derived interface headers already provide the right values.
//!
class IVersionedInterface
{
public:
    //! Language of the implementation; C++ unless a Python binding overrides it.
    virtual APILanguage getAPILanguage() const noexcept
    {
        return APILanguage::kCPP;
    }

    //! Kind and version of the interface implemented by this object.
    virtual InterfaceInfo getInterfaceInfo() const noexcept = 0;

    virtual ~IVersionedInterface() noexcept = default;

protected:
    IVersionedInterface() = default;
    IVersionedInterface(IVersionedInterface const&) = default;
    IVersionedInterface(IVersionedInterface&&) = default;
    IVersionedInterface& operator=(IVersionedInterface const&) & = default;
    IVersionedInterface& operator=(IVersionedInterface&&) & = default;
};

//!
//! \enum ErrorCode
//! \brief Category of an error reported through IErrorRecorder.
//!
enum class ErrorCode : int32_t
{
    kSUCCESS = 0,                //!< No error.
    kUNSPECIFIED_ERROR = 1,      //!< An error that fits no other category.
    kINTERNAL_ERROR = 2,         //!< Unrecoverable library error; the library state is undefined afterwards.
    kINVALID_ARGUMENT = 3,       //!< An argument is invalid on its own.
    kINVALID_CONFIG = 4,         //!< Arguments are individually valid but inconsistent with each other.
    kFAILED_ALLOCATION = 5,      //!< Host or device memory allocation failed.
    kFAILED_INITIALIZATION = 6,  //!< A component the library depends on failed to initialize.
    kFAILED_EXECUTION = 7,       //!< Execution stopped early (asynchronous error, cancellation, device error).
    kFAILED_COMPUTATION = 8,     //!< Execution finished but the results are corrupt (NaN squashing, overflow...).
    kINVALID_STATE = 9,          //!< Calls were made in an order that is not allowed; possibly recoverable.
    kUNSUPPORTED_STATE = 10,     //!< Valid request that this device/configuration cannot satisfy.
};

namespace impl
{
template <>
struct EnumMaxImpl<ErrorCode>
{
    static constexpr int32_t kVALUE = 11;
};
} // namespace impl

namespace v_1_0
{
//!
//! \brief Application-implemented, reference-counted sink for errors raised by library objects.
//!
//! An error recorder set on a builder/runtime/engine is inherited by the objects created from it. All methods
//! must be thread-safe, and the recorder must outlive every object that uses it.
//!
class IErrorRecorder : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IErrorRecorder", 1, 0};
    }

    //! C string describing one error.
    using ErrorDesc = char const*;

    //! Maximum description length (excluding the terminator) guaranteed by the safety runtime.
    static constexpr size_t kMAX_DESC_LENGTH{127U};

    //! Reference count type.
    using RefCount = int32_t;

    IErrorRecorder() = default;
    ~IErrorRecorder() noexcept override = default;

    //! Number of errors stored since the last clear() (capped at the recorder's capacity).
    virtual int32_t getNbErrors() const noexcept = 0;

    //! Code of error errorIdx, or kUNSPECIFIED_ERROR when out of range.
    virtual ErrorCode getErrorCode(int32_t errorIdx) const noexcept = 0;

    //! Description of error errorIdx, or an empty string when out of range.
    virtual ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept = 0;

    //! True if errors were dropped because the recorder was full.
    virtual bool hasOverflowed() const noexcept = 0;

    //! Forget all stored errors.
    virtual void clear() noexcept = 0;

    //! Record an error. desc is only valid during the call. Return true if the error must be treated as fatal.
    virtual bool reportError(ErrorCode val, ErrorDesc desc) noexcept = 0;

    //! Called when a library object starts referring to this recorder; returns the new count.
    virtual RefCount incRefCount() noexcept = 0;

    //! Called when a library object stops referring to this recorder; returns the new count.
    virtual RefCount decRefCount() noexcept = 0;

protected:
    IErrorRecorder(IErrorRecorder const&) = default;
    IErrorRecorder(IErrorRecorder&&) = default;
    IErrorRecorder& operator=(IErrorRecorder const&) & = default;
    IErrorRecorder& operator=(IErrorRecorder&&) & = default;
};
} // namespace v_1_0

//!
//! \enum TensorIOMode
//! \brief Whether an engine tensor is an input, an output, or neither.
//!
enum class TensorIOMode : int32_t
{
    kNONE = 0,
    kINPUT = 1,
    kOUTPUT = 2
};

namespace impl
{
template <>
struct EnumMaxImpl<TensorIOMode>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl
} // namespace nvinfer1

//! Version of the loaded library, encoded as NV_TENSORRT_VERSION is.
extern "C" TENSORRTAPI int32_t getInferLibVersion() noexcept;

#endif // NV_INFER_RUNTIME_BASE_H
