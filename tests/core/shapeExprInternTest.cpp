// ShapeGraph interning by structure (op, operands, value, scale): random expressions built twice, in two
// orders, share their nodes; distinct constants, scales and roundings stay distinct; graphs rebuilt by fromParts
// keep interning; constraints are deduplicated by condition.
#include "core/shapeExpr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <tuple>

namespace kiln
{
namespace
{

//! A random expression over `symbols`, as a recipe that can be replayed on any graph.
using Recipe = std::function<DimExpr(ShapeGraph&, std::vector<DimExpr> const&)>;

Recipe randomRecipe(std::mt19937& rng, int depth)
{
    std::uniform_int_distribution<int> kind(0, depth <= 0 ? 1 : 9);
    int const k = kind(rng);
    if (k == 0)
    {
        int64_t const v = std::uniform_int_distribution<int64_t>(-3, 1'000'000'007)(rng);
        return [v](ShapeGraph& g, std::vector<DimExpr> const&) { return DimExpr(&g, g.constant(v)); };
    }
    if (k == 1)
    {
        size_t const s = std::uniform_int_distribution<size_t>(0, 2)(rng);
        return [s](ShapeGraph&, std::vector<DimExpr> const& syms) { return syms[s]; };
    }
    Recipe a = randomRecipe(rng, depth - 1);
    Recipe b = randomRecipe(rng, depth - 1);
    switch (k)
    {
    case 2: return [a, b](ShapeGraph& g, auto const& s) { return a(g, s) + b(g, s); };
    case 3: return [a, b](ShapeGraph& g, auto const& s) { return a(g, s) * b(g, s); };
    case 4: return [a, b](ShapeGraph& g, auto const& s) { return a(g, s) - b(g, s); };
    case 5: return [a, b](ShapeGraph& g, auto const& s) { return a(g, s).max(b(g, s)); };
    case 6: return [a, b](ShapeGraph& g, auto const& s) { return a(g, s).floorDiv(b(g, s)); };
    case 7:
    {
        double const scale = std::uniform_real_distribution<double>(0.1, 3.0)(rng);
        return [a, scale](ShapeGraph& g, auto const& s) { return a(g, s).scaled(scale, ExprRounding::kCEIL); };
    }
    case 8: return [a, b](ShapeGraph& g, auto const& s) { return a(g, s).lt(b(g, s)).select(a(g, s), b(g, s)); };
    default: return [a, b](ShapeGraph& g, auto const& s) { return a(g, s).eq(b(g, s)); };
    }
}

std::vector<DimExpr> symbolsOf(ShapeGraph& g)
{
    return {DimExpr(&g, g.symbol(SymbolKind::kINPUT_DIM, "x")), DimExpr(&g, g.symbol(SymbolKind::kINPUT_DIM, "y")),
        DimExpr(&g, g.symbol(SymbolKind::kINPUT_VALUE, "s.value[0]"))};
}

TEST(ShapeExprInternTest, EqualExpressionsShareNodesWhateverTheBuildOrder)
{
    std::mt19937 rng(2024);
    for (int iter = 0; iter < 100; ++iter)
    {
        std::vector<Recipe> recipes;
        for (int i = 0; i < 12; ++i)
        {
            recipes.push_back(randomRecipe(rng, 4));
        }
        ShapeGraph g;
        auto const syms = symbolsOf(g);
        std::vector<ExprId> first;
        for (auto const& r : recipes)
        {
            first.push_back(r(g, syms).id());
        }
        size_t const nodes = g.nodes().size();
        // Building them again, in reverse order, adds nothing and returns the same nodes.
        for (size_t i = recipes.size(); i-- > 0;)
        {
            EXPECT_EQ(recipes[i](g, syms).id(), first[i]) << "iteration " << iter << " expression " << i;
        }
        EXPECT_EQ(g.nodes().size(), nodes);
        // No two nodes of the graph are structurally equal (symbols aside, which are distinct by design).
        std::set<std::tuple<int, int, ExprId, ExprId, ExprId, int64_t, double>> seen;
        for (ExprNode const& n : g.nodes())
        {
            if (n.op != ExprOp::kSYMBOL)
            {
                auto const key = std::make_tuple(static_cast<int>(n.op), static_cast<int>(n.rounding), n.a, n.b, n.c,
                    n.value, n.scale);
                EXPECT_TRUE(seen.insert(key).second) << "duplicate node";
            }
        }
    }
}

TEST(ShapeExprInternTest, DistinctConstantsScalesAndRoundingsStayDistinct)
{
    ShapeGraph g;
    DimExpr x(&g, g.symbol(SymbolKind::kINPUT_DIM, "x"));
    std::set<ExprId> ids;
    std::mt19937 rng(5);
    std::uniform_int_distribution<int64_t> big(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    std::set<int64_t> values;
    for (int i = 0; i < 2000; ++i)
    {
        int64_t const v = big(rng);
        values.insert(v);
        ExprId const id = g.constant(v);
        EXPECT_EQ(g.constantValue(id), v);
        ids.insert(id);
    }
    EXPECT_EQ(ids.size(), values.size());
    // Scales differing in the last bit, and the same scale with two roundings.
    double const s = 1.1;
    double const t = std::nextafter(s, 2.0);
    ExprId const a = x.scaled(s, ExprRounding::kFLOOR).id();
    ExprId const b = x.scaled(t, ExprRounding::kFLOOR).id();
    ExprId const c = x.scaled(s, ExprRounding::kCEIL).id();
    EXPECT_NE(a, b);
    EXPECT_NE(a, c);
    EXPECT_EQ(x.scaled(s, ExprRounding::kFLOOR).id(), a);
    // Operand order matters for non-commutative operations only.
    DimExpr y(&g, g.symbol(SymbolKind::kINPUT_DIM, "y"));
    EXPECT_NE((x - y).id(), (y - x).id());
    EXPECT_EQ((x + y).id(), (y + x).id());
    EXPECT_EQ(x.max(y).id(), y.max(x).id());
}

TEST(ShapeExprInternTest, GraphsFromPartsKeepInterning)
{
    ShapeGraph g;
    DimExpr x(&g, g.symbol(SymbolKind::kINPUT_DIM, "x"));
    ExprId const e = ((x * 3 + 1).floorDiv(2)).id();
    auto copy = ShapeGraph::fromParts(g.nodes(), g.symbols(), g.constraints());
    ASSERT_TRUE(copy.isOk()) << copy.status().message();
    size_t const nodes = copy->nodes().size();
    DimExpr cx(&*copy, x.id());
    EXPECT_EQ(((cx * 3 + 1).floorDiv(2)).id(), e);
    EXPECT_EQ(copy->nodes().size(), nodes);
}

TEST(ShapeExprInternTest, ConstraintsAreKeptOncePerCondition)
{
    ShapeGraph g;
    DimExpr x(&g, g.symbol(SymbolKind::kINPUT_DIM, "x"));
    for (int64_t k = 1; k <= 500; ++k)
    {
        ASSERT_TRUE(g.require(x.lt(k + 1000).id(), "first " + std::to_string(k)).isOk());
        ASSERT_TRUE(g.require(x.lt(k + 1000).id(), "second " + std::to_string(k)).isOk());
    }
    ASSERT_EQ(g.constraints().size(), 500U);
    EXPECT_EQ(g.constraints()[7].message, "first 8");
    std::vector<int64_t> values;
    EXPECT_TRUE(g.evaluate({1000}, values).isOk());
    Status const st = g.evaluate({1001}, values);
    ASSERT_FALSE(st.isOk());
    EXPECT_EQ(st.message(), "first 1");
    // Constraints survive fromParts and keep deduplicating there.
    auto copy = ShapeGraph::fromParts(g.nodes(), g.symbols(), g.constraints());
    ASSERT_TRUE(copy.isOk());
    ASSERT_TRUE(copy->require(x.lt(1001).id(), "again").isOk());
    EXPECT_EQ(copy->constraints().size(), 500U);
}

} // namespace
} // namespace kiln
