// IShapeLayer: the layer class, INetworkDefinition::addShape and shape/value inference. The output is a
// 1-D INT64 tensor of length rank(input) whose values are the input's dimension expressions.
#include "network/layers/shapeLayer.h"

#include "network/inferContext.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::LayerType;

ShapeLayer::ShapeLayer(NetworkDefinition& network, Tensor* input)
    : LayerBase(network, LayerType::kSHAPE, {input}, 1)
{
    setMaxInputs(1);
}

nvinfer1::IShapeLayer* NetworkDefinition::addShape(nvinfer1::ITensor& input) noexcept
{
    try
    {
        Tensor* t = ownTensor(&input, "addShape input");
        if (t == nullptr)
        {
            return nullptr;
        }
        return adopt(std::make_unique<ShapeLayer>(*this, t));
    }
    catch (...)
    {
        reportError(internalError("addShape: unexpected exception"));
        return nullptr;
    }
}

Status inferShape(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    TensorInfo const& in = ctx.input(0);
    TensorInfo& out = ctx.output(0);
    out.type = DataType::kINT64;
    out.dims = {ctx.constant(in.rank())};
    out.values = in.dims;
    return Status::ok();
}

} // namespace kiln
