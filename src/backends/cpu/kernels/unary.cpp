// CPU kernel of IUnaryLayer. Floating-point inputs are computed in float; integer kABS/kNEG/kSIGN exactly in int64
// (wrapping like two's complement); kNOT on BOOL. kROUND rounds half to even; kISINF/kISNAN write BOOL.
#include "backends/common/unaryParams.h"
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/fastMath.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/simd.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::UnaryOperation;

namespace
{
using Op = UnaryOperation;

template <typename F>
void each(float const* x, float* r, int64_t n, F&& f)
{
    for (int64_t i = 0; i < n; ++i)
    {
        r[i] = f(x[i]);
    }
}

//! erf through the vectorised polynomial, compiled per instruction set (simd.h).
KILN_CPU_CLONES void erfRows(float const* x, float* r, int64_t n)
{
    erfInto(x, r, n);
}

void applyFloat(Op op, float const* x, float* r, int64_t n)
{
    switch (op)
    {
    case Op::kEXP: each(x, r, n, [](float v) { return std::exp(v); }); break;
    case Op::kLOG: each(x, r, n, [](float v) { return std::log(v); }); break;
    case Op::kSQRT: each(x, r, n, [](float v) { return std::sqrt(v); }); break;
    case Op::kRECIP: each(x, r, n, [](float v) { return 1.F / v; }); break;
    case Op::kABS: each(x, r, n, [](float v) { return std::fabs(v); }); break;
    case Op::kNEG: each(x, r, n, [](float v) { return -v; }); break;
    case Op::kSIN: each(x, r, n, [](float v) { return std::sin(v); }); break;
    case Op::kCOS: each(x, r, n, [](float v) { return std::cos(v); }); break;
    case Op::kTAN: each(x, r, n, [](float v) { return std::tan(v); }); break;
    case Op::kSINH: each(x, r, n, [](float v) { return std::sinh(v); }); break;
    case Op::kCOSH: each(x, r, n, [](float v) { return std::cosh(v); }); break;
    case Op::kASIN: each(x, r, n, [](float v) { return std::asin(v); }); break;
    case Op::kACOS: each(x, r, n, [](float v) { return std::acos(v); }); break;
    case Op::kATAN: each(x, r, n, [](float v) { return std::atan(v); }); break;
    case Op::kASINH: each(x, r, n, [](float v) { return std::asinh(v); }); break;
    case Op::kACOSH: each(x, r, n, [](float v) { return std::acosh(v); }); break;
    case Op::kATANH: each(x, r, n, [](float v) { return std::atanh(v); }); break;
    case Op::kCEIL: each(x, r, n, [](float v) { return std::ceil(v); }); break;
    case Op::kFLOOR: each(x, r, n, [](float v) { return std::floor(v); }); break;
    case Op::kERF: erfRows(x, r, n); break; // vectorised (fastMath.h)
    case Op::kNOT: each(x, r, n, [](float v) { return v == 0.F ? 1.F : 0.F; }); break;
    case Op::kSIGN:
        each(x, r, n, [](float v) { return std::isnan(v) ? v : (v > 0.F ? 1.F : (v < 0.F ? -1.F : 0.F)); });
        break;
    case Op::kROUND: each(x, r, n, [](float v) { return std::nearbyint(v); }); break; // default mode: half even
    case Op::kISINF: each(x, r, n, [](float v) { return std::isinf(v) ? 1.F : 0.F; }); break;
    case Op::kISNAN: each(x, r, n, [](float v) { return std::isnan(v) ? 1.F : 0.F; }); break;
    default: each(x, r, n, [](float v) { return v; }); break; // unreachable: validated at kernel creation
    }
}

//! Integer and BOOL inputs: the operations TensorRT allows on them (others copy, never reached after inference).
void applyInt(Op op, int64_t const* x, int64_t* r, int64_t n)
{
    auto const neg = [](int64_t v) { return static_cast<int64_t>(0ULL - static_cast<uint64_t>(v)); };
    for (int64_t i = 0; i < n; ++i)
    {
        int64_t const v = x[i];
        switch (op)
        {
        case Op::kABS: r[i] = v < 0 ? neg(v) : v; break;
        case Op::kNEG: r[i] = neg(v); break;
        case Op::kSIGN: r[i] = v > 0 ? 1 : (v < 0 ? -1 : 0); break;
        case Op::kNOT: r[i] = v == 0 ? 1 : 0; break;
        case Op::kISINF:
        case Op::kISNAN: r[i] = 0; break;
        default: r[i] = v; break;
        }
    }
}

//! Operations of a few cycles per element (memory-bound): split over the pool only for large tensors.
bool cheap(Op op)
{
    switch (op)
    {
    case Op::kABS:
    case Op::kNEG:
    case Op::kRECIP:
    case Op::kSQRT:
    case Op::kCEIL:
    case Op::kFLOOR:
    case Op::kNOT:
    case Op::kSIGN:
    case Op::kROUND:
    case Op::kISINF:
    case Op::kISNAN: return true;
    default: return false;
    }
}

//! create: the operation and the compute domain; reshape: the shapes and the element count.
class UnaryKernel final : public Kernel
{
public:
    UnaryKernel(KernelSetup const& setup, Op op)
        : mSetup(setup)
        , mOp(op)
        , mFloat(ew::isFloatKernelType(setup.inputTypes[0]))
        , mFloat32(setup.inputTypes[0] == DataType::kFLOAT && setup.outputTypes[0] == DataType::kFLOAT)
        , mGrain(cheap(op) ? ew::kGRAIN : ew::kGRAIN_HEAVY)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        KILN_RETURN_IF_ERROR(checkUnaryShapes(mSetup, inputs, outputs));
        mVolume = outputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mVolume < 0)
        {
            return notReshaped(mSetup, "Unary");
        }
        Op const op = mOp;
        if (mFloat32)
        {
            // FP32 in and out: in place of the chunked conversions, split over the thread pool.
            auto const* x = static_cast<float const*>(inputs[0].data);
            auto* r = static_cast<float*>(outputs[0].data);
            parallelFor(
                mVolume, mGrain, [&](int64_t begin, int64_t end) { applyFloat(op, x + begin, r + begin, end - begin); });
            return Status::ok();
        }
        ew::mapChunks(
            inputs[0], outputs[0], mVolume, mFloat,
            [op](float const* x, float* r, int64_t m) { applyFloat(op, x, r, m); },
            [op](int64_t const* x, int64_t* r, int64_t m) { applyInt(op, x, r, m); }, mGrain);
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    Op mOp;
    bool mFloat;
    bool mFloat32; //!< FLOAT input and output
    int64_t mGrain; //!< least elements per thread-pool task
    int64_t mVolume{-1}; //!< output elements; -1 until a successful reshape
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createUnaryKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Unary"));
    KILN_ASSIGN_OR_RETURN(int64_t const op, setup.node->attrs.requireInt("operation"));
    if (op < 0 || op >= nvinfer1::EnumMax<UnaryOperation>())
    {
        return invalidArgument("Unary node '" + setup.node->name + "': invalid operation " + std::to_string(op));
    }
    if (!ew::isKernelType(setup.inputTypes[0]) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument("Unary node '" + setup.node->name + "': unsupported types "
            + dataTypeName(setup.inputTypes[0]) + " -> " + dataTypeName(setup.outputTypes[0]));
    }
    return std::unique_ptr<Kernel>(std::make_unique<UnaryKernel>(setup, static_cast<Op>(op)));
}

} // namespace kiln
