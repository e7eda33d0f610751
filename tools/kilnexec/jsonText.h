// Small text helpers for kilnexec's JSON exports (--exportOutput, --exportTimes, --exportProfile,
// --exportLayerInfo): string escaping, number formatting and writing a file with a one-line error.
#pragma once

#include "NvInferRuntime.h"

#include <string>

namespace kilnexec
{

//! A JSON string literal.
std::string jsonString(std::string const& text);

//! A JSON number: integers exactly, reals with 9 significant digits (float round trip); NaN and infinities, which
//! JSON cannot hold, as the strings "NaN", "Infinity" and "-Infinity".
std::string jsonNumber(double value, nvinfer1::DataType type = nvinfer1::DataType::kFLOAT);

//! The same number for console output (NaN/inf unquoted).
std::string numberText(double value, nvinfer1::DataType type = nvinfer1::DataType::kFLOAT);

//! Write `text` to `path`; false with "kilnexec: <flag>: cannot write '<path>': <reason>".
bool writeTextFile(std::string const& path, std::string const& text, char const* flag, std::string& error);

} // namespace kilnexec
