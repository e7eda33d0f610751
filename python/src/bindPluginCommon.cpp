// Bindings shared by every plugin generation: PluginField(Type)/PluginFieldCollection, the tensor descriptors,
// shape expressions (IDimensionExpr, IExprBuilder, DimsExprs), the phase/capability enums, IVersionedInterface,
// IPluginCreatorInterface, IPluginResource(Context), and the plugin registry (IPluginRegistry,
// get_plugin_registry, init_libnvinfer_plugins). Creators come back from the registry downcast to their Python
// type: a creator written in Python as the very same Python object.
#include "NvInferPlugin.h"
#include "pluginCommon.h"
#include "core/runtimeTypeInfo.h"

#include <map>
#include <mutex>
#include <utility>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

//! Python creators registered with a registry, kept alive until deregistered (key: registry, creator).
std::map<std::pair<void const*, void const*>, py::object>& registeredCreators()
{
    static auto* map = new std::map<std::pair<void const*, void const*>, py::object>(); // never destroyed
    return *map;
}

//! Loggers handed to init_libnvinfer_plugins; the plugin library keeps the pointer, so they live forever.
std::vector<py::object>& keptLoggers()
{
    static auto* list = new std::vector<py::object>();
    return *list;
}

//! Error recorders set on registries from Python, kept alive while set.
std::map<void const*, py::object>& keptRecorders()
{
    static auto* map = new std::map<void const*, py::object>();
    return *map;
}

py::list creatorsToList(IPluginCreatorInterface* const* creators, int32_t n)
{
    py::list out;
    for (int32_t i = 0; creators != nullptr && i < n; ++i)
    {
        out.append(creatorToPython(creators[i]));
    }
    return out;
}

void bindEnums(py::module_& m)
{
    py::enum_<PluginFieldType>(m, "PluginFieldType", "The type of the data of a PluginField.")
        .value("FLOAT16", PluginFieldType::kFLOAT16)
        .value("FLOAT32", PluginFieldType::kFLOAT32)
        .value("FLOAT64", PluginFieldType::kFLOAT64)
        .value("INT8", PluginFieldType::kINT8)
        .value("INT16", PluginFieldType::kINT16)
        .value("INT32", PluginFieldType::kINT32)
        .value("CHAR", PluginFieldType::kCHAR)
        .value("DIMS", PluginFieldType::kDIMS)
        .value("UNKNOWN", PluginFieldType::kUNKNOWN)
        .value("BF16", PluginFieldType::kBF16)
        .value("INT64", PluginFieldType::kINT64)
        .value("FP8", PluginFieldType::kFP8)
        .value("INT4", PluginFieldType::kINT4)
        .value("FP4", PluginFieldType::kFP4);

    py::enum_<TensorRTPhase>(m, "TensorRTPhase", "The phase in which a plugin is created.")
        .value("BUILD", TensorRTPhase::kBUILD)
        .value("RUNTIME", TensorRTPhase::kRUNTIME);

    py::enum_<PluginCapabilityType>(m, "PluginCapabilityType", "The capability interfaces of an IPluginV3.")
        .value("CORE", PluginCapabilityType::kCORE)
        .value("BUILD", PluginCapabilityType::kBUILD)
        .value("RUNTIME", PluginCapabilityType::kRUNTIME);

    py::enum_<DimensionOperation>(m, "DimensionOperation", "Binary operations of IExprBuilder.operation().")
        .value("SUM", DimensionOperation::kSUM)
        .value("PROD", DimensionOperation::kPROD)
        .value("MAX", DimensionOperation::kMAX)
        .value("MIN", DimensionOperation::kMIN)
        .value("SUB", DimensionOperation::kSUB)
        .value("EQUAL", DimensionOperation::kEQUAL)
        .value("LESS", DimensionOperation::kLESS)
        .value("FLOOR_DIV", DimensionOperation::kFLOOR_DIV)
        .value("CEIL_DIV", DimensionOperation::kCEIL_DIV);

    KILN_IGNORE_DEPRECATED_BEGIN
    py::enum_<PluginCreatorVersion>(m, "PluginCreatorVersion", "Versions of the IPluginCreator interface.")
        .value("V1", PluginCreatorVersion::kV1)
        .value("V1_PYTHON", PluginCreatorVersion::kV1_PYTHON);
    KILN_IGNORE_DEPRECATED_END

    py::enum_<APILanguage>(m, "APILanguage", "The language an interface implementation is written in.")
        .value("CPP", APILanguage::kCPP)
        .value("PYTHON", APILanguage::kPYTHON);
}

