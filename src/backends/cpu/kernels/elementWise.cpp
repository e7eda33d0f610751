// CPU kernel of IElementWiseLayer: binary operations with broadcasting. Floating-point operands are computed in
// float; integer and BOOL operands exactly in int64 (results wrap to the output type; integer division by zero
// gives 0). kDIV on integers truncates toward zero, kFLOOR_DIV rounds toward negative infinity.
#include "core/intArithmetic.h"
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/simd.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;

namespace
{

using Op = ElementWiseOperation;

KILN_CPU_CLONES void applyFloat(Op op, float const* a, float const* b, float* r, int64_t n)
{
    switch (op)
    {
    case Op::kSUM:
        for (int64_t i = 0; i < n; ++i) r[i] = a[i] + b[i];
        break;
    case Op::kPROD:
        for (int64_t i = 0; i < n; ++i) r[i] = a[i] * b[i];
        break;
    case Op::kMAX:
        for (int64_t i = 0; i < n; ++i) r[i] = std::fmax(a[i], b[i]);
        break;
    case Op::kMIN:
        for (int64_t i = 0; i < n; ++i) r[i] = std::fmin(a[i], b[i]);
        break;
    case Op::kSUB:
        for (int64_t i = 0; i < n; ++i) r[i] = a[i] - b[i];
        break;
    case Op::kDIV:
        for (int64_t i = 0; i < n; ++i) r[i] = a[i] / b[i];
        break;
    case Op::kPOW:
        for (int64_t i = 0; i < n; ++i) r[i] = std::pow(a[i], b[i]);
        break;
    case Op::kFLOOR_DIV:
        for (int64_t i = 0; i < n; ++i) r[i] = std::floor(a[i] / b[i]);
        break;
    case Op::kAND:
        for (int64_t i = 0; i < n; ++i) r[i] = (a[i] != 0.F && b[i] != 0.F) ? 1.F : 0.F;
        break;
    case Op::kOR:
        for (int64_t i = 0; i < n; ++i) r[i] = (a[i] != 0.F || b[i] != 0.F) ? 1.F : 0.F;
        break;
    case Op::kXOR:
        for (int64_t i = 0; i < n; ++i) r[i] = ((a[i] != 0.F) != (b[i] != 0.F)) ? 1.F : 0.F;
        break;
    case Op::kEQUAL:
        for (int64_t i = 0; i < n; ++i) r[i] = a[i] == b[i] ? 1.F : 0.F;
        break;
    case Op::kGREATER:
        for (int64_t i = 0; i < n; ++i) r[i] = a[i] > b[i] ? 1.F : 0.F;
        break;
    case Op::kLESS:
        for (int64_t i = 0; i < n; ++i) r[i] = a[i] < b[i] ? 1.F : 0.F;
        break;
    default: // unreachable: validated at kernel creation
        for (int64_t i = 0; i < n; ++i) r[i] = 0.F;
        break;
    }
}

void applyInt(Op op, int64_t const* a, int64_t const* b, int64_t* r, int64_t n)
{
    switch (op)
    {
    case Op::kSUM:
        for (int64_t i = 0; i < n; ++i) r[i] = wrapAdd(a[i], b[i]);
        break;
    case Op::kPROD:
        for (int64_t i = 0; i < n; ++i) r[i] = wrapMul(a[i], b[i]);
        break;
    case Op::kMAX:
        for (int64_t i = 0; i < n; ++i) r[i] = std::max(a[i], b[i]);
        break;
    case Op::kMIN:
        for (int64_t i = 0; i < n; ++i) r[i] = std::min(a[i], b[i]);
        break;
    case Op::kSUB:
        for (int64_t i = 0; i < n; ++i) r[i] = wrapSub(a[i], b[i]);
        break;
    case Op::kDIV:
        for (int64_t i = 0; i < n; ++i) r[i] = truncDiv(a[i], b[i]);
        break;
    case Op::kPOW:
        for (int64_t i = 0; i < n; ++i) r[i] = intPow(a[i], b[i]);
        break;
    case Op::kFLOOR_DIV:
        for (int64_t i = 0; i < n; ++i) r[i] = floorDiv(a[i], b[i]);
        break;
    case Op::kAND:
        for (int64_t i = 0; i < n; ++i) r[i] = (a[i] != 0 && b[i] != 0) ? 1 : 0;
        break;
    case Op::kOR:
        for (int64_t i = 0; i < n; ++i) r[i] = (a[i] != 0 || b[i] != 0) ? 1 : 0;
        break;
    case Op::kXOR:
        for (int64_t i = 0; i < n; ++i) r[i] = ((a[i] != 0) != (b[i] != 0)) ? 1 : 0;
        break;
    case Op::kEQUAL:
        for (int64_t i = 0; i < n; ++i) r[i] = a[i] == b[i] ? 1 : 0;
        break;
    case Op::kGREATER:
        for (int64_t i = 0; i < n; ++i) r[i] = a[i] > b[i] ? 1 : 0;
        break;
    case Op::kLESS:
        for (int64_t i = 0; i < n; ++i) r[i] = a[i] < b[i] ? 1 : 0;
        break;
    default: // unreachable: validated at kernel creation
        for (int64_t i = 0; i < n; ++i) r[i] = 0;
        break;
    }
}

//! FP32 operands and output with broadcasting: operands walked with stride 1 are read in place, broadcast ones
//! (stride 0) are expanded into a chunk buffer; results are written straight into the output.
void runFloat32(Op op, ew::BroadcastWalker const& walker, TensorView const& a, TensorView const& b,
    TensorView const& out)
{
    auto const* pa = static_cast<float const*>(a.data);
    auto const* pb = static_cast<float const*>(b.data);
    auto* po = static_cast<float*>(out.data);
    walker.forEachChunk([&](int64_t outOffset, int64_t const* offsets, int64_t const* strides, int64_t n) {
        float x[ew::kCHUNK];
        float y[ew::kCHUNK];
        float const* xa = pa + offsets[0];
        float const* yb = pb + offsets[1];
        if (strides[0] != 1)
        {
            ew::loadChunk(a.data, a.type, offsets[0], strides[0], n, x);
            xa = x;
        }
        if (strides[1] != 1)
        {
            ew::loadChunk(b.data, b.type, offsets[1], strides[1], n, y);
            yb = y;
        }
        applyFloat(op, xa, yb, po + outOffset, n);
    });
}

template <typename C>
void runChunks(Op op, ew::BroadcastWalker const& walker, TensorView const& a, TensorView const& b,
    TensorView const& out)
{
    walker.forEachChunk([&](int64_t outOffset, int64_t const* offsets, int64_t const* strides, int64_t n) {
        C x[ew::kCHUNK];
        C y[ew::kCHUNK];
        C r[ew::kCHUNK];
        ew::loadChunk(a.data, a.type, offsets[0], strides[0], n, x);
        ew::loadChunk(b.data, b.type, offsets[1], strides[1], n, y);
        if constexpr (std::is_same_v<C, float>)
        {
            applyFloat(op, x, y, r, n);
        }
        else
        {
            applyInt(op, x, y, r, n);
        }
        ew::storeChunk(out.data, out.type, outOffset, n, r);
    });
}

//! create: the operation and the compute domain; reshape: the broadcast walk of the operands over the output.
class ElementWiseKernel final : public Kernel
{
public:
    ElementWiseKernel(KernelSetup const& setup, Op op)
        : mSetup(setup)
        , mOp(op)
        , mFloat(ew::isFloatKernelType(setup.inputTypes[0]) || ew::isFloatKernelType(setup.inputTypes[1]))
        , mFloat32(setup.inputTypes[0] == DataType::kFLOAT && setup.inputTypes[1] == DataType::kFLOAT
              && setup.outputTypes[0] == DataType::kFLOAT)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(ew::checkViewCounts(mSetup, inputs, outputs, 2, 1));
        auto walker = ew::BroadcastWalker::make(outputs[0].dims, {inputs[0].dims, inputs[1].dims});
        if (!walker.isOk())
        {
            return walker.status().withContext("ElementWise node '" + mSetup.node->name + "'");
        }
        mWalker = std::move(*walker);
        mDirect = mFloat32 && mWalker.contiguous();
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "ElementWise");
        }
        if (mDirect)
        {
            // FP32 operands of the output's shape: one pass over the buffers, no chunked conversions.
            auto const* a = static_cast<float const*>(inputs[0].data);
            auto const* b = static_cast<float const*>(inputs[1].data);
            auto* r = static_cast<float*>(outputs[0].data);
            parallelFor(mWalker.volume(), ew::kGRAIN,
                [&](int64_t begin, int64_t end) { applyFloat(mOp, a + begin, b + begin, r + begin, end - begin); });
        }
        else if (mFloat32)
        {
            runFloat32(mOp, mWalker, inputs[0], inputs[1], outputs[0]);
        }
        else if (mFloat)
        {
            runChunks<float>(mOp, mWalker, inputs[0], inputs[1], outputs[0]);
        }
        else
        {
            runChunks<int64_t>(mOp, mWalker, inputs[0], inputs[1], outputs[0]);
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    Op mOp;
    bool mFloat;
    bool mFloat32;       //!< FLOAT inputs and output
    bool mDirect{false}; //!< FLOAT and no broadcasting at the current shapes
    bool mReady{false};
    ew::BroadcastWalker mWalker;
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createPointwiseProgramKernel(KernelSetup const& setup); // pointwiseProgram.cpp

StatusOr<std::unique_ptr<Kernel>> createElementWiseKernel(KernelSetup const& setup)
{
    if (setup.node != nullptr && setup.node->attrs.has("pw.program"))
    {
        return createPointwiseProgramKernel(setup); // a fused chain (fusion pass)
    }
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 2, 1, "ElementWise"));
    KILN_ASSIGN_OR_RETURN(int64_t const op, setup.node->attrs.requireInt("operation"));
    if (op < 0 || op >= nvinfer1::EnumMax<ElementWiseOperation>())
    {
        return invalidArgument("ElementWise node '" + setup.node->name + "': invalid operation " + std::to_string(op));
    }
    for (DataType t : setup.inputTypes)
    {
        if (!ew::isKernelType(t))
        {
            return invalidArgument("ElementWise node '" + setup.node->name + "': unsupported input type "
                + dataTypeName(t));
        }
    }
    if (!ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument("ElementWise node '" + setup.node->name + "': unsupported output type "
            + dataTypeName(setup.outputTypes[0]));
    }
    return std::unique_ptr<Kernel>(std::make_unique<ElementWiseKernel>(setup, static_cast<Op>(op)));
}

} // namespace kiln
