// PoolingLayerTest: IPoolingLayer end to end (oneDNN and reference tactics) and the pooling kernel objects directly,
// against a naive double-precision oracle written here.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "common/kernelRun.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;
using kiln::test::ScopedTactic;

struct PoolCase
{
    int64_t n{1};
    int64_t c{1};
    std::vector<int64_t> in;
    std::vector<int64_t> window;
    std::vector<int64_t> stride;
    std::vector<int64_t> pre;
    std::vector<int64_t> post;
    PaddingMode mode{PaddingMode::kEXPLICIT_ROUND_DOWN};
    PoolingType type{PoolingType::kMAX};
    double blend{0.0};
    bool exclude{true};

    size_t nb() const { return window.size(); }
    std::vector<int64_t> inputDims() const
    {
        std::vector<int64_t> d{n, c};
        d.insert(d.end(), in.begin(), in.end());
        return d;
    }
    std::string str() const
    {
        auto v = [](std::vector<int64_t> const& x) {
            std::string s;
            for (auto e : x)
            {
                s += std::to_string(e) + ",";
            }
            return s;
        };
        return "n=" + std::to_string(n) + " c=" + std::to_string(c) + " in=" + v(in) + " window=" + v(window)
            + " stride=" + v(stride) + " pre=" + v(pre) + " post=" + v(post) + " mode="
            + std::to_string(static_cast<int>(mode)) + " type=" + std::to_string(static_cast<int>(type))
            + " blend=" + std::to_string(blend) + " exclude=" + std::to_string(exclude);
    }
};

int64_t prod(std::vector<int64_t> const& v)
{
    int64_t p = 1;
    for (auto x : v)
    {
        p *= x;
    }
    return p;
}

std::vector<int64_t> unflatten(int64_t flat, std::vector<int64_t> const& dims)
{
    std::vector<int64_t> idx(dims.size());
    for (size_t j = dims.size(); j-- > 0;)
    {
        idx[j] = flat % dims[j];
        flat /= dims[j];
    }
    return idx;
}

int64_t flatten(std::vector<int64_t> const& idx, std::vector<int64_t> const& dims)
{
    int64_t f = 0;
    for (size_t j = 0; j < dims.size(); ++j)
    {
        f = f * dims[j] + idx[j];
    }
    return f;
}

//! Oracle: TensorRT's pooling output formulas; max pads with -inf; an average divides by the window's overlap
//! with the unpadded input (exclude) or with the padded input. Empty averages are 0.
std::vector<double> oraclePool(PoolCase const& pc, std::vector<double> const& x, std::vector<int64_t>& outDims)
{
    size_t const nb = pc.nb();
    std::vector<int64_t> out(nb);
    std::vector<int64_t> before(nb);
    std::vector<int64_t> after(nb);
    for (size_t j = 0; j < nb; ++j)
    {
        int64_t const i = pc.in[j];
        int64_t const f = pc.window[j];
        int64_t const s = pc.stride[j];
        switch (pc.mode)
        {
        case PaddingMode::kEXPLICIT_ROUND_DOWN:
            out[j] = (i + pc.pre[j] + pc.post[j] - f) / s + 1;
            before[j] = pc.pre[j];
            after[j] = pc.post[j];
            break;
        case PaddingMode::kEXPLICIT_ROUND_UP:
            out[j] = (i + pc.pre[j] + pc.post[j] - f + s - 1) / s + 1;
            before[j] = pc.pre[j];
            after[j] = pc.post[j];
            break;
        case PaddingMode::kSAME_UPPER:
        case PaddingMode::kSAME_LOWER:
        {
            out[j] = (i + s - 1) / s;
            int64_t const p = std::max<int64_t>(((i - 1) / s) * s + f - i, 0);
            before[j] = pc.mode == PaddingMode::kSAME_UPPER ? p / 2 : p - p / 2;
            after[j] = p - before[j];
            break;
        }
        }
    }
    outDims = {pc.n, pc.c};
    outDims.insert(outDims.end(), out.begin(), out.end());
    std::vector<double> y(static_cast<size_t>(prod(outDims)));
    for (int64_t plane = 0; plane < pc.n * pc.c; ++plane)
    {
        for (int64_t of = 0; of < prod(out); ++of)
        {
            std::vector<int64_t> const o = unflatten(of, out);
            double mx = -std::numeric_limits<double>::infinity();
            double sum = 0.0;
            int64_t valid = 0;
            int64_t padded = 0;
            for (int64_t rf = 0; rf < prod(pc.window); ++rf)
            {
                std::vector<int64_t> const r = unflatten(rf, pc.window);
                std::vector<int64_t> p(nb);
                bool inInput = true;
                bool inPadded = true;
                for (size_t j = 0; j < nb; ++j)
                {
                    p[j] = o[j] * pc.stride[j] - before[j] + r[j];
                    inInput = inInput && p[j] >= 0 && p[j] < pc.in[j];
                    inPadded = inPadded && p[j] >= -before[j] && p[j] < pc.in[j] + after[j];
                }
                padded += inPadded ? 1 : 0;
                if (inInput)
                {
                    double const v = x[static_cast<size_t>(plane * prod(pc.in) + flatten(p, pc.in))];
                    mx = std::max(mx, v);
                    sum += v;
                    ++valid;
                }
            }
            int64_t const count = pc.exclude ? valid : padded;
            double const avg = count == 0 ? 0.0 : sum / static_cast<double>(count);
            double r = mx;
            if (pc.type == PoolingType::kAVERAGE)
            {
                r = avg;
            }
            else if (pc.type == PoolingType::kMAX_AVERAGE_BLEND)
            {
                r = pc.blend == 0.0 ? mx : (pc.blend == 1.0 ? avg : (1.0 - pc.blend) * mx + pc.blend * avg);
            }
            y[static_cast<size_t>(plane * prod(out) + of)] = r;
        }
    }
    return y;
}

