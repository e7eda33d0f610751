// IdentityLayer, INetworkDefinition::addIdentity and the identity shape/type/value inference.
#include "network/layers/identityLayer.h"

#include "network/layerTable.h"
#include "network/layers/elementWiseLayer.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;

IdentityLayer::IdentityLayer(NetworkDefinition& network, Tensor* input)
    : LayerBase<nvinfer1::IIdentityLayer>(network, nvinfer1::LayerType::kIDENTITY, {input}, 1)
{
}

nvinfer1::IIdentityLayer* NetworkDefinition::addIdentity(nvinfer1::ITensor& input) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addIdentity input");
        if (in == nullptr)
        {
            return nullptr;
        }
        return adopt(std::make_unique<IdentityLayer>(*this, in));
    }
    catch (...)
    {
        reportError(internalError("addIdentity: unexpected exception"));
        return nullptr;
    }
}

Status inferIdentity(InferContext& ctx)
{
    if (ctx.nbInputs() != 1)
    {
        return ctx.error("needs exactly 1 input, has " + std::to_string(ctx.nbInputs()));
    }
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    TensorInfo const& in = ctx.input(0);
    if (!isStorableType(in.type))
    {
        return ctx.error("input '" + in.name + "' has type " + typeName(in.type)
            + ", which Kiln cannot copy (supported: FP32, FP16, BF16, INT8, UINT8, INT32, INT64, BOOL)");
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type; // the analysis applies setOutputType on top (weakly typed networks)
    out.dims = in.dims;
    out.values = in.values;
    return Status::ok();
}

} // namespace kiln
