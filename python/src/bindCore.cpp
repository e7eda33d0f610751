// Core types of the tensorrt Python API: __version__, DataType (+ the trt.float32 ... aliases), nptype, volume,
// TensorFormat, TensorLocation, ErrorCode, Weights, and the loggers (ILogger, Logger). Dims live in bindCoreDims.cpp.
#include "bindings.h"
#include "pyCommon.h"

#include "NvInferVersion.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace kiln::python
{

void bindCoreDims(py::module_& m); // bindCoreDims.cpp

namespace
{

using nvinfer1::DataType;
using nvinfer1::ILogger;
using Severity = nvinfer1::ILogger::Severity;

#define KILN_STR2(x) #x
#define KILN_STR(x) KILN_STR2(x)

char severityLetter(Severity severity)
{
    switch (severity)
    {
    case Severity::kINTERNAL_ERROR: return 'F';
    case Severity::kERROR: return 'E';
    case Severity::kWARNING: return 'W';
    case Severity::kINFO: return 'I';
    case Severity::kVERBOSE: return 'V';
    }
    return '?';
}

//! Python subclasses of trt.ILogger: log() forwards to the Python method, with the GIL, from any thread.
class PyILogger : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        // A failing Python logger cannot log its own failure through itself: report to stderr only.
        callPythonVoid("ILogger.log", [&]() {
            py::function override = py::get_override(static_cast<ILogger const*>(this), "log");
            if (!override)
            {
                throw std::runtime_error("ILogger subclass does not implement log(severity, msg)");
            }
            override(severity, msg == nullptr ? "" : msg);
        });
    }
};

//! trt.Logger: prints messages at or above min_severity to stderr ("[Kiln] [W] message").
class KilnLogger : public ILogger
{
public:
    explicit KilnLogger(Severity minSeverity)
        : mMinSeverity(minSeverity)
    {
    }

    void log(Severity severity, char const* msg) noexcept override
    {
        if (static_cast<int32_t>(severity) <= static_cast<int32_t>(mMinSeverity))
        {
            std::fprintf(stderr, "[Kiln] [%c] %s\n", severityLetter(severity), msg == nullptr ? "" : msg);
            std::fflush(stderr);
        }
    }

    Severity mMinSeverity;
};

//! Python subclasses of trt.Logger that override log().
class PyKilnLogger : public KilnLogger
{
public:
    using KilnLogger::KilnLogger;

    void log(Severity severity, char const* msg) noexcept override
    {
        bool handled = false;
        callPythonVoid("Logger.log", [&]() {
            py::function override = py::get_override(static_cast<KilnLogger const*>(this), "log");
            if (override)
            {
                handled = true;
                override(severity, msg == nullptr ? "" : msg);
            }
        });
        if (!handled)
        {
            KilnLogger::log(severity, msg);
        }
    }
};

void bindDataType(py::module_& m)
{
    py::enum_<DataType> dataType(m, "DataType", "The element type of a tensor or of weights.");
    dataType.value("FLOAT", DataType::kFLOAT)
        .value("HALF", DataType::kHALF)
        .value("INT8", DataType::kINT8)
        .value("INT32", DataType::kINT32)
        .value("BOOL", DataType::kBOOL)
        .value("UINT8", DataType::kUINT8)
        .value("FP8", DataType::kFP8)
        .value("BF16", DataType::kBF16)
        .value("INT64", DataType::kINT64)
        .value("INT4", DataType::kINT4)
        .value("FP4", DataType::kFP4)
        .value("E8M0", DataType::kE8M0);
    dataType.def_property_readonly(
        "itemsize",
        [](DataType type) -> py::object {
            double const size = dataTypeItemSize(type);
            if (size < 1.0)
            {
                return py::float_(size);
            }
            return py::int_(static_cast<int64_t>(size));
        },
        "Size of one element in bytes (0.5 for the 4-bit types).");

    m.attr("float32") = DataType::kFLOAT;
    m.attr("float16") = DataType::kHALF;
    m.attr("bfloat16") = DataType::kBF16;
    m.attr("int8") = DataType::kINT8;
    m.attr("int32") = DataType::kINT32;
    m.attr("int64") = DataType::kINT64;
    m.attr("bool") = DataType::kBOOL;
    m.attr("uint8") = DataType::kUINT8;
    m.attr("fp8") = DataType::kFP8;
    m.attr("int4") = DataType::kINT4;
    m.attr("fp4") = DataType::kFP4;
    m.attr("e8m0") = DataType::kE8M0;

    m.def(
        "nptype", [](DataType type) { return py::reinterpret_borrow<py::object>(toNumpyDtype(type).attr("type")); },
        py::arg("trt_type"),
        "The numpy type of a DataType (bfloat16 needs ml_dtypes; FP8, INT4, FP4 and E8M0 raise TypeError).");

    m.def(
        "volume",
        [](py::iterable iterable) -> py::object {
            py::object product = py::int_(1);
            bool any = false;
            for (py::handle item : iterable)
            {
                product = product * py::reinterpret_borrow<py::object>(item);
                any = true;
            }
            return any ? product : py::int_(0);
        },
        py::arg("iterable"), "Product of the elements of an iterable (e.g. a shape); 0 when it is empty.");
}

