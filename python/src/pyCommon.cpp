// Shared helpers of the kiln._kiln bindings (see pyCommon.h): dtype and Dims conversions, Python exceptions,
// and the reporting of Python exceptions raised inside C++ callbacks.
#include "pyCommon.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <sstream>

namespace kiln::python
{

namespace
{

using nvinfer1::DataType;

std::mutex gLastErrorMutex;
std::string gLastError;

void setLastError(std::string const& message)
{
    std::lock_guard<std::mutex> lock(gLastErrorMutex);
    gLastError = message;
}

//! Set while a callback error is being logged on this thread: if the logger itself is a failing Python logger,
//! its own failure goes to stderr instead of recursing.
thread_local bool tReportingError = false;

void logCallbackError(std::string const& message) noexcept
{
    nvinfer1::ILogger* logger = tReportingError ? nullptr : ::getLogger();
    if (logger != nullptr)
    {
        tReportingError = true;
        logger->log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
        tReportingError = false;
    }
    else
    {
        std::fprintf(stderr, "[Kiln] [E] %s\n", message.c_str());
        std::fflush(stderr);
    }
}

//! ml_dtypes.<name> as a numpy dtype, or a null object when ml_dtypes is not installed.
py::object mlDtype(char const* name)
{
    try
    {
        py::module_ mlDtypes = py::module_::import("ml_dtypes");
        return py::dtype::from_args(mlDtypes.attr(name));
    }
    catch (py::error_already_set&)
    {
        return py::object();
    }
}

} // namespace

char const* dataTypeName(DataType type) noexcept
{
    switch (type)
    {
    case DataType::kFLOAT: return "FLOAT";
    case DataType::kHALF: return "HALF";
    case DataType::kINT8: return "INT8";
    case DataType::kINT32: return "INT32";
    case DataType::kBOOL: return "BOOL";
    case DataType::kUINT8: return "UINT8";
    case DataType::kFP8: return "FP8";
    case DataType::kBF16: return "BF16";
    case DataType::kINT64: return "INT64";
    case DataType::kINT4: return "INT4";
    case DataType::kFP4: return "FP4";
    case DataType::kE8M0: return "E8M0";
    }
    return "UNKNOWN";
}

double dataTypeItemSize(DataType type) noexcept
{
    switch (type)
    {
    case DataType::kINT64: return 8.0;
    case DataType::kFLOAT:
    case DataType::kINT32: return 4.0;
    case DataType::kHALF:
    case DataType::kBF16: return 2.0;
    case DataType::kINT8:
    case DataType::kBOOL:
    case DataType::kUINT8:
    case DataType::kFP8:
    case DataType::kE8M0: return 1.0;
    case DataType::kINT4:
    case DataType::kFP4: return 0.5;
    }
    return 0.0;
}

std::size_t dataTypeBytes(DataType type, int64_t count) noexcept
{
    if (count <= 0)
    {
        return 0;
    }
    if (type == DataType::kINT4 || type == DataType::kFP4)
    {
        return static_cast<std::size_t>((count + 1) / 2);
    }
    return static_cast<std::size_t>(count) * static_cast<std::size_t>(dataTypeItemSize(type));
}

py::dtype toNumpyDtype(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return py::dtype::of<float>();
    case DataType::kHALF: return py::dtype("float16");
    case DataType::kINT8: return py::dtype::of<int8_t>();
    case DataType::kINT32: return py::dtype::of<int32_t>();
    case DataType::kINT64: return py::dtype::of<int64_t>();
    case DataType::kBOOL: return py::dtype::of<bool>();
    case DataType::kUINT8: return py::dtype::of<uint8_t>();
    case DataType::kBF16:
    {
        py::object bf16 = mlDtype("bfloat16");
        if (bf16)
        {
            return py::reinterpret_borrow<py::dtype>(bf16);
        }
        throwTypeError("Could not resolve TensorRT datatype BF16 to an equivalent numpy datatype: numpy has no "
                       "bfloat16 (install the ml_dtypes package to get one).");
    }
    default: break;
    }
    throwTypeError(std::string("Could not resolve TensorRT datatype ") + dataTypeName(type)
        + " to an equivalent numpy datatype: numpy has no such type.");
}

std::optional<DataType> tryFromNumpyDtype(py::handle dtypeLike)
{
    py::dtype dt;
    try
    {
        dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtypeLike));
    }
    catch (py::error_already_set&)
    {
        return std::nullopt;
    }
    char const kind = dt.kind();
    std::size_t const size = static_cast<std::size_t>(dt.itemsize());
    if (kind == 'f' && size == 4)
    {
        return DataType::kFLOAT;
    }
    if (kind == 'f' && size == 2)
    {
        return DataType::kHALF;
    }
    if (kind == 'i' && size == 1)
    {
        return DataType::kINT8;
    }
    if (kind == 'i' && size == 4)
    {
        return DataType::kINT32;
    }
    if (kind == 'i' && size == 8)
    {
        return DataType::kINT64;
    }
    if (kind == 'u' && size == 1)
    {
        return DataType::kUINT8;
    }
    if (kind == 'b')
    {
        return DataType::kBOOL;
    }
    py::object bf16 = mlDtype("bfloat16");
    if (bf16 && dt.equal(bf16))
    {
        return DataType::kBF16;
    }
    return std::nullopt;
}

