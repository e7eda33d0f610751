// Shared helpers of the kiln._kiln bindings: numpy dtype <-> DataType, Dims <-> Python sequences, raising Python
// exceptions with TensorRT-like messages, and calling into Python safely from C++ callbacks (trampolines).
// Every bind*.cpp may include this header; it uses only the public TensorRT-compatible headers.
#pragma once

#include "NvInfer.h"
#include "pyTypeHook.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace kiln::python
{

namespace py = pybind11;

// ------------------------------------------------------------------------------------------------------------
// Data types
// ------------------------------------------------------------------------------------------------------------

//! TensorRT's Python name of a data type ("FLOAT", "HALF", ...), or "UNKNOWN".
char const* dataTypeName(nvinfer1::DataType type) noexcept;

//! Size of one element in bytes; 0.5 for the 4-bit types (INT4, FP4).
double dataTypeItemSize(nvinfer1::DataType type) noexcept;

//! Size in bytes of `count` elements (4-bit types are packed two per byte, rounded up).
std::size_t dataTypeBytes(nvinfer1::DataType type, int64_t count) noexcept;

//! The numpy dtype of a DataType. FLOAT, HALF, INT8, INT32, INT64, BOOL and UINT8 always map; BF16 maps to
//! ml_dtypes.bfloat16 when the ml_dtypes package is importable. Raises TypeError for the rest (FP8, INT4, FP4,
//! E8M0 and BF16 without ml_dtypes): numpy has no equivalent type.
py::dtype toNumpyDtype(nvinfer1::DataType type);

//! The DataType of a numpy dtype (or anything numpy.dtype() accepts: np.float32, "float16", ...); raises
//! TypeError naming the dtype when no DataType matches.
nvinfer1::DataType fromNumpyDtype(py::handle dtypeLike);

//! Like fromNumpyDtype but returns std::nullopt instead of raising.
std::optional<nvinfer1::DataType> tryFromNumpyDtype(py::handle dtypeLike);

// ------------------------------------------------------------------------------------------------------------
// Dims
// ------------------------------------------------------------------------------------------------------------

//! Dims from a trt.Dims, or any Python iterable of integers (tuple, list, numpy array). Raises ValueError when
//! there are more than Dims::MAX_DIMS entries and TypeError when an entry is not an integer.
nvinfer1::Dims toDims(py::handle sequence);

//! The extents of `dims` as a Python tuple (empty for nbDims <= 0).
py::tuple dimsToTuple(nvinfer1::Dims const& dims);

//! "(1, 2, 3)"-style text of a Dims.
std::string dimsToString(nvinfer1::Dims const& dims);

//! True when `a` and `b` have the same rank and the same extents.
bool dimsEqual(nvinfer1::Dims const& a, nvinfer1::Dims const& b) noexcept;

// ------------------------------------------------------------------------------------------------------------
// Errors raised to Python (only inside binding functions, never inside callbacks called by C++)
// ------------------------------------------------------------------------------------------------------------

[[noreturn]] void throwTypeError(std::string const& message);
[[noreturn]] void throwValueError(std::string const& message);
[[noreturn]] void throwIndexError(std::string const& message);
[[noreturn]] void throwRuntimeError(std::string const& message);

//! Raises RuntimeError("<what> failed. <hint>") when `ok` is false: the shape of TensorRT's Python errors for
//! calls whose C++ counterpart returned a failure value. The C++ side has already logged the details. When a Python
//! callback failed since the last check, its message is appended (and cleared).
void checkOrThrow(bool ok, char const* what, char const* hint = nullptr);

//! Same for a pointer result: returns it when non-null, raises RuntimeError otherwise.
template <typename T>
T* checkNotNull(T* pointer, char const* what, char const* hint = nullptr)
{
    checkOrThrow(pointer != nullptr, what, hint);
    return pointer;
}

// ------------------------------------------------------------------------------------------------------------
// Calling Python from C++ (trampolines). C++ may call these from any thread, with or without the GIL.
// ------------------------------------------------------------------------------------------------------------

//! Reports a Python exception raised inside a callback: formats "<where>: <ExceptionType>: <message>", logs it
//! through ::getLogger() (the last builder or runtime logger) with kERROR (and to stderr when there is no logger), and remembers it as the
//! last callback error (see lastCallbackError). Must be called with the GIL held. Clears the Python error state.
void reportCallbackError(char const* where, py::error_already_set& error) noexcept;

//! Same for a C++ exception thrown while converting arguments or results of a callback.
void reportCallbackError(char const* where, char const* message) noexcept;

//! The message of the last error reported by reportCallbackError on any thread ("" if none).
std::string lastCallbackError();

//! Clears the last callback error.
void clearLastCallbackError();

//! Runs `fn` with the GIL held and returns its result. When `fn` raises a Python exception (or throws anything),
//! the error is reported with reportCallbackError(where, ...) and `fallback` is returned instead: nothing escapes
//! into C++. When the interpreter is finalizing, returns `fallback` without calling `fn`.
template <typename R, typename F>
R callPython(char const* where, R fallback, F&& fn) noexcept
{
    if (!Py_IsInitialized())
    {
        return fallback;
    }
    try
    {
        py::gil_scoped_acquire gil;
        try
        {
            return std::forward<F>(fn)();
        }
        catch (py::error_already_set& error)
        {
            reportCallbackError(where, error);
        }
        catch (std::exception const& error)
        {
            reportCallbackError(where, error.what());
        }
        catch (...)
        {
            reportCallbackError(where, "unknown C++ exception");
        }
    }
    catch (...)
    {
        // Acquiring the GIL failed (interpreter shutting down): nothing can be reported.
    }
    return fallback;
}

//! callPython for callbacks that return nothing; returns false when the callback failed.
template <typename F>
bool callPythonVoid(char const* where, F&& fn) noexcept
{
    return callPython(where, false, [&]() {
        std::forward<F>(fn)();
        return true;
    });
}

//! The Python override `name` of the C++ object `self` (a pybind11-bound trampoline instance), or a null
//! function when Python does not override it. Must be called with the GIL held.
template <typename T>
py::function findOverride(T const* self, char const* name)
{
    return py::get_override(self, name);
}

} // namespace kiln::python
