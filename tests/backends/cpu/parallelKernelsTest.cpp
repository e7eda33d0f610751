// The CPU kernels that split their work over the thread pool (core/threadPool.h): for shapes whose pieces do not
// divide evenly, 1-element tensors and broadcasts along the split axis, the outputs with 2, 3 and 4 threads are
// bit-identical to those with 1 thread and match a naive oracle (layer norm and softmax also in BF16 and FP16, with
// the tactics they get); two execution contexts running on two threads at once give the same bits as one context
// alone.
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "common/networkRunner.h"
#include "common/scopedEnv.h"
#include "kiln/KilnCpuThreads.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <atomic>
#include <dlfcn.h>
#include <cmath>
#include <functional>
#include <thread>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

//! Restores the default thread count when the test ends.
class ThreadCountReset
{
public:
    ~ThreadCountReset() { kiln::setCpuThreadCount(0); }
};

//! Coordinates of flat index i in dims (row-major).
std::vector<int64_t> coordsOf(Dims const& d, int64_t i)
{
    std::vector<int64_t> c(static_cast<size_t>(d.nbDims));
    for (int32_t k = d.nbDims - 1; k >= 0; --k)
    {
        c[static_cast<size_t>(k)] = i % d.d[k];
        i /= d.d[k];
    }
    return c;
}

//! Flat index in `d` of coordinates `c`, broadcasting extent-1 axes.
int64_t broadcastIndex(Dims const& d, std::vector<int64_t> const& c)
{
    int64_t index = 0;
    for (int32_t k = 0; k < d.nbDims; ++k)
    {
        index = index * d.d[k] + (d.d[k] == 1 ? 0 : c[static_cast<size_t>(k)]);
    }
    return index;
}

//! Tolerance against a double oracle computed from the stored (rounded) inputs: FP32 1e-5; BF16 and FP16 about two
//! units in the last place of the output (8 and 11 significant bits).
double tolerance(DataType type)
{
    return type == DataType::kBF16 ? 1.6e-2 : (type == DataType::kHALF ? 2e-3 : 1e-5);
}

//! Builds the network with `make`, runs `inputs` with 1 thread, checks the output against `oracle` (atol = rtol =
//! tol), then with 2, 3 and 4 threads bit for bit against the 1-thread run.
void checkThreadCounts(std::function<void(NetworkRunner&)> const& make,
    std::map<std::string, HostTensor> const& inputs, HostTensor const& oracle, double tol)
{
    ThreadCountReset const reset;
    NetworkRunner r(kiln::BackendKind::kCPU, 0);
    make(r);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    ASSERT_TRUE(kiln::setCpuThreadCount(1));
    std::map<std::string, HostTensor> single;
    ASSERT_TRUE(r.tryRun(inputs, single)) << r.logger().allErrors();
    ASSERT_TRUE(allClose(single["y"], oracle, tol, tol));
    for (int32_t threads : {2, 3, 4})
    {
        ASSERT_TRUE(kiln::setCpuThreadCount(threads));
        std::map<std::string, HostTensor> out;
        ASSERT_TRUE(r.tryRun(inputs, out)) << r.logger().allErrors();
        EXPECT_TRUE(sameBits(out["y"], single["y"])) << threads << " threads";
    }
}

//! checkThreadCounts with the tactic the builder picks (tolerance by type) and, for BF16, also with Kiln's rows
//! forced (oneDNN serves BF16 layer norm and softmax by default where it is built).
void checkTacticsAndThreadCounts(DataType type, std::function<void(NetworkRunner&)> const& make,
    std::map<std::string, HostTensor> const& inputs, HostTensor const& oracle)
{
    std::vector<char const*> tactics{nullptr};
    if (type == DataType::kBF16)
    {
        tactics.push_back("rows");
    }
    for (char const* tactic : tactics)
    {
        ScopedEnv const forced("KILN_CPU_TACTIC", tactic);
        checkThreadCounts(make, inputs, oracle, tolerance(type));
    }
}

