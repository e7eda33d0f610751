// editDistance and rankByCloseness: the case-insensitive Levenshtein distance and the "closest registered" order
// shared by the engine deserializer's and the ONNX parser's missing-plugin messages.
#include "core/editDistance.h"

#include <gtest/gtest.h>

namespace kiln
{
namespace
{

TEST(EditDistanceTest, Distances)
{
    EXPECT_EQ(editDistance("", ""), 0U);
    EXPECT_EQ(editDistance("abc", ""), 3U);
    EXPECT_EQ(editDistance("kitten", "sitting"), 3U);
    EXPECT_EQ(editDistance("BarPlugin", "barplugin"), 0U);
}

TEST(EditDistanceTest, RankPutsExactNamesFirstThenByDistance)
{
    std::vector<std::string> const names{"Zebra", "BarPlugn", "barplugin", "BarPlugin", "Bar", "BarPlugin"};
    auto const order = rankByCloseness("BarPlugin", names);
    ASSERT_EQ(order.size(), names.size());
    // Exact matches (stable), then the case-insensitive match (distance 0), then distance 1, 6, 7...
    EXPECT_EQ(order[0], 3U);
    EXPECT_EQ(order[1], 5U);
    EXPECT_EQ(order[2], 2U);
    EXPECT_EQ(order[3], 1U);
    EXPECT_EQ(order[4], 4U);
    EXPECT_EQ(order[5], 0U);
    EXPECT_TRUE(rankByCloseness("x", {}).empty());
}

} // namespace
} // namespace kiln
