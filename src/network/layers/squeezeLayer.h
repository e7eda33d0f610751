// SqueezeLayer and UnsqueezeLayer: nvinfer1::ISqueezeLayer (remove unit dimensions) and nvinfer1::IUnsqueezeLayer
// (insert unit dimensions). Both keep the data in row-major order and have no attributes.
// Inputs: 0 data; 1 axes (1-D INT32/INT64 tensor of build-time constants; negative values count from the end of the
// input (Squeeze) or of the output (Unsqueeze)).
#pragma once

#include "network/layer.h"

namespace kiln
{

class SqueezeLayer final : public LayerBase<nvinfer1::ISqueezeLayer>
{
public:
    SqueezeLayer(NetworkDefinition& network, Tensor* input, Tensor* axes);
};

class UnsqueezeLayer final : public LayerBase<nvinfer1::IUnsqueezeLayer>
{
public:
    UnsqueezeLayer(NetworkDefinition& network, Tensor* input, Tensor* axes);
};

} // namespace kiln