std::vector<double> values(HostTensor const& t)
{
    std::vector<double> v(static_cast<size_t>(t.volume()));
    for (int64_t i = 0; i < t.volume(); ++i)
    {
        v[static_cast<size_t>(i)] = t.at(i);
    }
    return v;
}

HostTensor expectedTensor(DataType type, std::vector<int64_t> const& dims, std::vector<double> v)
{
    if (type == DataType::kINT8)
    {
        for (double& e : v)
        {
            e = std::clamp(std::nearbyint(e), -128.0, 127.0); // round half to even, saturate
        }
    }
    return HostTensor::fromValues(type, makeDims(dims), v);
}

struct Tolerance
{
    double atol;
    double rtol;
};

Tolerance toleranceFor(DataType t)
{
    switch (t)
    {
    case DataType::kHALF: return {2e-3, 2e-3};
    case DataType::kBF16: return {2e-2, 1e-2};
    case DataType::kINT8: return {0.0, 0.0};
    default: return {1e-6, 1e-6};
    }
}

HostTensor randomInput(DataType type, PoolCase const& pc, std::mt19937& rng)
{
    return type == DataType::kINT8 ? HostTensor::random(type, makeDims(pc.inputDims()), rng, -100.0, 100.0)
                                   : HostTensor::random(type, makeDims(pc.inputDims()), rng, -2.0, 2.0);
}

//! Random case; padding stays below the window so no window lies wholly in padding unless `deepPadding`.
PoolCase randomCase(std::mt19937& rng, size_t nb, PaddingMode mode, PoolingType type, bool deepPadding = false)
{
    auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    PoolCase pc;
    pc.mode = mode;
    pc.type = type;
    pc.n = uni(1, 2);
    pc.c = uni(1, 4);
    pc.exclude = uni(0, 1) == 1;
    pc.blend = type == PoolingType::kMAX_AVERAGE_BLEND ? std::uniform_real_distribution<double>(0.0, 1.0)(rng) : 0.0;
    for (size_t j = 0; j < nb; ++j)
    {
        int64_t const f = uni(1, nb == 3 ? 3 : 4);
        pc.window.push_back(f);
        pc.stride.push_back(uni(1, 3));
        pc.pre.push_back(deepPadding ? uni(0, f + 1) : uni(0, f - 1));
        pc.post.push_back(deepPadding ? uni(0, f + 1) : uni(0, f - 1));
        pc.in.push_back(std::max<int64_t>(f - pc.pre.back() - pc.post.back(), 1) + uni(0, nb == 3 ? 3 : 6));
    }
    return pc;
}

Dims dimsOf(std::vector<int64_t> const& v)
{
    return makeDims(v);
}

