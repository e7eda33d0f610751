// Direct tests of the elementwise family's CPU kernel machinery: the broadcasting walker against naive indexing,
// the typed load/store conversions, and kernel creation from corrupt plan nodes (must fail, never crash).
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "common/kernelRun.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::KernelSetup;
using kiln::PlanNode;
using kiln::TensorView;

Dims dimsOf(std::vector<int64_t> const& v)
{
    Dims d{};
    d.nbDims = static_cast<int32_t>(v.size());
    for (size_t i = 0; i < v.size(); ++i)
    {
        d.d[i] = v[i];
    }
    return d;
}

int64_t volumeOfDims(Dims const& d)
{
    int64_t v = 1;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        v *= d.d[i];
    }
    return v;
}

int64_t naiveOffset(Dims const& in, Dims const& out, int64_t i)
{
    int64_t offset = 0;
    int64_t stride = 1;
    for (int32_t d = out.nbDims - 1; d >= 0; --d)
    {
        int64_t const coord = i % out.d[d];
        i /= out.d[d];
        if (in.d[d] != 1)
        {
            offset += coord * stride;
        }
        stride *= in.d[d];
    }
    return offset;
}

TEST(ElementWiseKernelTest, WalkerMatchesNaiveIndexing)
{
    std::mt19937 rng(17);
    for (int32_t rep = 0; rep < 200; ++rep)
    {
        int32_t const rank = std::uniform_int_distribution<int32_t>(0, 6)(rng);
        int32_t const nbOperands = std::uniform_int_distribution<int32_t>(1, 4)(rng);
        std::vector<int64_t> out;
        std::vector<std::vector<int64_t>> ins(static_cast<size_t>(nbOperands));
        for (int32_t d = 0; d < rank; ++d)
        {
            int64_t const n = std::uniform_int_distribution<int64_t>(1, 4)(rng);
            out.push_back(n);
            for (auto& in : ins)
            {
                in.push_back(std::uniform_int_distribution<int32_t>(0, 2)(rng) == 0 ? 1 : n);
            }
        }
        Dims const od = dimsOf(out);
        std::vector<Dims> operandDims;
        for (auto const& in : ins)
        {
            operandDims.push_back(dimsOf(in));
        }
        auto walker = kiln::ew::BroadcastWalker::make(od, operandDims);
        ASSERT_TRUE(walker.isOk()) << walker.status().message();
        int64_t volume = 1;
        for (int64_t n : out)
        {
            volume *= n;
        }
        std::vector<int32_t> seen(static_cast<size_t>(volume), 0);
        bool ok = true;
        walker->forEachChunk([&](int64_t outOffset, int64_t const* offsets, int64_t const* strides, int64_t n) {
            for (int64_t i = 0; i < n; ++i)
            {
                int64_t const o = outOffset + i;
                ASSERT_LT(o, volume);
                ++seen[static_cast<size_t>(o)];
                for (int32_t k = 0; k < nbOperands; ++k)
                {
                    if (offsets[k] + i * strides[k] != naiveOffset(operandDims[static_cast<size_t>(k)], od, o))
                    {
                        ok = false;
                    }
                }
            }
        });
        EXPECT_TRUE(ok) << "rep " << rep;
        for (int32_t s : seen)
        {
            EXPECT_EQ(s, 1);
        }
    }
}

TEST(ElementWiseKernelTest, WalkerRejectsBadShapes)
{
    EXPECT_FALSE(kiln::ew::BroadcastWalker::make(dimsOf({2, 3}), {dimsOf({3})}).isOk());
    EXPECT_FALSE(kiln::ew::BroadcastWalker::make(dimsOf({2, 3}), {dimsOf({2, 4})}).isOk());
    EXPECT_FALSE(kiln::ew::BroadcastWalker::make(dimsOf({-1, 3}), {dimsOf({1, 3})}).isOk());
    EXPECT_TRUE(kiln::ew::BroadcastWalker::make(dimsOf({2, 0}), {dimsOf({1, 0})}).isOk());
}

