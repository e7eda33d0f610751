// ParametricReLULayer: Kiln's IParametricReLULayer, y = x >= 0 ? x : slope * x.
//
// No attributes, no weights. Input 0: data; input 1: slope, broadcast to the data (same rank; each slope extent
// equals the data's or is 1).
#pragma once

#include "network/layer.h"

namespace kiln
{

class ParametricReLULayer final : public LayerBase<nvinfer1::IParametricReLULayer>
{
public:
    ParametricReLULayer(NetworkDefinition& network, Tensor* input, Tensor* slope);
};

} // namespace kiln
