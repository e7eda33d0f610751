// CUDA interpreter of fused pointwise programs (backends/common/pointwiseProgram.h): kELEMENTWISE nodes carrying
// "pw.program", made by the fusion pass from chains of elementwise / unary / activation layers. Reached through the
// elementwise kernel factory (elementWise.cu). One thread per output element reads every input (broadcast), runs the
// program in float registers with the formulas of the separate kernels (elementWise.cu, unary.cu, activationMath.cuh)
// and stores the last result in the output's type. The program travels by value as a kernel parameter.
// When every input is the output's shape, a broadcast scalar or a broadcast row, the kernel runs generated code
// instead (pointwiseCodegen.h: the program compiled with NVRTC, vectorised); the interpreter covers the rest.
// In the channel-last region (kHWC8 tensors without padding channels) the shapes are taken in storage order
// [N, H, W, C] (storageOrderViews), so a squeeze-excitation's [N, C, 1, 1] scale broadcasts as [N, 1, 1, C].
#include "backends/common/pointwiseProgram.h"
#include "backends/cuda/kernels/pointwiseCodegen.h"
#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::UnaryOperation;

namespace
{

constexpr int32_t kREGISTERS = kPW_MAX_INPUTS + kPW_MAX_INSTRUCTIONS;

//! The program and the input index maps, passed by value (about 1.3 KB, within the kernel parameter limit).
struct DeviceProgram
{
    int32_t nbInputs{0};
    int32_t nbCode{0};
    int32_t op[kPW_MAX_INSTRUCTIONS]{};
    int32_t code[kPW_MAX_INSTRUCTIONS]{};
    int32_t a[kPW_MAX_INSTRUCTIONS]{};
    int32_t b[kPW_MAX_INSTRUCTIONS]{};
    float consts[kPW_MAX_CONSTS]{};
    DataType inTypes[kPW_MAX_INPUTS]{};
    // Broadcast map: output dims, per input element strides (0 where broadcast).
    int32_t rank{0};
    int64_t dims[kMAX_RANK]{};
    int64_t strides[kPW_MAX_INPUTS][kMAX_RANK]{};
};

struct InputPointers
{
    void const* p[kPW_MAX_INPUTS]{};
};

__device__ __forceinline__ float binaryOp(ElementWiseOperation op, float a, float b)
{
    switch (op)
    {
    case ElementWiseOperation::kSUM: return a + b;
    case ElementWiseOperation::kPROD: return a * b;
    case ElementWiseOperation::kMAX: return fmaxf(a, b);
    case ElementWiseOperation::kMIN: return fminf(a, b);
    case ElementWiseOperation::kSUB: return a - b;
    case ElementWiseOperation::kDIV: return a / b;
    case ElementWiseOperation::kPOW: return powf(a, b);
    default: return 0.F;
    }
}

__device__ __forceinline__ float unaryOp(UnaryOperation op, float v)
{
    switch (op)
    {
    case UnaryOperation::kEXP: return expf(v);
    case UnaryOperation::kLOG: return logf(v);
    case UnaryOperation::kSQRT: return sqrtf(v);
    case UnaryOperation::kRECIP: return 1.F / v;
    case UnaryOperation::kABS: return fabsf(v);
    case UnaryOperation::kNEG: return -v;
    case UnaryOperation::kSIN: return sinf(v);
    case UnaryOperation::kCOS: return cosf(v);
    case UnaryOperation::kTAN: return tanf(v);
    case UnaryOperation::kSINH: return sinhf(v);
    case UnaryOperation::kCOSH: return coshf(v);
    case UnaryOperation::kASIN: return asinf(v);
    case UnaryOperation::kACOS: return acosf(v);
    case UnaryOperation::kATAN: return atanf(v);
    case UnaryOperation::kASINH: return asinhf(v);
    case UnaryOperation::kACOSH: return acoshf(v);
    case UnaryOperation::kATANH: return atanhf(v);
    case UnaryOperation::kCEIL: return ceilf(v);
    case UnaryOperation::kFLOOR: return floorf(v);
    case UnaryOperation::kERF: return erff(v);
    case UnaryOperation::kSIGN: return v != v ? v : (v > 0.F ? 1.F : (v < 0.F ? -1.F : 0.F));
    case UnaryOperation::kROUND: return rintf(v); // half to even
    default: return v;
    }
}

__global__ void pointwiseProgramKernel(DeviceProgram prog, InputPointers in, int64_t n, void* out, DataType to)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        float r[kREGISTERS];
        // Input offsets from the output coordinates.
        int64_t off[kPW_MAX_INPUTS];
        for (int32_t k = 0; k < prog.nbInputs; ++k)
        {
            off[k] = 0;
        }
        int64_t rest = i;
        for (int32_t d = prog.rank - 1; d >= 0; --d)
        {
            int64_t const c = rest % prog.dims[d];
            rest /= prog.dims[d];
            for (int32_t k = 0; k < prog.nbInputs; ++k)
            {
                off[k] += c * prog.strides[k][d];
            }
        }
        for (int32_t k = 0; k < prog.nbInputs; ++k)
        {
            r[k] = dev::loadFloat(in.p[k], prog.inTypes[k], off[k]);
        }
        for (int32_t j = 0; j < prog.nbCode; ++j)
        {
            int32_t const xa = prog.a[j];
            float const va = xa >= 0 ? r[xa] : prog.consts[-1 - xa];
            float v = va;
            switch (static_cast<PwOp>(prog.op[j]))
            {
            case PwOp::kBINARY:
            {
                int32_t const xb = prog.b[j];
                float const vb = xb >= 0 ? r[xb] : prog.consts[-1 - xb];
                v = binaryOp(static_cast<ElementWiseOperation>(prog.code[j]), va, vb);
                break;
            }
            case PwOp::kUNARY: v = unaryOp(static_cast<UnaryOperation>(prog.code[j]), va); break;
            case PwOp::kACTIVATION:
                v = applyActivation(static_cast<ActivationType>(prog.code[j]), prog.consts[prog.b[j]],
                    prog.consts[prog.b[j] + 1], va);
                break;
            case PwOp::kROUND:
                v = static_cast<DataType>(prog.code[j]) == DataType::kHALF ? __half2float(__float2half_rn(va))
                                                                           : __bfloat162float(__float2bfloat16_rn(va));
                break;
            }
            r[prog.nbInputs + j] = v;
        }
        dev::storeFloat(out, to, i, r[prog.nbInputs + prog.nbCode - 1]);
    }
}

