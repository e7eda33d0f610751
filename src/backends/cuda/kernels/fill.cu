// CUDA kernel of IFillLayer with the CPU reference's semantics (backends/cpu/kernels/fill.cpp): linspace
// alpha + sum(beta[d] * index[d]) (exact in int64 for integer parameters and outputs, else in double); random
// uniform in [alpha, beta] and random normal (Box-Muller, mean alpha, deviation beta) from the same counter-based
// generator (SplitMix64 of seed and element index), so the GPU draws the CPU's numbers. Dynamic alpha/beta inputs
// are read from their host values when shape inference knows them, else from device memory inside the kernel.
#include "backends/common/fillParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::FillOperation;

namespace
{

struct FillArgs
{
    FillOperation op{FillOperation::kLINSPACE};
    int32_t rank{0};
    int64_t dims[kMAX_RANK]{};
    bool intMode{false}; //!< exact int64 linspace
    double alpha{0.0};
    double beta[kMAX_RANK]{};
    int64_t alphaInt{0};
    int64_t betaInt[kMAX_RANK]{};
    void const* alphaPtr{nullptr}; //!< device parameters (dynamic inputs without host values)
    DataType alphaType{DataType::kFLOAT};
    void const* betaPtr{nullptr};
    DataType betaType{DataType::kFLOAT};
    uint64_t seed{0};
};

//! loadElement of the CPU (core/dataType.cpp): any type as double.
__device__ __forceinline__ double loadDouble(void const* p, DataType t, int64_t i)
{
    switch (t)
    {
    case DataType::kINT32: return static_cast<int32_t const*>(p)[i];
    case DataType::kINT64: return static_cast<double>(static_cast<int64_t const*>(p)[i]);
    default: return dev::loadFloat(p, t, i);
    }
}

//! loadInt of the CPU: integers exactly, floats through double truncated.
__device__ __forceinline__ int64_t loadInt64(void const* p, DataType t, int64_t i)
{
    if (t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16)
    {
        return static_cast<int64_t>(static_cast<double>(dev::loadFloat(p, t, i)));
    }
    return dev::loadInt(p, t, i);
}

template <typename T>
__device__ __forceinline__ T saturate(double v, double lo, double hi)
{
    if (v != v)
    {
        return T(0);
    }
    if (v <= lo)
    {
        return static_cast<T>(lo);
    }
    if (v >= hi)
    {
        return static_cast<T>(hi);
    }
    return static_cast<T>(v);
}

//! storeElement of the CPU: double to any type (integers saturate).
__device__ __forceinline__ void storeDouble(void* p, DataType t, int64_t i, double v)
{
    switch (t)
    {
    case DataType::kINT8: static_cast<int8_t*>(p)[i] = saturate<int8_t>(v, -128.0, 127.0); break;
    case DataType::kUINT8: static_cast<uint8_t*>(p)[i] = saturate<uint8_t>(v, 0.0, 255.0); break;
    case DataType::kINT32: static_cast<int32_t*>(p)[i] = saturate<int32_t>(v, -2147483648.0, 2147483647.0); break;
    case DataType::kINT64:
        static_cast<int64_t*>(p)[i] = v != v ? 0
            : v <= -9223372036854775808.0  ? static_cast<int64_t>(-0x7fffffffffffffffLL - 1)
            : v >= 9223372036854775807.0   ? static_cast<int64_t>(0x7fffffffffffffffLL)
                                           : static_cast<int64_t>(v);
        break;
    case DataType::kBOOL: static_cast<uint8_t*>(p)[i] = v != 0.0 ? 1 : 0; break;
    default: dev::storeFloat(p, t, i, static_cast<float>(v)); break;
    }
}

__global__ void fillKernel(FillArgs a, int64_t n, void* out, DataType to)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        if (a.op == FillOperation::kLINSPACE)
        {
            int64_t idx[kMAX_RANK];
            int64_t rest = i;
            for (int32_t d = a.rank - 1; d >= 0; --d)
            {
                idx[d] = rest % a.dims[d];
                rest /= a.dims[d];
            }
            if (a.intMode)
            {
                int64_t v = a.alphaPtr != nullptr ? loadInt64(a.alphaPtr, a.alphaType, 0) : a.alphaInt;
                for (int32_t d = 0; d < a.rank; ++d)
                {
                    v += (a.betaPtr != nullptr ? loadInt64(a.betaPtr, a.betaType, d) : a.betaInt[d]) * idx[d];
                }
                dev::storeInt(out, to, i, v);
            }
            else
            {
                double v = a.alphaPtr != nullptr ? loadDouble(a.alphaPtr, a.alphaType, 0) : a.alpha;
                for (int32_t d = 0; d < a.rank; ++d)
                {
                    v += (a.betaPtr != nullptr ? loadDouble(a.betaPtr, a.betaType, d) : a.beta[d])
                        * static_cast<double>(idx[d]);
                }
                storeDouble(out, to, i, v);
            }
            continue;
        }
        double const alpha = a.alphaPtr != nullptr ? loadDouble(a.alphaPtr, a.alphaType, 0) : a.alpha;
        double const beta = a.betaPtr != nullptr ? loadDouble(a.betaPtr, a.betaType, 0) : a.beta[0];
        if (a.op == FillOperation::kRANDOM_UNIFORM)
        {
            storeDouble(out, to, i, alpha + (beta - alpha) * uniformAt(a.seed, static_cast<uint64_t>(i)));
        }
        else
        {
            double const u1 = 1.0 - uniformAt(a.seed, 2 * static_cast<uint64_t>(i));
            double const u2 = uniformAt(a.seed, 2 * static_cast<uint64_t>(i) + 1);
            double const z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925286766559 * u2);
            storeDouble(out, to, i, alpha + beta * z);
        }
    }
}

