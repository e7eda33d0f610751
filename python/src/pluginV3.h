// Trampolines of IPluginV3 written in Python: trt.IPluginV3, IPluginV3OneCore, IPluginV3OneBuild(V2),
// IPluginV3OneRuntime and IPluginCreatorV3One, plus PyPluginV3Owner, the C++ object that Kiln receives whenever it
// takes ownership of a Python plugin (clone(), attach_to_context(), create_plugin()). Kiln deletes IPluginV3
// objects it owns; deleting the owner calls the Python destroy() and drops the Python object, so the Python
// instance (and the trampolines inside it) are never deleted behind pybind11's back.
#pragma once

#include "kiln/KilnPluginCpu.h"
#include "pluginCommon.h"

#include <map>

namespace kiln::python
{

//! Trampoline of trt.IPluginV3. Opts into Kiln's CPU backend.
class PyPluginV3 : public nvinfer1::IPluginV3, public kiln::IPluginCpuSupport, public PyBacked
{
public:
    std::string pyLabel() const override;
    nvinfer1::APILanguage getAPILanguage() const noexcept override
    {
        return nvinfer1::APILanguage::kPYTHON;
    }
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override;
    nvinfer1::IPluginV3* clone() noexcept override;

private:
    std::map<int32_t, py::object> mCapabilities; // capability objects other than self, kept alive
};

//! Trampoline of trt.IPluginV3OneCore: the identity attributes, stored for GIL-free reads.
class PyPluginV3OneCore : public nvinfer1::IPluginV3OneCore, public PyBacked
{
public:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;

    std::string pyLabel() const override;
    nvinfer1::APILanguage getAPILanguage() const noexcept override
    {
        return nvinfer1::APILanguage::kPYTHON;
    }
    nvinfer1::AsciiChar const* getPluginName() const noexcept override
    {
        return mName.c_str();
    }
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override
    {
        return mVersion.c_str();
    }
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }
};

//! The attributes of trt.IPluginV3OneBuild(V2) set from Python.
struct PyBuildAttributes
{
    int32_t mNbOutputs{-1};
    bool mHasTimingCacheId{false};
    std::string mTimingCacheId;
    int32_t mFormatCombinationLimit{nvinfer1::IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT};
    bool mHasMetadata{false};
    std::string mMetadata;
    virtual ~PyBuildAttributes() = default;
};

//! Label of a capability trampoline: the plugin_name attribute of its Python instance.
std::string capabilityLabel(py::handle self, char const* capability);

//! Trampoline body shared by IPluginV3OneBuild (Base = v_1_0) and IPluginV3OneBuildV2 (Base = v_2_0).
template <class Base>
class PyPluginV3OneBuildT : public Base, public PyBuildAttributes, public PyBacked
{
public:
    std::string pyLabel() const override;
    nvinfer1::APILanguage getAPILanguage() const noexcept override
    {
        return nvinfer1::APILanguage::kPYTHON;
    }
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
        nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;
    int32_t getNbOutputs() const noexcept override;
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;
    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override;
    int32_t getNbTactics() noexcept override;
    char const* getTimingCacheID() noexcept override;
    int32_t getFormatCombinationLimit() noexcept override;
    char const* getMetadataString() noexcept override;

private:
    std::vector<int32_t> mTactics;
};

using PyPluginV3OneBuild = PyPluginV3OneBuildT<nvinfer1::v_1_0::IPluginV3OneBuild>;

//! Trampoline of trt.IPluginV3OneBuildV2 (adds get_aliased_input).
class PyPluginV3OneBuildV2 : public PyPluginV3OneBuildT<nvinfer1::v_2_0::IPluginV3OneBuild>
{
public:
    int32_t getAliasedInput(int32_t outputIndex) noexcept override;
};

