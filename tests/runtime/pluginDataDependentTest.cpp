// Runtime tests of data-dependent shapes with a NonZero-style IPluginV3 (hand-built plan, see
// pluginRuntimeTestPlans.h): the size tensor binds the data-dependent dimension after the plugin ran, a downstream
// layer sees the real shape, the output goes to its IOutputAllocator (reallocateOutputAsync with the real size,
// then notifyShape with the real dims), or, without an allocator, in place to the buffer the application bound;
// getTensorShape answers -1 before a run and the real shape after it, and the failure paths (neither allocator nor
// address, executeV2, a size above the declared upper bound) name their cause.
#include "runtime/pluginRuntimeTestPlans.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
namespace tp = plugins;

//! Output allocator that records every call and owns what it hands out.
class RecordingOutputAllocator : public nvinfer1::IOutputAllocator
{
public:
    ~RecordingOutputAllocator() override
    {
        for (void* p : mBlocks)
        {
            std::free(p);
        }
    }
    void* reallocateOutputAsync(char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment,
        cudaStream_t stream) noexcept override
    {
        calls.push_back("reallocate " + std::string(tensorName) + " " + std::to_string(size));
        lastCurrent = currentMemory;
        lastAlignment = alignment;
        lastStream = stream;
        if (currentMemory != nullptr && size <= mSize)
        {
            return currentMemory;
        }
        void* p = std::aligned_alloc(256, (size + 255) / 256 * 256);
        std::memset(p, 0xEE, (size + 255) / 256 * 256); // poison
        mBlocks.push_back(p);
        mSize = size;
        memory = p;
        return p;
    }
    void notifyShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept override
    {
        calls.push_back("notifyShape " + std::string(tensorName) + " " + dimsString(dims));
        shape = dims;
    }

    std::vector<std::string> calls;
    void* memory{nullptr};
    void* lastCurrent{nullptr};
    uint64_t lastAlignment{0};
    cudaStream_t lastStream{nullptr};
    nvinfer1::Dims shape{-1, {}};

private:
    std::vector<void*> mBlocks;
    uint64_t mSize{0};
};

//! Random [rows, 5] input with about `density` non-zero values (never all zeros unless density is 0).
HostTensor sparseInput(std::mt19937& rng, int64_t rows, double density)
{
    HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({rows, kNONZERO_COLUMNS}), rng, 0.5, 4.0);
    std::bernoulli_distribution keep(density);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        if (!keep(rng))
        {
            x.set(i, 0.0);
        }
    }
    return x;
}

//! Reference: (row, column) pairs of the non-zero elements, row-major.
std::vector<int32_t> nonZeroReference(HostTensor const& x)
{
    std::vector<int32_t> pairs;
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        if (x.at(i) != 0.0)
        {
            pairs.push_back(static_cast<int32_t>(i / kNONZERO_COLUMNS));
            pairs.push_back(static_cast<int32_t>(i % kNONZERO_COLUMNS));
        }
    }
    return pairs;
}

struct NonZeroFixture
{
    PluginRuntime rt;
    std::unique_ptr<nvinfer1::ICudaEngine> engine;
    std::unique_ptr<nvinfer1::IExecutionContext> ctx;
    RecordingOutputAllocator allocator;
    int32_t count{-7};

    NonZeroFixture()
    {
        engine = rt.load(makeNonZeroPlan());
        EXPECT_NE(engine, nullptr) << rt.logger.allErrors();
        if (engine != nullptr)
        {
            ctx.reset(engine->createExecutionContext());
        }
        EXPECT_NE(ctx, nullptr) << rt.logger.allErrors();
    }

    //! Run on x; `withAllocator` sets the output allocator of "out".
    bool run(HostTensor const& x, bool withAllocator = true, cudaStream_t stream = nullptr)
    {
        count = -7; // poison
        EXPECT_TRUE(ctx->setInputShape("x", x.dims));
        EXPECT_TRUE(ctx->setTensorAddress("x", const_cast<void*>(x.data())));
        EXPECT_TRUE(ctx->setTensorAddress("count", &count));
        if (withAllocator)
        {
            EXPECT_TRUE(ctx->setOutputAllocator("out", &allocator));
        }
        return ctx->enqueueV3(stream);
    }
};

