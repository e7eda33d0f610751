// kilnexec --checkPlugin: the plugin contract checker from the command line.
#include "checkPluginCommand.h"

#include "kiln/KilnPluginChecker.h"

#include <cstdio>
#include <memory>

namespace kilnexec
{

int runCheckPlugin(Options const& options, nvinfer1::ILogger& logger)
{
    kiln::PluginCheckRequest request;
    request.pluginName = options.pluginName.c_str();
    request.pluginVersion = options.pluginVersion.c_str();
    request.pluginNamespace = options.pluginNamespace.c_str();
    request.fields = options.pluginFields->collection();
    request.nbInputs = static_cast<int32_t>(options.pluginShapes.size());
    request.inputShapes = options.pluginShapes.data();
    if (!options.pluginTypes.empty())
    {
        if (options.pluginTypes.size() != options.pluginShapes.size())
        {
            std::fprintf(stderr, "kilnexec: --pluginTypes gives %zu types for %zu inputs (--pluginShapes)\n",
                options.pluginTypes.size(), options.pluginShapes.size());
            return 2;
        }
        request.inputTypes = options.pluginTypes.data();
    }
    if (!options.pluginAltShapes.empty())
    {
        if (options.pluginAltShapes.size() != options.pluginShapes.size())
        {
            std::fprintf(stderr, "kilnexec: --pluginAltShapes gives %zu shapes for %zu inputs (--pluginShapes)\n",
                options.pluginAltShapes.size(), options.pluginShapes.size());
            return 2;
        }
        request.alternativeInputShapes = options.pluginAltShapes.data();
    }
    request.nbShapeInputs = static_cast<int32_t>(options.pluginShapeValues.size());
    request.shapeInputValues = options.pluginShapeValues.data();
    request.nbRuns = options.pluginRuns;
    request.seed = options.pluginSeed;
    if (options.haveInputRange)
    {
        request.inputMin = options.inputMin;
        request.inputMax = options.inputMax;
    }

    std::unique_ptr<kiln::IPluginCheckReport> report(kiln::checkPlugin(*getPluginRegistry(), request, &logger));
    if (report == nullptr)
    {
        std::fprintf(stderr, "kilnexec: the plugin check could not run (out of memory)\n");
        return 2;
    }
    std::fputs(report->toText(), stdout);
    std::fflush(stdout);
    if (report->countFindings(kiln::PluginCheckRules::kBAD_REQUEST) > 0)
    {
        return 2;
    }
    return report->passed() ? 0 : 1;
}

} // namespace kilnexec
