// IFillLayer: the layer class, both INetworkDefinition::addFill overloads and shape/type/value inference.
// Linspace fills with integer outputs and known parameters produce values, so they can feed shape tensors.
#include "network/layers/fillLayer.h"

#include "core/dataType.h"
#include "network/inferContext.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <cmath>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::FillOperation;
using nvinfer1::LayerType;

namespace
{
constexpr int32_t kDIMS_SLOT = 0;
constexpr int32_t kALPHA_SLOT = 1;
constexpr int32_t kBETA_SLOT = 2;
constexpr int64_t kMAX_SHAPE_VALUES = 64;

bool isParameterType(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16 || t == DataType::kINT32
        || t == DataType::kINT64;
}

} // namespace

std::string FillLayer::checkDims(Dims const& d)
{
    if (d.nbDims < 0 || d.nbDims > Dims::MAX_DIMS)
    {
        return "invalid number of dimensions " + std::to_string(d.nbDims);
    }
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        if (d.d[i] < 0)
        {
            return "dimension " + std::to_string(i) + " is negative (" + std::to_string(d.d[i])
                + "); use input 0 for runtime dimensions";
        }
    }
    return "";
}

std::string FillLayer::checkType(FillOperation op, DataType t)
{
    bool const floatType = t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
    bool const intType = t == DataType::kINT32 || t == DataType::kINT64;
    if (op == FillOperation::kLINSPACE ? (floatType || intType) : floatType)
    {
        return "";
    }
    return std::string("output type ") + dataTypeName(t) + " is not supported by "
        + (op == FillOperation::kLINSPACE ? "kLINSPACE (FP32, FP16, BF16, INT32, INT64)"
                                          : "random fills (FP32, FP16, BF16)");
}

FillLayer::FillLayer(NetworkDefinition& network, Dims const& dims, FillOperation op, DataType toType, int64_t seed)
    : LayerBase(network, LayerType::kFILL, {}, 1)
{
    setMaxInputs(3);
    attrs().setDims("dims", dims);
    attrs().setInt("op", static_cast<int64_t>(op));
    attrs().setFloat("alpha", 0.0);
    attrs().setFloat("beta", 1.0);
    attrs().setInt("alpha_int", 0);
    attrs().setInt("beta_int", 1);
    attrs().setInt("int_params", 0);
    attrs().setInt("to_type", static_cast<int64_t>(toType));
    attrs().setInt("seed", seed);
}

bool FillLayer::hasInputAt(int32_t slot) const
{
    return static_cast<int32_t>(inputs().size()) > slot && inputs()[static_cast<size_t>(slot)] != nullptr;
}

void FillLayer::clearInput(int32_t slot)
{
    if (hasInputAt(slot))
    {
        inputs()[static_cast<size_t>(slot)] = nullptr;
    }
}

void FillLayer::setDimensions(Dims const& dimensions) noexcept
{
    std::string const problem = checkDims(dimensions);
    if (!problem.empty())
    {
        network().reportError(invalidArgument("IFillLayer::setDimensions on layer '" + name() + "': " + problem));
        return;
    }
    attrs().setDims("dims", dimensions);
    clearInput(kDIMS_SLOT);
    touch();
}

Dims FillLayer::getDimensions() const noexcept
{
    if (hasInputAt(kDIMS_SLOT))
    {
        Dims d{};
        d.nbDims = -1;
        return d;
    }
    return attrs().getDims("dims");
}

void FillLayer::setOperation(FillOperation op) noexcept
{
    int32_t const v = static_cast<int32_t>(op);
    if (v < 0 || v >= nvinfer1::EnumMax<FillOperation>())
    {
        network().reportError(invalidArgument(
            "IFillLayer::setOperation on layer '" + name() + "': invalid FillOperation " + std::to_string(v)));
        return;
    }
    attrs().setInt("op", v);
    touch();
}

FillOperation FillLayer::getOperation() const noexcept
{
    return static_cast<FillOperation>(attrs().getInt("op", 0));
}

