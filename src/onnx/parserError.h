// ParserError: the parser's IParserError records (category, description, source location and the ONNX node), and
// the mapping from internal Status codes to nvonnxparser::ErrorCode.
#pragma once

#include "NvOnnxParser.h"
#include "core/status.h"

#include <string>

namespace kiln
{

class ParserError : public nvonnxparser::IParserError
{
public:
    ParserError(nvonnxparser::ErrorCode code, std::string desc, char const* file, int line, char const* func,
        int node = -1, std::string nodeName = "", std::string nodeOperator = "")
        : mCode(code)
        , mDesc(std::move(desc))
        , mFile(file)
        , mLine(line)
        , mFunc(func)
        , mNode(node)
        , mNodeName(std::move(nodeName))
        , mNodeOperator(std::move(nodeOperator))
    {
    }
    ~ParserError() override = default;

    nvonnxparser::ErrorCode code() const override { return mCode; }
    char const* desc() const override { return mDesc.c_str(); }
    char const* file() const override { return mFile.c_str(); }
    int line() const override { return mLine; }
    char const* func() const override { return mFunc.c_str(); }
    int node() const override { return mNode; }
    char const* nodeName() const override { return mNodeName.c_str(); }
    char const* nodeOperator() const override { return mNodeOperator.c_str(); }
    char const* const* localFunctionStack() const override { return nullptr; }
    int32_t localFunctionStackSize() const override { return 0; }

private:
    nvonnxparser::ErrorCode mCode;
    std::string mDesc;
    std::string mFile;
    int mLine;
    std::string mFunc;
    int mNode;
    std::string mNodeName;
    std::string mNodeOperator;
};

//! The parser error category of a failed importer Status: kUNSUPPORTED_STATE -> kUNSUPPORTED_NODE,
//! kINVALID_ARGUMENT -> kINVALID_NODE, kFAILED_ALLOCATION -> kMEM_ALLOC_FAILED, anything else -> kINTERNAL_ERROR.
nvonnxparser::ErrorCode nodeErrorCode(nvinfer1::ErrorCode code);

//! "kUNSUPPORTED_NODE", ... for messages and tests.
char const* parserErrorCodeName(nvonnxparser::ErrorCode code);

} // namespace kiln
