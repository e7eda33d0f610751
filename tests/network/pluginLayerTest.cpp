// Plugin layers in the network definition: addPluginV2/addPluginV3 clone the application's plugin (the network owns
// the clone and destroys it), validate their arguments with messages naming the plugin, infer output shapes and
// types through the plugin (dynamic shapes, V3 shape inputs, data-dependent size tensors).
#include "builder/pluginTestPlugins.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <memory>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;
using plugins::ScaleConfig;
using plugins::TestScaleV2;
using plugins::TestV3;
using plugins::V3Config;
using plugins::V3Mode;

TEST(PluginLayerTest, AddPluginV2OwnsAClone)
{
    int32_t const before = plugins::liveObjects();
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3});
        TestScaleV2 plugin(ScaleConfig{});
        ITensor* inputs[] = {x};
        IPluginV2Layer* layer = r.network().addPluginV2(inputs, 1, plugin);
        ASSERT_NE(layer, nullptr) << r.logger().allErrors();
        EXPECT_EQ(layer->getType(), LayerType::kPLUGIN_V2);
        EXPECT_NE(&layer->getPlugin(), static_cast<IPluginV2*>(&plugin)) << "the layer must hold its own clone";
        EXPECT_STREQ(layer->getPlugin().getPluginType(), "KilnTestScale");
        EXPECT_EQ(plugins::liveObjects(), before + 2); // the application's object and the network's clone
        ASSERT_EQ(layer->getNbOutputs(), 1);
        Dims const d = layer->getOutput(0)->getDimensions();
        ASSERT_EQ(d.nbDims, 2);
        EXPECT_EQ(d.d[0], -1);
        EXPECT_EQ(d.d[1], 3);
        EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kFLOAT);
    }
    // The network destroyed its clone; the application's object was only borrowed (and is gone with its scope).
    EXPECT_EQ(plugins::liveObjects(), before);
}

TEST(PluginLayerTest, AddPluginV3OwnsAClone)
{
    int32_t const before = plugins::liveObjects();
    TestV3 plugin(V3Config{});
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 5});
        ITensor* inputs[] = {x};
        IPluginV3Layer* layer = r.network().addPluginV3(inputs, 1, nullptr, 0, plugin);
        ASSERT_NE(layer, nullptr) << r.logger().allErrors();
        EXPECT_EQ(layer->getType(), LayerType::kPLUGIN_V3);
        EXPECT_NE(&layer->getPlugin(), static_cast<IPluginV3*>(&plugin));
        EXPECT_EQ(plugins::liveObjects(), before + 2);
        Dims const d = layer->getOutput(0)->getDimensions();
        ASSERT_EQ(d.nbDims, 2);
        EXPECT_EQ(d.d[0], 2);
        EXPECT_EQ(d.d[1], 5);
    }
    EXPECT_EQ(plugins::liveObjects(), before + 1) << "the application's plugin must not be destroyed by the network";
}

TEST(PluginLayerTest, NullInputIsRejectedNamingThePlugin)
{
    NetworkRunner r;
    r.addInput("x", DataType::kFLOAT, {2});
    TestScaleV2 plugin(ScaleConfig{});
    ITensor* inputs[] = {nullptr};
    EXPECT_EQ(r.network().addPluginV2(inputs, 1, plugin), nullptr);
    EXPECT_TRUE(r.logger().hasError("KilnTestScale")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("input 0 is null")) << r.logger().allErrors();
}

TEST(PluginLayerTest, TensorOfAnotherNetworkIsRejected)
{
    NetworkRunner a;
    NetworkRunner b;
    ITensor* foreign = b.addInput("foreign", DataType::kFLOAT, {2});
    TestV3 plugin(V3Config{});
    ITensor* inputs[] = {foreign};
    EXPECT_EQ(a.network().addPluginV3(inputs, 1, nullptr, 0, plugin), nullptr);
    EXPECT_TRUE(a.logger().hasError("KilnTestV3")) << a.logger().allErrors();
    EXPECT_TRUE(a.logger().hasError("does not belong to this network")) << a.logger().allErrors();
}