void FillLayer::setAlpha(double alpha) noexcept
{
    attrs().setFloat("alpha", alpha);
    attrs().setInt("int_params", 0);
    clearInput(kALPHA_SLOT);
    touch();
}

double FillLayer::getAlpha() const noexcept
{
    if (hasInputAt(kALPHA_SLOT))
    {
        return -1.0;
    }
    return attrs().getInt("int_params", 0) != 0 ? static_cast<double>(attrs().getInt("alpha_int", 0))
                                                 : attrs().getFloat("alpha", 0.0);
}

void FillLayer::setBeta(double beta) noexcept
{
    attrs().setFloat("beta", beta);
    attrs().setInt("int_params", 0);
    clearInput(kBETA_SLOT);
    touch();
}

double FillLayer::getBeta() const noexcept
{
    if (hasInputAt(kBETA_SLOT))
    {
        return -1.0;
    }
    return attrs().getInt("int_params", 0) != 0 ? static_cast<double>(attrs().getInt("beta_int", 1))
                                                 : attrs().getFloat("beta", 1.0);
}

void FillLayer::setAlphaInt64(int64_t alpha) noexcept
{
    attrs().setInt("alpha_int", alpha);
    attrs().setInt("int_params", 1);
    clearInput(kALPHA_SLOT);
    touch();
}

int64_t FillLayer::getAlphaInt64() const noexcept
{
    if (hasInputAt(kALPHA_SLOT))
    {
        return -1;
    }
    return attrs().getInt("int_params", 0) != 0 ? attrs().getInt("alpha_int", 0)
                                                 : static_cast<int64_t>(attrs().getFloat("alpha", 0.0));
}

void FillLayer::setBetaInt64(int64_t beta) noexcept
{
    attrs().setInt("beta_int", beta);
    attrs().setInt("int_params", 1);
    clearInput(kBETA_SLOT);
    touch();
}

int64_t FillLayer::getBetaInt64() const noexcept
{
    if (hasInputAt(kBETA_SLOT))
    {
        return -1;
    }
    return attrs().getInt("int_params", 0) != 0 ? attrs().getInt("beta_int", 1)
                                                 : static_cast<int64_t>(attrs().getFloat("beta", 1.0));
}

bool FillLayer::isAlphaBetaInt64() const noexcept
{
    return attrs().getInt("int_params", 0) != 0;
}

void FillLayer::setToType(DataType toType) noexcept
{
    if (!isValidDataType(static_cast<int32_t>(toType)))
    {
        network().reportError(invalidArgument("IFillLayer::setToType on layer '" + name() + "': invalid DataType "
            + std::to_string(static_cast<int32_t>(toType))));
        return;
    }
    attrs().setInt("to_type", static_cast<int64_t>(toType));
    touch();
}

DataType FillLayer::getToType() const noexcept
{
    return static_cast<DataType>(attrs().getInt("to_type", 0));
}

void FillLayer::setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept
{
    try
    {
        if (index < 0 || index > kBETA_SLOT)
        {
            network().reportError(invalidArgument("IFillLayer::setInput on layer '" + name() + "': index "
                + std::to_string(index) + " is out of range (0 dimensions, 1 alpha, 2 beta)"));
            return;
        }
        if (network().ownTensor(&tensor, "IFillLayer::setInput tensor") == nullptr)
        {
            return;
        }
        if (static_cast<int32_t>(inputs().size()) < index)
        {
            inputs().resize(static_cast<size_t>(index), nullptr); // skipped slots stay empty, as in TensorRT
        }
        setInputImpl(index, tensor);
    }
    catch (...)
    {
        network().reportError(internalError("IFillLayer::setInput: unexpected exception"));
    }
}

