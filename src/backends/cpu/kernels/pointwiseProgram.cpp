// CPU interpreter of fused pointwise programs (backends/common/pointwiseProgram.h): kELEMENTWISE nodes carrying
// "pw.program", made by the fusion pass from chains of elementwise / unary / activation layers. Reached through the
// elementwise kernel factory (elementWise.cpp). Inputs broadcast to the output; every value is computed in float
// with the same formulas as the separate CPU kernels (elementWise.cpp, unary.cpp; activations through
// fusedActivationCpu), a chunk of one output row at a time, pieces of the output split over the CPU thread pool
// (one bank of registers per task).
#include "backends/common/pointwiseProgram.h"
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/fusedEpilogueCpu.h"
#include "backends/cpu/kernels/kernelFactories.h"

#include <array>

namespace kiln
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::UnaryOperation;

namespace
{

float binaryOp(ElementWiseOperation op, float a, float b)
{
    switch (op)
    {
    case ElementWiseOperation::kSUM: return a + b;
    case ElementWiseOperation::kPROD: return a * b;
    case ElementWiseOperation::kMAX: return std::fmax(a, b);
    case ElementWiseOperation::kMIN: return std::fmin(a, b);
    case ElementWiseOperation::kSUB: return a - b;
    case ElementWiseOperation::kDIV: return a / b;
    case ElementWiseOperation::kPOW: return std::pow(a, b);
    default: return 0.F; // unreachable: validated by readPointwiseProgram
    }
}

float unaryOp(UnaryOperation op, float v)
{
    switch (op)
    {
    case UnaryOperation::kEXP: return std::exp(v);
    case UnaryOperation::kLOG: return std::log(v);
    case UnaryOperation::kSQRT: return std::sqrt(v);
    case UnaryOperation::kRECIP: return 1.F / v;
    case UnaryOperation::kABS: return std::fabs(v);
    case UnaryOperation::kNEG: return -v;
    case UnaryOperation::kSIN: return std::sin(v);
    case UnaryOperation::kCOS: return std::cos(v);
    case UnaryOperation::kTAN: return std::tan(v);
    case UnaryOperation::kSINH: return std::sinh(v);
    case UnaryOperation::kCOSH: return std::cosh(v);
    case UnaryOperation::kASIN: return std::asin(v);
    case UnaryOperation::kACOS: return std::acos(v);
    case UnaryOperation::kATAN: return std::atan(v);
    case UnaryOperation::kASINH: return std::asinh(v);
    case UnaryOperation::kACOSH: return std::acosh(v);
    case UnaryOperation::kATANH: return std::atanh(v);
    case UnaryOperation::kCEIL: return std::ceil(v);
    case UnaryOperation::kFLOOR: return std::floor(v);
    case UnaryOperation::kERF: return std::erf(v);
    case UnaryOperation::kSIGN: return std::isnan(v) ? v : (v > 0.F ? 1.F : (v < 0.F ? -1.F : 0.F));
    case UnaryOperation::kROUND: return std::nearbyint(v); // default rounding mode: half to even
    default: return v;                                      // unreachable: validated by readPointwiseProgram
    }
}

//! create: the program and its registers; reshape: the broadcast strides of every input over the output; run: the
//! program on one chunk of one output row at a time.
class PointwiseProgramKernel final : public Kernel
{
public:
    PointwiseProgramKernel(KernelSetup const& setup, PointwiseProgram program)
        : mSetup(setup)
        , mProgram(std::move(program))
        , mBankSize(static_cast<size_t>(mProgram.nbInputs + static_cast<int32_t>(mProgram.code.size())) * ew::kCHUNK)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(ew::checkViewCounts(mSetup, inputs, outputs, static_cast<size_t>(mProgram.nbInputs), 1));
        std::string const label = "fused pointwise node '" + mSetup.node->name + "'";
        nvinfer1::Dims const& out = outputs[0].dims;
        int32_t const rank = out.nbDims;
        // Per input: element strides over the output's dims, 0 where the input broadcasts.
        for (size_t k = 0; k < inputs.size(); ++k)
        {
            nvinfer1::Dims const& d = inputs[k].dims;
            if (d.nbDims != rank)
            {
                return invalidArgument(label + ": input " + std::to_string(k) + " has dimensions "
                    + ew::dimsToString(d) + ", which do not broadcast to the output " + ew::dimsToString(out));
            }
            int64_t s = 1;
            for (int32_t i = rank - 1; i >= 0; --i)
            {
                if (d.d[i] != out.d[i] && d.d[i] != 1)
                {
                    return invalidArgument(label + ": input " + std::to_string(k) + " has dimensions "
                        + ew::dimsToString(d) + ", which do not broadcast to the output " + ew::dimsToString(out));
                }
                mStrides[k][static_cast<size_t>(i)] = d.d[i] == 1 ? 0 : s;
                s *= d.d[i];
            }
        }
        mOutDims = out;
        mVolume = outputs[0].volume();
        mBanks = cpuThreadPool().threads();
        mRegs.resize(mBankSize * static_cast<size_t>(mBanks));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "fused pointwise");
        }
        if (mVolume == 0)
        {
            return Status::ok();
        }
        TensorView const& out = outputs[0];
        int32_t const rank = mOutDims.nbDims;
        size_t const nbInputs = inputs.size();
        int64_t const inner = rank == 0 ? 1 : mOutDims.d[rank - 1];
        int32_t const result = mProgram.nbInputs + static_cast<int32_t>(mProgram.code.size()) - 1;
        // Output elements [begin, end) on one task, with that task's registers.
        auto const piece = [&](int32_t task, int64_t begin, int64_t end) {
            float* regs = mRegs.data() + static_cast<size_t>(task) * mBankSize;
            std::array<int64_t, kPW_MAX_INPUTS> base{};
            for (int64_t row = begin / inner; row * inner < end; ++row)
            {
                // Offsets of the row start in every input (coordinates of dims 0 .. rank-2).
                int64_t rest = row;
                base.fill(0);
                for (int32_t i = rank - 2; i >= 0; --i)
                {
                    int64_t const c = rest % mOutDims.d[i];
                    rest /= mOutDims.d[i];
                    for (size_t k = 0; k < nbInputs; ++k)
                    {
                        base[k] += c * mStrides[k][static_cast<size_t>(i)];
                    }
                }
                int64_t const first = std::max<int64_t>(0, begin - row * inner);
                int64_t const last = std::min<int64_t>(inner, end - row * inner);
                for (int64_t start = first; start < last; start += ew::kCHUNK)
                {
                    int64_t const n = std::min(ew::kCHUNK, last - start);
                    for (size_t k = 0; k < nbInputs; ++k)
                    {
                        int64_t const rowStride = rank == 0 ? 0 : mStrides[k][static_cast<size_t>(rank - 1)];
                        ew::loadChunk(inputs[k].data, inputs[k].type, base[k] + start * rowStride, rowStride, n,
                            reg(regs, static_cast<int32_t>(k)));
                    }
                    execute(regs, n);
                    ew::storeChunk(out.data, out.type, row * inner + start, n, reg(regs, result));
                }
            }
        };
        parallelForTasks(mVolume, ew::kGRAIN_HEAVY, mBanks, piece);
        return Status::ok();
    }