TEST(ElementWiseKernelTest, ConversionsSaturateWrapAndTruncate)
{
    float const f[5] = {300.7F, -300.7F, 1.9F, -1.9F, std::nanf("")};
    int8_t i8[5];
    kiln::ew::convertElements(f, DataType::kFLOAT, i8, DataType::kINT8, 5);
    EXPECT_EQ(i8[0], 127);
    EXPECT_EQ(i8[1], -128);
    EXPECT_EQ(i8[2], 1);
    EXPECT_EQ(i8[3], -1);
    EXPECT_EQ(i8[4], 0);
    int64_t const big[2] = {(int64_t{1} << 32) + 9, -1};
    int32_t i32[2];
    kiln::ew::convertElements(big, DataType::kINT64, i32, DataType::kINT32, 2);
    EXPECT_EQ(i32[0], 9);
    EXPECT_EQ(i32[1], -1);
    uint8_t b[2];
    kiln::ew::convertElements(big, DataType::kINT64, b, DataType::kBOOL, 2);
    EXPECT_EQ(b[0], 1);
    EXPECT_EQ(b[1], 1);
}

TEST(ElementWiseKernelTest, CorruptNodesFailKernelCreation)
{
    PlanNode node;
    node.name = "corrupt";
    KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kFLOAT, DataType::kFLOAT};
    setup.inputPresent = {true, true};
    setup.inputRanks = {1, 1};
    setup.outputTypes = {DataType::kFLOAT};
    setup.outputRanks = {1};
    // Missing attribute.
    EXPECT_FALSE(kiln::createElementWiseKernel(setup).isOk());
    // Out-of-range operation.
    node.attrs.setInt("operation", 42);
    EXPECT_FALSE(kiln::createElementWiseKernel(setup).isOk());
    // Mistyped attribute.
    node.attrs.setString("operation", "sum");
    EXPECT_FALSE(kiln::createElementWiseKernel(setup).isOk());
    node.attrs.setInt("operation", 0);
    EXPECT_TRUE(kiln::createElementWiseKernel(setup).isOk());
    // Wrong input count for a unary kernel.
    EXPECT_FALSE(kiln::createUnaryKernel(setup).isOk());
    // Scale without weight slots.
    KernelSetup scale = setup;
    scale.inputTypes = {DataType::kFLOAT};
    scale.inputPresent = {true};
    node.attrs.setInt("mode", 1);
    node.attrs.setInt("channelAxis", 1);
    EXPECT_FALSE(kiln::createScaleKernel(scale).isOk());
    // Constant whose weights do not fill the output fails at execution.
    KernelSetup constant = setup;
    constant.inputTypes = {};
    constant.inputPresent = {};
    float const w[2] = {1, 2};
    constant.weights = {kiln::WeightsView{w, DataType::kFLOAT, 2}};
    auto kernel = kiln::createConstantKernel(constant);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    float out[3];
    TensorView view;
    view.data = out;
    view.dims = dimsOf({3});
    EXPECT_FALSE(kiln::test::reshapeAndRun(*(*kernel), {}, {view}).isOk());
    // An elementwise kernel given shapes that do not broadcast fails instead of reading out of bounds.
    node.attrs.setInt("operation", 0);
    auto ew = kiln::createElementWiseKernel(setup);
    ASSERT_TRUE(ew.isOk());
    float a[2] = {1, 2};
    float c[3] = {1, 2, 3};
    TensorView va{a, DataType::kFLOAT, dimsOf({2}), nullptr};
    TensorView vc{c, DataType::kFLOAT, dimsOf({3}), nullptr};
    TensorView vo{out, DataType::kFLOAT, dimsOf({3}), nullptr};
    EXPECT_FALSE(kiln::test::reshapeAndRun(*(*ew), {va, vc}, {vo}).isOk());
}