DataType fromNumpyDtype(py::handle dtypeLike)
{
    std::optional<DataType> type = tryFromNumpyDtype(dtypeLike);
    if (!type)
    {
        throwTypeError("Unsupported numpy data type " + py::str(dtypeLike).cast<std::string>()
            + ": Kiln supports float32, float16, bfloat16 (ml_dtypes), int8, int32, int64, uint8 and bool.");
    }
    return *type;
}

nvinfer1::Dims toDims(py::handle sequence)
{
    if (py::isinstance<nvinfer1::Dims>(sequence))
    {
        return sequence.cast<nvinfer1::Dims>();
    }
    if (py::isinstance<py::str>(sequence) || !py::isinstance<py::iterable>(sequence))
    {
        throwTypeError("Expected a sequence of integers for a shape (Dims), got "
            + py::str(py::type::handle_of(sequence).attr("__name__")).cast<std::string>());
    }
    nvinfer1::Dims dims{};
    dims.nbDims = 0;
    for (py::handle item : py::reinterpret_borrow<py::iterable>(sequence))
    {
        if (dims.nbDims >= nvinfer1::Dims::MAX_DIMS)
        {
            throwValueError("A shape (Dims) has at most " + std::to_string(nvinfer1::Dims::MAX_DIMS)
                + " dimensions; got more");
        }
        if (py::isinstance<py::bool_>(item) || !py::hasattr(item, "__index__"))
        {
            throwTypeError("Shape (Dims) entries must be integers, got "
                + py::str(py::type::handle_of(item).attr("__name__")).cast<std::string>());
        }
        dims.d[dims.nbDims++] = py::reinterpret_steal<py::int_>(PyNumber_Index(item.ptr())).cast<int64_t>();
    }
    return dims;
}

py::tuple dimsToTuple(nvinfer1::Dims const& dims)
{
    int32_t const rank = dims.nbDims > 0 ? std::min(dims.nbDims, nvinfer1::Dims::MAX_DIMS) : 0;
    py::tuple result(rank);
    for (int32_t i = 0; i < rank; ++i)
    {
        result[i] = py::int_(dims.d[i]);
    }
    return result;
}

std::string dimsToString(nvinfer1::Dims const& dims)
{
    std::ostringstream text;
    text << '(';
    int32_t const rank = dims.nbDims > 0 ? std::min(dims.nbDims, nvinfer1::Dims::MAX_DIMS) : 0;
    for (int32_t i = 0; i < rank; ++i)
    {
        text << (i == 0 ? "" : ", ") << dims.d[i];
    }
    text << (rank == 1 ? ",)" : ")");
    return text.str();
}

bool dimsEqual(nvinfer1::Dims const& a, nvinfer1::Dims const& b) noexcept
{
    if (a.nbDims != b.nbDims)
    {
        return false;
    }
    for (int32_t i = 0; i < a.nbDims && i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        if (a.d[i] != b.d[i])
        {
            return false;
        }
    }
    return true;
}

void throwTypeError(std::string const& message)
{
    throw py::type_error(message);
}

void throwValueError(std::string const& message)
{
    throw py::value_error(message);
}

void throwIndexError(std::string const& message)
{
    throw py::index_error(message);
}

void throwRuntimeError(std::string const& message)
{
    throw std::runtime_error(message);
}

void checkOrThrow(bool ok, char const* what, char const* hint)
{
    if (ok)
    {
        return;
    }
    std::string message = std::string(what) + " failed.";
    if (hint != nullptr && *hint != '\0')
    {
        message += std::string(" ") + hint;
    }
    std::string const last = lastCallbackError();
    if (!last.empty())
    {
        message += " Last error from Python: " + last;
        clearLastCallbackError();
    }
    throwRuntimeError(message);
}

void reportCallbackError(char const* where, py::error_already_set& error) noexcept
{
    std::string message;
    try
    {
        std::string const typeName = py::str(error.type().attr("__name__")).cast<std::string>();
        message = std::string(where) + ": " + typeName + ": " + py::str(error.value()).cast<std::string>();
    }
    catch (...)
    {
        PyErr_Clear();
        message = std::string(where) + ": a Python exception was raised";
    }
    setLastError(message);
    logCallbackError(message);
}

void reportCallbackError(char const* where, char const* message) noexcept
{
    std::string text;
    try
    {
        text = std::string(where) + ": " + message;
    }
    catch (...)
    {
        return;
    }
    setLastError(text);
    logCallbackError(text);
}

std::string lastCallbackError()
{
    std::lock_guard<std::mutex> lock(gLastErrorMutex);
    return gLastError;
}

void clearLastCallbackError()
{
    std::lock_guard<std::mutex> lock(gLastErrorMutex);
    gLastError.clear();
}

} // namespace kiln::python
