// The one list of layer kinds (core/layerKinds.h): layerKindName gives every LayerType its own name (the names that
// messages and tests have always used), and "Layer" for a value outside the enum; inferFunction answers every kind.
#include "core/layerKinds.h"
#include "network/layerTable.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace kiln
{
namespace
{
using nvinfer1::LayerType;

TEST(LayerKindsTest, EveryKindHasItsOwnName)
{
    std::set<std::string> names;
    for (int32_t v = 0; v < nvinfer1::EnumMax<LayerType>(); ++v)
    {
        std::string const name = layerKindName(static_cast<LayerType>(v));
        EXPECT_FALSE(name.empty()) << "kind " << v;
        EXPECT_NE(name, "Layer") << "kind " << v << " has no name of its own";
        EXPECT_TRUE(names.insert(name).second) << "kind " << v << " repeats the name " << name;
    }
    EXPECT_EQ(static_cast<int32_t>(names.size()), kNB_LAYER_KINDS);
}

TEST(LayerKindsTest, NamesAreTheOnesMessagesUse)
{
    EXPECT_STREQ(layerKindName(LayerType::kCONVOLUTION), "Convolution");
    EXPECT_STREQ(layerKindName(LayerType::kELEMENTWISE), "ElementWise");
    EXPECT_STREQ(layerKindName(LayerType::kSOFTMAX), "SoftMax");
    EXPECT_STREQ(layerKindName(LayerType::kLRN), "LRN");
    EXPECT_STREQ(layerKindName(LayerType::kPARAMETRIC_RELU), "ParametricReLU");
    EXPECT_STREQ(layerKindName(LayerType::kPLUGIN_V2), "PluginV2");
    EXPECT_STREQ(layerKindName(LayerType::kCONDITIONAL_INPUT), "ConditionalInput");
    EXPECT_STREQ(layerKindName(LayerType::kDYNAMIC_QUANTIZE), "DynamicQuantize");
    // Kinds that had no name before the list.
    EXPECT_STREQ(layerKindName(LayerType::kKVCACHE_UPDATE), "KVCacheUpdate");
    EXPECT_STREQ(layerKindName(LayerType::kDIST_COLLECTIVE), "DistCollective");
}

TEST(LayerKindsTest, ValueOutsideTheEnumIsLayer)
{
    EXPECT_STREQ(layerKindName(static_cast<LayerType>(nvinfer1::EnumMax<LayerType>())), "Layer");
    EXPECT_STREQ(layerKindName(static_cast<LayerType>(-1)), "Layer");
    EXPECT_EQ(inferFunction(static_cast<LayerType>(-1)), nullptr);
}

TEST(LayerKindsTest, InferFunctionsOfImplementedAndPluginKinds)
{
    EXPECT_EQ(inferFunction(LayerType::kCONVOLUTION), &inferConvolution);
    EXPECT_EQ(inferFunction(LayerType::kCUMULATIVE), &inferCumulative);
    // Plugin layers are inferred through their plugin (networkAnalysis), unsupported kinds have no function.
    EXPECT_EQ(inferFunction(LayerType::kPLUGIN_V3), nullptr);
    EXPECT_EQ(inferFunction(LayerType::kMOE), nullptr);
}

} // namespace
} // namespace kiln
