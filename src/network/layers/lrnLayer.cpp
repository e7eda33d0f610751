// LRNLayer, INetworkDefinition::addLRN and the LRN shape/type inference.
// y = x / (k + alpha / window * sum of x^2 over the window of channels centred on x) ^ beta, clipped at the edges.
#include "network/layers/lrnLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <cmath>
#include <sstream>

namespace kiln
{
using nvinfer1::DataType;

namespace
{

std::string num(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

//! Empty when valid, else the reason.
std::string checkWindow(int64_t w)
{
    if (w < 1 || w > LRNLayer::kMAX_WINDOW || w % 2 == 0)
    {
        return "window size " + std::to_string(w) + " must be odd and in [1, 15]";
    }
    return {};
}

std::string checkAlpha(double a)
{
    if (!(std::fabs(a) <= LRNLayer::kMAX_ALPHA))
    {
        return "alpha " + num(a) + " is out of range [-1e+20, 1e+20]";
    }
    return {};
}

std::string checkBeta(double b)
{
    if (!(b >= LRNLayer::kMIN_BETA && b <= LRNLayer::kMAX_BETA))
    {
        return "beta " + num(b) + " is out of range [0.01, 100000]";
    }
    return {};
}

std::string checkK(double k)
{
    if (!(k >= LRNLayer::kMIN_K && k <= LRNLayer::kMAX_K))
    {
        return "k " + num(k) + " is out of range [1e-05, 1e+10]";
    }
    return {};
}

} // namespace

LRNLayer::LRNLayer(NetworkDefinition& network, Tensor* input, int64_t window, float alpha, float beta, float k)
    : LayerBase<nvinfer1::ILRNLayer>(network, nvinfer1::LayerType::kLRN, {input}, 1)
{
    attrs().setInt("window", window);
    attrs().setFloat("alpha", alpha);
    attrs().setFloat("beta", beta);
    attrs().setFloat("k", k);
}

bool LRNLayer::accept(char const* method, std::string const& why)
{
    if (!why.empty())
    {
        network().reportError(invalidArgument(std::string("ILRNLayer::") + method + " on layer '" + name() + "': " + why));
        return false;
    }
    touch();
    return true;
}

void LRNLayer::setWindowSize(int64_t windowSize) noexcept
{
    if (accept("setWindowSize", checkWindow(windowSize)))
    {
        attrs().setInt("window", windowSize);
    }
}

int64_t LRNLayer::getWindowSize() const noexcept
{
    return attrs().getInt("window");
}

void LRNLayer::setAlpha(float alpha) noexcept
{
    if (accept("setAlpha", checkAlpha(alpha)))
    {
        attrs().setFloat("alpha", alpha);
    }
}

float LRNLayer::getAlpha() const noexcept
{
    return static_cast<float>(attrs().getFloat("alpha"));
}

void LRNLayer::setBeta(float beta) noexcept
{
    if (accept("setBeta", checkBeta(beta)))
    {
        attrs().setFloat("beta", beta);
    }
}

float LRNLayer::getBeta() const noexcept
{
    return static_cast<float>(attrs().getFloat("beta"));
}

void LRNLayer::setK(float k) noexcept
{
    if (accept("setK", checkK(k)))
    {
        attrs().setFloat("k", k);
    }
}

float LRNLayer::getK() const noexcept
{
    return static_cast<float>(attrs().getFloat("k"));
}

nvinfer1::ILRNLayer* NetworkDefinition::addLRN(
    nvinfer1::ITensor& input, int64_t window, float alpha, float beta, float k) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addLRN input");
        if (in == nullptr)
        {
            return nullptr;
        }
        for (std::string const& why : {checkWindow(window), checkAlpha(alpha), checkBeta(beta), checkK(k)})
        {
            if (!why.empty())
            {
                reportError(invalidArgument("addLRN: " + why));
                return nullptr;
            }
        }
        return adopt(std::make_unique<LRNLayer>(*this, in, window, alpha, beta, k));
    }
    catch (...)
    {
        reportError(internalError("addLRN: unexpected exception"));
        return nullptr;
    }
}

Status inferLRN(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 3, nvinfer1::Dims::MAX_DIMS));
    TensorInfo const& in = ctx.input(0);
    DataType const t = in.type;
    if (t != DataType::kFLOAT && t != DataType::kHALF && t != DataType::kBF16)
    {
        return ctx.error("input '" + in.name + "' has type " + dataTypeName(t) + "; LRN supports FP32, FP16 and BF16");
    }
    Attributes const& a = ctx.attrs();
    for (std::string const& why : {checkWindow(a.getInt("window", 0)), checkAlpha(a.getFloat("alpha", 0.0)),
             checkBeta(a.getFloat("beta", 0.0)), checkK(a.getFloat("k", 0.0))})
    {
        if (!why.empty())
        {
            return ctx.error(why);
        }
    }
    TensorInfo& out = ctx.output(0);
    out.type = t;
    out.dims = in.dims;
    return Status::ok();
}

} // namespace kiln