void checkBinary(std::vector<int64_t> const& a, std::vector<int64_t> const& b, std::vector<int64_t> const& out,
    ElementWiseOperation op, std::mt19937& rng)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims(a), rng);
    HostTensor const y = HostTensor::random(DataType::kFLOAT, makeDims(b), rng, 0.5, 2.0);
    HostTensor expected(DataType::kFLOAT, makeDims(out));
    for (int64_t i = 0; i < expected.volume(); ++i)
    {
        std::vector<int64_t> const c = coordsOf(expected.dims, i);
        float const u = static_cast<float>(x.at(broadcastIndex(x.dims, c)));
        float const v = static_cast<float>(y.at(broadcastIndex(y.dims, c)));
        expected.set(i, op == ElementWiseOperation::kSUM ? u + v : (op == ElementWiseOperation::kPROD ? u * v : u / v));
    }
    checkThreadCounts(
        [&](NetworkRunner& r) {
            auto* layer = r.network().addElementWise(*r.addInput("a", DataType::kFLOAT, a),
                *r.addInput("b", DataType::kFLOAT, b), op);
            r.markOutput(layer->getOutput(0), "y");
        },
        {{"a", x}, {"b", y}}, expected, 0.0);
}

TEST(ParallelCpuKernels, ElementWiseBroadcastsAlongTheSplitAxis)
{
    std::mt19937 rng(5);
    checkBinary({3, 5, 4099}, {3, 1, 4099}, {3, 5, 4099}, ElementWiseOperation::kSUM, rng);
    checkBinary({3, 5, 4099}, {1, 5, 1}, {3, 5, 4099}, ElementWiseOperation::kPROD, rng);
    checkBinary({7, 1}, {1, 9973}, {7, 9973}, ElementWiseOperation::kDIV, rng);
    checkBinary({65537}, {65537}, {65537}, ElementWiseOperation::kSUM, rng);
    checkBinary({1}, {1}, {1}, ElementWiseOperation::kSUM, rng);
}

TEST(ParallelCpuKernels, UnaryAndActivation)
{
    std::mt19937 rng(6);
    for (std::vector<int64_t> const& shape : std::vector<std::vector<int64_t>>{{7, 10007}, {1}, {3, 1, 1}})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng, -3.0, 3.0);
        HostTensor expExpected(DataType::kFLOAT, x.dims);
        HostTensor geluExpected(DataType::kFLOAT, x.dims);
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            double const v = x.at(i);
            expExpected.set(i, std::exp(v));
            geluExpected.set(i, 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
        }
        checkThreadCounts(
            [&](NetworkRunner& r) {
                auto* layer = r.network().addUnary(*r.addInput("x", DataType::kFLOAT, shape), UnaryOperation::kEXP);
                r.markOutput(layer->getOutput(0), "y");
            },
            {{"x", x}}, expExpected, 1e-6);
        checkThreadCounts(
            [&](NetworkRunner& r) {
                auto* layer
                    = r.network().addActivation(*r.addInput("x", DataType::kFLOAT, shape), ActivationType::kGELU_ERF);
                r.markOutput(layer->getOutput(0), "y");
            },
            {{"x", x}}, geluExpected, 1e-6);
    }
}

