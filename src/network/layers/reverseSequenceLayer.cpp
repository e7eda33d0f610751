// ReverseSequenceLayer, INetworkDefinition::addReverseSequence and the ReverseSequence shape/type inference.
// The two axes may coincide for a moment while they are being set one after the other; the build checks that they
// differ.
#include "network/layers/reverseSequenceLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{

bool validDataType(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16 || t == DataType::kINT32
        || t == DataType::kINT64 || t == DataType::kINT8 || t == DataType::kBOOL;
}

} // namespace

ReverseSequenceLayer::ReverseSequenceLayer(NetworkDefinition& network, Tensor* input, Tensor* sequenceLens)
    : LayerBase<nvinfer1::IReverseSequenceLayer>(network, nvinfer1::LayerType::kREVERSE_SEQUENCE, {input, sequenceLens}, 1)
{
    attrs().setInt("batchAxis", 1);
    attrs().setInt("sequenceAxis", 0);
}

bool ReverseSequenceLayer::checkAxis(char const* method, int32_t axis)
{
    int32_t const rank = inputs()[0] != nullptr ? inputs()[0]->getDimensions().nbDims : nvinfer1::Dims::MAX_DIMS;
    if (axis < 0 || axis >= rank)
    {
        network().reportError(invalidArgument(std::string("IReverseSequenceLayer::") + method + " on layer '" + name()
            + "': axis " + std::to_string(axis) + " is out of range [0, " + std::to_string(rank - 1) + "]"));
        return false;
    }
    return true;
}

void ReverseSequenceLayer::setBatchAxis(int32_t batchAxis) noexcept
{
    if (checkAxis("setBatchAxis", batchAxis))
    {
        attrs().setInt("batchAxis", batchAxis);
        touch();
    }
}

int32_t ReverseSequenceLayer::getBatchAxis() const noexcept
{
    return static_cast<int32_t>(attrs().getInt("batchAxis", 1));
}

void ReverseSequenceLayer::setSequenceAxis(int32_t sequenceAxis) noexcept
{
    if (checkAxis("setSequenceAxis", sequenceAxis))
    {
        attrs().setInt("sequenceAxis", sequenceAxis);
        touch();
    }
}

int32_t ReverseSequenceLayer::getSequenceAxis() const noexcept
{
    return static_cast<int32_t>(attrs().getInt("sequenceAxis", 0));
}

nvinfer1::IReverseSequenceLayer* NetworkDefinition::addReverseSequence(
    nvinfer1::ITensor& input, nvinfer1::ITensor& sequenceLens) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addReverseSequence input");
        Tensor* lens = in != nullptr ? ownTensor(&sequenceLens, "addReverseSequence sequenceLens") : nullptr;
        if (lens == nullptr)
        {
            return nullptr;
        }
        return adopt(std::make_unique<ReverseSequenceLayer>(*this, in, lens));
    }
    catch (...)
    {
        reportError(internalError("addReverseSequence: unexpected exception"));
        return nullptr;
    }
}

Status inferReverseSequence(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 2, nvinfer1::Dims::MAX_DIMS));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, 1, 1));
    TensorInfo const& in = ctx.input(0);
    TensorInfo const& lens = ctx.input(1);
    if (!validDataType(in.type))
    {
        return ctx.error("input '" + in.name + "' has type " + dataTypeName(in.type)
            + "; ReverseSequence supports FP32, FP16, BF16, INT32, INT64, INT8 and BOOL");
    }
    if (lens.type != DataType::kINT32 && lens.type != DataType::kINT64)
    {
        return ctx.error("sequenceLens (input 1) '" + lens.name + "' has type " + dataTypeName(lens.type)
            + "; it must be INT32 or INT64");
    }
    int32_t const rank = in.rank();
    int64_t const batchAxis = ctx.attrs().getInt("batchAxis", 1);
    int64_t const seqAxis = ctx.attrs().getInt("sequenceAxis", 0);
    if (batchAxis < 0 || batchAxis >= rank || seqAxis < 0 || seqAxis >= rank)
    {
        return ctx.error("batch axis " + std::to_string(batchAxis) + " and sequence axis " + std::to_string(seqAxis)
            + " must be in [0, " + std::to_string(rank - 1) + "] for input '" + in.name + "'");
    }
    if (batchAxis == seqAxis)
    {
        return ctx.error("batch axis and sequence axis must differ (both are " + std::to_string(batchAxis) + ")");
    }
    DimExpr const batch = in.dims[static_cast<size_t>(batchAxis)];
    DimExpr const n = lens.dims[0];
    std::string const what = "sequenceLens (input 1) '" + lens.name + "' must have one entry per batch element (extent "
        "of axis " + std::to_string(batchAxis) + " of '" + in.name + "')";
    if (batch.isConstant() && n.isConstant())
    {
        if (batch.constant() != n.constant())
        {
            return ctx.error(what + ": " + std::to_string(n.constant()) + " vs " + std::to_string(batch.constant()));
        }
    }
    else
    {
        KILN_RETURN_IF_ERROR(ctx.require(batch.eq(n), what));
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = in.dims;
    return Status::ok();
}

} // namespace kiln
