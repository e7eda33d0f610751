// NvInferRuntimePlugin.h — the deprecated IPluginV2 plugin generation (IPluginV2, IPluginV2Ext, IPluginV2IOExt)
// and its creator IPluginCreator. Virtual order and default bodies match TensorRT 10.16 for binary compatibility.
#ifndef NV_INFER_RUNTIME_PLUGIN_H
#define NV_INFER_RUNTIME_PLUGIN_H

#include "NvInferPluginBase.h"

namespace nvinfer1
{

enum class TensorFormat : int32_t;
namespace v_1_0
{
class IGpuAllocator;
} // namespace v_1_0
using IGpuAllocator = v_1_0::IGpuAllocator;

//! Older name of TensorFormat, kept for the IPluginV2 interfaces.
using PluginFormat = TensorFormat;

//! Bit set in plugin (creator) version tags to mark Python-implemented plugins.
static constexpr int32_t kPLUGIN_VERSION_PYTHON_BIT = 0x40;

//!
//! \struct PluginTensorDesc
//! \brief Description of one plugin input or output: shape, type, format and INT8 scale.
//!
//! scale is only meaningful for DataType::kINT8 and is -1.0F otherwise. kBOOL and kUINT8 are not supported as
//! plugin I/O types.
//!
struct PluginTensorDesc
{
    Dims dims;
    DataType type;
    TensorFormat format;
    float scale;
};

//!
//! \enum PluginVersion
//! \brief Tag stored in the top byte of IPluginV2::getTensorRTVersion() to identify the IPluginV2 flavour.
//! \deprecated Deprecated in TensorRT 10.10 together with the IPluginV2 generation.
//!
enum class PluginVersion : uint8_t
{
    kV2 TRT_DEPRECATED_ENUM = 0,                                              //!< IPluginV2
    kV2_EXT TRT_DEPRECATED_ENUM = 1,                                          //!< IPluginV2Ext
    kV2_IOEXT TRT_DEPRECATED_ENUM = 2,                                        //!< IPluginV2IOExt
    kV2_DYNAMICEXT TRT_DEPRECATED_ENUM = 3,                                   //!< IPluginV2DynamicExt
    kV2_DYNAMICEXT_PYTHON TRT_DEPRECATED_ENUM = kPLUGIN_VERSION_PYTHON_BIT | 3 //!< Python IPluginV2DynamicExt
};

//!
//! \enum PluginCreatorVersion
//! \brief Identifies the flavour of an IPluginCreator.
//! \deprecated Deprecated in TensorRT 10.10.
//!
enum class PluginCreatorVersion : int32_t
{
    kV1 TRT_DEPRECATED_ENUM = 0,                                //!< IPluginCreator
    kV1_PYTHON TRT_DEPRECATED_ENUM = kPLUGIN_VERSION_PYTHON_BIT //!< Python IPluginCreator
};

KILN_IGNORE_DEPRECATED_BEGIN

//!
//! \class IPluginV2
//! \brief First-generation plugin interface (implicit batch). Paired with IPluginCreator for registration.
//! \deprecated Deprecated in TensorRT 8.5; implement IPluginV3.
//!
class TRT_DEPRECATED IPluginV2
{
public:
    //! API version the plugin was compiled against. Do not override: the library uses it for compatibility.
    virtual int32_t getTensorRTVersion() const noexcept
    {
        return static_cast<int32_t>(NV_TENSORRT_VERSION);
    }

    //! Plugin type name; must equal the creator's getPluginName().
    virtual AsciiChar const* getPluginType() const noexcept = 0;

    //! Plugin version string; must equal the creator's getPluginVersion().
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;

    //! Number of outputs (positive).
    virtual int32_t getNbOutputs() const noexcept = 0;

    //! Shape of output `index` (without batch dimension) given the input shapes; Dims{-1, {}} for a bad index.
    virtual Dims getOutputDimensions(int32_t index, Dims const* inputs, int32_t nbInputDims) noexcept = 0;

