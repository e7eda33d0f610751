// Bindings of IPluginV3 and its capabilities: trt.IPluginCapability, IPluginV3, IPluginV3OneCore,
// IPluginV3OneBuild, IPluginV3OneBuildV2, IPluginV3OneRuntime and IPluginCreatorV3One, all subclassable from Python
// (trampolines in pluginV3.h) as in tensorrt's class-based Python plugins. The attributes tensorrt replaces getters
// with (plugin_name, num_outputs, timing_cache_id, ...) are properties; on C++ objects they are read-only.
#include "pluginV3.h"
#include "core/runtimeTypeInfo.h"

namespace kiln::python
{

using namespace nvinfer1;

py::object capabilityToPython(IPluginCapability* cap, PluginCapabilityType type)
{
    if (cap == nullptr)
    {
        return py::none();
    }
    auto constexpr ref = py::return_value_policy::reference;
    switch (type)
    {
    case PluginCapabilityType::kCORE: return py::cast(static_cast<IPluginV3OneCore*>(cap), ref);
    case PluginCapabilityType::kBUILD:
        if (cap->getInterfaceInfo().major >= 2)
        {
            return py::cast(static_cast<v_2_0::IPluginV3OneBuild*>(cap), ref);
        }
        return py::cast(static_cast<v_1_0::IPluginV3OneBuild*>(cap), ref);
    case PluginCapabilityType::kRUNTIME: return py::cast(static_cast<IPluginV3OneRuntime*>(cap), ref);
    }
    return py::none();
}

namespace
{

template <class T, class C>
T& requirePy(C& c, char const* attribute)
{
    auto* py = kiln::safeDynamicCast<T>(&c);
    if (py == nullptr)
    {
        throw py::attribute_error(std::string(attribute) + " is read-only on a C++ plugin");
    }
    return *py;
}

std::string text(char const* s)
{
    return s != nullptr ? s : "";
}

py::object optionalText(char const* s)
{
    return s != nullptr ? py::object(py::str(s)) : py::object(py::none());
}

void bindPluginClasses(py::module_& m)
{
    py::class_<IPluginCapability, IVersionedInterface>(m, "IPluginCapability", "Base of the IPluginV3 capabilities.");

    py::class_<IPluginV3, IVersionedInterface, PyPluginV3>(m, "IPluginV3",
        "A plugin of the V3 generation. Subclass it (usually together with IPluginV3OneCore, IPluginV3OneBuild and "
        "IPluginV3OneRuntime) and implement get_capability_interface(type) and clone().")
        .def(py::init_alias<>())
        .def(
            "get_capability_interface",
            [](IPluginV3& p, PluginCapabilityType type) {
                IPluginCapability* cap = nullptr;
                {
                    py::gil_scoped_release release;
                    cap = p.getCapabilityInterface(type);
                }
                return capabilityToPython(cap, type);
            },
            py::arg("type"), py::keep_alive<0, 1>())
        .def("clone",
            [](IPluginV3& p) -> py::object {
                if (kiln::safeDynamicCast<PyBacked>(&p) != nullptr)
                {
                    throw py::type_error("clone() is not implemented by this Python plugin");
                }
                IPluginV3* c = nullptr;
                {
                    py::gil_scoped_release release;
                    c = p.clone();
                }
                return py::cast(c, py::return_value_policy::take_ownership);
            })
        .def("destroy", [](IPluginV3&) {});

    py::class_<IPluginV3OneCore, IPluginCapability, PyPluginV3OneCore>(m, "IPluginV3OneCore",
        "Core capability: the identity attributes plugin_name, plugin_version and plugin_namespace.")
        .def(py::init_alias<>())
        .def_property(
            "plugin_name", [](IPluginV3OneCore& c) { return text(c.getPluginName()); },
            [](IPluginV3OneCore& c, std::string const& v) { requirePy<PyPluginV3OneCore>(c, "plugin_name").mName = v; })
        .def_property(
            "plugin_version", [](IPluginV3OneCore& c) { return text(c.getPluginVersion()); },
            [](IPluginV3OneCore& c, std::string const& v) {
                requirePy<PyPluginV3OneCore>(c, "plugin_version").mVersion = v;
            })
        .def_property(
            "plugin_namespace", [](IPluginV3OneCore& c) { return text(c.getPluginNamespace()); },
            [](IPluginV3OneCore& c, std::string const& v) {
                requirePy<PyPluginV3OneCore>(c, "plugin_namespace").mNamespace = v;
            });

    using BuildV1 = v_1_0::IPluginV3OneBuild;
    py::class_<BuildV1, IPluginCapability, PyPluginV3OneBuild>(m, "IPluginV3OneBuild",
        "Build capability: set num_outputs and implement configure_plugin, get_output_data_types, "
        "get_output_shapes and supports_format_combination; get_workspace_size and get_valid_tactics are optional.")
        .def(py::init_alias<>())
        .def_property(
            "num_outputs", [](BuildV1& b) { return b.getNbOutputs(); },
            [](BuildV1& b, int32_t n) {
                if (n < 1)
                {
                    throw py::value_error("num_outputs must be positive");
                }
                requirePy<PyBuildAttributes>(b, "num_outputs").mNbOutputs = n;
            })
        .def_property(
            "timing_cache_id", [](BuildV1& b) { return optionalText(b.getTimingCacheID()); },
            [](BuildV1& b, py::object v) {
                auto& a = requirePy<PyBuildAttributes>(b, "timing_cache_id");
                a.mHasTimingCacheId = !v.is_none();
                a.mTimingCacheId = v.is_none() ? "" : v.cast<std::string>();
            })
        .def_property(
            "format_combination_limit", [](BuildV1& b) { return b.getFormatCombinationLimit(); },
            [](BuildV1& b, int32_t v) {
                requirePy<PyBuildAttributes>(b, "format_combination_limit").mFormatCombinationLimit = v;
            })
        .def_property(
            "metadata_string", [](BuildV1& b) { return optionalText(b.getMetadataString()); },
            [](BuildV1& b, py::object v) {
                auto& a = requirePy<PyBuildAttributes>(b, "metadata_string");
                a.mHasMetadata = !v.is_none();
                a.mMetadata = v.is_none() ? "" : v.cast<std::string>();
            })
        .def(
            "get_workspace_size", [](BuildV1&, py::object, py::object) { return 0; }, py::arg("input_desc"),
            py::arg("output_desc"))
        .def("get_valid_tactics", [](BuildV1&) { return std::vector<int32_t>{}; });

    py::class_<v_2_0::IPluginV3OneBuild, BuildV1, PyPluginV3OneBuildV2>(m, "IPluginV3OneBuildV2",
        "Build capability, version 2: adds get_aliased_input(output_index) (default -1, no aliasing).")
        .def(py::init_alias<>())
        .def(
            "get_aliased_input", [](v_2_0::IPluginV3OneBuild&, int32_t) { return -1; }, py::arg("output_index"));

    py::class_<IPluginV3OneRuntime, IPluginCapability, PyPluginV3OneRuntime>(m, "IPluginV3OneRuntime",
        "Runtime capability: implement on_shape_change, enqueue, attach_to_context and get_fields_to_serialize; "
        "set_tactic is optional.")
        .def(py::init_alias<>())
        .def("set_tactic", [](IPluginV3OneRuntime&, int32_t) {}, py::arg("tactic"));
}

void bindCreator(py::module_& m)
{
    py::class_<IPluginCreatorV3One, IPluginCreatorInterface, PyPluginCreatorV3One>(m, "IPluginCreatorV3One",
        "Creator of IPluginV3 plugins. Subclass it: set name, plugin_version, plugin_namespace and field_names, "
        "and implement create_plugin(name, field_collection, phase).")
        .def(py::init_alias<>())
        .def_property(
            "name", [](IPluginCreatorV3One& c) { return text(c.getPluginName()); },
            [](IPluginCreatorV3One& c, std::string const& v) { requirePy<PyPluginCreatorV3One>(c, "name").mName = v; })
        .def_property(
            "plugin_version", [](IPluginCreatorV3One& c) { return text(c.getPluginVersion()); },
            [](IPluginCreatorV3One& c, std::string const& v) {
                requirePy<PyPluginCreatorV3One>(c, "plugin_version").mVersion = v;
            })
        .def_property(
            "plugin_namespace", [](IPluginCreatorV3One& c) { return text(c.getPluginNamespace()); },
            [](IPluginCreatorV3One& c, std::string const& v) {
                requirePy<PyPluginCreatorV3One>(c, "plugin_namespace").mNamespace = v;
            })
        .def_property(
            "field_names",
            [](IPluginCreatorV3One& c) -> py::object {
                if (auto* py = kiln::safeDynamicCast<PyPluginCreatorV3One>(&c))
                {
                    return py->mFieldNames ? py->mFieldNames : py::cast(PyPluginFieldCollection());
                }
                return py::cast(PyPluginFieldCollection::fromC(c.getFieldNames()));
            },
            [](IPluginCreatorV3One& c, py::object fields) {
                if (!py::isinstance<PyPluginFieldCollection>(fields))
                {
                    fields = py::cast(PyPluginFieldCollection(fields.cast<std::vector<py::object>>()));
                }
                requirePy<PyPluginCreatorV3One>(c, "field_names").mFieldNames = fields;
            })
        .def(
            "create_plugin",
            [](IPluginCreatorV3One& c, std::string const& name, PyPluginFieldCollection& fc, TensorRTPhase phase) {
                IPluginV3* p = nullptr;
                {
                    PluginFieldCollection const* view = fc.view();
                    py::gil_scoped_release release;
                    p = c.createPlugin(name.c_str(), view, phase);
                }
                return py::cast(p, py::return_value_policy::take_ownership);
            },
            py::arg("name"), py::arg("field_collection"), py::arg("phase") = TensorRTPhase::kBUILD);
}

} // namespace

void bindPluginV3(py::module_& m)
{
    bindPluginClasses(m);
    bindCreator(m);
}

} // namespace kiln::python
