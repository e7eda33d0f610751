// IResizeLayer: the layer class, INetworkDefinition::addResize and shape/type inference. Output extents come
// from static dimensions, from scales (floor(in * scale), a kSCALE expression) or from a shape tensor.
#include "network/layers/resizeLayer.h"

#include "core/dataType.h"
#include "network/inferContext.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <cmath>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::InterpolationMode;
using nvinfer1::LayerType;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

ResizeLayer::ResizeLayer(NetworkDefinition& network, Tensor* input)
    : LayerBase(network, LayerType::kRESIZE, {input}, 1)
{
    setMaxInputs(2);
    attrs().setInt("mode", static_cast<int64_t>(InterpolationMode::kNEAREST));
    attrs().setInt("coord_transform", static_cast<int64_t>(ResizeCoordinateTransformation::kASYMMETRIC));
    attrs().setInt("selector", static_cast<int64_t>(ResizeSelector::kFORMULA));
    attrs().setInt("nearest_rounding", static_cast<int64_t>(ResizeRoundMode::kFLOOR));
    attrs().setFloat("cubic_coeff", -0.75);
    attrs().setInt("exclude_outside", 0);
}

bool ResizeLayer::dynamic() const
{
    return inputs().size() > 1 && inputs()[1] != nullptr;
}

void ResizeLayer::reject(std::string const& api, std::string const& problem) const
{
    network().reportError(invalidArgument("IResizeLayer::" + api + " on layer '" + name() + "': " + problem));
}

bool ResizeLayer::setEnum(char const* key, int32_t value, int32_t count, char const* api)
{
    if (value < 0 || value >= count)
    {
        reject(api, "invalid value " + std::to_string(value));
        return false;
    }
    attrs().setInt(key, value);
    touch();
    return true;
}

void ResizeLayer::setOutputDimensions(Dims const& dimensions) noexcept
{
    try
    {
        if (dynamic())
        {
            reject("setOutputDimensions", "the output dimensions come from input 1 (a dynamic resize)");
            return;
        }
        if (dimensions.nbDims < 0 || dimensions.nbDims > Dims::MAX_DIMS)
        {
            reject("setOutputDimensions", "invalid number of dimensions " + std::to_string(dimensions.nbDims));
            return;
        }
        for (int32_t i = 0; i < dimensions.nbDims; ++i)
        {
            if (dimensions.d[i] < 0)
            {
                reject("setOutputDimensions", "dimension " + std::to_string(i) + " is negative");
                return;
            }
        }
        attrs().setDims("output_dims", dimensions);
        attrs().erase("scales");
        touch();
    }
    catch (...)
    {
        network().reportError(internalError("IResizeLayer::setOutputDimensions: unexpected exception"));
    }
}

Dims ResizeLayer::getOutputDimensions() const noexcept
{
    if (!attrs().has("output_dims"))
    {
        Dims d{};
        d.nbDims = -1;
        return d;
    }
    return attrs().getDims("output_dims");
}

void ResizeLayer::setScales(float const* scales, int32_t nbScales) noexcept
{
    try
    {
        if (dynamic())
        {
            reject("setScales", "the output size comes from input 1 (a dynamic resize)");
            return;
        }
        if (nbScales < 0 || nbScales > Dims::MAX_DIMS || (scales == nullptr && nbScales > 0))
        {
            reject("setScales", "invalid scales (count " + std::to_string(nbScales) + ")");
            return;
        }
        std::vector<double> v;
        for (int32_t i = 0; i < nbScales; ++i)
        {
            if (!std::isfinite(scales[i]) || scales[i] <= 0.F)
            {
                reject("setScales", "scale " + std::to_string(i) + " must be positive and finite");
                return;
            }
            v.push_back(static_cast<double>(scales[i]));
        }
        attrs().setFloats("scales", std::move(v));
        attrs().erase("output_dims");
        touch();
    }
    catch (...)
    {
        network().reportError(internalError("IResizeLayer::setScales: unexpected exception"));
    }
}

int32_t ResizeLayer::getScales(int32_t size, float* scales) const noexcept
{
    if (dynamic() || !attrs().has("scales"))
    {
        return -1;
    }
    std::vector<double> const v = attrs().getFloats("scales");
    int32_t const n = static_cast<int32_t>(v.size());
    if (scales != nullptr && size == n)
    {
        for (int32_t i = 0; i < n; ++i)
        {
            scales[i] = static_cast<float>(v[static_cast<size_t>(i)]);
        }
    }
    return n;
}

