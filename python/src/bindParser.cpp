// The ONNX parser of the tensorrt Python API: OnnxParser, ParserError, ErrorCode (the parser's error category),
// OnnxParserFlag and OnnxParserRefitter, over Kiln's nvonnxparser. A parser keeps its network and logger alive,
// and the model bytes it parsed (TensorRT requires them to outlive the build). Parsing releases the GIL.
#include "bindRuntimeCommon.h"

#include "NvOnnxParser.h"

#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <vector>

namespace kiln::python
{

namespace
{

using namespace nvonnxparser;

//! The bytes of a Python buffer, copied so that the parser owns them independently of the Python object.
std::string modelBytes(py::handle model, char const* what)
{
    if (py::isinstance<py::str>(model))
    {
        throwTypeError(std::string(what) + ": expected the serialized model as bytes (got str; use "
            + "parse_from_file for paths)");
    }
    Py_buffer view{};
    if (PyObject_GetBuffer(model.ptr(), &view, PyBUF_SIMPLE) != 0)
    {
        PyErr_Clear();
        throwTypeError(std::string(what) + ": expected the serialized model as a contiguous buffer (bytes, "
            + "bytearray, memoryview, numpy array)");
    }
    std::string bytes(static_cast<char const*>(view.buf), static_cast<size_t>(view.len));
    PyBuffer_Release(&view);
    return bytes;
}

char const* cString(std::optional<std::string> const& text)
{
    return text ? text->c_str() : nullptr;
}

std::string errorText(IParserError const& error)
{
    std::string text = std::string("In node ") + std::to_string(error.node());
    if (error.nodeName() != nullptr && *error.nodeName() != '\0')
    {
        text += std::string(" with name: ") + error.nodeName();
    }
    if (error.nodeOperator() != nullptr && *error.nodeOperator() != '\0')
    {
        text += std::string(" and operator: ") + error.nodeOperator();
    }
    text += std::string(" (") + (error.func() != nullptr ? error.func() : "") + "): ";
    text += py::cast(error.code()).attr("name").cast<std::string>() + ": ";
    text += error.desc() != nullptr ? error.desc() : "";
    return text;
}

void bindParserEnums(py::module_& m)
{
    py::enum_<ErrorCode>(m, "ErrorCode", "Category of an ONNX parser error (ParserError.code()).")
        .value("SUCCESS", ErrorCode::kSUCCESS)
        .value("INTERNAL_ERROR", ErrorCode::kINTERNAL_ERROR)
        .value("MEM_ALLOC_FAILED", ErrorCode::kMEM_ALLOC_FAILED)
        .value("MODEL_DESERIALIZE_FAILED", ErrorCode::kMODEL_DESERIALIZE_FAILED)
        .value("INVALID_VALUE", ErrorCode::kINVALID_VALUE)
        .value("INVALID_GRAPH", ErrorCode::kINVALID_GRAPH)
        .value("INVALID_NODE", ErrorCode::kINVALID_NODE)
        .value("UNSUPPORTED_GRAPH", ErrorCode::kUNSUPPORTED_GRAPH)
        .value("UNSUPPORTED_NODE", ErrorCode::kUNSUPPORTED_NODE)
        .value("UNSUPPORTED_NODE_ATTR", ErrorCode::kUNSUPPORTED_NODE_ATTR)
        .value("UNSUPPORTED_NODE_INPUT", ErrorCode::kUNSUPPORTED_NODE_INPUT)
        .value("UNSUPPORTED_NODE_DATATYPE", ErrorCode::kUNSUPPORTED_NODE_DATATYPE)
        .value("UNSUPPORTED_NODE_DYNAMIC", ErrorCode::kUNSUPPORTED_NODE_DYNAMIC)
        .value("UNSUPPORTED_NODE_SHAPE", ErrorCode::kUNSUPPORTED_NODE_SHAPE)
        .value("REFIT_FAILED", ErrorCode::kREFIT_FAILED);

    py::enum_<OnnxParserFlag>(m, "OnnxParserFlag", "Options of OnnxParser (bit set in OnnxParser.flags).")
        .value("NATIVE_INSTANCENORM", OnnxParserFlag::kNATIVE_INSTANCENORM)
        .value("ENABLE_UINT8_AND_ASYMMETRIC_QUANTIZATION_DLA",
            OnnxParserFlag::kENABLE_UINT8_AND_ASYMMETRIC_QUANTIZATION_DLA)
        .value("REPORT_CAPABILITY_DLA", OnnxParserFlag::kREPORT_CAPABILITY_DLA)
        .value("ENABLE_PLUGIN_OVERRIDE", OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE)
        .value("ADJUST_FOR_DLA", OnnxParserFlag::kADJUST_FOR_DLA);
}

void bindParserError(py::module_& m)
{
    // Errors are owned by their parser; the Python object keeps the parser alive (reference_internal).
    py::class_<IParserError, std::unique_ptr<IParserError, py::nodelete>>(m, "ParserError",
        "One error recorded by an OnnxParser: code, description and the ONNX node at fault.")
        .def("code", &IParserError::code)
        .def("desc", &IParserError::desc)
        .def("file", &IParserError::file)
        .def("line", &IParserError::line)
        .def("func", &IParserError::func)
        .def("node", &IParserError::node)
        .def("node_name", &IParserError::nodeName)
        .def("node_operator", &IParserError::nodeOperator)
        .def("local_function_stack",
            [](IParserError& self) {
                std::vector<std::string> stack;
                char const* const* names = self.localFunctionStack();
                for (int32_t i = 0; names != nullptr && i < self.localFunctionStackSize(); ++i)
                {
                    stack.emplace_back(names[i] != nullptr ? names[i] : "");
                }
                return stack;
            })
        .def("local_function_stack_size", &IParserError::localFunctionStackSize)
        .def("__str__", &errorText)
        .def("__repr__", &errorText);
}

template <typename Parser>
void bindErrorAccess(py::class_<Parser, std::unique_ptr<Parser>>& cls)
{
    cls.def_property_readonly("num_errors", [](Parser& self) { return static_cast<int32_t>(self.getNbErrors()); })
        .def(
            "get_error",
            [](Parser& self, int32_t index) {
                IParserError const* error = self.getError(index);
                if (error == nullptr)
                {
                    throwIndexError("parser error index " + std::to_string(index) + " is out of range [0, "
                        + std::to_string(self.getNbErrors()) + ")");
                }
                return const_cast<IParserError*>(error);
            },
            py::arg("index"), py::return_value_policy::reference_internal)
        .def("clear_errors", &Parser::clearErrors);
}

void bindOnnxParser(py::module_& m)
{
    py::class_<IParser, std::unique_ptr<IParser>> cls(m, "OnnxParser", py::dynamic_attr(),
        "Fills an INetworkDefinition from an ONNX model. OnnxParser(network, logger).");
    cls.def(py::init([](nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger) {
        return checkNotNull(createParser(network, logger), "OnnxParser creation", "See the logger's messages.");
    }),
           py::arg("network"), py::arg("logger"), py::keep_alive<1, 2>(), py::keep_alive<1, 3>())
        .def(
            "parse",
            [](IParser& self, py::handle model, std::optional<std::string> const& path) {
                py::bytes stored(modelBytes(model, "OnnxParser.parse"));
                keepRef(selfObject(&self), "model", stored);
                std::string_view view = stored;
                py::gil_scoped_release release;
                return self.parse(view.data(), view.size(), cString(path));
            },
            py::arg("model"), py::arg("path") = py::none(),
            "Parse a serialized ONNX model; `path` (the model file's path) locates external data.")
        .def(
            "parse_from_file",
            [](IParser& self, std::string const& path) {
                py::gil_scoped_release release;
                return self.parseFromFile(
                    path.c_str(), static_cast<int>(nvinfer1::ILogger::Severity::kWARNING));
            },
            py::arg("model"), "Read and parse an ONNX model file.")
        .def(
            "parse_with_weight_descriptors",
            [](IParser& self, py::handle model) {
                py::bytes stored(modelBytes(model, "OnnxParser.parse_with_weight_descriptors"));
                keepRef(selfObject(&self), "model", stored);
                std::string_view view = stored;
                py::gil_scoped_release release;
                KILN_IGNORE_DEPRECATED_BEGIN
                return self.parseWithWeightDescriptors(view.data(), view.size());
                KILN_IGNORE_DEPRECATED_END
            },
            py::arg("model"))
        .def(
            "supports_model",
            [](IParser& self, py::handle model, std::optional<std::string> const& path) {
                std::string bytes = modelBytes(model, "OnnxParser.supports_model");
                SubGraphCollection_t collection;
                bool supported = false;
                {
                    py::gil_scoped_release release;
                    KILN_IGNORE_DEPRECATED_BEGIN
                    supported = self.supportsModel(bytes.data(), bytes.size(), collection, cString(path));
                    KILN_IGNORE_DEPRECATED_END
                }
                std::vector<std::tuple<std::vector<size_t>, bool>> subgraphs;
                for (auto const& [nodes, ok] : collection)
                {
                    subgraphs.emplace_back(nodes, ok);
                }
                return std::make_tuple(supported, subgraphs);
            },
            py::arg("model"), py::arg("path") = py::none(),
            "(supported, [(node indices, supported), ...]) for the partitions of the model.")
        .def(
            "supports_model_v2",
            [](IParser& self, py::handle model, std::optional<std::string> const& path) {
                std::string bytes = modelBytes(model, "OnnxParser.supports_model_v2");
                py::gil_scoped_release release;
                return self.supportsModelV2(bytes.data(), bytes.size(), cString(path));
            },
            py::arg("model"), py::arg("path") = py::none())
        .def_property_readonly("num_subgraphs", [](IParser& self) { return self.getNbSubgraphs(); })
        .def("is_subgraph_supported", &IParser::isSubgraphSupported, py::arg("index"))
        .def(
            "get_subgraph_nodes",
            [](IParser& self, int64_t index) {
                int64_t length = 0;
                int64_t* nodes = self.getSubgraphNodes(index, length);
                return nodes == nullptr ? std::vector<int64_t>{} : std::vector<int64_t>(nodes, nodes + length);
            },
            py::arg("index"))
        .def("supports_operator", &IParser::supportsOperator, py::arg("op_name"))
        .def_property("flags", &IParser::getFlags, &IParser::setFlags)
        .def("set_flag", &IParser::setFlag, py::arg("flag"))
        .def("clear_flag", &IParser::clearFlag, py::arg("flag"))
        .def("get_flag", &IParser::getFlag, py::arg("flag"))
        .def("get_used_vc_plugin_libraries",
            [](IParser& self) {
                int64_t count = 0;
                char const* const* libraries = self.getUsedVCPluginLibraries(count);
                std::vector<std::string> result;
                for (int64_t i = 0; libraries != nullptr && i < count; ++i)
                {
                    result.emplace_back(libraries[i]);
                }
                return result;
            })
        .def(
            "get_layer_output_tensor",
            [](IParser& self, std::string const& name, int64_t i) {
                return const_cast<nvinfer1::ITensor*>(self.getLayerOutputTensor(name.c_str(), i));
            },
            py::arg("name"), py::arg("i"), py::return_value_policy::reference)
        .def(
            "load_model_proto",
            [](IParser& self, py::handle model, std::optional<std::string> const& path) {
                py::bytes stored(modelBytes(model, "OnnxParser.load_model_proto"));
                keepRef(selfObject(&self), "model", stored);
                std::string_view view = stored;
                py::gil_scoped_release release;
                return self.loadModelProto(view.data(), view.size(), cString(path));
            },
            py::arg("model"), py::arg("path") = py::none())
        .def(
            "load_initializer",
            [](IParser& self, std::string const& name, py::handle data, size_t size) {
                // The memory must outlive the parse: keep the object that owns it.
                void const* address = reinterpret_cast<void const*>(
                    toAddress(data, "load_initializer", false, nullptr, Placement::kHOST));
                keepRef(selfObject(&self), "initializer:" + name, isRawAddress(data) ? py::none() : data);
                return self.loadInitializer(name.c_str(), address, size);
            },
            py::arg("name"), py::arg("data"), py::arg("size"))
        .def("parse_model_proto", &IParser::parseModelProto, py::call_guard<py::gil_scoped_release>())
        .def(
            "set_builder_config",
            [](IParser& self, py::object config) {
                auto const* pointer = config.is_none() ? nullptr : config.cast<nvinfer1::IBuilderConfig const*>();
                keepRef(selfObject(&self), "builder_config", config);
                return self.setBuilderConfig(pointer);
            },
            py::arg("builder_config"))
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object, py::args) {}, "Context managers have no effect (as in TensorRT).");
    bindErrorAccess(cls);
}

