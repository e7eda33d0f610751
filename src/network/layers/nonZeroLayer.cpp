// NonZeroLayer, INetworkDefinition::addNonZero (both overloads) and the NonZero shape/type inference.
#include "network/layers/nonZeroLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/dataDependentOutput.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;

NonZeroLayer::NonZeroLayer(NetworkDefinition& network, Tensor* input, DataType indicesType)
    : LayerBase<nvinfer1::INonZeroLayer>(network, nvinfer1::LayerType::kNON_ZERO, {input}, 2)
{
    attrs().setInt("indicesType", static_cast<int64_t>(indicesType));
}

bool NonZeroLayer::setIndicesType(DataType type) noexcept
{
    if (type != DataType::kINT32 && type != DataType::kINT64)
    {
        network().reportError(invalidArgument("INonZeroLayer::setIndicesType on layer '" + name() + "': type "
            + dataTypeName(type) + " is not kINT32 or kINT64"));
        return false;
    }
    attrs().setInt("indicesType", static_cast<int64_t>(type));
    touch();
    return true;
}

DataType NonZeroLayer::getIndicesType() const noexcept
{
    return static_cast<DataType>(attrs().getInt("indicesType", static_cast<int64_t>(DataType::kINT32)));
}

nvinfer1::INonZeroLayer* NetworkDefinition::addNonZero(nvinfer1::ITensor& input, DataType indicesType) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addNonZero input");
        if (in == nullptr)
        {
            return nullptr;
        }
        if (indicesType != DataType::kINT32 && indicesType != DataType::kINT64)
        {
            reportError(invalidArgument(
                std::string("addNonZero: indicesType ") + dataTypeName(indicesType) + " is not kINT32 or kINT64"));
            return nullptr;
        }
        NonZeroLayer* layer = adopt(std::make_unique<NonZeroLayer>(*this, in, indicesType));
        // One visible output, named as TensorRT names a single output; the internal count gets its own name.
        layer->outputs()[0]->setName((layer->name() + "_output").c_str());
        layer->outputs()[1]->setName((layer->name() + "_count").c_str());
        return layer;
    }
    catch (...)
    {
        reportError(internalError("addNonZero: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::INonZeroLayer* NetworkDefinition::addNonZero(nvinfer1::ITensor& input) noexcept
{
    return addNonZero(input, DataType::kINT32);
}

Status inferNonZero(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 0, nvinfer1::Dims::MAX_DIMS));
    TensorInfo const& in = ctx.input(0);
    DataType const t = in.type;
    if (t != DataType::kFLOAT && t != DataType::kHALF && t != DataType::kBF16 && t != DataType::kINT8
        && t != DataType::kINT32 && t != DataType::kINT64 && t != DataType::kBOOL)
    {
        return ctx.error("input '" + in.name + "' has type " + dataTypeName(t)
            + "; NonZero supports FP32, FP16, BF16, INT8, INT32, INT64 and BOOL");
    }
    auto const indicesType = static_cast<DataType>(ctx.attrs().getInt("indicesType", -1));
    if (indicesType != DataType::kINT32 && indicesType != DataType::kINT64)
    {
        return ctx.error("indices type must be kINT32 or kINT64");
    }
    if (ctx.nbOutputs() != 2)
    {
        return ctx.error("internal: the layer must have its indices and count outputs");
    }
    DimExpr const upper = volumeOf(ctx.graph(), in.dims);
    ctx.output(1).type = DataType::kINT64;
    DimExpr const count = declareLayerSizeTensor(ctx, 1, upper, upper);
    TensorInfo& out = ctx.output(0);
    out.type = indicesType;
    out.dims = {ctx.constant(in.rank()), count};
    return Status::ok();
}

} // namespace kiln
