// kilnexec: Kiln's trtexec-style command-line tool. Today it loads plugin libraries and runs the plugin contract
// checker (--checkPlugin); building, saving, loading and running engines arrive with the trtexec-flags issue.
#include "checkPluginCommand.h"
#include "consoleLogger.h"
#include "isolation.h"
#include "options.h"
#include "pluginLibraries.h"

#include <cstdio>
#include <string>

int main(int argc, char** argv)
{
    kilnexec::Options options;
    std::string error;
    if (!kilnexec::parseOptions(argc, argv, options, error))
    {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 2;
    }
    if (options.help)
    {
        std::fputs(kilnexec::usageText().c_str(), stdout);
        return 0;
    }
    if (!options.checkPlugin)
    {
        std::fprintf(stderr,
            "kilnexec: nothing to do; only --checkPlugin is implemented so far (building and running engines "
            "arrive with the trtexec-flags issue). See --help.\n");
        return 2;
    }
    kilnexec::ConsoleLogger logger(
        options.verbose ? nvinfer1::ILogger::Severity::kVERBOSE : nvinfer1::ILogger::Severity::kWARNING);
    if (!kilnexec::loadPlugins(options, logger, error))
    {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 2;
    }
    auto check = [&options](nvinfer1::ILogger& checkLogger) { return kilnexec::runCheckPlugin(options, checkLogger); };
    return options.isolate ? kilnexec::runIsolated(logger, check) : check(logger);
}
