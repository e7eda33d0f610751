// GridSampleLayer, INetworkDefinition::addGridSample and the GridSample shape/type inference.
#include "network/layers/gridSampleLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

namespace
{

bool validInterpolation(InterpolationMode m)
{
    return m == InterpolationMode::kNEAREST || m == InterpolationMode::kLINEAR || m == InterpolationMode::kCUBIC;
}

bool validSampleMode(SampleMode m)
{
    return m == SampleMode::kFILL || m == SampleMode::kCLAMP || m == SampleMode::kREFLECT;
}

bool gridSampleType(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

} // namespace

GridSampleLayer::GridSampleLayer(NetworkDefinition& network, Tensor* input, Tensor* grid)
    : LayerBase<nvinfer1::IGridSampleLayer>(network, nvinfer1::LayerType::kGRID_SAMPLE, {input, grid}, 1)
{
    attrs().setInt("interpolationMode", static_cast<int64_t>(InterpolationMode::kLINEAR));
    attrs().setInt("alignCorners", 0);
    attrs().setInt("sampleMode", static_cast<int64_t>(SampleMode::kFILL));
}

void GridSampleLayer::setInterpolationMode(InterpolationMode mode) noexcept
{
    if (!validInterpolation(mode))
    {
        network().reportError(invalidArgument("IGridSampleLayer::setInterpolationMode on layer '" + name() + "': mode "
            + std::to_string(static_cast<int32_t>(mode)) + " is not kNEAREST, kLINEAR or kCUBIC"));
        return;
    }
    attrs().setInt("interpolationMode", static_cast<int64_t>(mode));
    touch();
}

InterpolationMode GridSampleLayer::getInterpolationMode() const noexcept
{
    return static_cast<InterpolationMode>(attrs().getInt("interpolationMode"));
}

void GridSampleLayer::setAlignCorners(bool alignCorners) noexcept
{
    attrs().setInt("alignCorners", alignCorners ? 1 : 0);
    touch();
}

bool GridSampleLayer::getAlignCorners() const noexcept
{
    return attrs().getInt("alignCorners") != 0;
}

bool GridSampleLayer::setSampleMode(SampleMode mode) noexcept
{
    if (!validSampleMode(mode))
    {
        network().reportError(invalidArgument("IGridSampleLayer::setSampleMode on layer '" + name() + "': mode "
            + std::to_string(static_cast<int32_t>(mode)) + " is not supported (only kFILL, kCLAMP and kREFLECT)"));
        return false;
    }
    attrs().setInt("sampleMode", static_cast<int64_t>(mode));
    touch();
    return true;
}

SampleMode GridSampleLayer::getSampleMode() const noexcept
{
    return static_cast<SampleMode>(attrs().getInt("sampleMode"));
}

nvinfer1::IGridSampleLayer* NetworkDefinition::addGridSample(nvinfer1::ITensor& input, nvinfer1::ITensor& grid) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addGridSample input");
        Tensor* g = ownTensor(&grid, "addGridSample grid");
        if (in == nullptr || g == nullptr)
        {
            return nullptr;
        }
        return adopt(std::make_unique<GridSampleLayer>(*this, in, g));
    }
    catch (...)
    {
        reportError(internalError("addGridSample: unexpected exception"));
        return nullptr;
    }
}

Status inferGridSample(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 4, 4));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, 4, 4));
    TensorInfo const& in = ctx.input(0);
    TensorInfo const& grid = ctx.input(1);
    if (!gridSampleType(in.type))
    {
        return ctx.error("input '" + in.name + "' has type " + dataTypeName(in.type)
            + "; GridSample supports FP32, FP16 and BF16");
    }
    if (grid.type != in.type)
    {
        return ctx.error("grid '" + grid.name + "' has type " + dataTypeName(grid.type) + " but input '" + in.name
            + "' has type " + dataTypeName(in.type) + "; they must match");
    }
    auto const mode = static_cast<InterpolationMode>(ctx.attrs().getInt("interpolationMode", -1));
    auto const sample = static_cast<SampleMode>(ctx.attrs().getInt("sampleMode", -1));
    if (!validInterpolation(mode) || !validSampleMode(sample))
    {
        return ctx.error("invalid interpolation mode or sample mode");
    }
    if (grid.dims[3].isConstant())
    {
        if (grid.dims[3].constant() != 2)
        {
            return ctx.error("grid '" + grid.name + "' must have shape [N, Hout, Wout, 2]; its last dimension is "
                + std::to_string(grid.dims[3].constant()));
        }
    }
    else
    {
        KILN_RETURN_IF_ERROR(ctx.require(grid.dims[3].eq(2), "the last dimension of grid '" + grid.name + "' must be 2"));
    }
    if (in.dims[0].isConstant() && grid.dims[0].isConstant())
    {
        if (in.dims[0].constant() != grid.dims[0].constant())
        {
            return ctx.error("input '" + in.name + "' and grid '" + grid.name + "' have different batch sizes ("
                + std::to_string(in.dims[0].constant()) + " vs " + std::to_string(grid.dims[0].constant()) + ")");
        }
    }
    else
    {
        KILN_RETURN_IF_ERROR(ctx.require(in.dims[0].eq(grid.dims[0]),
            "input '" + in.name + "' and grid '" + grid.name + "' must have the same batch size"));
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = {in.dims[0], in.dims[1], grid.dims[1], grid.dims[2]};
    return Status::ok();
}

} // namespace kiln
