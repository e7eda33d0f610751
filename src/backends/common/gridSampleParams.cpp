// Host-side logic of IGridSampleLayer kernels: see gridSampleParams.h.
#include "backends/common/gridSampleParams.h"

namespace kiln
{

Status gridSampleError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (GridSample): " + message);
}

GridSampleParams readGridSampleParams(KernelSetup const& setup)
{
    Attributes const& attrs = setup.node->attrs;
    GridSampleParams p;
    p.mode = static_cast<nvinfer1::InterpolationMode>(attrs.getInt("interpolationMode"));
    p.sample = static_cast<nvinfer1::SampleMode>(attrs.getInt("sampleMode"));
    p.alignCorners = attrs.getInt("alignCorners") != 0;
    return p;
}

Status gridSampleShapes(KernelSetup const& setup, GridSampleParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 2 || outputs.size() != 1)
    {
        return gridSampleError(setup, "expects an input, a grid and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& grid = inputs[1];
    TensorView const& out = outputs[0];
    if (in.dims.nbDims != 4 || grid.dims.nbDims != 4 || out.dims.nbDims != 4 || grid.dims.d[3] != 2
        || grid.dims.d[0] != in.dims.d[0])
    {
        return gridSampleError(setup, "expects input [N, C, H, W] and grid [N, Hout, Wout, 2]");
    }
    p.n = in.dims.d[0];
    p.c = in.dims.d[1];
    p.h = in.dims.d[2];
    p.w = in.dims.d[3];
    p.ho = grid.dims.d[1];
    p.wo = grid.dims.d[2];
    return Status::ok();
}

StatusOr<GridSampleParams> makeGridSampleParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 2 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present())
    {
        return gridSampleError(setup, "expects an input, a grid and one output");
    }
    GridSampleParams p = readGridSampleParams(setup);
    KILN_RETURN_IF_ERROR(gridSampleShapes(setup, p, inputs, outputs));
    return p;
}

} // namespace kiln