void bindFields(py::module_& m)
{
    py::class_<PyPluginField>(m, "PluginField",
        "A named, typed array of plugin parameters. The data (a numpy array, converted to the element type of "
        "the field type) is kept alive by the field.")
        .def(py::init<std::string, py::object, PluginFieldType>(), py::arg("name") = "",
            py::arg("data") = py::none(), py::arg("type") = PluginFieldType::kUNKNOWN)
        .def_property("name", &PyPluginField::name, &PyPluginField::setName)
        .def_property("data", &PyPluginField::data, &PyPluginField::setData)
        .def_property("type", &PyPluginField::type, &PyPluginField::setType)
        .def_property_readonly("size", &PyPluginField::length)
        .def("__repr__", [](PyPluginField const& f) {
            return "PluginField(name='" + f.name() + "', type=" + py::repr(py::cast(f.type())).cast<std::string>()
                + ", size=" + std::to_string(f.length()) + ")";
        });

    py::class_<PyPluginFieldCollection>(m, "PluginFieldCollection", "A list of PluginField objects.")
        .def(py::init<>())
        .def(py::init([](py::iterable fields) {
            std::vector<py::object> list;
            for (auto f : fields)
            {
                list.push_back(py::reinterpret_borrow<py::object>(f));
            }
            return PyPluginFieldCollection(std::move(list));
        }),
            py::arg("fields"))
        .def("__len__", [](PyPluginFieldCollection& c) { return c.fields().size(); })
        .def("__getitem__",
            [](PyPluginFieldCollection& c, py::ssize_t i) {
                auto const n = static_cast<py::ssize_t>(c.fields().size());
                if (i < 0)
                {
                    i += n;
                }
                if (i < 0 || i >= n)
                {
                    throw py::index_error("PluginFieldCollection index out of range");
                }
                return c.fields()[static_cast<size_t>(i)];
            })
        .def("__setitem__",
            [](PyPluginFieldCollection& c, py::ssize_t i, PyPluginField const& f) {
                auto const n = static_cast<py::ssize_t>(c.fields().size());
                if (i < 0)
                {
                    i += n;
                }
                if (i < 0 || i >= n)
                {
                    throw py::index_error("PluginFieldCollection index out of range");
                }
                c.fields()[static_cast<size_t>(i)] = py::cast(f);
            })
        .def("__iter__", [](PyPluginFieldCollection& c) { return py::iter(py::cast(c.fields())); })
        .def("append", [](PyPluginFieldCollection& c, PyPluginField const& f) { c.fields().push_back(py::cast(f)); })
        .def_property_readonly("nb_fields", [](PyPluginFieldCollection& c) { return c.fields().size(); });
}

void bindDescriptors(py::module_& m)
{
    py::class_<PluginTensorDesc>(m, "PluginTensorDesc", "Dimensions, type, format and scale of a plugin tensor.")
        .def(py::init<>())
        .def_property(
            "dims", [](PluginTensorDesc const& d) { return d.dims; }, [](PluginTensorDesc& d, Dims v) { d.dims = v; })
        .def_readwrite("type", &PluginTensorDesc::type)
        .def_readwrite("format", &PluginTensorDesc::format)
        .def_readwrite("scale", &PluginTensorDesc::scale);

    py::class_<DynamicPluginTensorDesc>(m, "DynamicPluginTensorDesc",
        "A plugin tensor at build time: its descriptor and the min/opt/max of the optimization profile.")
        .def(py::init<>())
        .def_readwrite("desc", &DynamicPluginTensorDesc::desc)
        .def_property(
            "min", [](DynamicPluginTensorDesc const& d) { return d.min; },
            [](DynamicPluginTensorDesc& d, Dims v) { d.min = v; })
        .def_property(
            "max", [](DynamicPluginTensorDesc const& d) { return d.max; },
            [](DynamicPluginTensorDesc& d, Dims v) { d.max = v; })
        .def_property(
            "opt", [](DynamicPluginTensorDesc const& d) { return d.opt; },
            [](DynamicPluginTensorDesc& d, Dims v) { d.opt = v; });
}

