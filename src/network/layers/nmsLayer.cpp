// NMSLayer, INetworkDefinition::addNMS (both overloads) and the NMS shape/type inference.
#include "network/layers/nmsLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/dataDependentOutput.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::BoundingBoxFormat;
using nvinfer1::DataType;

namespace
{

bool validFormat(BoundingBoxFormat f)
{
    return f == BoundingBoxFormat::kCORNER_PAIRS || f == BoundingBoxFormat::kCENTER_SIZES;
}

bool isScalar(TensorInfo const& t)
{
    return t.rank() == 0;
}

} // namespace

NMSLayer::NMSLayer(
    NetworkDefinition& network, Tensor* boxes, Tensor* scores, Tensor* maxOutputBoxesPerClass, DataType indicesType)
    : LayerBase<nvinfer1::INMSLayer>(network, nvinfer1::LayerType::kNMS, {boxes, scores, maxOutputBoxesPerClass}, 2)
{
    setMaxInputs(5);
    attrs().setInt("boxFormat", static_cast<int64_t>(BoundingBoxFormat::kCORNER_PAIRS));
    attrs().setInt("topKBoxLimit", kMAX_TOPK_BOX_LIMIT);
    attrs().setInt("indicesType", static_cast<int64_t>(indicesType));
}

void NMSLayer::setBoundingBoxFormat(BoundingBoxFormat fmt) noexcept
{
    if (!validFormat(fmt))
    {
        network().reportError(invalidArgument("INMSLayer::setBoundingBoxFormat on layer '" + name() + "': format "
            + std::to_string(static_cast<int32_t>(fmt)) + " is not kCORNER_PAIRS or kCENTER_SIZES"));
        return;
    }
    attrs().setInt("boxFormat", static_cast<int64_t>(fmt));
    touch();
}

BoundingBoxFormat NMSLayer::getBoundingBoxFormat() const noexcept
{
    return static_cast<BoundingBoxFormat>(attrs().getInt("boxFormat"));
}

void NMSLayer::setTopKBoxLimit(int32_t limit) noexcept
{
    if (limit < 1 || limit > kMAX_TOPK_BOX_LIMIT)
    {
        network().reportError(invalidArgument("INMSLayer::setTopKBoxLimit on layer '" + name() + "': limit "
            + std::to_string(limit) + " is out of range [1, " + std::to_string(kMAX_TOPK_BOX_LIMIT) + "]"));
        return;
    }
    attrs().setInt("topKBoxLimit", limit);
    touch();
}

int32_t NMSLayer::getTopKBoxLimit() const noexcept
{
    return static_cast<int32_t>(attrs().getInt("topKBoxLimit"));
}

bool NMSLayer::setIndicesType(DataType type) noexcept
{
    if (type != DataType::kINT32 && type != DataType::kINT64)
    {
        network().reportError(invalidArgument("INMSLayer::setIndicesType on layer '" + name() + "': type "
            + dataTypeName(type) + " is not kINT32 or kINT64"));
        return false;
    }
    attrs().setInt("indicesType", static_cast<int64_t>(type));
    touch();
    return true;
}

DataType NMSLayer::getIndicesType() const noexcept
{
    return static_cast<DataType>(attrs().getInt("indicesType", static_cast<int64_t>(DataType::kINT32)));
}

