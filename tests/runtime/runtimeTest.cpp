// Tests of IRuntime and ICudaEngine on hand-built plans: deserialization (memory and stream readers, corrupt,
// truncated and foreign data), I/O and profile queries, serialization round trips and the library entry points.
#include "runtime/runtime.h"
#include "runtimeTestPlans.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace kiln::test
{
namespace
{

using namespace nvinfer1;

TEST(RuntimeTest, QueriesIoTensors)
{
    LoadedEngine l(makeChainPlan());
    ICudaEngine& e = *l.engine;
    ASSERT_EQ(e.getNbIOTensors(), 2);
    EXPECT_STREQ(e.getIOTensorName(0), "x");
    EXPECT_STREQ(e.getIOTensorName(1), "y");
    EXPECT_EQ(e.getIOTensorName(2), nullptr);
    EXPECT_TRUE(l.logger.hasError("index 2 is out of range"));
    l.logger.clear();
    Dims const shape = e.getTensorShape("x");
    ASSERT_EQ(shape.nbDims, 2);
    EXPECT_EQ(shape.d[0], -1);
    EXPECT_EQ(shape.d[1], 4);
    EXPECT_EQ(e.getTensorDataType("y"), DataType::kFLOAT);
    EXPECT_EQ(e.getTensorIOMode("x"), TensorIOMode::kINPUT);
    EXPECT_EQ(e.getTensorIOMode("y"), TensorIOMode::kOUTPUT);
    EXPECT_EQ(e.getTensorIOMode("t"), TensorIOMode::kNONE);
    EXPECT_EQ(e.getTensorLocation("x"), TensorLocation::kDEVICE);
    EXPECT_FALSE(e.isShapeInferenceIO("x"));
    EXPECT_EQ(e.getTensorFormat("x"), TensorFormat::kLINEAR);
    EXPECT_STREQ(e.getTensorFormatDesc("x"), "Row major linear FP32 format (kLINEAR)");
    EXPECT_EQ(e.getTensorBytesPerComponent("x"), 4);
    EXPECT_EQ(e.getTensorComponentsPerElement("x"), 1);
    EXPECT_EQ(e.getTensorVectorizedDim("x"), -1);
    EXPECT_EQ(e.getTensorBytesPerComponent("x", 1), 4);
    EXPECT_EQ(e.getNbLayers(), 2);
    EXPECT_STREQ(e.getName(), "chain");
    EXPECT_EQ(e.getAliasedInputTensor("y"), nullptr);
    EXPECT_FALSE(e.isRefittable());
    EXPECT_FALSE(e.isDebugTensor("x"));
    EXPECT_EQ(e.getNbAuxStreams(), 0);
    EXPECT_EQ(e.getProfilingVerbosity(), ProfilingVerbosity::kDETAILED);
    EXPECT_EQ(e.getEngineCapability(), EngineCapability::kSTANDARD);
    EXPECT_EQ(e.getEngineStat(EngineStat::kTOTAL_WEIGHTS_SIZE), 0);
    EXPECT_EQ(e.getStreamableWeightsSize(), 0);
    EXPECT_TRUE(l.logger.errors().empty()) << l.logger.allErrors();
}

TEST(RuntimeTest, UnknownTensorNamesAreErrors)
{
    LoadedEngine l(makeChainPlan());
    EXPECT_EQ(l.engine->getTensorShape("nope").nbDims, -1);
    EXPECT_TRUE(l.logger.hasError("'nope'"));
    EXPECT_EQ(l.engine->getTensorShape(nullptr).nbDims, -1);
    EXPECT_EQ(l.engine->getTensorFormatDesc("nope"), nullptr);
    EXPECT_EQ(l.engine->getTensorBytesPerComponent("x", 7), -1);
    EXPECT_TRUE(l.logger.hasError("profile index 7"));
}

TEST(RuntimeTest, QueriesProfilesAndMemory)
{
    LoadedEngine l(makeChainPlan());
    ICudaEngine& e = *l.engine;
    ASSERT_EQ(e.getNbOptimizationProfiles(), 2);
    EXPECT_EQ(e.getProfileShape("x", 0, OptProfileSelector::kMIN).d[0], 1);
    EXPECT_EQ(e.getProfileShape("x", 0, OptProfileSelector::kOPT).d[0], 2);
    EXPECT_EQ(e.getProfileShape("x", 0, OptProfileSelector::kMAX).d[0], 8);
    EXPECT_EQ(e.getProfileShape("x", 1, OptProfileSelector::kMAX).d[0], 32);
    EXPECT_EQ(e.getProfileShape("y", 0, OptProfileSelector::kMAX).nbDims, -1);
    EXPECT_EQ(e.getProfileTensorValuesV2("x", 0, OptProfileSelector::kMIN), nullptr);
    EXPECT_EQ(e.getDeviceMemorySizeForProfileV2(0), 256);
    EXPECT_EQ(e.getDeviceMemorySizeForProfileV2(1), 512);
    EXPECT_EQ(e.getDeviceMemorySizeV2(), 512);
    EXPECT_EQ(e.getDeviceMemorySizeForProfileV2(2), -1);
}

TEST(RuntimeTest, ShapeTensorQueries)
{
    LoadedEngine l(makeShapeValuesPlan());
    ICudaEngine& e = *l.engine;
    EXPECT_TRUE(e.isShapeInferenceIO("shape"));
    EXPECT_EQ(e.getTensorLocation("shape"), TensorLocation::kHOST);
    int64_t const* maxValues = e.getProfileTensorValuesV2("shape", 0, OptProfileSelector::kMAX);
    ASSERT_NE(maxValues, nullptr);
    EXPECT_EQ(maxValues[0], 10);
    EXPECT_EQ(maxValues[1], 10);
    KILN_IGNORE_DEPRECATED_BEGIN
    int32_t const* minValues = e.getProfileTensorValues("shape", 0, OptProfileSelector::kMIN);
    KILN_IGNORE_DEPRECATED_END
    ASSERT_NE(minValues, nullptr);
    EXPECT_EQ(minValues[0], 1);
}

TEST(RuntimeTest, SerializeRoundTripIsByteIdentical)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IHostMemory> blob(l.engine->serialize());
    ASSERT_NE(blob, nullptr);
    EXPECT_EQ(blob->type(), DataType::kUINT8);
    ASSERT_EQ(blob->size(), l.bytes.size());
    EXPECT_EQ(std::memcmp(blob->data(), l.bytes.data(), l.bytes.size()), 0);

    std::unique_ptr<ISerializationConfig> config(l.engine->createSerializationConfig());
    ASSERT_NE(config, nullptr);
    EXPECT_TRUE(config->setFlag(SerializationFlag::kEXCLUDE_LEAN_RUNTIME));
    std::unique_ptr<IHostMemory> blob2(l.engine->serializeWithConfig(*config));
    ASSERT_NE(blob2, nullptr);
    EXPECT_EQ(blob2->size(), l.bytes.size());
    EXPECT_TRUE(config->setFlag(SerializationFlag::kEXCLUDE_WEIGHTS));
    EXPECT_EQ(l.engine->serializeWithConfig(*config), nullptr);
    EXPECT_TRUE(l.logger.hasError("kEXCLUDE_WEIGHTS"));
}

TEST(RuntimeTest, CorruptTruncatedAndForeignEnginesFail)
{
    std::vector<uint8_t> const good = serializePlan(makeChainPlan());
    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    RecordingErrorRecorder recorder;
    runtime->setErrorRecorder(&recorder);

    EXPECT_EQ(runtime->deserializeCudaEngine(good.data(), good.size() / 2), nullptr);
    EXPECT_TRUE(logger.hasError("truncated")) << logger.allErrors();
    EXPECT_GT(recorder.getNbErrors(), 0);

    std::mt19937 rng(7);
    for (int i = 0; i < 50; ++i)
    {
        std::vector<uint8_t> bad = good;
        bad[rng() % bad.size()] ^= static_cast<uint8_t>(1U << (rng() % 8));
        logger.clear();
        std::unique_ptr<ICudaEngine> e(runtime->deserializeCudaEngine(bad.data(), bad.size()));
        EXPECT_EQ(e, nullptr);
        EXPECT_FALSE(logger.errors().empty());
    }
    std::vector<uint8_t> garbage(1000);
    for (auto& b : garbage)
    {
        b = static_cast<uint8_t>(rng());
    }
    logger.clear();
    EXPECT_EQ(runtime->deserializeCudaEngine(garbage.data(), garbage.size()), nullptr);
    EXPECT_TRUE(logger.hasError("not a Kiln engine")) << logger.allErrors();
    EXPECT_EQ(runtime->deserializeCudaEngine(nullptr, 0), nullptr);
    EXPECT_EQ(runtime->deserializeCudaEngine(good.data(), 0), nullptr);

    Plan foreign = makeChainPlan();
    foreign.backend = "vulkan"; // a backend this Kiln does not have (tests/runtime/backendSelectionTest.cpp: 'cuda')
    std::vector<uint8_t> const foreignBytes = serializePlan(foreign);
    logger.clear();
    EXPECT_EQ(runtime->deserializeCudaEngine(foreignBytes.data(), foreignBytes.size()), nullptr);
    EXPECT_TRUE(logger.hasError("'vulkan' backend")) << logger.allErrors();
    runtime->setErrorRecorder(nullptr);
}

class VectorReader : public IStreamReader
{
public:
    explicit VectorReader(std::vector<uint8_t> const& bytes, size_t limit = SIZE_MAX)
        : mBytes(bytes)
        , mLimit(std::min(limit, bytes.size()))
    {
    }
    int64_t read(void* destination, int64_t nbBytes) override
    {
        size_t const n = std::min(static_cast<size_t>(nbBytes), mLimit - mPos);
        std::memcpy(destination, mBytes.data() + mPos, n);
        mPos += n;
        return static_cast<int64_t>(n);
    }

private:
    std::vector<uint8_t> const& mBytes;
    size_t mLimit;
    size_t mPos{0};
};

class VectorReaderV2 : public IStreamReaderV2
{
public:
    explicit VectorReaderV2(std::vector<uint8_t> const& bytes)
        : mBytes(bytes)
    {
    }
    int64_t read(void* destination, int64_t nbBytes, cudaStream_t) noexcept override
    {
        size_t const n = std::min(static_cast<size_t>(nbBytes), mBytes.size() - mPos);
        std::memcpy(destination, mBytes.data() + mPos, n);
        mPos += n;
        return static_cast<int64_t>(n);
    }
    bool seek(int64_t offset, SeekPosition where) noexcept override
    {
        int64_t base = where == SeekPosition::kSET ? 0 : where == SeekPosition::kCUR ? static_cast<int64_t>(mPos)
                                                                                     : static_cast<int64_t>(mBytes.size());
        mPos = static_cast<size_t>(base + offset);
        return true;
    }

private:
    std::vector<uint8_t> const& mBytes;
    size_t mPos{0};
};

TEST(RuntimeTest, DeserializesFromStreamReaders)
{
    std::vector<uint8_t> const bytes = serializePlan(makeChainPlan());
    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    VectorReader reader(bytes);
    KILN_IGNORE_DEPRECATED_BEGIN
    std::unique_ptr<ICudaEngine> e1(runtime->deserializeCudaEngine(reader));
    KILN_IGNORE_DEPRECATED_END
    ASSERT_NE(e1, nullptr) << logger.allErrors();
    EXPECT_EQ(e1->getNbIOTensors(), 2);
    VectorReaderV2 reader2(bytes);
    std::unique_ptr<ICudaEngine> e2(runtime->deserializeCudaEngine(reader2));
    ASSERT_NE(e2, nullptr) << logger.allErrors();
    VectorReader truncated(bytes, bytes.size() - 10);
    KILN_IGNORE_DEPRECATED_BEGIN
    EXPECT_EQ(runtime->deserializeCudaEngine(truncated), nullptr);
    KILN_IGNORE_DEPRECATED_END
    EXPECT_TRUE(logger.hasError("truncated")) << logger.allErrors();
}

TEST(RuntimeTest, RuntimeSettingsAndUnsupportedFeatures)
{
    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    ASSERT_NE(runtime, nullptr);
    EXPECT_EQ(runtime->getNbDLACores(), 0);
    EXPECT_EQ(runtime->getDLACore(), -1);
    runtime->setDLACore(0);
    EXPECT_TRUE(logger.hasError("DLA core 0"));
    EXPECT_EQ(runtime->getLogger(), &logger);
    EXPECT_TRUE(runtime->setMaxThreads(4));
    EXPECT_EQ(runtime->getMaxThreads(), 4);
    EXPECT_FALSE(runtime->setMaxThreads(0));
    EXPECT_EQ(runtime->getTemporaryDirectory(), nullptr);
    runtime->setTemporaryDirectory("/tmp");
    EXPECT_STREQ(runtime->getTemporaryDirectory(), "/tmp");
    runtime->setTempfileControlFlags(1U);
    EXPECT_EQ(runtime->getTempfileControlFlags(), 1U);
    runtime->setEngineHostCodeAllowed(true);
    EXPECT_TRUE(runtime->getEngineHostCodeAllowed());
    logger.clear();
    EXPECT_EQ(runtime->loadRuntime("liblean.so"), nullptr);
    EXPECT_TRUE(logger.hasError("not supported"));
    IPluginRegistry& registry = runtime->getPluginRegistry();
    int32_t count = -1;
    registry.getAllCreators(&count);
    EXPECT_GE(count, 0);
}

TEST(RuntimeTest, EntryPointsCheckVersions)
{
    CapturingLogger logger;
    EXPECT_EQ(createInferRuntime_INTERNAL(&logger, 90000), nullptr);
    EXPECT_TRUE(logger.hasError("90000"));
    EXPECT_EQ(createInferRuntime_INTERNAL(nullptr, NV_TENSORRT_VERSION), nullptr);
    EXPECT_EQ(getInferLibVersion(), NV_TENSORRT_VERSION);
    EXPECT_EQ(getInferLibMajorVersion(), NV_TENSORRT_MAJOR);
    EXPECT_EQ(getInferLibMinorVersion(), NV_TENSORRT_MINOR);
    EXPECT_EQ(getInferLibPatchVersion(), NV_TENSORRT_PATCH);
    EXPECT_EQ(getInferLibBuildVersion(), NV_TENSORRT_BUILD);
    logger.clear();
    LoadedEngine l(makeChainPlan());
    EXPECT_EQ(createInferRefitter(*l.engine, logger), nullptr);
    EXPECT_TRUE(logger.hasError("refit"));
}

TEST(RuntimeTest, EngineErrorRecorderIsInheritedAndRefCounted)
{
    std::vector<uint8_t> const bytes = serializePlan(makeChainPlan());
    CapturingLogger logger;
    RecordingErrorRecorder recorder;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    runtime->setErrorRecorder(&recorder);
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
    ASSERT_NE(engine, nullptr);
    EXPECT_EQ(engine->getErrorRecorder(), &recorder);
    std::unique_ptr<IExecutionContext> ctx(engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    EXPECT_EQ(ctx->getErrorRecorder(), &recorder);
    EXPECT_FALSE(ctx->setInputShape("x", dimsOf({100, 4})));
    EXPECT_GT(recorder.getNbErrors(), 0);
    EXPECT_EQ(recorder.incRefCount(), 4); // runtime, engine, context + this call
    recorder.decRefCount();
    ctx.reset();
    engine.reset();
    runtime.reset();
    EXPECT_EQ(recorder.incRefCount(), 1);
    recorder.decRefCount();
}

TEST(RuntimeTest, CreateEngineFromPlan)
{
    CapturingLogger userLogger;
    Logger logger(&userLogger);
    auto engine = createEngine(makeChainPlan(), logger);
    ASSERT_TRUE(engine.isOk()) << engine.status().message();
    EXPECT_EQ(engine.value()->getNbLayers(), 2);

    Plan unbound = makeChainPlan();
    unbound.shapes.symbol(SymbolKind::kINPUT_DIM, "orphan");
    auto bad = createEngine(std::move(unbound), logger);
    ASSERT_FALSE(bad.isOk());
    EXPECT_NE(bad.status().message().find("orphan"), std::string::npos);
}

} // namespace
} // namespace kiln::test