//! The static parameters of a fill node (attributes "int_params", "alpha"/"alpha_int", "beta"/"beta_int").
struct FillAttrs
{
    bool intParams{false};
    int64_t alphaInt{0};
    double alpha{0.0};
    int64_t betaInt{1};
    double beta{1.0};
};

//! create: the operation, the seed and the static parameters; reshape: the checks, the launch arguments and the
//! dynamic parameters' host values; run: the device pointers of dynamic parameters without host values and one
//! launch.
class FillCudaKernel final : public Kernel
{
public:
    FillCudaKernel(KernelSetup const& setup, FillAttrs attrs)
        : mSetup(setup)
        , mAttrs(attrs)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(FillParams const p,
            makeFillParams(mSetup, v.inputs, v.outputs, [](DataType t) { return ew::isKernelType(t); }));
        if (p.volume == 0)
        {
            mVolume = 0;
            return Status::ok();
        }
        TensorView const& out = outputs[0];
        FillArgs a;
        a.op = p.op;
        a.seed = static_cast<uint64_t>(p.seed);
        a.rank = out.dims.nbDims;
        for (int32_t d = 0; d < a.rank; ++d)
        {
            a.dims[d] = out.dims.d[d];
        }
        bool const dynamic = p.dynamic;
        bool const linspace = a.op == FillOperation::kLINSPACE;
        if (dynamic && linspace && inputs[2].volume() != a.rank)
        {
            return invalidArgument("fill: beta must have one element per output dimension");
        }
        bool const intParams = !dynamic && mAttrs.intParams;
        bool const dynIntParams = dynamic && (inputs[1].type == DataType::kINT32 || inputs[1].type == DataType::kINT64);
        bool const intOut = out.type == DataType::kINT32 || out.type == DataType::kINT64;
        a.intMode = linspace && (intParams || dynIntParams) && intOut;
        a.alphaInt = mAttrs.alphaInt;
        a.alpha = intParams ? static_cast<double>(a.alphaInt) : mAttrs.alpha;
        double const beta = intParams ? static_cast<double>(mAttrs.betaInt) : mAttrs.beta;
        for (int32_t d = 0; d < kMAX_RANK; ++d)
        {
            a.beta[d] = beta;
            a.betaInt[d] = mAttrs.betaInt;
        }
        mAlphaOnDevice = false;
        mBetaOnDevice = false;
        if (dynamic)
        {
            // Each parameter from its host values when shape inference knows them, else from device memory.
            TensorView const& al = inputs[1];
            TensorView const& be = inputs[2];
            if (al.values != nullptr)
            {
                a.alphaInt = al.values[0];
                a.alpha = static_cast<double>(al.values[0]);
            }
            else
            {
                mAlphaOnDevice = true;
                a.alphaType = al.type;
            }
            if (be.values != nullptr)
            {
                int64_t const nbBeta = linspace ? a.rank : 1;
                for (int64_t d = 0; d < nbBeta; ++d)
                {
                    a.betaInt[d] = be.values[d];
                    a.beta[d] = static_cast<double>(be.values[d]);
                }
            }
            else
            {
                mBetaOnDevice = true;
                a.betaType = be.type;
            }
        }
        mArgs = a;
        mVolume = p.volume;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Fill"));
        }
        FillArgs a = mArgs;
        if (mAlphaOnDevice)
        {
            a.alphaPtr = inputs[1].data;
        }
        if (mBetaOnDevice)
        {
            a.betaPtr = inputs[2].data;
        }
        if ((mAlphaOnDevice && a.alphaPtr == nullptr) || (mBetaOnDevice && a.betaPtr == nullptr))
        {
            return internalError("fill: a parameter input has no data");
        }
        fillKernel<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(a, mVolume, outputs[0].data, outputs[0].type);
        return launchStatus("Fill kernel");
    }

private:
    KernelSetup mSetup;
    FillAttrs mAttrs;
    FillArgs mArgs;
    bool mAlphaOnDevice{false};
    bool mBetaOnDevice{false};
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createFillCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("fill: no plan node");
    }
    Attributes const& attrs = setup.node->attrs;
    KILN_RETURN_IF_ERROR(attrs.requireInt("op").status());
    KILN_RETURN_IF_ERROR(attrs.requireInt("seed").status());
    FillAttrs a;
    a.intParams = attrs.getInt("int_params", 0) != 0;
    a.alphaInt = attrs.getInt("alpha_int", 0);
    a.alpha = attrs.getFloat("alpha", 0.0);
    a.betaInt = attrs.getInt("beta_int", 1);
    a.beta = attrs.getFloat("beta", 1.0);
    return std::unique_ptr<Kernel>(std::make_unique<FillCudaKernel>(setup, a));
}

} // namespace kiln::cuda