void bindSmallEnums(py::module_& m)
{
    using nvinfer1::TensorFormat;
    py::enum_<TensorFormat>(m, "TensorFormat", "Memory layout of a tensor.")
        .value("LINEAR", TensorFormat::kLINEAR)
        .value("CHW2", TensorFormat::kCHW2)
        .value("HWC8", TensorFormat::kHWC8)
        .value("CHW4", TensorFormat::kCHW4)
        .value("CHW16", TensorFormat::kCHW16)
        .value("CHW32", TensorFormat::kCHW32)
        .value("DHWC8", TensorFormat::kDHWC8)
        .value("CDHW32", TensorFormat::kCDHW32)
        .value("HWC", TensorFormat::kHWC)
        .value("DLA_LINEAR", TensorFormat::kDLA_LINEAR)
        .value("DLA_HWC4", TensorFormat::kDLA_HWC4)
        .value("HWC16", TensorFormat::kHWC16)
        .value("DHWC", TensorFormat::kDHWC);

    using nvinfer1::TensorLocation;
    py::enum_<TensorLocation>(m, "TensorLocation", "Where tensor data lives.")
        .value("DEVICE", TensorLocation::kDEVICE)
        .value("HOST", TensorLocation::kHOST);

    using nvinfer1::ErrorCode;
    py::enum_<ErrorCode>(m, "ErrorCodeTRT", "Category of an error reported through IErrorRecorder (tensorrt.ErrorCodeTRT; "
                                            "trt.ErrorCode is the ONNX parser's).")
        .value("SUCCESS", ErrorCode::kSUCCESS)
        .value("UNSPECIFIED_ERROR", ErrorCode::kUNSPECIFIED_ERROR)
        .value("INTERNAL_ERROR", ErrorCode::kINTERNAL_ERROR)
        .value("INVALID_ARGUMENT", ErrorCode::kINVALID_ARGUMENT)
        .value("INVALID_CONFIG", ErrorCode::kINVALID_CONFIG)
        .value("FAILED_ALLOCATION", ErrorCode::kFAILED_ALLOCATION)
        .value("FAILED_INITIALIZATION", ErrorCode::kFAILED_INITIALIZATION)
        .value("FAILED_EXECUTION", ErrorCode::kFAILED_EXECUTION)
        .value("FAILED_COMPUTATION", ErrorCode::kFAILED_COMPUTATION)
        .value("INVALID_STATE", ErrorCode::kINVALID_STATE)
        .value("UNSUPPORTED_STATE", ErrorCode::kUNSUPPORTED_STATE);
}

//! Weights whose values live in a numpy array; the shared_ptr's deleter keeps the array alive.
std::shared_ptr<nvinfer1::Weights> weightsFromArray(py::handle object)
{
    py::module_ numpy = py::module_::import("numpy");
    py::array array = numpy.attr("ascontiguousarray")(object);
    DataType const type = fromNumpyDtype(array.dtype());
    auto* weights = new nvinfer1::Weights{type, array.data(), static_cast<int64_t>(array.size())};
    auto owner = std::make_shared<py::object>(array);
    return std::shared_ptr<nvinfer1::Weights>(weights, [owner](nvinfer1::Weights* w) mutable {
        delete w;
        if (Py_IsInitialized())
        {
            py::gil_scoped_acquire gil;
            owner.reset();
        }
    });
}

