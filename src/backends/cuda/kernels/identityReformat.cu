// CUDA reformat kernel: kIDENTITY nodes with attribute "reformat" = 1 (inserted by the builder around plugins), as
// the CPU's (the creation checks are shared: backends/common/reformatParams.h; the layouts: core/tensorFormat.h):
// any type to any type with ICastLayer's conversions (launchConvert), INT8 dequantization/quantization with the
// tensors' scales ("inScale"/"outScale"), and kLINEAR <-> the vectorized and channel-last formats (kCHW2/4/16/32,
// kCDHW32, kHWC8/16, kHWC, kDHWC8, kDHWC), padding channels zero. Three steps as on the CPU: a non-linear input
// is gathered into logical order in the workspace, converted, and scattered into a non-linear output (whose
// padded storage is zeroed first).
#include "backends/common/reformatParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "backends/cuda/kernels/workspaceLayout.cuh"
#include "core/tensorFormat.h"

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::TensorFormat;

StatusOr<std::unique_ptr<Kernel>> createReformatCudaKernel(KernelSetup const& setup);

namespace
{

//! Storage offset of every logical element of a tensor in a non-linear format (storageIndices() on the device).
struct DeviceLayout
{
    int32_t rank{0};
    int32_t channelDim{0};
    int64_t vector{1};
    int64_t groupStride{0}; //!< channel-major: stride of a channel group
    bool channelLast{false};
    int64_t dims[kMAX_RANK]{};
    int64_t stride[kMAX_RANK]{};
};

DeviceLayout deviceLayout(FormatLayout const& layout, nvinfer1::Dims const& dims)
{
    DeviceLayout d;
    d.rank = dims.nbDims;
    d.channelDim = layout.channelDim;
    d.vector = layout.vector;
    d.channelLast = layout.channelLast;
    int32_t const c = layout.channelDim;
    int64_t const v = layout.vector;
    int64_t const paddedChannels = (dims.d[c] + v - 1) / v * v;
    int64_t s = layout.channelLast ? paddedChannels : v;
    for (int32_t j = dims.nbDims - 1; j >= 0; --j)
    {
        d.dims[j] = dims.d[j];
        if (j == c)
        {
            if (!layout.channelLast)
            {
                d.groupStride = s;
                s *= paddedChannels / v;
            }
            continue;
        }
        d.stride[j] = s;
        s *= dims.d[j];
    }
    return d;
}

__device__ __forceinline__ int64_t storageOffset(DeviceLayout const& l, int64_t i)
{
    int64_t offset = 0;
    for (int32_t j = l.rank - 1; j >= 0; --j)
    {
        int64_t const idx = i % l.dims[j];
        i /= l.dims[j];
        if (j == l.channelDim)
        {
            offset += l.channelLast ? idx : (idx / l.vector) * l.groupStride + idx % l.vector;
        }
        else
        {
            offset += idx * l.stride[j];
        }
    }
    return offset;
}

//! toStorage: dst[offset(i)] = src[i]; else dst[i] = src[offset(i)].
__global__ void permuteKernel(DeviceLayout l, bool toStorage, void const* src, void* dst, int64_t n, int32_t size)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t const off = storageOffset(l, i);
        if (toStorage)
        {
            dev::copyElement(dst, off, src, i, size);
        }
        else
        {
            dev::copyElement(dst, i, src, off, size);
        }
    }
}

//! INT8 with scales: x = in (dequantized: float(x) * inScale), quantized: clamp(rint(x / outScale), -128, 127).
__global__ void quantizeKernel(void const* src, DataType inType, void* dst, DataType outType, int64_t n, float inScale,
    float outScale, bool dequantize, bool quantize)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        float x = dev::loadFloat(src, inType, i);
        if (dequantize)
        {
            x = __fmul_rn(x, inScale);
        }
        if (quantize)
        {
            float const q = rintf(__fdiv_rn(x, outScale));
            x = q < -128.F ? -128.F : (127.F < q ? 127.F : q);
        }
        dev::storeFloat(dst, outType, i, x);
    }
}

