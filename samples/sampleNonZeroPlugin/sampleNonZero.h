// sampleNonZero.h — SampleNonZeroPlugin, written in the style of TensorRT's sampleNonZeroPlugin: a network with the
// NonZero-like IPluginV3 of samples/plugins (output 0: INT32 [2, K] indices, output 1: the size tensor K), built and
// run with buffers the application sizes itself ("a sufficient size": 2 * rows * cols indices), bound with
// setTensorAddress and no IOutputAllocator. After enqueueV3 and a stream synchronize, the real shape comes from
// getTensorShape and K from the size-tensor output; both are checked against a reference on random data.
// Only the TensorRT API is used, plus kiln/KilnBackend.h to pick the backend the engine is built for.
#pragma once

#include <NvInfer.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace samples
{

//! Where the engine runs and the buffers live: host memory on kCPU, device memory and a stream on kCUDA (only
//! when the sample plugins are built with their CUDA path, KILN_SAMPLE_PLUGINS_CUDA).
enum class SampleDevice : int32_t
{
    kCPU = 0,
    kCUDA = 1,
};

struct SampleNonZeroParams
{
    SampleDevice device{SampleDevice::kCPU};
    int64_t cols{24};
    int64_t maxRows{64};
    //! One inference per entry: the input's row count and the fraction of non-zero values (0 gives K = 0).
    std::vector<std::pair<int64_t, double>> runs{{12, 0.4}, {40, 0.75}, {5, 0.0}, {64, 0.5}};
    uint32_t seed{2026};
};

class SampleNonZeroPlugin
{
public:
    SampleNonZeroPlugin(SampleNonZeroParams params, nvinfer1::ILogger& logger);
    ~SampleNonZeroPlugin();

    //! Registers the sample plugins, builds the network and the engine for params.device, deserializes it.
    bool build();
    //! Runs every entry of params.runs on a fresh context and checks indices, shape and count.
    bool infer();
    //! What failed (empty after success).
    std::string const& error() const { return mError; }

private:
    bool inferOnce(nvinfer1::IExecutionContext& context, int64_t rows, double density, uint32_t seed);
    bool fail(std::string message);

    SampleNonZeroParams mParams;
    nvinfer1::ILogger& mLogger;
    std::unique_ptr<nvinfer1::IRuntime> mRuntime;
    std::unique_ptr<nvinfer1::ICudaEngine> mEngine;
    std::string mError;
};

} // namespace samples
