// pluginRuntimeGpuTest.cpp — what the CUDA backend gives a TensorRT plugin (one written for the GPU only, without
// kiln::IPluginCpuSupport): attachToContext receives an IPluginResourceContext whose IGpuAllocator hands out real
// device memory; enqueue receives device pointers, a device workspace of at least getWorkspaceSize() bytes and the
// stream given to enqueueV3; an enqueue that returns an error, or throws, fails the run with a message naming the
// plugin. Also that the CPU backend refuses such a plugin at build time (runs without a GPU).
#include "gpuTestUtils.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace kiln::test::gpu
{
namespace
{
using namespace nvinfer1;

constexpr char const* kPROBE_NAME = "GpuProbePlugin";
constexpr char const* kPROBE_NAMESPACE = "kilnGpuTests";
constexpr size_t kPROBE_WORKSPACE = 4096;

enum class ProbeMode : int32_t
{
    kCOPY = 0,         //!< y = x with cudaMemcpyAsync, after filling the workspace
    kRETURN_ERROR = 1, //!< enqueue returns -1
    kTHROW = 2,        //!< enqueue throws std::runtime_error (through its noexcept)
};

//! What the probe plugin saw, shared by every clone (reset by each test).
struct ProbeRecord
{
    std::mutex mutex;
    int32_t attachCalls{0};
    bool resourceContextGiven{false};
    bool allocatorGiven{false};
    bool allocationOnDevice{false};
    bool allocationAligned{false};
    bool deallocated{false};
    int32_t enqueueCalls{0};
    bool workspaceOnDevice{false};
    bool ioOnDevice{false};
    cudaStream_t enqueueStream{nullptr};

    void reset()
    {
        std::lock_guard<std::mutex> lock(mutex);
        attachCalls = 0;
        resourceContextGiven = allocatorGiven = allocationOnDevice = allocationAligned = deallocated = false;
        enqueueCalls = 0;
        workspaceOnDevice = ioOnDevice = false;
        enqueueStream = nullptr;
    }
};

ProbeRecord& probe()
{
    static ProbeRecord record;
    return record;
}

//! Throws from a function that may throw, so that the plugin's noexcept enqueue can call it.
[[noreturn]] void explode()
{
    throw std::runtime_error("GpuProbePlugin deliberately threw in enqueue");
}

//! A GPU-only IPluginV3 (OneCore/OneBuild/OneRuntime): one FP32 input, one output of the same shape.
class ProbePlugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{
public:
    explicit ProbePlugin(ProbeMode mode)
        : mMode(mode)
    {
        mField = PluginField{"mode", &mModeValue, PluginFieldType::kINT32, 1};
        mModeValue = static_cast<int32_t>(mode);
        mFields = PluginFieldCollection{1, &mField};
    }

    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    IPluginV3* clone() noexcept override { return new (std::nothrow) ProbePlugin(mMode); }

    char const* getPluginName() const noexcept override { return kPROBE_NAME; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kPROBE_NAMESPACE; }

    int32_t configurePlugin(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept
        override
    {
        return 0;
    }
    int32_t getOutputDataTypes(DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes,
        int32_t nbInputs) const noexcept override
    {
        if (nbInputs != 1 || nbOutputs != 1)
        {
            return -1;
        }
        outputTypes[0] = inputTypes[0];
        return 0;
    }
    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const*, int32_t, DimsExprs* outputs,
        int32_t nbOutputs, IExprBuilder&) noexcept override
    {
        if (nbInputs != 1 || nbOutputs != 1)
        {
            return -1;
        }
        outputs[0] = inputs[0];
        return 0;
    }
    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].desc.type == DataType::kFLOAT && inOut[pos].desc.format == TensorFormat::kLINEAR;
    }
    int32_t getNbOutputs() const noexcept override { return 1; }
    size_t getWorkspaceSize(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) const
        noexcept override
    {
        return kPROBE_WORKSPACE;
    }

    int32_t onShapeChange(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }
    IPluginV3* attachToContext(IPluginResourceContext* context) noexcept override
    {
        ProbeRecord& record = probe();
        std::lock_guard<std::mutex> lock(record.mutex);
        ++record.attachCalls;
        record.resourceContextGiven = context != nullptr;
        IGpuAllocator* allocator = context != nullptr ? context->getGpuAllocator() : nullptr;
        record.allocatorGiven = allocator != nullptr;
        if (allocator != nullptr)
        {
            void* memory = allocator->allocateAsync(1000, 256, 0, nullptr);
            if (memory != nullptr)
            {
                (void) cudaStreamSynchronize(nullptr);
                record.allocationOnDevice = isDeviceMemory(memory);
                record.allocationAligned = reinterpret_cast<uintptr_t>(memory) % 256 == 0;
                // Touch it: compute-sanitizer reports an access outside a live allocation.
                record.allocationOnDevice = record.allocationOnDevice && cudaMemset(memory, 0, 1000) == cudaSuccess;
                record.deallocated = allocator->deallocateAsync(memory, nullptr);
                (void) cudaStreamSynchronize(nullptr);
            }
        }
        return clone();
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        {
            ProbeRecord& record = probe();
            std::lock_guard<std::mutex> lock(record.mutex);
            ++record.enqueueCalls;
            record.workspaceOnDevice = isDeviceMemory(workspace);
            record.ioOnDevice = isDeviceMemory(inputs[0]) && isDeviceMemory(outputs[0]);
            record.enqueueStream = stream;
        }
        if (mMode == ProbeMode::kRETURN_ERROR)
        {
            return -1;
        }
        if (mMode == ProbeMode::kTHROW)
        {
            explode();
        }
        size_t bytes = sizeof(float);
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            bytes *= static_cast<size_t>(inputDesc[0].dims.d[i]);
        }
        // The whole workspace is written (memcheck catches a short one), then the copy.
        if (cudaMemsetAsync(workspace, 0x5A, kPROBE_WORKSPACE, stream) != cudaSuccess
            || cudaMemcpyAsync(outputs[0], inputs[0], bytes, cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
        {
            (void) cudaGetLastError();
            return 1;
        }
        return 0;
    }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFields; }

private:
    ProbeMode mMode;
    int32_t mModeValue{0};
    PluginField mField{};
    PluginFieldCollection mFields{};
};