TEST(ParallelCpuKernels, SoftMaxAlongTheLastAndAMiddleAxis)
{
    std::mt19937 rng(7);
    struct Case
    {
        std::vector<int64_t> shape;
        int32_t axis;
    };
    // FP32, and BF16/FP16 (rows converted to float and rounded back: tactic "rows" along the last axis, the strided
    // slices along a middle one); row lengths 1, 7, 33 (not multiples of the vector width) and long ones.
    std::vector<std::pair<DataType, Case>> cases;
    for (Case const& c : {Case{{37, 1001}, 1}, Case{{3, 129, 67}, 1}, Case{{1, 1}, 1}, Case{{5, 3, 4111}, 2}})
    {
        cases.emplace_back(DataType::kFLOAT, c);
    }
    for (DataType t : {DataType::kBF16, DataType::kHALF})
    {
        for (Case const& c : {Case{{64, 4, 128}, 2}, Case{{3, 129, 33}, 2}, Case{{9, 7}, 1}, Case{{5, 1}, 1},
                 Case{{3, 33, 5}, 1}})
        {
            cases.emplace_back(t, c);
        }
    }
    for (auto const& [type, c] : cases)
    {
        HostTensor const x = HostTensor::random(type, makeDims(c.shape), rng, -4.0, 4.0);
        HostTensor expected(type, x.dims);
        int64_t const n = c.shape[static_cast<size_t>(c.axis)];
        int64_t inner = 1;
        for (size_t d = static_cast<size_t>(c.axis) + 1; d < c.shape.size(); ++d)
        {
            inner *= c.shape[d];
        }
        for (int64_t base = 0; base < x.volume(); ++base)
        {
            if ((base / inner) % n != 0)
            {
                continue; // not the first element of a slice
            }
            double sum = 0.0;
            for (int64_t j = 0; j < n; ++j)
            {
                sum += std::exp(x.at(base + j * inner));
            }
            for (int64_t j = 0; j < n; ++j)
            {
                expected.set(base + j * inner, std::exp(x.at(base + j * inner)) / sum);
            }
        }
        checkTacticsAndThreadCounts(
            type,
            [&](NetworkRunner& r) {
                auto* layer = r.network().addSoftMax(*r.addInput("x", type, c.shape));
                layer->setAxes(1U << c.axis);
                r.markOutput(layer->getOutput(0), "y");
            },
            {{"x", x}}, expected);
    }
}

TEST(ParallelCpuKernels, LayerNormalizationRows)
{
    std::mt19937 rng(8);
    struct Case
    {
        std::vector<int64_t> shape;
        uint32_t mask;
        std::vector<int64_t> scaleShape;
    };
    for (Case const& c : {Case{{2, 333, 257}, 4U, {1, 1, 257}}, Case{{4, 31, 67}, 6U, {1, 1, 67}},
             Case{{3, 5, 7}, 6U, {1, 5, 7}}, Case{{1, 1, 1}, 4U, {1, 1, 1}}, Case{{6, 9, 11}, 4U, {1, 1, 1}},
             Case{{16, 8, 256}, 4U, {1, 1, 256}}, Case{{3, 773}, 2U, {1, 773}}, Case{{5, 33}, 2U, {1, 33}}})
    {
    for (DataType type : {DataType::kFLOAT, DataType::kBF16, DataType::kHALF})
    {
        // BF16/FP16 rows go through a float row each (tactic "rows"); row lengths 257, 2077, 35, 1, 11, 256, 773, 33.
        HostTensor const x = HostTensor::random(type, makeDims(c.shape), rng, -2.0, 3.0);
        HostTensor const scale = HostTensor::random(type, makeDims(c.scaleShape), rng, 0.5, 1.5);
        HostTensor const bias = HostTensor::random(type, makeDims(c.scaleShape), rng);
        int64_t length = 1;
        for (size_t d = 0; d < c.shape.size(); ++d)
        {
            length *= ((c.mask >> d) & 1U) != 0 ? c.shape[d] : 1;
        }
        HostTensor expected(type, x.dims);
        for (int64_t row = 0; row * length < x.volume(); ++row)
        {
            double mean = 0.0;
            double var = 0.0;
            for (int64_t i = 0; i < length; ++i)
            {
                mean += x.at(row * length + i) / static_cast<double>(length);
            }
            for (int64_t i = 0; i < length; ++i)
            {
                double const d = x.at(row * length + i) - mean;
                var += d * d / static_cast<double>(length);
            }
            for (int64_t i = 0; i < length; ++i)
            {
                int64_t const flat = row * length + i;
                std::vector<int64_t> const co = coordsOf(x.dims, flat);
                double const s = scale.at(broadcastIndex(scale.dims, co));
                double const b = bias.at(broadcastIndex(bias.dims, co));
                expected.set(flat, (x.at(flat) - mean) / std::sqrt(var + 1e-5) * s + b);
            }
        }
        checkTacticsAndThreadCounts(
            type,
            [&](NetworkRunner& r) {
                auto* layer = r.network().addNormalizationV2(*r.addInput("x", type, c.shape),
                    *r.addInput("s", type, c.scaleShape), *r.addInput("b", type, c.scaleShape), c.mask);
                layer->setEpsilon(1e-5F);
                r.markOutput(layer->getOutput(0), "y");
            },
            {{"x", x}, {"s", scale}, {"b", bias}}, expected);
    }
    }
}

