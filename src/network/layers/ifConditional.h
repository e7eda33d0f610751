// IfConditional: Kiln's nvinfer1::IIfConditional, the builder object of an if-then-else. Owned by the network,
// it creates the boundary layers: one condition layer (0-D BOOL), input layers (identity copies usable by both
// branches) and output layers (input 0 from the true branch, input 1 from the false branch). A branch is the set
// of layers that only that branch's outputs need (see loopRegions.h); only the taken branch runs.
#pragma once

#include "NvInfer.h"

#include <string>
#include <vector>

namespace kiln
{
class Layer;
class NetworkDefinition;
class Tensor;

class IfConditional final : public nvinfer1::IIfConditional
{
public:
    IfConditional(NetworkDefinition& network, int32_t index);
    ~IfConditional() noexcept override = default;

    nvinfer1::IConditionLayer* setCondition(nvinfer1::ITensor& condition) noexcept override;
    nvinfer1::IIfConditionalOutputLayer* addOutput(
        nvinfer1::ITensor& trueSubgraphOutput, nvinfer1::ITensor& falseSubgraphOutput) noexcept override;
    nvinfer1::IIfConditionalInputLayer* addInput(nvinfer1::ITensor& input) noexcept override;
    void setName(char const* name) noexcept override;
    char const* getName() const noexcept override;

    NetworkDefinition& network() const { return mNetwork; }
    std::string const& name() const { return mName; }
    std::string label() const { return "conditional '" + mName + "'"; }
    std::vector<Layer*> const& boundaryLayers() const { return mLayers; }
    //! The condition tensor (nullptr until setCondition).
    Tensor* condition() const { return mCondition; }

private:
    NetworkDefinition& mNetwork;
    std::string mName;
    std::vector<Layer*> mLayers;
    Layer* mConditionLayer{nullptr};
    Tensor* mCondition{nullptr};
};

//! The conditional a boundary layer belongs to, or nullptr for any other layer.
IfConditional* conditionalOf(Layer const& layer);

} // namespace kiln
