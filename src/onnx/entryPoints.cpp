// The extern "C" entry points of the ONNX parser library: createNvOnnxParser_INTERNAL (behind the inline
// nvonnxparser::createParser), createNvOnnxParserRefitter_INTERNAL and getNvOnnxParserVersion.
#include "NvOnnxParser.h"
#include "onnx/parser.h"
#include "onnx/parserError.h"

#include <memory>
#include <string>
#include <vector>

namespace
{

void logError(nvinfer1::ILogger* logger, std::string const& message) noexcept
{
    if (logger == nullptr)
    {
        return;
    }
    try
    {
        logger->log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
    }
    catch (...)
    {
    }
}

char const* const kRefitMessage = "refit is not supported by Kiln yet";

//! A refitter whose every call fails: Kiln engines are not refittable yet.
class UnsupportedRefitter : public nvonnxparser::IParserRefitter
{
public:
    explicit UnsupportedRefitter(nvinfer1::ILogger* logger)
        : mLogger(logger)
    {
    }

    bool refitFromBytes(void const*, size_t, char const*) noexcept override { return fail("refitFromBytes"); }
    bool refitFromFile(char const*) noexcept override { return fail("refitFromFile"); }
    int32_t getNbErrors() const noexcept override { return static_cast<int32_t>(mErrors.size()); }
    nvonnxparser::IParserError const* getError(int32_t index) const noexcept override
    {
        return index >= 0 && index < getNbErrors() ? mErrors[static_cast<size_t>(index)].get() : nullptr;
    }
    void clearErrors() override { mErrors.clear(); }
    bool loadModelProto(void const*, size_t, char const*) noexcept override { return fail("loadModelProto"); }
    bool loadInitializer(char const*, void const*, size_t) noexcept override { return fail("loadInitializer"); }
    bool refitModelProto() noexcept override { return fail("refitModelProto"); }

private:
    bool fail(char const* func) noexcept
    {
        try
        {
            std::string const message = std::string("IParserRefitter::") + func + ": " + kRefitMessage;
            logError(mLogger, message);
            mErrors.push_back(std::make_unique<kiln::ParserError>(
                nvonnxparser::ErrorCode::kREFIT_FAILED, message, __FILE__, __LINE__, func));
        }
        catch (...)
        {
        }
        return false;
    }

    nvinfer1::ILogger* mLogger;
    std::vector<std::unique_ptr<kiln::ParserError>> mErrors;
};

bool compatibleVersion(int version)
{
    return version / 10000 == NV_ONNX_PARSER_MAJOR;
}

} // namespace

extern "C" TENSORRTAPI void* createNvOnnxParser_INTERNAL(void* network, void* logger, int version) noexcept
{
    auto* userLogger = static_cast<nvinfer1::ILogger*>(logger);
    if (network == nullptr)
    {
        logError(userLogger, "createParser: the network is null");
        return nullptr;
    }
    if (!compatibleVersion(version))
    {
        logError(userLogger, "createParser: the application was compiled against ONNX parser API "
                + std::to_string(version) + ", but this Kiln implements " + std::to_string(NV_ONNX_PARSER_VERSION));
        return nullptr;
    }
    try
    {
        return static_cast<nvonnxparser::IParser*>(
            new kiln::Parser(*static_cast<nvinfer1::INetworkDefinition*>(network), userLogger));
    }
    catch (...)
    {
        logError(userLogger, "createParser: out of memory");
        return nullptr;
    }
}

extern "C" TENSORRTAPI void* createNvOnnxParserRefitter_INTERNAL(
    void* /*refitter*/, void* logger, int32_t /*version*/) noexcept
{
    try
    {
        return static_cast<nvonnxparser::IParserRefitter*>(
            new UnsupportedRefitter(static_cast<nvinfer1::ILogger*>(logger)));
    }
    catch (...)
    {
        return nullptr;
    }
}

extern "C" TENSORRTAPI int getNvOnnxParserVersion() noexcept
{
    return NV_ONNX_PARSER_VERSION;
}