//! create: the program (readPointwiseSetup); reshape: the checks and the broadcast map of every input; run: the input
//! addresses and one launch.
class PointwiseProgramCudaKernel final : public Kernel
{
public:
    PointwiseProgramCudaKernel(KernelSetup const& setup, PointwiseProgram const& program)
        : mSetup(setup)
        , mSource(program)
    {
        mProgram.nbInputs = program.nbInputs;
        mProgram.nbCode = static_cast<int32_t>(program.code.size());
        for (size_t j = 0; j < program.code.size(); ++j)
        {
            mProgram.op[j] = static_cast<int32_t>(program.code[j].op);
            mProgram.code[j] = program.code[j].code;
            mProgram.a[j] = program.code[j].a;
            mProgram.b[j] = program.code[j].b;
        }
        for (size_t c = 0; c < program.consts.size(); ++c)
        {
            mProgram.consts[c] = program.consts[c];
        }
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        std::string const label = "fused pointwise node '" + mSetup.node->name + "'";
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(ew::checkViews(mSetup, v.inputs, v.outputs, static_cast<size_t>(mProgram.nbInputs), 1));
        // kHWC8 region tensors in storage order (a squeeze-excitation's [N, C, 1, 1] scale broadcasts as [N, 1, 1, C]).
        std::vector<TensorView> in = inputs;
        std::vector<TensorView> outs = outputs;
        KILN_RETURN_IF_ERROR(storageOrderViews(mSetup, label, in, outs));
        TensorView const& out = outs[0];
        DeviceProgram& prog = mProgram;
        prog.rank = out.dims.nbDims;
        for (int32_t d = 0; d < out.dims.nbDims; ++d)
        {
            prog.dims[d] = out.dims.d[d];
        }
        for (size_t k = 0; k < in.size(); ++k)
        {
            nvinfer1::Dims const& d = in[k].dims;
            bool ok = d.nbDims == out.dims.nbDims && ew::isFloatKernelType(in[k].type);
            int64_t s = 1;
            for (int32_t i = out.dims.nbDims - 1; ok && i >= 0; --i)
            {
                ok = d.d[i] == out.dims.d[i] || d.d[i] == 1;
                prog.strides[k][i] = d.d[i] == 1 ? 0 : s;
                s *= d.d[i];
            }
            if (!ok)
            {
                return invalidArgument(label + ": input " + std::to_string(k) + " (" + dataTypeName(inputs[k].type)
                    + ", dimensions " + ew::dimsToString(d) + ") is not a float tensor broadcasting to the output "
                    + ew::dimsToString(out.dims));
            }
            prog.inTypes[k] = inputs[k].type;
        }
        if (!ew::isFloatKernelType(out.type))
        {
            return invalidArgument(label + ": the output must be FLOAT, HALF or BF16, got " + dataTypeName(out.type));
        }
        mVolume = out.volume();
        chooseGenerated(in, out);
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped("fused pointwise node '" + mSetup.node->name + "'");
        }
        if (mGenerated != nullptr)
        {
            PwLaunchArgs args = mArgs;
            bool aligned = true;
            for (size_t k = 0; k < inputs.size(); ++k)
            {
                args.in[k] = inputs[k].data;
                aligned = aligned && (mIndexing[k] != PwIndexing::kFULL || isVectorAligned(inputs[k]));
            }
            args.out = outputs[0].data;
            bool const vectorized = aligned && mVolume % 4 == 0 && isVectorAligned(outputs[0]);
            Status const st = mGenerated->launch(args, vectorized, ctx.stream);
            return st.isOk() ? st : st.withContext("fused pointwise node '" + mSetup.node->name + "'");
        }
        InputPointers ptrs;
        for (size_t k = 0; k < inputs.size(); ++k)
        {
            ptrs.p[k] = inputs[k].data;
        }
        pointwiseProgramKernel<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mProgram, ptrs, mVolume, outputs[0].data,
            outputs[0].type);
        return launchStatus("fused pointwise kernel");
    }

