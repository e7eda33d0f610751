// FillLayer: IFillLayer (linspace, uniform or normal random values). Attributes:
//   "dims"       ints    static output dimensions (ignored when input 0 supplies them)
//   "op"         int     nvinfer1::FillOperation
//   "alpha"      float   start (linspace), minimum (uniform) or mean (normal), as double
//   "beta"       float   delta (linspace), maximum (uniform) or standard deviation (normal), as double
//   "alpha_int"  int     alpha set with setAlphaInt64
//   "beta_int"   int     beta set with setBetaInt64
//   "int_params" int     1 when alpha/beta are int64 (setAlphaInt64/setBetaInt64 was the last call), else 0
//   "to_type"    int     output nvinfer1::DataType
//   "seed"       int     seed of the random operations (fixed per layer; see docs/layers/shape-movement.md)
// Inputs (all optional): 0 output dimensions (1-D INT32/INT64 shape tensor); 1 alpha (scalar); 2 beta
// (scalar, or a 1-D tensor with one delta per output dimension for linspace). 1 and 2 go together.
#pragma once

#include "network/layer.h"

namespace kiln
{

class FillLayer final : public LayerBase<nvinfer1::IFillLayer>
{
public:
    FillLayer(NetworkDefinition& network, nvinfer1::Dims const& dims, nvinfer1::FillOperation op,
        nvinfer1::DataType toType, int64_t seed);

    void setDimensions(nvinfer1::Dims const& dimensions) noexcept override;
    nvinfer1::Dims getDimensions() const noexcept override;
    void setOperation(nvinfer1::FillOperation op) noexcept override;
    nvinfer1::FillOperation getOperation() const noexcept override;
    void setAlpha(double alpha) noexcept override;
    double getAlpha() const noexcept override;
    void setBeta(double beta) noexcept override;
    double getBeta() const noexcept override;
    void setAlphaInt64(int64_t alpha) noexcept override;
    int64_t getAlphaInt64() const noexcept override;
    void setBetaInt64(int64_t beta) noexcept override;
    int64_t getBetaInt64() const noexcept override;
    bool isAlphaBetaInt64() const noexcept override;
    void setToType(nvinfer1::DataType toType) noexcept override;
    nvinfer1::DataType getToType() const noexcept override;
    void setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept override;

    //! "" when `d` is a valid static output shape, else the problem.
    static std::string checkDims(nvinfer1::Dims const& d);
    //! "" when `t` is a valid output type for `op` (TensorRT's set plus HALF/BF16), else the problem.
    static std::string checkType(nvinfer1::FillOperation op, nvinfer1::DataType t);

private:
    bool hasInputAt(int32_t slot) const;
    void clearInput(int32_t slot);
};

} // namespace kiln