//! The tactics a BF16 layer norm and softmax get (engine inspector): oneDNN's (BF16, where oneDNN is built) or the
//! row kernels, not the reference walks; a softmax along a middle axis and a group norm stay on "reference".
//! A tactic name the kernels do not know fails.
TEST(ParallelCpuKernels, ReducedPrecisionRowsAreNotOnTheReferenceTactic)
{
    for (DataType type : {DataType::kBF16, DataType::kHALF, DataType::kFLOAT})
    {
        NetworkRunner r(kiln::BackendKind::kCPU, 0);
        ITensor* x = r.addInput("x", type, {2, 4, 24});
        auto* norm = r.network().addNormalizationV2(
            *x, *r.addInput("s", type, {1, 1, 24}), *r.addInput("b", type, {1, 1, 24}), 4U);
        norm->setName("layerNorm");
        auto* group = r.network().addNormalizationV2(
            *x, *r.addInput("gs", type, {1, 4, 1}), *r.addInput("gb", type, {1, 4, 1}), 4U);
        group->setNbGroups(2);
        group->setName("groupNorm");
        auto* last = r.network().addSoftMax(*norm->getOutput(0));
        last->setAxes(4U);
        last->setName("softMaxLast");
        auto* middle = r.network().addSoftMax(*group->getOutput(0));
        middle->setAxes(2U);
        middle->setName("softMaxMiddle");
        r.markOutput(last->getOutput(0), "y");
        r.markOutput(middle->getOutput(0), "z");
        r.config().setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        std::unique_ptr<IEngineInspector> inspector(r.engine().createEngineInspector());
        ASSERT_NE(inspector, nullptr);
        std::string const info = inspector->getEngineInformation(LayerInformationFormat::kJSON);
        auto tacticOf = [&](std::string const& layer) {
            size_t const at = info.find("\"Name\": \"" + layer + "\"");
            size_t const tactic = info.find("\"TacticName\": \"", at);
            if (at == std::string::npos || tactic == std::string::npos)
            {
                return std::string("<missing>");
            }
            size_t const begin = tactic + 15;
            return info.substr(begin, info.find('"', begin) - begin);
        };
        // The layers run on the network's type (no conversion to FP32 before them).
        char const* typeName = type == DataType::kBF16 ? "BF16" : (type == DataType::kHALF ? "FP16" : "FP32");
        EXPECT_NE(info.find(std::string("linear ") + typeName), std::string::npos) << info;
        if (type != DataType::kFLOAT)
        {
            EXPECT_EQ(info.find("linear FP32"), std::string::npos) << info;
        }
        bool const oneDnn = kiln::oneDnnBuilt() && type == DataType::kBF16;
        EXPECT_EQ(tacticOf("layerNorm"), oneDnn ? "onednn" : "rows") << info;
        EXPECT_EQ(tacticOf("softMaxLast"), oneDnn ? "onednn" : "rows") << info;
        EXPECT_EQ(tacticOf("groupNorm"), "reference") << info;
        EXPECT_EQ(tacticOf("softMaxMiddle"), "reference") << info;
    }
    kiln::PlanNode node;
    node.name = "n";
    node.tactic = "fastest";
    node.attrs.setFloat("epsilon", 1e-5);
    node.attrs.setInt("axes", 4);
    node.attrs.setInt("nbGroups", 1);
    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kBF16, DataType::kBF16, DataType::kBF16};
    setup.inputPresent = {true, true, true};
    setup.inputRanks = {3, 3, 3};
    setup.outputTypes = {DataType::kBF16};
    setup.outputRanks = {3};
    EXPECT_EQ(kiln::normalizationTactics(setup), kiln::oneDnnBuilt()
            ? (std::vector<std::string>{"onednn", "rows", "reference"})
            : (std::vector<std::string>{"rows", "reference"}));
    auto badNorm = kiln::createNormalizationKernel(setup);
    ASSERT_FALSE(badNorm.isOk());
    EXPECT_NE(badNorm.status().message().find("unknown CPU tactic 'fastest'"), std::string::npos);
    setup.inputTypes = {DataType::kBF16};
    setup.inputPresent = {true};
    setup.inputRanks = {3};
    EXPECT_EQ(kiln::softMaxTactics(setup), kiln::oneDnnBuilt()
            ? (std::vector<std::string>{"onednn", "rows", "reference"})
            : (std::vector<std::string>{"rows", "reference"}));
    auto badSoftMax = kiln::createSoftMaxKernel(setup);
    ASSERT_FALSE(badSoftMax.isOk());
    EXPECT_NE(badSoftMax.status().message().find("unknown CPU tactic 'fastest'"), std::string::npos);
}