void ResizeLayer::setResizeMode(InterpolationMode interpolationMode) noexcept
{
    setEnum("mode", static_cast<int32_t>(interpolationMode), nvinfer1::EnumMax<InterpolationMode>(), "setResizeMode");
}

InterpolationMode ResizeLayer::getResizeMode() const noexcept
{
    return static_cast<InterpolationMode>(attrs().getInt("mode", 0));
}

void ResizeLayer::setCoordinateTransformation(ResizeCoordinateTransformation coordTransform) noexcept
{
    setEnum("coord_transform", static_cast<int32_t>(coordTransform),
        nvinfer1::EnumMax<ResizeCoordinateTransformation>(), "setCoordinateTransformation");
}

ResizeCoordinateTransformation ResizeLayer::getCoordinateTransformation() const noexcept
{
    return static_cast<ResizeCoordinateTransformation>(attrs().getInt("coord_transform", 1));
}

void ResizeLayer::setSelectorForSinglePixel(ResizeSelector selector) noexcept
{
    setEnum("selector", static_cast<int32_t>(selector), nvinfer1::EnumMax<ResizeSelector>(),
        "setSelectorForSinglePixel");
}

ResizeSelector ResizeLayer::getSelectorForSinglePixel() const noexcept
{
    return static_cast<ResizeSelector>(attrs().getInt("selector", 0));
}

void ResizeLayer::setNearestRounding(ResizeRoundMode value) noexcept
{
    setEnum("nearest_rounding", static_cast<int32_t>(value), nvinfer1::EnumMax<ResizeRoundMode>(),
        "setNearestRounding");
}

ResizeRoundMode ResizeLayer::getNearestRounding() const noexcept
{
    return static_cast<ResizeRoundMode>(attrs().getInt("nearest_rounding", 2));
}

void ResizeLayer::setCubicCoeff(float A) noexcept
{
    if (!std::isfinite(A))
    {
        reject("setCubicCoeff", "the coefficient must be finite");
        return;
    }
    attrs().setFloat("cubic_coeff", static_cast<double>(A));
    touch();
}

float ResizeLayer::getCubicCoeff() const noexcept
{
    return static_cast<float>(attrs().getFloat("cubic_coeff", -0.75));
}

void ResizeLayer::setExcludeOutside(bool excludeFlag) noexcept
{
    attrs().setInt("exclude_outside", excludeFlag ? 1 : 0);
    touch();
}

bool ResizeLayer::getExcludeOutside() const noexcept
{
    return attrs().getInt("exclude_outside", 0) != 0;
}

void ResizeLayer::setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept
{
    if (index < 0 || index > 1)
    {
        reject("setInput", "index " + std::to_string(index) + " is out of range (0 data, 1 output size)");
        return;
    }
    if (setInputImpl(index, tensor) && index == 1)
    {
        // A dynamic resize takes its size from input 1 only.
        attrs().erase("output_dims");
        attrs().erase("scales");
    }
}

nvinfer1::IResizeLayer* NetworkDefinition::addResize(nvinfer1::ITensor& input) noexcept
{
    try
    {
        Tensor* t = ownTensor(&input, "addResize input");
        if (t == nullptr)
        {
            return nullptr;
        }
        return adopt(std::make_unique<ResizeLayer>(*this, t));
    }
    catch (...)
    {
        reportError(internalError("addResize: unexpected exception"));
        return nullptr;
    }
}

