// ResizeLayer: IResizeLayer (nearest, linear and cubic resizing, ONNX Resize semantics). Attributes:
//   "output_dims"      ints    static output dimensions (set by setOutputDimensions)
//   "scales"           floats  static scales, out = floor(in * scale) (set by setScales; excludes "output_dims")
//   "mode"             int     nvinfer1::InterpolationMode (default kNEAREST)
//   "coord_transform"  int     nvinfer1::ResizeCoordinateTransformation (default kASYMMETRIC)
//   "selector"         int     nvinfer1::ResizeSelector (default kFORMULA)
//   "nearest_rounding" int     nvinfer1::ResizeRoundMode (default kFLOOR)
//   "cubic_coeff"      float   cubic coefficient A (default -0.75)
//   "exclude_outside"  int     1: samples outside the input get weight 0 and the weights are renormalized
// Inputs: 0 data; 1 (optional) output dimensions as a 1-D INT32/INT64 shape tensor, or scales as a 1-D FP32
// tensor (Kiln extension): a build-time constant, or a FLOAT shape tensor whose values are known before execution
// (out = floor(in * scale) is then evaluated at run time and the kernel reads the scales from input 1).
#pragma once

#include "network/layer.h"

namespace kiln
{

class ResizeLayer final : public LayerBase<nvinfer1::IResizeLayer>
{
public:
    ResizeLayer(NetworkDefinition& network, Tensor* input);

    void setOutputDimensions(nvinfer1::Dims const& dimensions) noexcept override;
    nvinfer1::Dims getOutputDimensions() const noexcept override;
    void setScales(float const* scales, int32_t nbScales) noexcept override;
    int32_t getScales(int32_t size, float* scales) const noexcept override;
    void setResizeMode(nvinfer1::InterpolationMode interpolationMode) noexcept override;
    nvinfer1::InterpolationMode getResizeMode() const noexcept override;
    void setCoordinateTransformation(nvinfer1::ResizeCoordinateTransformation coordTransform) noexcept override;
    nvinfer1::ResizeCoordinateTransformation getCoordinateTransformation() const noexcept override;
    void setSelectorForSinglePixel(nvinfer1::ResizeSelector selector) noexcept override;
    nvinfer1::ResizeSelector getSelectorForSinglePixel() const noexcept override;
    void setNearestRounding(nvinfer1::ResizeRoundMode value) noexcept override;
    nvinfer1::ResizeRoundMode getNearestRounding() const noexcept override;
    void setCubicCoeff(float A) noexcept override;
    float getCubicCoeff() const noexcept override;
    void setExcludeOutside(bool excludeFlag) noexcept override;
    bool getExcludeOutside() const noexcept override;
    void setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept override;

private:
    bool dynamic() const;
    void reject(std::string const& api, std::string const& problem) const;
    bool setEnum(char const* key, int32_t value, int32_t count, char const* api);
};

} // namespace kiln
