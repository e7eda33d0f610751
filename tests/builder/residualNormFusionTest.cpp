// The residual-norm fusion (builder/passes/fusion/residualNorm.cpp) on the CPU backend (KILN_FUSE=1): an elementwise
// sum feeding a layer norm becomes one node ("add + ln") that also writes the sum when a later layer reads it. Each
// network is built with the pass off and on; both engines run the same random inputs (outputs poisoned first by the
// runner) and must agree, in FP32, FP16 and BF16, with static and dynamic shapes, the residual of the input's shape or
// a bias row; one FP32 case is also checked against a double-precision layer norm computed here. Sums that must stay
// unfused (a non-row broadcast, a network output, a reader placed before the norm) keep their layers and results.
#include "common/networkRunner.h"
#include "common/scopedEnv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

constexpr int64_t kC = 48; //!< normalised extent (a multiple of 8 and not: see the per-test overrides)

struct Case
{
    DataType type{DataType::kFLOAT};
    int64_t channels{kC};
    std::vector<int64_t> residualDims{2, 5, kC}; //!< {1, 1, C}: a constant bias row instead of the input "r"
    bool residualConstant{false};
    bool residualFromX{false}; //!< r = tanh(x) (layer "pre"): dynamic dims the builder can prove equal to x's
    //! With residualFromX: tanh(x) flattened to [-1, C] and reshaped back to a shape computed from Shape(x), as GPT-2's
    //! exported projections are: the same extents as x's, not the same expressions.
    bool residualReshaped{false};
    bool sumReadLater{true};  //!< z = sum * y (layer "mix") reads the sum after the norm
    bool sumIsOutput{false};  //!< the sum is also network output "s"
    bool readerBeforeNorm{false}; //!< a layer reading the sum is added before the norm
    bool dynamic{false};      //!< inputs [-1, -1, C] with a profile [1, 1] .. [4, 9]
};

struct Built
{
    std::map<std::string, HostTensor> outputs;
    std::vector<std::string> layers;
};

class ResidualNormNet
{
public:
    ResidualNormNet(Case const& c, uint32_t seed)
        : mCase(c)
        , mRng(seed)
    {
        std::vector<int64_t> const row{1, 1, c.channels};
        mScale = HostTensor::random(c.type, makeDims(row), mRng, 0.5, 1.5);
        mShift = HostTensor::random(c.type, makeDims(row), mRng, -1.0, 1.0);
        mRow = HostTensor::random(c.type, makeDims(c.residualDims), mRng, -2.0, 2.0);
    }

    std::map<std::string, HostTensor> inputs(int64_t b, int64_t s)
    {
        std::map<std::string, HostTensor> in{{"x", HostTensor::random(mCase.type, makeDims({b, s, mCase.channels}), mRng, -2.0, 2.0)}};
        if (!mCase.residualConstant && !mCase.residualFromX)
        {
            std::vector<int64_t> d = mCase.residualDims;
            d[0] = d[0] == 1 ? 1 : b;
            d[1] = d[1] == 1 ? 1 : s;
            in.emplace("r", HostTensor::random(mCase.type, makeDims(d), mRng, -2.0, 2.0));
        }
        return in;
    }

    //! Builds with KILN_FUSE=`fuse` and runs every input set.
    std::vector<Built> build(char const* fuse, std::vector<std::map<std::string, HostTensor>> const& runs)
    {
        ScopedEnv env("KILN_FUSE", fuse);
        NetworkRunner r;
        define(r);
        r.config().setProfilingVerbosity(ProfilingVerbosity::kLAYER_NAMES_ONLY);
        std::vector<Built> results;
        if (!r.build())
        {
            ADD_FAILURE() << "build with KILN_FUSE=" << fuse << " failed: " << r.logger().allErrors();
            return results;
        }
        std::unique_ptr<IEngineInspector> inspector(r.engine().createEngineInspector());
        std::vector<std::string> layers;
        for (int32_t i = 0; inspector != nullptr && i < r.engine().getNbLayers(); ++i)
        {
            char const* text = inspector->getLayerInformation(i, LayerInformationFormat::kONELINE);
            layers.push_back(text != nullptr ? text : "");
        }
        for (auto const& in : runs)
        {
            results.push_back({r.run(in), layers});
        }
        return results;
    }