    //! Whether the plugin supports the given type/format for all of its I/O.
    virtual bool supportsFormat(DataType type, PluginFormat format) const noexcept = 0;

    //! Configure the plugin with the chosen shapes, type, format and maximum batch size.
    virtual void configureWithFormat(Dims const* inputDims, int32_t nbInputs, Dims const* outputDims,
        int32_t nbOutputs, DataType type, PluginFormat format, int32_t maxBatchSize) noexcept = 0;

    //! Acquire execution resources. Return 0 on success.
    virtual int32_t initialize() noexcept = 0;

    //! Release what initialize() acquired.
    virtual void terminate() noexcept = 0;

    //! Device workspace needed for any batch size up to maxBatchSize, in bytes.
    virtual size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept = 0;

    //! Run the layer on `stream`. Return 0 on success.
    virtual int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept = 0;

    //! Size in bytes of the buffer serialize() writes.
    virtual size_t getSerializationSize() const noexcept = 0;

    //! Write the plugin state to buffer (at least getSerializationSize() bytes).
    virtual void serialize(void* buffer) const noexcept = 0;

    //! Delete this object (called when the owning network, builder or engine is destroyed).
    virtual void destroy() noexcept = 0;

    //! Return an initialized copy with the same parameters, or nullptr on failure.
    virtual IPluginV2* clone() const noexcept = 0;

    //! Set the namespace the plugin belongs to.
    virtual void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept = 0;

    //! Namespace set by setPluginNamespace(); empty string by default.
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;

    IPluginV2() = default;
    virtual ~IPluginV2() noexcept = default;

protected:
    IPluginV2(IPluginV2 const&) = default;
    IPluginV2(IPluginV2&&) = default;
    IPluginV2& operator=(IPluginV2 const&) & = default;
    IPluginV2& operator=(IPluginV2&&) & = default;
};

//!
//! \class IPluginV2Ext
//! \brief IPluginV2 with per-output data types and per-context attachment.
//! \deprecated Deprecated in TensorRT 8.5; implement IPluginV3.
//!
class TRT_DEPRECATED IPluginV2Ext : public IPluginV2
{
public:
    //! Type of output `index` given the input types (kFLOAT for a bad index).
    virtual nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.0 (implicit batch was removed).
    TRT_DEPRECATED virtual bool isOutputBroadcastAcrossBatch(
        int32_t outputIndex, bool const* inputIsBroadcasted, int32_t nbInputs) const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.0 (implicit batch was removed).
    TRT_DEPRECATED virtual bool canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept = 0;

    //! Configure the plugin with shapes, types, broadcast flags, the float format and maximum batch size.
    virtual void configurePlugin(Dims const* inputDims, int32_t nbInputs, Dims const* outputDims, int32_t nbOutputs,
        DataType const* inputTypes, DataType const* outputTypes, bool const* inputIsBroadcast,
        bool const* outputIsBroadcast, PluginFormat floatFormat, int32_t maxBatchSize) noexcept = 0;

    IPluginV2Ext() = default;
    ~IPluginV2Ext() override = default;

    //! Called when an execution context adopts the plugin. Kiln always passes null cuDNN/cuBLAS handles.
    virtual void attachToContext(
        cudnnContext* /*cudnn*/, cublasContext* /*cublas*/, IGpuAllocator* /*allocator*/) noexcept
    {
    }

    //! Called when the execution context releases the plugin.
    virtual void detachFromContext() noexcept {}

    IPluginV2Ext* clone() const noexcept override = 0;

protected:
    IPluginV2Ext(IPluginV2Ext const&) = default;
    IPluginV2Ext(IPluginV2Ext&&) = default;
    IPluginV2Ext& operator=(IPluginV2Ext const&) & = default;
    IPluginV2Ext& operator=(IPluginV2Ext&&) & = default;

