// Tensor formats: names, descriptions, vector widths and layouts (see tensorFormat.h).
#include "core/tensorFormat.h"

#include "core/dataType.h"

#include <algorithm>
#include <limits>

namespace kiln
{

using nvinfer1::TensorFormat;

char const* formatName(TensorFormat format)
{
    switch (format)
    {
    case TensorFormat::kLINEAR: return "kLINEAR";
    case TensorFormat::kCHW2: return "kCHW2";
    case TensorFormat::kHWC8: return "kHWC8";
    case TensorFormat::kCHW4: return "kCHW4";
    case TensorFormat::kCHW16: return "kCHW16";
    case TensorFormat::kCHW32: return "kCHW32";
    case TensorFormat::kDHWC8: return "kDHWC8";
    case TensorFormat::kCDHW32: return "kCDHW32";
    case TensorFormat::kHWC: return "kHWC";
    case TensorFormat::kDLA_LINEAR: return "kDLA_LINEAR";
    case TensorFormat::kDLA_HWC4: return "kDLA_HWC4";
    case TensorFormat::kHWC16: return "kHWC16";
    case TensorFormat::kDHWC: return "kDHWC";
    }
    return "kUNKNOWN";
}

int32_t formatComponents(TensorFormat format)
{
    switch (format)
    {
    case TensorFormat::kCHW2: return 2;
    case TensorFormat::kCHW4:
    case TensorFormat::kDLA_HWC4: return 4;
    case TensorFormat::kHWC8:
    case TensorFormat::kDHWC8: return 8;
    case TensorFormat::kCHW16:
    case TensorFormat::kHWC16: return 16;
    case TensorFormat::kCHW32:
    case TensorFormat::kCDHW32: return 32;
    case TensorFormat::kLINEAR:
    case TensorFormat::kHWC:
    case TensorFormat::kDLA_LINEAR:
    case TensorFormat::kDHWC: return 1;
    }
    return 1;
}

int32_t formatVectorizedDim(TensorFormat format, int32_t rank)
{
    switch (format)
    {
    case TensorFormat::kCHW2:
    case TensorFormat::kCHW4:
    case TensorFormat::kCHW16:
    case TensorFormat::kCHW32:
    case TensorFormat::kHWC8:
    case TensorFormat::kHWC16:
    case TensorFormat::kDLA_HWC4: return rank >= 3 ? rank - 3 : -1;
    case TensorFormat::kDHWC8:
    case TensorFormat::kCDHW32: return rank >= 4 ? rank - 4 : -1;
    case TensorFormat::kLINEAR:
    case TensorFormat::kHWC:
    case TensorFormat::kDLA_LINEAR:
    case TensorFormat::kDHWC: return -1;
    }
    return -1;
}

std::string formatDescription(TensorFormat format, nvinfer1::DataType type)
{
    std::string const t = dataTypeName(type);
    std::string text;
    switch (format)
    {
    case TensorFormat::kLINEAR: text = "Row major linear " + t + " format"; break;
    case TensorFormat::kCHW2: text = "Two wide channel vectorized row major " + t + " format"; break;
    case TensorFormat::kCHW4: text = "Four wide channel vectorized row major " + t + " format"; break;
    case TensorFormat::kCHW16: text = "Sixteen wide channel vectorized row major " + t + " format"; break;
    case TensorFormat::kCHW32:
    case TensorFormat::kCDHW32: text = "Thirty-two wide channel vectorized row major " + t + " format"; break;
    case TensorFormat::kHWC8:
    case TensorFormat::kDHWC8: text = "Channel major " + t + " format where channel % 8 == 0"; break;
    case TensorFormat::kHWC16: text = "Channel major " + t + " format where channel % 16 == 0"; break;
    case TensorFormat::kHWC:
    case TensorFormat::kDHWC: text = "Channel major " + t + " format"; break;
    case TensorFormat::kDLA_LINEAR: text = "DLA row major " + t + " format"; break;
    case TensorFormat::kDLA_HWC4: text = "DLA channel major " + t + " format"; break;
    }
    return text + " (" + formatName(format) + ")";
}

bool formatLayout(TensorFormat format, int32_t rank, FormatLayout& layout)
{
    layout = FormatLayout{};
    switch (format)
    {
    case TensorFormat::kLINEAR: return true;
    case TensorFormat::kHWC:
    case TensorFormat::kDHWC:
    {
        int32_t const minRank = format == TensorFormat::kHWC ? 3 : 4;
        if (rank < minRank)
        {
            return false;
        }
        layout.linear = false;
        layout.channelDim = rank - minRank;
        layout.vector = 1;
        layout.channelLast = true;
        return true;
    }
    case TensorFormat::kCHW2:
    case TensorFormat::kCHW4:
    case TensorFormat::kCHW16:
    case TensorFormat::kCHW32:
    case TensorFormat::kCDHW32:
    case TensorFormat::kHWC8:
    case TensorFormat::kHWC16:
    case TensorFormat::kDHWC8:
    {
        int32_t const dim = formatVectorizedDim(format, rank);
        if (dim < 0)
        {
            return false;
        }
        layout.linear = false;
        layout.channelDim = dim;
        layout.vector = formatComponents(format);
        layout.channelLast = format == TensorFormat::kHWC8 || format == TensorFormat::kHWC16
            || format == TensorFormat::kDHWC8;
        return true;
    }
    case TensorFormat::kDLA_LINEAR:
    case TensorFormat::kDLA_HWC4: return false;
    }
    return false;
}

int64_t formattedVolume(TensorFormat format, std::vector<int64_t> const& dims)
{
    FormatLayout layout;
    bool const known = formatLayout(format, static_cast<int32_t>(dims.size()), layout);
    if (std::find(dims.begin(), dims.end(), 0) != dims.end())
    {
        return 0; // empty, whatever the other extents (their product alone may not fit)
    }
    int64_t volume = 1;
    for (size_t i = 0; i < dims.size(); ++i)
    {
        int64_t d = dims[i];
        if (known && !layout.linear && static_cast<int32_t>(i) == layout.channelDim)
        {
            d = (d + layout.vector - 1) / layout.vector * layout.vector;
        }
        if (__builtin_mul_overflow(volume, d, &volume))
        {
            return -1;
        }
    }
    return volume;
}

int64_t formattedBytes(nvinfer1::DataType type, TensorFormat format, std::vector<int64_t> const& dims)
{
    int64_t const volume = formattedVolume(format, dims);
    return volume < 0 || volume > std::numeric_limits<int64_t>::max() / 8 ? -1 : byteSize(type, volume);
}

} // namespace kiln
