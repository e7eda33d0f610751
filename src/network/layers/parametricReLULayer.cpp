// ParametricReLULayer, INetworkDefinition::addParametricReLU and the parametric ReLU shape/type inference.
#include "network/layers/parametricReLULayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/elementWiseLayer.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;

ParametricReLULayer::ParametricReLULayer(NetworkDefinition& network, Tensor* input, Tensor* slope)
    : LayerBase<nvinfer1::IParametricReLULayer>(network, nvinfer1::LayerType::kPARAMETRIC_RELU, {input, slope}, 1)
{
}

nvinfer1::IParametricReLULayer* NetworkDefinition::addParametricReLU(
    nvinfer1::ITensor& input, nvinfer1::ITensor& slope) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addParametricReLU input");
        if (in == nullptr)
        {
            return nullptr;
        }
        Tensor* s = ownTensor(&slope, "addParametricReLU slope");
        if (s == nullptr)
        {
            return nullptr;
        }
        return adopt(std::make_unique<ParametricReLULayer>(*this, in, s));
    }
    catch (...)
    {
        reportError(internalError("addParametricReLU: unexpected exception"));
        return nullptr;
    }
}

Status inferParametricReLU(InferContext& ctx)
{
    if (ctx.nbInputs() != 2)
    {
        return ctx.error("needs exactly 2 inputs (data and slope), has " + std::to_string(ctx.nbInputs()));
    }
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1));
    TensorInfo const& in = ctx.input(0);
    TensorInfo const& slope = ctx.input(1);
    if (!isFloatStorageType(in.type))
    {
        return ctx.error("input '" + in.name + "' has type " + typeName(in.type) + "; expected FP32, FP16 or BF16");
    }
    if (slope.type != in.type)
    {
        bool const mixedFloat = isFloatStorageType(slope.type) && !ctx.stronglyTyped();
        if (!mixedFloat)
        {
            return ctx.error("slope '" + slope.name + "' has type " + typeName(slope.type) + " but input '" + in.name
                + "' has type " + typeName(in.type) + "; the types must match");
        }
    }
    if (slope.rank() != in.rank())
    {
        return ctx.error("slope '" + slope.name + "' has rank " + std::to_string(slope.rank()) + " but input '"
            + in.name + "' has rank " + std::to_string(in.rank()) + "; the ranks must match");
    }
    for (int32_t i = 0; i < in.rank(); ++i)
    {
        DimExpr const x = in.dims[static_cast<size_t>(i)];
        DimExpr const s = slope.dims[static_cast<size_t>(i)];
        if (s.isConstant() && x.isConstant())
        {
            if (s.constant() != 1 && s.constant() != x.constant())
            {
                return ctx.error("slope '" + slope.name + "' extent " + std::to_string(s.constant()) + " in dimension "
                    + std::to_string(i) + " cannot be broadcast to input extent " + std::to_string(x.constant()));
            }
            continue;
        }
        if (s.is(1))
        {
            continue;
        }
        KILN_RETURN_IF_ERROR(ctx.require(s.eq(1).logicalOr(s.eq(x)),
            "slope '" + slope.name + "' dimension " + std::to_string(i) + " cannot be broadcast to input '" + in.name
                + "'"));
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = in.dims;
    return Status::ok();
}

} // namespace kiln
