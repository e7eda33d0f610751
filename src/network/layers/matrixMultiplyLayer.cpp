// MatrixMultiplyLayer, INetworkDefinition::addMatrixMultiply and matrix-multiply shape/type inference.
#include "network/layers/matrixMultiplyLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::MatrixOperation;

namespace
{
bool validOperation(MatrixOperation op)
{
    int32_t const v = static_cast<int32_t>(op);
    return v >= 0 && v < nvinfer1::EnumMax<MatrixOperation>();
}
} // namespace

char const* matrixOperationName(MatrixOperation op)
{
    switch (op)
    {
    case MatrixOperation::kNONE: return "kNONE";
    case MatrixOperation::kTRANSPOSE: return "kTRANSPOSE";
    case MatrixOperation::kVECTOR: return "kVECTOR";
    }
    return "unknown";
}

MatrixMultiplyLayer::MatrixMultiplyLayer(
    NetworkDefinition& network, Tensor* input0, MatrixOperation op0, Tensor* input1, MatrixOperation op1)
    : LayerBase<nvinfer1::IMatrixMultiplyLayer>(network, nvinfer1::LayerType::kMATRIX_MULTIPLY, {input0, input1}, 1)
{
    attrs().setInt("op0", static_cast<int64_t>(op0));
    attrs().setInt("op1", static_cast<int64_t>(op1));
}

void MatrixMultiplyLayer::setOperation(int32_t index, MatrixOperation op) noexcept
{
    if (index != 0 && index != 1)
    {
        network().reportError(invalidArgument("IMatrixMultiplyLayer::setOperation on layer '" + name() + "': index "
            + std::to_string(index) + " must be 0 or 1"));
        return;
    }
    if (!validOperation(op))
    {
        network().reportError(invalidArgument("IMatrixMultiplyLayer::setOperation on layer '" + name()
            + "': invalid MatrixOperation value " + std::to_string(static_cast<int32_t>(op))));
        return;
    }
    attrs().setInt(index == 0 ? "op0" : "op1", static_cast<int64_t>(op));
    touch();
}

MatrixOperation MatrixMultiplyLayer::getOperation(int32_t index) const noexcept
{
    if (index != 0 && index != 1)
    {
        network().reportError(invalidArgument("IMatrixMultiplyLayer::getOperation on layer '" + name() + "': index "
            + std::to_string(index) + " must be 0 or 1"));
        return MatrixOperation::kNONE;
    }
    return static_cast<MatrixOperation>(attrs().getInt(index == 0 ? "op0" : "op1"));
}

nvinfer1::IMatrixMultiplyLayer* NetworkDefinition::addMatrixMultiply(
    nvinfer1::ITensor& input0, MatrixOperation op0, nvinfer1::ITensor& input1, MatrixOperation op1) noexcept
{
    try
    {
        Tensor* a = ownTensor(&input0, "addMatrixMultiply input0");
        if (a == nullptr)
        {
            return nullptr;
        }
        Tensor* b = ownTensor(&input1, "addMatrixMultiply input1");
        if (b == nullptr)
        {
            return nullptr;
        }
        if (!validOperation(op0) || !validOperation(op1))
        {
            reportError(invalidArgument("addMatrixMultiply: invalid MatrixOperation value "
                + std::to_string(static_cast<int32_t>(validOperation(op0) ? op1 : op0))));
            return nullptr;
        }
        return adopt(std::make_unique<MatrixMultiplyLayer>(*this, a, op0, b, op1));
    }
    catch (...)
    {
        reportError(internalError("addMatrixMultiply: unexpected exception"));
        return nullptr;
    }
}

