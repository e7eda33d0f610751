// PoolingLayer, INetworkDefinition::addPoolingNd and pooling inference (window formulas in convolutionLayer.cpp).
#include "network/layers/poolingLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/convolutionLayer.h"
#include "network/networkDefinition.h"

#include <cmath>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::PaddingMode;
using nvinfer1::PoolingType;

namespace
{
constexpr char const* kPOOL_API = "IPoolingLayer";

bool validPoolingType(PoolingType type)
{
    int32_t const v = static_cast<int32_t>(type);
    return v >= 0 && v < nvinfer1::EnumMax<PoolingType>();
}

char const* poolingTypeName(PoolingType type)
{
    switch (type)
    {
    case PoolingType::kMAX: return "kMAX";
    case PoolingType::kAVERAGE: return "kAVERAGE";
    case PoolingType::kMAX_AVERAGE_BLEND: return "kMAX_AVERAGE_BLEND";
    }
    return "unknown";
}
} // namespace

PoolingLayer::PoolingLayer(NetworkDefinition& network, Tensor* input, PoolingType type, Dims const& windowSize)
    : LayerBase<nvinfer1::IPoolingLayer>(network, nvinfer1::LayerType::kPOOLING, {input}, 1)
{
    attrs().setInt("poolingType", static_cast<int64_t>(type));
    attrs().setFloat("blendFactor", 0.0);
    attrs().setInt("averageCountExcludesPadding", 1);
    initWindowAttrs(attrs(), "windowSize", windowSize, false);
}

void PoolingLayer::setPoolingType(PoolingType type) noexcept
{
    if (!validPoolingType(type))
    {
        network().reportError(invalidArgument("IPoolingLayer::setPoolingType on layer '" + name()
            + "': invalid PoolingType value " + std::to_string(static_cast<int32_t>(type))));
        return;
    }
    attrs().setInt("poolingType", static_cast<int64_t>(type));
    touch();
}

PoolingType PoolingLayer::getPoolingType() const noexcept
{
    return static_cast<PoolingType>(attrs().getInt("poolingType"));
}

void PoolingLayer::setBlendFactor(float blendFactor) noexcept
{
    if (!(blendFactor >= 0.F && blendFactor <= 1.F))
    {
        network().reportError(invalidArgument("IPoolingLayer::setBlendFactor on layer '" + name() + "': blend factor "
            + std::to_string(blendFactor) + " is outside [0, 1]"));
        return;
    }
    attrs().setFloat("blendFactor", static_cast<double>(blendFactor));
    touch();
}

float PoolingLayer::getBlendFactor() const noexcept
{
    return static_cast<float>(attrs().getFloat("blendFactor"));
}

void PoolingLayer::setAverageCountExcludesPadding(bool exclusive) noexcept
{
    attrs().setInt("averageCountExcludesPadding", exclusive ? 1 : 0);
    touch();
}

bool PoolingLayer::getAverageCountExcludesPadding() const noexcept
{
    return attrs().getInt("averageCountExcludesPadding", 1) != 0;
}

void PoolingLayer::setPrePadding(Dims const& padding) noexcept
{
    convsetters::setPadding(*this, kPOOL_API, "setPrePadding", padding, true, false);
}

Dims PoolingLayer::getPrePadding() const noexcept
{
    return attrDims(attrs(), "prePadding");
}

void PoolingLayer::setPostPadding(Dims const& padding) noexcept
{
    convsetters::setPadding(*this, kPOOL_API, "setPostPadding", padding, false, true);
}

Dims PoolingLayer::getPostPadding() const noexcept
{
    return attrDims(attrs(), "postPadding");
}

void PoolingLayer::setPaddingMode(PaddingMode paddingMode) noexcept
{
    convsetters::setPaddingMode(*this, kPOOL_API, paddingMode);
}

PaddingMode PoolingLayer::getPaddingMode() const noexcept
{
    return static_cast<PaddingMode>(attrs().getInt("paddingMode"));
}

void PoolingLayer::setWindowSizeNd(Dims const& windowSize) noexcept
{
    convsetters::setKernelSize(*this, kPOOL_API, "windowSize", windowSize, false);
}

Dims PoolingLayer::getWindowSizeNd() const noexcept
{
    return attrDims(attrs(), "windowSize");
}

