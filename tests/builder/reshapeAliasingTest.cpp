// Reshapes that move no data. memoryPass: a Shuffle that only reshapes shares its input's arena slot, a transposing
// one does not, and both give the reference result, with dynamic shapes and with the reshape's input read again
// later. constantReshapePass: a reshape of a constant becomes a constant, and no node runs for it.
#include "common/builtPlan.h"
#include "common/networkRunner.h"
#include "engine/engineReader.h"

#include <gtest/gtest.h>

#include <optional>

namespace kiln::test
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

ITensor* add(NetworkRunner& r, ITensor* a, ITensor* b, char const* name)
{
    auto* layer = r.network().addElementWise(*a, *b, ElementWiseOperation::kSUM);
    layer->setName(name);
    return layer->getOutput(0);
}

TEST(MemoryPass, PureReshapeSharesItsInputSlot)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3, 4});
    r.setProfileDims("x", {1, 3, 4}, {2, 3, 4}, {5, 3, 4});
    ITensor* t = add(r, x, x, "double");
    auto* reshape = r.network().addShuffle(*t);
    reshape->setName("reshape");
    reshape->setReshapeDimensions(makeDims({-1, 4}));
    auto* transpose = r.network().addShuffle(*t);
    transpose->setName("transpose");
    transpose->setFirstTranspose(nvinfer1::Permutation{{0, 2, 1}});
    ITensor* flat = add(r, reshape->getOutput(0), reshape->getOutput(0), "useReshape");
    // The reshape's input is read again after the reshape: aliasing must not disturb it.
    ITensor* again = add(r, t, x, "useInputAgain");
    r.markOutput(flat, "flat");
    r.markOutput(add(r, transpose->getOutput(0), transpose->getOutput(0), "useTranspose"), "swapped");
    r.markOutput(again, "again");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();

    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value());
    PlanNode const* pure = findNode(*plan, "reshape");
    PlanNode const* moving = findNode(*plan, "transpose");
    ASSERT_NE(pure, nullptr);
    ASSERT_NE(moving, nullptr);
    PlanProfile const& p = plan->profiles[0];
    auto offset = [&](int32_t t) { return p.tensorOffsets[static_cast<size_t>(t)]; };
    EXPECT_GE(offset(pure->inputs[0]), 0);
    EXPECT_EQ(offset(pure->inputs[0]), offset(pure->outputs[0]));
    EXPECT_NE(offset(moving->inputs[0]), offset(moving->outputs[0]));

    for (int64_t n : {5, 1, 3})
    {
        std::mt19937 rng(static_cast<uint32_t>(n));
        HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({n, 3, 4}), rng);
        auto out = r.run({{"x", in}});
        ASSERT_EQ(out["flat"].volume(), n * 12);
        for (int64_t i = 0; i < n; ++i)
        {
            for (int64_t c = 0; c < 3; ++c)
            {
                for (int64_t w = 0; w < 4; ++w)
                {
                    int64_t const at = (i * 3 + c) * 4 + w;
                    double const v = static_cast<float>(in.at(at)) * 2.0F;
                    EXPECT_FLOAT_EQ(out["flat"].at(at), 2.0 * v);
                    EXPECT_FLOAT_EQ(out["again"].at(at), v + in.at(at));
                    EXPECT_FLOAT_EQ(out["swapped"].at((i * 4 + w) * 3 + c), 2.0 * v);
                }
            }
        }
    }
}

TEST(ConstantReshapePass, ReshapedConstantRunsNoNode)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3, 4});
    std::mt19937 rng(5);
    HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    auto* constant = r.network().addConstant(makeDims({3, 4}),
        nvinfer1::Weights{DataType::kFLOAT, w.data(), w.volume()});
    auto* reshape = r.network().addShuffle(*constant->getOutput(0));
    reshape->setName("alignRank");
    reshape->setReshapeDimensions(makeDims({1, 3, 4}));
    // The ONNX importer's unsqueeze: a reshape to [3, 4, 1], then a transpose that moves only the unit dimension.
    auto* unsqueeze = r.network().addShuffle(*constant->getOutput(0));
    unsqueeze->setName("unsqueeze");
    unsqueeze->setReshapeDimensions(makeDims({3, 4, 1}));
    unsqueeze->setSecondTranspose(nvinfer1::Permutation{{2, 0, 1}});
    // A transpose that moves data stays a node.
    auto* transpose = r.network().addShuffle(*constant->getOutput(0));
    transpose->setName("transposeWeights");
    transpose->setFirstTranspose(nvinfer1::Permutation{{1, 0}});
    r.markOutput(add(r, x, reshape->getOutput(0), "addWeights"), "y");
    r.markOutput(add(r, x, unsqueeze->getOutput(0), "addUnsqueezed"), "u");
    r.markOutput(transpose->getOutput(0), "t");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(findNode(*plan, "alignRank"), nullptr);
    EXPECT_EQ(findNode(*plan, "unsqueeze"), nullptr);
    EXPECT_NE(findNode(*plan, "transposeWeights"), nullptr);
    for (char const* name : {"addWeights", "addUnsqueezed"})
    {
        PlanNode const* sum = findNode(*plan, name);
        ASSERT_NE(sum, nullptr);
        EXPECT_GE(plan->tensors[static_cast<size_t>(sum->inputs[1])].constant, 0) << name;
    }

    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), rng);
    auto out = r.run({{"x", in}});
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        EXPECT_FLOAT_EQ(out["y"].at(i), static_cast<float>(in.at(i)) + static_cast<float>(w.at(i % 12)));
        EXPECT_FLOAT_EQ(out["u"].at(i), static_cast<float>(in.at(i)) + static_cast<float>(w.at(i % 12)));
    }
    for (int64_t row = 0; row < 4; ++row)
    {
        for (int64_t col = 0; col < 3; ++col)
        {
            EXPECT_FLOAT_EQ(out["t"].at(row * 3 + col), w.at(col * 4 + row));
        }
    }
}

} // namespace
} // namespace kiln::test