//! What tileTransposeKernel moves: per batch, a source matrix of `rows` x `cols` elements (rows `srcStride` apart)
//! becomes a destination of `cols` rows of `dstRows` elements, the rows beyond `rows` zero (padding channels).
struct TransposeShape
{
    int64_t batch{0};
    int64_t rows{0}; //!< 0: no plain transpose for these tensors
    int64_t cols{0};
    int64_t srcStride{0};
    int64_t dstRows{0};
};

//! Batched transpose dst[b][c][r] = src[b][r][c] through 32x32 shared-memory tiles (coalesced on both sides):
//! linear <-> channel-last, the boundaries of the builder's channel-last regions.
template <typename T>
__global__ void tileTransposeKernel(T const* __restrict__ src, T* __restrict__ dst, TransposeShape t)
{
    __shared__ T tile[32][33];
    int64_t const r0 = static_cast<int64_t>(blockIdx.y) * 32;
    int64_t const c0 = static_cast<int64_t>(blockIdx.x) * 32;
    T const* in = src + static_cast<int64_t>(blockIdx.z) * t.rows * t.srcStride;
    T* out = dst + static_cast<int64_t>(blockIdx.z) * t.cols * t.dstRows;
    for (int32_t i = threadIdx.y; i < 32; i += blockDim.y)
    {
        int64_t const r = r0 + i;
        int64_t const c = c0 + threadIdx.x;
        if (c < t.cols && r < t.dstRows)
        {
            tile[i][threadIdx.x] = r < t.rows ? in[r * t.srcStride + c] : T(0);
        }
    }
    __syncthreads();
    for (int32_t i = threadIdx.y; i < 32; i += blockDim.y)
    {
        int64_t const c = c0 + i;
        int64_t const r = r0 + threadIdx.x;
        if (c < t.cols && r < t.dstRows)
        {
            out[c * t.dstRows + r] = tile[threadIdx.x][i];
        }
    }
}

//! linear -> channel-last for 2-byte types and 8 stored channels (a CNN's 3-channel image padded to kHWC8): one
//! thread per pixel reads its channels (coalesced across the warp) and writes them as one 16-byte store.
__global__ void pixelsToChannelLast8Kernel(uint16_t const* __restrict__ src, uint4* __restrict__ dst, TransposeShape t)
{
    int64_t const pixels = t.batch * t.cols;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const b = i / t.cols;
        int64_t const pixel = i - b * t.cols;
        uint16_t const* in = src + b * t.rows * t.srcStride + pixel;
        uint16_t v[8]{};
        for (int64_t r = 0; r < t.rows; ++r)
        {
            v[r] = in[r * t.srcStride];
        }
        uint4 packed;
        packed.x = v[0] | (static_cast<uint32_t>(v[1]) << 16);
        packed.y = v[2] | (static_cast<uint32_t>(v[3]) << 16);
        packed.z = v[4] | (static_cast<uint32_t>(v[5]) << 16);
        packed.w = v[6] | (static_cast<uint32_t>(v[7]) << 16);
        dst[i] = packed;
    }
}

//! create: the formats (readReformatSetup) and the scales; reshape: the shape checks, the workspace parts, the
//! device layouts of non-linear formats, the conversion and the padded output size; run: up to three launches.
class ReformatCudaKernel final : public Kernel
{
public:
    ReformatCudaKernel(KernelSetup const& setup, FormatLayout in, FormatLayout out)
        : mSetup(setup)
        , mInLayout(in)
        , mOutLayout(out)
        , mOutFormat(static_cast<TensorFormat>(setup.node->attrs.getInt("outFormat", 0)))
        , mInScale(static_cast<float>(setup.node->attrs.getFloat("inScale", -1.0)))
        , mOutScale(static_cast<float>(setup.node->attrs.getFloat("outScale", -1.0)))
    {
    }

