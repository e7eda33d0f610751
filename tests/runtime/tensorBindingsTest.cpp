// Tests of the execution context's address table (src/runtime/tensorBindings.h) through IExecutionContext: a run
// binds tensors again only when an address, an output allocator, the shapes or the memory changed, and then writes
// where the application said; executeV2's bindings stand for one run only; a steady run allocates nothing.
#include "common/allocationCounter.h"
#include "runtimeTestPlans.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace kiln::test
{
namespace
{

using namespace nvinfer1;

constexpr float kPOISON = -777.0F;

std::vector<float> poisoned(size_t n)
{
    return std::vector<float>(n, kPOISON);
}

//! Poison `v` in place (the buffer keeps its address, which the context holds).
void poison(std::vector<float>& v)
{
    std::fill(v.begin(), v.end(), kPOISON);
}

//! New random values in place.
void refill(std::vector<float>& v, std::mt19937& rng)
{
    std::vector<float> const fresh = randomFloats(v.size(), rng);
    std::copy(fresh.begin(), fresh.end(), v.begin());
}

bool untouched(std::vector<float> const& v)
{
    for (float x : v)
    {
        if (x != kPOISON)
        {
            return false;
        }
    }
    return true;
}

//! The chain engine (y = x through an arena tensor) with a context whose input shape is [3, 4], random input `x`
//! bound, and two poisoned output buffers.
struct ChainContext
{
    LoadedEngine loaded{makeChainPlan()};
    std::unique_ptr<IExecutionContext> ctx;
    std::mt19937 rng;
    std::vector<float> x;
    std::vector<float> yA = poisoned(12);
    std::vector<float> yB = poisoned(12);

    explicit ChainContext(uint32_t seed)
        : rng(seed)
        , x(randomFloats(12, rng))
    {
        ctx.reset(loaded.engine->createExecutionContext());
        EXPECT_NE(ctx, nullptr) << loaded.logger.allErrors();
        EXPECT_TRUE(ctx->setInputShape("x", dimsOf({3, 4})));
        EXPECT_TRUE(ctx->setTensorAddress("x", x.data()));
    }
};

TEST(TensorBindingsTest, ExecuteV2BindingsStandForOneRun)
{
    ChainContext c(71);
    std::vector<float> x2 = randomFloats(12, c.rng);
    ASSERT_TRUE(c.ctx->setTensorAddress("y", c.yA.data()));
    ASSERT_TRUE(c.ctx->enqueueV3(nullptr)) << c.loaded.logger.allErrors();
    EXPECT_EQ(c.yA, c.x);

    poison(c.yA);
    void* bindings[2] = {x2.data(), c.yB.data()};
    ASSERT_TRUE(c.ctx->executeV2(bindings)) << c.loaded.logger.allErrors();
    EXPECT_EQ(c.yB, x2);
    EXPECT_TRUE(untouched(c.yA));
    EXPECT_EQ(c.ctx->getTensorAddress("y"), c.yA.data()); // executeV2 does not change the application's addresses

    // The next enqueueV3 runs with the application's addresses again.
    poison(c.yB);
    ASSERT_TRUE(c.ctx->enqueueV3(nullptr)) << c.loaded.logger.allErrors();
    EXPECT_EQ(c.yA, c.x);
    EXPECT_TRUE(untouched(c.yB));

    // executeV2 with the application's own addresses.
    poison(c.yA);
    void* own[2] = {c.x.data(), c.yA.data()};
    ASSERT_TRUE(c.ctx->executeV2(own)) << c.loaded.logger.allErrors();
    EXPECT_EQ(c.yA, c.x);
}

TEST(TensorBindingsTest, AddressesThatChangeAndChangeBackAreFollowed)
{
    ChainContext c(72);
    for (int round = 0; round < 3; ++round)
    {
        for (std::vector<float>* target : {&c.yA, &c.yB})
        {
            std::vector<float>* other = target == &c.yA ? &c.yB : &c.yA;
            refill(c.x, c.rng);
            poison(*target);
            poison(*other);
            ASSERT_TRUE(c.ctx->setTensorAddress("y", target->data()));
            ASSERT_TRUE(c.ctx->enqueueV3(nullptr)) << c.loaded.logger.allErrors();
            EXPECT_EQ(*target, c.x) << "round " << round;
            EXPECT_TRUE(untouched(*other)) << "round " << round;
        }
    }
}

class BufferAllocator : public IOutputAllocator
{
public:
    void* reallocateOutputAsync(char const*, void*, uint64_t size, uint64_t, cudaStream_t) override
    {
        buffer.assign(static_cast<size_t>(size) / sizeof(float), kPOISON);
        return buffer.data();
    }
    void notifyShape(char const*, Dims const& dims) noexcept override { shape = dims; }
    std::vector<float> buffer;
    Dims shape{};
};

TEST(TensorBindingsTest, OutputAllocatorSetAfterARunTakesOver)
{
    ChainContext c(73);
    ASSERT_TRUE(c.ctx->setTensorAddress("y", c.yA.data()));
    ASSERT_TRUE(c.ctx->enqueueV3(nullptr)) << c.loaded.logger.allErrors();
    EXPECT_EQ(c.yA, c.x);

    BufferAllocator allocator;
    poison(c.yA);
    ASSERT_TRUE(c.ctx->setOutputAllocator("y", &allocator));
    ASSERT_TRUE(c.ctx->enqueueV3(nullptr)) << c.loaded.logger.allErrors();
    EXPECT_EQ(allocator.buffer, c.x);
    EXPECT_EQ(allocator.shape.d[0], 3);
    EXPECT_EQ(c.ctx->getTensorAddress("y"), allocator.buffer.data());
    EXPECT_TRUE(untouched(c.yA));
}

TEST(TensorBindingsTest, RunsWithUnchangedOrMovedAddressesAllocateNothing)
{
    ChainContext c(74);
    ASSERT_TRUE(c.ctx->setTensorAddress("y", c.yA.data()));
    ASSERT_TRUE(c.ctx->enqueueV3(nullptr)) << c.loaded.logger.allErrors(); // first run: kernels reshape
    int64_t steady = 0;
    int64_t moved = 0;
    {
        AllocationCounter counter;
        bool const ran = c.ctx->enqueueV3(nullptr);
        steady = counter.count();
        ASSERT_TRUE(ran);
    }
    ASSERT_TRUE(c.ctx->setTensorAddress("y", c.yB.data()));
    {
        AllocationCounter counter;
        bool const ran = c.ctx->enqueueV3(nullptr); // binds again: a new address for y
        moved = counter.count();
        ASSERT_TRUE(ran);
    }
    EXPECT_EQ(steady, 0);
    EXPECT_EQ(moved, 0);
    EXPECT_EQ(c.yA, c.x);
    EXPECT_EQ(c.yB, c.x);
}

} // namespace
} // namespace kiln::test
