// GridSampleLayer: nvinfer1::IGridSampleLayer (samples a [N, C, H, W] input at the normalized [-1, 1] locations of a
// [N, Hout, Wout, 2] grid, giving [N, C, Hout, Wout]).
// Attributes: "interpolationMode" (int, nvinfer1::InterpolationMode; default kLINEAR), "alignCorners" (int 0/1;
// default 0), "sampleMode" (int, nvinfer1::SampleMode: kFILL (zeros, the default), kCLAMP (border) or kREFLECT).
// Inputs: 0 input, 1 grid (same floating-point type: FP32, FP16 or BF16).
#pragma once

#include "network/layer.h"

namespace kiln
{

class GridSampleLayer final : public LayerBase<nvinfer1::IGridSampleLayer>
{
public:
    GridSampleLayer(NetworkDefinition& network, Tensor* input, Tensor* grid);

    void setInterpolationMode(nvinfer1::InterpolationMode mode) noexcept override;
    nvinfer1::InterpolationMode getInterpolationMode() const noexcept override;
    void setAlignCorners(bool alignCorners) noexcept override;
    bool getAlignCorners() const noexcept override;
    bool setSampleMode(nvinfer1::SampleMode mode) noexcept override;
    nvinfer1::SampleMode getSampleMode() const noexcept override;
};

} // namespace kiln
