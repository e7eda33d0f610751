// Method bodies of the IPluginV2DynamicExt and IPluginCreator trampolines (see pluginV2.h): each forwards to the
// Python method of the same tensorrt name, with tensorrt's documented defaults where Python leaves one out.
#include "pluginV2.h"
#include "core/runtimeTypeInfo.h"

#include <cstring>

namespace kiln::python
{

using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

void PluginV2Deleter::operator()(IPluginV2* plugin) const
{
    if (plugin == nullptr)
    {
        return;
    }
    if (auto* backed = kiln::safeDynamicCast<PyBacked>(plugin))
    {
        delete backed;
        return;
    }
    plugin->destroy();
}

py::object pluginV2ToPython(IPluginV2* plugin, py::return_value_policy policy)
{
    if (plugin == nullptr)
    {
        return py::none();
    }
    uint32_t const tag = (static_cast<uint32_t>(plugin->getTensorRTVersion()) >> 24U) & 0x3FU;
    switch (tag)
    {
    case 1: return py::cast(static_cast<IPluginV2Ext*>(plugin), policy);
    case 2: return py::cast(static_cast<IPluginV2IOExt*>(plugin), policy);
    case 3: return py::cast(static_cast<IPluginV2DynamicExt*>(plugin), policy);
    default: return py::cast(plugin, policy);
    }
}

IPluginV2* adoptPluginV2(py::object result, char const* method)
{
    if (result.is_none())
    {
        throw py::value_error(std::string(method) + "() returned None");
    }
    auto* plugin = result.cast<IPluginV2*>();
    auto* backed = kiln::safeDynamicCast<PyBacked>(plugin);
    if (backed == nullptr)
    {
        throw py::type_error(std::string(method)
            + "() returned a C++ plugin owned by Python; return a plugin implemented in Python");
    }
    if (backed->holdsSelf())
    {
        throw py::value_error(std::string(method) + "() returned a plugin object that Kiln already owns; "
            + "return a new object");
    }
    backed->holdSelf(std::move(result));
    return plugin;
}

// ---- PyPluginV2DynamicExt ---------------------------------------------------------------------------------------

std::string PyPluginV2DynamicExt::pyLabel() const
{
    return "Python plugin '" + mPluginType + "' (IPluginV2DynamicExt)";
}

AsciiChar const* PyPluginV2DynamicExt::getPluginType() const noexcept
{
    if (!mTypeSet)
    {
        reportPluginError("Python IPluginV2DynamicExt plugin: the attribute plugin_type was never set");
        return nullptr;
    }
    return mPluginType.c_str();
}

AsciiChar const* PyPluginV2DynamicExt::getPluginVersion() const noexcept
{
    if (!mVersionSet)
    {
        reportPluginError(pyLabel() + ": the attribute plugin_version was never set");
        return nullptr;
    }
    return mPluginVersion.c_str();
}

int32_t PyPluginV2DynamicExt::getNbOutputs() const noexcept
{
    if (mNbOutputs < 0)
    {
        reportPluginError(pyLabel() + ": the attribute num_outputs was never set");
    }
    return mNbOutputs;
}

int32_t PyPluginV2DynamicExt::getTensorRTVersion() const noexcept
{
    return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_DYNAMICEXT_PYTHON) << 24U)
        | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
}

int32_t PyPluginV2DynamicExt::initialize() noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "initialize", int32_t{-1}, [&]() -> int32_t {
        if (py::function f = pyOverride<IPluginV2DynamicExt>(this, "initialize"))
        {
            f();
        }
        return 0;
    });
}

void PyPluginV2DynamicExt::terminate() noexcept
{
    callPython(static_cast<PyBacked const*>(this), "terminate", 0, [&] {
        if (py::function f = pyOverride<IPluginV2DynamicExt>(this, "terminate"))
        {
            f();
        }
        return 0;
    });
}

size_t PyPluginV2DynamicExt::getSerializationSize() const noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "get_serialization_size", size_t{0}, [&]() -> size_t {
        if (py::function f = pyOverride<IPluginV2DynamicExt>(this, "get_serialization_size"))
        {
            return f().cast<size_t>();
        }
        py::function s = pyOverride<IPluginV2DynamicExt>(this, "serialize");
        if (!s)
        {
            throw py::type_error("serialize() is not implemented");
        }
        mSerialized = py::bytes(s()).cast<std::string>();
        return mSerialized.size();
    });
}