class ProbeCreator : public IPluginCreatorV3One
{
public:
    IPluginV3* createPlugin(char const*, PluginFieldCollection const* fc, TensorRTPhase) noexcept override
    {
        int32_t mode = 0;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            if (std::strcmp(fc->fields[i].name, "mode") == 0 && fc->fields[i].data != nullptr)
            {
                mode = *static_cast<int32_t const*>(fc->fields[i].data);
            }
        }
        return new (std::nothrow) ProbePlugin(static_cast<ProbeMode>(mode));
    }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mNoFields; }
    char const* getPluginName() const noexcept override { return kPROBE_NAME; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kPROBE_NAMESPACE; }

private:
    PluginFieldCollection mNoFields{0, nullptr};
};

void registerProbe()
{
    static ProbeCreator creator;
    static std::once_flag once;
    std::call_once(once, [] {
        EXPECT_TRUE(getPluginRegistry()->registerCreator(creator, kPROBE_NAMESPACE));
    });
}

//! x [4, 33] -> probe(mode) -> y.
std::function<void(NetworkRunner&)> probeNetwork(ProbeMode mode)
{
    return [mode](NetworkRunner& runner) {
        registerProbe();
        ProbePlugin plugin(mode);
        ITensor* inputs[] = {runner.addInput("x", DataType::kFLOAT, {4, 33})};
        IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 1, nullptr, 0, plugin);
        ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
        layer->setName("probeLayer");
        runner.markOutput(layer->getOutput(0), "y");
    };
}

