// PluginFieldSet: the plugin fields given on the command line with --pluginField=name:type:v1,v2,..., parsed into
// an owned nvinfer1::PluginFieldCollection for createPlugin().
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace kilnexec
{

class PluginFieldSet
{
public:
    //! Parse one "name:type:values" spec and append it. Types: float32 (fp32), float16 (fp16), bf16, float64
    //! (fp64), int8, int16, int32, int64, char (string; the rest of the spec verbatim, commas included) and dims
    //! (each value "AxBxC", "scalar" for rank 0). Returns false and sets `error` on bad syntax.
    bool add(std::string const& spec, std::string& error);

    nvinfer1::PluginFieldCollection const* collection();
    int32_t size() const { return static_cast<int32_t>(mNames.size()); }

private:
    std::deque<std::string> mNames;
    std::deque<std::vector<uint8_t>> mData;
    std::vector<nvinfer1::PluginFieldType> mTypes;
    std::vector<int32_t> mLengths;
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

//! Parse "AxBxC" ("scalar" for rank 0) into Dims; false when malformed or negative.
bool parseDims(std::string const& text, nvinfer1::Dims& dims);

//! Split on `separator` (an empty text gives no items).
std::vector<std::string> splitText(std::string const& text, char separator);

} // namespace kilnexec