    HostTensor const& scale() const { return mScale; }
    HostTensor const& shift() const { return mShift; }

private:
    void define(NetworkRunner& r)
    {
        auto& n = r.network();
        Case const& c = mCase;
        std::vector<int64_t> const xDims = c.dynamic ? std::vector<int64_t>{-1, -1, c.channels}
                                                     : std::vector<int64_t>{2, 5, c.channels};
        auto* x = r.addInput("x", c.type, xDims);
        ITensor* res = nullptr;
        if (c.residualConstant)
        {
            res = n.addConstant(makeDims(c.residualDims), weights(mRow))->getOutput(0);
        }
        else if (c.residualFromX)
        {
            auto* pre = n.addActivation(*x, ActivationType::kTANH);
            pre->setName("pre");
            res = pre->getOutput(0);
            if (c.residualReshaped)
            {
                auto* flat = n.addShuffle(*res);
                flat->setReshapeDimensions(makeDims({-1, c.channels}));
                auto* shape = n.addShape(*x);
                shape->setName("xShape");
                auto* back = n.addShuffle(*flat->getOutput(0));
                back->setInput(1, *shape->getOutput(0));
                back->setName("unflatten");
                res = back->getOutput(0);
            }
        }
        else
        {
            std::vector<int64_t> d = c.residualDims;
            if (c.dynamic)
            {
                d[0] = d[0] == 1 ? 1 : -1;
                d[1] = d[1] == 1 ? 1 : -1;
            }
            res = r.addInput("r", c.type, d);
        }
        if (c.dynamic)
        {
            r.setProfileDims("x", {1, 1, c.channels}, {2, 5, c.channels}, {4, 9, c.channels});
            if (!c.residualConstant && !c.residualFromX)
            {
                auto const bound = [&](int64_t v, size_t i) { return c.residualDims[i] == 1 ? 1 : v; };
                r.setProfileDims("r", {bound(1, 0), bound(1, 1), c.channels}, {bound(2, 0), bound(5, 1), c.channels},
                    {bound(4, 0), bound(9, 1), c.channels});
            }
        }
        auto* add = n.addElementWise(*x, *res, ElementWiseOperation::kSUM);
        add->setName("add");
        ITensor* sum = add->getOutput(0);
        ITensor* early = nullptr;
        if (c.readerBeforeNorm)
        {
            auto* neg = n.addUnary(*sum, UnaryOperation::kNEG);
            neg->setName("early");
            early = neg->getOutput(0);
        }
        std::vector<int64_t> const row{1, 1, c.channels};
        auto* ln = n.addNormalizationV2(*sum, *n.addConstant(makeDims(row), weights(mScale))->getOutput(0),
            *n.addConstant(makeDims(row), weights(mShift))->getOutput(0), 1U << 2);
        ln->setName("ln");
        r.markOutput(ln->getOutput(0), "y");
        if (c.sumReadLater)
        {
            auto* mix = n.addElementWise(*sum, *ln->getOutput(0), ElementWiseOperation::kPROD);
            mix->setName("mix");
            r.markOutput(mix->getOutput(0), "z");
        }
        if (early != nullptr)
        {
            r.markOutput(early, "e");
        }
        if (c.sumIsOutput)
        {
            r.markOutput(sum, "s");
        }
    }

    static Weights weights(HostTensor const& t) { return Weights{t.type, t.data(), t.volume()}; }

    Case mCase;
    std::mt19937 mRng;
    HostTensor mScale;
    HostTensor mShift;
    HostTensor mRow;
};

double tolerance(DataType t)
{
    return t == DataType::kFLOAT ? 1e-5 : t == DataType::kHALF ? 2e-3 : 1.6e-2;
}

bool hasLayer(Built const& b, std::string const& name)
{
    return std::find(b.layers.begin(), b.layers.end(), name) != b.layers.end();
}

std::string layerList(Built const& b)
{
    std::string s;
    for (auto const& l : b.layers)
    {
        s += "[" + l + "] ";
    }
    return s;
}

