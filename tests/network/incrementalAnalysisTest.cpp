// IncrementalAnalysis against the whole-network lenient analysis (analyzeNetwork(network, false)): random
// networks under random edit sequences (new layers, setInput that may close or open cycles, setters, setType,
// input dims and names, output marks, removed tensors, renames), with the ITensor getters and the symbolic
// results (compared structurally) checked after edits; plus targeted cases (shape-tensor input roles, cycles,
// garbage collection of the shape graph) and the cost of building a long network (each layer inferred once).
#include "common/networkRunner.h"
#include "network/incrementalAnalysis.h"
#include "network/networkDefinition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace
{
using namespace nvinfer1;
using kiln::ExprId;
using kiln::ExprOp;
using kiln::ShapeGraph;
using kiln::TensorInfo;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

kiln::NetworkDefinition& impl(INetworkDefinition& net)
{
    return dynamic_cast<kiln::NetworkDefinition&>(net);
}

kiln::Tensor& impl(ITensor& t)
{
    return dynamic_cast<kiln::Tensor&>(t);
}

//! Structural hash of every node of a graph: equal expressions built in another graph (other ids, other
//! creation order) hash equally. Commutative operands are combined in a canonical order; symbols by kind and name.
std::vector<uint64_t> structuralHashes(ShapeGraph const& g)
{
    auto mix = [](uint64_t h, uint64_t v) {
        h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
        h *= 0xBF58476D1CE4E5B9ULL;
        return h ^ (h >> 31);
    };
    std::vector<uint64_t> out(g.nodes().size());
    auto const of = [&](ExprId id) { return id < 0 ? 0x51ULL : out[static_cast<size_t>(id)]; };
    for (size_t i = 0; i < g.nodes().size(); ++i)
    {
        kiln::ExprNode const& n = g.node(static_cast<ExprId>(i));
        uint64_t h = mix(0x1234, static_cast<uint64_t>(n.op));
        switch (n.op)
        {
        case ExprOp::kCONSTANT: h = mix(h, static_cast<uint64_t>(n.value)); break;
        case ExprOp::kSYMBOL:
        {
            kiln::SymbolInfo const& s = g.symbols()[static_cast<size_t>(n.value)];
            h = mix(mix(h, static_cast<uint64_t>(s.kind)), std::hash<std::string>{}(s.name));
            break;
        }
        case ExprOp::kSUM:
        case ExprOp::kPROD:
        case ExprOp::kMAX:
        case ExprOp::kMIN:
        case ExprOp::kEQUAL:
        case ExprOp::kF_SUM:
        case ExprOp::kF_PROD:
        case ExprOp::kF_MAX:
        case ExprOp::kF_MIN:
            h = mix(mix(h, std::min(of(n.a), of(n.b))), std::max(of(n.a), of(n.b)));
            break;
        default:
            h = mix(mix(mix(h, of(n.a)), of(n.b)), of(n.c));
            h = mix(mix(h, static_cast<uint64_t>(n.rounding)), std::bit_cast<uint64_t>(n.scale));
            h = mix(h, static_cast<uint64_t>(n.value));
            break;
        }
        out[i] = h;
    }
    return out;
}

//! What the ITensor getters returned before the analysis became incremental, computed from a fresh analysis.
struct Expected
{
    Dims dims{};
    DataType type{DataType::kFLOAT};
    bool shape{false};
    bool execution{true};
};

Expected expectedFrom(kiln::NetworkAnalysis const& a, kiln::Tensor const& t)
{
    Expected e;
    e.dims.nbDims = -1;
    auto it = a.infos.find(&t);
    if (t.isInput())
    {
        e.dims = t.declaredDims();
    }
    else if (it != a.infos.end() && it->second.dims.size() <= static_cast<size_t>(Dims::MAX_DIMS))
    {
        e.dims.nbDims = static_cast<int32_t>(it->second.dims.size());
        for (size_t i = 0; i < it->second.dims.size(); ++i)
        {
            e.dims.d[i] = it->second.dims[i].known();
        }
    }
    e.type = t.isInput() || t.typeSetByUser() ? t.declaredType() : (it != a.infos.end() ? it->second.type : DataType::kFLOAT);
    e.shape = a.shapeTensors.count(&t) != 0;
    e.execution = a.executionTensors.count(&t) != 0 || !e.shape;
    return e;
}

std::string dimsText(Dims const& d)
{
    return kiln::test::dimsString(d);
}

//! How much the comparisons saw: a generator whose networks are always broken would prove nothing.
struct Coverage
{
    int64_t checks{0};
    int64_t wellFormed{0};   // checks where the network sorted (no dangling tensor, no cycle)
    int64_t knownTensors{0}; // layer outputs with inferred results, over all checks
    int64_t shapeTensors{0};
};

//! Compares every tensor's getters and symbolic results with a fresh lenient analysis of the same network.
::testing::AssertionResult matchesFreshAnalysis(
    INetworkDefinition& net, std::vector<ITensor*> const& tensors, std::mt19937& rng, Coverage* coverage = nullptr)
{
    kiln::NetworkDefinition& n = impl(net);
    auto fresh = kiln::analyzeNetwork(n, /*strict=*/false);
    if (!fresh.isOk())
    {
        return ::testing::AssertionFailure() << "the fresh lenient analysis failed: " << fresh.status().message();
    }
    kiln::NetworkAnalysis const& a = **fresh;
    if (coverage != nullptr)
    {
        ++coverage->checks;
        coverage->wellFormed += a.order.size() == static_cast<size_t>(net.getNbLayers()) ? 1 : 0;
        for (ITensor* t : tensors)
        {
            coverage->knownTensors += !t->isNetworkInput() && a.infos.count(&impl(*t)) != 0 ? 1 : 0;
            coverage->shapeTensors += a.shapeTensors.count(&impl(*t)) != 0 ? 1 : 0;
        }
    }
    std::vector<ITensor*> order = tensors;
    std::shuffle(order.begin(), order.end(), rng);
    for (ITensor* t : order)
    {
        Expected const e = expectedFrom(a, impl(*t));
        Dims const d = t->getDimensions();
        bool same = d.nbDims == e.dims.nbDims;
        for (int32_t i = 0; same && i < d.nbDims; ++i)
        {
            same = d.d[i] == e.dims.d[i];
        }
        if (!same || t->getType() != e.type || t->isShapeTensor() != e.shape || t->isExecutionTensor() != e.execution)
        {
            return ::testing::AssertionFailure()
                << "tensor '" << t->getName() << "': incremental dims " << dimsText(d) << " type "
                << static_cast<int>(t->getType()) << " shape " << t->isShapeTensor() << " execution "
                << t->isExecutionTensor() << "; fresh dims " << dimsText(e.dims) << " type "
                << static_cast<int>(e.type) << " shape " << e.shape << " execution " << e.execution;
        }
    }
    // Symbolic results: every query above is answered, so this pass infers nothing new.
    kiln::IncrementalAnalysis& inc = n.incrementalAnalysis();
    std::vector<TensorInfo const*> infos;
    for (ITensor* t : tensors)
    {
        infos.push_back(inc.info(impl(*t)));
    }
    int64_t const resets = inc.stats().resets;
    for (ITensor* t : tensors)
    {
        (void) inc.info(impl(*t));
    }
    if (inc.stats().resets != resets)
    {
        return ::testing::AssertionFailure() << "the analysis was rebuilt while nothing changed";
    }
    std::vector<uint64_t> const hf = structuralHashes(*a.graph);
    std::vector<uint64_t> const hi = structuralHashes(inc.graph());
    for (size_t k = 0; k < tensors.size(); ++k)
    {
        kiln::Tensor const& t = impl(*tensors[k]);
        auto it = a.infos.find(&t);
        TensorInfo const* f = it == a.infos.end() ? nullptr : &it->second;
        TensorInfo const* i = infos[k];
        if ((f == nullptr) != (i == nullptr))
        {
            return ::testing::AssertionFailure() << "tensor '" << t.name() << "': known in "
                                                 << (f != nullptr ? "the fresh" : "the incremental") << " analysis only";
        }
        if (f == nullptr)
        {
            continue;
        }
        bool same = f->type == i->type && f->dims.size() == i->dims.size()
            && f->values.has_value() == i->values.has_value() && f->constantData == i->constantData;
        for (size_t j = 0; same && j < f->dims.size(); ++j)
        {
            same = hf[static_cast<size_t>(f->dims[j].id())] == hi[static_cast<size_t>(i->dims[j].id())];
        }
        if (same && f->values.has_value())
        {
            same = f->values->size() == i->values->size();
            for (size_t j = 0; same && j < f->values->size(); ++j)
            {
                same = hf[static_cast<size_t>((*f->values)[j].id())] == hi[static_cast<size_t>((*i->values)[j].id())];
            }
        }
        if (!same)
        {
            return ::testing::AssertionFailure()
                << "tensor '" << t.name() << "': symbolic results differ: fresh "
                << kiln::shapeToString(*a.graph, f->dims) << " vs incremental " << kiln::shapeToString(inc.graph(), i->dims);
        }
    }
    return ::testing::AssertionSuccess();
}

//! Builds and edits a random network through the public API. Many steps fail on purpose (bad shapes, cycles):
//! the lenient analysis must agree on failures too.
class RandomNetwork
{
public:
    RandomNetwork(INetworkDefinition& net, uint32_t seed)
        : mNet(net)
        , mRng(seed)
    {
        ITensor* x = net.addInput("x", DataType::kFLOAT, makeDims({-1, 4, -1}));
        x->setDimensionName(0, "batch");
        ITensor* y = net.addInput("y", DataType::kFLOAT, makeDims({-1, 4, 6}));
        y->setDimensionName(0, "batch");
        ITensor* s = net.addInput("s", DataType::kINT32, makeDims({3}));
        mInputs = {x, y, s};
        mTensors = mInputs;
    }

    std::vector<ITensor*> const& tensors() const { return mTensors; }
    std::mt19937& rng() { return mRng; }

    void step()
    {
        int const what = pick(100);
        if (what < 45 || mLayers.empty())
        {
            addLayer();
        }
        else if (what < 57)
        {
            setRandomInput();
        }
        else if (what < 70)
        {
            setRandomParameter();
        }
        else if (what < 75)
        {
            ITensor* t = tensor();
            if (!t->isNetworkInput())
            {
                DataType const types[] = {DataType::kFLOAT, DataType::kHALF, DataType::kINT32};
                t->setType(types[pick(3)]);
            }
        }
        else if (what < 80)
        {
            changeInput();
        }
        else if (what < 86)
        {
            ITensor* t = tensor();
            if (t->isNetworkOutput() && pick(2) == 0)
            {
                mNet.unmarkOutput(*t);
            }
            else
            {
                mNet.markOutput(*t);
            }
        }
        else if (what < 88)
        {
            ITensor* t = tensor();
            if ((t->isNetworkInput() && pick(8) == 0) || t->isNetworkOutput())
            {
                mNet.removeTensor(*t);
            }
        }
        else if (what < 92)
        {
            ILayer* l = layer();
            if (pick(2) == 0)
            {
                l->setOutputType(0, pick(2) == 0 ? DataType::kHALF : DataType::kINT32);
            }
            else
            {
                l->resetOutputType(0);
            }
        }
        else if (what < 96)
        {
            std::string const name = "renamed" + std::to_string(mRenames++);
            if (pick(2) == 0)
            {
                tensor()->setName(name.c_str());
            }
            else
            {
                layer()->setName(name.c_str());
            }
        }
        else
        {
            ITensor* t = tensor(); // a query between edits leaves partial results behind
            (void) t->getDimensions();
            (void) t->isShapeTensor();
        }
    }

private:
    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(mRng); }
    ITensor* tensor() { return mTensors[static_cast<size_t>(pick(static_cast<int>(mTensors.size())))]; }
    ILayer* layer() { return mLayers[static_cast<size_t>(pick(static_cast<int>(mLayers.size())))]; }

    IConstantLayer* int32Constant(std::vector<int32_t> values)
    {
        mWeights.push_back(std::move(values));
        auto const& v = mWeights.back();
        Weights const w{DataType::kINT32, v.data(), static_cast<int64_t>(v.size())};
        return mNet.addConstant(makeDims({static_cast<int64_t>(v.size())}), w);
    }

    Dims randomDims(int32_t rank, int64_t lo, int64_t hi)
    {
        Dims d{};
        d.nbDims = rank;
        for (int32_t i = 0; i < rank; ++i)
        {
            d.d[i] = std::uniform_int_distribution<int64_t>(lo, hi)(mRng);
        }
        return d;
    }

    void keep(ILayer* l)
    {
        if (l == nullptr)
        {
            return;
        }
        mBirth[l] = static_cast<int32_t>(mTensors.size());
        mLayers.push_back(l);
        for (int32_t i = 0; i < l->getNbOutputs(); ++i)
        {
            mTensors.push_back(l->getOutput(i));
        }
    }

    void addLayer()
    {
        ITensor* a = tensor();
        ITensor* b = pick(2) == 0 ? a : tensor();
        switch (pick(16))
        {
        case 0:
        {
            ElementWiseOperation const ops[] = {ElementWiseOperation::kSUM, ElementWiseOperation::kPROD,
                ElementWiseOperation::kMAX, ElementWiseOperation::kSUB, ElementWiseOperation::kFLOOR_DIV};
            keep(mNet.addElementWise(*a, *b, ops[pick(5)]));
            break;
        }
        case 1: keep(mNet.addShape(*a)); break;
        case 2:
        {
            IShuffleLayer* s = mNet.addShuffle(*a);
            if (s != nullptr && pick(2) == 0)
            {
                s->setInput(1, *b);
            }
            else if (s != nullptr)
            {
                s->setReshapeDimensions(randomDims(1 + pick(3), -1, 6));
            }
            keep(s);
            break;
        }
        case 3:
        {
            ISliceLayer* s = mNet.addSlice(*a, randomDims(3, 0, 1), randomDims(3, 1, 3), randomDims(3, 1, 1));
            if (s != nullptr && pick(2) == 0)
            {
                s->setInput(2, *b);
            }
            keep(s);
            break;
        }
        case 4: keep(mNet.addGather(*a, *b, pick(3))); break;
        case 5:
        {
            ITensor* parts[] = {a, b};
            IConcatenationLayer* c = mNet.addConcatenation(parts, 2);
            if (c != nullptr)
            {
                c->setAxis(pick(3));
            }
            keep(c);
            break;
        }
        case 6:
        {
            std::vector<int32_t> values(static_cast<size_t>(1 + pick(3)));
            for (auto& v : values)
            {
                v = pick(2) == 0 ? -1 : 1 + pick(5);
            }
            keep(int32Constant(std::move(values)));
            break;
        }
        case 7: keep(mNet.addReduce(*a, ReduceOperation::kSUM, 1U << pick(3), pick(2) == 0)); break;
        case 8: keep(mNet.addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kNONE)); break;
        case 9: keep(mNet.addSoftMax(*a)); break;
        case 10: keep(mNet.addCast(*a, pick(2) == 0 ? DataType::kINT32 : DataType::kFLOAT)); break;
        case 11:
        case 12: keep(mNet.addUnary(*a, UnaryOperation::kABS)); break;
        case 13: keep(mNet.addShape(*a)); break;
        default: keep(mNet.addIdentity(*a)); break;
        }
    }

    void setRandomInput()
    {
        ILayer* l = layer();
        int32_t slot = pick(std::max(1, l->getNbInputs()));
        if (l->getType() == LayerType::kSHUFFLE)
        {
            slot = pick(2);
        }
        else if (l->getType() == LayerType::kSLICE)
        {
            slot = pick(4);
        }
        // Mostly a tensor created before the layer; sometimes any tensor, which may close a cycle (a later
        // setInput may open it again).
        int32_t const birth = mBirth.at(l);
        ITensor* t = pick(6) == 0 || birth == 0 ? tensor() : mTensors[static_cast<size_t>(pick(birth))];
        l->setInput(slot, *t);
    }

    void setRandomParameter()
    {
        ILayer* l = layer();
        switch (l->getType())
        {
        case LayerType::kSHUFFLE:
            if (pick(2) == 0)
            {
                static_cast<IShuffleLayer*>(l)->setReshapeDimensions(randomDims(1 + pick(3), -1, 6));
            }
            else
            {
                Permutation p{};
                for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
                {
                    p.order[i] = i;
                }
                std::swap(p.order[0], p.order[1]);
                static_cast<IShuffleLayer*>(l)->setFirstTranspose(p);
            }
            break;
        case LayerType::kSLICE: static_cast<ISliceLayer*>(l)->setStart(randomDims(3, 0, 1)); break;
        case LayerType::kELEMENTWISE:
            static_cast<IElementWiseLayer*>(l)->setOperation(
                pick(2) == 0 ? ElementWiseOperation::kSUM : ElementWiseOperation::kPROD);
            break;
        case LayerType::kREDUCE: static_cast<IReduceLayer*>(l)->setReduceAxes(1U << pick(3)); break;
        case LayerType::kCONCATENATION: static_cast<IConcatenationLayer*>(l)->setAxis(pick(3)); break;
        case LayerType::kGATHER: static_cast<IGatherLayer*>(l)->setGatherAxis(pick(3)); break;
        default: l->setName(("p" + std::to_string(mRenames++)).c_str()); break;
        }
    }

    void changeInput()
    {
        ITensor* in = mInputs[static_cast<size_t>(pick(static_cast<int>(mInputs.size())))];
        if (!in->isNetworkInput())
        {
            return;
        }
        switch (pick(4))
        {
        case 0: in->setDimensions(randomDims(1 + pick(3), -1, 6)); break;
        case 1: in->setDimensionName(0, pick(2) == 0 ? "batch" : "other"); break;
        case 2: in->setType(pick(2) == 0 ? DataType::kINT32 : DataType::kFLOAT); break;
        default: in->setName(("in" + std::to_string(mRenames++)).c_str()); break;
        }
    }

    INetworkDefinition& mNet;
    std::mt19937 mRng;
    std::vector<ITensor*> mInputs;
    std::vector<ITensor*> mTensors;
    std::vector<ILayer*> mLayers;
    std::map<ILayer const*, int32_t> mBirth; // number of tensors that existed when the layer was added
    std::deque<std::vector<int32_t>> mWeights;
    int mRenames{0};
};

