// standardV3Base.cpp — field readers and logging shared by the IPluginV3 standard plugins (see standardV3Base.h).
#include "standardV3Base.h"
#include "standardPlugins.h"

namespace kiln::plugins
{

void logStandardPlugin(nvinfer1::ILogger::Severity severity, std::string const& message) noexcept
{
    if (nvinfer1::ILogger* logger = standardPluginLogger())
    {
        logger->log(severity, message.c_str());
    }
}

bool readIntField(nvinfer1::PluginField const& field, int32_t count, std::string const& who, std::vector<int32_t>& out)
{
    std::string const name = field.name == nullptr ? "" : field.name;
    if (field.type != nvinfer1::PluginFieldType::kINT32 || field.data == nullptr
        || (field.length != count && field.length != 1))
    {
        logStandardPlugin(nvinfer1::ILogger::Severity::kERROR,
            who + ": field '" + name + "' must be " + std::to_string(count) + " kINT32 value(s)");
        return false;
    }
    auto const* values = static_cast<int32_t const*>(field.data);
    out.assign(static_cast<size_t>(count), values[0]);
    for (int32_t i = 0; i < field.length; ++i)
    {
        out[static_cast<size_t>(i)] = values[i];
    }
    return true;
}

bool readFloatField(nvinfer1::PluginField const& field, std::string const& who, float& out)
{
    std::string const name = field.name == nullptr ? "" : field.name;
    if (field.type != nvinfer1::PluginFieldType::kFLOAT32 || field.data == nullptr || field.length != 1)
    {
        logStandardPlugin(
            nvinfer1::ILogger::Severity::kERROR, who + ": field '" + name + "' must be one kFLOAT32 value");
        return false;
    }
    out = *static_cast<float const*>(field.data);
    return true;
}

int64_t volumeOf(nvinfer1::Dims const& dims) noexcept
{
    int64_t v = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            return 0;
        }
        v *= dims.d[i];
    }
    return v;
}

} // namespace kiln::plugins
