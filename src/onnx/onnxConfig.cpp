// nvonnxparser::createONNXConfig (NvOnnxConfig.h): the parser library's IOnnxConfig, a holder of the settings that
// TensorRT's sample programs pass around (model file, model data type, verbosity, text dump names, layer info).
#include "NvOnnxConfig.h"

#include <algorithm>
#include <new>
#include <string>

namespace
{

using Severity = nvinfer1::ILogger::Severity;

constexpr int32_t kLEAST_VERBOSE = static_cast<int32_t>(Severity::kINTERNAL_ERROR);
constexpr int32_t kMOST_VERBOSE = static_cast<int32_t>(Severity::kVERBOSE);

//! Copies a C string that may be null (null reads as "").
void assign(std::string& target, char const* value) noexcept
{
    try
    {
        target = value == nullptr ? "" : value;
    }
    catch (...)
    {
        target.clear(); // out of memory: the name stays unset rather than half-copied
    }
}

class OnnxConfig final : public nvonnxparser::IOnnxConfig
{
public:
    void setModelDtype(const nvinfer1::DataType type) noexcept override { mModelType = type; }
    nvinfer1::DataType getModelDtype() const noexcept override { return mModelType; }
    char const* getModelFileName() const noexcept override { return mModelFile.c_str(); }
    void setModelFileName(char const* onnxFilename) noexcept override { assign(mModelFile, onnxFilename); }
    Verbosity getVerbosityLevel() const noexcept override { return mVerbosity; }
    // The level stays within ILogger::Severity's range, so that it can always be used as a severity.
    void addVerbosity() noexcept override { setVerbosityLevel(mVerbosity + 1); }
    void reduceVerbosity() noexcept override { setVerbosityLevel(mVerbosity - 1); }
    void setVerbosityLevel(Verbosity level) noexcept override
    {
        mVerbosity = std::clamp(level, kLEAST_VERBOSE, kMOST_VERBOSE);
    }
    char const* getTextFileName() const noexcept override { return mTextFile.c_str(); }
    void setTextFileName(char const* textFileName) noexcept override { assign(mTextFile, textFileName); }
    char const* getFullTextFileName() const noexcept override { return mFullTextFile.c_str(); }
    void setFullTextFileName(char const* fullTextFileName) noexcept override { assign(mFullTextFile, fullTextFileName); }
    bool getPrintLayerInfo() const noexcept override { return mPrintLayerInfo; }
    void setPrintLayerInfo(bool print) noexcept override { mPrintLayerInfo = print; }

private:
    nvinfer1::DataType mModelType{nvinfer1::DataType::kFLOAT};
    std::string mModelFile;
    Verbosity mVerbosity{static_cast<Verbosity>(Severity::kWARNING)};
    std::string mTextFile;
    std::string mFullTextFile;
    bool mPrintLayerInfo{false};
};

} // namespace

namespace nvonnxparser
{

IOnnxConfig* createONNXConfig()
{
    return new (std::nothrow) OnnxConfig();
}

} // namespace nvonnxparser