TEST(IncrementalAnalysisTest, RandomEditSequencesMatchAFreshAnalysis)
{
    int64_t fullClassifications = 0;
    int64_t structureChecks = 0;
    Coverage coverage;
    for (uint32_t seed = 1; seed <= 100; ++seed)
    {
        NetworkRunner r;
        RandomNetwork g(r.network(), seed);
        std::mt19937 checkRng(seed * 7919U);
        for (int step = 0; step < 200; ++step)
        {
            g.step();
            if (step % 5 == 4)
            {
                ASSERT_TRUE(matchesFreshAnalysis(r.network(), g.tensors(), checkRng, &coverage))
                    << "seed " << seed << " step " << step;
            }
        }
        ASSERT_TRUE(matchesFreshAnalysis(r.network(), g.tensors(), checkRng)) << "seed " << seed;
        auto const& stats = impl(r.network()).incrementalAnalysis().stats();
        fullClassifications += stats.fullClassifications;
        structureChecks += stats.structureChecks;
    }
    // The edits above include ones that need the full passes: both paths were exercised.
    EXPECT_GT(fullClassifications, 0);
    EXPECT_GT(structureChecks, 0);
    std::printf("[ coverage ] %lld checks, %lld well formed, %lld known layer outputs, %lld shape tensors\n",
        static_cast<long long>(coverage.checks), static_cast<long long>(coverage.wellFormed),
        static_cast<long long>(coverage.knownTensors), static_cast<long long>(coverage.shapeTensors));
    EXPECT_GT(coverage.wellFormed * 2, coverage.checks) << "most checks must see a well-formed network";
    EXPECT_GT(coverage.knownTensors, 10 * coverage.checks) << "checks must see many inferred tensors";
    EXPECT_GT(coverage.shapeTensors, coverage.checks) << "checks must see shape tensors";
}