HostTensor runNetwork(PoolCase const& pc, DataType type, HostTensor const& x, bool reference)
{
    ScopedTactic tactic(reference);
    NetworkRunner r;
    ITensor* in = r.addInput("x", type, pc.inputDims());
    IPoolingLayer* pool = r.network().addPoolingNd(*in, pc.type, dimsOf(pc.window));
    EXPECT_NE(pool, nullptr) << r.logger().allErrors();
    if (pool == nullptr)
    {
        return {};
    }
    pool->setStrideNd(dimsOf(pc.stride));
    pool->setPrePadding(dimsOf(pc.pre));
    pool->setPostPadding(dimsOf(pc.post));
    pool->setPaddingMode(pc.mode);
    pool->setAverageCountExcludesPadding(pc.exclude);
    pool->setBlendFactor(static_cast<float>(pc.blend));
    r.markOutput(pool->getOutput(0), "y");
    EXPECT_TRUE(r.build()) << r.logger().allErrors();
    auto out = r.run({{"x", x}});
    return out["y"];
}

void checkEndToEnd(PoolCase pc, DataType type, std::mt19937& rng, bool expectOneDnn = true)
{
    pc.blend = static_cast<double>(static_cast<float>(pc.blend)); // what setBlendFactor stores
    SCOPED_TRACE(pc.str() + " dtype=" + std::to_string(static_cast<int>(type)));
    HostTensor const x = randomInput(type, pc, rng);
    std::vector<int64_t> outDims;
    HostTensor const expected = expectedTensor(type, outDims, oraclePool(pc, values(x), outDims));
    Tolerance const tol = toleranceFor(type);
    // The CPU backend runs its default tactic (oneDNN where it applies) and its reference tactic; another backend
    // runs its own kernels once. Each result must match the oracle.
    bool const onCpu = kiln::test::currentTestBackend() == kiln::BackendKind::kCPU;
    uint64_t const before = kiln::oneDnnRunCount(LayerType::kPOOLING);
    HostTensor const fast = runNetwork(pc, type, x, false);
    if (onCpu && expectOneDnn && kiln::oneDnnBuilt() && type == DataType::kFLOAT)
    {
        EXPECT_GT(kiln::oneDnnRunCount(LayerType::kPOOLING), before) << "the default build did not run oneDNN";
    }
    EXPECT_TRUE(kiln::test::allClose(fast, expected, tol.atol, tol.rtol));
    if (!onCpu)
    {
        return;
    }
    uint64_t const beforeRef = kiln::oneDnnRunCount(LayerType::kPOOLING);
    HostTensor const ref = runNetwork(pc, type, x, true);
    EXPECT_EQ(kiln::oneDnnRunCount(LayerType::kPOOLING), beforeRef);
    EXPECT_TRUE(kiln::test::allClose(ref, expected, tol.atol, tol.rtol));
}

kiln::Attributes poolAttrs(PoolCase const& pc)
{
    kiln::Attributes a;
    a.setInt("poolingType", static_cast<int64_t>(pc.type));
    a.setInts("windowSize", pc.window);
    a.setInts("stride", pc.stride);
    a.setInts("prePadding", pc.pre);
    a.setInts("postPadding", pc.post);
    a.setInt("paddingMode", static_cast<int64_t>(pc.mode));
    a.setFloat("blendFactor", pc.blend);
    a.setInt("averageCountExcludesPadding", pc.exclude ? 1 : 0);
    return a;
}

HostTensor runKernel(PoolCase const& pc, DataType type, HostTensor const& x, std::vector<int64_t> const& outDims,
    char const* tactic)
{
    kiln::PlanNode node;
    node.kind = LayerType::kPOOLING;
    node.name = "pool";
    node.attrs = poolAttrs(pc);
    node.tactic = tactic;
    kiln::KernelSetup setup;
    setup.node = &node;
    int32_t const rank = static_cast<int32_t>(pc.nb() + 2);
    setup.inputTypes = {type};
    setup.inputPresent = {true};
    setup.inputRanks = {rank};
    setup.outputTypes = {type};
    setup.outputRanks = {rank};
    auto kernel = kiln::createPoolingKernel(setup);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
    HostTensor out(type, makeDims(outDims));
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        out.set(i, 99.0);
    }
    if (!kernel.isOk())
    {
        return out;
    }
    kiln::Status st = kiln::test::reshapeAndRun(*kernel.value(), {{const_cast<void*>(x.data()), type, x.dims}}, {{out.data(), type, out.dims}});
    EXPECT_TRUE(st.isOk()) << st.message();
    return out;
}

