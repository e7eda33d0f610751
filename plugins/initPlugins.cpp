// initLibNvInferPlugins(): entry point of Kiln's standard plugin library. It registers the bundled plugin
// creators (LReLU_TRT, plugins/leakyRelu/; ROIAlign_TRT, plugins/roiAlign/; ModulatedDeformConv2d,
// plugins/modulatedDeformConv/) with the global registry under the given namespace and keeps the
// logger, through which the plugins report field problems.
#include "NvInferPlugin.h"
#include "leakyRelu/leakyReluPlugin.h"
#include "modulatedDeformConv/modulatedDeformConvPlugin.h"
#include "roiAlign/roiAlignPlugin.h"
#include "standardPlugins.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::plugins
{
namespace
{
std::atomic<nvinfer1::ILogger*> gStandardPluginLogger{nullptr};

//! One creator per namespace: a creator reports one namespace, and initLibNvInferPlugins may be called with several.
struct StandardCreators
{
    std::mutex mutex;
    std::map<std::string, std::unique_ptr<LeakyReluPluginCreator>> leakyRelu;
    //! The IPluginV3 creators, per namespace; kept even when a later registration fails (the registry holds them).
    std::vector<std::unique_ptr<nvinfer1::IPluginCreatorInterface>> v3Creators;
};

StandardCreators& standardCreators()
{
    static StandardCreators* creators = new StandardCreators(); // never destroyed: the registry may outlive statics
    return *creators;
}

void logThrough(nvinfer1::ILogger* logger, nvinfer1::ILogger::Severity severity, std::string const& message)
{
    if (logger != nullptr)
    {
        logger->log(severity, message.c_str());
    }
}
} // namespace

nvinfer1::ILogger* standardPluginLogger() noexcept
{
    return gStandardPluginLogger.load();
}

} // namespace kiln::plugins

extern "C" bool initLibNvInferPlugins(void* logger, char const* libNamespace)
{
    using kiln::plugins::LeakyReluPluginCreator;
    try
    {
        auto* userLogger = static_cast<nvinfer1::ILogger*>(logger);
        if (userLogger != nullptr)
        {
            kiln::plugins::gStandardPluginLogger.store(userLogger);
        }
        std::string const nspace = libNamespace == nullptr ? "" : libNamespace;
        auto& creators = kiln::plugins::standardCreators();
        std::lock_guard<std::mutex> lock(creators.mutex);
        if (creators.leakyRelu.count(nspace) != 0)
        {
            // Already registered under this namespace: like TensorRT, a second call succeeds quietly.
            return true;
        }
        auto creator = std::make_unique<LeakyReluPluginCreator>();
        creator->setPluginNamespace(nspace.c_str());
        nvinfer1::IPluginRegistry* registry = getPluginRegistry();
        if (registry == nullptr || !registry->registerCreator(*creator, nspace.c_str()))
        {
            kiln::plugins::logThrough(userLogger, nvinfer1::ILogger::Severity::kERROR,
                "initLibNvInferPlugins: could not register plugin 'LReLU_TRT' (version '1') under namespace '"
                    + nspace + "'");
            return false;
        }
        creators.leakyRelu.emplace(nspace, std::move(creator));
        kiln::plugins::logThrough(userLogger, nvinfer1::ILogger::Severity::kVERBOSE,
            "initLibNvInferPlugins: registered LReLU_TRT (version '1') under namespace '" + nspace + "'");
        std::unique_ptr<nvinfer1::IPluginCreatorInterface> v3[] = {
            std::make_unique<kiln::plugins::RoiAlignPluginCreator>(nspace),
            std::make_unique<kiln::plugins::ModulatedDeformConvPluginCreator>(nspace)};
        char const* const v3Names[] = {"ROIAlign_TRT", "ModulatedDeformConv2d"};
        bool allRegistered = true;
        for (size_t i = 0; i < 2; ++i)
        {
            if (!registry->registerCreator(*v3[i], nspace.c_str()))
            {
                kiln::plugins::logThrough(userLogger, nvinfer1::ILogger::Severity::kERROR,
                    std::string("initLibNvInferPlugins: could not register plugin '") + v3Names[i]
                        + "' (version '2') under namespace '" + nspace + "'");
                allRegistered = false;
                continue;
            }
            creators.v3Creators.push_back(std::move(v3[i]));
            kiln::plugins::logThrough(userLogger, nvinfer1::ILogger::Severity::kVERBOSE,
                std::string("initLibNvInferPlugins: registered ") + v3Names[i] + " (version '2') under namespace '"
                    + nspace + "'");
        }
        if (!allRegistered)
        {
            return false;
        }
        return true;
    }
    catch (...)
    {
        // Nothing may escape into the application.
        return false;
    }
}
