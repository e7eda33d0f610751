// GatherLayer: nvinfer1::IGatherLayer (kDEFAULT like ONNX Gather, kELEMENT like GatherElements, kND like GatherND).
// Attributes: "mode" (int, nvinfer1::GatherMode), "axis" (int, gather axis for kDEFAULT/kELEMENT),
// "nbElementWiseDims" (int, leading dimensions handled elementwise: 0 or 1 for kDEFAULT, batch dims for kND).
// Inputs: 0 data; 1 indices (INT32 or INT64).
#pragma once

#include "network/layer.h"

namespace kiln
{

class GatherLayer final : public LayerBase<nvinfer1::IGatherLayer>
{
public:
    GatherLayer(NetworkDefinition& network, Tensor* data, Tensor* indices, nvinfer1::GatherMode mode, int32_t axis);

    void setGatherAxis(int32_t axis) noexcept override;
    int32_t getGatherAxis() const noexcept override;
    void setNbElementWiseDims(int32_t elementWiseDims) noexcept override;
    int32_t getNbElementWiseDims() const noexcept override;
    void setMode(nvinfer1::GatherMode mode) noexcept override;
    nvinfer1::GatherMode getMode() const noexcept override;
};

} // namespace kiln
