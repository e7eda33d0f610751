// NMSLayer: nvinfer1::INMSLayer (non-maximum suppression per batch item and class).
// Attributes: "boxFormat" (int, nvinfer1::BoundingBoxFormat), "topKBoxLimit" (int, candidates per batch item),
// "indicesType" (int, kINT32 or kINT64).
// Inputs: 0 boxes [B, N, 4] or [B, N, C, 4]; 1 scores [B, N, C] (FP32/FP16, the type of the boxes);
// 2 maxOutputBoxesPerClass (0-D INT32 shape tensor); 3 iouThreshold (optional 0-D FP32, default 0);
// 4 scoreThreshold (optional 0-D FP32, default 0).
// Outputs: 0 selected indices [count, 3] rows (batch, class, box); 1 count, a 0-D INT32 size tensor (the
// data-dependent dimension of output 0, see dataDependentOutput.h).
#pragma once

#include "network/layer.h"

namespace kiln
{

class NMSLayer final : public LayerBase<nvinfer1::INMSLayer>
{
public:
    NMSLayer(NetworkDefinition& network, Tensor* boxes, Tensor* scores, Tensor* maxOutputBoxesPerClass,
        nvinfer1::DataType indicesType);

    void setBoundingBoxFormat(nvinfer1::BoundingBoxFormat fmt) noexcept override;
    nvinfer1::BoundingBoxFormat getBoundingBoxFormat() const noexcept override;
    void setTopKBoxLimit(int32_t limit) noexcept override;
    int32_t getTopKBoxLimit() const noexcept override;
    bool setIndicesType(nvinfer1::DataType type) noexcept override;
    nvinfer1::DataType getIndicesType() const noexcept override;

    //! Default and largest TopK box limit (TensorRT's limit on recent GPUs).
    static constexpr int32_t kMAX_TOPK_BOX_LIMIT = 5000;
};

} // namespace kiln
