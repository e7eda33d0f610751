// ShapeGraph: folding, interning, evaluation against direct integer arithmetic on random values,
// constraints, error paths and validation of deserialized graphs.
#include "core/shapeExpr.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln
{
namespace
{

int64_t floorDivRef(int64_t a, int64_t b)
{
    double const q = std::floor(static_cast<double>(a) / static_cast<double>(b));
    return static_cast<int64_t>(q);
}

TEST(ShapeExprTest, ConstantsFoldAndIntern)
{
    ShapeGraph g;
    DimExpr a(&g, g.constant(6));
    DimExpr b(&g, g.constant(4));
    EXPECT_TRUE((a + b).is(10));
    EXPECT_TRUE((a * b).is(24));
    EXPECT_TRUE(a.floorDiv(b).is(1));
    EXPECT_TRUE(a.ceilDiv(b).is(2));
    EXPECT_TRUE((b - a).floorDiv(4).is(-1));
    EXPECT_EQ(g.constant(6), a.id());
}

TEST(ShapeExprTest, IdentitiesKeepSymbols)
{
    ShapeGraph g;
    DimExpr n(&g, g.symbol(SymbolKind::kINPUT_DIM, "batch"));
    EXPECT_EQ((n + 0).id(), n.id());
    EXPECT_EQ((n * 1).id(), n.id());
    EXPECT_TRUE((n - n).is(0));
    EXPECT_TRUE(n.eq(n).is(1));
    EXPECT_EQ((n * 3 + 1).id(), (n * 3 + 1).id()) << "equal expressions intern to one node";
    EXPECT_EQ(n.known(), -1);
}

TEST(ShapeExprTest, ConstantFactorsGatherAndDivideOut)
{
    ShapeGraph g;
    DimExpr b(&g, g.symbol(SymbolKind::kINPUT_DIM, "batch"));
    // A reshape [b, 512, 768] -> [-1, 768] -> [-1, 512, 768]: the inferred extents are volume / (the other extents).
    DimExpr const rows = (b * 512 * 768).floorDiv(768);
    EXPECT_EQ(rows.id(), (b * 512).id());
    EXPECT_EQ((rows * 768).floorDiv(512 * 768).id(), b.id()) << "the reshape back gives the batch extent itself";
    EXPECT_EQ((b * 3 * 4).id(), (b * 12).id());
    EXPECT_EQ((b * 12).ceilDiv(4).id(), (b * 3).id());
    // Not exact: kept as a division, which evaluates with its rounding.
    DimExpr const notExact = (b * 6).floorDiv(4);
    EXPECT_NE(notExact.id(), (b * 3).id());
    DimExpr const negative = (b * 7).floorDiv(-7);
    EXPECT_NE(negative.id(), (b * -1).id()) << "negative divisors are left alone";
    std::vector<int64_t> values;
    ASSERT_TRUE(g.evaluate({5}, values).isOk());
    EXPECT_EQ(values[static_cast<size_t>(notExact.id())], 7);
    EXPECT_EQ(values[static_cast<size_t>(negative.id())], -5);
}

TEST(ShapeExprTest, EvaluationMatchesIntegerArithmetic)
{
    std::mt19937 rng(7);
    for (int iter = 0; iter < 200; ++iter)
    {
        ShapeGraph g;
        DimExpr x(&g, g.symbol(SymbolKind::kINPUT_DIM, "x"));
        DimExpr y(&g, g.symbol(SymbolKind::kINPUT_DIM, "y"));
        DimExpr const conv = (x + 2 - y).floorDiv(y.max(1)) + 1;
        DimExpr const sel = x.lt(y).select(x * y, x - y);
        DimExpr const ceil = x.ceilDiv(y.max(1));
        DimExpr const scaled = x.scaled(1.5, ExprRounding::kFLOOR);
        int64_t const xv = std::uniform_int_distribution<int64_t>(0, 1000)(rng);
        int64_t const yv = std::uniform_int_distribution<int64_t>(0, 50)(rng);
        std::vector<int64_t> values;
        ASSERT_TRUE(g.evaluate({xv, yv}, values).isOk());
        int64_t const ym = std::max<int64_t>(yv, 1);
        EXPECT_EQ(values[static_cast<size_t>(conv.id())], floorDivRef(xv + 2 - yv, ym) + 1);
        EXPECT_EQ(values[static_cast<size_t>(sel.id())], xv < yv ? xv * yv : xv - yv);
        EXPECT_EQ(values[static_cast<size_t>(ceil.id())], (xv + ym - 1) / ym);
        EXPECT_EQ(values[static_cast<size_t>(scaled.id())], static_cast<int64_t>(std::floor(xv * 1.5)));
    }
}

TEST(ShapeExprTest, ConstraintsAreCheckedAtEvaluation)
{
    ShapeGraph g;
    DimExpr a(&g, g.symbol(SymbolKind::kINPUT_DIM, "a"));
    DimExpr b(&g, g.symbol(SymbolKind::kINPUT_DIM, "b"));
    ASSERT_TRUE(g.require(a.eq(b).id(), "a must equal b").isOk());
    std::vector<int64_t> values;
    EXPECT_TRUE(g.evaluate({3, 3}, values).isOk());
    Status st = g.evaluate({3, 4}, values);
    EXPECT_FALSE(st.isOk());
    EXPECT_EQ(st.message(), "a must equal b");
    // A constraint that is false at build time fails immediately.
    EXPECT_FALSE(g.require(g.constant(0), "never").isOk());
}

TEST(ShapeExprTest, DivisionByZeroIsAnErrorNotACrash)
{
    ShapeGraph g;
    DimExpr a(&g, g.symbol(SymbolKind::kINPUT_DIM, "a"));
    DimExpr z(&g, g.symbol(SymbolKind::kINPUT_DIM, "z"));
    DimExpr q = a.floorDiv(z);
    std::vector<int64_t> values;
    Status st = g.evaluate({5, 0}, values);
    EXPECT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("division by zero"), std::string::npos) << st.message();
    (void) q;
}

TEST(ShapeExprTest, OverflowIsAnError)
{
    ShapeGraph g;
    DimExpr a(&g, g.symbol(SymbolKind::kINPUT_DIM, "a"));
    DimExpr big = a * a;
    std::vector<int64_t> values;
    EXPECT_FALSE(g.evaluate({int64_t{1} << 40}, values).isOk());
    (void) big;
}

TEST(ShapeExprTest, WrongSymbolCountIsAnError)
{
    ShapeGraph g;
    g.symbol(SymbolKind::kINPUT_DIM, "a");
    std::vector<int64_t> values;
    EXPECT_FALSE(g.evaluate({}, values).isOk());
}

TEST(ShapeExprTest, FromPartsRejectsForwardReferences)
{
    ExprNode bad;
    bad.op = ExprOp::kSUM;
    bad.a = 0;
    bad.b = 1; // refers to itself / later node
    auto g = ShapeGraph::fromParts({bad}, {}, {});
    EXPECT_FALSE(g.isOk());
    ExprNode sym;
    sym.op = ExprOp::kSYMBOL;
    sym.value = 3; // no such symbol
    EXPECT_FALSE(ShapeGraph::fromParts({sym}, {}, {}).isOk());
    ExprNode op;
    op.op = static_cast<ExprOp>(200);
    EXPECT_FALSE(ShapeGraph::fromParts({op}, {}, {}).isOk());
    EXPECT_FALSE(ShapeGraph::fromParts({}, {}, {ShapeConstraint{5, "x"}}).isOk());
}

TEST(ShapeExprTest, FromPartsRoundTrip)
{
    ShapeGraph g;
    DimExpr a(&g, g.symbol(SymbolKind::kINPUT_DIM, "a"));
    DimExpr e = (a * 2 + 3).max(a);
    ASSERT_TRUE(g.require(a.lt(100).id(), "a < 100").isOk());
    auto copy = ShapeGraph::fromParts(g.nodes(), g.symbols(), g.constraints());
    ASSERT_TRUE(copy.isOk()) << copy.status().message();
    std::vector<int64_t> v1;
    std::vector<int64_t> v2;
    ASSERT_TRUE(g.evaluate({7}, v1).isOk());
    ASSERT_TRUE(copy->evaluate({7}, v2).isOk());
    EXPECT_EQ(v1, v2);
    EXPECT_EQ(v2[static_cast<size_t>(e.id())], 17);
    EXPECT_FALSE(copy->evaluate({100}, v2).isOk());
}

} // namespace
} // namespace kiln
