// samplePlugins.h — one call that registers every sample plugin creator (BarPlugin, PoolPlugin, NonZeroPlugin,
// TileToShapePlugin, ScaleTacticsPlugin) with the global plugin registry under namespace "kilnSamples".
#pragma once

namespace samples
{

//! Registers the sample creators with getPluginRegistry() under kSAMPLE_NAMESPACE. Safe to call many times: later
//! calls do nothing and return the first call's result.
bool registerSamplePlugins();

} // namespace samples
