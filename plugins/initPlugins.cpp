// initLibNvInferPlugins(): entry point of Kiln's standard plugin library. It registers the bundled plugin
// creators with the global registry; no standard plugins are bundled yet, so it only records the logger.
#include "NvInferPlugin.h"
#include "standardPlugins.h"

#include <atomic>
#include <string>

namespace kiln::plugins
{
namespace
{
std::atomic<nvinfer1::ILogger*> gStandardPluginLogger{nullptr};
} // namespace

nvinfer1::ILogger* standardPluginLogger() noexcept
{
    return gStandardPluginLogger.load();
}

} // namespace kiln::plugins

extern "C" bool initLibNvInferPlugins(void* logger, char const* libNamespace)
{
    try
    {
        auto* userLogger = static_cast<nvinfer1::ILogger*>(logger);
        kiln::plugins::gStandardPluginLogger.store(userLogger);
        if (userLogger != nullptr)
        {
            std::string const nspace = libNamespace == nullptr ? "" : libNamespace;
            std::string const message = "initLibNvInferPlugins: Kiln's standard plugin library bundles no plugins "
                                        "yet; nothing was registered (namespace '"
                + nspace + "')";
            userLogger->log(nvinfer1::ILogger::Severity::kINFO, message.c_str());
        }
        return true;
    }
    catch (...)
    {
        // Nothing may escape into the application; the only thing that can throw here is the message string.
        return false;
    }
}
