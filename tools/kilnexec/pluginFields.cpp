// PluginFieldSet and the small text parsers kilnexec shares (dims, lists).
#include "pluginFields.h"

#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace kilnexec
{
namespace
{

bool parseInteger(std::string const& text, int64_t lo, int64_t hi, int64_t& value)
{
    if (text.empty())
    {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end != text.c_str() + text.size() || v < lo || v > hi)
    {
        return false;
    }
    value = v;
    return true;
}

bool parseReal(std::string const& text, double& value)
{
    if (text.empty())
    {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    value = std::strtod(text.c_str(), &end);
    return errno == 0 && end == text.c_str() + text.size();
}

//! IEEE binary16 from float (round to nearest even), without depending on Kiln internals.
uint16_t toHalf(float f)
{
    uint32_t x = 0;
    std::memcpy(&x, &f, 4);
    uint32_t const sign = (x >> 16) & 0x8000U;
    int32_t exponent = static_cast<int32_t>((x >> 23) & 0xFFU) - 127 + 15;
    uint32_t mantissa = x & 0x7FFFFFU;
    if (((x >> 23) & 0xFFU) == 0xFFU)
    {
        return static_cast<uint16_t>(sign | 0x7C00U | (mantissa != 0 ? 0x200U : 0U));
    }
    if (exponent >= 31)
    {
        return static_cast<uint16_t>(sign | 0x7C00U);
    }
    if (exponent <= 0)
    {
        if (exponent < -10)
        {
            return static_cast<uint16_t>(sign);
        }
        mantissa |= 0x800000U;
        uint32_t const shift = static_cast<uint32_t>(14 - exponent);
        uint32_t half = mantissa >> shift;
        uint32_t const rest = mantissa & ((1U << shift) - 1U);
        uint32_t const midpoint = 1U << (shift - 1U);
        if (rest > midpoint || (rest == midpoint && (half & 1U) != 0))
        {
            ++half;
        }
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
    uint32_t const rest = mantissa & 0x1FFFU;
    if (rest > 0x1000U || (rest == 0x1000U && (half & 1U) != 0))
    {
        ++half;
    }
    return static_cast<uint16_t>(half);
}

uint16_t toBf16(float f)
{
    uint32_t x = 0;
    std::memcpy(&x, &f, 4);
    if (std::isnan(f))
    {
        return static_cast<uint16_t>((x >> 16) | 0x40U);
    }
    x += 0x7FFFU + ((x >> 16) & 1U);
    return static_cast<uint16_t>(x >> 16);
}

template <typename T>
void append(std::vector<uint8_t>& bytes, T value)
{
    uint8_t raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    bytes.insert(bytes.end(), raw, raw + sizeof(T));
}

} // namespace

std::vector<std::string> splitText(std::string const& text, char separator)
{
    std::vector<std::string> items;
    if (text.empty())
    {
        return items;
    }
    size_t start = 0;
    while (true)
    {
        size_t at = text.find(separator, start);
        items.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos)
        {
            return items;
        }
        start = at + 1;
    }
}

bool parseDims(std::string const& text, nvinfer1::Dims& dims)
{
    dims = nvinfer1::Dims{};
    if (text == "scalar")
    {
        dims.nbDims = 0;
        return true;
    }
    std::vector<std::string> parts = splitText(text, 'x');
    if (parts.empty() || parts.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        return false;
    }
    dims.nbDims = static_cast<int32_t>(parts.size());
    for (size_t i = 0; i < parts.size(); ++i)
    {
        int64_t v = 0;
        if (!parseInteger(parts[i], 0, std::numeric_limits<int64_t>::max(), v))
        {
            return false;
        }
        dims.d[i] = v;
    }
    return true;
}

bool PluginFieldSet::add(std::string const& spec, std::string& error)
{
    size_t const first = spec.find(':');
    size_t const second = first == std::string::npos ? std::string::npos : spec.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos || first == 0)
    {
        error = "--pluginField=" + spec + ": expected name:type:value[,value...]";
        return false;
    }
    std::string const name = spec.substr(0, first);
    std::string const type = spec.substr(first + 1, second - first - 1);
    std::string const values = spec.substr(second + 1);
    std::vector<uint8_t> bytes;
    int32_t length = 0;
    nvinfer1::PluginFieldType fieldType{};
    auto bad = [&](std::string const& value) {
        error = "--pluginField=" + spec + ": '" + value + "' is not a valid " + type + " value";
        return false;
    };

    if (type == "char" || type == "string")
    {
        fieldType = nvinfer1::PluginFieldType::kCHAR;
        bytes.assign(values.begin(), values.end());
        length = static_cast<int32_t>(values.size());
        bytes.push_back(0); // NUL-terminated for plugins that read it as a C string; length excludes it
    }
    else
    {
        std::vector<std::string> items = splitText(values, ',');
        if (items.empty())
        {
            error = "--pluginField=" + spec + ": no values";
            return false;
        }
        length = static_cast<int32_t>(items.size());
        for (std::string const& item : items)
        {
            int64_t i = 0;
            double r = 0.0;
            if (type == "float32" || type == "fp32")
            {
                fieldType = nvinfer1::PluginFieldType::kFLOAT32;
                if (!parseReal(item, r))
                {
                    return bad(item);
                }
                append(bytes, static_cast<float>(r));
            }
            else if (type == "float16" || type == "fp16" || type == "half")
            {
                fieldType = nvinfer1::PluginFieldType::kFLOAT16;
                if (!parseReal(item, r))
                {
                    return bad(item);
                }
                append(bytes, toHalf(static_cast<float>(r)));
            }
            else if (type == "bf16")
            {
                fieldType = nvinfer1::PluginFieldType::kBF16;
                if (!parseReal(item, r))
                {
                    return bad(item);
                }
                append(bytes, toBf16(static_cast<float>(r)));
            }
            else if (type == "float64" || type == "fp64")
            {
                fieldType = nvinfer1::PluginFieldType::kFLOAT64;
                if (!parseReal(item, r))
                {
                    return bad(item);
                }
                append(bytes, r);
            }
            else if (type == "int8")
            {
                fieldType = nvinfer1::PluginFieldType::kINT8;
                if (!parseInteger(item, INT8_MIN, INT8_MAX, i))
                {
                    return bad(item);
                }
                append(bytes, static_cast<int8_t>(i));
            }
            else if (type == "int16")
            {
                fieldType = nvinfer1::PluginFieldType::kINT16;
                if (!parseInteger(item, INT16_MIN, INT16_MAX, i))
                {
                    return bad(item);
                }
                append(bytes, static_cast<int16_t>(i));
            }
            else if (type == "int32")
            {
                fieldType = nvinfer1::PluginFieldType::kINT32;
                if (!parseInteger(item, INT32_MIN, INT32_MAX, i))
                {
                    return bad(item);
                }
                append(bytes, static_cast<int32_t>(i));
            }
            else if (type == "int64")
            {
                fieldType = nvinfer1::PluginFieldType::kINT64;
                if (!parseInteger(item, INT64_MIN, INT64_MAX, i))
                {
                    return bad(item);
                }
                append(bytes, static_cast<int64_t>(i));
            }
            else if (type == "dims")
            {
                fieldType = nvinfer1::PluginFieldType::kDIMS;
                nvinfer1::Dims dims{};
                if (!parseDims(item, dims))
                {
                    return bad(item);
                }
                append(bytes, dims);
            }
            else
            {
                error = "--pluginField=" + spec + ": unknown type '" + type
                    + "' (use float32, float16, bf16, float64, int8, int16, int32, int64, char or dims)";
                return false;
            }
        }
    }
    mNames.push_back(name);
    mData.push_back(std::move(bytes));
    mTypes.push_back(fieldType);
    mLengths.push_back(length);
    return true;
}

nvinfer1::PluginFieldCollection const* PluginFieldSet::collection()
{
    mFields.clear();
    for (size_t i = 0; i < mNames.size(); ++i)
    {
        mFields.emplace_back(mNames[i].c_str(), mData[i].data(), mTypes[i], mLengths[i]);
    }
    mCollection.nbFields = static_cast<int32_t>(mFields.size());
    mCollection.fields = mFields.empty() ? nullptr : mFields.data();
    return &mCollection;
}

} // namespace kilnexec
