// SliceLayer: ISliceLayer (strided slice with out-of-bounds modes). Attributes:
//   "start", "size", "stride"  ints  static parameters (absent when the matching input supplies them)
//   "axes"                     ints  static axes the parameters apply to (absent: all axes, in order)
//   "mode"                     int   nvinfer1::SampleMode
// Inputs: 0 data; 1 start; 2 size; 3 stride (1-D INT32/INT64 shape tensors); 4 fill value for kFILL (a
// scalar of the data type); 5 axes (1-D INT32/INT64 shape tensor). An input replaces its static parameter.
#pragma once

#include "network/layer.h"

namespace kiln
{

class SliceLayer final : public LayerBase<nvinfer1::ISliceLayer>
{
public:
    SliceLayer(NetworkDefinition& network, Tensor* input, nvinfer1::Dims const& start, nvinfer1::Dims const& size,
        nvinfer1::Dims const& stride);

    void setStart(nvinfer1::Dims const& start) noexcept override;
    nvinfer1::Dims getStart() const noexcept override;
    void setSize(nvinfer1::Dims const& size) noexcept override;
    nvinfer1::Dims getSize() const noexcept override;
    void setStride(nvinfer1::Dims const& stride) noexcept override;
    nvinfer1::Dims getStride() const noexcept override;
    void setMode(nvinfer1::SampleMode mode) noexcept override;
    nvinfer1::SampleMode getMode() const noexcept override;
    void setAxes(nvinfer1::Dims const& axes) noexcept override;
    nvinfer1::Dims getAxes() const noexcept override;
    void setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept override;

    //! Checks a parameter list given as Dims (count, and non-negative extents for sizes); "" when valid.
    static std::string checkDims(nvinfer1::Dims const& d, char const* what, bool nonNegative);

private:
    void setParameter(char const* key, int32_t slot, nvinfer1::Dims const& d, bool nonNegative, char const* api);
    nvinfer1::Dims getParameter(char const* key, int32_t slot) const;
    bool hasInputAt(int32_t slot) const;
};

} // namespace kiln
