// Bindings of the IPluginV2 family and IPluginCreator: trt.IPluginV2, IPluginV2Ext, IPluginV2IOExt (C++ plugins
// seen from Python), trt.IPluginV2DynamicExt and trt.IPluginCreator (also subclassable from Python; trampolines in
// pluginV2.h). C++ plugins returned to Python are owned by Python and destroy()ed when the Python object dies.
#include "pluginV2.h"
#include "core/runtimeTypeInfo.h"

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

PyPluginV2DynamicExt* pyPlugin(IPluginV2& p)
{
    return kiln::safeDynamicCast<PyPluginV2DynamicExt>(&p);
}

PyPluginV2DynamicExt& requirePyPlugin(IPluginV2& p, char const* attribute)
{
    auto* py = pyPlugin(p);
    if (py == nullptr)
    {
        throw py::attribute_error(std::string(attribute) + " is read-only on a C++ plugin");
    }
    return *py;
}

PyPluginCreatorV1& requirePyCreator(IPluginCreator& c, char const* attribute)
{
    auto* py = kiln::safeDynamicCast<PyPluginCreatorV1>(&c);
    if (py == nullptr)
    {
        throw py::attribute_error(std::string(attribute) + " is read-only on a C++ plugin creator");
    }
    return *py;
}

py::bytes serializeToBytes(IPluginV2& p)
{
    size_t const size = p.getSerializationSize();
    std::string buffer(size, '\0');
    p.serialize(buffer.data());
    return py::bytes(buffer);
}

