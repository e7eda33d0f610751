// CUDA kernel of IElementWiseLayer: binary operations with broadcasting, exactly as the CPU reference
// (backends/cpu/kernels/elementWise.cpp): floating-point operands are computed in float, integer and BOOL operands
// in int64 (wrapping; integer division by zero gives 0; kDIV truncates, kFLOOR_DIV rounds toward -infinity).
// Fast path: when A, B and the output share one of FLOAT/HALF/BF16, the operation is one of SUM/SUB/PROD/DIV/MAX/MIN
// and each operand is either the output's shape, a scalar, a block of the output's dimensions broadcast over the
// outer ones (a bias along the last dimensions) or over the inner ones (a [N, C, 1, 1] scale), or a block kept in the
// outer and the inner dimensions (a [N, 1, 1, C] scale of a kHWC8 [N, H, W, C] tensor), a kernel specialised for the
// type and the operation reads operand element ((i / block) % blockMod) * mod + (i / div) % mod, 16 bytes at a time
// where the shapes and the addresses allow it. Everything else runs through the general broadcast map.
// kHWC8 nodes of the channel-last region (their tensors without padding channels) are indexed in storage order
// (storageOrderViews): a squeeze-excitation's x * s with s [N, C, 1, 1] or [1, C, 1, 1] stays in the region.
#include "core/intArithmetic.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

#include <utility>
#include <vector>

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;

namespace
{
using Op = ElementWiseOperation;

__device__ __forceinline__ float applyFloat(Op op, float a, float b)
{
    switch (op)
    {
    case Op::kSUM: return a + b;
    case Op::kPROD: return a * b;
    case Op::kMAX: return fmaxf(a, b);
    case Op::kMIN: return fminf(a, b);
    case Op::kSUB: return a - b;
    case Op::kDIV: return a / b;
    case Op::kPOW: return powf(a, b);
    case Op::kFLOOR_DIV: return floorf(a / b);
    case Op::kAND: return (a != 0.F && b != 0.F) ? 1.F : 0.F;
    case Op::kOR: return (a != 0.F || b != 0.F) ? 1.F : 0.F;
    case Op::kXOR: return ((a != 0.F) != (b != 0.F)) ? 1.F : 0.F;
    case Op::kEQUAL: return a == b ? 1.F : 0.F;
    case Op::kGREATER: return a > b ? 1.F : 0.F;
    case Op::kLESS: return a < b ? 1.F : 0.F;
    default: return 0.F;
    }
}

__device__ __forceinline__ int64_t applyInt(Op op, int64_t a, int64_t b)
{
    switch (op)
    {
    case Op::kSUM: return wrapAdd(a, b);
    case Op::kPROD: return wrapMul(a, b);
    case Op::kMAX: return a > b ? a : b;
    case Op::kMIN: return a < b ? a : b;
    case Op::kSUB: return wrapSub(a, b);
    case Op::kDIV: return truncDiv(a, b);
    case Op::kPOW: return intPow(a, b);
    case Op::kFLOOR_DIV: return floorDiv(a, b);
    case Op::kAND: return (a != 0 && b != 0) ? 1 : 0;
    case Op::kOR: return (a != 0 || b != 0) ? 1 : 0;
    case Op::kXOR: return ((a != 0) != (b != 0)) ? 1 : 0;
    case Op::kEQUAL: return a == b ? 1 : 0;
    case Op::kGREATER: return a > b ? 1 : 0;
    case Op::kLESS: return a < b ? 1 : 0;
    default: return 0;
    }
}

template <typename C>
__global__ void elementWiseKernel(Op op, IndexMap map, int64_t n, void const* a, DataType ta, void const* b,
    DataType tb, void* out, DataType to)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t off[kMAX_OPERANDS];
        mapOffsets(map, i, off);
        C const x = dev::load<C>(a, ta, off[0]);
        C const y = dev::load<C>(b, tb, off[1]);
        if constexpr (sizeof(C) == 8)
        {
            dev::store<C>(out, to, i, applyInt(op, x, y));
        }
        else
        {
            dev::store<C>(out, to, i, applyFloat(op, x, y));
        }
    }
}