void bindExpressions(py::module_& m)
{
    py::class_<IDimensionExpr, std::unique_ptr<IDimensionExpr, py::nodelete>>(m, "IDimensionExpr",
        "A shape expression; valid only inside the shape callback that received or built it.")
        .def("is_constant", &IDimensionExpr::isConstant)
        .def("get_constant_value", &IDimensionExpr::getConstantValue)
        .def("is_size_tensor", &IDimensionExpr::isSizeTensor);

    py::class_<IExprBuilder, std::unique_ptr<IExprBuilder, py::nodelete>>(m, "IExprBuilder",
        "Builds shape expressions inside get_output_shapes / get_output_dimensions.")
        .def("constant", &IExprBuilder::constant, py::arg("value"), py::return_value_policy::reference)
        .def(
            "operation",
            [](IExprBuilder& b, DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second) {
                IDimensionExpr const* e = b.operation(op, first, second);
                if (e == nullptr)
                {
                    throw py::value_error("IExprBuilder.operation: invalid operation");
                }
                return e;
            },
            py::arg("op"), py::arg("first"), py::arg("second"), py::return_value_policy::reference)
        .def(
            "declare_size_tensor",
            [](IExprBuilder& b, int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper) {
                IDimensionExpr const* e = b.declareSizeTensor(outputIndex, opt, upper);
                if (e == nullptr)
                {
                    throw py::value_error(
                        "IExprBuilder.declare_size_tensor failed for output " + std::to_string(outputIndex));
                }
                return e;
            },
            py::arg("output_index"), py::arg("opt"), py::arg("upper"), py::return_value_policy::reference);

    py::class_<DimsExprs>(m, "DimsExprs", "Like Dims, but each extent is an IDimensionExpr.")
        .def(py::init([]() {
            DimsExprs e{};
            e.nbDims = 0;
            return e;
        }))
        .def(py::init([](int32_t nbDims) {
            if (nbDims < 0 || nbDims > Dims::MAX_DIMS)
            {
                throw py::value_error("DimsExprs: rank must be in [0, 8]");
            }
            DimsExprs e{};
            e.nbDims = nbDims;
            return e;
        }))
        .def(py::init([](DimsExprs const& other) { return other; }))
        .def(py::init([](std::vector<IDimensionExpr const*> const& exprs) {
            if (exprs.size() > static_cast<size_t>(Dims::MAX_DIMS))
            {
                throw py::value_error("DimsExprs: at most 8 extents");
            }
            DimsExprs e{};
            e.nbDims = static_cast<int32_t>(exprs.size());
            for (size_t i = 0; i < exprs.size(); ++i)
            {
                e.d[i] = exprs[i];
            }
            return e;
        }))
        .def_readwrite("nbDims", &DimsExprs::nbDims)
        .def("__len__", [](DimsExprs const& e) { return e.nbDims; })
        .def(
            "__getitem__",
            [](DimsExprs const& e, int32_t i) {
                if (i < 0)
                {
                    i += e.nbDims;
                }
                if (i < 0 || i >= e.nbDims)
                {
                    throw py::index_error("DimsExprs index out of range");
                }
                return e.d[i];
            },
            py::return_value_policy::reference)
        .def("__setitem__", [](DimsExprs& e, int32_t i, IDimensionExpr const* v) {
            if (i < 0)
            {
                i += e.nbDims;
            }
            if (i < 0 || i >= e.nbDims)
            {
                throw py::index_error("DimsExprs index out of range");
            }
            e.d[i] = v;
        });
}

