// ShapeGraph float-valued nodes (FLOAT shape tensors): folding, interning, evaluation against double arithmetic
// written here, the NaN/infinity/out-of-range errors, unknown FLOAT inputs at build time, and deserialization.
#include "core/shapeExpr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace kiln
{
namespace
{

struct FloatGraph
{
    ShapeGraph g;
    DimExpr n{&g, g.symbol(SymbolKind::kINPUT_DIM, "x[2]")};
    DimExpr s{&g, g.symbol(SymbolKind::kINPUT_FLOAT_VALUE, "scales.value[2]")};

    DimExpr f(double v) { return DimExpr(&g, g.floatConstant(v)); }
    //! floor(double(n) * s) as an integer, the resize output extent.
    DimExpr extent() { return n.toFloat().floatOp(ExprOp::kF_PROD, s).toInt(ExprRounding::kFLOOR); }
    Status eval(int64_t nv, double sv, std::vector<int64_t>& values) const
    {
        return g.evaluate({nv, floatBits(sv)}, values);
    }
};

TEST(ShapeExprFloatTest, ConstantsFoldExactly)
{
    ShapeGraph g;
    DimExpr const a(&g, g.floatConstant(2.5));
    DimExpr const b(&g, g.floatConstant(4.0));
    double v = 0.0;
    ASSERT_TRUE(g.isFloatConstant(a.floatOp(ExprOp::kF_PROD, b).id(), &v));
    EXPECT_EQ(v, 10.0);
    ASSERT_TRUE(g.isFloatConstant(a.floatOp(ExprOp::kF_DIV, b).id(), &v));
    EXPECT_EQ(v, 0.625);
    ASSERT_TRUE(g.isFloatConstant(a.floatOp(ExprOp::kF_SUB, b).id(), &v));
    EXPECT_EQ(v, -1.5);
    EXPECT_TRUE(DimExpr(&g, g.floatConstant(2.7)).toInt(ExprRounding::kFLOOR).is(2));
    EXPECT_TRUE(DimExpr(&g, g.floatConstant(-2.5)).toInt(ExprRounding::kROUND_HALF_EVEN).is(-2));
    EXPECT_TRUE(DimExpr(&g, g.floatConstant(-2.5)).toInt(ExprRounding::kTRUNC).is(-2));
    EXPECT_TRUE(DimExpr(&g, g.floatConstant(2.1)).toInt(ExprRounding::kCEIL).is(3));
    ASSERT_TRUE(g.isFloatConstant(DimExpr(&g, g.constant(3)).toFloat().id(), &v));
    EXPECT_EQ(v, 3.0);
    EXPECT_TRUE(a.isFloat());
    EXPECT_FALSE(a.isConstant()) << "float constants are not integer constants";
    EXPECT_EQ(a.known(), -1);
}

TEST(ShapeExprFloatTest, IdentitiesAndInterning)
{
    FloatGraph fg;
    EXPECT_EQ(fg.s.floatOp(ExprOp::kF_PROD, fg.f(1.0)).id(), fg.s.id());
    EXPECT_EQ(fg.s.floatOp(ExprOp::kF_SUM, fg.f(0.0)).id(), fg.s.id());
    EXPECT_EQ(fg.s.floatOp(ExprOp::kF_DIV, fg.f(1.0)).id(), fg.s.id());
    EXPECT_EQ(fg.extent().id(), fg.extent().id()) << "equal float expressions intern to one node";
    EXPECT_EQ(fg.n.toFloat().toInt(ExprRounding::kFLOOR).id(), fg.n.id()) << "int -> float -> int is the int";
    EXPECT_EQ(fg.n.toFloat().floatRound(ExprRounding::kFLOOR).id(), fg.n.toFloat().id());
    EXPECT_EQ(fg.n.toInt(ExprRounding::kFLOOR).id(), fg.n.id()) << "toInt of an integer expression is itself";
    EXPECT_TRUE(fg.s.isFloat());
    EXPECT_FALSE(fg.n.isFloat());
    EXPECT_FALSE(fg.extent().isFloat());
}

TEST(ShapeExprFloatTest, EvaluationMatchesDoubleArithmetic)
{
    std::mt19937 rng(11);
    FloatGraph fg;
    DimExpr const prod = fg.n.toFloat().floatOp(ExprOp::kF_PROD, fg.s);
    DimExpr const floorE = fg.extent();
    DimExpr const ceilE = prod.floatRound(ExprRounding::kCEIL).toInt(ExprRounding::kTRUNC);
    DimExpr const roundE = prod.toInt(ExprRounding::kROUND_HALF_EVEN);
    DimExpr const truncE = prod.floatOp(ExprOp::kF_SUB, fg.f(7.25)).toInt(ExprRounding::kTRUNC);
    DimExpr const divE = fg.n.toFloat().floatOp(ExprOp::kF_DIV, fg.s).toInt(ExprRounding::kFLOOR);
    auto const scaledFloor = [&](DimExpr v, double k) {
        return v.floatOp(ExprOp::kF_PROD, fg.f(k)).toInt(ExprRounding::kFLOOR);
    };
    DimExpr const sumE = scaledFloor(fg.s.floatOp(ExprOp::kF_SUM, fg.f(0.5)), 8.0);
    DimExpr const maxE = scaledFloor(fg.s.floatOp(ExprOp::kF_MAX, fg.f(1.5)), 10.0);
    DimExpr const minE = scaledFloor(fg.s.floatOp(ExprOp::kF_MIN, fg.f(1.5)), 10.0);
    DimExpr const mixed = floorE + fg.n * 2; // float results feed integer arithmetic
    for (int iter = 0; iter < 300; ++iter)
    {
        int64_t const nv = std::uniform_int_distribution<int64_t>(0, 1000)(rng);
        double const sv = static_cast<double>(std::uniform_real_distribution<float>(0.05F, 4.0F)(rng));
        std::vector<int64_t> values;
        ASSERT_TRUE(fg.eval(nv, sv, values).isOk());
        auto at = [&](DimExpr e) { return values[static_cast<size_t>(e.id())]; };
        double const p = static_cast<double>(nv) * sv;
        EXPECT_EQ(at(floorE), static_cast<int64_t>(std::floor(p))) << nv << " * " << sv;
        EXPECT_EQ(at(ceilE), static_cast<int64_t>(std::ceil(p)));
        EXPECT_EQ(at(roundE), static_cast<int64_t>(std::nearbyint(p)));
        EXPECT_EQ(at(truncE), static_cast<int64_t>(std::trunc(p - 7.25)));
        EXPECT_EQ(at(divE), static_cast<int64_t>(std::floor(static_cast<double>(nv) / sv)));
        EXPECT_EQ(at(sumE), static_cast<int64_t>(std::floor((sv + 0.5) * 8.0)));
        EXPECT_EQ(at(maxE), static_cast<int64_t>(std::floor(std::max(sv, 1.5) * 10.0)));
        EXPECT_EQ(at(minE), static_cast<int64_t>(std::floor(std::min(sv, 1.5) * 10.0)));
        EXPECT_EQ(at(mixed), static_cast<int64_t>(std::floor(p)) + 2 * nv);
        EXPECT_EQ(floatValue(at(prod)), p) << "float values are held exactly as doubles";
    }
}

TEST(ShapeExprFloatTest, NonFiniteAndOutOfRangeValuesFailNamingTheInput)
{
    FloatGraph fg;
    DimExpr const e = fg.extent();
    (void) e;
    std::vector<int64_t> values;
    Status st = fg.eval(5, std::numeric_limits<double>::quiet_NaN(), values);
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("NaN"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("scales.value[2]"), std::string::npos) << st.message();
    st = fg.eval(5, std::numeric_limits<double>::infinity(), values);
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("+infinity"), std::string::npos) << st.message();
    st = fg.eval(5, 1.0e300, values);
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("out of the INT64 range"), std::string::npos) << st.message();
    // n / 0.0 is an infinity; the error appears where it becomes an integer.
    DimExpr const div = fg.n.toFloat().floatOp(ExprOp::kF_DIV, fg.s).toInt(ExprRounding::kFLOOR);
    (void) div;
    st = fg.eval(3, 0.0, values);
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("infinity"), std::string::npos) << st.message();
}

