// CUDA kernel of IResizeLayer with the CPU reference's semantics (backends/cpu/kernels/resize.cpp), following ONNX
// Resize: per dimension an output coordinate maps to an input coordinate (coordinate transformation, selector),
// which gives taps (input index, weight): one for nearest, two for linear, four for cubic, clamped to the edge or,
// with exclude-outside, dropped and renormalized. Each thread computes its taps on the fly and sums the products
// in double; nearest copies bits, so every type stays exact. Scales come from the attributes (or, as for the CPU,
// from an FP32 scales input — which must then have host values: not supported on the GPU yet).
#include "backends/common/resizeParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

namespace
{

struct ResizeArgs
{
    InterpolationMode mode{InterpolationMode::kNEAREST};
    ResizeCoordinateTransformation transform{ResizeCoordinateTransformation::kASYMMETRIC};
    ResizeSelector selector{ResizeSelector::kFORMULA};
    ResizeRoundMode rounding{ResizeRoundMode::kFLOOR};
    double cubicA{-0.75};
    bool excludeOutside{false};
    int32_t rank{0};
    int64_t inDims[kMAX_RANK]{};
    int64_t outDims[kMAX_RANK]{};
    int64_t strides[kMAX_RANK]{};
    double scales[kMAX_RANK]{}; //!< 0 when not given
};

struct Taps
{
    int32_t count{0};
    int64_t offset[4]{};
    double weight[4]{};
};

__device__ Taps tapsFor(ResizeArgs const& p, double x, int64_t inLen, int64_t stride)
{
    Taps taps;
    if (p.mode == InterpolationMode::kNEAREST)
    {
        double r = 0.0;
        switch (p.rounding)
        {
        case ResizeRoundMode::kHALF_UP: r = floor(x + 0.5); break;
        case ResizeRoundMode::kHALF_DOWN: r = ceil(x - 0.5); break;
        case ResizeRoundMode::kCEIL: r = ceil(x); break;
        case ResizeRoundMode::kFLOOR:
        default: r = floor(x); break;
        }
        r = fmin(fmax(r, -1.0), static_cast<double>(inLen));
        taps.count = 1;
        taps.offset[0] = resizeClampIndex(static_cast<int64_t>(r), inLen) * stride;
        taps.weight[0] = 1.0;
        return taps;
    }
    x = fmin(fmax(x, -4.0), static_cast<double>(inLen) + 4.0);
    double const base = floor(x);
    double const frac = x - base;
    auto const first = static_cast<int64_t>(base);
    int64_t rawIdx[4];
    double rawW[4];
    int32_t nbRaw = 0;
    if (p.mode == InterpolationMode::kLINEAR)
    {
        rawIdx[0] = first;
        rawW[0] = 1.0 - frac;
        rawIdx[1] = first + 1;
        rawW[1] = frac;
        nbRaw = 2;
    }
    else
    {
        for (int64_t k = -1; k <= 2; ++k)
        {
            rawIdx[nbRaw] = first + k;
            rawW[nbRaw++] = resizeCubicWeight(frac - static_cast<double>(k), p.cubicA);
        }
    }
    double sum = 0.0;
    for (int32_t i = 0; i < nbRaw; ++i)
    {
        if (p.excludeOutside && (rawIdx[i] < 0 || rawIdx[i] >= inLen))
        {
            rawW[i] = 0.0;
        }
        sum += rawW[i];
    }
    for (int32_t i = 0; i < nbRaw; ++i)
    {
        if (rawW[i] == 0.0)
        {
            continue;
        }
        double const weight = p.excludeOutside && sum != 0.0 ? rawW[i] / sum : rawW[i];
        int64_t const at = resizeClampIndex(rawIdx[i], inLen) * stride;
        bool merged = false;
        for (int32_t t = 0; t < taps.count; ++t)
        {
            if (taps.offset[t] == at)
            {
                taps.weight[t] += weight;
                merged = true;
            }
        }
        if (!merged)
        {
            taps.offset[taps.count] = at;
            taps.weight[taps.count++] = weight;
        }
    }
    if (taps.count == 0)
    {
        taps.count = 1;
        taps.offset[0] = resizeClampIndex(first, inLen) * stride;
        taps.weight[0] = 0.0;
    }
    return taps;
}

__global__ void resizeKernel(ResizeArgs a, int64_t n, void const* in, void* out, DataType t, int32_t size)
{
    for (int64_t o = dev::globalThread(); o < n; o += dev::gridThreads())
    {
        Taps taps[kMAX_RANK];
        int64_t rest = o;
        for (int32_t d = a.rank - 1; d >= 0; --d)
        {
            int64_t const c = rest % a.outDims[d];
            rest /= a.outDims[d];
            double const x = resizeSourceCoordinate(a, c, a.inDims[d], a.outDims[d], a.scales[d]);
            taps[d] = tapsFor(a, x, a.inDims[d], a.strides[d]);
        }
        if (a.mode == InterpolationMode::kNEAREST)
        {
            int64_t offset = 0;
            for (int32_t d = 0; d < a.rank; ++d)
            {
                offset += taps[d].offset[0];
            }
            dev::copyElement(out, o, in, offset, size);
            continue;
        }
        int32_t pick[kMAX_RANK] = {};
        double acc = 0.0;
        while (true)
        {
            int64_t offset = 0;
            double weight = 1.0;
            for (int32_t d = 0; d < a.rank; ++d)
            {
                offset += taps[d].offset[pick[d]];
                weight *= taps[d].weight[pick[d]];
            }
            acc += weight * static_cast<double>(dev::loadFloat(in, t, offset));
            int32_t d = a.rank - 1;
            for (; d >= 0; --d)
            {
                if (++pick[d] < taps[d].count)
                {
                    break;
                }
                pick[d] = 0;
            }
            if (d < 0)
            {
                break;
            }
        }
        dev::storeFloat(out, t, o, static_cast<float>(acc));
    }
}

//! create: the interpolation attributes and the static scales; reshape: the checks and the launch arguments; run:
//! one launch.
class ResizeKernel final : public Kernel
{
public:
    ResizeKernel(ResizeArgs args, std::vector<double> scales)
        : mArgs(args)
        , mScales(std::move(scales))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        if (inputs.empty() || outputs.size() != 1)
        {
            return internalError("resize: expected a data input and one output");
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        int32_t const rank = in.dims.nbDims;
        if (out.dims.nbDims != rank || in.type != out.type || rank > kMAX_RANK)
        {
            return internalError("resize: output rank or type differs from the input");
        }
        if (inputs.size() > 1 && inputs[1].type == DataType::kFLOAT && inputs[1].volume() == rank)
        {
            return unsupported("resize: scales from an FP32 input tensor are not supported on the CUDA backend yet");
        }
        if (!mScales.empty() && static_cast<int32_t>(mScales.size()) != rank)
        {
            return invalidArgument("resize: scale count differs from the rank");
        }
        int64_t const n = out.volume();
        if (n == 0)
        {
            mVolume = 0;
            return Status::ok();
        }
        mArgs.rank = rank;
        std::vector<int64_t> const strides = contiguousStrides(in.dims);
        for (int32_t d = 0; d < rank; ++d)
        {
            if (in.dims.d[d] == 0)
            {
                return invalidArgument("resize: dimension " + std::to_string(d) + " is empty but its output is not");
            }
            mArgs.inDims[d] = in.dims.d[d];
            mArgs.outDims[d] = out.dims.d[d];
            mArgs.strides[d] = strides[static_cast<size_t>(d)];
            mArgs.scales[d] = mScales.empty() ? 0.0 : mScales[static_cast<size_t>(d)];
        }
        int64_t const bytes = elementSize(in.type);
        bool const nearest = mArgs.mode == InterpolationMode::kNEAREST;
        if ((bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) || (!nearest && !ew::isKernelType(in.type)))
        {
            return internalError("resize: unsupported type " + std::string(dataTypeName(in.type)));
        }
        mSize = static_cast<int32_t>(bytes);
        mVolume = n;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : internalError("resize: run without a successful reshape");
        }
        resizeKernel<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mArgs, mVolume, inputs[0].data, outputs[0].data,
            inputs[0].type, mSize);
        return launchStatus("Resize kernel");
    }

private:
    ResizeArgs mArgs;
    std::vector<double> mScales;
    int32_t mSize{0};
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createResizeCudaKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(ResizeAttrs attrs, readResizeAttrs(setup));
    ResizeArgs p;
    p.mode = attrs.params.mode;
    p.transform = attrs.params.transform;
    p.selector = attrs.params.selector;
    p.rounding = attrs.params.rounding;
    p.cubicA = attrs.params.cubicA;
    p.excludeOutside = attrs.params.excludeOutside;
    return std::unique_ptr<Kernel>(std::make_unique<ResizeKernel>(p, std::move(attrs.scales)));
}

} // namespace kiln::cuda
