// IPaddingLayer: the layer class, INetworkDefinition::addPaddingNd and shape inference. Padding applies to
// the innermost k dimensions (k = number of padding entries; TensorRT documents k = 2, Kiln accepts 1..rank).
#include "network/layers/paddingLayer.h"

#include "core/dataType.h"
#include "network/inferContext.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::LayerType;

namespace
{
std::string checkPadding(Dims const& d, char const* what)
{
    if (d.nbDims < 0 || d.nbDims > Dims::MAX_DIMS)
    {
        return std::string(what) + " has an invalid number of dimensions " + std::to_string(d.nbDims);
    }
    return "";
}
} // namespace

PaddingLayer::PaddingLayer(NetworkDefinition& network, Tensor* input, Dims const& pre, Dims const& post)
    : LayerBase(network, LayerType::kPADDING, {input}, 1)
{
    setMaxInputs(1);
    attrs().setDims("pre_padding", pre);
    attrs().setDims("post_padding", post);
}

void PaddingLayer::setPadding(char const* key, Dims const& padding, char const* api)
{
    std::string const problem = checkPadding(padding, key);
    if (!problem.empty())
    {
        network().reportError(invalidArgument("IPaddingLayer::" + std::string(api) + " on layer '" + name() + "': "
            + problem));
        return;
    }
    attrs().setDims(key, padding);
    touch();
}

void PaddingLayer::setPrePaddingNd(Dims const& padding) noexcept
{
    setPadding("pre_padding", padding, "setPrePaddingNd");
}

Dims PaddingLayer::getPrePaddingNd() const noexcept
{
    return attrs().getDims("pre_padding");
}

void PaddingLayer::setPostPaddingNd(Dims const& padding) noexcept
{
    setPadding("post_padding", padding, "setPostPaddingNd");
}

Dims PaddingLayer::getPostPaddingNd() const noexcept
{
    return attrs().getDims("post_padding");
}

nvinfer1::IPaddingLayer* NetworkDefinition::addPaddingNd(
    nvinfer1::ITensor& input, Dims const& prePadding, Dims const& postPadding) noexcept
{
    try
    {
        Tensor* t = ownTensor(&input, "addPaddingNd input");
        if (t == nullptr)
        {
            return nullptr;
        }
        for (auto const& [d, what] : {std::pair{&prePadding, "prePadding"}, std::pair{&postPadding, "postPadding"}})
        {
            std::string const problem = checkPadding(*d, what);
            if (!problem.empty())
            {
                reportError(invalidArgument("addPaddingNd: " + problem));
                return nullptr;
            }
        }
        if (prePadding.nbDims != postPadding.nbDims)
        {
            reportError(invalidArgument("addPaddingNd: prePadding has " + std::to_string(prePadding.nbDims)
                + " dimensions but postPadding has " + std::to_string(postPadding.nbDims)));
            return nullptr;
        }
        return adopt(std::make_unique<PaddingLayer>(*this, t, prePadding, postPadding));
    }
    catch (...)
    {
        reportError(internalError("addPaddingNd: unexpected exception"));
        return nullptr;
    }
}

Status inferPadding(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    TensorInfo const& in = ctx.input(0);
    std::vector<int64_t> const pre = ctx.attrs().getInts("pre_padding");
    std::vector<int64_t> const post = ctx.attrs().getInts("post_padding");
    if (pre.size() != post.size())
    {
        return ctx.error("pre-padding has " + std::to_string(pre.size()) + " entries but post-padding has "
            + std::to_string(post.size()));
    }
    if (pre.empty())
    {
        return ctx.error("the padding has no dimensions");
    }
    int32_t const rank = in.rank();
    int32_t const k = static_cast<int32_t>(pre.size());
    if (k > rank)
    {
        return ctx.error("the padding has " + std::to_string(k) + " dimensions but the input '" + in.name
            + "' has rank " + std::to_string(rank));
    }
    if (elementSize(in.type) <= 0)
    {
        return ctx.error(std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = in.dims;
    for (int32_t i = 0; i < k; ++i)
    {
        size_t const d = static_cast<size_t>(rank - k + i);
        DimExpr const extent = in.dims[d] + pre[static_cast<size_t>(i)] + post[static_cast<size_t>(i)];
        KILN_RETURN_IF_ERROR(ctx.require(ctx.constant(0).le(extent),
            "cropping dimension " + std::to_string(d) + " by more than its extent (padding "
                + std::to_string(pre[static_cast<size_t>(i)]) + ", " + std::to_string(post[static_cast<size_t>(i)])
                + ", extent " + ctx.graph().toString(in.dims[d].id()) + ")"));
        out.dims[d] = extent;
    }
    return Status::ok();
}

} // namespace kiln