TEST(ShapeExprFloatTest, NegativeResultsFailTheirConstraint)
{
    FloatGraph fg;
    DimExpr const e = fg.extent();
    ASSERT_TRUE(fg.g.require(DimExpr(&fg.g, fg.g.constant(0)).le(e).id(), "tensor 'out': negative extent").isOk());
    std::vector<int64_t> values;
    ASSERT_TRUE(fg.eval(4, 0.75, values).isOk());
    EXPECT_EQ(values[static_cast<size_t>(e.id())], 3);
    Status const st = fg.eval(4, -0.75, values);
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("tensor 'out': negative extent"), std::string::npos) << st.message();
}

TEST(ShapeExprFloatTest, UnknownFloatInputsAreSkippedAtBuildTime)
{
    FloatGraph fg;
    DimExpr const e = fg.extent();
    DimExpr const independent = fg.n * 3;
    ASSERT_TRUE(fg.g.require(e.eq(fg.n * 2).id(), "depends on the scales").isOk());
    ASSERT_TRUE(fg.g.require(fg.n.lt(100).id(), "n below 100").isOk());
    std::vector<int64_t> values;
    ASSERT_TRUE(fg.g.evaluate({7, unknownFloatBits()}, values).isOk()) << "constraints on unknown values are skipped";
    EXPECT_EQ(values[static_cast<size_t>(e.id())], 0);
    EXPECT_EQ(values[static_cast<size_t>(independent.id())], 21);
    Status const st = fg.g.evaluate({200, unknownFloatBits()}, values);
    ASSERT_FALSE(st.isOk()) << "constraints that do not depend on the unknown values still hold";
    EXPECT_NE(st.message().find("n below 100"), std::string::npos);
    // With real values, the scale-dependent constraint is checked.
    EXPECT_TRUE(fg.eval(7, 2.0, values).isOk());
    EXPECT_FALSE(fg.eval(7, 3.0, values).isOk());
}

