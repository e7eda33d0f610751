// Tests of PluginExprBuilder (src/plugin/exprBuilder.*), the IExprBuilder/IDimensionExpr handed to plugin shape
// callbacks: constants, every DimensionOperation against values computed here, the TensorRT-visible contract of
// IDimensionExpr (isConstant, getConstantValue, isSizeTensor), and the misuse it must reject.
#include "plugin/exprBuilder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace
{
using namespace nvinfer1;
using namespace kiln;
using ::testing::HasSubstr;

int64_t reference(DimensionOperation op, int64_t a, int64_t b)
{
    switch (op)
    {
    case DimensionOperation::kSUM: return a + b;
    case DimensionOperation::kPROD: return a * b;
    case DimensionOperation::kMAX: return std::max(a, b);
    case DimensionOperation::kMIN: return std::min(a, b);
    case DimensionOperation::kSUB: return a - b;
    case DimensionOperation::kEQUAL: return a == b ? 1 : 0;
    case DimensionOperation::kLESS: return a < b ? 1 : 0;
    case DimensionOperation::kFLOOR_DIV: return static_cast<int64_t>(std::floor(static_cast<double>(a) / static_cast<double>(b)));
    case DimensionOperation::kCEIL_DIV: return static_cast<int64_t>(std::ceil(static_cast<double>(a) / static_cast<double>(b)));
    }
    return 0;
}

TEST(ExprBuilderTest, ConstantsAndSymbols)
{
    ShapeGraph graph;
    PluginExprBuilder builder(graph, "layer", 1, true);
    IExprBuilder& api = builder.api();
    IDimensionExpr const* c = api.constant(42);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->isConstant());
    EXPECT_EQ(c->getConstantValue(), 42);
    EXPECT_FALSE(c->isSizeTensor());
    IDimensionExpr const* s = builder.wrap(graph.symbol(SymbolKind::kINPUT_DIM, "x[0]"));
    EXPECT_FALSE(s->isConstant());
    EXPECT_EQ(s->getConstantValue(), std::numeric_limits<int64_t>::min());
    // The same expression is handed out once.
    EXPECT_EQ(builder.wrap(graph.constant(42)), c);
}

TEST(ExprBuilderTest, EveryOperationMatchesTheReference)
{
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int64_t> dist(-50, 50);
    ShapeGraph graph;
    PluginExprBuilder builder(graph, "layer", 1, true);
    IExprBuilder& api = builder.api();
    ExprId const sa = graph.symbol(SymbolKind::kINPUT_DIM, "a");
    ExprId const sb = graph.symbol(SymbolKind::kINPUT_DIM, "b");
    for (int32_t op = 0; op <= static_cast<int32_t>(DimensionOperation::kCEIL_DIV); ++op)
    {
        auto const operation = static_cast<DimensionOperation>(op);
        int64_t a = dist(rng);
        int64_t b = dist(rng);
        if (b == 0)
        {
            b = 7;
        }
        // Constant folding.
        IDimensionExpr const* folded = api.operation(operation, *api.constant(a), *api.constant(b));
        ASSERT_NE(folded, nullptr);
        EXPECT_TRUE(folded->isConstant());
        EXPECT_EQ(folded->getConstantValue(), reference(operation, a, b)) << op << " " << a << " " << b;
        // Symbolic, evaluated later.
        IDimensionExpr const* symbolic = api.operation(operation, *builder.wrap(sa), *builder.wrap(sb));
        ASSERT_NE(symbolic, nullptr);
        auto id = builder.resolve(symbolic, "e");
        ASSERT_TRUE(id.isOk());
        std::vector<int64_t> values;
        ASSERT_TRUE(graph.evaluate({a, b}, values).isOk());
        EXPECT_EQ(values[static_cast<size_t>(id.value())], reference(operation, a, b)) << op;
    }
    EXPECT_TRUE(builder.error().isOk());
}

TEST(ExprBuilderTest, InvalidOperationAndForeignOperands)
{
    ShapeGraph graph;
    PluginExprBuilder builder(graph, "layer", 1, true);
    IExprBuilder& api = builder.api();
    EXPECT_EQ(api.operation(static_cast<DimensionOperation>(9), *api.constant(1), *api.constant(2)), nullptr);
    EXPECT_THAT(builder.error().message(), HasSubstr("invalid DimensionOperation 9"));

    PluginExprBuilder first(graph, "layer", 1, true);
    PluginExprBuilder second(graph, "layer", 1, true);
    IDimensionExpr const* foreign = first.api().constant(3);
    EXPECT_EQ(second.api().operation(DimensionOperation::kSUM, *foreign, *second.api().constant(1)), nullptr);
    EXPECT_THAT(second.error().message(), HasSubstr("not created by this IExprBuilder"));
    EXPECT_THAT(second.resolve(foreign, "output 0 extent 1").status().message(),
        HasSubstr("output 0 extent 1 was not created by the IExprBuilder"));
    EXPECT_THAT(second.resolve(nullptr, "output 2 extent 0").status().message(), HasSubstr("output 2 extent 0 is null"));
}

