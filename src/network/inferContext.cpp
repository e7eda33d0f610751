// InferContext helpers, broadcasting and layer kind names.
#include "network/inferContext.h"

#include "core/dataType.h"

namespace kiln
{
using nvinfer1::LayerType;

Status InferContext::error(std::string const& message) const
{
    return invalidArgument("layer '" + mLayerName + "' (" + layerKindName(mKind) + "): " + message);
}

Status InferContext::require(DimExpr condition, std::string const& message)
{
    return mGraph.require(condition.id(), "layer '" + mLayerName + "' (" + layerKindName(mKind) + "): " + message);
}

Status InferContext::requireInput(int32_t i, int32_t minRank, int32_t maxRank) const
{
    if (!hasInput(i))
    {
        return error("input " + std::to_string(i) + " is missing");
    }
    int32_t const r = input(i).rank();
    if (r < minRank || r > maxRank)
    {
        std::string range = minRank == maxRank ? std::to_string(minRank)
                                               : std::to_string(minRank) + ".." + std::to_string(maxRank);
        return error("input " + std::to_string(i) + " '" + input(i).name + "' has rank " + std::to_string(r)
            + "; expected rank " + range);
    }
    return Status::ok();
}

Status InferContext::requireValues(int32_t i) const
{
    if (!hasInput(i))
    {
        return error("shape input " + std::to_string(i) + " is missing");
    }
    if (!input(i).values.has_value())
    {
        return error("input " + std::to_string(i) + " '" + input(i).name
            + "' must be a shape tensor (an INT32/INT64 tensor whose values are known before execution: "
              "computed from IShapeLayer, constants or shape-tensor inputs)");
    }
    if (input(i).type == nvinfer1::DataType::kFLOAT)
    {
        return error("input " + std::to_string(i) + " '" + input(i).name
            + "' is a FLOAT shape tensor; this input needs INT32/INT64 values (cast it)");
    }
    return Status::ok();
}

StatusOr<ShapeExpr> broadcastShapes(InferContext& ctx, ShapeExpr const& a, ShapeExpr const& b, std::string const& what)
{
    if (a.size() != b.size())
    {
        return ctx.error(what + ": ranks differ (" + std::to_string(a.size()) + " vs " + std::to_string(b.size())
            + "); TensorRT-style broadcasting needs equal ranks");
    }
    ShapeExpr out;
    for (size_t i = 0; i < a.size(); ++i)
    {
        DimExpr const x = a[i];
        DimExpr const y = b[i];
        if (x.isConstant() && y.isConstant())
        {
            int64_t const xv = x.constant();
            int64_t const yv = y.constant();
            if (xv != yv && xv != 1 && yv != 1)
            {
                return ctx.error(what + ": dimension " + std::to_string(i) + " cannot be broadcast (" + std::to_string(xv)
                    + " vs " + std::to_string(yv) + ")");
            }
            out.push_back(xv == 1 ? y : x);
            continue;
        }
        if (x.is(1))
        {
            out.push_back(y);
            continue;
        }
        if (y.is(1))
        {
            out.push_back(x);
            continue;
        }
        KILN_RETURN_IF_ERROR(ctx.require(x.eq(y).logicalOr(x.eq(1)).logicalOr(y.eq(1)),
            what + ": dimension " + std::to_string(i) + " cannot be broadcast at run time"));
        out.push_back(x.eq(1).select(y, x));
    }
    return out;
}

std::string shapeToString(ShapeGraph const& g, ShapeExpr const& s)
{
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i)
    {
        out += (i ? ", " : "") + g.toString(s[i].id());
    }
    return out + "]";
}

char const* layerKindName(LayerType kind)
{
    switch (kind)
    {
    case LayerType::kCONVOLUTION: return "Convolution";
    case LayerType::kCAST: return "Cast";
    case LayerType::kACTIVATION: return "Activation";
    case LayerType::kPOOLING: return "Pooling";
    case LayerType::kLRN: return "LRN";
    case LayerType::kSCALE: return "Scale";
    case LayerType::kSOFTMAX: return "SoftMax";
    case LayerType::kDECONVOLUTION: return "Deconvolution";
    case LayerType::kCONCATENATION: return "Concatenation";
    case LayerType::kELEMENTWISE: return "ElementWise";
    case LayerType::kPLUGIN: return "Plugin";
    case LayerType::kUNARY: return "Unary";
    case LayerType::kPADDING: return "Padding";
    case LayerType::kSHUFFLE: return "Shuffle";
    case LayerType::kREDUCE: return "Reduce";
    case LayerType::kTOPK: return "TopK";
    case LayerType::kGATHER: return "Gather";
    case LayerType::kMATRIX_MULTIPLY: return "MatrixMultiply";
    case LayerType::kRAGGED_SOFTMAX: return "RaggedSoftMax";
    case LayerType::kCONSTANT: return "Constant";
    case LayerType::kIDENTITY: return "Identity";
    case LayerType::kPLUGIN_V2: return "PluginV2";
    case LayerType::kSLICE: return "Slice";
    case LayerType::kSHAPE: return "Shape";
    case LayerType::kPARAMETRIC_RELU: return "ParametricReLU";
    case LayerType::kRESIZE: return "Resize";
    case LayerType::kTRIP_LIMIT: return "TripLimit";
    case LayerType::kRECURRENCE: return "Recurrence";
    case LayerType::kITERATOR: return "Iterator";
    case LayerType::kLOOP_OUTPUT: return "LoopOutput";
    case LayerType::kSELECT: return "Select";
    case LayerType::kFILL: return "Fill";
    case LayerType::kQUANTIZE: return "Quantize";
    case LayerType::kDEQUANTIZE: return "Dequantize";
    case LayerType::kCONDITION: return "Condition";
    case LayerType::kCONDITIONAL_INPUT: return "ConditionalInput";
    case LayerType::kCONDITIONAL_OUTPUT: return "ConditionalOutput";
    case LayerType::kSCATTER: return "Scatter";
    case LayerType::kEINSUM: return "Einsum";
    case LayerType::kASSERTION: return "Assertion";
    case LayerType::kONE_HOT: return "OneHot";
    case LayerType::kNON_ZERO: return "NonZero";
    case LayerType::kGRID_SAMPLE: return "GridSample";
    case LayerType::kNMS: return "NMS";
    case LayerType::kREVERSE_SEQUENCE: return "ReverseSequence";
    case LayerType::kNORMALIZATION: return "Normalization";
    case LayerType::kPLUGIN_V3: return "PluginV3";
    case LayerType::kSQUEEZE: return "Squeeze";
    case LayerType::kUNSQUEEZE: return "Unsqueeze";
    case LayerType::kCUMULATIVE: return "Cumulative";
    case LayerType::kDYNAMIC_QUANTIZE: return "DynamicQuantize";
    default: return "Layer";
    }
}

} // namespace kiln
