// Shared pieces of the class-based Python plugin bindings (bindPluginCommon/V2/V3.cpp): the PluginField and
// PluginFieldCollection objects that own their storage, the base of every object that is backed by a Python
// instance (PyBacked), the guarded way trampolines call into Python (callPython), and the conversions of
// descriptors, shape expressions and buffers that the trampolines hand to Python.
#pragma once

#include "bindings.h"

#include "NvInfer.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::python
{

//! A PluginField that owns its name and keeps its data (a contiguous numpy array, or None) alive.
class PyPluginField
{
public:
    PyPluginField() = default;
    //! Stores `data` as a contiguous numpy array of the dtype that matches `type` (converted if needed).
    PyPluginField(std::string name, py::object data, nvinfer1::PluginFieldType type);

    std::string const& name() const { return mName; }
    void setName(std::string name) { mName = std::move(name); }
    py::object data() const { return mData; }
    void setData(py::object data);
    nvinfer1::PluginFieldType type() const { return mType; }
    void setType(nvinfer1::PluginFieldType type);
    int32_t length() const { return mLength; }

    //! The C++ view (pointers stay valid while this object lives and is not modified).
    nvinfer1::PluginField view() const;

private:
    std::string mName;
    py::object mData = py::none();
    void const* mDataPtr{nullptr};
    nvinfer1::PluginFieldType mType{nvinfer1::PluginFieldType::kUNKNOWN};
    int32_t mLength{0};
};

//! A list of PluginField objects that can hand C++ a contiguous nvinfer1::PluginFieldCollection.
class PyPluginFieldCollection
{
public:
    PyPluginFieldCollection() = default;
    explicit PyPluginFieldCollection(std::vector<py::object> fields);

    //! Copy a C++ collection (field data copied into fresh numpy arrays). Needs the GIL.
    static PyPluginFieldCollection fromC(nvinfer1::PluginFieldCollection const* fc);

    std::vector<py::object>& fields() { return mFields; }
    //! The C++ view; rebuilt on each call, valid until the next call or until the collection changes.
    nvinfer1::PluginFieldCollection const* view();

private:
    std::vector<py::object> mFields; // PyPluginField instances
    std::vector<nvinfer1::PluginField> mViews;
    nvinfer1::PluginFieldCollection mCollection{};
};

//! Size in bytes of one element of a field type (1 for the packed 4-bit types, whose length counts bytes here).
size_t pluginFieldElementSize(nvinfer1::PluginFieldType type);

//! Base of every C++ object that forwards to a Python instance (trampolines and owner proxies). When C++ takes
//! ownership of such an object (clone(), createPlugin(), ...), the object holds a strong reference to its own
//! Python instance until C++ releases it (destroy() / delete), so Python never frees what C++ still uses.
class PyBacked
{
public:
    virtual ~PyBacked() = default;

    //! Keep `self` (this object's Python instance) alive until releaseSelf(). Needs the GIL.
    void holdSelf(py::object self) { mSelfRef = std::move(self); }
    //! Drop the reference taken by holdSelf(); may free this object. Needs the GIL.
    void releaseSelf();
    bool holdsSelf() const { return static_cast<bool>(mSelfRef); }

    //! Name used in error messages ("Python plugin 'CircPad'").
    virtual std::string pyLabel() const = 0;

private:
    py::object mSelfRef;
};

//! Log `message` at kERROR through the logger of the most recent builder/runtime (getLogger()), or stderr when
//! there is none, and remember it as the last Python plugin error (kiln.last_plugin_error()).
void reportPluginError(std::string const& message);

//! Text of the last error reported by reportPluginError ("" if none).
std::string lastPluginError();

//! Text naming the caller in error messages: a string, or a PyBacked object (its pyLabel(), asked only on error).
inline std::string whoText(std::string const& who)
{
    return who;
}
inline std::string whoText(PyBacked const* who)
{
    return who->pyLabel();
}

//! Call `fn` (which runs Python code) with the GIL held. A Python or C++ exception is caught, reported as
//! "<who>: <method>() raised <Type>: <message>" and `fail` is returned instead; nothing propagates.
template <class R, class Who, class F>
R callPython(Who const& who, char const* method, R fail, F&& fn) noexcept
{
    if (!Py_IsInitialized())
    {
        return fail; // the interpreter is gone (process exit): Python code can no longer run
    }
    try
    {
        py::gil_scoped_acquire gil;
        std::string message;
        try
        {
            return fn();
        }
        catch (py::error_already_set& e)
        {
            message = e.what();
        }
        catch (std::exception const& e)
        {
            message = e.what();
        }
        std::string label;
        try
        {
            label = whoText(who);
        }
        catch (...)
        {
            label = "Python plugin";
        }
        reportPluginError(label + ": " + method + "() raised " + message);
    }
    catch (...)
    {
        reportPluginError(std::string("Python plugin: ") + method + "() failed with an unknown C++ exception");
    }
    return fail;
}

//! The Python override of `name` on the instance behind `self` (pybind11 lookup), or an empty function.
template <class T>
py::function pyOverride(T const* self, char const* name)
{
    return py::get_override(self, name);
}

//! The Python instance that wraps `ptr` (registered pybind11 instance), or None. Needs the GIL.
template <class T>
py::object pyInstanceOf(T const* ptr)
{
    return py::cast(const_cast<T*>(ptr), py::return_value_policy::reference);
}

//! Python list of PluginTensorDesc copies.
py::list toPyList(nvinfer1::PluginTensorDesc const* descs, int32_t n);
//! Python list of DynamicPluginTensorDesc copies.
py::list toPyList(nvinfer1::DynamicPluginTensorDesc const* descs, int32_t n);
//! Python list of DimsExprs copies (the expressions themselves are borrowed for the callback).
py::list toPyList(nvinfer1::DimsExprs const* exprs, int32_t n);
//! Python list of DataType values.
py::list toPyList(nvinfer1::DataType const* types, int32_t n);

//! A PluginBuffer (int subclass holding the address) for a tensor buffer: .numpy() views host memory, and on device
//! memory (`onDevice`) it has __cuda_array_interface__ with `stream` (the enqueue stream).
py::object makeBuffer(void const* ptr, nvinfer1::PluginTensorDesc const& desc, bool onDevice, void* stream);
//! makeBuffer for each of the `count` tensors (enqueue's inputs or outputs), as a Python list.
py::list makeBuffers(void const* const* ptrs, nvinfer1::PluginTensorDesc const* descs, int32_t count, bool onDevice,
    void* stream);
//! A PluginBuffer for `nbytes` of untyped memory (the workspace).
py::object makeRawBuffer(void const* ptr, int64_t nbytes, bool onDevice, void* stream);

//! Whether an enqueue's buffers are device memory (deviceMemory.h: the run's hint, else the driver's answer).
bool enqueueOnDevice(void const* const* inputs, int32_t nbInputs, void const* const* outputs, int32_t nbOutputs,
    void const* workspace);

//! Number of bytes of a tensor described by `desc` (linear formats).
int64_t descBytes(nvinfer1::PluginTensorDesc const& desc);

//! The registry's creator as its Python type: a Python creator as its own Python object, a C++ one as
//! IPluginCreator / IPluginCreatorV3One / IPluginCreatorInterface by its interface kind; None for nullptr.
py::object creatorToPython(nvinfer1::IPluginCreatorInterface* creator);

//! A resource returned by the registry as Python: a Python resource as its own object, else IPluginResource.
py::object resourceToPython(nvinfer1::IPluginResource* resource);

//! Bind IPluginResource (Python-subclassable; pluginResource.cpp).
void bindPluginResource(py::module_& m);

//! Bind PluginBuffer (defined in Python source inside the module) and kiln.last_plugin_error.
void bindPluginBuffers(py::module_& m);

} // namespace kiln::python