TEST(IncrementalAnalysisTest, BuildingALongNetworkInfersEachLayerOnce)
{
    // x [batch, 8] -> 1500 blocks of (Shape -> Gather -> Concat -> Shuffle -> ElementWise), querying each new
    // output as an importer does. Nothing is re-analysed: one inference per layer, no full pass.
    NetworkRunner r;
    INetworkDefinition& net = r.network();
    std::deque<std::vector<int64_t>> weights;
    auto constant = [&](std::vector<int64_t> v) {
        weights.push_back(std::move(v));
        Weights const w{DataType::kINT64, weights.back().data(), static_cast<int64_t>(weights.back().size())};
        return net.addConstant(makeDims({static_cast<int64_t>(weights.back().size())}), w)->getOutput(0);
    };
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 8});
    int32_t constexpr kBLOCKS = 1500;
    for (int32_t i = 0; i < kBLOCKS; ++i)
    {
        ITensor* batch = net.addGather(*net.addShape(*x)->getOutput(0), *constant({0}), 0)->getOutput(0);
        ITensor* parts[] = {batch, constant({8})};
        IConcatenationLayer* cat = net.addConcatenation(parts, 2);
        cat->setAxis(0);
        IShuffleLayer* reshape = net.addShuffle(*x);
        reshape->setInput(1, *cat->getOutput(0));
        reshape->setName(("reshape" + std::to_string(i)).c_str());
        IElementWiseLayer* add = net.addElementWise(*reshape->getOutput(0), *x, ElementWiseOperation::kSUM);
        add->getOutput(0)->setName(("x" + std::to_string(i)).c_str());
        x = add->getOutput(0);
        Dims const d = x->getDimensions();
        ASSERT_EQ(d.nbDims, 2);
        ASSERT_EQ(d.d[0], -1);
        ASSERT_EQ(d.d[1], 8);
        ASSERT_EQ(x->getType(), DataType::kFLOAT);
        ASSERT_FALSE(x->isShapeTensor());
    }
    auto const& stats = impl(net).incrementalAnalysis().stats();
    EXPECT_LE(stats.layerInferences, net.getNbLayers()) << "a layer was inferred twice";
    EXPECT_EQ(stats.fullClassifications, 0);
    EXPECT_EQ(stats.structureChecks, 0);
    EXPECT_EQ(stats.resets, 0);
    std::mt19937 rng(3);
    std::vector<ITensor*> all;
    for (int32_t i = 0; i < net.getNbLayers(); ++i)
    {
        all.push_back(net.getLayer(i)->getOutput(0));
    }
    all.push_back(net.getInput(0));
    EXPECT_TRUE(matchesFreshAnalysis(net, all, rng));
}

