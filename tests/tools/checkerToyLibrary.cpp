// checkerToyLibrary.cpp — a separately built plugin library (libkilnCheckerToyPlugins.so) with the contract
// checker's toy plugins (tests/plugin/checkerBrokenPlugins.h), for the kilnexec --checkPlugin tests. It exports
// getCreators() like any plugin library loaded with IPluginRegistry::loadLibrary, and links nothing of Kiln.
#include "../plugin/checkerBrokenPlugins.h"

namespace
{
checkertest::CheckerToyCreator gToyCreator;
checkertest::CheckerToyV3Creator gToyV3Creator;
nvinfer1::IPluginCreatorInterface* gCreators[] = {&gToyCreator, &gToyV3Creator};
} // namespace

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreatorInterface* const* getCreators(
    int32_t& nbCreators)
{
    nbCreators = 2;
    return gCreators;
}