void PyPluginV2DynamicExt::serialize(void* buffer) const noexcept
{
    callPython(static_cast<PyBacked const*>(this), "serialize", 0, [&] {
        py::function s = pyOverride<IPluginV2DynamicExt>(this, "serialize");
        if (!s)
        {
            throw py::type_error("serialize() is not implemented");
        }
        std::string const bytes = py::bytes(s()).cast<std::string>();
        std::memcpy(buffer, bytes.data(), bytes.size());
        return 0;
    });
}

void PyPluginV2DynamicExt::destroy() noexcept
{
    callPython(static_cast<PyBacked const*>(this), "destroy", 0, [&] {
        if (py::function f = pyOverride<IPluginV2DynamicExt>(this, "destroy"))
        {
            f();
        }
        return 0;
    });
    callPython(std::string("Python plugin"), "destroy", 0, [&] {
        releaseSelf(); // may delete this object
        return 0;
    });
}

void PyPluginV2DynamicExt::setPluginNamespace(AsciiChar const* pluginNamespace) noexcept
{
    mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
}

AsciiChar const* PyPluginV2DynamicExt::getPluginNamespace() const noexcept
{
    return mNamespace.c_str();
}

DataType PyPluginV2DynamicExt::getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    DataType const fallback = nbInputs > 0 ? inputTypes[0] : DataType::kFLOAT;
    return callPython(static_cast<PyBacked const*>(this), "get_output_datatype", fallback, [&]() -> DataType {
        if (py::function f = pyOverride<IPluginV2DynamicExt>(this, "get_output_datatype"))
        {
            return f(index, toPyList(inputTypes, nbInputs)).cast<DataType>();
        }
        return fallback;
    });
}

IPluginV2DynamicExt* PyPluginV2DynamicExt::clone() const noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "clone", static_cast<IPluginV2DynamicExt*>(nullptr), [&]() -> IPluginV2DynamicExt* {
        py::function f = pyOverride<IPluginV2DynamicExt>(this, "clone");
        if (!f)
        {
            throw py::type_error("clone() is not implemented");
        }
        py::object result = f();
        if (!result.is_none() && !py::isinstance<IPluginV2DynamicExt>(result))
        {
            throw py::type_error("clone() must return an IPluginV2DynamicExt");
        }
        auto* plugin = static_cast<IPluginV2DynamicExt*>(adoptPluginV2(result, "clone"));
        if (auto* copy = kiln::safeDynamicCast<PyPluginV2DynamicExt>(plugin))
        {
            copy->mNbInputs = mNbInputs;
            copy->mWorkspaceSize = mWorkspaceSize;
            if (copy->mNamespace.empty())
            {
                copy->mNamespace = mNamespace;
            }
        }
        return plugin;
    });
}

DimsExprs PyPluginV2DynamicExt::getOutputDimensions(
    int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept
{
    DimsExprs failed{};
    failed.nbDims = -1;
    return callPython(static_cast<PyBacked const*>(this), "get_output_dimensions", failed, [&]() -> DimsExprs {
        py::function f = pyOverride<IPluginV2DynamicExt>(this, "get_output_dimensions");
        if (!f)
        {
            throw py::type_error("get_output_dimensions() is not implemented");
        }
        py::object result = f(outputIndex, toPyList(inputs, nbInputs), py::cast(&exprBuilder, py::return_value_policy::reference));
        return result.cast<DimsExprs>();
    });
}

bool PyPluginV2DynamicExt::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "supports_format_combination", false, [&]() -> bool {
        py::function f = pyOverride<IPluginV2DynamicExt>(this, "supports_format_combination");
        if (!f)
        {
            throw py::type_error("supports_format_combination() is not implemented");
        }
        return f(pos, toPyList(inOut, nbInputs + nbOutputs), nbInputs).cast<bool>();
    });
}

