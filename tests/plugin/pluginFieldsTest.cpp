// Tests of the plugin field encoding (encodePluginFields/decodePluginFields, validatePluginFields) and of plugin
// records in node attributes (storePluginRecord/loadPluginRecord): round trips with random data of every field
// type, and corrupted or truncated bytes, which must fail with a message and never crash.
#include "plugin/pluginAdapter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace
{
using namespace nvinfer1;
using namespace kiln;
using ::testing::HasSubstr;

struct OwnedField
{
    std::string name;
    PluginFieldType type;
    int32_t length;
    std::vector<uint8_t> bytes;
};

std::vector<OwnedField> randomFields(std::mt19937& rng)
{
    std::vector<OwnedField> fields;
    std::uniform_int_distribution<int32_t> len(0, 9);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int32_t t = 0; t <= static_cast<int32_t>(PluginFieldType::kFP4); ++t)
    {
        OwnedField f;
        f.name = "field" + std::to_string(t) + "_" + std::to_string(len(rng));
        f.type = static_cast<PluginFieldType>(t);
        f.length = len(rng) + (t == 0 ? 0 : 1);
        f.bytes.resize(static_cast<size_t>(pluginFieldByteSize(f.type, f.length)));
        for (auto& b : f.bytes)
        {
            b = static_cast<uint8_t>(byte(rng));
        }
        fields.push_back(std::move(f));
    }
    return fields;
}

TEST(PluginFieldsTest, ByteSizes)
{
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kFLOAT16, 3), 6);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kFLOAT32, 3), 12);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kFLOAT64, 3), 24);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kINT8, 3), 3);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kINT16, 3), 6);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kINT32, 3), 12);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kCHAR, 3), 3);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kDIMS, 2), static_cast<int64_t>(2 * sizeof(Dims)));
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kUNKNOWN, 3), 3);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kBF16, 3), 6);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kINT64, 3), 24);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kFP8, 3), 3);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kINT4, 3), 2);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kFP4, 4), 2);
    EXPECT_EQ(pluginFieldByteSize(static_cast<PluginFieldType>(14), 1), -1);
    EXPECT_EQ(pluginFieldByteSize(PluginFieldType::kINT32, -1), -1);
}

TEST(PluginFieldsTest, RoundTripEveryTypeWithRandomData)
{
    std::mt19937 rng(std::random_device{}());
    auto owned = randomFields(rng);
    std::vector<PluginField> fields;
    for (auto const& f : owned)
    {
        fields.emplace_back(f.name.c_str(), f.bytes.empty() ? nullptr : f.bytes.data(), f.type, f.length);
    }
    PluginFieldCollection fc{static_cast<int32_t>(fields.size()), fields.data()};
    ASSERT_TRUE(validatePluginFields(fc, "test").isOk());
    std::string const bytes = encodePluginFields(fc);
    auto decoded = decodePluginFields(bytes);
    ASSERT_TRUE(decoded.isOk()) << decoded.status().message();
    PluginFieldCollection const& out = decoded.value()->collection();
    ASSERT_EQ(out.nbFields, fc.nbFields);
    for (int32_t i = 0; i < out.nbFields; ++i)
    {
        auto const& f = owned[static_cast<size_t>(i)];
        EXPECT_STREQ(out.fields[i].name, f.name.c_str());
        EXPECT_EQ(out.fields[i].type, f.type);
        EXPECT_EQ(out.fields[i].length, f.length);
        ASSERT_NE(out.fields[i].data, nullptr);
        EXPECT_EQ(std::memcmp(out.fields[i].data, f.bytes.data(), f.bytes.size()), 0) << f.name;
    }
    // Deterministic: the same collection encodes to the same bytes.
    EXPECT_EQ(encodePluginFields(fc), bytes);
}

TEST(PluginFieldsTest, EmptyCollectionAndCharDataStayCStrings)
{
    PluginFieldCollection empty{};
    auto d = decodePluginFields(encodePluginFields(empty));
    ASSERT_TRUE(d.isOk());
    EXPECT_EQ(d.value()->collection().nbFields, 0);

    char const text[] = {'a', 'b', 'c'}; // no terminator
    PluginField f("name", text, PluginFieldType::kCHAR, 3);
    PluginFieldCollection fc{1, &f};
    auto c = decodePluginFields(encodePluginFields(fc));
    ASSERT_TRUE(c.isOk());
    EXPECT_STREQ(static_cast<char const*>(c.value()->collection().fields[0].data), "abc");
}

TEST(PluginFieldsTest, ValidationNamesTheBadField)
{
    int32_t v = 3;
    PluginField negative("neg", &v, PluginFieldType::kINT32, -1);
    PluginFieldCollection a{1, &negative};
    EXPECT_THAT(validatePluginFields(a, "plugin 'P'").message(), HasSubstr("plugin 'P': field 'neg' has the negative length -1"));
    PluginField nullData("nd", nullptr, PluginFieldType::kINT32, 2);
    PluginFieldCollection b{1, &nullData};
    EXPECT_THAT(validatePluginFields(b, "p").message(), HasSubstr("field 'nd' has length 2 but null data"));
    PluginField badType("bt", &v, static_cast<PluginFieldType>(77), 1);
    PluginFieldCollection c{1, &badType};
    EXPECT_THAT(validatePluginFields(c, "p").message(), HasSubstr("unknown PluginFieldType 77"));
    PluginFieldCollection d{2, nullptr};
    EXPECT_THAT(validatePluginFields(d, "p").message(), HasSubstr("null fields pointer"));
    PluginFieldCollection e{-1, nullptr};
    EXPECT_THAT(validatePluginFields(e, "p").message(), HasSubstr("nbFields -1"));
}