//! Trampoline of trt.IPluginV3OneRuntime.
class PyPluginV3OneRuntime : public nvinfer1::IPluginV3OneRuntime, public PyBacked
{
public:
    std::string pyLabel() const override;
    nvinfer1::APILanguage getAPILanguage() const noexcept override
    {
        return nvinfer1::APILanguage::kPYTHON;
    }
    int32_t setTactic(int32_t tactic) noexcept override;
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override;

private:
    int32_t mNbInputs{-1};
    int32_t mNbOutputs{-1};
    py::object mFields; // the last get_fields_to_serialize() result, kept alive for C++
};

//! Trampoline of trt.IPluginCreatorV3One.
class PyPluginCreatorV3One : public nvinfer1::IPluginCreatorV3One, public PyBacked
{
public:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    py::object mFieldNames;

    std::string pyLabel() const override;
    nvinfer1::APILanguage getAPILanguage() const noexcept override
    {
        return nvinfer1::APILanguage::kPYTHON;
    }
    nvinfer1::IPluginV3* createPlugin(nvinfer1::AsciiChar const* name, nvinfer1::PluginFieldCollection const* fc,
        nvinfer1::TensorRTPhase phase) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override;
    nvinfer1::AsciiChar const* getPluginName() const noexcept override
    {
        return mName.c_str();
    }
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override
    {
        return mVersion.c_str();
    }
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }
};

//! What Kiln owns when it owns a Python plugin: holds the Python object and forwards every call to the
//! capability objects it reports. Deleting it calls the Python destroy() and releases the object.
class PyPluginV3Owner final : public nvinfer1::IPluginV3,
                             public nvinfer1::IPluginV3OneCore,
                             public nvinfer1::v_2_0::IPluginV3OneBuild,
                             public nvinfer1::IPluginV3OneRuntime,
                             public kiln::IPluginCpuSupport
{
public:
    //! `object` is the Python plugin; `inner` its IPluginV3 (a trampoline or a C++ plugin held by Python).
    PyPluginV3Owner(py::object object, nvinfer1::IPluginV3* inner);
    ~PyPluginV3Owner() override;

    py::object const& object() const
    {
        return mObject;
    }

    nvinfer1::APILanguage getAPILanguage() const noexcept override
    {
        return nvinfer1::APILanguage::kPYTHON;
    }

    // IPluginV3
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override;
    nvinfer1::IPluginV3* clone() noexcept override;

    // IPluginV3OneCore
    nvinfer1::AsciiChar const* getPluginName() const noexcept override;
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override;

    // IPluginV3OneBuild(V2)
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
        nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;
    int32_t getNbOutputs() const noexcept override;
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;
    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override;
    int32_t getNbTactics() noexcept override;
    char const* getTimingCacheID() noexcept override;
    int32_t getFormatCombinationLimit() noexcept override;
    char const* getMetadataString() noexcept override;
    int32_t getAliasedInput(int32_t outputIndex) noexcept override;

    // IPluginV3OneRuntime
    int32_t setTactic(int32_t tactic) noexcept override;
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override;

private:
    //! Fetch (once) the inner capability of `type`; nullptr (reported) when the plugin has none.
    nvinfer1::IPluginCapability* inner(nvinfer1::PluginCapabilityType type) const;
    nvinfer1::IPluginV3OneCore* core() const;
    nvinfer1::v_1_0::IPluginV3OneBuild* build() const;
    nvinfer1::IPluginV3OneRuntime* runtime() const;

    py::object mObject;
    nvinfer1::IPluginV3* mInner;
    mutable nvinfer1::IPluginCapability* mCaps[3]{nullptr, nullptr, nullptr};
    mutable int32_t mBuildMajor{0};
};

//! Take ownership (for Kiln) of an IPluginV3 that Python returned from `method`: wraps it in a PyPluginV3Owner.
//! Throws for None, for a non-IPluginV3, or for `self` (an object must not own itself).
nvinfer1::IPluginV3* adoptPluginV3(py::object result, py::handle self, char const* method);

//! The capability `cap` of `type` as its Python class (reference; the caller keeps the plugin alive).
py::object capabilityToPython(nvinfer1::IPluginCapability* cap, nvinfer1::PluginCapabilityType type);

} // namespace kiln::python
