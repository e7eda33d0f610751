// ShapeLayer: IShapeLayer, which outputs the dimensions of its input as a 1-D INT64 tensor. It has no
// attributes and no weights; its output values are the input's (symbolic) dimensions, which is where
// shape-tensor computations start.
#pragma once

#include "network/layer.h"

namespace kiln
{

class ShapeLayer final : public LayerBase<nvinfer1::IShapeLayer>
{
public:
    ShapeLayer(NetworkDefinition& network, Tensor* input);
};

} // namespace kiln
