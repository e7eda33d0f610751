// Tests of the PluginAdapter for the generations without dynamic shapes (IPluginV2, IPluginV2Ext, IPluginV2IOExt):
// generation detection from getTensorRTVersion(), build-time shapes, TensorRT's single type/format rule for
// supportsFormat, the configure call of each generation, execution with batch size 1, context attachment and the
// lifecycle trace.
#include "common/networkRunner.h"
#include "kiln/KilnPluginCpu.h"
#include "plugin/pluginAdapter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{
using namespace nvinfer1;
using namespace kiln;
using ::testing::HasSubstr;

//! What the V2-family plugins saw.
struct Seen
{
    std::vector<std::string> calls;
    Dims inputDims{};
    DataType type{DataType::kFLOAT};
    TensorFormat format{TensorFormat::kCHW4};
    int32_t maxBatchSize{-1};
    int32_t batchSize{-1};
    std::vector<DataType> inTypes;
    std::vector<DataType> outTypes;
    float inScale{0.0F};
    int32_t destroyed{0};
    bool attachedAllocatorNull{false};
};

int64_t volume(Dims const& d)
{
    int64_t v = 1;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        v *= d.d[i];
    }
    return v;
}

//! Plain IPluginV2: out = in * 3 with output dims [d0 * 2? no: d0, d1] equal to the input's; FP32/FP16 linear.
class LegacyPlugin : public IPluginV2, public kiln::IPluginCpuSupport
{
public:
    explicit LegacyPlugin(Seen& seen)
        : mSeen(seen)
    {
    }
    char const* getPluginType() const noexcept override { return "Legacy"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    int32_t getNbOutputs() const noexcept override { return 1; }
    Dims getOutputDimensions(int32_t, Dims const* inputs, int32_t) noexcept override
    {
        mSeen.calls.push_back("getOutputDimensions");
        Dims out = inputs[0];
        out.d[0] = inputs[0].d[0] + 1; // one extra row, filled with zeros
        return out;
    }
    bool supportsFormat(DataType type, PluginFormat format) const noexcept override
    {
        return (type == DataType::kFLOAT || type == DataType::kHALF) && format == TensorFormat::kLINEAR;
    }
    void configureWithFormat(Dims const* inputDims, int32_t, Dims const*, int32_t, DataType type, PluginFormat format,
        int32_t maxBatchSize) noexcept override
    {
        mSeen.calls.push_back("configureWithFormat");
        mSeen.inputDims = inputDims[0];
        mSeen.type = type;
        mSeen.format = format;
        mSeen.maxBatchSize = maxBatchSize;
    }
    int32_t initialize() noexcept override
    {
        mSeen.calls.push_back("initialize");
        return 0;
    }
    void terminate() noexcept override { mSeen.calls.push_back("terminate"); }
    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override { return 16 * static_cast<size_t>(maxBatchSize); }
    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void*, cudaStream_t) noexcept override
    {
        mSeen.batchSize = batchSize;
        int64_t const n = volume(mSeen.inputDims);
        int64_t const row = mSeen.inputDims.d[1];
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < n; ++i)
        {
            y[i] = x[i] * 3.0F;
        }
        for (int64_t i = 0; i < row; ++i)
        {
            y[n + i] = 0.0F;
        }
        return 0;
    }
    size_t getSerializationSize() const noexcept override { return 3; }
    void serialize(void* buffer) const noexcept override { std::memcpy(buffer, "abc", 3); }
    void destroy() noexcept override
    {
        mSeen.destroyed++;
        delete this;
    }
    IPluginV2* clone() const noexcept override { return new LegacyPlugin(mSeen); }
    void setPluginNamespace(char const*) noexcept override {}
    char const* getPluginNamespace() const noexcept override { return ""; }

private:
    Seen& mSeen;
};