TEST(IncrementalAnalysisTest, InputBecomesAShapeTensorWhenAShapeSlotConsumesIt)
{
    NetworkRunner r;
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 6});
    ITensor* s = r.addInput("s", DataType::kINT32, {2});
    ITensor* doubled = net.addElementWise(*s, *s, ElementWiseOperation::kSUM)->getOutput(0);
    EXPECT_EQ(doubled->getDimensions().nbDims, 1);
    EXPECT_FALSE(s->isShapeTensor());
    EXPECT_FALSE(doubled->isShapeTensor());
    TensorInfo const* before = impl(net).incrementalAnalysis().info(impl(*doubled));
    ASSERT_NE(before, nullptr);
    EXPECT_FALSE(before->values.has_value()) << "a plain INT32 input carries no values";

    IShuffleLayer* reshape = net.addShuffle(*x);
    reshape->setInput(1, *doubled); // doubled and s now shape a tensor: s becomes a shape-tensor input
    EXPECT_TRUE(s->isShapeTensor());
    EXPECT_TRUE(doubled->isShapeTensor());
    EXPECT_TRUE(s->isExecutionTensor()) << "it also feeds the elementwise layer's data input";
    TensorInfo const* after = impl(net).incrementalAnalysis().info(impl(*doubled));
    ASSERT_NE(after, nullptr);
    ASSERT_TRUE(after->values.has_value()) << "the role change re-inferred the input's consumers";
    EXPECT_EQ(after->values->size(), 2U);
    EXPECT_EQ(reshape->getOutput(0)->getDimensions().nbDims, 2);

    reshape->setReshapeDimensions(makeDims({-1, 3})); // clears input 1: s is no longer a shape tensor
    EXPECT_FALSE(s->isShapeTensor());
    TensorInfo const* again = impl(net).incrementalAnalysis().info(impl(*doubled));
    ASSERT_NE(again, nullptr);
    EXPECT_FALSE(again->values.has_value());
    Dims const d = reshape->getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 2);
    EXPECT_EQ(d.d[1], 3);
    std::mt19937 rng(5);
    EXPECT_TRUE(matchesFreshAnalysis(net, {x, s, doubled, reshape->getOutput(0)}, rng));
}

