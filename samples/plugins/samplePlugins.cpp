// samplePlugins.cpp — registerSamplePlugins(): the sample library's counterpart of initLibNvInferPlugins().
#include "samplePlugins.h"
#include "barPlugin.h"
#include "nonZeroPlugin.h"
#include "poolPlugin.h"
#include "samplePluginUtils.h"
#include "scaleTacticsPlugin.h"
#include "tileToShapePlugin.h"

#include <mutex>

namespace samples
{
namespace
{
bool registerAll()
{
    // Creators live for the whole process: the registry keeps pointers to them.
    static BarPluginCreator barCreator;
    static PoolPluginCreator poolCreator;
    static NonZeroPluginCreator nonZeroCreator;
    static TileToShapePluginCreator tileCreator;
    static ScaleTacticsPluginCreator scaleCreator;
    barCreator.setPluginNamespace(kSAMPLE_NAMESPACE);
    poolCreator.setPluginNamespace(kSAMPLE_NAMESPACE);

    nvinfer1::IPluginRegistry* registry = getPluginRegistry();
    if (registry == nullptr)
    {
        return false;
    }
    nvinfer1::IPluginCreatorInterface* creators[]
        = {&barCreator, &poolCreator, &nonZeroCreator, &tileCreator, &scaleCreator};
    bool ok = true;
    for (nvinfer1::IPluginCreatorInterface* creator : creators)
    {
        ok = registry->registerCreator(*creator, kSAMPLE_NAMESPACE) && ok;
    }
    return ok;
}
} // namespace

bool registerSamplePlugins()
{
    static bool const registered = registerAll();
    return registered;
}

} // namespace samples