//! An operand of the fast path: output element i reads its element ((i / block) % blockMod) * mod + (i / div) % mod
//! (block 0: no outer block).
struct FastOperand
{
    int64_t div{1};
    int64_t mod{1};
    int64_t block{0};
    int64_t blockMod{1};
};

//! The operand's element index for output element i.
__device__ __forceinline__ int64_t fastIndex(FastOperand o, int64_t i)
{
    int64_t q = o.div == 1 ? i : i / o.div;
    q = q < o.mod ? q : q % o.mod;
    if (o.block != 0)
    {
        int64_t const b = i / o.block;
        q += (b < o.blockMod ? b : b % o.blockMod) * o.mod;
    }
    return q;
}

//! Element i of an operand, as float.
template <typename T>
__device__ __forceinline__ float fastElement(T const* p, FastOperand o, int64_t i)
{
    return static_cast<float>(p[fastIndex(o, i)]);
}

//! V consecutive elements of an operand starting at element i (a multiple of V): one 16-byte load where the operand's
//! elements are consecutive there, else one element repeated (the reshape checked that one of the two holds).
template <typename T, int32_t V>
__device__ __forceinline__ void fastVector(T const* p, FastOperand o, int64_t i, float (&v)[V])
{
    if (o.div == 1)
    {
        int64_t const start = fastIndex(o, i);
        uint4 const raw = *reinterpret_cast<uint4 const*>(p + start);
        T const* e = reinterpret_cast<T const*>(&raw);
#pragma unroll
        for (int32_t j = 0; j < V; ++j)
        {
            v[j] = static_cast<float>(e[j]);
        }
    }
    else
    {
        float const x = fastElement(p, o, i);
#pragma unroll
        for (int32_t j = 0; j < V; ++j)
        {
            v[j] = x;
        }
    }
}

template <Op kOp>
__device__ __forceinline__ float fastApply(float a, float b)
{
    if constexpr (kOp == Op::kSUM)
    {
        return a + b;
    }
    else if constexpr (kOp == Op::kSUB)
    {
        return a - b;
    }
    else if constexpr (kOp == Op::kPROD)
    {
        return a * b;
    }
    else if constexpr (kOp == Op::kDIV)
    {
        return a / b;
    }
    else if constexpr (kOp == Op::kMAX)
    {
        return fmaxf(a, b);
    }
    else
    {
        return fminf(a, b);
    }
}

//! V == 1: one element per step; V == 16 / sizeof(T): one 16-byte vector of the output per step (n a multiple of V).
template <typename T, Op kOp, int32_t V>
__global__ void elementWiseFastKernel(int64_t n, FastOperand fa, FastOperand fb, T const* a, T const* b, T* out)
{
    if constexpr (V == 1)
    {
        for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
        {
            out[i] = static_cast<T>(fastApply<kOp>(fastElement(a, fa, i), fastElement(b, fb, i)));
        }
    }
    else
    {
        for (int64_t vec = dev::globalThread(); vec * V < n; vec += dev::gridThreads())
        {
            int64_t const i = vec * V;
            float x[V];
            float y[V];
            fastVector<T, V>(a, fa, i, x);
            fastVector<T, V>(b, fb, i, y);
            uint4 packed;
            T* r = reinterpret_cast<T*>(&packed);
#pragma unroll
            for (int32_t j = 0; j < V; ++j)
            {
                r[j] = static_cast<T>(fastApply<kOp>(x[j], y[j]));
            }
            *reinterpret_cast<uint4*>(out + i) = packed;
        }
    }
}

template <typename T, Op kOp>
void launchFastOp(int64_t n, FastOperand fa, FastOperand fb, bool vectors, TensorView const& a, TensorView const& b,
    TensorView const& out, cudaStream_t stream)
{
    constexpr int32_t kV = static_cast<int32_t>(16 / sizeof(T));
    auto const* pa = static_cast<T const*>(a.data);
    auto const* pb = static_cast<T const*>(b.data);
    auto* po = static_cast<T*>(out.data);
    if (vectors)
    {
        elementWiseFastKernel<T, kOp, kV><<<gridFor(n / kV), kBLOCK, 0, stream>>>(n, fa, fb, pa, pb, po);
    }
    else
    {
        elementWiseFastKernel<T, kOp, 1><<<gridFor(n), kBLOCK, 0, stream>>>(n, fa, fb, pa, pb, po);
    }
}