void PoolingLayer::setStrideNd(Dims const& stride) noexcept
{
    convsetters::setPositiveDims(*this, kPOOL_API, "setStrideNd", "stride", stride);
}

Dims PoolingLayer::getStrideNd() const noexcept
{
    return attrDims(attrs(), "stride");
}

void PoolingLayer::setPaddingNd(Dims const& padding) noexcept
{
    convsetters::setPadding(*this, kPOOL_API, "setPaddingNd", padding, true, true);
}

Dims PoolingLayer::getPaddingNd() const noexcept
{
    return attrDims(attrs(), "prePadding");
}

nvinfer1::IPoolingLayer* NetworkDefinition::addPoolingNd(
    nvinfer1::ITensor& input, PoolingType type, Dims const& windowSize) noexcept
{
    try
    {
        Tensor* t = ownTensor(&input, "addPoolingNd input");
        if (t == nullptr)
        {
            return nullptr;
        }
        if (!validPoolingType(type))
        {
            reportError(invalidArgument("addPoolingNd: invalid PoolingType value "
                + std::to_string(static_cast<int32_t>(type))));
            return nullptr;
        }
        Status st = checkWindowDims(windowSize, 1, "windowSize");
        int64_t volume = 1;
        for (int32_t i = 0; st.isOk() && i < windowSize.nbDims; ++i)
        {
            volume *= windowSize.d[i];
        }
        if (st.isOk() && volume > kMAX_WINDOW_VOLUME)
        {
            st = invalidArgument("windowSize volume " + std::to_string(volume) + " is above the limit "
                + std::to_string(kMAX_WINDOW_VOLUME));
        }
        if (!st.isOk())
        {
            reportError(invalidArgument("addPoolingNd: " + st.message()));
            return nullptr;
        }
        return adopt(std::make_unique<PoolingLayer>(*this, t, type, windowSize));
    }
    catch (...)
    {
        reportError(internalError("addPoolingNd: unexpected exception"));
        return nullptr;
    }
}

Status inferPooling(InferContext& ctx)
{
    auto params = parseWindowParams(ctx.attrs(), WindowKind::kPOOLING);
    if (!params.isOk())
    {
        return ctx.error(params.status().message());
    }
    WindowParams const& p = params.value();
    int64_t const type = ctx.attrs().getInt("poolingType", -1);
    if (type < 0 || type >= nvinfer1::EnumMax<PoolingType>())
    {
        return ctx.error("poolingType " + std::to_string(type) + " is not a PoolingType value");
    }
    double const blend = ctx.attrs().getFloat("blendFactor", 0.0);
    if (!(blend >= 0.0 && blend <= 1.0))
    {
        return ctx.error("blendFactor " + std::to_string(blend) + " is outside [0, 1]");
    }
    int32_t const rank = p.nbSpatial + 2;
    if (!ctx.hasInput(0))
    {
        return ctx.error("input 0 is missing");
    }
    TensorInfo const& in = ctx.input(0);
    if (in.rank() != rank)
    {
        return ctx.error("input 0 '" + in.name + "' has rank " + std::to_string(in.rank()) + " but a "
            + std::to_string(p.nbSpatial) + "-D window needs rank " + std::to_string(rank) + " [N, C, "
            + (p.nbSpatial == 2 ? "H, W]" : "D, H, W]"));
    }
    bool const typeOk = in.type == DataType::kFLOAT || in.type == DataType::kHALF || in.type == DataType::kBF16
        || in.type == DataType::kINT8;
    if (!typeOk)
    {
        return ctx.error("input 0 '" + in.name + "' has type " + dataTypeName(in.type) + "; " + poolingTypeName(
            static_cast<PoolingType>(type)) + " pooling supports FP32, FP16, BF16 and INT8");
    }
    ShapeExpr spatialIn(in.dims.begin() + 2, in.dims.end());
    KILN_ASSIGN_OR_RETURN(ShapeExpr spatialOut, inferWindowOutput(ctx, WindowKind::kPOOLING, p, spatialIn, in.name));
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = {in.dims[0], in.dims[1]};
    out.dims.insert(out.dims.end(), spatialOut.begin(), spatialOut.end());
    return Status::ok();
}

} // namespace kiln
