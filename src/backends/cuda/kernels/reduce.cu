// CUDA kernel of IReduceLayer with the CPU reference's semantics (backends/cpu/kernels/reduce.cpp): kSUM, kPROD,
// kMAX, kMIN, kAVG over any axes mask, keepDims or not. Floating-point storage accumulates in double (NaN propagates
// through kMAX/kMIN); INT32/INT64 compute exactly with two's-complement wrap-around, kAVG truncating toward zero.
// Empty reductions give the identities (0, 1, lowest, highest; kAVG: NaN for floats, 0 for integers).
// One thread per output element, walking its reduced elements: correct for every shape, not yet fast for large
// reductions (a block-per-output kernel is the next step).
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::ReduceOperation;

namespace
{

__global__ void reduceKernel(ReduceOperation op, IndexMap kept, IndexMap reduced, int64_t outVolume, int64_t count,
    void const* in, void* out, DataType t)
{
    bool const isFloat = t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
    for (int64_t o = dev::globalThread(); o < outVolume; o += dev::gridThreads())
    {
        int64_t base[kMAX_OPERANDS];
        mapOffsets(kept, o, base);
        if (isFloat)
        {
            double acc = op == ReduceOperation::kPROD ? 1.0
                : op == ReduceOperation::kMAX        ? -INFINITY
                : op == ReduceOperation::kMIN        ? INFINITY
                                                     : 0.0;
            for (int64_t r = 0; r < count; ++r)
            {
                int64_t off[kMAX_OPERANDS];
                mapOffsets(reduced, r, off);
                double const v = static_cast<double>(dev::loadFloat(in, t, base[0] + off[0]));
                switch (op)
                {
                case ReduceOperation::kPROD: acc *= v; break;
                case ReduceOperation::kMAX: acc = (acc != acc || v != v) ? NAN : (v > acc ? v : acc); break;
                case ReduceOperation::kMIN: acc = (acc != acc || v != v) ? NAN : (v < acc ? v : acc); break;
                default: acc += v; break;
                }
            }
            if (op == ReduceOperation::kAVG)
            {
                acc = count == 0 ? NAN : acc / static_cast<double>(count);
            }
            dev::storeFloat(out, t, o, static_cast<float>(acc));
            continue;
        }
        bool const is32 = t == DataType::kINT32;
        int64_t acc = op == ReduceOperation::kPROD ? 1
            : op == ReduceOperation::kMAX          ? (is32 ? -2147483648LL : (-0x7fffffffffffffffLL - 1))
            : op == ReduceOperation::kMIN          ? (is32 ? 2147483647LL : 0x7fffffffffffffffLL)
                                                   : 0;
        for (int64_t r = 0; r < count; ++r)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(reduced, r, off);
            int64_t const v = dev::loadInt(in, t, base[0] + off[0]);
            switch (op)
            {
            case ReduceOperation::kPROD: acc = static_cast<int64_t>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(v)); break;
            case ReduceOperation::kMAX: acc = v > acc ? v : acc; break;
            case ReduceOperation::kMIN: acc = v < acc ? v : acc; break;
            default: acc = static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(v)); break;
            }
        }
        if (op == ReduceOperation::kAVG)
        {
            acc = count == 0 ? 0 : acc / count;
        }
        dev::storeInt(out, t, o, acc); // narrower types wrap, as the CPU's per-step wrap-around
    }
}

Status reduceError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Reduce): " + message);
}

Status enqueueReduce(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    if (inputs.size() != 1 || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
    {
        return reduceError(setup, "expects one input and one output");
    }
    Attributes const& attrs = setup.node->attrs;
    StatusOr<int64_t> opAttr = attrs.requireInt("operation");
    StatusOr<int64_t> maskAttr = attrs.requireInt("axes");
    StatusOr<int64_t> keepAttr = attrs.requireInt("keepDims");
    if (!opAttr.isOk() || !maskAttr.isOk() || !keepAttr.isOk())
    {
        return reduceError(setup, "missing or mistyped attribute 'operation', 'axes' or 'keepDims'");
    }
    if (*opAttr < 0 || *opAttr > static_cast<int64_t>(ReduceOperation::kAVG))
    {
        return reduceError(setup, "invalid operation " + std::to_string(*opAttr));
    }
    auto const op = static_cast<ReduceOperation>(*opAttr);
    int64_t const mask = *maskAttr;
    bool const keepDims = *keepAttr != 0;
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    if (rank < 0 || rank > kMAX_RANK || mask < 0 || (mask >> rank) != 0)
    {
        return reduceError(setup, "axes mask " + std::to_string(mask) + " does not fit the input rank "
            + std::to_string(rank));
    }
    if (in.type != out.type)
    {
        return reduceError(setup, "input and output types differ");
    }
    bool const supported = ew::isFloatKernelType(in.type) || in.type == DataType::kINT32 || in.type == DataType::kINT64;
    if (!supported)
    {
        return reduceError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    std::vector<int64_t> const strides = contiguousStrides(in.dims);
    std::vector<int64_t> expected;
    IndexMap kept;
    IndexMap reduced;
    int64_t outVolume = 1;
    int64_t count = 1;
    for (int32_t d = 0; d < rank; ++d)
    {
        int64_t const e = in.dims.d[d];
        if (e < 0)
        {
            return reduceError(setup, "negative input extent");
        }
        if ((mask >> d) & 1)
        {
            count *= e;
            reduced.dims[reduced.rank] = e;
            reduced.strides[0][reduced.rank++] = strides[static_cast<size_t>(d)];
            if (keepDims)
            {
                expected.push_back(1);
            }
        }
        else
        {
            outVolume *= e;
            expected.push_back(e);
            kept.dims[kept.rank] = e;
            kept.strides[0][kept.rank++] = strides[static_cast<size_t>(d)];
        }
    }
    if (std::vector<int64_t>(out.dims.d, out.dims.d + out.dims.nbDims) != expected)
    {
        return reduceError(setup, "output dimensions " + ew::dimsToString(out.dims) + " do not match the expected ones");
    }
    if (outVolume == 0)
    {
        return Status::ok();
    }
    reduceKernel<<<gridFor(outVolume), kBLOCK, 0, ctx.stream>>>(op, kept, reduced, outVolume, count, in.data,
        out.data, in.type);
    return launchStatus("Reduce kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createReduceCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Reduce kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueReduce);
}

} // namespace kiln::cuda