template <typename T>
void launchFast(Op op, int64_t n, FastOperand fa, FastOperand fb, bool vectors, TensorView const& a,
    TensorView const& b, TensorView const& out, cudaStream_t stream)
{
    switch (op)
    {
    case Op::kSUM: launchFastOp<T, Op::kSUM>(n, fa, fb, vectors, a, b, out, stream); break;
    case Op::kSUB: launchFastOp<T, Op::kSUB>(n, fa, fb, vectors, a, b, out, stream); break;
    case Op::kPROD: launchFastOp<T, Op::kPROD>(n, fa, fb, vectors, a, b, out, stream); break;
    case Op::kDIV: launchFastOp<T, Op::kDIV>(n, fa, fb, vectors, a, b, out, stream); break;
    case Op::kMAX: launchFastOp<T, Op::kMAX>(n, fa, fb, vectors, a, b, out, stream); break;
    default: launchFastOp<T, Op::kMIN>(n, fa, fb, vectors, a, b, out, stream); break;
    }
}

bool fastOperation(Op op)
{
    return op == Op::kSUM || op == Op::kSUB || op == Op::kPROD || op == Op::kDIV || op == Op::kMAX || op == Op::kMIN;
}

//! The fast-path form of an operand of dimensions `in` broadcast to `out` (same rank). Among the output's dimensions
//! that are not 1, the operand's (equal to the output's: kept, else broadcast) form runs: [broadcast] kept [broadcast]
//! (one kept block), [broadcast] kept broadcast kept (an outer and an inner kept block, the inner one last), or none
//! kept (a scalar).
bool fastOperand(nvinfer1::Dims const& in, nvinfer1::Dims const& out, FastOperand& o)
{
    if (in.nbDims != out.nbDims)
    {
        return false;
    }
    std::vector<std::pair<bool, int64_t>> runs; // (kept, extent product) of consecutive dimensions
    int64_t volume = 1;
    for (int32_t d = 0; d < out.nbDims; ++d)
    {
        volume *= out.d[d];
        if (out.d[d] == 1)
        {
            continue;
        }
        bool const kept = in.d[d] == out.d[d];
        if (runs.empty() || runs.back().first != kept)
        {
            runs.emplace_back(kept, 1);
        }
        runs.back().second *= out.d[d];
    }
    if (!runs.empty() && !runs.front().first)
    {
        runs.erase(runs.begin()); // leading broadcast dimensions: the modulo of the outermost kept block
    }
    o = FastOperand{};
    if (runs.empty())
    {
        o.div = volume; // a scalar: element 0 for every i < volume
        return true;
    }
    if (runs.size() <= 2)
    {
        o.mod = runs[0].second;
        o.div = runs.size() == 2 ? runs[1].second : 1;
        return true;
    }
    if (runs.size() == 3)
    {
        o.mod = runs[2].second;
        o.block = runs[1].second * runs[2].second;
        o.blockMod = runs[0].second;
        return true;
    }
    return false;
}

