// Importers of the matrix op family: MatMul (numpy-style batched broadcasting; 1-D operands as vectors) and Gemm
// (transA/transB, alpha, beta, optional broadcast C) onto IMatrixMultiplyLayer.
#include "onnx/importerHelpers.h"
#include "onnx/importers/nnUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>

namespace kiln
{
namespace
{

using namespace kiln::nn;

using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using nvinfer1::MatrixOperation;

Status checkFloatOperands(::onnx::NodeProto const& node, ITensor* a, ITensor* b)
{
    if (!isFloatType(a->getType()) || !isFloatType(b->getType()))
    {
        return unsupported(describeNode(node) + ": only floating-point operands are supported "
            "(IMatrixMultiplyLayer has no integer matrix multiply)");
    }
    if (a->getType() != b->getType())
    {
        return invalidArgument(describeNode(node) + ": inputs 'A' and 'B' have different types");
    }
    return Status::ok();
}

StatusOr<ITensor*> addMatMul(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* a, MatrixOperation opA,
    ITensor* b, MatrixOperation opB, std::string const& suffix = "")
{
    auto* layer = ctx.network().addMatrixMultiply(*a, opA, *b, opB);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addMatrixMultiply", suffix));
    return layer->getOutput(0);
}

Status importMatMul(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * a, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * b, ctx.tensor(node, 1));
    KILN_RETURN_IF_ERROR(checkFloatOperands(node, a, b));
    int32_t const ra = rankOf(a);
    int32_t const rb = rankOf(b);
    if (ra < 1 || rb < 1)
    {
        return invalidArgument(describeNode(node) + ": MatMul operands need rank >= 1");
    }
    MatrixOperation const opA = ra == 1 ? MatrixOperation::kVECTOR : MatrixOperation::kNONE;
    MatrixOperation const opB = rb == 1 ? MatrixOperation::kVECTOR : MatrixOperation::kNONE;
    // Align the batch dimensions: rank - 2 for a matrix, rank - 1 for a vector.
    int32_t const batchA = ra == 1 ? 0 : ra - 2;
    int32_t const batchB = rb == 1 ? 0 : rb - 2;
    int32_t const batch = std::max(batchA, batchB);
    KILN_ASSIGN_OR_RETURN(a, unsqueezeToRank(ctx, node, a, ra + batch - batchA));
    KILN_ASSIGN_OR_RETURN(b, unsqueezeToRank(ctx, node, b, rb + batch - batchB));
    KILN_ASSIGN_OR_RETURN(ITensor * y, addMatMul(ctx, node, a, opA, b, opB));
    outputs.emplace_back(y);
    return Status::ok();
}

Status importGemm(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * a, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * b, ctx.tensor(node, 1));
    KILN_RETURN_IF_ERROR(checkFloatOperands(node, a, b));
    if (rankOf(a) != 2 || rankOf(b) != 2)
    {
        return invalidArgument(describeNode(node) + ": inputs 'A' and 'B' must be 2-D, got ranks "
            + std::to_string(rankOf(a)) + " and " + std::to_string(rankOf(b)));
    }
    float const alpha = attrFloat(node, "alpha", 1.0F);
    float const beta = attrFloat(node, "beta", 1.0F);
    MatrixOperation const opA = attrInt(node, "transA", 0) != 0 ? MatrixOperation::kTRANSPOSE : MatrixOperation::kNONE;
    MatrixOperation const opB = attrInt(node, "transB", 0) != 0 ? MatrixOperation::kTRANSPOSE : MatrixOperation::kNONE;
    KILN_ASSIGN_OR_RETURN(ITensor * y, addMatMul(ctx, node, a, opA, b, opB, ctx.hasInput(node, 2) ? "matmul" : ""));
    if (alpha != 1.0F)
    {
        KILN_ASSIGN_OR_RETURN(y, withScalar(ctx, node, y, alpha, ElementWiseOperation::kPROD, "alpha"));
    }
    if (ctx.hasInput(node, 2))
    {
        KILN_ASSIGN_OR_RETURN(ITensor * c, ctx.tensor(node, 2));
        KILN_ASSIGN_OR_RETURN(c, castTo(ctx, node, c, y->getType(), "c_cast"));
        if (beta != 1.0F)
        {
            KILN_ASSIGN_OR_RETURN(c, withScalar(ctx, node, c, beta, ElementWiseOperation::kPROD, "beta"));
        }
        KILN_ASSIGN_OR_RETURN(y, addElementWise(ctx, node, y, c, ElementWiseOperation::kSUM));
    }
    outputs.emplace_back(y);
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> matrixImporters()
{
    return {
        {"MatMul", &importMatMul},
        {"Gemm", &importGemm},
    };
}

} // namespace kiln
