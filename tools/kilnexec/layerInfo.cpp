// Layer information through IEngineInspector.
#include "layerInfo.h"

#include "jsonText.h"

#include <memory>

namespace kilnexec
{

bool reportLayerInfo(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext const* context,
    Options const& options, std::FILE* out, std::string& error)
{
    if (!options.dumpLayerInfo && options.exportLayerInfo.empty())
    {
        return true;
    }
    std::unique_ptr<nvinfer1::IEngineInspector> inspector(engine.createEngineInspector());
    if (inspector == nullptr)
    {
        error = "kilnexec: createEngineInspector failed (see the messages above)";
        return false;
    }
    if (context != nullptr)
    {
        inspector->setExecutionContext(context);
    }
    if (engine.getProfilingVerbosity() != nvinfer1::ProfilingVerbosity::kDETAILED)
    {
        std::fprintf(out, "[W] The engine was built with profiling verbosity other than detailed: the layer "
                          "information holds names only (rebuild with --profilingVerbosity=detailed).\n");
    }
    if (options.dumpLayerInfo)
    {
        char const* text = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kONELINE);
        if (text == nullptr)
        {
            error = "kilnexec: IEngineInspector::getEngineInformation failed (see the messages above)";
            return false;
        }
        std::fprintf(out, "[I] Layer Information:\n%s\n", text);
    }
    if (!options.exportLayerInfo.empty())
    {
        char const* text = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kJSON);
        if (text == nullptr)
        {
            error = "kilnexec: IEngineInspector::getEngineInformation failed (see the messages above)";
            return false;
        }
        if (!writeTextFile(options.exportLayerInfo, std::string(text) + "\n", "--exportLayerInfo", error))
        {
            return false;
        }
        std::fprintf(out, "[I] Layer information exported to %s\n", options.exportLayerInfo.c_str());
    }
    std::fflush(out);
    return true;
}

} // namespace kilnexec