//! create: the operation and the types; reshape: the broadcast map, the element count and the compute type (or the
//! fast path's operand forms); run: one launch.
class ElementWiseCudaKernel final : public Kernel
{
public:
    ElementWiseCudaKernel(KernelSetup const& setup, Op op)
        : mSetup(setup)
        , mOp(op)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(ew::checkViews(mSetup, v.inputs, v.outputs, 2, 1));
        // kHWC8 region tensors in storage order.
        std::vector<TensorView> in = inputs;
        std::vector<TensorView> out = outputs;
        KILN_RETURN_IF_ERROR(storageOrderViews(mSetup, nodeLabel(mSetup, "ElementWise"), in, out));
        auto map = makeBroadcastMap(out[0].dims, {in[0].dims, in[1].dims});
        if (!map.isOk())
        {
            return map.status().withContext(nodeLabel(mSetup, "ElementWise"));
        }
        mMap = *map;
        mFloat = ew::isFloatKernelType(inputs[0].type) || ew::isFloatKernelType(inputs[1].type);
        mVolume = outputs[0].volume();
        DataType const t = outputs[0].type;
        mFast = fastOperation(mOp) && inputs[0].type == t && inputs[1].type == t
            && (t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16)
            && fastOperand(in[0].dims, out[0].dims, mFastA) && fastOperand(in[1].dims, out[0].dims, mFastB);
        if (mFast)
        {
            int64_t const v = 16 / static_cast<int64_t>(elementSize(t));
            auto const vectorReady = [v](FastOperand const& o)
            { return o.div == 1 ? o.mod % v == 0 : o.div % v == 0; };
            mFastVectors = mVolume % v == 0 && vectorReady(mFastA) && vectorReady(mFastB);
        }
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "ElementWise"));
        }
        TensorView const& a = inputs[0];
        TensorView const& b = inputs[1];
        TensorView const& out = outputs[0];
        if (mFast)
        {
            bool const aligned = ((reinterpret_cast<uintptr_t>(a.data) | reinterpret_cast<uintptr_t>(b.data)
                                      | reinterpret_cast<uintptr_t>(out.data))
                                     & 15U)
                == 0;
            bool const vectors = mFastVectors && aligned;
            switch (out.type)
            {
            case DataType::kHALF:
                launchFast<__half>(mOp, mVolume, mFastA, mFastB, vectors, a, b, out, ctx.stream);
                break;
            case DataType::kBF16:
                launchFast<__nv_bfloat16>(mOp, mVolume, mFastA, mFastB, vectors, a, b, out, ctx.stream);
                break;
            default: launchFast<float>(mOp, mVolume, mFastA, mFastB, vectors, a, b, out, ctx.stream); break;
            }
            return launchStatus("ElementWise kernel");
        }
        if (mFloat)
        {
            elementWiseKernel<float><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mOp, mMap, mVolume, a.data, a.type,
                b.data, b.type, out.data, out.type);
        }
        else
        {
            elementWiseKernel<int64_t><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mOp, mMap, mVolume, a.data,
                a.type, b.data, b.type, out.data, out.type);
        }
        return launchStatus("ElementWise kernel");
    }

private:
    KernelSetup mSetup;
    Op mOp;
    IndexMap mMap;
    bool mFloat{true};
    int64_t mVolume{-1};
    bool mFast{false};
    bool mFastVectors{false};
    FastOperand mFastA;
    FastOperand mFastB;
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createPointwiseProgramCudaKernel(KernelSetup const& setup); // pointwiseProgram.cu

StatusOr<std::unique_ptr<Kernel>> createElementWiseCudaKernel(KernelSetup const& setup)
{
    if (setup.node != nullptr && setup.node->attrs.has("pw.program"))
    {
        return createPointwiseProgramCudaKernel(setup); // a fused chain (fusion pass)
    }
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 2, 1, "ElementWise"));
    KILN_ASSIGN_OR_RETURN(int64_t const op, setup.node->attrs.requireInt("operation"));
    if (op < 0 || op >= nvinfer1::EnumMax<ElementWiseOperation>())
    {
        return invalidArgument(nodeLabel(setup, "ElementWise") + ": invalid operation " + std::to_string(op));
    }
    for (DataType t : setup.inputTypes)
    {
        if (!ew::isKernelType(t))
        {
            return invalidArgument(nodeLabel(setup, "ElementWise") + ": unsupported input type " + dataTypeName(t));
        }
    }
    if (!ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(nodeLabel(setup, "ElementWise") + ": unsupported output type "
            + dataTypeName(setup.outputTypes[0]));
    }
    return std::unique_ptr<Kernel>(std::make_unique<ElementWiseCudaKernel>(setup, static_cast<Op>(op)));
}

} // namespace kiln::cuda