//! IPluginV2Ext: out = in + 1; the output type is always FP32 (inputs may be FP32 or FP16).
class ExtPlugin : public IPluginV2Ext
{
public:
    explicit ExtPlugin(Seen& seen)
        : mSeen(seen)
    {
    }
    char const* getPluginType() const noexcept override { return "Ext"; }
    char const* getPluginVersion() const noexcept override { return "3"; }
    int32_t getNbOutputs() const noexcept override { return 1; }
    Dims getOutputDimensions(int32_t, Dims const* inputs, int32_t) noexcept override { return inputs[0]; }
    bool supportsFormat(DataType type, PluginFormat format) const noexcept override
    {
        return (type == DataType::kFLOAT || type == DataType::kHALF) && format == TensorFormat::kLINEAR;
    }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void*, cudaStream_t) noexcept override
    {
        mSeen.batchSize = batchSize;
        int64_t const n = volume(mSeen.inputDims);
        for (int64_t i = 0; i < n; ++i)
        {
            static_cast<float*>(outputs[0])[i] = static_cast<float const*>(inputs[0])[i] + 1.0F;
        }
        return 0;
    }
    size_t getSerializationSize() const noexcept override { return 0; }
    void serialize(void*) const noexcept override {}
    void destroy() noexcept override
    {
        mSeen.destroyed++;
        delete this;
    }
    IPluginV2Ext* clone() const noexcept override
    {
        mSeen.calls.push_back("clone");
        return new ExtPlugin(mSeen);
    }
    void setPluginNamespace(char const*) noexcept override {}
    char const* getPluginNamespace() const noexcept override { return "extns"; }
    DataType getOutputDataType(int32_t, DataType const*, int32_t) const noexcept override { return DataType::kFLOAT; }
    bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept override { return false; }
    bool canBroadcastInputAcrossBatch(int32_t) const noexcept override { return false; }
    void configurePlugin(Dims const* inputDims, int32_t nbInputs, Dims const*, int32_t nbOutputs, DataType const* inputTypes,
        DataType const* outputTypes, bool const*, bool const*, PluginFormat floatFormat, int32_t maxBatchSize) noexcept override
    {
        mSeen.calls.push_back("configurePlugin");
        mSeen.inputDims = inputDims[0];
        mSeen.inTypes.assign(inputTypes, inputTypes + nbInputs);
        mSeen.outTypes.assign(outputTypes, outputTypes + nbOutputs);
        mSeen.format = floatFormat;
        mSeen.maxBatchSize = maxBatchSize;
    }
    void attachToContext(cudnnContext* cudnn, cublasContext* cublas, IGpuAllocator* allocator) noexcept override
    {
        mSeen.calls.push_back("attachToContext");
        mSeen.attachedAllocatorNull = cudnn == nullptr && cublas == nullptr && allocator == nullptr;
    }
    void detachFromContext() noexcept override { mSeen.calls.push_back("detachFromContext"); }

private:
    Seen& mSeen;
};

//! IPluginV2IOExt: out = in * 2 for FP32; INT8 I/O supported (same type in and out), scale recorded.
class IoPlugin : public IPluginV2IOExt
{
public:
    explicit IoPlugin(Seen& seen)
        : mSeen(seen)
    {
    }
    char const* getPluginType() const noexcept override { return "Io"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    int32_t getNbOutputs() const noexcept override { return 1; }
    Dims getOutputDimensions(int32_t, Dims const* inputs, int32_t) noexcept override { return inputs[0]; }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getWorkspaceSize(int32_t) const noexcept override { return 128; }
    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void*, cudaStream_t) noexcept override
    {
        mSeen.batchSize = batchSize;
        int64_t const n = volume(mSeen.inputDims);
        for (int64_t i = 0; i < n; ++i)
        {
            static_cast<float*>(outputs[0])[i] = static_cast<float const*>(inputs[0])[i] * 2.0F;
        }
        return 0;
    }
    size_t getSerializationSize() const noexcept override { return 0; }
    void serialize(void*) const noexcept override {}
    void destroy() noexcept override
    {
        mSeen.destroyed++;
        delete this;
    }
    IPluginV2IOExt* clone() const noexcept override { return new IoPlugin(mSeen); }
    void setPluginNamespace(char const*) noexcept override {}
    char const* getPluginNamespace() const noexcept override { return ""; }
    DataType getOutputDataType(int32_t, DataType const* inputTypes, int32_t) const noexcept override { return inputTypes[0]; }
    bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept override { return false; }
    bool canBroadcastInputAcrossBatch(int32_t) const noexcept override { return false; }
    void configurePlugin(PluginTensorDesc const* in, int32_t, PluginTensorDesc const*, int32_t) noexcept override
    {
        mSeen.calls.push_back("configurePlugin");
        mSeen.inputDims = in[0].dims;
        mSeen.type = in[0].type;
        mSeen.inScale = in[0].scale;
    }
    bool supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t, int32_t) const noexcept override
    {
        bool const typeOk = inOut[pos].type == DataType::kFLOAT || inOut[pos].type == DataType::kINT8;
        return typeOk && inOut[pos].format == TensorFormat::kLINEAR && (pos == 0 || inOut[pos].type == inOut[0].type);
    }

private:
    Seen& mSeen;
};