//! Builds `c` unfused and fused, runs `shapes` ({batch, sequence} each) on both, compares every output and returns
//! the fused runs.
std::vector<Built> compare(Case const& c, std::vector<std::pair<int64_t, int64_t>> const& shapes, uint32_t seed)
{
    ResidualNormNet net(c, seed);
    std::vector<std::map<std::string, HostTensor>> runs;
    for (auto const& [b, s] : shapes)
    {
        runs.push_back(net.inputs(b, s));
    }
    std::vector<Built> const plain = net.build("0", runs);
    std::vector<Built> fused = net.build("1", runs);
    if (plain.size() != runs.size() || fused.size() != runs.size())
    {
        ADD_FAILURE() << "a build failed";
        return {};
    }
    for (size_t i = 0; i < runs.size(); ++i)
    {
        EXPECT_EQ(plain[i].outputs.size(), fused[i].outputs.size());
        for (auto const& [name, expected] : plain[i].outputs)
        {
            auto const it = fused[i].outputs.find(name);
            if (it == fused[i].outputs.end())
            {
                ADD_FAILURE() << "fused engine lacks output " << name;
                continue;
            }
            EXPECT_TRUE(allClose(it->second, expected, tolerance(c.type), tolerance(c.type)))
                << "output " << name << ", run " << i;
        }
        EXPECT_FALSE(hasLayer(plain[i], "add + ln")) << layerList(plain[i]);
    }
    return fused;
}

char const* typeName(DataType t)
{
    return t == DataType::kFLOAT ? "FP32" : t == DataType::kHALF ? "FP16" : "BF16";
}

TEST(ResidualNormFusion, SumReadLaterIsASecondOutput)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(typeName(t));
        Case c;
        c.type = t;
        std::vector<Built> const fused = compare(c, {{2, 5}}, 71);
        ASSERT_EQ(fused.size(), 1U);
        EXPECT_TRUE(hasLayer(fused[0], "add + ln")) << layerList(fused[0]);
        EXPECT_TRUE(hasLayer(fused[0], "mix")) << layerList(fused[0]);
        EXPECT_EQ(fused[0].layers.size(), 2U) << layerList(fused[0]);
    }
}

TEST(ResidualNormFusion, SumReadOnlyByTheNorm)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(typeName(t));
        Case c;
        c.type = t;
        c.sumReadLater = false;
        c.channels = 36; // not a multiple of 8
        c.residualDims = {2, 5, 36};
        std::vector<Built> const fused = compare(c, {{2, 5}}, 72);
        ASSERT_EQ(fused.size(), 1U);
        ASSERT_EQ(fused[0].layers.size(), 1U) << layerList(fused[0]);
        EXPECT_EQ(fused[0].layers[0], "add + ln");
    }
}

TEST(ResidualNormFusion, BiasRowResidual)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(typeName(t));
        Case c;
        c.type = t;
        c.residualDims = {1, 1, kC};
        c.residualConstant = true;
        std::vector<Built> const fused = compare(c, {{2, 5}}, 73);
        ASSERT_EQ(fused.size(), 1U);
        EXPECT_TRUE(hasLayer(fused[0], "add + ln")) << layerList(fused[0]);
    }
}

//! A residual [1, S, C] (a position table) repeats over the batch: a row block, fused.
TEST(ResidualNormFusion, ResidualRepeatingOverTheBatch)
{
    Case c;
    c.type = DataType::kHALF;
    c.residualDims = {1, 5, kC};
    std::vector<Built> const fused = compare(c, {{2, 5}}, 74);
    ASSERT_EQ(fused.size(), 1U);
    EXPECT_TRUE(hasLayer(fused[0], "add + ln")) << layerList(fused[0]);
}

TEST(ResidualNormFusion, DynamicShapes)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF})
    {
        for (bool row : {false, true})
        {
            SCOPED_TRACE(std::string(typeName(t)) + (row ? " bias row" : " residual tanh(x)"));
            Case c;
            c.type = t;
            c.dynamic = true;
            c.residualDims = {1, 1, kC};
            c.residualConstant = row;
            c.residualFromX = !row;
            std::vector<Built> const fused = compare(c, {{2, 5}, {4, 9}, {1, 1}, {3, 2}}, 75);
            ASSERT_EQ(fused.size(), 4U);
            EXPECT_TRUE(hasLayer(fused[0], "add + ln")) << layerList(fused[0]);
        }
    }
}