private:
    //! Four elements of the view start on a vector boundary (8 bytes for 16-bit types, 16 for FLOAT).
    static bool isVectorAligned(TensorView const& v)
    {
        uintptr_t const bytes = v.type == DataType::kFLOAT ? 16 : 8;
        return reinterpret_cast<uintptr_t>(v.data) % bytes == 0;
    }

    //! The generated kernel for these shapes when every input is kFULL, kSCALAR or kROW (else the interpreter runs).
    void chooseGenerated(std::vector<TensorView> const& inputs, TensorView const& out)
    {
        mGenerated.reset();
        PwCodegenSpec spec;
        spec.program = mSource;
        spec.outType = out.type;
        int64_t const volume = out.volume();
        for (size_t k = 0; k < inputs.size(); ++k)
        {
            nvinfer1::Dims const& d = inputs[k].dims;
            int64_t const v = inputs[k].volume();
            // Trailing extents equal to the output's after leading extents of 1: a row of `v` elements.
            int32_t lead = 0;
            while (lead < d.nbDims && d.d[lead] == 1 && v != volume)
            {
                ++lead;
            }
            bool row = true;
            for (int32_t i = lead; i < d.nbDims; ++i)
            {
                row = row && d.d[i] == out.dims.d[i];
            }
            PwIndexing how = v == volume ? PwIndexing::kFULL : v == 1 ? PwIndexing::kSCALAR : PwIndexing::kROW;
            if (how == PwIndexing::kROW && !row)
            {
                return; // another broadcast: the interpreter
            }
            mIndexing[k] = how;
            mArgs.row[k] = v;
            spec.inTypes.push_back(inputs[k].type);
            spec.indexing.push_back(how);
        }
        mArgs.n = volume;
        auto generated = PwGeneratedKernel::get(spec);
        if (generated.isOk())
        {
            mGenerated = *generated;
        }
    }

    KernelSetup mSetup;
    PointwiseProgram mSource;
    DeviceProgram mProgram; //!< the program, and the broadcast map of the last reshape
    int64_t mVolume{-1};
    std::shared_ptr<PwGeneratedKernel const> mGenerated; //!< null: the interpreter
    PwIndexing mIndexing[kPW_MAX_INPUTS]{};
    PwLaunchArgs mArgs; //!< without the run's addresses
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createPointwiseProgramCudaKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(PointwiseProgram program, readPointwiseSetup(setup));
    return std::unique_ptr<Kernel>(std::make_unique<PointwiseProgramCudaKernel>(setup, std::move(program)));
}

} // namespace kiln::cuda