//! A plugin whose getTensorRTVersion() is overridden with a foreign top byte.
class WrongTagPlugin : public LegacyPlugin
{
public:
    using LegacyPlugin::LegacyPlugin;
    int32_t getTensorRTVersion() const noexcept override { return static_cast<int32_t>(0x07000000 | 1600); }
};

class NullResources : public IPluginResourceContext
{
public:
    IGpuAllocator* getGpuAllocator() const noexcept override { return nullptr; }
    IErrorRecorder* getErrorRecorder() const noexcept override { return nullptr; }
};

PluginTensorDesc desc(std::vector<int64_t> const& dims, DataType type, TensorFormat format = TensorFormat::kLINEAR)
{
    PluginTensorDesc d{};
    d.dims = kiln::test::makeDims(dims);
    d.type = type;
    d.format = format;
    d.scale = type == DataType::kINT8 ? 0.05F : -1.0F;
    return d;
}

DynamicPluginTensorDesc dyn(PluginTensorDesc const& d)
{
    return DynamicPluginTensorDesc{d, d.dims, d.dims, d.dims};
}

class PluginAdapterV2Test : public ::testing::Test
{
protected:
    kiln::test::CapturingLogger mLog;
    Logger mLogger{&mLog};
    Seen mSeen;
    std::mt19937 mRng{std::random_device{}()};

    std::vector<float> random(size_t n)
    {
        std::uniform_real_distribution<float> dist(-5.0F, 5.0F);
        std::vector<float> v(n);
        for (auto& x : v)
        {
            x = dist(mRng);
        }
        return v;
    }
};

TEST_F(PluginAdapterV2Test, GenerationComesFromTensorRTVersionTopByte)
{
    LegacyPlugin legacy(mSeen);
    ExtPlugin ext(mSeen);
    IoPlugin io(mSeen);
    EXPECT_EQ(PluginAdapter::wrapV2(&legacy, PluginOwnership::kBORROWED, mLogger).value()->generation(),
        PluginGeneration::kV2);
    EXPECT_EQ(PluginAdapter::wrapV2(&ext, PluginOwnership::kBORROWED, mLogger).value()->generation(),
        PluginGeneration::kV2_EXT);
    EXPECT_EQ(PluginAdapter::wrapV2(&io, PluginOwnership::kBORROWED, mLogger).value()->generation(),
        PluginGeneration::kV2_IOEXT);
    WrongTagPlugin wrong(mSeen);
    auto bad = PluginAdapter::wrapV2(&wrong, PluginOwnership::kBORROWED, mLogger);
    ASSERT_FALSE(bad.isOk());
    EXPECT_THAT(bad.status().message(), HasSubstr("0x07000640"));
    EXPECT_THAT(bad.status().message(), HasSubstr("must not override getTensorRTVersion"));
    auto null = PluginAdapter::wrapV2(nullptr, PluginOwnership::kBORROWED, mLogger);
    ASSERT_FALSE(null.isOk());
    EXPECT_THAT(null.status().message(), HasSubstr("null"));
    EXPECT_STREQ(pluginGenerationName(PluginGeneration::kV2_IOEXT), "IPluginV2IOExt");
}

TEST_F(PluginAdapterV2Test, LegacyNeedsBuildTimeShapes)
{
    LegacyPlugin plugin(mSeen);
    auto a = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, mLogger).value();
    a->setLayerName("legacy");
    ShapeGraph graph;
    DimExpr n(&graph, graph.symbol(SymbolKind::kINPUT_DIM, "x[0]"));
    DimExpr k(&graph, graph.constant(4));
    auto dynamic = a->outputShapes(graph, {{n, k}}, {});
    ASSERT_FALSE(dynamic.isOk());
    EXPECT_THAT(dynamic.status().message(), HasSubstr("plugin 'Legacy'"));
    EXPECT_THAT(dynamic.status().message(), HasSubstr("dimension 0 of input 0 is only known at run time"));
    EXPECT_THAT(dynamic.status().message(), HasSubstr("IPluginV2DynamicExt or IPluginV3"));

    std::uniform_int_distribution<int64_t> dist(1, 30);
    int64_t const rows = dist(mRng);
    auto shapes = a->outputShapes(graph, {{DimExpr(&graph, graph.constant(rows)), k}}, {});
    ASSERT_TRUE(shapes.isOk()) << shapes.status().message();
    ASSERT_EQ(shapes.value().outputs[0].size(), 2U);
    EXPECT_TRUE(shapes.value().outputs[0][0].is(rows + 1));
    EXPECT_TRUE(shapes.value().outputs[0][1].is(4));
    auto shapeInputs = a->outputShapes(graph, {{k, k}}, {{k}});
    ASSERT_FALSE(shapeInputs.isOk());
    EXPECT_THAT(shapeInputs.status().message(), HasSubstr("shape inputs are only supported for IPluginV3"));
}

