// TripLimitLayer and its inference: kCOUNT needs a 0-D INT32/INT64 shape tensor, kWHILE a 0-D BOOL tensor.
#include "network/layers/tripLimitLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/loop.h"

namespace kiln
{

TripLimitLayer::TripLimitLayer(NetworkDefinition& network, Loop& loop, Tensor* input, nvinfer1::TripLimit limit)
    : LayerBase<nvinfer1::ITripLimitLayer>(network, nvinfer1::LayerType::kTRIP_LIMIT, {input}, 0)
    , mLoop(loop)
{
    attrs().setInt("kind", static_cast<int64_t>(limit));
}

nvinfer1::ILoop* TripLimitLayer::getLoop() const noexcept
{
    return &mLoop;
}

nvinfer1::TripLimit TripLimitLayer::getTripLimit() const noexcept
{
    return static_cast<nvinfer1::TripLimit>(attrs().getInt("kind"));
}

Status inferTripLimit(InferContext& ctx)
{
    std::string const loop = "loop '" + ctx.attrs().getString("loop") + "': ";
    if (!ctx.hasInput(0))
    {
        return ctx.error(loop + "the trip limit tensor is missing");
    }
    TensorInfo const& in = ctx.input(0);
    auto const kind = static_cast<nvinfer1::TripLimit>(ctx.attrs().getInt("kind"));
    if (kind == nvinfer1::TripLimit::kCOUNT)
    {
        if (in.rank() != 0 || (in.type != nvinfer1::DataType::kINT32 && in.type != nvinfer1::DataType::kINT64))
        {
            return ctx.error(loop + "a kCOUNT trip limit needs a 0-D INT32/INT64 tensor; '" + in.name + "' has rank "
                + std::to_string(in.rank()) + " and type " + dataTypeName(in.type));
        }
        if (!in.values.has_value())
        {
            return ctx.error(loop + "the kCOUNT trip limit '" + in.name
                + "' must be a shape tensor (a constant, a value computed from shapes, or a shape-tensor input)");
        }
    }
    else if (in.rank() != 0 || in.type != nvinfer1::DataType::kBOOL)
    {
        return ctx.error(loop + "a kWHILE trip limit needs a 0-D BOOL tensor; '" + in.name + "' has rank "
            + std::to_string(in.rank()) + " and type " + dataTypeName(in.type));
    }
    return Status::ok();
}

} // namespace kiln