TEST(PluginsOnGpu, CpuBackendRefusesAGpuOnlyPlugin)
{
    NetworkRunner runner;
    ASSERT_TRUE(kiln::setBuilderBackend(&runner.config(), BackendKind::kCPU));
    probeNetwork(ProbeMode::kCOPY)(runner);
    EXPECT_FALSE(runner.build());
    EXPECT_TRUE(runner.logger().hasError(kPROBE_NAME)) << runner.logger().allErrors();
}

TEST(PluginsOnGpu, ResourceContextWorkspaceAndStreamAreTheDevice)
{
    KILN_REQUIRE_CUDA_BACKEND();
    probe().reset();
    std::unique_ptr<NetworkRunner> runner = buildFor(BackendKind::kCUDA, probeNetwork(ProbeMode::kCOPY));
    ASSERT_NE(runner, nullptr);
    std::mt19937 rng(505);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4, 33}), rng, -5, 5);
    Stream stream;
    std::map<std::string, HostTensor> outputs;
    std::string error;
    ASSERT_TRUE(runEngine(runner->engine(), BackendKind::kCUDA, {{"x", x}}, outputs, error, {}, stream.get()))
        << error << "\n" << runner->logger().allErrors();
    EXPECT_TRUE(sameBits(outputs["y"], x));

    ProbeRecord& record = probe();
    std::lock_guard<std::mutex> lock(record.mutex);
    EXPECT_GE(record.attachCalls, 1);
    EXPECT_TRUE(record.resourceContextGiven);
    EXPECT_TRUE(record.allocatorGiven) << "IPluginResourceContext::getGpuAllocator() returned null";
    EXPECT_TRUE(record.allocationOnDevice) << "the context's IGpuAllocator did not hand out device memory";
    EXPECT_TRUE(record.allocationAligned);
    EXPECT_TRUE(record.deallocated);
    EXPECT_EQ(record.enqueueCalls, 1);
    EXPECT_TRUE(record.workspaceOnDevice) << "the enqueue workspace is not device memory";
    EXPECT_TRUE(record.ioOnDevice);
    EXPECT_EQ(record.enqueueStream, stream.get()) << "enqueue did not get the enqueueV3 stream";
}

class FailingPluginOnGpu : public ::testing::TestWithParam<ProbeMode>
{
};

TEST_P(FailingPluginOnGpu, RunFailsNamingThePlugin)
{
    KILN_REQUIRE_CUDA_BACKEND();
    ProbeMode const mode = GetParam();
    std::unique_ptr<NetworkRunner> runner = buildFor(BackendKind::kCUDA, probeNetwork(mode));
    ASSERT_NE(runner, nullptr);
    std::mt19937 rng(606);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4, 33}), rng, -5, 5);
    runner->logger().clear();
    std::map<std::string, HostTensor> outputs;
    std::string error;
    EXPECT_FALSE(runEngine(runner->engine(), BackendKind::kCUDA, {{"x", x}}, outputs, error));
    EXPECT_EQ(error, "enqueueV3 failed");
    CapturingLogger const& logger = runner->logger();
    EXPECT_TRUE(logger.hasError(std::string("plugin '") + kPROBE_NAME + "'")) << logger.allErrors();
    EXPECT_TRUE(logger.hasError("enqueue")) << logger.allErrors();
    if (mode == ProbeMode::kTHROW)
    {
        EXPECT_TRUE(logger.hasError("deliberately threw")) << logger.allErrors();
    }
    else
    {
        EXPECT_TRUE(logger.hasError("-1")) << logger.allErrors();
    }
    // The failure leaves the device usable.
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

INSTANTIATE_TEST_SUITE_P(PluginsOnGpu, FailingPluginOnGpu,
    ::testing::Values(ProbeMode::kRETURN_ERROR, ProbeMode::kTHROW), [](::testing::TestParamInfo<ProbeMode> const& info) {
        return std::string(info.param == ProbeMode::kTHROW ? "Throws" : "ReturnsError");
    });

} // namespace
} // namespace kiln::test::gpu
