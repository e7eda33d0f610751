// AssertionLayer, INetworkDefinition::addAssertion and the Assertion inference (a type check plus, for a condition
// whose values are known symbolically, one shape constraint per element).
#include "network/layers/assertionLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;

std::string assertionFailureMessage(std::string const& layerName, std::string const& message)
{
    return "assertion '" + layerName + "' failed: " + message;
}

AssertionLayer::AssertionLayer(NetworkDefinition& network, Tensor* condition, std::string message)
    : LayerBase<nvinfer1::IAssertionLayer>(network, nvinfer1::LayerType::kASSERTION, {condition}, 0)
    , mMessage(std::move(message))
{
    attrs().setString("message", mMessage);
}

void AssertionLayer::setMessage(char const* message) noexcept
{
    try
    {
        mMessage = message == nullptr ? std::string() : std::string(message);
        attrs().setString("message", mMessage);
        touch();
    }
    catch (...)
    {
        network().reportError(internalError("IAssertionLayer::setMessage on layer '" + name() + "': out of memory"));
    }
}

char const* AssertionLayer::getMessage() const noexcept
{
    return mMessage.c_str();
}

nvinfer1::IAssertionLayer* NetworkDefinition::addAssertion(nvinfer1::ITensor& condition, char const* message) noexcept
{
    try
    {
        Tensor* in = ownTensor(&condition, "addAssertion condition");
        if (in == nullptr)
        {
            return nullptr;
        }
        if (in->getType() != DataType::kBOOL)
        {
            reportError(invalidArgument("addAssertion: condition '" + in->name() + "' has type "
                + dataTypeName(in->getType()) + "; it must be BOOL"));
            return nullptr;
        }
        return adopt(std::make_unique<AssertionLayer>(*this, in, message == nullptr ? "" : message));
    }
    catch (...)
    {
        reportError(internalError("addAssertion: unexpected exception"));
        return nullptr;
    }
}

Status inferAssertion(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    TensorInfo const& in = ctx.input(0);
    if (in.type != DataType::kBOOL)
    {
        return ctx.error("condition '" + in.name + "' has type " + dataTypeName(in.type) + "; it must be BOOL");
    }
    if (!in.values.has_value())
    {
        return Status::ok(); // checked on the data by the CPU kernel
    }
    std::string const failure = assertionFailureMessage(ctx.layerName(), ctx.attrs().getString("message"));
    for (size_t i = 0; i < in.values->size(); ++i)
    {
        DimExpr const& v = (*in.values)[i];
        if (v.isConstant())
        {
            if (v.constant() == 0)
            {
                return invalidArgument(failure + " (element " + std::to_string(i) + " of condition '" + in.name
                    + "' is false)");
            }
            continue;
        }
        KILN_RETURN_IF_ERROR(ctx.require(v.eq(0).logicalNot(),
            failure + " (element " + std::to_string(i) + " of condition '" + in.name + "' is false)"));
    }
    return Status::ok();
}

} // namespace kiln
