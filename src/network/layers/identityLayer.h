// IdentityLayer: Kiln's IIdentityLayer. Copies its input; in weakly typed networks ILayer::setOutputType turns
// it into a conversion (TensorRT's older way to cast), which the CPU kernel performs.
//
// No attributes, no weights. Input 0: the tensor to copy.
#pragma once

#include "network/layer.h"

namespace kiln
{

class IdentityLayer final : public LayerBase<nvinfer1::IIdentityLayer>
{
public:
    IdentityLayer(NetworkDefinition& network, Tensor* input);
};

} // namespace kiln