    //! API version with PluginVersion::kV2_EXT in the top byte. Do not override.
    int32_t getTensorRTVersion() const noexcept override
    {
        return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_EXT) << 24U)
            | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
    }

    //! No-op: IPluginV2Ext and its descendants are configured through configurePlugin().
    void configureWithFormat(Dims const* /*inputDims*/, int32_t /*nbInputs*/, Dims const* /*outputDims*/,
        int32_t /*nbOutputs*/, DataType /*type*/, PluginFormat /*format*/, int32_t /*maxBatchSize*/) noexcept override
    {
    }
};

//!
//! \class IPluginV2IOExt
//! \brief IPluginV2Ext with per-tensor format/type negotiation through PluginTensorDesc.
//! \deprecated Deprecated in TensorRT 10.0; implement IPluginV3.
//!
class TRT_DEPRECATED IPluginV2IOExt : public IPluginV2Ext
{
public:
    //! Configure the plugin with the chosen descriptors of every input and output.
    virtual void configurePlugin(
        PluginTensorDesc const* in, int32_t nbInput, PluginTensorDesc const* out, int32_t nbOutput) noexcept = 0;

    //! Whether inOut[pos] (inputs first, then outputs) has a supported type/format, given inOut[0..pos-1].
    //! Must only look at inOut[0..pos].
    virtual bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) const noexcept = 0;

    IPluginV2IOExt() = default;
    ~IPluginV2IOExt() override = default;

protected:
    IPluginV2IOExt(IPluginV2IOExt const&) = default;
    IPluginV2IOExt(IPluginV2IOExt&&) = default;
    IPluginV2IOExt& operator=(IPluginV2IOExt const&) & = default;
    IPluginV2IOExt& operator=(IPluginV2IOExt&&) & = default;

    //! API version with PluginVersion::kV2_IOEXT in the top byte. Do not override.
    int32_t getTensorRTVersion() const noexcept override
    {
        return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_IOEXT) << 24U)
            | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
    }

private:
    // Obsolete base-class entry points, sealed off for this generation.
    void configurePlugin(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*,
        bool const*, PluginFormat, int32_t) noexcept final
    {
    }

    bool supportsFormat(DataType, PluginFormat) const noexcept final
    {
        return false;
    }
};

namespace v_1_0
{
//!
//! \brief Creator (factory) for IPluginV2-generation plugins; registered with IPluginRegistry.
//! \deprecated Deprecated in TensorRT 10.0; implement IPluginCreatorV3One.
//!
class TRT_DEPRECATED IPluginCreator : public IPluginCreatorInterface
{
public:
    //! Plugin name this creator serves.
    virtual AsciiChar const* getPluginName() const noexcept = 0;

    //! Plugin version this creator serves.
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;

    //! Fields that createPlugin() understands.
    virtual PluginFieldCollection const* getFieldNames() noexcept = 0;

    //! Create a plugin from fields; nullptr on error.
    virtual IPluginV2* createPlugin(AsciiChar const* name, PluginFieldCollection const* fc) noexcept = 0;

    //! Recreate a plugin from the bytes written by IPluginV2::serialize(); nullptr on error.
    virtual IPluginV2* deserializePlugin(AsciiChar const* name, void const* serialData, size_t serialLength) noexcept
        = 0;

    //! Set the namespace of the creator (normally done at registration).
    virtual void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept = 0;

    //! Namespace of the creator.
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;

    IPluginCreator() = default;
    ~IPluginCreator() override = default;

protected:
    IPluginCreator(IPluginCreator const&) = default;
    IPluginCreator(IPluginCreator&&) = default;
    IPluginCreator& operator=(IPluginCreator const&) & = default;
    IPluginCreator& operator=(IPluginCreator&&) & = default;

public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN CREATOR_V1", 1, 0};
    }
};
} // namespace v_1_0

using IPluginCreator = v_1_0::IPluginCreator;

KILN_IGNORE_DEPRECATED_END

} // namespace nvinfer1

#endif // NV_INFER_RUNTIME_PLUGIN_H