TEST(PluginFieldsTest, CorruptBytesFailWithAMessage)
{
    std::mt19937 rng(std::random_device{}());
    auto owned = randomFields(rng);
    std::vector<PluginField> fields;
    for (auto const& f : owned)
    {
        fields.emplace_back(f.name.c_str(), f.bytes.empty() ? nullptr : f.bytes.data(), f.type, f.length);
    }
    PluginFieldCollection fc{static_cast<int32_t>(fields.size()), fields.data()};
    std::string const good = encodePluginFields(fc);

    EXPECT_THAT(decodePluginFields("").status().message(), HasSubstr("KPF1"));
    std::string badVersion = good;
    badVersion[4] = 9;
    EXPECT_THAT(decodePluginFields(badVersion).status().message(), HasSubstr("format version 9"));
    std::string hugeCount = good;
    hugeCount[8] = '\xFF';
    hugeCount[9] = '\xFF';
    EXPECT_THAT(decodePluginFields(hugeCount).status().message(), HasSubstr("field count"));
    EXPECT_THAT(decodePluginFields(good + "x").status().message(), HasSubstr("1 unexpected trailing bytes"));
    // Every truncation fails cleanly.
    for (size_t n = 0; n < good.size(); ++n)
    {
        auto r = decodePluginFields(good.substr(0, n));
        EXPECT_FALSE(r.isOk()) << n;
        EXPECT_THAT(r.status().message(), HasSubstr("corrupt plugin field data")) << n;
    }
    // Random single-byte corruptions either decode (e.g. a data byte changed) or fail; never crash.
    std::uniform_int_distribution<size_t> pos(0, good.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int i = 0; i < 2000; ++i)
    {
        std::string bad = good;
        bad[pos(rng)] = static_cast<char>(byte(rng));
        auto r = decodePluginFields(bad);
        if (!r.isOk())
        {
            EXPECT_THAT(r.status().message(), HasSubstr("corrupt plugin field data"));
        }
    }
}

TEST(PluginRecordTest, RoundTripThroughAttributes)
{
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int> byte(0, 255);
    PluginRecord record;
    record.name = "Bar";
    record.version = "1";
    record.pluginNamespace = "ns";
    record.generation = PluginGeneration::kV2_IOEXT;
    for (int i = 0; i < 37; ++i)
    {
        record.data.push_back(static_cast<char>(byte(rng)));
    }
    record.tactic = std::uniform_int_distribution<int32_t>(1, 1000)(rng);
    record.aliases = {-1, 0};
    Attributes attrs;
    storePluginRecord(record, attrs);
    auto loaded = loadPluginRecord(attrs);
    ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
    EXPECT_EQ(loaded.value().name, record.name);
    EXPECT_EQ(loaded.value().version, record.version);
    EXPECT_EQ(loaded.value().pluginNamespace, record.pluginNamespace);
    EXPECT_EQ(loaded.value().generation, record.generation);
    EXPECT_EQ(loaded.value().data, record.data);
    EXPECT_EQ(loaded.value().tactic, record.tactic);
    EXPECT_EQ(loaded.value().aliases, record.aliases);
}

TEST(PluginRecordTest, BadAttributesFailNamingTheKey)
{
    PluginRecord record{"Bar", "1", "", PluginGeneration::kV3_ONE, "x", 0, {}};
    Attributes attrs;
    storePluginRecord(record, attrs);

    Attributes missing = attrs;
    missing.erase("plugin.version");
    EXPECT_THAT(loadPluginRecord(missing).status().message(), HasSubstr("plugin 'Bar': plugin record: attribute 'plugin.version' is missing"));
    Attributes noName = attrs;
    noName.erase("plugin.name");
    EXPECT_THAT(loadPluginRecord(noName).status().message(), HasSubstr("'plugin.name' is missing"));
    Attributes wrongType = attrs;
    wrongType.setInt("plugin.data", 3);
    EXPECT_THAT(loadPluginRecord(wrongType).status().message(), HasSubstr("'plugin.data' is not a string"));
    Attributes badGeneration = attrs;
    badGeneration.setInt("plugin.generation", 7);
    EXPECT_THAT(loadPluginRecord(badGeneration).status().message(), HasSubstr("unknown plugin generation 7"));
    Attributes badTactic = attrs;
    badTactic.setInt("plugin.tactic", int64_t{1} << 40);
    EXPECT_THAT(loadPluginRecord(badTactic).status().message(), HasSubstr("out of range"));
    Attributes badAlias = attrs;
    badAlias.setInts("plugin.aliases", {-5});
    EXPECT_THAT(loadPluginRecord(badAlias).status().message(), HasSubstr("aliased input -5"));
}

} // namespace