//! Every kernel of the family, fed every storage type with arbitrary bytes (NaN, infinities, INT64_MIN,
//! zero divisors ...), must either refuse the types at creation or run without undefined behaviour.
TEST(ElementWiseKernelTest, KernelsTolerateArbitraryTypesAndBytes)
{
    std::vector<DataType> const types = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8,
        DataType::kUINT8, DataType::kINT32, DataType::kINT64, DataType::kBOOL};
    std::mt19937 rng(2468);
    auto randomBytes = [&](DataType t, int64_t n) {
        std::vector<uint8_t> b(static_cast<size_t>(n * kiln::elementSize(t)) + 1);
        for (auto& x : b)
        {
            x = static_cast<uint8_t>(rng());
        }
        if (t == DataType::kINT64 && n > 0)
        {
            int64_t const special[2] = {std::numeric_limits<int64_t>::min(), -1};
            std::memcpy(b.data(), &special[rng() % 2], sizeof(int64_t));
        }
        return b;
    };
    struct Kind
    {
        kiln::KernelFactory factory;
        char const* attr;
        int32_t nbValues;
        int32_t nbInputs;
    };
    std::vector<Kind> const kinds = {{kiln::createElementWiseKernel, "operation", 14, 2},
        {kiln::createUnaryKernel, "operation", 25, 1}, {kiln::createActivationKernel, "type", 14, 1},
        {kiln::createSelectKernel, nullptr, 1, 3}, {kiln::createParametricReLUKernel, nullptr, 1, 2},
        {kiln::createCastKernel, "toType", 1, 1}, {kiln::createIdentityKernel, nullptr, 1, 1}};
    Dims const out = dimsOf({3, 4});
    for (Kind const& kind : kinds)
    {
        for (int32_t value = 0; value < kind.nbValues; ++value)
        {
            for (int32_t rep = 0; rep < 12; ++rep)
            {
                PlanNode node;
                node.name = "fuzz";
                if (kind.attr != nullptr)
                {
                    node.attrs.setInt(kind.attr, value);
                }
                node.attrs.setFloat("alpha", 0.5);
                node.attrs.setFloat("beta", 2.0);
                KernelSetup setup;
                setup.node = &node;
                std::vector<std::vector<uint8_t>> buffers;
                std::vector<TensorView> inputs;
                for (int32_t i = 0; i < kind.nbInputs; ++i)
                {
                    DataType const t = types[rng() % types.size()];
                    Dims d = out;
                    if (rng() % 2 == 0)
                    {
                        d.d[rng() % 2] = 1;
                    }
                    setup.inputTypes.push_back(t);
                    setup.inputPresent.push_back(true);
                    setup.inputRanks.push_back(2);
                    buffers.push_back(randomBytes(t, volumeOfDims(d)));
                    inputs.push_back(TensorView{buffers.back().data(), t, d, nullptr});
                }
                DataType const outType = types[rng() % types.size()];
                if (kind.attr != nullptr && std::string(kind.attr) == "toType")
                {
                    node.attrs.setInt("toType", static_cast<int64_t>(outType));
                }
                setup.outputTypes = {outType};
                setup.outputRanks = {2};
                std::vector<uint8_t> outBytes(static_cast<size_t>(12 * kiln::elementSize(outType)));
                TensorView o{outBytes.data(), outType, out, nullptr};
                auto kernel = kind.factory(setup);
                if (!kernel.isOk())
                {
                    continue; // refused at creation: fine
                }
                if (kind.factory == kiln::createParametricReLUKernel || kind.factory == kiln::createUnaryKernel
                    || kind.factory == kiln::createActivationKernel || kind.factory == kiln::createCastKernel
                    || kind.factory == kiln::createIdentityKernel)
                {
                    inputs[0].dims = out; // these kernels need the input shape to equal the output's
                    buffers[0] = randomBytes(inputs[0].type, 12);
                    inputs[0].data = buffers[0].data();
                }
                (void) kiln::test::reshapeAndRun(*(*kernel), inputs, {o});
            }
        }
    }
}

} // namespace
