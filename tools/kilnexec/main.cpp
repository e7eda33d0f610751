// kilnexec: Kiln's trtexec-style command-line tool. It builds engines from ONNX models (--onnx), saves and loads
// them, runs and times them with trtexec's report, profiles per layer, loads plugin libraries, and runs the plugin
// contract checker (--checkPlugin). Exit codes: see ExitCode in options.h and docs/kilnexec.md.
#include "checkPluginCommand.h"
#include "consoleLogger.h"
#include "engineCommand.h"
#include "isolation.h"
#include "options.h"
#include "pluginLibraries.h"

#include <cstdio>
#include <string>

int main(int argc, char** argv)
{
    // Line-buffered stdout keeps the report and the logger's stderr lines in order when both go to one pipe.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    kilnexec::Options options;
    std::string error;
    if (!kilnexec::parseOptions(argc, argv, options, error))
    {
        std::fprintf(stderr, "%s\n", error.c_str());
        return kilnexec::kEXIT_USAGE;
    }
    if (options.help)
    {
        std::fputs(kilnexec::usageText().c_str(), stdout);
        return kilnexec::kEXIT_PASSED;
    }
    kilnexec::ConsoleLogger logger(
        options.verbose ? nvinfer1::ILogger::Severity::kVERBOSE : nvinfer1::ILogger::Severity::kWARNING);
    if (kilnexec::wantsEngine(options))
    {
        return kilnexec::runEngineCommand(options, logger);
    }
    if (!options.checkPlugin)
    {
        std::fprintf(stderr,
            "kilnexec: nothing to do: give --onnx=model.onnx, --loadEngine=file or --checkPlugin=name (see --help)\n");
        return kilnexec::kEXIT_USAGE;
    }
    if (!kilnexec::loadPlugins(options, logger, error))
    {
        std::fprintf(stderr, "%s\n", error.c_str());
        return kilnexec::kEXIT_USAGE;
    }
    auto check = [&options](nvinfer1::ILogger& checkLogger) { return kilnexec::runCheckPlugin(options, checkLogger); };
    return options.isolate ? kilnexec::runIsolated(logger, check) : check(logger);
}
