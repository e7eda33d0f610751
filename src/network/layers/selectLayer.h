// SelectLayer: Kiln's ISelectLayer, output = condition ? thenInput : elseInput, elementwise with broadcasting.
//
// No attributes, no weights. Input 0: kBOOL condition; input 1: then; input 2: else (same type as then).
#pragma once

#include "network/layer.h"

namespace kiln
{

class SelectLayer final : public LayerBase<nvinfer1::ISelectLayer>
{
public:
    SelectLayer(NetworkDefinition& network, Tensor* condition, Tensor* thenInput, Tensor* elseInput);
};

} // namespace kiln