TEST(PluginLayerTest, NullCloneFailsAddPluginV2)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
    ScaleConfig c;
    c.cloneBudget = 0;
    TestScaleV2 plugin(c);
    ITensor* inputs[] = {x};
    EXPECT_EQ(r.network().addPluginV2(inputs, 1, plugin), nullptr);
    EXPECT_TRUE(r.logger().hasError("KilnTestScale")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("clone")) << r.logger().allErrors();
}

TEST(PluginLayerTest, ShapeInputValuesShapeTheOutput)
{
    NetworkRunner r;
    ITensor* data = r.addInput("data", DataType::kFLOAT, {6, 4});
    ITensor* like = r.addInput("like", DataType::kFLOAT, {3, 8});
    auto* shape = r.network().addShape(*like);
    ASSERT_NE(shape, nullptr);
    V3Config c;
    c.mode = V3Mode::kRESHAPE;
    TestV3 plugin(c);
    ITensor* inputs[] = {data};
    ITensor* shapeInputs[] = {shape->getOutput(0)};
    IPluginV3Layer* layer = r.network().addPluginV3(inputs, 1, shapeInputs, 1, plugin);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    EXPECT_EQ(layer->getNbInputs(), 2) << "shape inputs follow the regular inputs";
    Dims const d = layer->getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 2);
    EXPECT_EQ(d.d[0], 3);
    EXPECT_EQ(d.d[1], 8);
    EXPECT_TRUE(shape->getOutput(0)->isShapeTensor());
}

TEST(PluginLayerTest, ShapeInputMustBeAShapeTensor)
{
    NetworkRunner r;
    ITensor* data = r.addInput("data", DataType::kFLOAT, {6, 4});
    ITensor* notShape = r.addInput("notShape", DataType::kFLOAT, {2});
    V3Config c;
    c.mode = V3Mode::kRESHAPE;
    TestV3 plugin(c);
    ITensor* inputs[] = {data};
    ITensor* shapeInputs[] = {notShape};
    IPluginV3Layer* layer = r.network().addPluginV3(inputs, 1, shapeInputs, 1, plugin);
    ASSERT_NE(layer, nullptr);
    layer->setName("reshaper");
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("KilnTestV3")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("reshaper")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("shape input 0 'notShape'")) << r.logger().allErrors();
}

TEST(PluginLayerTest, SizeTensorOutputIsZeroDimensionalAndShapesTheData)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3, 4});
    V3Config c;
    c.mode = V3Mode::kNON_ZERO;
    TestV3 plugin(c);
    ITensor* inputs[] = {x};
    IPluginV3Layer* layer = r.network().addPluginV3(inputs, 1, nullptr, 0, plugin);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    ASSERT_EQ(layer->getNbOutputs(), 2);
    Dims const indices = layer->getOutput(0)->getDimensions();
    ASSERT_EQ(indices.nbDims, 1);
    EXPECT_EQ(indices.d[0], -1) << "the count is only known after the plugin runs";
    Dims const count = layer->getOutput(1)->getDimensions();
    EXPECT_EQ(count.nbDims, 0);
    EXPECT_EQ(layer->getOutput(1)->getType(), DataType::kINT32);
}

TEST(PluginLayerTest, SetNameReachesThePluginMessages)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
    ScaleConfig c;
    c.badDims = 1;
    TestScaleV2 plugin(c);
    ITensor* inputs[] = {x};
    IPluginV2Layer* layer = r.network().addPluginV2(inputs, 1, plugin);
    ASSERT_NE(layer, nullptr);
    layer->setName("scaler");
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("layer 'scaler'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("KilnTestScale")) << r.logger().allErrors();
}

} // namespace
} // namespace kiln::test
