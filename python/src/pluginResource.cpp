// IPluginResource written in Python: the trampoline that forwards release()/clone() to Python, and the owner
// proxy that C++ receives from clone() (the registry deletes clones; deleting the proxy drops the Python object).
#include "pluginCommon.h"
#include "core/runtimeTypeInfo.h"

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

//! Holds the Python object of a cloned resource for the registry, which deletes it after release().
class PyResourceOwner final : public IPluginResource
{
public:
    PyResourceOwner(py::object object, IPluginResource* inner)
        : mObject(std::move(object))
        , mInner(inner)
    {
    }

    ~PyResourceOwner() override
    {
        if (Py_IsInitialized())
        {
            py::gil_scoped_acquire gil;
            mObject = py::object();
        }
        else
        {
            mObject.release();
        }
    }

    int32_t release() noexcept override
    {
        return mInner->release();
    }

    IPluginResource* clone() noexcept override
    {
        return mInner->clone();
    }

    py::object const& object() const
    {
        return mObject;
    }

private:
    py::object mObject;
    IPluginResource* mInner;
};

//! Trampoline of trt.IPluginResource.
class PyPluginResource : public IPluginResource, public PyBacked
{
public:
    APILanguage getAPILanguage() const noexcept override
    {
        return APILanguage::kPYTHON;
    }

    std::string pyLabel() const override
    {
        return "Python plugin resource";
    }

    int32_t release() noexcept override
    {
        return callPython(pyLabel(), "release", int32_t{-1}, [&]() -> int32_t {
            py::function f = pyOverride<IPluginResource>(this, "release");
            if (!f)
            {
                return 0;
            }
            py::object r = f();
            return r.is_none() ? 0 : r.cast<int32_t>();
        });
    }

    IPluginResource* clone() noexcept override
    {
        return callPython(pyLabel(), "clone", static_cast<IPluginResource*>(nullptr), [&]() -> IPluginResource* {
            py::function f = pyOverride<IPluginResource>(this, "clone");
            if (!f)
            {
                throw py::type_error("IPluginResource.clone() is not implemented");
            }
            py::object r = f();
            if (r.is_none())
            {
                return nullptr;
            }
            auto* inner = r.cast<IPluginResource*>();
            return new PyResourceOwner(std::move(r), inner);
        });
    }
};

} // namespace

py::object resourceToPython(IPluginResource* resource)
{
    if (resource == nullptr)
    {
        return py::none();
    }
    if (auto* owner = kiln::safeDynamicCast<PyResourceOwner>(resource))
    {
        return owner->object();
    }
    return py::cast(resource, py::return_value_policy::reference);
}

void bindPluginResource(py::module_& m)
{
    py::class_<IPluginResource, IVersionedInterface, PyPluginResource>(m, "IPluginResource",
        "A resource shared by plugins through IPluginRegistry.acquire_plugin_resource(). Subclass it and implement "
        "release() (return 0 or None on success) and clone() (return a new resource object).")
        .def(py::init<>())
        .def("release", &IPluginResource::release)
        .def(
            "clone", [](IPluginResource& r) { return resourceToPython(r.clone()); });
}

} // namespace kiln::python