TEST(PluginDataDependentTest, NonZeroOutputGoesThroughTheOutputAllocator)
{
    std::mt19937 rng(401);
    NonZeroFixture f;
    ASSERT_NE(f.ctx, nullptr);
    HostTensor const x = sparseInput(rng, 4, 0.4);
    std::vector<int32_t> const expected = nonZeroReference(x);
    int64_t const k = static_cast<int64_t>(expected.size() / 2);

    // Before the run: the data-dependent extent is unknown; the maximum size is the upper bound (4*5 pairs).
    ASSERT_TRUE(f.ctx->setInputShape("x", x.dims));
    nvinfer1::Dims before = f.ctx->getTensorShape("out");
    ASSERT_EQ(before.nbDims, 2);
    EXPECT_EQ(before.d[0], -1);
    EXPECT_EQ(before.d[1], 2);
    EXPECT_EQ(f.ctx->getMaxOutputSize("out"), 4 * kNONZERO_COLUMNS * 2 * 4);
    EXPECT_EQ(f.ctx->inferShapes(0, nullptr), 0);

    auto* const stream = reinterpret_cast<cudaStream_t>(uintptr_t{0x77});
    ASSERT_TRUE(f.run(x, true, stream)) << f.rt.logger.allErrors();
    EXPECT_EQ(f.count, k);
    std::vector<std::string> const calls = {"reallocate out " + std::to_string(std::max<int64_t>(k * 2 * 4, 1)),
        "notifyShape out " + dimsString(makeDims({k, 2}))};
    EXPECT_EQ(f.allocator.calls, calls);
    EXPECT_EQ(f.allocator.lastStream, stream);
    EXPECT_EQ(f.allocator.lastCurrent, nullptr);
    EXPECT_GE(f.allocator.lastAlignment, 4U);
    ASSERT_NE(f.allocator.memory, nullptr);
    std::vector<int32_t> got(static_cast<size_t>(2 * k));
    std::memcpy(got.data(), f.allocator.memory, got.size() * sizeof(int32_t));
    EXPECT_EQ(got, expected);
    nvinfer1::Dims after = f.ctx->getTensorShape("out");
    EXPECT_EQ(dimsString(after), dimsString(makeDims({k, 2})));

    // The plugin saw the data-dependent extent as -1 (it is only known once it ran), the static one as 2.
    {
        std::lock_guard<std::mutex> lock(tp::control().mutex);
        ASSERT_GE(tp::control().nonZeroOutDims.size(), 2U);
        nvinfer1::Dims const seen = tp::control().nonZeroOutDims[0];
        EXPECT_EQ(seen.nbDims, 2);
        EXPECT_EQ(seen.d[0], -1);
        EXPECT_EQ(seen.d[1], 2);
        EXPECT_EQ(tp::control().nonZeroOutDims[1].nbDims, 0);
    }

    // A second run with other data: the allocator is asked again with the new size (it keeps a large enough block).
    HostTensor const x2 = sparseInput(rng, 4, 0.8);
    std::vector<int32_t> const expected2 = nonZeroReference(x2);
    int64_t const k2 = static_cast<int64_t>(expected2.size() / 2);
    f.allocator.calls.clear();
    ASSERT_TRUE(f.run(x2)) << f.rt.logger.allErrors();
    EXPECT_EQ(f.count, k2);
    ASSERT_EQ(f.allocator.calls.size(), 2U);
    EXPECT_EQ(f.allocator.calls[1], "notifyShape out " + dimsString(makeDims({k2, 2})));
    got.assign(static_cast<size_t>(2 * k2), 0);
    std::memcpy(got.data(), f.allocator.memory, got.size() * sizeof(int32_t));
    EXPECT_EQ(got, expected2);
    EXPECT_EQ(f.ctx->getTensorShape("out").d[0], k2);

    // New input shapes: the extent is unknown again until the next run.
    ASSERT_TRUE(f.ctx->setInputShape("x", makeDims({6, kNONZERO_COLUMNS})));
    EXPECT_EQ(f.ctx->getTensorShape("out").d[0], -1);
    EXPECT_EQ(f.ctx->getMaxOutputSize("out"), 6 * kNONZERO_COLUMNS * 2 * 4);
    HostTensor const x3 = sparseInput(rng, 6, 0.5);
    ASSERT_TRUE(f.run(x3)) << f.rt.logger.allErrors();
    std::vector<int32_t> const expected3 = nonZeroReference(x3);
    got.assign(expected3.size(), 0);
    std::memcpy(got.data(), f.allocator.memory, got.size() * sizeof(int32_t));
    EXPECT_EQ(got, expected3);
    EXPECT_EQ(f.rt.recorder.getNbErrors(), 0);
}