namespace
{
nvinfer1::IFillLayer* addFillImpl(
    NetworkDefinition& network, Dims const& dimensions, FillOperation op, DataType outputType, char const* api)
{
    std::string problem = FillLayer::checkDims(dimensions);
    int32_t const opValue = static_cast<int32_t>(op);
    if (problem.empty() && (opValue < 0 || opValue >= nvinfer1::EnumMax<FillOperation>()))
    {
        problem = "invalid FillOperation " + std::to_string(opValue);
    }
    if (problem.empty() && !isValidDataType(static_cast<int32_t>(outputType)))
    {
        problem = "invalid output DataType " + std::to_string(static_cast<int32_t>(outputType));
    }
    if (problem.empty())
    {
        problem = FillLayer::checkType(op, outputType);
    }
    if (!problem.empty())
    {
        network.reportError(invalidArgument(std::string(api) + ": " + problem));
        return nullptr;
    }
    // Each fill layer gets its own seed (from its position in the network), so random fills differ.
    int64_t const seed = 0x6b696c6e00000000LL + network.getNbLayers();
    return network.adopt(std::make_unique<FillLayer>(network, dimensions, op, outputType, seed));
}
} // namespace

nvinfer1::IFillLayer* NetworkDefinition::addFill(Dims const& dimensions, FillOperation op) noexcept
{
    try
    {
        return addFillImpl(*this, dimensions, op, DataType::kFLOAT, "addFill");
    }
    catch (...)
    {
        reportError(internalError("addFill: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::IFillLayer* NetworkDefinition::addFill(Dims const& dimensions, FillOperation op, DataType outputType) noexcept
{
    try
    {
        return addFillImpl(*this, dimensions, op, outputType, "addFill");
    }
    catch (...)
    {
        reportError(internalError("addFill: unexpected exception"));
        return nullptr;
    }
}

Status inferFill(InferContext& ctx)
{
    Attributes const& attrs = ctx.attrs();
    int64_t const opValue = attrs.getInt("op", 0);
    if (opValue < 0 || opValue >= nvinfer1::EnumMax<FillOperation>())
    {
        return ctx.error("invalid fill operation " + std::to_string(opValue));
    }
    auto const op = static_cast<FillOperation>(opValue);
    auto const toType = static_cast<DataType>(attrs.getInt("to_type", 0));
    std::string const typeProblem = FillLayer::checkType(op, toType);
    if (!typeProblem.empty())
    {
        return ctx.error(typeProblem);
    }

    // Output dimensions.
    ShapeExpr dims;
    if (ctx.hasInput(kDIMS_SLOT))
    {
        TensorInfo const& shape = ctx.input(kDIMS_SLOT);
        if (shape.type != DataType::kINT32 && shape.type != DataType::kINT64)
        {
            return ctx.error(std::string("the dimensions (input 0) must be INT32 or INT64, not ")
                + dataTypeName(shape.type));
        }
        if (shape.rank() != 1 || !shape.dims[0].isConstant() || shape.dims[0].constant() > Dims::MAX_DIMS)
        {
            return ctx.error("the dimensions (input 0) must be a 1-D tensor with a build-time length of at most "
                + std::to_string(Dims::MAX_DIMS) + ", got " + shapeToString(ctx.graph(), shape.dims));
        }
        KILN_RETURN_IF_ERROR(ctx.requireValues(kDIMS_SLOT));
        dims = *shape.values;
        for (size_t i = 0; i < dims.size(); ++i)
        {
            KILN_RETURN_IF_ERROR(ctx.require(
                ctx.constant(0).le(dims[i]), "output dimension " + std::to_string(i) + " must not be negative"));
        }
    }
    else
    {
        for (int64_t v : attrs.getInts("dims"))
        {
            if (v < 0)
            {
                return ctx.error("output dimension " + std::to_string(v) + " is negative");
            }
            dims.push_back(ctx.constant(v));
        }
    }
    size_t const rank = dims.size();

    // Alpha and beta: both static or both tensors.
    bool const dynAlpha = ctx.hasInput(kALPHA_SLOT);
    bool const dynBeta = ctx.hasInput(kBETA_SLOT);
    if (dynAlpha != dynBeta)
    {
        return ctx.error(std::string("alpha (input 1) and beta (input 2) must both be tensors or both be static; only ")
            + (dynAlpha ? "alpha" : "beta") + " is a tensor");
    }
    if (dynAlpha)
    {
        TensorInfo const& a = ctx.input(kALPHA_SLOT);
        TensorInfo const& b = ctx.input(kBETA_SLOT);
        if (a.type != b.type)
        {
            return ctx.error(std::string("alpha and beta must have the same type (") + dataTypeName(a.type) + " vs "
                + dataTypeName(b.type) + ")");
        }
        if (!isParameterType(a.type))
        {
            return ctx.error(std::string("alpha and beta of type ") + dataTypeName(a.type) + " are not supported");
        }
        if (a.rank() != 0)
        {
            return ctx.error("alpha (input 1) must be a scalar (rank 0), got rank " + std::to_string(a.rank()));
        }
        if (op == FillOperation::kLINSPACE)
        {
            if (b.rank() != 1)
            {
                return ctx.error("beta (input 2) of kLINSPACE must be a 1-D tensor with one delta per output dimension");
            }
            KILN_RETURN_IF_ERROR(ctx.require(b.dims[0].eq(static_cast<int64_t>(rank)),
                "beta (input 2) must have " + std::to_string(rank) + " elements, one per output dimension"));
        }
        else if (b.rank() != 0)
        {
            return ctx.error("beta (input 2) of a random fill must be a scalar (rank 0)");
        }
    }
    else if (op == FillOperation::kLINSPACE && rank > 1)
    {
        return ctx.error("a static beta is one delta (Beta = [b]), which only fits outputs of rank 0 or 1; give a 1-D "
                         "beta tensor as input 2 for rank " + std::to_string(rank));
    }

    TensorInfo& out = ctx.output(0);
    out.type = toType;
    out.dims = dims;

    // Values for integer linspace outputs with known extents.
    bool const intOut = toType == DataType::kINT32 || toType == DataType::kINT64;
    if (op != FillOperation::kLINSPACE || !intOut)
    {
        return Status::ok();
    }
    int64_t volume = 1;
    for (auto const& d : dims)
    {
        if (!d.isConstant() || d.constant() < 0 || __builtin_mul_overflow(volume, d.constant(), &volume))
        {
            return Status::ok(); // no values for unknown (or absurd) extents
        }
    }
    if (volume > kMAX_SHAPE_VALUES)
    {
        return Status::ok();
    }
    DimExpr alpha;
    std::vector<DimExpr> beta;
    if (dynAlpha)
    {
        TensorInfo const& a = ctx.input(kALPHA_SLOT);
        TensorInfo const& b = ctx.input(kBETA_SLOT);
        if (!a.values || !b.values || a.values->size() != 1 || b.values->size() != rank
            || a.type == DataType::kFLOAT || b.type == DataType::kFLOAT)
        {
            return Status::ok();
        }
        alpha = (*a.values)[0];
        beta = *b.values;
    }
    else if (attrs.getInt("int_params", 0) != 0)
    {
        alpha = ctx.constant(attrs.getInt("alpha_int", 0));
        beta.assign(rank, ctx.constant(attrs.getInt("beta_int", 1)));
    }
    else
    {
        double const a = attrs.getFloat("alpha", 0.0);
        double const b = attrs.getFloat("beta", 1.0);
        if (a != std::trunc(a) || b != std::trunc(b) || std::fabs(a) > 1e15 || std::fabs(b) > 1e15)
        {
            return Status::ok(); // fractional parameters: the kernel computes in double and truncates
        }
        alpha = ctx.constant(static_cast<int64_t>(a));
        beta.assign(rank, ctx.constant(static_cast<int64_t>(b)));
    }
    std::vector<DimExpr> values;
    std::vector<int64_t> coord(rank, 0);
    for (int64_t i = 0; i < volume; ++i)
    {
        DimExpr v = alpha;
        for (size_t d = 0; d < rank; ++d)
        {
            v = v + beta[d] * coord[d];
        }
        values.push_back(v);
        for (size_t d = rank; d-- > 0;)
        {
            if (++coord[d] < dims[d].constant())
            {
                break;
            }
            coord[d] = 0;
        }
    }
    out.values = std::move(values);
    return Status::ok();
}

} // namespace kiln