TEST(ParallelCpuKernels, ReduceSplitsTheLeadingKeptAxes)
{
    std::mt19937 rng(11);
    struct Case
    {
        std::vector<int64_t> shape;
        uint32_t mask;
        ReduceOperation op;
    };
    for (Case const& c : {Case{{7, 3, 4099}, 4U, ReduceOperation::kSUM}, Case{{300, 50, 7}, 2U, ReduceOperation::kMAX},
             Case{{301, 40, 9}, 6U, ReduceOperation::kAVG}, Case{{100, 700}, 1U, ReduceOperation::kSUM}})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims(c.shape), rng);
        std::vector<int64_t> outShape;
        for (size_t d = 0; d < c.shape.size(); ++d)
        {
            outShape.push_back(((c.mask >> d) & 1U) != 0 ? 1 : c.shape[d]);
        }
        HostTensor expected(DataType::kFLOAT, makeDims(outShape));
        std::vector<double> acc(static_cast<size_t>(expected.volume()), c.op == ReduceOperation::kMAX ? -1e300 : 0.0);
        std::vector<int64_t> count(acc.size(), 0);
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            auto const o = static_cast<size_t>(broadcastIndex(expected.dims, coordsOf(x.dims, i)));
            acc[o] = c.op == ReduceOperation::kMAX ? std::max(acc[o], x.at(i)) : acc[o] + x.at(i);
            ++count[o];
        }
        for (size_t o = 0; o < acc.size(); ++o)
        {
            expected.set(static_cast<int64_t>(o), c.op == ReduceOperation::kAVG ? acc[o] / count[o] : acc[o]);
        }
        checkThreadCounts(
            [&](NetworkRunner& r) {
                auto* layer = r.network().addReduce(*r.addInput("x", DataType::kFLOAT, c.shape), c.op, c.mask, true);
                r.markOutput(layer->getOutput(0), "y");
            },
            {{"x", x}}, expected, 1e-5);
    }
}

