// TensorProto -> OnnxConstant conversion (raw and typed fields, DOUBLE clamping, FLOAT16 bits, BOOL, external data,
// refusals), ONNX <-> Kiln type mapping, OnnxConstant accessors and the attribute accessors' errors.
#include "onnxTestModels.h"

#include "onnx/onnxAttributes.h"
#include "onnx/tensorConversion.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using TP = ::onnx::TensorProto;

TP tensorOf(int32_t type, std::vector<int64_t> const& dims)
{
    TP t;
    t.set_data_type(type);
    for (int64_t d : dims)
    {
        t.add_dims(d);
    }
    return t;
}

template <typename T>
T element(OnnxConstant const& c, size_t i)
{
    T v{};
    std::memcpy(&v, c.bytes.data() + i * sizeof(T), sizeof(T));
    return v;
}

TEST(ParserConversionTest, FloatRawAndTyped)
{
    TP raw = tensorOf(TP::FLOAT, {2});
    float const values[2] = {1.5F, -2.25F};
    raw.set_raw_data(std::string(reinterpret_cast<char const*>(values), sizeof(values)));
    auto a = convertTensorProto(raw, nullptr, "t");
    ASSERT_TRUE(a.isOk()) << a.status().message();
    EXPECT_EQ(a->type, DataType::kFLOAT);
    EXPECT_EQ(element<float>(*a, 1), -2.25F);

    TP typed = tensorOf(TP::FLOAT, {2});
    typed.add_float_data(3.0F);
    typed.add_float_data(-4.0F);
    auto b = convertTensorProto(typed, nullptr, "t");
    ASSERT_TRUE(b.isOk());
    EXPECT_EQ(element<float>(*b, 0), 3.0F);
    EXPECT_EQ(b->shape, (std::vector<int64_t>{2}));
}

TEST(ParserConversionTest, DoubleBecomesClampedFloat)
{
    double const inf = std::numeric_limits<double>::infinity();
    std::vector<double> const values{0.1, 1e300, -1e300, inf, std::nan("")};
    TP raw = tensorOf(TP::DOUBLE, {5});
    raw.set_raw_data(std::string(reinterpret_cast<char const*>(values.data()), values.size() * sizeof(double)));
    TP typed = tensorOf(TP::DOUBLE, {5});
    for (double v : values)
    {
        typed.add_double_data(v);
    }
    for (TP const* t : {&raw, &typed})
    {
        auto c = convertTensorProto(*t, nullptr, "d");
        ASSERT_TRUE(c.isOk()) << c.status().message();
        EXPECT_EQ(c->type, DataType::kFLOAT);
        ASSERT_EQ(c->bytes.size(), 20U);
        EXPECT_EQ(element<float>(*c, 0), 0.1F);
        EXPECT_EQ(element<float>(*c, 1), FLT_MAX);
        EXPECT_EQ(element<float>(*c, 2), -FLT_MAX);
        EXPECT_TRUE(std::isinf(element<float>(*c, 3)));
        EXPECT_TRUE(std::isnan(element<float>(*c, 4)));
    }
}

TEST(ParserConversionTest, Int32DataCarriesSmallTypes)
{
    TP half = tensorOf(TP::FLOAT16, {2});
    half.add_int32_data(0x3C00); // 1.0
    half.add_int32_data(0xC000); // -2.0
    auto h = convertTensorProto(half, nullptr, "h");
    ASSERT_TRUE(h.isOk());
    EXPECT_EQ(h->type, DataType::kHALF);
    EXPECT_EQ(element<uint16_t>(*h, 1), 0xC000);
    auto hd = h->toDouble();
    ASSERT_TRUE(hd.isOk());
    EXPECT_EQ((*hd)[1], -2.0);

    TP b = tensorOf(TP::BOOL, {3});
    b.add_int32_data(0);
    b.add_int32_data(5);
    b.add_int32_data(1);
    auto bc = convertTensorProto(b, nullptr, "b");
    ASSERT_TRUE(bc.isOk());
    EXPECT_EQ(bc->type, DataType::kBOOL);
    EXPECT_EQ(bc->bytes, (std::vector<uint8_t>{0, 1, 1}));
    auto bi = bc->toInt64();
    ASSERT_TRUE(bi.isOk());
    EXPECT_EQ(*bi, (std::vector<int64_t>{0, 1, 1}));

    TP i8 = tensorOf(TP::INT8, {2});
    i8.add_int32_data(-5);
    i8.add_int32_data(7);
    auto c8 = convertTensorProto(i8, nullptr, "i8");
    ASSERT_TRUE(c8.isOk());
    EXPECT_EQ(element<int8_t>(*c8, 0), -5);
    auto v8 = c8->toInt64();
    ASSERT_TRUE(v8.isOk());
    EXPECT_EQ(*v8, (std::vector<int64_t>{-5, 7}));
}

