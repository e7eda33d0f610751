// main.cpp — sampleNonZeroPlugin: TensorRT's sampleNonZeroPlugin flow on Kiln. A NonZero IPluginV3 with a size
// tensor; the application sizes the output buffers, binds them with setTensorAddress, sets no IOutputAllocator,
// runs enqueueV3 and reads the real shape with getTensorShape and the count from the size tensor.
//   sampleNonZeroPlugin [--device=cpu|cuda] [--verbose]
// Exit status 0 when every run matches the reference.
#include "sampleNonZero.h"

#include <NvInfer.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace
{

class SampleLogger : public nvinfer1::ILogger
{
public:
    bool verbose{false};
    void log(Severity severity, char const* msg) noexcept override
    {
        if (verbose || severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "[%d] %s\n", static_cast<int>(severity), msg);
        }
    }
};

} // namespace

int main(int argc, char** argv)
{
    SampleLogger logger;
    samples::SampleNonZeroParams params;
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        if (arg == "--verbose")
        {
            logger.verbose = true;
        }
        else if (arg == "--device=cpu")
        {
            params.device = samples::SampleDevice::kCPU;
        }
        else if (arg == "--device=cuda")
        {
            params.device = samples::SampleDevice::kCUDA;
        }
        else
        {
            std::fprintf(stderr, "usage: %s [--device=cpu|cuda] [--verbose]\n", argv[0]);
            return 2;
        }
    }
    std::printf("&&&& RUNNING sampleNonZeroPlugin on the %s backend\n",
        params.device == samples::SampleDevice::kCUDA ? "CUDA" : "CPU");
    samples::SampleNonZeroPlugin sample(params, logger);
    if (!sample.build() || !sample.infer())
    {
        std::printf("&&&& FAILED sampleNonZeroPlugin: %s\n", sample.error().c_str());
        return 1;
    }
    std::printf("&&&& PASSED sampleNonZeroPlugin\n");
    return 0;
}