void bindInterfaces(py::module_& m)
{
    py::class_<InterfaceInfo>(m, "InterfaceInfo", "Kind and version of an IVersionedInterface.")
        .def_property_readonly("kind", [](InterfaceInfo const& i) { return std::string(i.kind ? i.kind : ""); })
        .def_readonly("major", &InterfaceInfo::major)
        .def_readonly("minor", &InterfaceInfo::minor);

    py::class_<IVersionedInterface>(m, "IVersionedInterface", "Base of interfaces with a kind and a version.")
        .def_property_readonly("api_language", &IVersionedInterface::getAPILanguage)
        .def_property_readonly("interface_info", &IVersionedInterface::getInterfaceInfo);

    py::class_<IPluginCreatorInterface, IVersionedInterface>(m, "IPluginCreatorInterface",
        "Base of every plugin creator (IPluginCreator, IPluginCreatorV3One).");

    py::class_<IPluginResourceContext, std::unique_ptr<IPluginResourceContext, py::nodelete>>(m,
        "IPluginResourceContext", "Resources of an execution context offered to attach_to_context().")
        .def_property_readonly("gpu_allocator",
            [](IPluginResourceContext const& c) { return py::cast(c.getGpuAllocator(), py::return_value_policy::reference); })
        .def_property_readonly("error_recorder", [](IPluginResourceContext const& c) {
            return py::cast(c.getErrorRecorder(), py::return_value_policy::reference);
        });

    bindPluginResource(m);
}