TEST(ParallelCpuKernels, DataMovement)
{
    std::mt19937 rng(10);
    // Transpose [3, 257, 129] -> [129, 3, 257].
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3, 257, 129}), rng);
        HostTensor expected(DataType::kFLOAT, makeDims({129, 3, 257}));
        for (int64_t i = 0; i < expected.volume(); ++i)
        {
            std::vector<int64_t> const c = coordsOf(expected.dims, i);
            expected.set(i, x.at((c[1] * 257 + c[2]) * 129 + c[0]));
        }
        checkThreadCounts(
            [&](NetworkRunner& r) {
                auto* layer = r.network().addShuffle(*r.addInput("x", DataType::kFLOAT, {3, 257, 129}));
                layer->setFirstTranspose(Permutation{{2, 0, 1}});
                r.markOutput(layer->getOutput(0), "y");
            },
            {{"x", x}}, expected, 0.0);
    }
    // Concatenation of [5, 3000, 7] and [5, 1001, 7] along axis 1.
    {
        HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({5, 3000, 7}), rng);
        HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({5, 1001, 7}), rng);
        HostTensor expected(DataType::kFLOAT, makeDims({5, 4001, 7}));
        for (int64_t i = 0; i < expected.volume(); ++i)
        {
            std::vector<int64_t> const c = coordsOf(expected.dims, i);
            expected.set(i, c[1] < 3000 ? a.at((c[0] * 3000 + c[1]) * 7 + c[2])
                                        : b.at((c[0] * 1001 + c[1] - 3000) * 7 + c[2]));
        }
        checkThreadCounts(
            [&](NetworkRunner& r) {
                ITensor* inputs[] = {r.addInput("a", DataType::kFLOAT, {5, 3000, 7}),
                    r.addInput("b", DataType::kFLOAT, {5, 1001, 7})};
                auto* layer = r.network().addConcatenation(inputs, 2);
                layer->setAxis(1);
                r.markOutput(layer->getOutput(0), "y");
            },
            {{"a", a}, {"b", b}}, expected, 0.0);
    }
    // Gather along axis 0 of [1000, 65] with [3, 301] indices (negative ones count from the end).
    {
        HostTensor const data = HostTensor::random(DataType::kFLOAT, makeDims({1000, 65}), rng);
        HostTensor const indices = HostTensor::random(DataType::kINT32, makeDims({3, 301}), rng, -1000, 999);
        HostTensor expected(DataType::kFLOAT, makeDims({3, 301, 65}));
        for (int64_t i = 0; i < expected.volume(); ++i)
        {
            auto index = static_cast<int64_t>(indices.at(i / 65));
            index = index < 0 ? index + 1000 : index;
            expected.set(i, data.at(index * 65 + i % 65));
        }
        checkThreadCounts(
            [&](NetworkRunner& r) {
                auto* layer = r.network().addGather(*r.addInput("d", DataType::kFLOAT, {1000, 65}),
                    *r.addInput("i", DataType::kINT32, {3, 301}), 0);
                r.markOutput(layer->getOutput(0), "y");
            },
            {{"d", data}, {"i", indices}}, expected, 0.0);
    }
    // Slices of [64, 1001]: a contiguous inner run, and every second element.
    for (int64_t stride : {1, 2})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({64, 1001}), rng);
        int64_t const size = stride == 1 ? 901 : 450;
        HostTensor expected(DataType::kFLOAT, makeDims({50, size}));
        for (int64_t i = 0; i < expected.volume(); ++i)
        {
            expected.set(i, x.at((3 + i / size) * 1001 + 5 + (i % size) * stride));
        }
        checkThreadCounts(
            [&](NetworkRunner& r) {
                auto* layer = r.network().addSlice(*r.addInput("x", DataType::kFLOAT, {64, 1001}), makeDims({3, 5}),
                    makeDims({50, size}), makeDims({1, stride}));
                r.markOutput(layer->getOutput(0), "y");
            },
            {{"x", x}}, expected, 0.0);
    }
}

TEST(ParallelCpuKernels, BadThreadVariableIsReportedWhenBuilding)
{
    bool built = false;
    NetworkRunner r(kiln::BackendKind::kCPU, 0);
    {
        ScopedEnv const env("KILN_CPU_THREADS", "many");
        auto* layer = r.network().addUnary(*r.addInput("x", DataType::kFLOAT, {2, 3}), UnaryOperation::kABS);
        r.markOutput(layer->getOutput(0), "y");
        built = r.build();
    }
    ASSERT_TRUE(built) << r.logger().allErrors();
    EXPECT_EQ(r.logger().countMessages("KILN_CPU_THREADS is 'many'"), 1);
}

