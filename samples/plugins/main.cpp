// main.cpp — samplePlugins: registers the seeds' sample plugins (registerSamplePlugins) and Kiln's standard
// LReLU_TRT (initLibNvInferPlugins), builds one small network per plugin with the TensorRT API, runs it on the CPU
// backend, prints inputs and outputs and checks them against a plain C++ reference. --verbose prints the plugin
// lifecycle trace. Exit status 0 when every check passes.
#include "samplePluginUtils.h"
#include "samplePlugins.h"

#include <NvInfer.h>
#include <NvInferPlugin.h>
#include <kiln/KilnBackend.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace nvinfer1;
using samples::dims2;

namespace
{

class SampleLogger : public ILogger
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

SampleLogger gLogger;

void print(char const* label, std::vector<float> const& values)
{
    std::printf("  %-8s", label);
    for (float v : values)
    {
        std::printf(" %g", v);
    }
    std::printf("\n");
}

bool same(std::vector<float> const& a, std::vector<float> const& b, float tol = 1e-6F)
{
    if (a.size() != b.size())
    {
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i)
    {
        if (std::fabs(a[i] - b[i]) > tol)
        {
            return false;
        }
    }
    return true;
}

//! Builds `network` (filled by `define`), deserializes the engine and returns it (nullptr on failure).
std::unique_ptr<ICudaEngine> build(IBuilder& builder, IRuntime& runtime,
    std::function<bool(INetworkDefinition&, IOptimizationProfile&)> const& define)
{
    std::unique_ptr<INetworkDefinition> network(builder.createNetworkV2(0));
    std::unique_ptr<IBuilderConfig> config(builder.createBuilderConfig());
    config->setProfilingVerbosity(ProfilingVerbosity::kDETAILED); // the inspector then shows tactics
    // Host buffers below: build for the CPU backend even where kDEFAULT would pick the GPU (tests/gpu runs these
    // plugins on the CUDA backend).
    kiln::setBuilderBackend(config.get(), kiln::BackendKind::kCPU);
    IOptimizationProfile* profile = builder.createOptimizationProfile();
    if (!define(*network, *profile) || config->addOptimizationProfile(profile) < 0)
    {
        return nullptr;
    }
    std::unique_ptr<IHostMemory> plan(builder.buildSerializedNetwork(*network, *config));
    if (plan == nullptr)
    {
        return nullptr;
    }
    return std::unique_ptr<ICudaEngine>(runtime.deserializeCudaEngine(plan->data(), plan->size()));
}

IPluginV3* createV3(char const* name, PluginFieldCollection const& fc)
{
    auto* creator = dynamic_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator(name, "1", samples::kSAMPLE_NAMESPACE));
    return creator == nullptr ? nullptr : creator->createPlugin(name, &fc, TensorRTPhase::kBUILD);
}

//! Output allocator for the NonZero sample's data-dependent output.
class VectorAllocator : public IOutputAllocator
{
public:
    std::vector<int32_t> data;
    Dims shape{};
    void* reallocateOutputAsync(char const*, void*, uint64_t size, uint64_t, cudaStream_t) noexcept override
    {
        data.assign(size / sizeof(int32_t) + 1, 0);
        return data.data();
    }
    void notifyShape(char const*, Dims const& dims) noexcept override
    {
        shape = dims;
    }
};

} // namespace

