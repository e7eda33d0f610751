// onnxPluginLibrary.cpp — libkilnSampleOnnxPlugins.so: a plugin library as users ship one. It exports getCreators()
// (IPluginRegistry::loadLibrary, kilnexec --dynamicPlugins) with the creator of samples/plugins' ScaleTacticsPlugin
// (y = alpha * x, an IPluginV3 with two tactics), which serves the main job's ONNX op "ScaleTacticsPlugin"
// (plugin_namespace "kilnSamples"). It links nothing of Kiln.
#include "scaleTacticsPlugin.h"

namespace
{
samples::ScaleTacticsPluginCreator gScaleCreator;
nvinfer1::IPluginCreatorInterface* gCreators[] = {&gScaleCreator};
} // namespace

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreatorInterface* const* getCreators(
    int32_t& nbCreators)
{
    nbCreators = 1;
    return gCreators;
}