TEST(ParserConversionTest, ScalarAndEmpty)
{
    TP scalar = tensorOf(TP::INT64, {});
    scalar.add_int64_data(42);
    auto s = convertTensorProto(scalar, nullptr, "s");
    ASSERT_TRUE(s.isOk());
    EXPECT_TRUE(s->shape.empty());
    EXPECT_EQ(s->count(), 1);
    auto dims = s->dims();
    ASSERT_TRUE(dims.isOk());
    EXPECT_EQ(dims->nbDims, 0);

    TP empty = tensorOf(TP::FLOAT, {0, 3});
    auto e = convertTensorProto(empty, nullptr, "e");
    ASSERT_TRUE(e.isOk()) << e.status().message();
    EXPECT_EQ(e->count(), 0);
    EXPECT_TRUE(e->bytes.empty());
}

TEST(ParserConversionTest, ExternalData)
{
    TP t = tensorOf(TP::INT32, {2});
    t.set_data_location(TP::EXTERNAL);
    auto missing = convertTensorProto(t, nullptr, "initializer 'x'");
    ASSERT_FALSE(missing.isOk());
    EXPECT_EQ(missing.status().message(), "initializer 'x' is stored as external data that was not loaded");
    std::vector<uint8_t> bytes(8);
    int32_t const values[2] = {-9, 11};
    std::memcpy(bytes.data(), values, 8);
    auto ok = convertTensorProto(t, &bytes, "initializer 'x'");
    ASSERT_TRUE(ok.isOk());
    EXPECT_EQ(element<int32_t>(*ok, 0), -9);
    bytes.resize(4);
    auto shortData = convertTensorProto(t, &bytes, "initializer 'x'");
    ASSERT_FALSE(shortData.isOk());
    EXPECT_NE(shortData.status().message().find("holds 4 bytes of INT32 data but its dims declare 2 elements"),
        std::string::npos);
}

TEST(ParserConversionTest, Refusals)
{
    auto str = convertTensorProto(tensorOf(TP::STRING, {1}), nullptr, "s");
    ASSERT_FALSE(str.isOk());
    EXPECT_EQ(str.status().code(), nvinfer1::ErrorCode::kUNSUPPORTED_STATE);
    EXPECT_EQ(str.status().message(), "s: ONNX element type STRING is not supported by Kiln");

    auto u16 = convertTensorProto(tensorOf(TP::UINT16, {1}), nullptr, "u");
    ASSERT_FALSE(u16.isOk());
    EXPECT_NE(u16.status().message().find("UINT16"), std::string::npos);

    TP noType;
    noType.add_dims(1);
    auto nt = convertTensorProto(noType, nullptr, "n");
    ASSERT_FALSE(nt.isOk());
    EXPECT_EQ(nt.status().message(), "n has no data_type");

    TP deep = tensorOf(TP::FLOAT, {1, 1, 1, 1, 1, 1, 1, 1, 1});
    deep.add_float_data(1.0F);
    auto d = convertTensorProto(deep, nullptr, "deep");
    ASSERT_FALSE(d.isOk());
    EXPECT_NE(d.status().message().find("deep has rank 9"), std::string::npos);

    TP segmented = tensorOf(TP::FLOAT, {1});
    segmented.mutable_segment()->set_begin(0);
    segmented.mutable_segment()->set_end(1);
    auto seg = convertTensorProto(segmented, nullptr, "seg");
    ASSERT_FALSE(seg.isOk());
    EXPECT_NE(seg.status().message().find("segmented"), std::string::npos);
}

