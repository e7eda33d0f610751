// checkConfigPass: builder flags and settings that cannot apply to this network on this backend.
#include "builder/buildContext.h"

#include <cstdlib>
#include <string>

namespace kiln
{
using nvinfer1::BuilderFlag;

Status checkConfigPass(BuildContext& ctx)
{
    BuilderConfig const& cfg = ctx.config;
    if (ctx.network.stronglyTyped())
    {
        for (BuilderFlag f : {BuilderFlag::kFP16, BuilderFlag::kBF16, BuilderFlag::kINT8, BuilderFlag::kFP8,
                 BuilderFlag::kINT4})
        {
            if (cfg.getFlag(f))
            {
                return invalidConfig("precision builder flags (kFP16, kBF16, kINT8, kFP8, kINT4) are not allowed "
                                     "with a strongly typed network: its types come from the network itself");
            }
        }
    }
    if (cfg.getFlag(BuilderFlag::kREFIT) || cfg.getFlag(BuilderFlag::kREFIT_IDENTICAL)
        || cfg.getFlag(BuilderFlag::kREFIT_INDIVIDUAL))
    {
        return unsupported("refittable engines (BuilderFlag::kREFIT*) are not supported by Kiln yet");
    }
    if (cfg.getFlag(BuilderFlag::kWEIGHT_STREAMING))
    {
        return unsupported("weight streaming (BuilderFlag::kWEIGHT_STREAMING) is not supported by Kiln yet");
    }
    if (cfg.getFlag(BuilderFlag::kVERSION_COMPATIBLE) || cfg.getFlag(BuilderFlag::kSTRIP_PLAN))
    {
        ctx.logger.warning("kVERSION_COMPATIBLE / kSTRIP_PLAN have no effect on Kiln engines (they are always "
                           "self-contained and carry their format version)");
    }
    char const* precisionEnv = std::getenv("KILN_PRECISION");
    bool const precisionPassOn = (ctx.backend != nullptr && ctx.backend->capabilities().reducedPrecisions != 0)
        || (precisionEnv != nullptr && std::string(precisionEnv) == "1");
    if ((cfg.getFlag(BuilderFlag::kFP16) || cfg.getFlag(BuilderFlag::kBF16)) && !precisionPassOn)
    {
        ctx.logger.info("kFP16/kBF16: " + backendDisplayName(ctx.backend != nullptr ? *ctx.backend : cpuBackend())
            + " computes in FP32; tensor types at the network's I/O follow "
                        "the network, and layers' setOutputType/setPrecision are honoured");
    }
    return Status::ok();
}

} // namespace kiln
