// Tests of IEinsumLayer: matrix products, batch matmul, transpose, reductions, inner/outer products, diagonals and
// traces against a reference that enumerates every assignment of the subscripts; FP16; dynamic shapes; and the
// error paths (malformed equations, rank and extent mismatches, unsupported types).
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <functional>
#include <map>
#include <random>
#include <string>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

//! Reference: output[out letters] = sum over all other letters of the product of the inputs.
HostTensor einsumOracle(std::vector<std::string> const& terms, std::string const& output,
    std::vector<HostTensor> const& inputs, DataType type)
{
    std::map<char, int64_t> extent;
    for (size_t i = 0; i < terms.size(); ++i)
    {
        for (size_t d = 0; d < terms[i].size(); ++d)
        {
            extent[terms[i][d]] = inputs[i].dims.d[d];
        }
    }
    std::vector<int64_t> outShape;
    for (char c : output)
    {
        outShape.push_back(extent[c]);
    }
    HostTensor out(type, makeDims(outShape));
    std::vector<double> acc(static_cast<size_t>(std::max<int64_t>(out.volume(), 1)), 0.0);
    std::vector<char> letters;
    for (auto const& [c, e] : extent)
    {
        letters.push_back(c);
    }
    std::map<char, int64_t> value;
    std::function<void(size_t)> visit = [&](size_t k) {
        if (k == letters.size())
        {
            double p = 1.0;
            for (size_t i = 0; i < terms.size(); ++i)
            {
                int64_t offset = 0;
                for (size_t d = 0; d < terms[i].size(); ++d)
                {
                    offset = offset * inputs[i].dims.d[d] + value[terms[i][d]];
                }
                p *= inputs[i].at(offset);
            }
            int64_t o = 0;
            for (size_t d = 0; d < output.size(); ++d)
            {
                o = o * extent[output[d]] + value[output[d]];
            }
            acc[static_cast<size_t>(o)] += p;
            return;
        }
        for (int64_t v = 0; v < extent[letters[k]]; ++v)
        {
            value[letters[k]] = v;
            visit(k + 1);
        }
    };
    visit(0);
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        out.set(i, acc[static_cast<size_t>(i)]);
    }
    return out;
}

struct Case
{
    std::string equation;
    std::vector<std::string> terms;
    std::string output;
    std::vector<std::vector<int64_t>> shapes;
};

void runCase(Case const& c, DataType type, std::mt19937& rng)
{
    NetworkRunner r;
    std::vector<ITensor*> ins;
    std::map<std::string, HostTensor> feeds;
    std::vector<HostTensor> values;
    for (size_t i = 0; i < c.shapes.size(); ++i)
    {
        std::string const name = "x" + std::to_string(i);
        ins.push_back(r.addInput(name.c_str(), type, c.shapes[i]));
        values.push_back(HostTensor::random(type, makeDims(c.shapes[i]), rng, -2.0, 2.0));
        feeds[name] = values.back();
    }
    IEinsumLayer* layer = r.network().addEinsum(ins.data(), static_cast<int32_t>(ins.size()), c.equation.c_str());
    ASSERT_NE(layer, nullptr) << c.equation << ": " << r.logger().allErrors();
    EXPECT_EQ(std::string(layer->getEquation()), c.equation);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << c.equation << ": " << r.logger().allErrors();
    auto out = r.run(feeds);
    HostTensor const expected = einsumOracle(c.terms, c.output, values, type);
    double const tol = type == DataType::kFLOAT ? 1e-5 : 2e-2;
    EXPECT_TRUE(kiln::test::allClose(out["y"], expected, tol, tol)) << c.equation;
}

class EinsumLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(EinsumLayerTest);

TEST_P(EinsumLayerTest, CommonEquationsMatchTheReference)
{
    std::mt19937 rng(101);
    std::vector<Case> const cases = {
        {"ij,jk->ik", {"ij", "jk"}, "ik", {{3, 4}, {4, 5}}},
        {"bij,bjk->bik", {"bij", "bjk"}, "bik", {{2, 3, 4}, {2, 4, 2}}},
        {"ij->ji", {"ij"}, "ji", {{3, 5}}},
        {"ij->i", {"ij"}, "i", {{4, 6}}},
        {"ij->", {"ij"}, "", {{4, 3}}},
        {"i,i", {"i", "i"}, "", {{7}, {7}}},
        {"i,j->ij", {"i", "j"}, "ij", {{3}, {4}}},
        {"ii->i", {"ii"}, "i", {{5, 5}}},
        {"ii", {"ii"}, "", {{4, 4}}},
        {"ij,jk", {"ij", "jk"}, "ik", {{2, 3}, {3, 4}}},
        {"bii->bi", {"bii"}, "bi", {{3, 4, 4}}},
        {" b i j , b k j -> b k i ", {"bij", "bkj"}, "bki", {{2, 3, 4}, {2, 5, 4}}},
        {"abc,cd,de->abe", {"abc", "cd", "de"}, "abe", {{2, 2, 3}, {3, 2}, {2, 3}}},
    };
    for (Case const& c : cases)
    {
        runCase(c, DataType::kFLOAT, rng);
    }
}