TEST(PluginDataDependentTest, EmptyResultStillGetsMemoryAndShape)
{
    std::mt19937 rng(402);
    NonZeroFixture f;
    ASSERT_NE(f.ctx, nullptr);
    HostTensor const zeros = sparseInput(rng, 3, 0.0);
    ASSERT_TRUE(f.run(zeros)) << f.rt.logger.allErrors();
    EXPECT_EQ(f.count, 0);
    std::vector<std::string> const calls = {"reallocate out 1", "notifyShape out [0,2]"};
    EXPECT_EQ(f.allocator.calls, calls);
    EXPECT_EQ(f.ctx->getTensorShape("out").d[0], 0);
}

TEST(PluginDataDependentTest, DataDependentOutputNeedsAnAllocatorOrAnAddress)
{
    std::mt19937 rng(403);
    NonZeroFixture f;
    ASSERT_NE(f.ctx, nullptr);
    HostTensor const x = sparseInput(rng, 2, 0.5);
    EXPECT_FALSE(f.run(x, /*withAllocator=*/false));
    EXPECT_TRUE(f.rt.logger.hasError("IExecutionContext::enqueueV3: output 'out' has a data-dependent shape and neither "
                                     "an IOutputAllocator nor an address"))
        << f.rt.logger.allErrors();
    EXPECT_TRUE(f.rt.logger.hasError("up to " + std::to_string(2 * kNONZERO_COLUMNS * 2 * 4) + " bytes"))
        << f.rt.logger.allErrors();

    // executeV2 cannot deliver it at all.
    int32_t count = 0;
    std::vector<int32_t> out(2 * 2 * kNONZERO_COLUMNS);
    void* bindings[] = {const_cast<void*>(x.data()), &count, out.data()};
    f.rt.logger.clear();
    EXPECT_FALSE(f.ctx->executeV2(bindings));
    EXPECT_TRUE(f.rt.logger.hasError("IExecutionContext::executeV2: output 'out' has a data-dependent shape"))
        << f.rt.logger.allErrors();
    EXPECT_TRUE(f.rt.logger.hasError("enqueueV3")) << f.rt.logger.allErrors();

    // With the allocator the same context works.
    ASSERT_TRUE(f.run(x)) << f.rt.logger.allErrors();
    EXPECT_EQ(f.count, static_cast<int32_t>(nonZeroReference(x).size() / 2));
}