void bindParserRefitter(py::module_& m)
{
    py::class_<IParserRefitter, std::unique_ptr<IParserRefitter>> cls(m, "OnnxParserRefitter", py::dynamic_attr(),
        "Refits an engine's weights from an ONNX model (Kiln does not support refit yet: every call fails).");
    cls.def(py::init([](nvinfer1::IRefitter& refitter, nvinfer1::ILogger& logger) {
        return checkNotNull(
            createParserRefitter(refitter, logger), "OnnxParserRefitter creation", "See the logger's messages.");
    }),
           py::arg("refitter"), py::arg("logger"), py::keep_alive<1, 2>(), py::keep_alive<1, 3>())
        .def(
            "refit_from_bytes",
            [](IParserRefitter& self, py::handle model, std::optional<std::string> const& path) {
                std::string bytes = modelBytes(model, "OnnxParserRefitter.refit_from_bytes");
                py::gil_scoped_release release;
                return self.refitFromBytes(bytes.data(), bytes.size(), cString(path));
            },
            py::arg("model"), py::arg("path") = py::none())
        .def("refit_from_file", &IParserRefitter::refitFromFile, py::arg("model"),
            py::call_guard<py::gil_scoped_release>())
        .def(
            "load_model_proto",
            [](IParserRefitter& self, py::handle model, std::optional<std::string> const& path) {
                std::string bytes = modelBytes(model, "OnnxParserRefitter.load_model_proto");
                return self.loadModelProto(bytes.data(), bytes.size(), cString(path));
            },
            py::arg("model"), py::arg("path") = py::none())
        .def(
            "load_initializer",
            [](IParserRefitter& self, std::string const& name, py::handle data, size_t size) {
                auto const address = toAddress(data, "load_initializer", false, nullptr, Placement::kHOST);
                return self.loadInitializer(name.c_str(), reinterpret_cast<void const*>(address), size);
            },
            py::arg("name"), py::arg("data"), py::arg("size"))
        .def("refit_model_proto", &IParserRefitter::refitModelProto, py::call_guard<py::gil_scoped_release>());
    cls.def_property_readonly("num_errors", &IParserRefitter::getNbErrors)
        .def(
            "get_error",
            [](IParserRefitter& self, int32_t index) {
                IParserError const* error = self.getError(index);
                if (error == nullptr)
                {
                    throwIndexError("parser error index " + std::to_string(index) + " is out of range");
                }
                return const_cast<IParserError*>(error);
            },
            py::arg("index"), py::return_value_policy::reference_internal)
        .def("clear_errors", &IParserRefitter::clearErrors);
}

} // namespace

void bindParser(py::module_& m)
{
    bindParserEnums(m);
    bindParserError(m);
    bindOnnxParser(m);
    bindParserRefitter(m);
    m.def(
        "get_nv_onnx_parser_version", []() { return getNvOnnxParserVersion(); },
        "Version of the ONNX parser library (major * 10000 + minor * 100 + patch).");
}

} // namespace kiln::python
