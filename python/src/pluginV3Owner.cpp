// PyPluginV3Owner (see pluginV3.h): the object Kiln owns for a Python IPluginV3. Every call forwards to the
// capability objects of the Python plugin (trampolines, which take the GIL themselves); the destructor calls the
// Python destroy() and releases the Python object.
#include "pluginV3.h"

namespace kiln::python
{

using namespace nvinfer1;

PyPluginV3Owner::PyPluginV3Owner(py::object object, IPluginV3* inner)
    : mObject(std::move(object))
    , mInner(inner)
{
}

PyPluginV3Owner::~PyPluginV3Owner()
{
    if (!Py_IsInitialized())
    {
        mObject.release(); // the interpreter is gone: nothing to release
        return;
    }
    callPython(std::string("Python plugin"), "destroy", 0, [&] {
        if (py::hasattr(mObject, "destroy"))
        {
            mObject.attr("destroy")();
        }
        return 0;
    });
    py::gil_scoped_acquire gil;
    mObject = py::object();
}

IPluginCapability* PyPluginV3Owner::inner(PluginCapabilityType type) const
{
    auto const index = static_cast<int32_t>(type);
    if (index < 0 || index > 2)
    {
        return nullptr;
    }
    if (mCaps[index] == nullptr)
    {
        mCaps[index] = mInner->getCapabilityInterface(type);
        if (mCaps[index] != nullptr && type == PluginCapabilityType::kBUILD)
        {
            mBuildMajor = mCaps[index]->getInterfaceInfo().major;
        }
    }
    return mCaps[index];
}

IPluginV3OneCore* PyPluginV3Owner::core() const
{
    return static_cast<IPluginV3OneCore*>(inner(PluginCapabilityType::kCORE));
}

v_1_0::IPluginV3OneBuild* PyPluginV3Owner::build() const
{
    return static_cast<v_1_0::IPluginV3OneBuild*>(inner(PluginCapabilityType::kBUILD));
}

IPluginV3OneRuntime* PyPluginV3Owner::runtime() const
{
    return static_cast<IPluginV3OneRuntime*>(inner(PluginCapabilityType::kRUNTIME));
}

IPluginCapability* PyPluginV3Owner::getCapabilityInterface(PluginCapabilityType type) noexcept
{
    if (inner(type) == nullptr)
    {
        return nullptr;
    }
    switch (type)
    {
    case PluginCapabilityType::kCORE: return static_cast<IPluginCapability*>(static_cast<IPluginV3OneCore*>(this));
    case PluginCapabilityType::kBUILD:
        return static_cast<IPluginCapability*>(static_cast<v_1_0::IPluginV3OneBuild*>(this));
    case PluginCapabilityType::kRUNTIME:
        return static_cast<IPluginCapability*>(static_cast<IPluginV3OneRuntime*>(this));
    }
    return nullptr;
}

IPluginV3* PyPluginV3Owner::clone() noexcept
{
    return mInner->clone();
}

AsciiChar const* PyPluginV3Owner::getPluginName() const noexcept
{
    return core() != nullptr ? core()->getPluginName() : nullptr;
}

AsciiChar const* PyPluginV3Owner::getPluginVersion() const noexcept
{
    return core() != nullptr ? core()->getPluginVersion() : nullptr;
}

AsciiChar const* PyPluginV3Owner::getPluginNamespace() const noexcept
{
    return core() != nullptr ? core()->getPluginNamespace() : nullptr;
}

int32_t PyPluginV3Owner::configurePlugin(
    DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept
{
    return build() != nullptr ? build()->configurePlugin(in, nbInputs, out, nbOutputs) : -1;
}

int32_t PyPluginV3Owner::getOutputDataTypes(
    DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    return build() != nullptr ? build()->getOutputDataTypes(outputTypes, nbOutputs, inputTypes, nbInputs) : -1;
}

int32_t PyPluginV3Owner::getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
    int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept
{
    return build() != nullptr
        ? build()->getOutputShapes(inputs, nbInputs, shapeInputs, nbShapeInputs, outputs, nbOutputs, exprBuilder)
        : -1;
}

bool PyPluginV3Owner::supportsFormatCombination(
    int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    return build() != nullptr && build()->supportsFormatCombination(pos, inOut, nbInputs, nbOutputs);
}

int32_t PyPluginV3Owner::getNbOutputs() const noexcept
{
    return build() != nullptr ? build()->getNbOutputs() : -1;
}

size_t PyPluginV3Owner::getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
    DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept
{
    return build() != nullptr ? build()->getWorkspaceSize(inputs, nbInputs, outputs, nbOutputs) : 0;
}

int32_t PyPluginV3Owner::getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept
{
    return build() != nullptr ? build()->getValidTactics(tactics, nbTactics) : -1;
}

int32_t PyPluginV3Owner::getNbTactics() noexcept
{
    return build() != nullptr ? build()->getNbTactics() : 0;
}

char const* PyPluginV3Owner::getTimingCacheID() noexcept
{
    return build() != nullptr ? build()->getTimingCacheID() : nullptr;
}

int32_t PyPluginV3Owner::getFormatCombinationLimit() noexcept
{
    return build() != nullptr ? build()->getFormatCombinationLimit() : kDEFAULT_FORMAT_COMBINATION_LIMIT;
}

char const* PyPluginV3Owner::getMetadataString() noexcept
{
    return build() != nullptr ? build()->getMetadataString() : nullptr;
}

int32_t PyPluginV3Owner::getAliasedInput(int32_t outputIndex) noexcept
{
    if (build() == nullptr || mBuildMajor < 2)
    {
        return -1;
    }
    return static_cast<v_2_0::IPluginV3OneBuild*>(build())->getAliasedInput(outputIndex);
}

int32_t PyPluginV3Owner::setTactic(int32_t tactic) noexcept
{
    return runtime() != nullptr ? runtime()->setTactic(tactic) : -1;
}

int32_t PyPluginV3Owner::onShapeChange(
    PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs) noexcept
{
    return runtime() != nullptr ? runtime()->onShapeChange(in, nbInputs, out, nbOutputs) : -1;
}

int32_t PyPluginV3Owner::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
    return runtime() != nullptr ? runtime()->enqueue(inputDesc, outputDesc, inputs, outputs, workspace, stream) : -1;
}

IPluginV3* PyPluginV3Owner::attachToContext(IPluginResourceContext* context) noexcept
{
    return runtime() != nullptr ? runtime()->attachToContext(context) : nullptr;
}

PluginFieldCollection const* PyPluginV3Owner::getFieldsToSerialize() noexcept
{
    return runtime() != nullptr ? runtime()->getFieldsToSerialize() : nullptr;
}

} // namespace kiln::python
