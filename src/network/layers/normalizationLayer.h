// NormalizationLayer: nvinfer1::INormalizationLayer: y = (x - mean) / sqrt(var + epsilon) * scale + bias, with mean
// and variance over the axes in a mask (layer and instance norm) or, with nbGroups > 1, over the channels of a group
// (channel axis 1) and the masked axes (group norm).
// Attributes: "epsilon" (float, default 1e-5), "axes" (int, bitmask), "nbGroups" (int, default 1),
// "computePrecision" (int, nvinfer1::DataType, default kFLOAT), "v2" (int 0/1: created by addNormalizationV2).
// Inputs: 0 input; 1 scale; 2 bias. Scale and bias have the input's rank and broadcast to it one way; for a group
// norm made by addNormalization (V1) their channel dimension holds one value per group ([1, G, 1, ...]), for
// addNormalizationV2 one value per channel ([1, C, 1, ...]).
#pragma once

#include "network/layer.h"

namespace kiln
{

class NormalizationLayer final : public LayerBase<nvinfer1::INormalizationLayer>
{
public:
    NormalizationLayer(NetworkDefinition& network, Tensor* input, Tensor* scale, Tensor* bias, uint32_t axes, bool v2);

    void setEpsilon(float eps) noexcept override;
    float getEpsilon() const noexcept override;
    void setAxes(uint32_t axesMask) noexcept override;
    uint32_t getAxes() const noexcept override;
    void setNbGroups(int64_t nbGroups) noexcept override;
    int64_t getNbGroups() const noexcept override;
    void setComputePrecision(nvinfer1::DataType type) noexcept override;
    nvinfer1::DataType getComputePrecision() const noexcept override;
    bool isV2() const noexcept override;
};

} // namespace kiln