//! The residual comes back from a [-1, C] view through a shape computed from Shape(x) (GPT-2's exported projections):
//! its extents are other expressions than the sum's, of the same symbols, equal at every profile shape; fused, and
//! the same results at shapes between the profile's points.
TEST(ResidualNormFusion, ResidualReshapedThroughAComputedShape)
{
    Case c;
    c.type = DataType::kHALF;
    c.dynamic = true;
    c.residualDims = {1, 1, kC};
    c.residualFromX = true;
    c.residualReshaped = true;
    std::vector<Built> const fused = compare(c, {{2, 5}, {3, 7}, {1, 1}, {4, 9}}, 77);
    ASSERT_EQ(fused.size(), 4U);
    EXPECT_TRUE(hasLayer(fused[0], "add + ln")) << layerList(fused[0]);
}

//! Two dynamic inputs have independent extents, so their sum's shape is a broadcast the builder cannot prove equal to
//! either: that addition stays (the runtime shapes may differ); the same network is right either way.
TEST(ResidualNormFusion, IndependentDynamicInputsStayUnfused)
{
    Case c;
    c.dynamic = true;
    std::vector<Built> const fused = compare(c, {{2, 5}, {4, 9}}, 78);
    ASSERT_EQ(fused.size(), 2U);
    EXPECT_FALSE(hasLayer(fused[0], "add + ln")) << layerList(fused[0]);
}

//! The fused FP32 engine against a layer norm of x + r computed here in double.
TEST(ResidualNormFusion, MatchesADoubleReference)
{
    Case c;
    ResidualNormNet net(c, 76);
    auto const in = net.inputs(2, 5);
    std::vector<Built> const fused = net.build("1", {in});
    ASSERT_EQ(fused.size(), 1U);
    ASSERT_TRUE(hasLayer(fused[0], "add + ln")) << layerList(fused[0]);
    HostTensor const& x = in.at("x");
    HostTensor const& r = in.at("r");
    HostTensor const& y = fused[0].outputs.at("y");
    HostTensor const& z = fused[0].outputs.at("z");
    for (int64_t row = 0; row < 10; ++row)
    {
        double mean = 0.0;
        for (int64_t m = 0; m < kC; ++m)
        {
            mean += x.at(row * kC + m) + r.at(row * kC + m);
        }
        mean /= kC;
        double var = 0.0;
        for (int64_t m = 0; m < kC; ++m)
        {
            double const d = x.at(row * kC + m) + r.at(row * kC + m) - mean;
            var += d * d;
        }
        double const invStd = 1.0 / std::sqrt(var / kC + 1e-5);
        for (int64_t m = 0; m < kC; ++m)
        {
            int64_t const i = row * kC + m;
            double const s = x.at(i) + r.at(i);
            double const want = (s - mean) * invStd * net.scale().at(m) + net.shift().at(m);
            ASSERT_NEAR(y.at(i), want, 1e-4 * (1.0 + std::fabs(want))) << "element " << i;
            ASSERT_NEAR(z.at(i), want * s, 1e-4 * (1.0 + std::fabs(want * s))) << "element " << i;
        }
    }
}

TEST(ResidualNormFusion, SumsThatStayUnfused)
{
    Case broadcast; // [2, 1, C] broadcasts over the sequence: not a row block
    broadcast.residualDims = {2, 1, kC};
    Case output; // the sum is a network output
    output.sumIsOutput = true;
    Case early; // a reader of the sum placed before the norm
    early.readerBeforeNorm = true;
    for (Case const& c : {broadcast, output, early})
    {
        std::vector<Built> const fused = compare(c, {{2, 5}}, 77);
        ASSERT_EQ(fused.size(), 1U);
        EXPECT_FALSE(hasLayer(fused[0], "add + ln")) << layerList(fused[0]);
        EXPECT_TRUE(hasLayer(fused[0], "add") && hasLayer(fused[0], "ln")) << layerList(fused[0]);
    }
}

} // namespace
} // namespace kiln::test