    int64_t workspaceSize(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) const override
    {
        if (inputs.size() != 1 || outputs.size() != 1 || transposeShape(inputs[0], outputs[0]).rows > 0)
        {
            return 0;
        }
        return parts(inputs[0], outputs[0]).total();
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(ew::checkViews(mSetup, v.inputs, v.outputs, 1, 1));
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        KILN_RETURN_IF_ERROR(ew::checkSameDims(mSetup, in.dims, out.dims, "input and output"));
        int64_t const n = in.volume();
        mInSize = static_cast<int32_t>(elementSize(in.type));
        mOutSize = static_cast<int32_t>(elementSize(out.type));
        WorkspaceLayout carve;
        mLinearInOffset = carve.add(mInLayout.linear ? 0 : n * mInSize);
        mLinearOutOffset = carve.add(mOutLayout.linear ? 0 : n * mOutSize);
        mWorkspaceBytes = carve.total();
        if (!mInLayout.linear)
        {
            mInDevice = deviceLayout(mInLayout, in.dims);
        }
        if (!mOutLayout.linear)
        {
            mOutDevice = deviceLayout(mOutLayout, out.dims);
            std::vector<int64_t> const extents(out.dims.d, out.dims.d + out.dims.nbDims);
            mOutStorageBytes = formattedVolume(mOutFormat, extents) * mOutSize;
        }
        mDequantize = in.type == DataType::kINT8 && mInScale > 0.F;
        mQuantize = out.type == DataType::kINT8 && mOutScale > 0.F;
        mVolume = n;
        mTranspose = transposeShape(in, out);
        if (mTranspose.rows > 0)
        {
            mWorkspaceBytes = 0;
        }
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Reformat"));
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        int64_t const n = mVolume;
        if (mWorkspaceBytes > 0 && (ctx.workspace == nullptr || ctx.workspaceBytes < mWorkspaceBytes))
        {
            return invalidArgument(nodeLabel(mSetup, "Reformat") + ": needs " + std::to_string(mWorkspaceBytes)
                + " bytes of workspace, got " + std::to_string(ctx.workspaceBytes));
        }
        if (mTranspose.rows > 0)
        {
            dim3 const grid(static_cast<uint32_t>((mTranspose.cols + 31) / 32),
                static_cast<uint32_t>((mTranspose.dstRows + 31) / 32), static_cast<uint32_t>(mTranspose.batch));
            dim3 const block(32, 8);
            bool const aligned = (reinterpret_cast<uintptr_t>(out.data) % 16) == 0;
            if (mInSize == 2 && mInLayout.linear && mTranspose.dstRows == 8 && aligned)
            {
                int64_t const pixels = mTranspose.batch * mTranspose.cols;
                pixelsToChannelLast8Kernel<<<gridFor(pixels), kBLOCK, 0, ctx.stream>>>(
                    static_cast<uint16_t const*>(in.data), static_cast<uint4*>(out.data), mTranspose);
            }
            else if (mInSize == 2)
            {
                tileTransposeKernel<<<grid, block, 0, ctx.stream>>>(
                    static_cast<uint16_t const*>(in.data), static_cast<uint16_t*>(out.data), mTranspose);
            }
            else
            {
                tileTransposeKernel<<<grid, block, 0, ctx.stream>>>(
                    static_cast<uint32_t const*>(in.data), static_cast<uint32_t*>(out.data), mTranspose);
            }
            return launchStatus("reformat transpose kernel");
        }
        // 1. Source elements in logical (row-major) order.
        void const* src = in.data;
        if (!mInLayout.linear)
        {
            void* linearIn = WorkspaceLayout::at<void>(ctx.workspace, mLinearInOffset);
            permuteKernel<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(mInDevice, false, in.data, linearIn, n, mInSize);
            KILN_RETURN_IF_ERROR(launchStatus("reformat gather kernel"));
            src = linearIn;
        }
        // 2. Type conversion (INT8 with a scale is quantized data).
        void* dst = mOutLayout.linear ? out.data : WorkspaceLayout::at<void>(ctx.workspace, mLinearOutOffset);
        if (mDequantize || mQuantize)
        {
            quantizeKernel<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(src, in.type, dst, out.type, n, mInScale, mOutScale,
                mDequantize, mQuantize);
            KILN_RETURN_IF_ERROR(launchStatus("reformat quantization kernel"));
        }
        else if (src != dst || in.type != out.type)
        {
            KILN_RETURN_IF_ERROR(launchConvert(src, in.type, dst, out.type, n, ctx.stream));
        }
        // 3. Destination layout, padding zero-filled.
        if (!mOutLayout.linear)
        {
            KILN_CUDA_CHECK(cudaMemsetAsync(out.data, 0, static_cast<size_t>(mOutStorageBytes), ctx.stream));
            permuteKernel<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(mOutDevice, true, dst, out.data, n, mOutSize);
            KILN_RETURN_IF_ERROR(launchStatus("reformat scatter kernel"));
        }
        return Status::ok();
    }

private:
    //! A plain batched transpose when one side is linear, the other channel-last, and the types (2 or 4 bytes, the
    //! same) and scales leave the values unchanged: [outer][C][inner] -> [outer][inner][Cpadded], or back. Rows 0
    //! otherwise.
    TransposeShape transposeShape(TensorView const& in, TensorView const& out) const
    {
        TransposeShape t;
        FormatLayout const& other = mInLayout.linear ? mOutLayout : mInLayout;
        bool const scaled = (in.type == DataType::kINT8 && mInScale > 0.F) || (out.type == DataType::kINT8 && mOutScale > 0.F);
        size_t const size = elementSize(in.type);
        if (mInLayout.linear == mOutLayout.linear || !other.channelLast || in.type != out.type || scaled
            || (size != 2 && size != 4) || other.channelDim < 0 || other.channelDim >= in.dims.nbDims)
        {
            return t;
        }
        int64_t outer = 1;
        int64_t inner = 1;
        for (int32_t j = 0; j < in.dims.nbDims; ++j)
        {
            if (j != other.channelDim)
            {
                (j < other.channelDim ? outer : inner) *= in.dims.d[j];
            }
        }
        int64_t const channels = in.dims.d[other.channelDim];
        int64_t const padded = (channels + other.vector - 1) / other.vector * other.vector;
        bool const toChannelLast = mInLayout.linear;
        t.batch = outer;
        t.rows = toChannelLast ? channels : inner;
        t.cols = toChannelLast ? inner : channels;
        t.srcStride = toChannelLast ? inner : padded;
        t.dstRows = toChannelLast ? padded : inner;
        if (outer <= 0 || outer > 65535 || t.rows <= 0 || t.cols <= 0 || (t.dstRows + 31) / 32 > 65535)
        {
            t.rows = 0;
        }
        return t;
    }