TEST_F(PluginAdapterV2Test, LegacyOneTypeAndFormatForAllIO)
{
    LegacyPlugin plugin(mSeen);
    auto a = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, mLogger).value();
    EXPECT_EQ(a->outputTypes({DataType::kHALF}).value(), std::vector<DataType>{DataType::kHALF});
    std::vector<PluginTensorDesc> io{desc({2, 3}, DataType::kHALF), desc({3, 3}, DataType::kHALF)};
    EXPECT_TRUE(a->supportsFormatCombination(0, io, 1).value());
    EXPECT_TRUE(a->supportsFormatCombination(1, io, 1).value());
    io[1].type = DataType::kFLOAT; // supported by supportsFormat, but differs from inOut[0]
    EXPECT_FALSE(a->supportsFormatCombination(1, io, 1).value());
    io[0] = desc({2, 3}, DataType::kINT8);
    EXPECT_FALSE(a->supportsFormatCombination(0, io, 1).value());
    io[0] = desc({2, 3}, DataType::kFLOAT, TensorFormat::kCHW4);
    EXPECT_FALSE(a->supportsFormatCombination(0, io, 1).value());
}

TEST_F(PluginAdapterV2Test, LegacyLifecycleAndExecution)
{
    std::vector<std::string> trace;
    PluginAdapter::setTraceSink([&](std::string const& p, std::string const& c) { trace.push_back(p + ":" + c); });
    auto* plugin = new LegacyPlugin(mSeen);
    {
        auto a = PluginAdapter::wrapV2(plugin, PluginOwnership::kOWNED, mLogger).value();
        auto in = desc({2, 3}, DataType::kFLOAT);
        auto out = desc({3, 3}, DataType::kFLOAT);
        ASSERT_TRUE(a->configure({dyn(in)}, {dyn(out)}).isOk());
        EXPECT_EQ(mSeen.inputDims.d[0], 2);
        EXPECT_EQ(mSeen.type, DataType::kFLOAT);
        EXPECT_EQ(mSeen.format, TensorFormat::kLINEAR);
        EXPECT_EQ(mSeen.maxBatchSize, 1);
        EXPECT_EQ(a->workspaceSize({dyn(in)}, {dyn(out)}).value(), 16U);
        EXPECT_EQ(a->serialize().value(), "abc");
        ASSERT_TRUE(a->initialize().isOk());
        NullResources resources;
        auto shared = a->attachToContext(resources);
        ASSERT_TRUE(shared.isOk());
        EXPECT_EQ(shared.value()->object(), a->object()); // plain IPluginV2 is shared by contexts
        auto x = random(6);
        std::vector<float> y(9, std::nanf(""));
        void const* inputs[] = {x.data()};
        void* outputs[] = {y.data()};
        ASSERT_TRUE(shared.value()->enqueue({in}, {out}, inputs, outputs, nullptr, nullptr).isOk());
        EXPECT_EQ(mSeen.batchSize, 1);
        for (size_t i = 0; i < 6; ++i)
        {
            EXPECT_EQ(y[i], x[i] * 3.0F);
        }
        for (size_t i = 6; i < 9; ++i)
        {
            EXPECT_EQ(y[i], 0.0F);
        }
        shared = StatusOr<std::unique_ptr<PluginAdapter>>(internalError("released"));
        EXPECT_EQ(mSeen.destroyed, 0); // the shared adapter borrows
    }
    EXPECT_EQ(mSeen.destroyed, 1);
    PluginAdapter::setTraceSink(nullptr);
    std::vector<std::string> const expected{"Legacy:configureWithFormat", "Legacy:getWorkspaceSize",
        "Legacy:getSerializationSize", "Legacy:serialize", "Legacy:initialize", "Legacy:enqueue", "Legacy:terminate",
        "Legacy:destroy"};
    EXPECT_EQ(trace, expected);
    EXPECT_TRUE(plugin != nullptr);
}