TEST_P(EinsumLayerTest, HalfPrecision)
{
    std::mt19937 rng(103);
    runCase({"bij,bjk->bik", {"bij", "bjk"}, "bik", {{2, 3, 4}, {2, 4, 3}}}, DataType::kHALF, rng);
}

TEST_P(EinsumLayerTest, DynamicShapes)
{
    std::mt19937 rng(107);
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {-1, 3, 4});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {-1, 4, -1});
    ITensor* ins[] = {a, b};
    IEinsumLayer* layer = r.network().addEinsum(ins, 2, "bij,bjk->bik");
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("a", {1, 3, 4}, {2, 3, 4}, {4, 3, 4});
    r.setProfileDims("b", {1, 4, 1}, {2, 4, 2}, {4, 4, 5});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto [batch, k] : {std::pair<int64_t, int64_t>{1, 5}, {3, 2}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({batch, 3, 4}), rng);
        HostTensor y = HostTensor::random(DataType::kFLOAT, makeDims({batch, 4, k}), rng);
        auto out = r.run({{"a", x}, {"b", y}});
        EXPECT_TRUE(kiln::test::allClose(out["y"], einsumOracle({"bij", "bjk"}, "bik", {x, y}, DataType::kFLOAT), 1e-5, 1e-5));
    }
    // Batch sizes that disagree violate the equation at run time.
    HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), rng);
    HostTensor y = HostTensor::random(DataType::kFLOAT, makeDims({3, 4, 2}), rng);
    EXPECT_TRUE(r.runFails({{"a", x}, {"b", y}}));
    EXPECT_TRUE(r.logger().hasError("subscript 'b' has different extents")) << r.logger().allErrors();
}

TEST_P(EinsumLayerTest, MalformedEquationsAreRejected)
{
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {2, 3});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {3, 4});
    ITensor* ins[] = {a, b};
    struct Bad
    {
        char const* equation;
        char const* message;
    };
    for (Bad const& bad : {Bad{"...ij,jk->ik", "ellipsis"}, Bad{"Ij,jk->Ik", "not a lower-case letter"},
             Bad{"ij->i", "1 input term(s) but the layer has 2"}, Bad{"ij,jk->iz", "'z' does not appear"},
             Bad{"ij,jk->ii", "appears more than once"}, Bad{"ij,jk->i->k", "'->' appears more than once"}})
    {
        r.logger().clear();
        EXPECT_EQ(r.network().addEinsum(ins, 2, bad.equation), nullptr) << bad.equation;
        EXPECT_TRUE(r.logger().hasError(bad.message)) << bad.equation << ": " << r.logger().allErrors();
    }
    EXPECT_EQ(r.network().addEinsum(ins, 2, nullptr), nullptr);
    EXPECT_EQ(r.network().addEinsum(ins, 0, "i"), nullptr);
    IEinsumLayer* layer = r.network().addEinsum(ins, 2, "ij,jk->ik");
    ASSERT_NE(layer, nullptr);
    r.logger().clear();
    EXPECT_FALSE(layer->setEquation("ij->j"));
    EXPECT_TRUE(r.logger().hasError("IEinsumLayer::setEquation")) << r.logger().allErrors();
    EXPECT_EQ(std::string(layer->getEquation()), "ij,jk->ik");
    EXPECT_TRUE(layer->setEquation("ij,jk->ki"));
    EXPECT_EQ(std::string(layer->getEquation()), "ij,jk->ki");
}

TEST_P(EinsumLayerTest, ShapeAndTypeErrorsFailTheBuild)
{
    {
        NetworkRunner r;
        ITensor* a = r.addInput("a", DataType::kFLOAT, {2, 3});
        ITensor* b = r.addInput("b", DataType::kFLOAT, {5, 4});
        ITensor* ins[] = {a, b};
        r.markOutput(r.network().addEinsum(ins, 2, "ij,jk->ik")->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("subscript 'j' has different extents")) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        ITensor* a = r.addInput("a", DataType::kFLOAT, {2, 3, 4});
        ITensor* ins[] = {a};
        r.markOutput(r.network().addEinsum(ins, 1, "ij->ji")->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("has rank 3 but its subscripts 'ij'")) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        ITensor* a = r.addInput("a", DataType::kINT32, {2, 3});
        ITensor* ins[] = {a};
        r.markOutput(r.network().addEinsum(ins, 1, "ij->ji")->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("Einsum supports FP32, FP16 and BF16")) << r.logger().allErrors();
    }
}

} // namespace