TEST(IncrementalAnalysisTest, CycleMakesEverythingUnknownUntilOpened)
{
    NetworkRunner r;
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
    ILayer* a = net.addUnary(*x, UnaryOperation::kABS);
    ILayer* b = net.addUnary(*a->getOutput(0), UnaryOperation::kNEG);
    ILayer* c = net.addIdentity(*x);
    EXPECT_EQ(b->getOutput(0)->getDimensions().nbDims, 2);
    a->setInput(0, *b->getOutput(0)); // a -> b -> a
    EXPECT_EQ(b->getOutput(0)->getDimensions().nbDims, -1);
    EXPECT_EQ(c->getOutput(0)->getDimensions().nbDims, -1) << "as the full analysis: a broken network has no shapes";
    a->setInput(0, *c->getOutput(0));
    Dims const d = b->getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 2);
    EXPECT_EQ(d.d[0], 2);
    EXPECT_EQ(d.d[1], 3);
    std::mt19937 rng(9);
    EXPECT_TRUE(matchesFreshAnalysis(net, {x, a->getOutput(0), b->getOutput(0), c->getOutput(0)}, rng));
}

TEST(IncrementalAnalysisTest, RepeatedEditsRebuildTheStateAndStayExact)
{
    // Each setDimensions re-infers the whole chain; after enough re-inferences the analysis drops its shape graph
    // (garbage included) and starts again. Results must not change.
    NetworkRunner r;
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 4});
    std::vector<ITensor*> all{x};
    ITensor* t = x;
    for (int i = 0; i < 60; ++i)
    {
        ITensor* shape = net.addShape(*t)->getOutput(0);
        IShuffleLayer* s = net.addShuffle(*t);
        s->setInput(1, *shape);
        t = net.addElementWise(*s->getOutput(0), *t, ElementWiseOperation::kPROD)->getOutput(0);
        all.insert(all.end(), {shape, s->getOutput(0), t});
    }
    std::mt19937 rng(11);
    std::uniform_int_distribution<int64_t> extent(1, 9);
    for (int iter = 0; iter < 120; ++iter)
    {
        int64_t const e = extent(rng);
        x->setDimensions(makeDims({iter % 3 == 0 ? -1 : e, 4}));
        Dims const d = t->getDimensions();
        ASSERT_EQ(d.nbDims, 2);
        EXPECT_EQ(d.d[0], iter % 3 == 0 ? -1 : e);
    }
    EXPECT_GE(impl(net).incrementalAnalysis().stats().resets, 1);
    EXPECT_TRUE(matchesFreshAnalysis(net, all, rng));
}

} // namespace
