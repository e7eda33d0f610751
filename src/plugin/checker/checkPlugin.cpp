// kiln::checkPlugin: the public entry point of the plugin contract checker (include/kiln/KilnPluginChecker.h).
#include "kiln/KilnPluginChecker.h"

#include "core/logging.h"
#include "plugin/checker/checkReport.h"
#include "plugin/checker/pluginChecker.h"

#include <memory>
#include <new>

namespace kiln
{

IPluginCheckReport* checkPlugin(
    nvinfer1::IPluginRegistry& registry, PluginCheckRequest const& request, nvinfer1::ILogger* logger) noexcept
{
    try
    {
        Logger log(logger);
        auto report = std::make_unique<checker::CheckReport>();
        {
            // The checker (and every plugin object it created) is gone before the report is finalized.
            checker::PluginChecker walk(registry, request, log, *report);
            walk.run();
        }
        report->finalize(log);
        return report.release();
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln
