// Building an engine from an ONNX model for kilnexec (--onnx): the parser (each IParserError printed with its
// node, op and description), the builder configuration from the precision/memory/plugin/backend flags, optimization
// profiles from the shape flags (trtexec's completion rules), the build with a progress monitor, --timingCacheFile and
// --noBuilderCache, --saveEngine.
#pragma once

#include "NvInfer.h"
#include "options.h"

#include <string>
#include <vector>

namespace kilnexec
{

//! Build the serialized engine for --onnx. Returns an exit code (kEXIT_PASSED on success, else kEXIT_FAILED or
//! kEXIT_USAGE) and sets `error` to a one-line reason when the failure has not been printed already.
int buildEngine(Options const& options, nvinfer1::ILogger& logger, std::vector<char>& plan, std::string& error);

} // namespace kilnexec