TEST(ParallelCpuKernels, OneDnnOpenMpThreadsFollowTheCount)
{
    using GetThreadsFn = int (*)();
    auto const getThreads = reinterpret_cast<GetThreadsFn>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
    auto const getLimit = reinterpret_cast<GetThreadsFn>(dlsym(RTLD_DEFAULT, "omp_get_thread_limit"));
    if (getThreads == nullptr)
    {
        GTEST_SKIP() << "no OpenMP runtime in the process (Kiln built without oneDNN)";
    }
    ThreadCountReset const reset;
    NetworkRunner r(kiln::BackendKind::kCPU, 0);
    auto* layer = r.network().addUnary(*r.addInput("x", DataType::kFLOAT, {2, 3}), UnaryOperation::kABS);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(12);
    std::map<std::string, HostTensor> const inputs{{"x", HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), rng)}};
    for (int32_t threads : {1, 3, 2})
    {
        ASSERT_TRUE(kiln::setCpuThreadCount(threads));
        std::map<std::string, HostTensor> out;
        ASSERT_TRUE(r.tryRun(inputs, out)) << r.logger().allErrors();
        // Within OpenMP's thread limit (the ctest cpu.ompThreadLimit runs this with OMP_THREAD_LIMIT=1).
        int32_t const limit = getLimit != nullptr ? getLimit() : threads;
        EXPECT_EQ(getThreads(), std::min(threads, limit)) << "the running thread's OpenMP count after a run";
    }
}

TEST(ParallelCpuKernels, TwoContextsOnTwoThreadsMatchOneContext)
{
    ThreadCountReset const reset;
    ASSERT_TRUE(kiln::setCpuThreadCount(2));
    NetworkRunner r(kiln::BackendKind::kCPU, 0);
    ITensor* x = r.addInput("x", DataType::kFLOAT, {8, 64, 300});
    auto* softMax = r.network().addSoftMax(*x);
    softMax->setAxes(1U << 2);
    auto* gelu = r.network().addActivation(*softMax->getOutput(0), ActivationType::kGELU_ERF);
    auto* scaled = r.network().addElementWise(*gelu->getOutput(0), *x, ElementWiseOperation::kPROD);
    ITensor* scale = r.addInput("s", DataType::kFLOAT, {1, 1, 300});
    ITensor* bias = r.addInput("b", DataType::kFLOAT, {1, 1, 300});
    auto* normalized = r.network().addNormalizationV2(*scaled->getOutput(0), *scale, *bias, 4U);
    auto* sum = r.network().addElementWise(*normalized->getOutput(0), *x, ElementWiseOperation::kSUM);
    auto* out = r.network().addUnary(*sum->getOutput(0), UnaryOperation::kEXP);
    r.markOutput(out->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();

    std::mt19937 rng(9);
    constexpr int32_t kINPUTS = 6;
    std::vector<std::map<std::string, HostTensor>> inputs;
    std::vector<HostTensor> alone;
    for (int32_t i = 0; i < kINPUTS; ++i)
    {
        inputs.push_back({{"x", HostTensor::random(DataType::kFLOAT, makeDims({8, 64, 300}), rng)},
            {"s", HostTensor::random(DataType::kFLOAT, makeDims({1, 1, 300}), rng)},
            {"b", HostTensor::random(DataType::kFLOAT, makeDims({1, 1, 300}), rng)}});
        std::map<std::string, HostTensor> result;
        ASSERT_TRUE(NetworkRunner::runEngine(r.engine(), inputs.back(), result));
        alone.push_back(result["y"]);
    }
    std::atomic<int32_t> mismatches{0};
    std::atomic<int32_t> failures{0};
    std::vector<std::thread> threads;
    for (int32_t t = 0; t < 2; ++t)
    {
        threads.emplace_back([&, t] {
            // runEngine makes a context of its own for every run: two contexts run at once, one per thread.
            for (int32_t round = 0; round < 3 * kINPUTS; ++round)
            {
                size_t const i = static_cast<size_t>((round + t * 3) % kINPUTS);
                std::map<std::string, HostTensor> result;
                if (!NetworkRunner::runEngine(r.engine(), inputs[i], result))
                {
                    ++failures;
                    continue;
                }
                if (!sameBits(result["y"], alone[i]))
                {
                    ++mismatches;
                }
            }
        });
    }
    for (std::thread& t : threads)
    {
        t.join();
    }
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(mismatches.load(), 0);
}

} // namespace
} // namespace kiln::test
