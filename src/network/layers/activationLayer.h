// ActivationLayer: Kiln's IActivationLayer (one activation function of one tensor).
//
// Attributes: "type" (int, nvinfer1::ActivationType), "alpha" and "beta" (float, default 0; their meaning per
// type is documented in docs/layers/elementwise.md and in NvInfer.h's ActivationType). No weights.
#pragma once

#include "network/layer.h"

namespace kiln
{

class ActivationLayer final : public LayerBase<nvinfer1::IActivationLayer>
{
public:
    ActivationLayer(NetworkDefinition& network, Tensor* input, nvinfer1::ActivationType type);

    void setActivationType(nvinfer1::ActivationType type) noexcept override;
    nvinfer1::ActivationType getActivationType() const noexcept override;
    void setAlpha(float alpha) noexcept override;
    void setBeta(float beta) noexcept override;
    float getAlpha() const noexcept override;
    float getBeta() const noexcept override;
};

} // namespace kiln