TEST_F(PluginAdapterV2Test, ExtOutputTypesAndConfigure)
{
    ExtPlugin plugin(mSeen);
    auto a = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, mLogger).value();
    EXPECT_EQ(a->pluginNamespace(), "extns");
    EXPECT_FALSE(a->supportsCpu()); // no IPluginCpuSupport mix-in
    EXPECT_EQ(a->outputTypes({DataType::kHALF}).value(), std::vector<DataType>{DataType::kFLOAT});
    // Inputs share inOut[0]'s type; outputs must have getOutputDataType's type.
    std::vector<PluginTensorDesc> io{desc({4}, DataType::kHALF), desc({4}, DataType::kHALF)};
    EXPECT_TRUE(a->supportsFormatCombination(0, io, 1).value());
    EXPECT_FALSE(a->supportsFormatCombination(1, io, 1).value());
    io[1].type = DataType::kFLOAT;
    EXPECT_TRUE(a->supportsFormatCombination(1, io, 1).value());

    auto in = desc({5}, DataType::kHALF);
    auto out = desc({5}, DataType::kFLOAT);
    ASSERT_TRUE(a->configure({dyn(in)}, {dyn(out)}).isOk());
    EXPECT_EQ(mSeen.inTypes, std::vector<DataType>{DataType::kHALF});
    EXPECT_EQ(mSeen.outTypes, std::vector<DataType>{DataType::kFLOAT});
    EXPECT_EQ(mSeen.format, TensorFormat::kLINEAR);
    EXPECT_EQ(mSeen.maxBatchSize, 1);
    EXPECT_EQ(mSeen.inputDims.d[0], 5);
}

TEST_F(PluginAdapterV2Test, ExtAttachesAClonePerContext)
{
    std::vector<std::string> trace;
    PluginAdapter::setTraceSink([&](std::string const& p, std::string const& c) { trace.push_back(p + ":" + c); });
    ExtPlugin plugin(mSeen);
    auto a = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, mLogger).value();
    NullResources resources;
    auto c = a->attachToContext(resources);
    ASSERT_TRUE(c.isOk()) << c.status().message();
    EXPECT_NE(c.value()->object(), a->object());
    EXPECT_TRUE(mSeen.attachedAllocatorNull);
    auto in = desc({6}, DataType::kFLOAT);
    ASSERT_TRUE(c.value()->configure({dyn(in)}, {dyn(in)}).isOk());
    auto x = random(6);
    std::vector<float> y(6, std::nanf(""));
    void const* inputs[] = {x.data()};
    void* outputs[] = {y.data()};
    ASSERT_TRUE(c.value()->enqueue({in}, {in}, inputs, outputs, nullptr, nullptr).isOk());
    for (size_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(y[i], x[i] + 1.0F);
    }
    c = StatusOr<std::unique_ptr<PluginAdapter>>(internalError("released"));
    EXPECT_EQ(mSeen.destroyed, 1);
    PluginAdapter::setTraceSink(nullptr);
    std::vector<std::string> const expected{
        "Ext:clone", "Ext:attachToContext", "Ext:configurePlugin", "Ext:enqueue", "Ext:detachFromContext", "Ext:destroy"};
    EXPECT_EQ(trace, expected);
}

TEST_F(PluginAdapterV2Test, IoExtNegotiatesPerTensorAndSeesInt8Scale)
{
    IoPlugin plugin(mSeen);
    auto a = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, mLogger).value();
    std::vector<PluginTensorDesc> io{desc({2, 2}, DataType::kINT8), desc({2, 2}, DataType::kINT8)};
    EXPECT_TRUE(a->supportsFormatCombination(0, io, 1).value());
    EXPECT_TRUE(a->supportsFormatCombination(1, io, 1).value());
    io[1].type = DataType::kFLOAT;
    EXPECT_FALSE(a->supportsFormatCombination(1, io, 1).value());
    ASSERT_TRUE(a->configure({dyn(io[0])}, {dyn(io[0])}).isOk());
    EXPECT_EQ(mSeen.type, DataType::kINT8);
    EXPECT_FLOAT_EQ(mSeen.inScale, 0.05F);
    EXPECT_EQ(a->workspaceSize({dyn(io[0])}, {dyn(io[0])}).value(), 128U);

    auto in = desc({3, 2}, DataType::kFLOAT);
    ASSERT_TRUE(a->configure({dyn(in)}, {dyn(in)}).isOk());
    auto x = random(6);
    std::vector<float> y(6, std::nanf(""));
    void const* inputs[] = {x.data()};
    void* outputs[] = {y.data()};
    ASSERT_TRUE(a->enqueue({in}, {in}, inputs, outputs, nullptr, nullptr).isOk());
    EXPECT_EQ(mSeen.batchSize, 1);
    for (size_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(y[i], x[i] * 2.0F);
    }
}

} // namespace

KILN_IGNORE_DEPRECATED_END