TEST(ParserConversionTest, LargeDeclaredSizeWithoutDataFailsOnTheCount)
{
    // 2^28 floats (1 GiB) declared, no data: refused by the element count, before any buffer is allocated.
    TP t = tensorOf(TP::FLOAT, {int64_t{1} << 28});
    auto c = convertTensorProto(t, nullptr, "big");
    ASSERT_FALSE(c.isOk());
    EXPECT_EQ(c.status().message(), "big holds 0 elements in float_data but its dims declare 268435456");
    TP b = tensorOf(TP::BOOL, {int64_t{1} << 30});
    auto bc = convertTensorProto(b, nullptr, "bools");
    ASSERT_FALSE(bc.isOk());
    EXPECT_EQ(bc.status().message(), "bools holds 0 elements in int32_data but its dims declare 1073741824");
}

TEST(ParserConversionTest, TypeMapping)
{
    for (auto type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kUINT8,
             DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        auto back = onnxToKilnType(kilnToOnnxType(type));
        ASSERT_TRUE(back.isOk());
        EXPECT_EQ(*back, type);
    }
    EXPECT_EQ(onnxToKilnType(TP::DOUBLE).value(), DataType::kFLOAT);
    EXPECT_EQ(onnxTypeName(TP::BFLOAT16), "BFLOAT16");
    EXPECT_EQ(onnxTypeName(1234), "<1234>");
}

TEST(ParserConversionTest, ConstantFactoriesAndAccessors)
{
    auto c = OnnxConstant::fromDouble(DataType::kINT32, {1.0, -2.0, 3.0}, {3});
    ASSERT_TRUE(c.isOk());
    EXPECT_EQ(element<int32_t>(*c, 1), -2);
    auto w = c->weights();
    EXPECT_EQ(w.type, DataType::kINT32);
    EXPECT_EQ(w.count, 3);
    EXPECT_EQ(w.values, c->bytes.data());
    auto mismatch = OnnxConstant::fromDouble(DataType::kFLOAT, {1.0}, {2});
    ASSERT_FALSE(mismatch.isOk());
    EXPECT_NE(mismatch.status().message().find("holds 2 elements but 1 values"), std::string::npos);
    auto f = OnnxConstant::fromFloat({1.5F}, {});
    auto asInt = f.toInt64();
    ASSERT_FALSE(asInt.isOk());
    EXPECT_EQ(asInt.status().message(), "expected an integer constant, got FP32");
    auto i = OnnxConstant::fromInt32({4, 5}, {2});
    EXPECT_EQ(i.toInt64().value(), (std::vector<int64_t>{4, 5}));
    auto d = OnnxConstant::fromInt64({1, 2, 3, 4, 5, 6, 7, 8, 9}, std::vector<int64_t>(9, 1)).dims();
    EXPECT_FALSE(d.isOk());
}

TEST(ParserConversionTest, AttributeAccessors)
{
    ::onnx::NodeProto node;
    node.set_op_type("Foo");
    node.set_name("foo");
    *node.add_attribute() = test::intAttr("k", 3);
    *node.add_attribute() = test::floatsAttr("fs", {1.0F, 2.0F});
    *node.add_attribute() = test::stringAttr("mode", "linear");
    *node.add_attribute() = test::stringsAttr("names", {"a", "b"});
    EXPECT_EQ(attrInt(node, "k", 0), 3);
    EXPECT_EQ(attrInt(node, "missing", 7), 7);
    EXPECT_EQ(attrFloats(node, "fs"), (std::vector<float>{1.0F, 2.0F}));
    EXPECT_EQ(attrInts(node, "missing", {1, 2}), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(attrString(node, "mode", ""), "linear");
    EXPECT_EQ(attrStrings(node, "names"), (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(hasAttribute(node, "k"));
    EXPECT_FALSE(hasAttribute(node, "nope"));
    auto missing = requireAttrInts(node, "pads");
    ASSERT_FALSE(missing.isOk());
    EXPECT_EQ(missing.status().message(), "node 'foo' (Foo): required attribute 'pads' is missing");
    auto wrong = requireAttrFloat(node, "k");
    ASSERT_FALSE(wrong.isOk());
    EXPECT_EQ(wrong.status().message(), "node 'foo' (Foo): attribute 'k' has type INT, expected FLOAT");
    auto tensor = attrTensor(node, "value");
    ASSERT_FALSE(tensor.isOk());
    node.clear_name();
    node.add_output("out0");
    EXPECT_EQ(describeNode(node), "node producing 'out0' (Foo)");
}

} // namespace
} // namespace kiln