TEST(ExprBuilderTest, ToShapeChecksRankAndNegativeExtents)
{
    ShapeGraph graph;
    PluginExprBuilder builder(graph, "layer", 1, true);
    DimsExprs d{};
    d.nbDims = 9;
    EXPECT_THAT(builder.toShape(d, "output 0").status().message(), HasSubstr("nbDims 9"));
    d.nbDims = 2;
    d.d[0] = builder.api().constant(4);
    d.d[1] = builder.api().constant(-2);
    EXPECT_THAT(builder.toShape(d, "output 0").status().message(), HasSubstr("extent 1 is negative (-2)"));
    d.d[1] = builder.api().constant(0);
    auto ok = builder.toShape(d, "output 0");
    ASSERT_TRUE(ok.isOk());
    EXPECT_TRUE(ok.value()[0].is(4));
    EXPECT_TRUE(ok.value()[1].is(0));

    std::vector<DimExpr> tooLong(9, DimExpr(&graph, graph.constant(1)));
    EXPECT_THAT(builder.toDimsExprs(tooLong, "shape input 0").status().message(), HasSubstr("at most 8"));
}

TEST(ExprBuilderTest, DeclareSizeTensor)
{
    ShapeGraph graph;
    PluginExprBuilder builder(graph, "nz", 2, true);
    IExprBuilder& api = builder.api();
    IDimensionExpr const* n = builder.wrap(graph.symbol(SymbolKind::kINPUT_DIM, "x[0]"));
    IDimensionExpr const* opt = api.operation(DimensionOperation::kFLOOR_DIV, *n, *api.constant(2));
    IDimensionExpr const* size = api.declareSizeTensor(1, *opt, *n);
    ASSERT_NE(size, nullptr) << builder.error().message();
    EXPECT_TRUE(size->isSizeTensor());
    EXPECT_FALSE(size->isConstant());
    ASSERT_EQ(builder.sizeTensors().size(), 1U);
    PluginSizeTensor const& t = builder.sizeTensors()[0];
    EXPECT_EQ(t.output, 1);
    SymbolInfo const& info = graph.symbols()[static_cast<size_t>(graph.node(t.symbol).value)];
    EXPECT_EQ(info.kind, SymbolKind::kDATA_DEPENDENT);
    EXPECT_EQ(info.name, "nz.1.size");
    EXPECT_EQ(info.upper, builder.resolve(n, "n").value());
    EXPECT_EQ(info.opt, builder.resolve(opt, "opt").value());
    // The value can be used in other shapes.
    EXPECT_NE(api.operation(DimensionOperation::kPROD, *size, *api.constant(2)), nullptr);
    EXPECT_TRUE(builder.error().isOk());
}

TEST(ExprBuilderTest, DeclareSizeTensorMisuse)
{
    ShapeGraph graph;
    auto fresh = [&](bool allow) { return std::make_unique<PluginExprBuilder>(graph, "nz", 2, allow); };
    {
        auto b = fresh(true);
        EXPECT_EQ(b->api().declareSizeTensor(2, *b->api().constant(1), *b->api().constant(2)), nullptr);
        EXPECT_THAT(b->error().message(), HasSubstr("declareSizeTensor(2): the plugin has 2 output(s)"));
    }
    {
        auto b = fresh(true);
        EXPECT_EQ(b->api().declareSizeTensor(-1, *b->api().constant(1), *b->api().constant(2)), nullptr);
        EXPECT_THAT(b->error().message(), HasSubstr("declareSizeTensor(-1)"));
    }
    {
        auto b = fresh(true);
        ASSERT_NE(b->api().declareSizeTensor(0, *b->api().constant(1), *b->api().constant(2)), nullptr);
        EXPECT_EQ(b->api().declareSizeTensor(0, *b->api().constant(1), *b->api().constant(2)), nullptr);
        EXPECT_THAT(b->error().message(), HasSubstr("output 0 was already declared a size tensor"));
    }
    {
        auto b = fresh(true);
        IDimensionExpr const* s = b->api().declareSizeTensor(0, *b->api().constant(1), *b->api().constant(2));
        IDimensionExpr const* dependent = b->api().operation(DimensionOperation::kSUM, *s, *b->api().constant(1));
        EXPECT_EQ(b->api().declareSizeTensor(1, *dependent, *b->api().constant(9)), nullptr);
        EXPECT_THAT(b->error().message(), HasSubstr("opt must not depend on a size tensor"));
    }
    {
        auto b = fresh(true);
        IDimensionExpr const* s = b->api().declareSizeTensor(0, *b->api().constant(1), *b->api().constant(2));
        EXPECT_EQ(b->api().declareSizeTensor(1, *b->api().constant(1), *s), nullptr);
        EXPECT_THAT(b->error().message(), HasSubstr("upper must not depend on a size tensor"));
    }
    {
        auto b = fresh(false);
        EXPECT_EQ(b->api().declareSizeTensor(0, *b->api().constant(1), *b->api().constant(2)), nullptr);
        EXPECT_THAT(b->error().message(), HasSubstr("need an IPluginV3 plugin"));
    }
    {
        auto other = fresh(true);
        auto b = fresh(true);
        EXPECT_EQ(b->api().declareSizeTensor(0, *other->api().constant(1), *b->api().constant(2)), nullptr);
        EXPECT_THAT(b->error().message(), HasSubstr("not created by this IExprBuilder"));
    }
}

} // namespace
