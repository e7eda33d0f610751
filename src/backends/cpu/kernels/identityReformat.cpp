// Reformat kernel (identity nodes with "reformat" = 1) and the tensor format layouts: see identityReformat.h. A 4-D
// reformat between formats oneDNN describes (kLINEAR, kHWC, kCHW4/16/32) of one type oneDNN has, without INT8 scales
// (the region boundaries of the builder's channelLastPass), runs as a oneDNN reorder, which zero-fills the padding
// channels; everything else through the per-element storage index tables.
#include "backends/cpu/kernels/identityReformat.h"

#include "backends/common/reformatParams.h"
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/oneDnnFormats.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::TensorFormat;

void storageIndices(FormatLayout const& layout, nvinfer1::Dims const& dims, std::vector<int64_t>& indices)
{
    int32_t const rank = dims.nbDims;
    int64_t n = 1;
    for (int32_t i = 0; i < rank; ++i)
    {
        n *= dims.d[i];
    }
    indices.resize(static_cast<size_t>(std::max<int64_t>(n, 0)));
    if (n <= 0)
    {
        return;
    }
    if (layout.linear)
    {
        for (int64_t i = 0; i < n; ++i)
        {
            indices[static_cast<size_t>(i)] = i;
        }
        return;
    }
    int32_t const c = layout.channelDim;
    int64_t const v = layout.vector;
    int64_t const channels = dims.d[c];
    int64_t const paddedChannels = (channels + v - 1) / v * v;
    // Strides (in elements) of every logical dimension except the channel, and of the channel's parts.
    std::vector<int64_t> stride(static_cast<size_t>(rank), 0);
    int64_t groupStride = 0; // channel-major: stride of the channel group (i_c / v)
    int64_t s = layout.channelLast ? paddedChannels : v;
    for (int32_t j = rank - 1; j >= 0; --j)
    {
        if (j == c)
        {
            if (!layout.channelLast)
            {
                groupStride = s;
                s *= paddedChannels / v;
            }
            continue;
        }
        stride[static_cast<size_t>(j)] = s;
        s *= dims.d[j];
    }
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t i = 0; i < n; ++i)
    {
        int64_t offset = 0;
        for (int32_t j = 0; j < rank; ++j)
        {
            if (j != c)
            {
                offset += idx[static_cast<size_t>(j)] * stride[static_cast<size_t>(j)];
            }
        }
        int64_t const ch = idx[static_cast<size_t>(c)];
        offset += layout.channelLast ? ch : (ch / v) * groupStride + ch % v;
        indices[static_cast<size_t>(i)] = offset;
        for (int32_t j = rank - 1; j >= 0; --j)
        {
            if (++idx[static_cast<size_t>(j)] < dims.d[j])
            {
                break;
            }
            idx[static_cast<size_t>(j)] = 0;
        }
    }
}

