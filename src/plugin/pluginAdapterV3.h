// PluginAdapterV3: the adapter for IPluginV3 plugins with the "One" capabilities (IPluginV3OneCore,
// IPluginV3OneBuild / IPluginV3OneBuildV2, IPluginV3OneRuntime). Capabilities are fetched once with
// getCapabilityInterface() and checked by their getInterfaceInfo() kind and version, as TensorRT does.
#pragma once

#include "plugin/pluginAdapter.h"

#include <optional>

namespace kiln
{

class PluginAdapterV3 final : public PluginAdapter
{
public:
    static StatusOr<std::unique_ptr<PluginAdapter>> create(nvinfer1::IPluginV3* plugin, PluginOwnership ownership,
        nvinfer1::TensorRTPhase phase, Logger const& logger);
    ~PluginAdapterV3() override;

    StatusOr<std::unique_ptr<PluginAdapter>> clone() const override;
    bool supportsCpu() const override;
    std::string cpuOptInAdvice() const override;
    void* object() const override { return mPlugin; }

    StatusOr<int32_t> nbOutputs() const override;
    //! nbOutputs() for checking an engine's record at load. An object created for the runtime phase need not answer
    //! getNbOutputs (it belongs to the build capability): it is asked through getCapabilityInterface(kBUILD) when
    //! that gives an interface of the right kind (many plugins implement every capability in one class), else the
    //! answer is nullopt: no count to check (onShapeChange still gets the recorded counts and may refuse them).
    StatusOr<std::optional<int32_t>> nbOutputsIfKnown() const;
    StatusOr<std::vector<nvinfer1::DataType>> outputTypes(
        std::vector<nvinfer1::DataType> const& inputTypes) const override;
    StatusOr<PluginShapes> outputShapes(ShapeGraph& graph, std::vector<ShapeExpr> const& inputs,
        std::vector<std::vector<DimExpr>> const& shapeInputs) override;
    StatusOr<bool> supportsFormatCombination(
        int32_t pos, std::vector<nvinfer1::PluginTensorDesc> const& inOut, int32_t nbInputs) override;
    StatusOr<bool> supportsFormatCombinationDynamic(
        int32_t pos, std::vector<nvinfer1::DynamicPluginTensorDesc> const& inOut, int32_t nbInputs) override;
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

    //! The capabilities (build ones are nullptr for plugins created for the runtime phase).
    nvinfer1::IPluginV3OneCore* core() const { return mCore; }
    nvinfer1::IPluginV3OneBuild* build() const { return mBuild; }
    nvinfer1::IPluginV3OneRuntime* runtime() const { return mRuntime; }

private:
    struct Capabilities
    {
        nvinfer1::IPluginV3OneCore* core{nullptr};
        nvinfer1::IPluginV3OneBuild* build{nullptr};
        nvinfer1::IPluginV3OneBuildV2* buildV2{nullptr};
        nvinfer1::IPluginV3OneRuntime* runtime{nullptr};
    };

    PluginAdapterV3(nvinfer1::IPluginV3* plugin, Capabilities caps, PluginOwnership ownership,
        nvinfer1::TensorRTPhase phase, std::string name, std::string version, std::string pluginNamespace,
        Logger const& logger);

    //! The plugin's answer to getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_CPU) when it has the right kind.
    IPluginCpuSupport const* cpuCapability() const;
    //! Fails for build-phase questions asked of a plugin created for the runtime phase.
    Status requireBuild(char const* call) const;

    nvinfer1::IPluginV3* mPlugin;
    Capabilities mCaps;
    nvinfer1::IPluginV3OneCore* mCore;
    nvinfer1::IPluginV3OneBuild* mBuild;
    nvinfer1::IPluginV3OneRuntime* mRuntime;
    PluginOwnership mOwnership;
    nvinfer1::TensorRTPhase mPhase;
};

} // namespace kiln