Status inferMatrixMultiply(InferContext& ctx)
{
    MatrixOperation ops[2];
    for (int32_t i = 0; i < 2; ++i)
    {
        int64_t const v = ctx.attrs().getInt(i == 0 ? "op0" : "op1", -1);
        if (v < 0 || v >= nvinfer1::EnumMax<MatrixOperation>())
        {
            return ctx.error("op" + std::to_string(i) + " " + std::to_string(v) + " is not a MatrixOperation value");
        }
        ops[i] = static_cast<MatrixOperation>(v);
    }
    for (int32_t i = 0; i < 2; ++i)
    {
        if (!ctx.hasInput(i))
        {
            return ctx.error("input " + std::to_string(i) + " is missing");
        }
    }
    TensorInfo const& a = ctx.input(0);
    TensorInfo const& b = ctx.input(1);
    for (int32_t i = 0; i < 2; ++i)
    {
        TensorInfo const& t = ctx.input(i);
        if (t.type != DataType::kFLOAT && t.type != DataType::kHALF && t.type != DataType::kBF16)
        {
            return ctx.error("input " + std::to_string(i) + " '" + t.name + "' has type " + dataTypeName(t.type)
                + "; matrix multiplication supports FP32, FP16 and BF16 (TensorRT also allows FP8, which Kiln does "
                  "not support; INT8/INT32/INT64/BOOL operands are not allowed)");
        }
        int32_t const minRank = ops[i] == MatrixOperation::kVECTOR ? 1 : 2;
        if (t.rank() < minRank)
        {
            return ctx.error("input " + std::to_string(i) + " '" + t.name + "' has rank " + std::to_string(t.rank())
                + " but MatrixOperation::" + matrixOperationName(ops[i]) + " needs rank >= " + std::to_string(minRank));
        }
    }
    if (a.type != b.type)
    {
        return ctx.error("input 0 '" + a.name + "' has type " + dataTypeName(a.type) + " but input 1 '" + b.name
            + "' has type " + dataTypeName(b.type) + "; both operands must have the same type");
    }
    int32_t const matA = ops[0] == MatrixOperation::kVECTOR ? 1 : 2;
    int32_t const matB = ops[1] == MatrixOperation::kVECTOR ? 1 : 2;
    int32_t const batchA = a.rank() - matA;
    int32_t const batchB = b.rank() - matB;
    if (batchA != batchB)
    {
        return ctx.error("input 0 '" + a.name + "' (rank " + std::to_string(a.rank()) + ", " + matrixOperationName(ops[0])
            + ") has " + std::to_string(batchA) + " batch dimensions but input 1 '" + b.name + "' (rank "
            + std::to_string(b.rank()) + ", " + matrixOperationName(ops[1]) + ") has " + std::to_string(batchB)
            + "; the number of batch dimensions must match");
    }
    ShapeExpr const batchDimsA(a.dims.begin(), a.dims.begin() + batchA);
    ShapeExpr const batchDimsB(b.dims.begin(), b.dims.begin() + batchB);
    KILN_ASSIGN_OR_RETURN(ShapeExpr dims, broadcastShapes(ctx, batchDimsA, batchDimsB, "batch dimensions of the operands"));

    // Contraction (K) and free (M, N) extents of each operand after its operation.
    auto const at = [](TensorInfo const& t, int32_t fromEnd) { return t.dims[static_cast<size_t>(t.rank() - fromEnd)]; };
    DimExpr kA;
    DimExpr kB;
    DimExpr m;
    DimExpr n;
    bool const hasM = ops[0] != MatrixOperation::kVECTOR;
    bool const hasN = ops[1] != MatrixOperation::kVECTOR;
    switch (ops[0])
    {
    case MatrixOperation::kNONE: m = at(a, 2); kA = at(a, 1); break;
    case MatrixOperation::kTRANSPOSE: m = at(a, 1); kA = at(a, 2); break;
    case MatrixOperation::kVECTOR: kA = at(a, 1); break;
    }
    switch (ops[1])
    {
    case MatrixOperation::kNONE: kB = at(b, 2); n = at(b, 1); break;
    case MatrixOperation::kTRANSPOSE: kB = at(b, 1); n = at(b, 2); break;
    case MatrixOperation::kVECTOR: kB = at(b, 1); break;
    }
    if (kA.isConstant() && kB.isConstant())
    {
        if (kA.constant() != kB.constant())
        {
            return ctx.error("the reduction extents differ: input 0 '" + a.name + "' (" + matrixOperationName(ops[0])
                + ") contributes " + std::to_string(kA.constant()) + " and input 1 '" + b.name + "' ("
                + matrixOperationName(ops[1]) + ") contributes " + std::to_string(kB.constant()));
        }
    }
    else
    {
        KILN_RETURN_IF_ERROR(ctx.require(kA.eq(kB), "the reduction extents of input 0 '" + a.name + "' and input 1 '"
            + b.name + "' must be equal"));
    }
    if (hasM)
    {
        dims.push_back(m);
    }
    if (hasN)
    {
        dims.push_back(n);
    }
    TensorInfo& out = ctx.output(0);
    out.type = a.type;
    out.dims = std::move(dims);
    return Status::ok();
}

} // namespace kiln