void bindRegistry(py::module_& m)
{
    KILN_IGNORE_DEPRECATED_BEGIN
    py::class_<IPluginRegistry, std::unique_ptr<IPluginRegistry, py::nodelete>>(m, "IPluginRegistry",
        "A registry of plugin creators (get_plugin_registry() is the global one).")
        .def(
            "register_creator",
            [](IPluginRegistry& r, py::object creator, std::string const& pluginNamespace) {
                auto* c = creator.cast<IPluginCreatorInterface*>();
                bool ok = false;
                {
                    py::gil_scoped_release release;
                    ok = r.registerCreator(*c, pluginNamespace.c_str());
                }
                if (ok && kiln::safeDynamicCast<PyBacked>(c) != nullptr)
                {
                    registeredCreators()[{&r, c}] = creator;
                }
                return ok;
            },
            py::arg("creator"), py::arg("plugin_namespace") = "")
        .def(
            "deregister_creator",
            [](IPluginRegistry& r, py::object creator) {
                auto* c = creator.cast<IPluginCreatorInterface*>();
                bool ok = false;
                {
                    py::gil_scoped_release release;
                    ok = r.deregisterCreator(*c);
                }
                if (ok)
                {
                    registeredCreators().erase({&r, c});
                }
                return ok;
            },
            py::arg("creator"))
        .def(
            "get_creator",
            [](IPluginRegistry& r, std::string const& name, std::string const& version, std::string const& ns) {
                return creatorToPython(r.getCreator(name.c_str(), version.c_str(), ns.c_str()));
            },
            py::arg("name"), py::arg("version"), py::arg("plugin_namespace") = "")
        .def(
            "get_plugin_creator",
            [](IPluginRegistry& r, std::string const& name, std::string const& version, std::string const& ns) {
                return creatorToPython(r.getPluginCreator(name.c_str(), version.c_str(), ns.c_str()));
            },
            py::arg("type"), py::arg("version"), py::arg("plugin_namespace") = "")
        .def_property_readonly("plugin_creator_list",
            [](IPluginRegistry& r) {
                int32_t n = 0;
                IPluginCreator* const* list = r.getPluginCreatorList(&n);
                py::list out;
                for (int32_t i = 0; list != nullptr && i < n; ++i)
                {
                    out.append(creatorToPython(list[i]));
                }
                return out;
            })
        .def_property_readonly("all_creators",
            [](IPluginRegistry& r) {
                int32_t n = 0;
                IPluginCreatorInterface* const* list = r.getAllCreators(&n);
                return creatorsToList(list, n);
            })
        .def_property_readonly("all_creators_recursive",
            [](IPluginRegistry& r) {
                int32_t n = 0;
                IPluginCreatorInterface* const* list = r.getAllCreatorsRecursive(&n);
                return creatorsToList(list, n);
            })
        .def_property("parent_search_enabled", &IPluginRegistry::isParentSearchEnabled,
            &IPluginRegistry::setParentSearchEnabled)
        .def_property(
            "error_recorder",
            [](IPluginRegistry& r) { return py::cast(r.getErrorRecorder(), py::return_value_policy::reference); },
            [](IPluginRegistry& r, py::object recorder) {
                r.setErrorRecorder(recorder.is_none() ? nullptr : recorder.cast<IErrorRecorder*>());
                keptRecorders()[&r] = recorder; // the registry keeps the pointer
            })
        .def(
            "load_library",
            [](IPluginRegistry& r, std::string const& path) -> py::object {
                void* handle = nullptr;
                {
                    py::gil_scoped_release release;
                    handle = r.loadLibrary(path.c_str());
                }
                if (handle == nullptr)
                {
                    return py::none();
                }
                return py::int_(reinterpret_cast<uintptr_t>(handle));
            },
            py::arg("plugin_path"))
        .def(
            "deregister_library",
            [](IPluginRegistry& r, uintptr_t handle) {
                py::gil_scoped_release release;
                r.deregisterLibrary(reinterpret_cast<void*>(handle));
            },
            py::arg("handle"))
        .def(
            "acquire_plugin_resource",
            [](IPluginRegistry& r, std::string const& key, IPluginResource* resource) {
                IPluginResource* out = nullptr;
                {
                    py::gil_scoped_release release;
                    out = r.acquirePluginResource(key.c_str(), resource);
                }
                return resourceToPython(out);
            },
            py::arg("key"), py::arg("resource"))
        .def(
            "release_plugin_resource",
            [](IPluginRegistry& r, std::string const& key) {
                py::gil_scoped_release release;
                return r.releasePluginResource(key.c_str());
            },
            py::arg("key"));
    KILN_IGNORE_DEPRECATED_END

    m.def(
        "get_plugin_registry", []() { return getPluginRegistry(); }, py::return_value_policy::reference,
        "The global plugin registry.");

    m.def(
        "init_libnvinfer_plugins",
        [](py::object logger, std::string const& ns) {
            void* ptr = nullptr;
            if (!logger.is_none())
            {
                ptr = logger.cast<ILogger*>();
                keptLoggers().push_back(logger);
            }
            py::gil_scoped_release release;
            return initLibNvInferPlugins(ptr, ns.c_str());
        },
        py::arg("logger"), py::arg("namespace"),
        "Register Kiln's standard plugins (LReLU_TRT, ...) with the global registry under `namespace`.");
}

} // namespace

py::object creatorToPython(IPluginCreatorInterface* creator)
{
    if (creator == nullptr)
    {
        return py::none();
    }
    InterfaceInfo const info = creator->getInterfaceInfo();
    std::string const kind = info.kind != nullptr ? info.kind : "";
    KILN_IGNORE_DEPRECATED_BEGIN
    if (kind == "PLUGIN CREATOR_V1")
    {
        return py::cast(static_cast<IPluginCreator*>(creator), py::return_value_policy::reference);
    }
    KILN_IGNORE_DEPRECATED_END
    if (kind == "PLUGIN CREATOR_V3ONE")
    {
        return py::cast(static_cast<IPluginCreatorV3One*>(creator), py::return_value_policy::reference);
    }
    return py::cast(creator, py::return_value_policy::reference);
}

void bindPluginCommon(py::module_& m)
{
    bindEnums(m);
    bindFields(m);
    bindDescriptors(m);
    bindExpressions(m);
    bindInterfaces(m);
    bindRegistry(m);
    bindPluginBuffers(m);
}

} // namespace kiln::python