//! Runs both tactics on the kernel objects; returns whether the oneDNN tactic really used oneDNN.
bool checkKernels(PoolCase const& pc, DataType type, std::mt19937& rng)
{
    SCOPED_TRACE(pc.str() + " dtype=" + std::to_string(static_cast<int>(type)));
    HostTensor const x = randomInput(type, pc, rng);
    std::vector<int64_t> outDims;
    HostTensor const expected = expectedTensor(type, outDims, oraclePool(pc, values(x), outDims));
    Tolerance const tol = toleranceFor(type);
    uint64_t const before = kiln::oneDnnRunCount(LayerType::kPOOLING);
    HostTensor const fast = runKernel(pc, type, x, outDims, "onednn");
    bool const usedOneDnn = kiln::oneDnnRunCount(LayerType::kPOOLING) > before;
    HostTensor const ref = runKernel(pc, type, x, outDims, "reference");
    EXPECT_TRUE(kiln::test::allClose(ref, expected, tol.atol, tol.rtol)) << "reference vs oracle";
    EXPECT_TRUE(kiln::test::allClose(fast, expected, tol.atol, tol.rtol)) << "onednn vs oracle";
    EXPECT_TRUE(kiln::test::allClose(fast, ref, tol.atol, tol.rtol)) << "onednn vs reference";
    return usedOneDnn;
}

PoolCase simpleCase(PoolingType type)
{
    PoolCase pc;
    pc.n = 2;
    pc.c = 3;
    pc.in = {7, 8};
    pc.window = {3, 2};
    pc.stride = {2, 2};
    pc.pre = {1, 0};
    pc.post = {1, 1};
    pc.type = type;
    pc.blend = 0.25;
    return pc;
}

class PoolingLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(PoolingLayerTest);

TEST_P(PoolingLayerTest, EveryTypeAndPaddingMode)
{
    std::mt19937 rng(7);
    for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE, PoolingType::kMAX_AVERAGE_BLEND})
    {
        checkEndToEnd(simpleCase(type), DataType::kFLOAT, rng);
        for (PaddingMode mode : {PaddingMode::kEXPLICIT_ROUND_DOWN, PaddingMode::kEXPLICIT_ROUND_UP,
                 PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER})
        {
            // Random shapes may include windows oneDNN cannot express (the kernel then runs the reference path).
            checkEndToEnd(randomCase(rng, 2, mode, type), DataType::kFLOAT, rng, false);
        }
    }
}

TEST_P(PoolingLayerTest, AverageCountIncludesPadding)
{
    std::mt19937 rng(8);
    PoolCase pc = simpleCase(PoolingType::kAVERAGE);
    pc.exclude = false;
    checkEndToEnd(pc, DataType::kFLOAT, rng);
    pc.mode = PaddingMode::kEXPLICIT_ROUND_UP; // some windows run past the padding: counted by overlap only
    pc.in = {8, 9};
    checkEndToEnd(pc, DataType::kFLOAT, rng, false);
    pc.type = PoolingType::kMAX_AVERAGE_BLEND;
    pc.mode = PaddingMode::kSAME_LOWER;
    checkEndToEnd(pc, DataType::kFLOAT, rng);
}

TEST_P(PoolingLayerTest, BlendFactorExtremes)
{
    std::mt19937 rng(9);
    PoolCase pc = simpleCase(PoolingType::kMAX_AVERAGE_BLEND);
    for (double blend : {0.0, 1.0, 0.5})
    {
        pc.blend = blend;
        checkEndToEnd(pc, DataType::kFLOAT, rng);
    }
}

TEST_P(PoolingLayerTest, ThreeD)
{
    std::mt19937 rng(10);
    for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE})
    {
        PoolCase pc;
        pc.n = 1;
        pc.c = 2;
        pc.in = {5, 6, 7};
        pc.window = {2, 3, 2};
        pc.stride = {1, 2, 2};
        pc.pre = {1, 1, 0};
        pc.post = {0, 1, 1};
        pc.type = type;
        checkEndToEnd(pc, DataType::kFLOAT, rng);
        checkEndToEnd(randomCase(rng, 3, PaddingMode::kSAME_UPPER, type), DataType::kFLOAT, rng, false);
    }
}

TEST_P(PoolingLayerTest, HalfBFloat16AndInt8)
{
    std::mt19937 rng(11);
    for (DataType dtype : {DataType::kHALF, DataType::kBF16, DataType::kINT8})
    {
        for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE, PoolingType::kMAX_AVERAGE_BLEND})
        {
            checkEndToEnd(simpleCase(type), dtype, rng);
        }
    }
}