void bindWeights(py::module_& m)
{
    using nvinfer1::Weights;
    py::class_<Weights, std::shared_ptr<Weights>> weights(m, "Weights",
        "An array of weight values: from a numpy array (kept alive by this object) or empty. Weights do not own "
        "memory they were given as a raw pointer.");
    weights
        .def(py::init([](DataType type) { return std::make_shared<Weights>(Weights{type, nullptr, 0}); }),
            py::arg("type") = DataType::kFLOAT, "Empty weights of the given type.")
        .def(py::init([](DataType type, uintptr_t ptr, int64_t count) {
            if (count < 0)
            {
                throwValueError("Weights: count must be non-negative, got " + std::to_string(count));
            }
            if (ptr == 0 && count != 0)
            {
                throwValueError("Weights: a null pointer needs count == 0");
            }
            return std::make_shared<Weights>(Weights{type, reinterpret_cast<void const*>(ptr), count});
        }),
            py::arg("type"), py::arg("ptr"), py::arg("count"),
            "Weights over raw memory (not owned: it must outlive the build).")
        .def(py::init([](py::array a) { return weightsFromArray(a); }), py::arg("a"),
            "Weights viewing a numpy array (copied first when it is not C-contiguous); the array is kept alive.")
        .def_property_readonly("dtype", [](Weights const& w) { return w.type; })
        .def_property_readonly("size", [](Weights const& w) { return w.count; })
        .def_property_readonly("nbytes", [](Weights const& w) { return dataTypeBytes(w.type, w.count); })
        .def(
            "numpy",
            [](py::object self) -> py::array {
                Weights const& w = self.cast<Weights const&>();
                py::dtype dtype = toNumpyDtype(w.type);
                if (w.values == nullptr || w.count == 0)
                {
                    return py::array(dtype, std::vector<py::ssize_t>{0});
                }
                return py::array(dtype, std::vector<py::ssize_t>{static_cast<py::ssize_t>(w.count)},
                    std::vector<py::ssize_t>{}, w.values, self);
            },
            "A 1-D numpy view of the values (it keeps these Weights alive).")
        .def("__len__", [](Weights const& w) { return w.count; })
        .def("__repr__", [](Weights const& w) {
            return std::string("<kiln.Weights ") + dataTypeName(w.type) + " x " + std::to_string(w.count) + ">";
        });
    py::implicitly_convertible<py::array, Weights>();
}

void bindLoggers(py::module_& m)
{
    py::class_<ILogger, PyILogger> logger(m, "ILogger",
        "Base class of message sinks: subclass it, call ILogger.__init__(self) and implement log(severity, msg).");
    py::enum_<Severity>(logger, "Severity", py::arithmetic(), "Severity of a log message.")
        .value("INTERNAL_ERROR", Severity::kINTERNAL_ERROR)
        .value("ERROR", Severity::kERROR)
        .value("WARNING", Severity::kWARNING)
        .value("INFO", Severity::kINFO)
        .value("VERBOSE", Severity::kVERBOSE)
        .export_values();
    logger.def(py::init<>())
        .def(
            "log", [](ILogger& self, Severity severity, std::string const& msg) { self.log(severity, msg.c_str()); },
            py::arg("severity"), py::arg("msg"), "Receive one message.");

    py::class_<KilnLogger, ILogger, PyKilnLogger>(m, "Logger",
        "Logger that prints messages at or above min_severity to stderr.")
        .def(py::init<Severity>(), py::arg("min_severity") = Severity::kWARNING)
        .def_readwrite("min_severity", &KilnLogger::mMinSeverity)
        .def(
            "log", [](KilnLogger& self, Severity severity, std::string const& msg) { self.log(severity, msg.c_str()); },
            py::arg("severity"), py::arg("msg"));
}

} // namespace

void bindCore(py::module_& m)
{
    m.attr("__version__") = KILN_STR(NV_TENSORRT_MAJOR) "." KILN_STR(NV_TENSORRT_MINOR) "." KILN_STR(
        NV_TENSORRT_PATCH) "." KILN_STR(NV_TENSORRT_BUILD);
    m.attr("__kiln_version__")
        = KILN_STR(KILN_VERSION_MAJOR) "." KILN_STR(KILN_VERSION_MINOR) "." KILN_STR(KILN_VERSION_PATCH);
    bindDataType(m);
    bindSmallEnums(m);
    bindCoreDims(m);
    bindWeights(m);
    bindLoggers(m);
}

} // namespace kiln::python