namespace
{

//! create: layouts, formats and INT8 scales; reshape: the storage index of every element in the non-linear layouts,
//! the linear staging buffers and the padded output size; run: gather, convert, scatter.
class ReformatKernel final : public Kernel
{
public:
    ReformatKernel(KernelSetup const& setup, FormatLayout in, FormatLayout out)
        : mSetup(setup)
        , mInLayout(in)
        , mOutLayout(out)
        , mInFormat(static_cast<TensorFormat>(setup.node->attrs.getInt("inFormat", 0)))
        , mOutFormat(static_cast<TensorFormat>(setup.node->attrs.getInt("outFormat", 0)))
        , mInScale(static_cast<float>(setup.node->attrs.getFloat("inScale", -1.0)))
        , mOutScale(static_cast<float>(setup.node->attrs.getFloat("outScale", -1.0)))
        , mInSize(static_cast<size_t>(elementSize(setup.inputTypes[0])))
        , mOutSize(static_cast<size_t>(elementSize(setup.outputTypes[0])))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        KILN_RETURN_IF_ERROR(ew::checkViewCounts(mSetup, inputs, outputs, 1, 1));
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        KILN_RETURN_IF_ERROR(ew::checkSameDims(mSetup, in.dims, out.dims, "input and output"));
        int64_t const n = in.volume();
#if KILN_HAVE_ONEDNN
        mReorder = OneDnnStep();
        if (prepareReorder(in, out))
        {
            mVolume = n;
            return Status::ok();
        }
#endif
        if (!mInLayout.linear)
        {
            storageIndices(mInLayout, in.dims, mInIndices);
            mLinearIn.resize(static_cast<size_t>(n) * mInSize);
        }
        if (!mOutLayout.linear)
        {
            storageIndices(mOutLayout, out.dims, mOutIndices);
            mLinearOut.resize(static_cast<size_t>(n) * mOutSize);
            std::vector<int64_t> const extents(out.dims.d, out.dims.d + out.dims.nbDims);
            mOutStorageBytes = formattedVolume(mOutFormat, extents) * static_cast<int64_t>(mOutSize);
        }
        mVolume = n;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mVolume < 0)
        {
            return notReshaped(mSetup, "Reformat");
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        int64_t const n = mVolume;
        if (n == 0)
        {
            return Status::ok();
        }
#if KILN_HAVE_ONEDNN
        if (mReorder)
        {
            try
            {
                mFrom.set_data_handle(in.data);
                mTo.set_data_handle(out.data);
                mReorder.execute(*mStream);
                mStream->wait();
                return Status::ok();
            }
            catch (dnnl::error const& err)
            {
                return failedExecution("layer '" + mSetup.node->name + "': oneDNN reorder failed: " + err.what());
            }
        }
#endif
        // 1. Source elements in logical (row-major) order.
        void const* src = in.data;
        if (!mInLayout.linear)
        {
            auto const* from = static_cast<uint8_t const*>(in.data);
            for (int64_t i = 0; i < n; ++i)
            {
                std::memcpy(&mLinearIn[static_cast<size_t>(i) * mInSize],
                    from + static_cast<size_t>(mInIndices[static_cast<size_t>(i)]) * mInSize, mInSize);
            }
            src = mLinearIn.data();
        }
        // 2. Type conversion (INT8 with a scale is quantized data).
        void* dst = mOutLayout.linear ? out.data : mLinearOut.data();
        bool const dequantize = in.type == DataType::kINT8 && mInScale > 0.F;
        bool const quantize = out.type == DataType::kINT8 && mOutScale > 0.F;
        if (dequantize || quantize)
        {
            for (int64_t i = 0; i < n; ++i)
            {
                double x = loadElement(src, in.type, i);
                if (dequantize)
                {
                    x = static_cast<double>(static_cast<float>(x) * mInScale);
                }
                if (quantize)
                {
                    float const q = std::nearbyint(static_cast<float>(x) / mOutScale);
                    x = std::clamp(q, -128.F, 127.F);
                }
                storeElement(dst, out.type, i, x);
            }
        }
        else
        {
            ew::convertElements(src, in.type, dst, out.type, n);
        }
        // 3. Destination layout, padding zero-filled.
        if (!mOutLayout.linear)
        {
            std::memset(out.data, 0, static_cast<size_t>(mOutStorageBytes));
            auto* to = static_cast<uint8_t*>(out.data);
            for (int64_t i = 0; i < n; ++i)
            {
                std::memcpy(to + static_cast<size_t>(mOutIndices[static_cast<size_t>(i)]) * mOutSize,
                    &mLinearOut[static_cast<size_t>(i) * mOutSize], mOutSize);
            }
        }
        return Status::ok();
    }

private:
#if KILN_HAVE_ONEDNN
    //! A oneDNN reorder for these shapes when both formats and the type have oneDNN descriptors; false otherwise.
    bool prepareReorder(TensorView const& in, TensorView const& out)
    {
        dnnl::memory::data_type const dt = oneDnnType(in.type);
        if (in.type != out.type || in.dims.nbDims != 4 || dt == dnnl::memory::data_type::undef
            || (in.type == DataType::kINT8 && (mInScale > 0.F || mOutScale > 0.F)) || in.volume() == 0)
        {
            return false;
        }
        std::vector<int64_t> const dims = dimsVector(in.dims);
        dnnl::memory::desc const from = oneDnnFormatDesc(dims, dt, mInFormat);
        dnnl::memory::desc const to = oneDnnFormatDesc(dims, dt, mOutFormat);
        if (from.is_zero() || to.is_zero())
        {
            return false;
        }
        try
        {
            dnnl::engine& eng = oneDnnEngine();
            if (!mStream)
            {
                mStream.emplace(eng);
            }
            mFrom = dnnl::memory(from, eng, nullptr);
            mTo = dnnl::memory(to, eng, nullptr);
            mReorder = OneDnnStep(dnnl::reorder(mFrom, mTo), {{DNNL_ARG_FROM, mFrom}, {DNNL_ARG_TO, mTo}});
            return true;
        }
        catch (dnnl::error const&)
        {
            return false;
        }
    }

    std::optional<dnnl::stream> mStream;
    dnnl::memory mFrom;
    dnnl::memory mTo;
    OneDnnStep mReorder; //!< set when the reshape's shapes run as a oneDNN reorder
#endif
    KernelSetup mSetup;
    FormatLayout mInLayout;
    FormatLayout mOutLayout;
    TensorFormat mInFormat;
    TensorFormat mOutFormat;
    float mInScale;
    float mOutScale;
    size_t mInSize;  //!< bytes per input element
    size_t mOutSize; //!< bytes per output element
    int64_t mVolume{-1}; //!< elements; -1 until a successful reshape
    int64_t mOutStorageBytes{0};
    std::vector<int64_t> mInIndices;  //!< storage index of each logical input element (non-linear input)
    std::vector<int64_t> mOutIndices; //!< storage index of each logical output element (non-linear output)
    std::vector<uint8_t> mLinearIn;
    std::vector<uint8_t> mLinearOut;
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createReformatKernel(KernelSetup const& setup)
{
    FormatLayout in;
    FormatLayout out;
    KILN_RETURN_IF_ERROR(readReformatSetup(setup, in, out));
    return std::unique_ptr<Kernel>(std::make_unique<ReformatKernel>(setup, in, out));
}

} // namespace kiln
