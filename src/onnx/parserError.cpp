// Status code -> parser ErrorCode mapping and error code names.
#include "onnx/parserError.h"

namespace kiln
{

nvonnxparser::ErrorCode nodeErrorCode(nvinfer1::ErrorCode code)
{
    switch (code)
    {
    case nvinfer1::ErrorCode::kUNSUPPORTED_STATE: return nvonnxparser::ErrorCode::kUNSUPPORTED_NODE;
    case nvinfer1::ErrorCode::kINVALID_ARGUMENT: return nvonnxparser::ErrorCode::kINVALID_NODE;
    case nvinfer1::ErrorCode::kFAILED_ALLOCATION: return nvonnxparser::ErrorCode::kMEM_ALLOC_FAILED;
    default: return nvonnxparser::ErrorCode::kINTERNAL_ERROR;
    }
}

char const* parserErrorCodeName(nvonnxparser::ErrorCode code)
{
    switch (code)
    {
    case nvonnxparser::ErrorCode::kSUCCESS: return "kSUCCESS";
    case nvonnxparser::ErrorCode::kINTERNAL_ERROR: return "kINTERNAL_ERROR";
    case nvonnxparser::ErrorCode::kMEM_ALLOC_FAILED: return "kMEM_ALLOC_FAILED";
    case nvonnxparser::ErrorCode::kMODEL_DESERIALIZE_FAILED: return "kMODEL_DESERIALIZE_FAILED";
    case nvonnxparser::ErrorCode::kINVALID_VALUE: return "kINVALID_VALUE";
    case nvonnxparser::ErrorCode::kINVALID_GRAPH: return "kINVALID_GRAPH";
    case nvonnxparser::ErrorCode::kINVALID_NODE: return "kINVALID_NODE";
    case nvonnxparser::ErrorCode::kUNSUPPORTED_GRAPH: return "kUNSUPPORTED_GRAPH";
    case nvonnxparser::ErrorCode::kUNSUPPORTED_NODE: return "kUNSUPPORTED_NODE";
    case nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_ATTR: return "kUNSUPPORTED_NODE_ATTR";
    case nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_INPUT: return "kUNSUPPORTED_NODE_INPUT";
    case nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_DATATYPE: return "kUNSUPPORTED_NODE_DATATYPE";
    case nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_DYNAMIC: return "kUNSUPPORTED_NODE_DYNAMIC";
    case nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_SHAPE: return "kUNSUPPORTED_NODE_SHAPE";
    case nvonnxparser::ErrorCode::kREFIT_FAILED: return "kREFIT_FAILED";
    }
    return "<unknown>";
}

} // namespace kiln