TEST_P(PoolingLayerTest, DynamicShapes)
{
    std::mt19937 rng(12);
    for (bool reference : {false, true})
    {
        ScopedTactic tactic(reference);
        PoolCase pc = simpleCase(PoolingType::kAVERAGE);
        pc.mode = PaddingMode::kSAME_UPPER;
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, pc.c, -1, -1});
        IPoolingLayer* pool = r.network().addPoolingNd(*in, pc.type, dimsOf(pc.window));
        ASSERT_NE(pool, nullptr);
        pool->setStrideNd(dimsOf(pc.stride));
        pool->setPaddingMode(pc.mode);
        r.markOutput(pool->getOutput(0), "y");
        r.setProfileDims("x", {1, pc.c, 1, 1}, {2, pc.c, 8, 8}, {3, pc.c, 20, 20});
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        for (auto const& shape : std::vector<std::vector<int64_t>>{{1, 5, 9}, {3, 20, 2}, {2, 1, 1}})
        {
            pc.n = shape[0];
            pc.in = {shape[1], shape[2]};
            HostTensor const x = randomInput(DataType::kFLOAT, pc, rng);
            std::vector<int64_t> outDims;
            HostTensor const expected = expectedTensor(DataType::kFLOAT, outDims, oraclePool(pc, values(x), outDims));
            auto out = r.run({{"x", x}});
            EXPECT_TRUE(kiln::test::allClose(out["y"], expected, 1e-6, 1e-6)) << pc.str();
        }
    }
}

TEST_P(PoolingLayerTest, SettersAndGetters)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 2, 9, 9});
    IPoolingLayer* pool = r.network().addPoolingNd(*in, PoolingType::kMAX, makeDims({3, 3}));
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(pool->getType(), LayerType::kPOOLING);
    EXPECT_EQ(pool->getPoolingType(), PoolingType::kMAX);
    EXPECT_TRUE(pool->getAverageCountExcludesPadding());
    EXPECT_EQ(pool->getBlendFactor(), 0.F);
    EXPECT_EQ(pool->getStrideNd().d[0], 1);
    EXPECT_EQ(pool->getWindowSizeNd().d[1], 3);
    EXPECT_EQ(pool->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_DOWN);
    pool->setPoolingType(PoolingType::kMAX_AVERAGE_BLEND);
    pool->setBlendFactor(0.75F);
    pool->setAverageCountExcludesPadding(false);
    pool->setPaddingNd(makeDims({1, 1}));
    pool->setStrideNd(makeDims({2, 2}));
    EXPECT_EQ(pool->getPoolingType(), PoolingType::kMAX_AVERAGE_BLEND);
    EXPECT_EQ(pool->getBlendFactor(), 0.75F);
    EXPECT_FALSE(pool->getAverageCountExcludesPadding());
    EXPECT_EQ(pool->getPrePadding().d[0], 1);
    EXPECT_EQ(pool->getPostPadding().d[1], 1);
    EXPECT_EQ(pool->getPaddingNd().d[1], 1);
    pool->setWindowSizeNd(makeDims({2, 2}));
    EXPECT_EQ(pool->getWindowSizeNd().d[0], 2);
    r.markOutput(pool->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(kiln::test::dimsString(r.network().getOutput(0)->getDimensions()),
        kiln::test::dimsString(makeDims({1, 2, 5, 5})));
}

