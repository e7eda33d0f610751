// PluginAdapterV2: the adapter for the IPluginV2 family (IPluginV2, IPluginV2Ext, IPluginV2IOExt,
// IPluginV2DynamicExt). The generation comes from the top byte of getTensorRTVersion(), exactly as TensorRT decides
// it, so plugins compiled against NVIDIA's headers are recognised; the object is then static_cast to the
// generation's interface. Generations without dynamic shapes see explicit-batch shapes with batch size 1.
#pragma once

#include "plugin/pluginAdapter.h"

namespace kiln
{

KILN_IGNORE_DEPRECATED_BEGIN

class PluginAdapterV2 final : public PluginAdapter
{
public:
    static StatusOr<std::unique_ptr<PluginAdapter>> create(
        nvinfer1::IPluginV2* plugin, PluginOwnership ownership, Logger const& logger);
    ~PluginAdapterV2() override;

    StatusOr<std::unique_ptr<PluginAdapter>> clone() const override;
    bool supportsCpu() const override;
    std::string cpuOptInAdvice() const override;
    void* object() const override { return mPlugin; }

    StatusOr<int32_t> nbOutputs() const override;
    StatusOr<std::vector<nvinfer1::DataType>> outputTypes(
        std::vector<nvinfer1::DataType> const& inputTypes) const override;
    StatusOr<PluginShapes> outputShapes(ShapeGraph& graph, std::vector<ShapeExpr> const& inputs,
        std::vector<std::vector<DimExpr>> const& shapeInputs) override;
    StatusOr<bool> supportsFormatCombination(
        int32_t pos, std::vector<nvinfer1::PluginTensorDesc> const& inOut, int32_t nbInputs) override;
    int32_t formatCombinationLimit() override;
    Status configure(std::vector<nvinfer1::DynamicPluginTensorDesc> const& in,
        std::vector<nvinfer1::DynamicPluginTensorDesc> const& out) override;
    StatusOr<size_t> workspaceSize(std::vector<nvinfer1::DynamicPluginTensorDesc> const& in,
        std::vector<nvinfer1::DynamicPluginTensorDesc> const& out) const override;
    StatusOr<std::vector<int32_t>> validTactics() override;
    Status setTactic(int32_t tactic) override;
    int32_t aliasedInput(int32_t output) override;
    std::string timingCacheId() override;
    std::string metadata() override;
    StatusOr<std::string> serialize() override;
    Status initialize() override;
    void terminate() override;
    StatusOr<std::unique_ptr<PluginAdapter>> attachToContext(nvinfer1::IPluginResourceContext& resources) override;
    Status onShapeChange(std::vector<nvinfer1::PluginTensorDesc> const& in,
        std::vector<nvinfer1::PluginTensorDesc> const& out) override;
    Status enqueue(std::vector<nvinfer1::PluginTensorDesc> const& inDesc,
        std::vector<nvinfer1::PluginTensorDesc> const& outDesc, void const* const* inputs, void* const* outputs,
        void* workspace, cudaStream_t stream) override;

private:
    PluginAdapterV2(nvinfer1::IPluginV2* plugin, PluginGeneration generation, PluginOwnership ownership,
        std::string name, std::string version, std::string pluginNamespace, Logger const& logger);

    nvinfer1::IPluginV2Ext* ext() const { return static_cast<nvinfer1::IPluginV2Ext*>(mPlugin); }
    nvinfer1::IPluginV2IOExt* ioExt() const { return static_cast<nvinfer1::IPluginV2IOExt*>(mPlugin); }
    nvinfer1::IPluginV2DynamicExt* dynamicExt() const { return static_cast<nvinfer1::IPluginV2DynamicExt*>(mPlugin); }
    bool isDynamic() const { return generation() == PluginGeneration::kV2_DYNAMIC_EXT; }
    bool isIoExt() const { return generation() == PluginGeneration::kV2_IOEXT; }
    //! IPluginV2 or IPluginV2Ext: one type and format for all I/O, supportsFormat().
    bool isLegacyFormat() const
    {
        return generation() == PluginGeneration::kV2 || generation() == PluginGeneration::kV2_EXT;
    }

    StatusOr<PluginShapes> staticOutputShapes(ShapeGraph& graph, std::vector<ShapeExpr> const& inputs);
    StatusOr<PluginShapes> dynamicOutputShapes(ShapeGraph& graph, std::vector<ShapeExpr> const& inputs);

    nvinfer1::IPluginV2* mPlugin;
    PluginOwnership mOwnership;
    bool mInitialized{false};
    bool mAttached{false}; //!< attachToContext() was called on this object: detachFromContext() before destroy()
};

KILN_IGNORE_DEPRECATED_END

} // namespace kiln