void PyPluginV2DynamicExt::configurePlugin(
    DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept
{
    mNbInputs = nbInputs;
    mConfigureFailed = callPython(static_cast<PyBacked const*>(this), "configure_plugin", true, [&] {
        if (py::function f = pyOverride<IPluginV2DynamicExt>(this, "configure_plugin"))
        {
            f(toPyList(in, nbInputs), toPyList(out, nbOutputs));
        }
        return false;
    });
}

size_t PyPluginV2DynamicExt::getWorkspaceSize(
    PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept
{
    size_t const size = callPython(static_cast<PyBacked const*>(this), "get_workspace_size", size_t{0}, [&]() -> size_t {
        if (py::function f = pyOverride<IPluginV2DynamicExt>(this, "get_workspace_size"))
        {
            return f(toPyList(inputs, nbInputs), toPyList(outputs, nbOutputs)).cast<size_t>();
        }
        return 0;
    });
    mWorkspaceSize = static_cast<int64_t>(size);
    return size;
}

int32_t PyPluginV2DynamicExt::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
    if (mConfigureFailed)
    {
        reportPluginError(pyLabel() + ": enqueue() skipped because configure_plugin() raised");
        return -1;
    }
    if (mNbInputs < 0 || mNbOutputs < 0)
    {
        reportPluginError(pyLabel() + ": enqueue() called before configure_plugin()");
        return -1;
    }
    return callPython(static_cast<PyBacked const*>(this), "enqueue", int32_t{-1}, [&]() -> int32_t {
        py::function f = pyOverride<IPluginV2DynamicExt>(this, "enqueue");
        if (!f)
        {
            throw py::type_error("enqueue() is not implemented");
        }
        // Host views on the CPU backend, __cuda_array_interface__ objects on the CUDA backend.
        bool const onDevice = enqueueOnDevice(inputs, mNbInputs, outputs, mNbOutputs, workspace);
        py::list ins = makeBuffers(inputs, inputDesc, mNbInputs, onDevice, stream);
        py::list outs = makeBuffers(outputs, outputDesc, mNbOutputs, onDevice, stream);
        py::object r = f(toPyList(inputDesc, mNbInputs), toPyList(outputDesc, mNbOutputs), ins, outs,
            makeRawBuffer(workspace, mWorkspaceSize, onDevice, stream), py::int_(reinterpret_cast<uintptr_t>(stream)));
        if (!r.is_none() && py::isinstance<py::int_>(r) && r.cast<int64_t>() != 0)
        {
            throw py::value_error("enqueue() returned the error code " + std::to_string(r.cast<int64_t>()));
        }
        return 0;
    });
}

// ---- PyPluginCreatorV1 ------------------------------------------------------------------------------------------

std::string PyPluginCreatorV1::pyLabel() const
{
    return "Python plugin creator '" + mName + "' (IPluginCreator)";
}

AsciiChar const* PyPluginCreatorV1::getPluginName() const noexcept
{
    return mName.c_str();
}

AsciiChar const* PyPluginCreatorV1::getPluginVersion() const noexcept
{
    return mVersion.c_str();
}

AsciiChar const* PyPluginCreatorV1::getPluginNamespace() const noexcept
{
    return mNamespace.c_str();
}

void PyPluginCreatorV1::setPluginNamespace(AsciiChar const* pluginNamespace) noexcept
{
    mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
}

PluginFieldCollection const* PyPluginCreatorV1::getFieldNames() noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "field_names", static_cast<PluginFieldCollection const*>(nullptr),
        [&]() -> PluginFieldCollection const* {
            if (!mFieldNames)
            {
                mFieldNames = py::cast(PyPluginFieldCollection());
            }
            return mFieldNames.cast<PyPluginFieldCollection&>().view();
        });
}

IPluginV2* PyPluginCreatorV1::createPlugin(AsciiChar const* name, PluginFieldCollection const* fc) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "create_plugin", static_cast<IPluginV2*>(nullptr), [&]() -> IPluginV2* {
        py::function f = pyOverride<IPluginCreator>(this, "create_plugin");
        if (!f)
        {
            throw py::type_error("create_plugin() is not implemented");
        }
        py::object fields = py::cast(PyPluginFieldCollection::fromC(fc));
        return adoptPluginV2(f(name != nullptr ? name : "", fields), "create_plugin");
    });
}

IPluginV2* PyPluginCreatorV1::deserializePlugin(AsciiChar const* name, void const* serialData, size_t serialLength) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "deserialize_plugin", static_cast<IPluginV2*>(nullptr), [&]() -> IPluginV2* {
        py::function f = pyOverride<IPluginCreator>(this, "deserialize_plugin");
        if (!f)
        {
            throw py::type_error("deserialize_plugin() is not implemented");
        }
        py::bytes data(static_cast<char const*>(serialData), serialLength);
        return adoptPluginV2(f(name != nullptr ? name : "", data), "deserialize_plugin");
    });
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::python