TEST_P(PoolingLayerTest, InvalidArgumentsAndNetworks)
{
    {
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 2, 9, 9});
        EXPECT_EQ(r.network().addPoolingNd(*in, static_cast<PoolingType>(5), makeDims({2, 2})), nullptr);
        EXPECT_TRUE(r.logger().hasError("PoolingType")) << r.logger().allErrors();
        EXPECT_EQ(r.network().addPoolingNd(*in, PoolingType::kMAX, makeDims({2, 2, 2, 2})), nullptr);
        EXPECT_TRUE(r.logger().hasError("windowSize")) << r.logger().allErrors();
        IPoolingLayer* pool = r.network().addPoolingNd(*in, PoolingType::kMAX, makeDims({2, 2}));
        ASSERT_NE(pool, nullptr);
        pool->setName("pool1");
        r.logger().clear();
        pool->setBlendFactor(1.5F);
        EXPECT_TRUE(r.logger().hasError("pool1")) << r.logger().allErrors();
        EXPECT_EQ(pool->getBlendFactor(), 0.F);
        pool->setWindowSizeNd(makeDims({0, 2}));
        EXPECT_EQ(pool->getWindowSizeNd().d[0], 2);
        pool->setPrePadding(makeDims({-1, 0}));
        EXPECT_EQ(pool->getPrePadding().d[0], 0);
        pool->setPoolingType(static_cast<PoolingType>(-1));
        EXPECT_EQ(pool->getPoolingType(), PoolingType::kMAX);
    }
    auto expectFailure = [](DataType type, std::vector<int64_t> const& dims, std::vector<int64_t> const& window,
                             std::string const& message) {
        NetworkRunner r;
        ITensor* in = r.addInput("x", type, dims);
        IPoolingLayer* pool = r.network().addPoolingNd(*in, PoolingType::kAVERAGE, makeDims(window));
        ASSERT_NE(pool, nullptr);
        pool->setName("badPool");
        r.markOutput(pool->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError(message)) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("badPool")) << r.logger().allErrors();
    };
    expectFailure(DataType::kINT32, {1, 2, 4, 4}, {2, 2}, "INT32");
    expectFailure(DataType::kFLOAT, {2, 4, 4}, {2, 2}, "rank 3");
    expectFailure(DataType::kFLOAT, {1, 2, 4, 4}, {2, 2, 2}, "rank 4");
    expectFailure(DataType::kFLOAT, {1, 2, 1, 4}, {2, 2}, "smaller than the window");
}

TEST_P(PoolingLayerTest, KernelsRandomSweep)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's kernels, called directly");
    std::mt19937 rng(13);
    for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE, PoolingType::kMAX_AVERAGE_BLEND})
    {
        for (PaddingMode mode : {PaddingMode::kEXPLICIT_ROUND_DOWN, PaddingMode::kEXPLICIT_ROUND_UP,
                 PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER})
        {
            for (int i = 0; i < 4; ++i)
            {
                checkKernels(randomCase(rng, 2, mode, type, i >= 2), DataType::kFLOAT, rng);
            }
            checkKernels(randomCase(rng, 3, mode, type), DataType::kFLOAT, rng);
        }
    }
}

TEST_P(PoolingLayerTest, KernelsUseOneDnnWhereItMatches)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's kernels, called directly");
    std::mt19937 rng(14);
    PoolCase pc = simpleCase(PoolingType::kMAX);
    pc.in = {8, 8};
    pc.pre = {0, 0}; // window 3 stride 2 on 8 rows: the last row is never read (a view of the input)
    pc.post = {0, 1};
    EXPECT_EQ(checkKernels(pc, DataType::kFLOAT, rng), kiln::oneDnnBuilt());
    pc.type = PoolingType::kMAX_AVERAGE_BLEND;
    EXPECT_EQ(checkKernels(pc, DataType::kFLOAT, rng), kiln::oneDnnBuilt());
    pc.type = PoolingType::kAVERAGE;
    pc.exclude = false;
    EXPECT_EQ(checkKernels(pc, DataType::kFLOAT, rng), kiln::oneDnnBuilt());
    // Windows wholly inside the padding have no oneDNN equivalent: the kernel falls back to the reference path.
    pc.type = PoolingType::kMAX;
    pc.pre = {4, 0};
    EXPECT_FALSE(checkKernels(pc, DataType::kFLOAT, rng));
    checkKernels(pc, DataType::kHALF, rng);
    checkKernels(pc, DataType::kINT8, rng);
}

TEST_P(PoolingLayerTest, TacticsList)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's tactics list");
    PoolCase const pc = simpleCase(PoolingType::kMAX);
    kiln::PlanNode node;
    node.kind = LayerType::kPOOLING;
    node.name = "pool";
    node.attrs = poolAttrs(pc);
    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kFLOAT};
    setup.inputPresent = {true};
    setup.inputRanks = {4};
    setup.outputTypes = {DataType::kFLOAT};
    setup.outputRanks = {4};
    std::vector<std::string> const expected
        = kiln::oneDnnBuilt() ? std::vector<std::string>{"onednn", "reference"} : std::vector<std::string>{"reference"};
    EXPECT_EQ(kiln::poolingTactics(setup), expected);
    setup.inputTypes = {DataType::kINT8};
    setup.outputTypes = {DataType::kINT8};
    EXPECT_FALSE(kiln::poolingTactics(setup).empty());
}

} // namespace