Status inferResize(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 1));
    TensorInfo const& in = ctx.input(0);
    Attributes const& attrs = ctx.attrs();
    int32_t const rank = in.rank();
    size_t const n = static_cast<size_t>(rank);
    int64_t const modeValue = attrs.getInt("mode", 0);
    if (modeValue < 0 || modeValue >= nvinfer1::EnumMax<InterpolationMode>())
    {
        return ctx.error("invalid resize mode " + std::to_string(modeValue));
    }
    auto const mode = static_cast<InterpolationMode>(modeValue);
    bool const floatType = in.type == DataType::kFLOAT || in.type == DataType::kHALF || in.type == DataType::kBF16;
    if (mode != InterpolationMode::kNEAREST && !floatType)
    {
        return ctx.error(std::string("linear and cubic resizing need an FP32, FP16 or BF16 input, not ")
            + dataTypeName(in.type));
    }
    if (elementSize(in.type) <= 0)
    {
        return ctx.error(std::string("type ") + dataTypeName(in.type) + " is not supported");
    }

    ShapeExpr outDims(n);
    std::vector<double> scales; // empty unless the size comes from scales
    if (ctx.hasInput(1))
    {
        TensorInfo const& size = ctx.input(1);
        if (size.rank() != 1 || !size.dims[0].is(rank))
        {
            return ctx.error("the output size (input 1) must be a 1-D tensor with " + std::to_string(rank)
                + " elements, got dims " + shapeToString(ctx.graph(), size.dims));
        }
        if (size.type == DataType::kINT32 || size.type == DataType::kINT64)
        {
            KILN_RETURN_IF_ERROR(ctx.requireValues(1));
            outDims = *size.values;
        }
        else if (size.type == DataType::kFLOAT && size.constantData == nullptr && size.values.has_value()
            && static_cast<int32_t>(size.values->size()) == rank)
        {
            // Run-time scales (a FLOAT shape tensor, e.g. a host input): out = floor(double(in) * scale), evaluated
            // when the scales are known; the kernel reads the same scales from input 1.
            for (size_t i = 0; i < n; ++i)
            {
                DimExpr const scale = (*size.values)[i];
                double known = 0.0;
                outDims[i] = ctx.graph().isFloatConstant(scale.id(), &known) && known == 1.0
                    ? in.dims[i]
                    : in.dims[i].toFloat().floatOp(ExprOp::kF_PROD, scale).toInt(ExprRounding::kFLOOR);
            }
        }
        else if (size.type == DataType::kFLOAT)
        {
            if (size.constantData == nullptr)
            {
                return ctx.error("FP32 scales given as input 1 must come from a constant layer or be a FLOAT shape "
                                 "tensor whose values are known before execution (e.g. a FLOAT network input); "
                                 "otherwise give the output dimensions as an INT32/INT64 shape tensor");
            }
            for (int32_t i = 0; i < rank; ++i)
            {
                scales.push_back(loadElement(size.constantData, size.type, i));
            }
        }
        else
        {
            return ctx.error(std::string("input 1 must be INT32/INT64 output dimensions or FP32 scales, not ")
                + dataTypeName(size.type));
        }
    }
    else if (attrs.has("output_dims"))
    {
        std::vector<int64_t> const d = attrs.getInts("output_dims");
        if (d.size() != n)
        {
            return ctx.error("the output dimensions have " + std::to_string(d.size()) + " entries but the input has rank "
                + std::to_string(rank));
        }
        for (size_t i = 0; i < n; ++i)
        {
            outDims[i] = ctx.constant(d[i]);
        }
    }
    else if (attrs.has("scales"))
    {
        scales = attrs.getFloats("scales");
        if (scales.size() != n)
        {
            return ctx.error("setScales gave " + std::to_string(scales.size()) + " scales but the input has rank "
                + std::to_string(rank));
        }
    }
    else
    {
        return ctx.error("neither output dimensions nor scales were set");
    }
    if (!scales.empty())
    {
        for (size_t i = 0; i < n; ++i)
        {
            if (!std::isfinite(scales[i]) || scales[i] <= 0.0)
            {
                return ctx.error("scale " + std::to_string(i) + " must be positive and finite");
            }
            outDims[i] = scales[i] == 1.0 ? in.dims[i] : in.dims[i].scaled(scales[i], ExprRounding::kFLOOR);
        }
    }

    // Which dimensions each mode may resize (TensorRT: linear the innermost 3, cubic the innermost 2).
    int32_t const window = mode == InterpolationMode::kNEAREST ? rank : (mode == InterpolationMode::kLINEAR ? 3 : 2);
    if (mode == InterpolationMode::kCUBIC && rank < 2)
    {
        return ctx.error("cubic resizing needs an input of rank 2 or more");
    }
    for (size_t i = 0; i < n; ++i)
    {
        std::string const which = "dimension " + std::to_string(i);
        KILN_RETURN_IF_ERROR(ctx.require(ctx.constant(0).le(outDims[i]), which + ": negative output extent"));
        KILN_RETURN_IF_ERROR(ctx.require(in.dims[i].eq(0).logicalNot().logicalOr(outDims[i].eq(0)),
            which + ": an empty input dimension can only be resized to 0"));
        if (static_cast<int32_t>(i) < rank - window)
        {
            KILN_RETURN_IF_ERROR(ctx.require(outDims[i].eq(in.dims[i]),
                which + ": " + (mode == InterpolationMode::kLINEAR ? "linear" : "cubic")
                    + " resizing only changes the innermost " + std::to_string(window) + " dimensions"));
        }
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = outDims;
    return Status::ok();
}

} // namespace kiln