int main(int argc, char** argv)
{
    gLogger.verbose = argc > 1 && std::strcmp(argv[1], "--verbose") == 0;
    if (!initLibNvInferPlugins(&gLogger, "") || !samples::registerSamplePlugins())
    {
        std::fprintf(stderr, "plugin registration failed\n");
        return 1;
    }
    std::unique_ptr<IBuilder> builder(createInferBuilder(gLogger));
    std::unique_ptr<IRuntime> runtime(createInferRuntime(gLogger));
    int failures = 0;
    auto report = [&](char const* name, bool ok) {
        std::printf("%s: %s\n", name, ok ? "OK" : "MISMATCH");
        failures += ok ? 0 : 1;
    };

    // 1. LReLU_TRT (IPluginV2, standard library) on x[2,4] (plain IPluginV2 needs build-time shapes).
    {
        auto* creator = getPluginRegistry()->getPluginCreator("LReLU_TRT", "1", "");
        float const slope = 0.1F;
        PluginField field{"neg_slope", &slope, PluginFieldType::kFLOAT32, 1}; // the seed's Python spelling
        PluginFieldCollection fc{1, &field};
        IPluginV2* plugin = creator == nullptr ? nullptr : creator->createPlugin("lrelu", &fc);
        auto engine = build(*builder, *runtime, [&](INetworkDefinition& n, IOptimizationProfile& p) {
            ITensor* x = n.addInput("x", DataType::kFLOAT, dims2(2, 4));
            auto* layer = plugin == nullptr ? nullptr : n.addPluginV2(&x, 1, *plugin);
            if (layer == nullptr)
            {
                return false;
            }
            layer->getOutput(0)->setName("y");
            n.markOutput(*layer->getOutput(0));
            (void) p;
            return true;
        });
        if (plugin != nullptr)
        {
            plugin->destroy();
        }
        std::vector<float> x{-2, -1, 0, 1, 2, 3, -4, 5};
        std::vector<float> y(x.size(), -99.0F);
        std::unique_ptr<IExecutionContext> ctx(engine == nullptr ? nullptr : engine->createExecutionContext());
        bool ok = ctx != nullptr && ctx->setInputTensorAddress("x", x.data())
            && ctx->setTensorAddress("y", y.data()) && ctx->enqueueV3(nullptr);
        std::vector<float> expected;
        for (float v : x)
        {
            expected.push_back(v >= 0 ? v : slope * v);
        }
        print("x", x);
        print("y", y);
        report("LReLU_TRT", ok && same(y, expected));
    }

    // 2. BarPlugin (IPluginV2DynamicExt): concat along dim 0 and a copy of input 0.
    {
        auto* creator = getPluginRegistry()->getPluginCreator("BarPlugin", "1", samples::kSAMPLE_NAMESPACE);
        IPluginV2* plugin = creator == nullptr ? nullptr : creator->createPlugin("bar", nullptr);
        auto engine = build(*builder, *runtime, [&](INetworkDefinition& n, IOptimizationProfile& p) {
            ITensor* in[] = {n.addInput("a", DataType::kFLOAT, dims2(-1, 2)), n.addInput("b", DataType::kFLOAT, dims2(-1, 2))};
            auto* layer = plugin == nullptr ? nullptr : n.addPluginV2(in, 2, *plugin);
            if (layer == nullptr)
            {
                return false;
            }
            layer->setName("bar");
            layer->getOutput(0)->setName("concat");
            layer->getOutput(1)->setName("copy");
            n.markOutput(*layer->getOutput(0));
            n.markOutput(*layer->getOutput(1));
            bool ok = true;
            for (char const* name : {"a", "b"})
            {
                ok = ok && p.setDimensions(name, OptProfileSelector::kMIN, dims2(1, 2))
                    && p.setDimensions(name, OptProfileSelector::kOPT, dims2(2, 2))
                    && p.setDimensions(name, OptProfileSelector::kMAX, dims2(4, 2));
            }
            return ok;
        });
        if (plugin != nullptr)
        {
            plugin->destroy();
        }
        std::vector<float> a{1, 2, 3, 4};
        std::vector<float> b{5, 6};
        std::vector<float> concat(6, -99.0F);
        std::vector<float> copy(4, -99.0F);
        std::unique_ptr<IExecutionContext> ctx(engine == nullptr ? nullptr : engine->createExecutionContext());
        bool ok = ctx != nullptr && ctx->setInputShape("a", dims2(2, 2)) && ctx->setInputShape("b", dims2(1, 2))
            && ctx->setInputTensorAddress("a", a.data()) && ctx->setInputTensorAddress("b", b.data())
            && ctx->setTensorAddress("concat", concat.data()) && ctx->setTensorAddress("copy", copy.data())
            && ctx->enqueueV3(nullptr);
        print("concat", concat);
        print("copy", copy);
        report("BarPlugin", ok && same(concat, {1, 2, 3, 4, 5, 6}) && same(copy, a));
    }

    // 3. NonZeroPlugin (IPluginV3, data-dependent output through an IOutputAllocator).
    {
        PluginFieldCollection none{0, nullptr};
        std::unique_ptr<IPluginV3> plugin(createV3("NonZeroPlugin", none));
        auto engine = build(*builder, *runtime, [&](INetworkDefinition& n, IOptimizationProfile& p) {
            ITensor* x = n.addInput("x", DataType::kFLOAT, dims2(2, 3));
            auto* layer = plugin == nullptr ? nullptr : n.addPluginV3(&x, 1, nullptr, 0, *plugin);
            if (layer == nullptr)
            {
                return false;
            }
            layer->setName("nonZero");
            layer->getOutput(0)->setName("indices");
            layer->getOutput(1)->setName("count");
            n.markOutput(*layer->getOutput(0));
            n.markOutput(*layer->getOutput(1));
            (void) p;
            return true;
        });
        std::vector<float> x{0, 7, 0, -1, 0, 2};
        int32_t count = -1;
        VectorAllocator allocator;
        std::unique_ptr<IExecutionContext> ctx(engine == nullptr ? nullptr : engine->createExecutionContext());
        bool ok = ctx != nullptr && ctx->setInputTensorAddress("x", x.data())
            && ctx->setOutputAllocator("indices", &allocator) && ctx->setTensorAddress("count", &count)
            && ctx->enqueueV3(nullptr);
        std::vector<float> indices;
        for (int64_t i = 0; ok && i < samples::volume(allocator.shape); ++i)
        {
            indices.push_back(static_cast<float>(allocator.data[static_cast<size_t>(i)]));
        }
        print("x", x);
        print("indices", indices);
        std::printf("  count    %d (shape [%lld, %lld])\n", count, static_cast<long long>(allocator.shape.d[0]),
            static_cast<long long>(allocator.shape.d[1]));
        report("NonZeroPlugin", ok && count == 3 && same(indices, {0, 1, 1, 1, 0, 2}));
    }

    // 4. TileToShapePlugin (IPluginV3 with a shape-tensor input fed by a network input shape tensor).
    {
        PluginFieldCollection none{0, nullptr};
        std::unique_ptr<IPluginV3> plugin(createV3("TileToShapePlugin", none));
        auto engine = build(*builder, *runtime, [&](INetworkDefinition& n, IOptimizationProfile& p) {
            ITensor* data = n.addInput("data", DataType::kFLOAT, dims2(1, 3));
            Dims one{};
            one.nbDims = 1;
            one.d[0] = 2;
            ITensor* shape = n.addInput("shape", DataType::kINT32, one);
            auto* layer = plugin == nullptr ? nullptr : n.addPluginV3(&data, 1, &shape, 1, *plugin);
            if (layer == nullptr)
            {
                return false;
            }
            layer->setName("tile");
            layer->getOutput(0)->setName("y");
            n.markOutput(*layer->getOutput(0));
            int32_t const lo[] = {1, 3};
            int32_t const opt[] = {2, 3};
            int32_t const hi[] = {4, 3};
            return p.setShapeValues("shape", OptProfileSelector::kMIN, lo, 2)
                && p.setShapeValues("shape", OptProfileSelector::kOPT, opt, 2)
                && p.setShapeValues("shape", OptProfileSelector::kMAX, hi, 2);
        });
        std::vector<float> data{1, 2, 3};
        int32_t shape[] = {3, 3};
        std::vector<float> y(9, -99.0F);
        std::unique_ptr<IExecutionContext> ctx(engine == nullptr ? nullptr : engine->createExecutionContext());
        bool ok = ctx != nullptr && ctx->setInputTensorAddress("data", data.data())
            && ctx->setInputTensorAddress("shape", shape) && ctx->setTensorAddress("y", y.data())
            && ctx->enqueueV3(nullptr);
        print("y", y);
        report("TileToShapePlugin", ok && same(y, {1, 2, 3, 1, 2, 3, 1, 2, 3}));
    }

    // 5. ScaleTacticsPlugin (IPluginV3 with two tactics; the builder keeps the faster one).
    {
        float const alpha = 3.0F;
        PluginField field{"alpha", &alpha, PluginFieldType::kFLOAT32, 1};
        PluginFieldCollection fc{1, &field};
        std::unique_ptr<IPluginV3> plugin(createV3("ScaleTacticsPlugin", fc));
        auto engine = build(*builder, *runtime, [&](INetworkDefinition& n, IOptimizationProfile& p) {
            ITensor* x = n.addInput("x", DataType::kFLOAT, dims2(64, 1024));
            auto* layer = plugin == nullptr ? nullptr : n.addPluginV3(&x, 1, nullptr, 0, *plugin);
            if (layer == nullptr)
            {
                return false;
            }
            layer->getOutput(0)->setName("y");
            n.markOutput(*layer->getOutput(0));
            (void) p;
            return true;
        });
        std::vector<float> x(64 * 1024);
        for (size_t i = 0; i < x.size(); ++i)
        {
            x[i] = static_cast<float>(i % 17) - 8.0F;
        }
        std::vector<float> y(x.size(), -99.0F);
        std::unique_ptr<IExecutionContext> ctx(engine == nullptr ? nullptr : engine->createExecutionContext());
        bool ok = ctx != nullptr && ctx->setInputTensorAddress("x", x.data()) && ctx->setTensorAddress("y", y.data())
            && ctx->enqueueV3(nullptr);
        std::vector<float> expected;
        for (float v : x)
        {
            expected.push_back(alpha * v);
        }
        std::unique_ptr<IEngineInspector> inspector(engine == nullptr ? nullptr : engine->createEngineInspector());
        char const* info = inspector == nullptr ? nullptr : inspector->getLayerInformation(0, LayerInformationFormat::kONELINE);
        std::printf("  layer    %s\n", info == nullptr ? "?" : info);
        report("ScaleTacticsPlugin", ok && same(y, expected));
    }

    std::printf("%s\n", failures == 0 ? "all plugin samples passed" : "some plugin samples FAILED");
    return failures == 0 ? 0 : 1;
}