void bindPlugins(py::module_& m)
{
    py::class_<IPluginV2, PluginV2Holder<IPluginV2>>(m, "IPluginV2",
        "A plugin of the IPluginV2 family (deprecated in TensorRT 10). Implement IPluginV2DynamicExt or IPluginV3 "
        "in Python.")
        .def_property(
            "num_outputs", [](IPluginV2& p) { return p.getNbOutputs(); },
            [](IPluginV2& p, int32_t n) {
                if (n < 1)
                {
                    throw py::value_error("num_outputs must be positive");
                }
                requirePyPlugin(p, "num_outputs").mNbOutputs = n;
            })
        .def_property(
            "plugin_type",
            [](IPluginV2& p) -> py::object {
                auto* py = pyPlugin(p);
                if (py != nullptr && !py->mTypeSet)
                {
                    return py::none();
                }
                char const* t = p.getPluginType();
                return py::str(t != nullptr ? t : "");
            },
            [](IPluginV2& p, std::string const& v) {
                auto& py = requirePyPlugin(p, "plugin_type");
                py.mPluginType = v;
                py.mTypeSet = true;
            })
        .def_property(
            "plugin_version",
            [](IPluginV2& p) -> py::object {
                auto* py = pyPlugin(p);
                if (py != nullptr && !py->mVersionSet)
                {
                    return py::none();
                }
                char const* v = p.getPluginVersion();
                return py::str(v != nullptr ? v : "");
            },
            [](IPluginV2& p, std::string const& v) {
                auto& py = requirePyPlugin(p, "plugin_version");
                py.mPluginVersion = v;
                py.mVersionSet = true;
            })
        .def_property(
            "plugin_namespace",
            [](IPluginV2& p) {
                char const* n = p.getPluginNamespace();
                return std::string(n != nullptr ? n : "");
            },
            [](IPluginV2& p, std::string const& v) { p.setPluginNamespace(v.c_str()); })
        .def_property_readonly("tensorrt_version", [](IPluginV2& p) { return p.getTensorRTVersion(); })
        .def_property_readonly("serialization_size", [](IPluginV2& p) { return p.getSerializationSize(); })
        .def("get_serialization_size", [](IPluginV2& p) { return p.getSerializationSize(); })
        .def("serialize", &serializeToBytes)
        .def("initialize",
            [](IPluginV2& p) {
                if (p.initialize() != 0)
                {
                    throw std::runtime_error("initialize() failed");
                }
            })
        .def("terminate", [](IPluginV2& p) { p.terminate(); })
        .def("destroy",
            [](IPluginV2& p) {
                if (pyPlugin(p) == nullptr)
                {
                    throw py::type_error("a C++ plugin held by Python is destroyed when the Python object is released");
                }
            })
        .def("clone", [](IPluginV2& p) {
            if (pyPlugin(p) != nullptr)
            {
                throw py::type_error("clone() is not implemented by this Python plugin");
            }
            return pluginV2ToPython(p.clone(), py::return_value_policy::take_ownership);
        });

    py::class_<IPluginV2Ext, IPluginV2, PluginV2Holder<IPluginV2Ext>>(m, "IPluginV2Ext",
        "IPluginV2 with per-output data types (deprecated).")
        .def(
            "get_output_datatype",
            [](IPluginV2Ext& p, int32_t index, std::vector<DataType> const& inputTypes) {
                if (pyPlugin(p) != nullptr)
                {
                    return inputTypes.empty() ? DataType::kFLOAT : inputTypes[0];
                }
                return p.getOutputDataType(index, inputTypes.data(), static_cast<int32_t>(inputTypes.size()));
            },
            py::arg("index"), py::arg("input_types"));

    py::class_<IPluginV2IOExt, IPluginV2Ext, PluginV2Holder<IPluginV2IOExt>>(m, "IPluginV2IOExt",
        "IPluginV2Ext with per-tensor formats (deprecated); C++ plugins only.");

    py::class_<IPluginV2DynamicExt, IPluginV2Ext, PyPluginV2DynamicExt, PluginV2Holder<IPluginV2DynamicExt>>(m,
        "IPluginV2DynamicExt",
        "A plugin with dynamic shapes. Subclass it in Python: set num_outputs, plugin_type, plugin_version and "
        "plugin_namespace in __init__ and implement the methods of tensorrt.IPluginV2DynamicExt.")
        .def(py::init([]() { return new PyPluginV2DynamicExt(); }))
        .def(py::init([](IPluginV2DynamicExt& other) {
            auto* p = new PyPluginV2DynamicExt();
            if (auto* src = kiln::safeDynamicCast<PyPluginV2DynamicExt>(&other))
            {
                p->mNbOutputs = src->mNbOutputs;
                p->mPluginType = src->mPluginType;
                p->mPluginVersion = src->mPluginVersion;
                p->mNamespace = src->mNamespace;
                p->mTypeSet = src->mTypeSet;
                p->mVersionSet = src->mVersionSet;
            }
            return p;
        }))
        .def(
            "get_workspace_size", [](IPluginV2DynamicExt&, py::object, py::object) { return 0; },
            py::arg("input_desc"), py::arg("output_desc"))
        .def(
            "configure_plugin", [](IPluginV2DynamicExt&, py::object, py::object) {}, py::arg("pos"),
            py::arg("in_out"));

    py::class_<IPluginCreator, IPluginCreatorInterface, PyPluginCreatorV1>(m, "IPluginCreator",
        "Creator of IPluginV2-family plugins. Subclass it in Python: set name, plugin_version, plugin_namespace "
        "and field_names, implement create_plugin(name, field_collection) and deserialize_plugin(name, data).")
        .def(py::init([]() { return new PyPluginCreatorV1(); }))
        .def_property(
            "name",
            [](IPluginCreator& c) {
                char const* n = c.getPluginName();
                return std::string(n != nullptr ? n : "");
            },
            [](IPluginCreator& c, std::string const& v) { requirePyCreator(c, "name").mName = v; })
        .def_property(
            "plugin_version",
            [](IPluginCreator& c) {
                char const* v = c.getPluginVersion();
                return std::string(v != nullptr ? v : "");
            },
            [](IPluginCreator& c, std::string const& v) { requirePyCreator(c, "plugin_version").mVersion = v; })
        .def_property(
            "plugin_namespace",
            [](IPluginCreator& c) {
                char const* n = c.getPluginNamespace();
                return std::string(n != nullptr ? n : "");
            },
            [](IPluginCreator& c, std::string const& v) { c.setPluginNamespace(v.c_str()); })
        .def_property(
            "field_names",
            [](IPluginCreator& c) -> py::object {
                if (auto* py = kiln::safeDynamicCast<PyPluginCreatorV1>(&c))
                {
                    return py->mFieldNames ? py->mFieldNames : py::cast(PyPluginFieldCollection());
                }
                return py::cast(PyPluginFieldCollection::fromC(c.getFieldNames()));
            },
            [](IPluginCreator& c, py::object fields) {
                if (!py::isinstance<PyPluginFieldCollection>(fields))
                {
                    fields = py::cast(PyPluginFieldCollection(fields.cast<std::vector<py::object>>()));
                }
                requirePyCreator(c, "field_names").mFieldNames = fields;
            })
        .def(
            "create_plugin",
            [](IPluginCreator& c, std::string const& name, PyPluginFieldCollection& fc, py::object /*phase*/) {
                IPluginV2* p = nullptr;
                {
                    PluginFieldCollection const* view = fc.view();
                    py::gil_scoped_release release;
                    p = c.createPlugin(name.c_str(), view);
                }
                return pluginV2ToPython(p, py::return_value_policy::take_ownership);
            },
            py::arg("name"), py::arg("field_collection"), py::arg("phase") = py::none())
        .def(
            "deserialize_plugin",
            [](IPluginCreator& c, std::string const& name, py::buffer data) {
                py::buffer_info info = data.request();
                IPluginV2* p = nullptr;
                {
                    py::gil_scoped_release release;
                    p = c.deserializePlugin(name.c_str(), info.ptr, static_cast<size_t>(info.size * info.itemsize));
                }
                return pluginV2ToPython(p, py::return_value_policy::take_ownership);
            },
            py::arg("name"), py::arg("serialized_plugin"));
}

KILN_IGNORE_DEPRECATED_END

} // namespace

void bindPluginV2(py::module_& m)
{
    bindPlugins(m);
}

} // namespace kiln::python
