// Reformat kernel (identity nodes with "reformat" = 1) and the tensor format layouts: see identityReformat.h.
#include "backends/cpu/kernels/identityReformat.h"

#include "backends/cpu/kernels/elementWiseCommon.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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

class ReformatKernel final : public CpuKernel
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
    {
    }

    Status execute(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        KILN_RETURN_IF_ERROR(ew::checkViews(mSetup, inputs, outputs, 1, 1));
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        KILN_RETURN_IF_ERROR(ew::checkSameDims(mSetup, in.dims, out.dims, "input and output"));
        int64_t const n = in.volume();
        if (n == 0)
        {
            return Status::ok();
        }
        size_t const inSize = static_cast<size_t>(elementSize(in.type));
        size_t const outSize = static_cast<size_t>(elementSize(out.type));
        // 1. Source elements in logical (row-major) order.
        void const* src = in.data;
        if (!mInLayout.linear)
        {
            storageIndices(mInLayout, in.dims, mIndices);
            mLinearIn.resize(static_cast<size_t>(n) * inSize);
            auto const* from = static_cast<uint8_t const*>(in.data);
            for (int64_t i = 0; i < n; ++i)
            {
                std::memcpy(&mLinearIn[static_cast<size_t>(i) * inSize],
                    from + static_cast<size_t>(mIndices[static_cast<size_t>(i)]) * inSize, inSize);
            }
            src = mLinearIn.data();
        }
        // 2. Type conversion (INT8 with a scale is quantized data).
        void* dst = out.data;
        if (!mOutLayout.linear)
        {
            mLinearOut.resize(static_cast<size_t>(n) * outSize);
            dst = mLinearOut.data();
        }
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
            std::vector<int64_t> extents(static_cast<size_t>(out.dims.nbDims));
            for (int32_t i = 0; i < out.dims.nbDims; ++i)
            {
                extents[static_cast<size_t>(i)] = out.dims.d[i];
            }
            std::memset(out.data, 0, static_cast<size_t>(formattedVolume(mOutFormat, extents)) * outSize);
            storageIndices(mOutLayout, out.dims, mIndices);
            auto* to = static_cast<uint8_t*>(out.data);
            for (int64_t i = 0; i < n; ++i)
            {
                std::memcpy(to + static_cast<size_t>(mIndices[static_cast<size_t>(i)]) * outSize,
                    &mLinearOut[static_cast<size_t>(i) * outSize], outSize);
            }
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    FormatLayout mInLayout;
    FormatLayout mOutLayout;
    TensorFormat mInFormat;
    TensorFormat mOutFormat;
    float mInScale;
    float mOutScale;
    std::vector<int64_t> mIndices;
    std::vector<uint8_t> mLinearIn;
    std::vector<uint8_t> mLinearOut;
};

} // namespace

Status readReformatSetup(KernelSetup const& setup, FormatLayout& in, FormatLayout& out)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Reformat"));
    std::string const name = "reformat node '" + setup.node->name + "'";
    if (!ew::isKernelType(setup.inputTypes[0]) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(name + ": cannot convert " + dataTypeName(setup.inputTypes[0]) + " to "
            + dataTypeName(setup.outputTypes[0]));
    }
    Attributes const& attrs = setup.node->attrs;
    auto const inFormat = static_cast<TensorFormat>(attrs.getInt("inFormat", 0));
    auto const outFormat = static_cast<TensorFormat>(attrs.getInt("outFormat", 0));
    if (!formatLayout(inFormat, setup.inputRanks[0], in) || !formatLayout(outFormat, setup.outputRanks[0], out))
    {
        return invalidArgument(name + ": cannot convert format " + formatName(inFormat) + " to "
            + formatName(outFormat) + " for a tensor of rank " + std::to_string(setup.inputRanks[0]));
    }
    return Status::ok();
}

StatusOr<std::unique_ptr<CpuKernel>> createReformatKernel(KernelSetup const& setup)
{
    FormatLayout in;
    FormatLayout out;
    KILN_RETURN_IF_ERROR(readReformatSetup(setup, in, out));
    return std::unique_ptr<CpuKernel>(std::make_unique<ReformatKernel>(setup, in, out));
}

} // namespace kiln