nvinfer1::INMSLayer* NetworkDefinition::addNMS(nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores,
    nvinfer1::ITensor& maxOutputBoxesPerClass, DataType indicesType) noexcept
{
    try
    {
        Tensor* b = ownTensor(&boxes, "addNMS boxes");
        Tensor* s = ownTensor(&scores, "addNMS scores");
        Tensor* m = ownTensor(&maxOutputBoxesPerClass, "addNMS maxOutputBoxesPerClass");
        if (b == nullptr || s == nullptr || m == nullptr)
        {
            return nullptr;
        }
        if (indicesType != DataType::kINT32 && indicesType != DataType::kINT64)
        {
            reportError(invalidArgument(
                std::string("addNMS: indicesType ") + dataTypeName(indicesType) + " is not kINT32 or kINT64"));
            return nullptr;
        }
        return adopt(std::make_unique<NMSLayer>(*this, b, s, m, indicesType));
    }
    catch (...)
    {
        reportError(internalError("addNMS: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::INMSLayer* NetworkDefinition::addNMS(
    nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores, nvinfer1::ITensor& maxOutputBoxesPerClass) noexcept
{
    return addNMS(boxes, scores, maxOutputBoxesPerClass, DataType::kINT32);
}

Status inferNMS(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 3, 4));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, 3, 3));
    KILN_RETURN_IF_ERROR(ctx.requireInput(2, 0, 0));
    TensorInfo const& boxes = ctx.input(0);
    TensorInfo const& scores = ctx.input(1);
    TensorInfo const& maxOut = ctx.input(2);
    if (boxes.type != DataType::kFLOAT && boxes.type != DataType::kHALF)
    {
        return ctx.error("boxes '" + boxes.name + "' have type " + dataTypeName(boxes.type) + "; NMS supports FP32 and FP16");
    }
    if (scores.type != boxes.type)
    {
        return ctx.error("scores '" + scores.name + "' have type " + dataTypeName(scores.type) + " but boxes '"
            + boxes.name + "' have type " + dataTypeName(boxes.type) + "; they must match");
    }
    if (maxOut.type != DataType::kINT32)
    {
        return ctx.error("maxOutputBoxesPerClass (input 2) '" + maxOut.name + "' has type " + dataTypeName(maxOut.type)
            + "; it must be a 0-D INT32 shape tensor");
    }
    KILN_RETURN_IF_ERROR(ctx.requireValues(2));
    for (int32_t i = 3; i < 5; ++i)
    {
        if (!ctx.hasInput(i))
        {
            continue;
        }
        TensorInfo const& t = ctx.input(i);
        if (t.type != DataType::kFLOAT || !isScalar(t))
        {
            return ctx.error(std::string(i == 3 ? "iouThreshold" : "scoreThreshold") + " (input " + std::to_string(i)
                + ") '" + t.name + "' must be a 0-D FP32 tensor; it has type " + dataTypeName(t.type) + " and rank "
                + std::to_string(t.rank()));
        }
    }
    auto const fmt = static_cast<BoundingBoxFormat>(ctx.attrs().getInt("boxFormat", -1));
    auto const indicesType = static_cast<DataType>(ctx.attrs().getInt("indicesType", -1));
    int64_t const limit = ctx.attrs().getInt("topKBoxLimit", 0);
    if (!validFormat(fmt) || (indicesType != DataType::kINT32 && indicesType != DataType::kINT64) || limit < 1
        || limit > NMSLayer::kMAX_TOPK_BOX_LIMIT)
    {
        return ctx.error("invalid box format, indices type or TopK box limit");
    }
    // boxes [B, N, 4] or [B, N, C, 4]; scores [B, N, C].
    std::vector<std::pair<DimExpr, DimExpr>> same{{boxes.dims[0], scores.dims[0]}, {boxes.dims[1], scores.dims[1]},
        {boxes.dims.back(), ctx.constant(4)}};
    if (boxes.rank() == 4)
    {
        same.emplace_back(boxes.dims[2], scores.dims[2]);
    }
    char const* const names[] = {"batch size", "number of boxes", "box size (4)", "number of classes"};
    for (size_t i = 0; i < same.size(); ++i)
    {
        auto const& [a, b] = same[i];
        std::string const what = std::string("boxes '") + boxes.name + "' and scores '" + scores.name
            + "' disagree on the " + names[i];
        if (a.isConstant() && b.isConstant())
        {
            if (a.constant() != b.constant())
            {
                return ctx.error(what + " (" + std::to_string(a.constant()) + " vs " + std::to_string(b.constant()) + ")");
            }
            continue;
        }
        KILN_RETURN_IF_ERROR(ctx.require(a.eq(b), what));
    }
    DimExpr const perClass = (*maxOut.values)[0].max(0).min(scores.dims[1]);
    DimExpr const upper = scores.dims[0] * (scores.dims[2] * perClass).min(limit);
    ctx.output(1).type = DataType::kINT32;
    DimExpr const count = declareLayerSizeTensor(ctx, 1, upper, upper);
    TensorInfo& out = ctx.output(0);
    out.type = indicesType;
    out.dims = {count, ctx.constant(3)};
    return Status::ok();
}

} // namespace kiln
