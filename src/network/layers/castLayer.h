// CastLayer: Kiln's ICastLayer (conversion to another data type).
//
// Attributes: "toType" (int, nvinfer1::DataType of the output). No weights. Input 0: the tensor to convert.
// Conversions: float to integer truncates toward zero (saturating out-of-range values, NaN gives 0); integer to
// integer wraps (two's complement); anything to BOOL is value != 0; BOOL to anything is 0 or 1.
#pragma once

#include "core/shapeExpr.h"
#include "network/layer.h"

#include <optional>
#include <vector>

namespace kiln
{

class CastLayer final : public LayerBase<nvinfer1::ICastLayer>
{
public:
    CastLayer(NetworkDefinition& network, Tensor* input, nvinfer1::DataType toType);

    void setToType(nvinfer1::DataType toType) noexcept override;
    nvinfer1::DataType getToType() const noexcept override;
};

//! Shape-tensor values converted from `from` to `to`: integer/BOOL among themselves (BOOL is v != 0), integer or
//! BOOL to FLOAT, FLOAT to FLOAT, and FLOAT to INT32/INT64 (truncation; NaN or infinity fails at evaluation).
//! nullopt for the other conversions (their values are not tracked).
std::optional<std::vector<DimExpr>> castValues(
    std::vector<DimExpr> const& values, nvinfer1::DataType from, nvinfer1::DataType to);

} // namespace kiln