private:
    //! Register r of a task's bank.
    static float* reg(float* regs, int32_t r) { return regs + static_cast<size_t>(r) * ew::kCHUNK; }

    //! Operand x of the program for element i: a register's value or a constant.
    float value(float* regs, int32_t x, int64_t i) const
    {
        return x >= 0 ? reg(regs, x)[i] : mProgram.consts[static_cast<size_t>(-1 - x)];
    }

    //! The program on the first n elements of a bank's registers.
    void execute(float* regs, int64_t n) const
    {
        for (size_t j = 0; j < mProgram.code.size(); ++j)
        {
            PwInstruction const& ins = mProgram.code[j];
            float* r = reg(regs, mProgram.nbInputs + static_cast<int32_t>(j));
            switch (ins.op)
            {
            case PwOp::kBINARY:
            {
                auto const op = static_cast<ElementWiseOperation>(ins.code);
                for (int64_t i = 0; i < n; ++i)
                {
                    r[i] = binaryOp(op, value(regs, ins.a, i), value(regs, ins.b, i));
                }
                break;
            }
            case PwOp::kUNARY:
            {
                auto const op = static_cast<UnaryOperation>(ins.code);
                for (int64_t i = 0; i < n; ++i)
                {
                    r[i] = unaryOp(op, value(regs, ins.a, i));
                }
                break;
            }
            case PwOp::kACTIVATION:
            {
                auto const type = static_cast<ActivationType>(ins.code);
                float const alpha = mProgram.consts[static_cast<size_t>(ins.b)];
                float const beta = mProgram.consts[static_cast<size_t>(ins.b) + 1];
                for (int64_t i = 0; i < n; ++i)
                {
                    r[i] = fusedActivationCpu(type, alpha, beta, value(regs, ins.a, i));
                }
                break;
            }
            case PwOp::kROUND:
            {
                bool const half = static_cast<DataType>(ins.code) == DataType::kHALF;
                for (int64_t i = 0; i < n; ++i)
                {
                    float const v = value(regs, ins.a, i);
                    r[i] = half ? halfToFloat(floatToHalf(v)) : bf16ToFloat(floatToBf16(v));
                }
                break;
            }
            }
        }
    }

    KernelSetup mSetup;
    PointwiseProgram mProgram;
    size_t mBankSize;         //!< floats of one task's registers (one chunk per register)
    int32_t mBanks{1};        //!< tasks that mRegs has room for
    std::vector<float> mRegs; //!< mBanks banks of registers
    std::array<std::array<int64_t, nvinfer1::Dims::MAX_DIMS>, kPW_MAX_INPUTS> mStrides{}; //!< per input and dimension
    nvinfer1::Dims mOutDims{};
    int64_t mVolume{0};
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createPointwiseProgramKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(PointwiseProgram program, readPointwiseSetup(setup));
    return std::unique_ptr<Kernel>(std::make_unique<PointwiseProgramKernel>(setup, std::move(program)));
}

} // namespace kiln