    //! Workspace: the input in logical order (non-linear input), the converted output before its layout.
    WorkspaceLayout parts(TensorView const& in, TensorView const& out) const
    {
        WorkspaceLayout layout;
        int64_t const n = in.volume();
        layout.add(mInLayout.linear ? 0 : n * elementSize(in.type));
        layout.add(mOutLayout.linear ? 0 : n * elementSize(out.type));
        return layout;
    }

    KernelSetup mSetup;
    FormatLayout mInLayout;
    FormatLayout mOutLayout;
    TensorFormat mOutFormat;
    float mInScale;
    float mOutScale;
    // Of the last reshape.
    int64_t mVolume{-1};
    int32_t mInSize{0};
    int32_t mOutSize{0};
    int64_t mLinearInOffset{0};
    int64_t mLinearOutOffset{0};
    int64_t mWorkspaceBytes{0};
    DeviceLayout mInDevice;
    DeviceLayout mOutDevice;
    int64_t mOutStorageBytes{0};
    bool mDequantize{false};
    bool mQuantize{false};
    TransposeShape mTranspose; //!< the plain transpose of the last reshape (rows 0: none)
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createReformatCudaKernel(KernelSetup const& setup)
{
    FormatLayout in;
    FormatLayout out;
    KILN_RETURN_IF_ERROR(readReformatSetup(setup, in, out));
    return std::unique_ptr<Kernel>(std::make_unique<ReformatCudaKernel>(setup, in, out));
}

} // namespace kiln::cuda