TEST(PluginDataDependentTest, WithoutAllocatorTheBoundBufferIsWrittenInPlace)
{
    std::mt19937 rng(405);
    NonZeroFixture f;
    ASSERT_NE(f.ctx, nullptr);
    int64_t const rows = 5;
    ASSERT_TRUE(f.ctx->setInputShape("x", makeDims({rows, kNONZERO_COLUMNS})));
    int64_t const maxBytes = f.ctx->getMaxOutputSize("out");
    ASSERT_EQ(maxBytes, rows * kNONZERO_COLUMNS * 2 * 4);
    // The application sizes the buffer itself (as TensorRT's sampleNonZeroPlugin does), poisoned, with a guard
    // after the largest result that must stay untouched.
    int32_t const kPOISON = -12345;
    size_t const capacity = static_cast<size_t>(maxBytes) / sizeof(int32_t);
    std::vector<int32_t> buffer(capacity + 16, kPOISON);
    ASSERT_TRUE(f.ctx->setTensorAddress("out", buffer.data()));
    EXPECT_EQ(f.ctx->getOutputAllocator("out"), nullptr);

    for (double density : {0.3, 0.9, 0.0, 0.6})
    {
        SCOPED_TRACE("density " + std::to_string(density));
        HostTensor const x = sparseInput(rng, rows, density);
        std::vector<int32_t> const expected = nonZeroReference(x);
        int64_t const k = static_cast<int64_t>(expected.size() / 2);
        std::fill(buffer.begin(), buffer.end(), kPOISON);
        f.rt.logger.clear();
        ASSERT_TRUE(f.run(x, /*withAllocator=*/false)) << f.rt.logger.allErrors();
        EXPECT_EQ(f.count, k);
        std::vector<int32_t> const got(buffer.begin(), buffer.begin() + 2 * k);
        EXPECT_EQ(got, expected);
        for (size_t i = capacity; i < buffer.size(); ++i)
        {
            ASSERT_EQ(buffer[i], kPOISON) << "written past the largest result at element " << i;
        }
        // The real shape is published for getTensorShape after the run.
        EXPECT_EQ(dimsString(f.ctx->getTensorShape("out")), dimsString(makeDims({k, 2})));
    }
    EXPECT_EQ(f.rt.recorder.getNbErrors(), 0);

    // The verbose log says that the application's buffer size is trusted: once per address, not once per run.
    NonZeroFixture g;
    ASSERT_NE(g.ctx, nullptr);
    ASSERT_TRUE(g.ctx->setInputShape("x", makeDims({rows, kNONZERO_COLUMNS})));
    ASSERT_TRUE(g.ctx->setTensorAddress("out", buffer.data()));
    HostTensor const x = sparseInput(rng, rows, 0.5);
    ASSERT_TRUE(g.run(x, false)) << g.rt.logger.allErrors();
    ASSERT_TRUE(g.run(x, false)) << g.rt.logger.allErrors();
    EXPECT_EQ(g.rt.logger.countMessages("the application's buffer size is trusted"), 1);

    // An allocator set later takes over; clearing it goes back to the bound buffer.
    ASSERT_TRUE(g.run(x, /*withAllocator=*/true)) << g.rt.logger.allErrors();
    ASSERT_EQ(g.allocator.calls.size(), 2U);
    std::fill(buffer.begin(), buffer.end(), kPOISON);
    ASSERT_TRUE(g.ctx->setOutputAllocator("out", nullptr));
    ASSERT_TRUE(g.ctx->setTensorAddress("out", buffer.data()));
    ASSERT_TRUE(g.run(x, false)) << g.rt.logger.allErrors();
    std::vector<int32_t> const expected = nonZeroReference(x);
    EXPECT_EQ(std::vector<int32_t>(buffer.begin(), buffer.begin() + static_cast<int64_t>(expected.size())), expected);
    EXPECT_EQ(g.allocator.calls.size(), 2U);
}

TEST(PluginDataDependentTest, SizeAboveTheUpperBoundIsAnError)
{
    std::mt19937 rng(404);
    NonZeroFixture f;
    ASSERT_NE(f.ctx, nullptr);
    HostTensor const x = sparseInput(rng, 2, 0.5);
    tp::control().extraCount = 1000;
    EXPECT_FALSE(f.run(x));
    std::string const errors = f.rt.logger.allErrors();
    for (char const* part : {"IExecutionContext::enqueueV3", "KilnTestNonZero", "nonZero", "size tensor 'count'",
             "outside [0, 10]", "declareSizeTensor"})
    {
        EXPECT_NE(errors.find(part), std::string::npos) << "missing '" << part << "' in: " << errors;
    }
    EXPECT_TRUE(f.allocator.calls.empty()) << "nothing is delivered from a failed run";
    tp::control().extraCount = -1000;
    f.rt.logger.clear();
    EXPECT_FALSE(f.run(x));
    EXPECT_TRUE(f.rt.logger.hasError("outside [0, 10]")) << f.rt.logger.allErrors();
    // And the next correct run works.
    tp::control().extraCount = 0;
    ASSERT_TRUE(f.run(x)) << f.rt.logger.allErrors();
    EXPECT_EQ(f.count, static_cast<int32_t>(nonZeroReference(x).size() / 2));
}