TEST(ShapeExprFloatTest, DependsOnKind)
{
    FloatGraph fg;
    DimExpr const e = fg.extent();
    DimExpr const i = fg.n + 1;
    std::vector<bool> const dep = fg.g.dependsOnKind(SymbolKind::kINPUT_FLOAT_VALUE);
    EXPECT_TRUE(dep[static_cast<size_t>(e.id())]);
    EXPECT_TRUE(dep[static_cast<size_t>(fg.s.id())]);
    EXPECT_FALSE(dep[static_cast<size_t>(i.id())]);
    EXPECT_FALSE(dep[static_cast<size_t>(fg.n.id())]);
}

TEST(ShapeExprFloatTest, ToStringNamesTheValues)
{
    FloatGraph fg;
    std::string const text = fg.g.toString(fg.extent().id());
    EXPECT_NE(text.find("x[2]"), std::string::npos) << text;
    EXPECT_NE(text.find("scales.value[2]"), std::string::npos) << text;
    EXPECT_NE(text.find("floor"), std::string::npos) << text;
    EXPECT_EQ(fg.g.toString(fg.f(0.5).id()), "0.5");
}

TEST(ShapeExprFloatTest, FromPartsKeepsFloatNodesAndValidatesThem)
{
    FloatGraph fg;
    DimExpr const e = fg.extent() + 1;
    auto rebuilt = ShapeGraph::fromParts(fg.g.nodes(), fg.g.symbols(), fg.g.constraints());
    ASSERT_TRUE(rebuilt.isOk()) << rebuilt.status().message();
    std::vector<int64_t> a;
    std::vector<int64_t> b;
    ASSERT_TRUE(fg.eval(9, 1.7, a).isOk());
    ASSERT_TRUE(rebuilt->evaluate({9, floatBits(1.7)}, b).isOk());
    EXPECT_EQ(a, b);
    EXPECT_EQ(b[static_cast<size_t>(e.id())], static_cast<int64_t>(std::floor(9 * 1.7)) + 1);

    std::vector<ExprNode> bad = fg.g.nodes();
    bad.back().op = static_cast<ExprOp>(25);
    EXPECT_FALSE(ShapeGraph::fromParts(bad, fg.g.symbols(), {}).isOk()) << "unknown operation";
    bad = fg.g.nodes();
    for (auto& node : bad)
    {
        if (node.op == ExprOp::kTO_INT)
        {
            node.a = static_cast<ExprId>(bad.size()); // forward reference
        }
    }
    EXPECT_FALSE(ShapeGraph::fromParts(bad, fg.g.symbols(), {}).isOk()) << "invalid operand";
    std::vector<SymbolInfo> symbols = fg.g.symbols();
    symbols[1].kind = static_cast<SymbolKind>(4);
    EXPECT_FALSE(ShapeGraph::fromParts(fg.g.nodes(), symbols, {}).isOk()) << "unknown symbol kind";
}

} // namespace
} // namespace kiln
