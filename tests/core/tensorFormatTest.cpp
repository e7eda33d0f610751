// Tests of the tensor-format helpers (src/core/tensorFormat.h) against TensorRT's layout table, on random ranks
// and extents: the layout of every format, the padded volume, the vectorized dimension and the names.
#include "core/tensorFormat.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

namespace
{

using nvinfer1::DataType;
using nvinfer1::TensorFormat;

//! One row of TensorRT's format table (NvInferRuntime.h): channels per vector, the channel dimension counted from
//! the last one, whether the vector is the innermost dimension, and whether Kiln stores the format at all.
struct FormatRow
{
    TensorFormat format;
    char const* name;
    int32_t vector;
    int32_t channelFromEnd; //!< 3: C of [N]CHW, 4: C of [N]CDHW, 0: linear
    bool channelLast;
    bool stored;
};

std::vector<FormatRow> const& formatTable()
{
    static std::vector<FormatRow> const table{
        {TensorFormat::kLINEAR, "kLINEAR", 1, 0, false, true},
        {TensorFormat::kCHW2, "kCHW2", 2, 3, false, true},
        {TensorFormat::kHWC8, "kHWC8", 8, 3, true, true},
        {TensorFormat::kCHW4, "kCHW4", 4, 3, false, true},
        {TensorFormat::kCHW16, "kCHW16", 16, 3, false, true},
        {TensorFormat::kCHW32, "kCHW32", 32, 3, false, true},
        {TensorFormat::kDHWC8, "kDHWC8", 8, 4, true, true},
        {TensorFormat::kCDHW32, "kCDHW32", 32, 4, false, true},
        {TensorFormat::kHWC, "kHWC", 1, 3, true, true},
        {TensorFormat::kDLA_LINEAR, "kDLA_LINEAR", 1, 0, false, false},
        {TensorFormat::kDLA_HWC4, "kDLA_HWC4", 4, 3, true, false},
        {TensorFormat::kHWC16, "kHWC16", 16, 3, true, true},
        {TensorFormat::kDHWC, "kDHWC", 1, 4, true, true},
    };
    return table;
}

std::vector<int64_t> randomDims(std::mt19937& rng, int32_t rank)
{
    std::uniform_int_distribution<int64_t> extent(1, 40);
    std::vector<int64_t> dims(static_cast<size_t>(rank));
    for (int64_t& d : dims)
    {
        d = extent(rng);
    }
    return dims;
}

TEST(TensorFormatTest, TableCoversEveryFormat)
{
    ASSERT_EQ(formatTable().size(), static_cast<size_t>(nvinfer1::EnumMax<TensorFormat>()));
    for (size_t i = 0; i < formatTable().size(); ++i)
    {
        EXPECT_EQ(static_cast<size_t>(formatTable()[i].format), i);
    }
}

TEST(TensorFormatTest, NamesAndDescriptions)
{
    std::set<std::string> names;
    for (FormatRow const& row : formatTable())
    {
        EXPECT_STREQ(kiln::formatName(row.format), row.name);
        names.insert(kiln::formatName(row.format));
        std::string const desc = kiln::formatDescription(row.format, DataType::kHALF);
        EXPECT_NE(desc.find("FP16"), std::string::npos) << desc;
        EXPECT_NE(desc.find(std::string("(") + row.name + ")"), std::string::npos) << desc;
    }
    EXPECT_EQ(names.size(), formatTable().size());
    EXPECT_STREQ(kiln::formatName(static_cast<TensorFormat>(99)), "kUNKNOWN");
}

TEST(TensorFormatTest, LayoutVolumeAndVectorizedDimMatchTheTable)
{
    std::mt19937 rng(20240613U);
    for (int trial = 0; trial < 200; ++trial)
    {
        int32_t const rank = std::uniform_int_distribution<int32_t>(1, 6)(rng);
        std::vector<int64_t> const dims = randomDims(rng, rank);
        for (FormatRow const& row : formatTable())
        {
            SCOPED_TRACE(std::string(row.name) + " rank " + std::to_string(rank));
            bool const fits = row.channelFromEnd == 0 || rank >= row.channelFromEnd;
            int32_t const channel = row.channelFromEnd == 0 ? -1 : rank - row.channelFromEnd;

            EXPECT_EQ(kiln::formatComponents(row.format), row.vector);
            bool const vectorized = row.vector > 1;
            EXPECT_EQ(kiln::formatVectorizedDim(row.format, rank), vectorized && fits ? channel : -1);

            kiln::FormatLayout layout;
            bool const known = kiln::formatLayout(row.format, rank, layout);
            EXPECT_EQ(known, row.stored && fits);

            int64_t expectedVolume = 1;
            for (int32_t i = 0; i < rank; ++i)
            {
                int64_t d = dims[static_cast<size_t>(i)];
                if (known && i == channel)
                {
                    d = (d + row.vector - 1) / row.vector * row.vector;
                }
                expectedVolume *= d;
            }
            EXPECT_EQ(kiln::formattedVolume(row.format, dims), expectedVolume);
            if (!known)
            {
                continue;
            }
            EXPECT_EQ(layout.linear, row.channelFromEnd == 0);
            EXPECT_EQ(layout.channelDim, channel);
            EXPECT_EQ(layout.vector, row.vector);
            EXPECT_EQ(layout.channelLast, row.channelLast);
        }
    }
}

// A count that does not fit in int64_t is -1; an empty tensor is 0 elements even where its other extents' product
// alone would overflow (onnxStructureFuzz: a Transpose of an empty initializer of extents [2^31, 2, 2^62, 0]).
TEST(TensorFormatTest, FormattedVolumeOverflowAndEmptyTensors)
{
    int64_t const big = int64_t{1} << 62;
    EXPECT_EQ(kiln::formattedVolume(TensorFormat::kLINEAR, {int64_t{1} << 31, 2, big, 0}), 0);
    EXPECT_EQ(kiln::formattedVolume(TensorFormat::kHWC8, {int64_t{1} << 31, 0, big, 3}), 0);
    EXPECT_EQ(kiln::formattedVolume(TensorFormat::kLINEAR, {int64_t{1} << 31, int64_t{1} << 33}), -1);
    EXPECT_EQ(kiln::formattedVolume(TensorFormat::kHWC8, {2, (int64_t{1} << 62) - 1, 1, 1}), -1); // padded to 2^62
    EXPECT_EQ(kiln::formattedVolume(TensorFormat::kLINEAR, {int64_t{1} << 31, int64_t{1} << 31}), int64_t{1} << 62);
}

} // namespace