TEST(PluginDataDependentTest, ContextsKeepTheirOwnDataDependentShapes)
{
    std::mt19937 rng(405);
    NonZeroFixture f;
    ASSERT_NE(f.ctx, nullptr);
    std::unique_ptr<nvinfer1::IExecutionContext> other(f.engine->createExecutionContext());
    ASSERT_NE(other, nullptr);
    RecordingOutputAllocator otherAllocator;
    HostTensor const a = sparseInput(rng, 5, 0.2);
    HostTensor const b = sparseInput(rng, 5, 0.9);
    ASSERT_TRUE(f.run(a)) << f.rt.logger.allErrors();
    int32_t otherCount = -1;
    ASSERT_TRUE(other->setInputShape("x", b.dims));
    ASSERT_TRUE(other->setTensorAddress("x", const_cast<void*>(b.data())));
    ASSERT_TRUE(other->setTensorAddress("count", &otherCount));
    ASSERT_TRUE(other->setOutputAllocator("out", &otherAllocator));
    ASSERT_TRUE(other->enqueueV3(nullptr)) << f.rt.logger.allErrors();
    EXPECT_EQ(f.ctx->getTensorShape("out").d[0], static_cast<int64_t>(nonZeroReference(a).size() / 2));
    EXPECT_EQ(other->getTensorShape("out").d[0], static_cast<int64_t>(nonZeroReference(b).size() / 2));
    EXPECT_EQ(otherCount, static_cast<int32_t>(nonZeroReference(b).size() / 2));
}

TEST(PluginDataDependentTest, BuiltNonZeroEngineRuns)
{
    std::mt19937 rng(406);
    NetworkRunner r;
    nvinfer1::ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, kNONZERO_COLUMNS});
    addProfile(r, "x", {1, kNONZERO_COLUMNS}, {3, kNONZERO_COLUMNS}, {6, kNONZERO_COLUMNS});
    tp::NonZeroPlugin plugin;
    nvinfer1::IPluginV3Layer* layer = r.network().addPluginV3(&x, 1, nullptr, 0, plugin);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    layer->setName("nonZero");
    r.markOutput(layer->getOutput(0), "out");
    r.markOutput(layer->getOutput(1), "count");
    std::unique_ptr<nvinfer1::IHostMemory> bytes(r.builder().buildSerializedNetwork(r.network(), r.config()));
    ASSERT_NE(bytes, nullptr) << r.logger().allErrors();
    auto const* p = static_cast<uint8_t const*>(bytes->data());
    std::vector<uint8_t> const engineBytes(p, p + bytes->size());

    PluginRuntime rt;
    auto engine = rt.load(engineBytes);
    ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr) << rt.logger.allErrors();
    RecordingOutputAllocator allocator;
    for (int64_t rows : {5, 2, 6})
    {
        HostTensor const in = sparseInput(rng, rows, 0.45);
        std::vector<int32_t> const expected = nonZeroReference(in);
        int32_t count = -7;
        ASSERT_TRUE(ctx->setInputShape("x", in.dims));
        EXPECT_EQ(ctx->getTensorShape("out").d[0], -1);
        ASSERT_TRUE(ctx->setTensorAddress("x", const_cast<void*>(in.data())));
        ASSERT_TRUE(ctx->setTensorAddress("count", &count));
        ASSERT_TRUE(ctx->setOutputAllocator("out", &allocator));
        ASSERT_TRUE(ctx->enqueueV3(nullptr)) << rt.logger.allErrors();
        EXPECT_EQ(count, static_cast<int32_t>(expected.size() / 2));
        EXPECT_EQ(dimsString(allocator.shape), dimsString(makeDims({static_cast<int64_t>(expected.size() / 2), 2})));
        std::vector<int32_t> got(expected.size());
        std::memcpy(got.data(), allocator.memory, got.size() * sizeof(int32_t));
        EXPECT_EQ(got, expected) << "rows " << rows;
    }
}

TEST(PluginDataDependentTest, EngineNeedsAConsistentSizeTensor)
{
    PluginRuntime rt;
    Plan plan = makeNonZeroPlan();
    plan.tensors[2].sizeTensorSymbol = -1; // the symbol loses its size tensor
    EXPECT_EQ(rt.load(plan), nullptr);
    EXPECT_TRUE(rt.logger.hasError("data-dependent shape symbol 'nonZero.1.size' has no size tensor"))
        << rt.logger.allErrors();
    rt.logger.clear();
    plan = makeNonZeroPlan();
    plan.shapes.setSymbolBounds(1, -1, -1);
    EXPECT_EQ(rt.load(plan), nullptr);
    EXPECT_TRUE(rt.logger.hasError("'nonZero.1.size' has no upper bound")) << rt.logger.allErrors();
}

} // namespace
} // namespace kiln::test
