// Trampolines of the IPluginV2 family written in Python: trt.IPluginV2DynamicExt (the one generation tensorrt
// lets Python implement) and trt.IPluginCreator. Every override acquires the GIL, calls the Python method and turns
// a Python exception into the failure value of the C++ interface, after logging the Python message naming the
// plugin (pluginCommon.h). The attributes tensorrt makes Python set (num_outputs, plugin_type, ...) are stored here,
// so C++ reads them without the GIL.
#pragma once

#include "kiln/KilnPluginCpu.h"
#include "pluginCommon.h"

#include <atomic>

namespace kiln::python
{

KILN_IGNORE_DEPRECATED_BEGIN

//! Deleter of the Python holders of IPluginV2-family objects: a Python-backed object is deleted, a C++ plugin
//! (returned to Python by a C++ creator) is destroy()ed as the TensorRT API requires.
struct PluginV2Deleter
{
    void operator()(nvinfer1::IPluginV2* plugin) const;
};

template <class T>
using PluginV2Holder = std::unique_ptr<T, PluginV2Deleter>;

//! Trampoline of trt.IPluginV2DynamicExt. Also opts into Kiln's CPU backend (kiln::IPluginCpuSupport).
class PyPluginV2DynamicExt : public nvinfer1::IPluginV2DynamicExt, public kiln::IPluginCpuSupport, public PyBacked
{
public:
    PyPluginV2DynamicExt() = default;
    ~PyPluginV2DynamicExt() override = default;

    // Attributes set from Python.
    int32_t mNbOutputs{-1};
    std::string mPluginType;
    std::string mPluginVersion;
    std::string mNamespace;
    bool mTypeSet{false};
    bool mVersionSet{false};

    std::string pyLabel() const override;

    // IPluginV2
    nvinfer1::AsciiChar const* getPluginType() const noexcept override;
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;
    int32_t getNbOutputs() const noexcept override;
    int32_t initialize() noexcept override;
    void terminate() noexcept override;
    size_t getSerializationSize() const noexcept override;
    void serialize(void* buffer) const noexcept override;
    void destroy() noexcept override;
    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept override;
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override;

    // IPluginV2Ext
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    // IPluginV2DynamicExt
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;

    //! Python plugins report PluginVersion::kV2_DYNAMICEXT_PYTHON, as in TensorRT.
    int32_t getTensorRTVersion() const noexcept override;

private:
    int32_t mNbInputs{-1};                 // from configurePlugin (enqueue has no counts)
    mutable int64_t mWorkspaceSize{0};     // from the last getWorkspaceSize
    mutable std::string mSerialized;       // bytes of the last serialize() seen by getSerializationSize
    bool mConfigureFailed{false};          // configure_plugin raised: the next enqueue fails
};

//! Trampoline of trt.IPluginCreator (creates IPluginV2-family plugins).
class PyPluginCreatorV1 : public nvinfer1::IPluginCreator, public PyBacked
{
public:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    py::object mFieldNames; // PluginFieldCollection, or empty

    std::string pyLabel() const override;

    nvinfer1::APILanguage getAPILanguage() const noexcept override
    {
        return nvinfer1::APILanguage::kPYTHON;
    }

    nvinfer1::AsciiChar const* getPluginName() const noexcept override;
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override;
    nvinfer1::IPluginV2* createPlugin(
        nvinfer1::AsciiChar const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;
    nvinfer1::IPluginV2* deserializePlugin(
        nvinfer1::AsciiChar const* name, void const* serialData, size_t serialLength) noexcept override;
    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept override;
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override;
};

//! A C++ IPluginV2-family object as its Python class (by the generation in getTensorRTVersion()).
py::object pluginV2ToPython(nvinfer1::IPluginV2* plugin, py::return_value_policy policy);

//! Accept an IPluginV2 that Python returned to C++ as an owned object (clone, createPlugin): a Python plugin
//! keeps its instance alive until C++ calls destroy(). Throws for None or for a C++ plugin owned by Python.
nvinfer1::IPluginV2* adoptPluginV2(py::object result, char const* method);

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::python
