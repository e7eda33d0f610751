// ConstantLayer: Kiln's IConstantLayer (a tensor whose contents are weights).
//
// Attributes: "dims" (ints, the output dimensions; all >= 0). Weights slot 0: the contents, row-major; their
// type is the output type and their count must equal the volume of "dims".
#pragma once

#include "network/layer.h"

namespace kiln
{

class ConstantLayer final : public LayerBase<nvinfer1::IConstantLayer>
{
public:
    ConstantLayer(NetworkDefinition& network, nvinfer1::Dims const& dimensions, nvinfer1::Weights weights);

    void setWeights(nvinfer1::Weights weights) noexcept override;
    nvinfer1::Weights getWeights() const noexcept override;
    void setDimensions(nvinfer1::Dims const& dimensions) noexcept override;
    nvinfer1::Dims getDimensions() const noexcept override;
};

} // namespace kiln
