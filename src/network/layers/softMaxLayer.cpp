// SoftMaxLayer, INetworkDefinition::addSoftMax and the softmax shape/type inference.
#include "network/layers/softMaxLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <bit>

namespace kiln
{
using nvinfer1::DataType;

SoftMaxLayer::SoftMaxLayer(NetworkDefinition& network, Tensor* input)
    : LayerBase<nvinfer1::ISoftMaxLayer>(network, nvinfer1::LayerType::kSOFTMAX, {input}, 1)
{
}

void SoftMaxLayer::setAxes(uint32_t axes) noexcept
{
    if (std::popcount(axes) != 1)
    {
        network().reportError(invalidArgument("ISoftMaxLayer::setAxes on layer '" + name() + "': axes mask "
            + std::to_string(axes) + " must have exactly one bit set (softmax runs along one axis)"));
        return;
    }
    attrs().setInt("axes", static_cast<int64_t>(axes));
    touch();
}

uint32_t SoftMaxLayer::getAxes() const noexcept
{
    if (attrs().has("axes"))
    {
        return static_cast<uint32_t>(attrs().getInt("axes"));
    }
    // TensorRT's default depends on the input rank.
    int32_t rank = 0;
    if (!inputs().empty() && inputs()[0] != nullptr)
    {
        rank = inputs()[0]->getDimensions().nbDims;
    }
    return 1U << static_cast<uint32_t>(defaultChannelAxis(rank < 0 ? 0 : rank));
}

nvinfer1::ISoftMaxLayer* NetworkDefinition::addSoftMax(nvinfer1::ITensor& input) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addSoftMax input");
        if (in == nullptr)
        {
            return nullptr;
        }
        return adopt(std::make_unique<SoftMaxLayer>(*this, in));
    }
    catch (...)
    {
        reportError(internalError("addSoftMax: unexpected exception"));
        return nullptr;
    }
}

Status inferSoftMax(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 1, nvinfer1::Dims::MAX_DIMS));
    TensorInfo const& in = ctx.input(0);
    if (in.type != DataType::kFLOAT && in.type != DataType::kHALF && in.type != DataType::kBF16)
    {
        return ctx.error("input '" + in.name + "' has type " + dataTypeName(in.type)
            + "; softmax needs FP32, FP16 or BF16");
    }
    int32_t const rank = in.rank();
    int32_t axis = defaultChannelAxis(rank);
    if (ctx.attrs().has("axes"))
    {
        int64_t const mask = ctx.attrs().getInt("axes");
        if (mask <= 0 || std::popcount(static_cast<uint64_t>(mask)) != 1)
        {
            return ctx.error("axes mask " + std::to_string(mask) + " must have exactly one bit set");
        }
        axis = std::countr_zero(static_cast<uint64_t>(mask));
    }
    if (axis >= rank)
    {
        return ctx.error("softmax axis " + std::to_string(axis) + " is out of range for input '" + in.name
            + "' of rank " + std::to_string(rank));
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = in.dims;
    return Status::ok();
}

} // namespace kiln
