// Host-side logic of INMSLayer kernels: see nmsParams.h.
#include "backends/common/nmsParams.h"

namespace kiln
{

Status nmsError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (NMS): " + message);
}

NMSParams readNMSParams(KernelSetup const& setup)
{
    Attributes const& attrs = setup.node->attrs;
    NMSParams p;
    p.format = static_cast<nvinfer1::BoundingBoxFormat>(attrs.getInt("boxFormat"));
    p.limit = attrs.getInt("topKBoxLimit", 5000);
    return p;
}

Status nmsShapes(KernelSetup const& setup, NMSParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() < 3 || outputs.size() != 2)
    {
        return nmsError(setup, "expects boxes, scores, maxOutputBoxesPerClass and two outputs");
    }
    TensorView const& boxes = inputs[0];
    TensorView const& scores = inputs[1];
    if (scores.dims.nbDims != 3 || (boxes.dims.nbDims != 3 && boxes.dims.nbDims != 4) || outputs[0].dims.nbDims != 2)
    {
        return nmsError(setup, "unexpected input or output ranks");
    }
    p.batch = scores.dims.d[0];
    p.nbBoxes = scores.dims.d[1];
    p.nbClasses = scores.dims.d[2];
    p.perClassBoxes = boxes.dims.nbDims == 4;
    return Status::ok();
}

StatusOr<NMSParams> makeNMSParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() < 3 || outputs.size() != 2 || !inputs[0].present() || !inputs[1].present()
        || outputs[1].data == nullptr)
    {
        return nmsError(setup, "expects boxes, scores, maxOutputBoxesPerClass and two outputs");
    }
    NMSParams p = readNMSParams(setup);
    KILN_RETURN_IF_ERROR(nmsShapes(setup, p, inputs, outputs));
    return p;
}

} // namespace kiln
