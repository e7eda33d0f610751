// EinsumLayer: nvinfer1::IEinsumLayer (Einstein summation over one or more inputs).
// Attribute: "equation" (string, as given; see einsumEquation.h for the accepted syntax).
// Inputs: the operands, all of one floating-point type (FP32, FP16 or BF16).
#pragma once

#include "network/layer.h"

namespace kiln
{

class EinsumLayer final : public LayerBase<nvinfer1::IEinsumLayer>
{
public:
    EinsumLayer(NetworkDefinition& network, std::vector<Tensor*> inputs, std::string const& equation);

    bool setEquation(char const* equation) noexcept override;
    char const* getEquation() const noexcept override;

private:
    std::string mEquation; // backs getEquation()'s pointer
};

} // namespace kiln
