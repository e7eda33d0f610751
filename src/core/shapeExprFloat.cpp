// ShapeGraph's float-valued nodes: construction with folding, classification and evaluation. FLOAT shape tensors
// (for example resize scales given at run time) carry their element values as these expressions; the values are
// doubles, held in the graph's int64 value slots as bit patterns.
#include "core/shapeExpr.h"
#include "core/shapeExprFloat.h"

#include <bit>
#include <cmath>
#include <limits>

namespace kiln
{

int64_t floatBits(double value)
{
    return std::bit_cast<int64_t>(value);
}

double floatValue(int64_t bits)
{
    return std::bit_cast<double>(bits);
}

int64_t unknownFloatBits()
{
    // A quiet NaN with a payload no arithmetic produces.
    return static_cast<int64_t>(0x7FF8'4B49'4C4E'0001ULL);
}

namespace shape_float
{

bool isFloatNodeOp(ExprOp op)
{
    auto const v = static_cast<uint8_t>(op);
    return v >= static_cast<uint8_t>(ExprOp::kTO_FLOAT) && v <= static_cast<uint8_t>(ExprOp::kTO_INT);
}

bool producesFloat(ExprOp op)
{
    return isFloatNodeOp(op) && op != ExprOp::kTO_INT;
}

double roundDouble(double x, ExprRounding rounding)
{
    switch (rounding)
    {
    case ExprRounding::kFLOOR: return std::floor(x);
    case ExprRounding::kCEIL: return std::ceil(x);
    case ExprRounding::kROUND_HALF_EVEN: return std::nearbyint(x);
    case ExprRounding::kROUND_HALF_UP: return std::floor(x + 0.5);
    case ExprRounding::kROUND_HALF_DOWN: return std::ceil(x - 0.5);
    case ExprRounding::kTRUNC: return std::trunc(x);
    }
    return x;
}

bool doubleToInt(double x, ExprRounding rounding, int64_t& out)
{
    double const r = roundDouble(x, rounding);
    if (!std::isfinite(r) || std::fabs(r) > 9.0e18)
    {
        return false;
    }
    out = static_cast<int64_t>(r);
    return true;
}

namespace
{
constexpr double kNAN = std::numeric_limits<double>::quiet_NaN();

double applyFloat(ExprOp op, double a, double b)
{
    switch (op)
    {
    case ExprOp::kF_SUM: return a + b;
    case ExprOp::kF_SUB: return a - b;
    case ExprOp::kF_PROD: return a * b;
    case ExprOp::kF_DIV: return a / b;
    case ExprOp::kF_MAX: return std::isnan(a) || std::isnan(b) ? kNAN : std::fmax(a, b);
    case ExprOp::kF_MIN: return std::isnan(a) || std::isnan(b) ? kNAN : std::fmin(a, b);
    default: return kNAN;
    }
}
} // namespace

bool evaluateFloatNode(ExprNode const& n, std::vector<int64_t> const& values, int64_t& out, std::string& error)
{
    auto const operand = [&](ExprId id) { return values[static_cast<size_t>(id)]; };
    switch (n.op)
    {
    case ExprOp::kTO_FLOAT: out = floatBits(static_cast<double>(operand(n.a)) * n.scale); return true;
    case ExprOp::kF_ROUND: out = floatBits(roundDouble(floatValue(operand(n.a)), n.rounding)); return true;
    case ExprOp::kTO_INT:
    {
        double const x = floatValue(operand(n.a));
        if (doubleToInt(x, n.rounding, out))
        {
            return true;
        }
        error = std::isnan(x) ? "NaN"
            : std::isinf(x)   ? (x > 0 ? "+infinity" : "-infinity")
                              : "out of the INT64 range";
        return false;
    }
    default:
        out = floatBits(applyFloat(n.op, floatValue(operand(n.a)), floatValue(operand(n.b))));
        return true;
    }
}

char const* floatOpSymbol(ExprOp op)
{
    switch (op)
    {
    case ExprOp::kF_SUM: return "+";
    case ExprOp::kF_SUB: return "-";
    case ExprOp::kF_PROD: return "*";
    case ExprOp::kF_DIV: return "/";
    case ExprOp::kF_MAX: return "fmax";
    case ExprOp::kF_MIN: return "fmin";
    default: return "?";
    }
}

char const* roundingName(ExprRounding rounding)
{
    switch (rounding)
    {
    case ExprRounding::kFLOOR: return "floor";
    case ExprRounding::kCEIL: return "ceil";
    case ExprRounding::kROUND_HALF_EVEN: return "round";
    case ExprRounding::kROUND_HALF_UP: return "round_half_up";
    case ExprRounding::kROUND_HALF_DOWN: return "round_half_down";
    case ExprRounding::kTRUNC: return "trunc";
    }
    return "?";
}

} // namespace shape_float

ExprId ShapeGraph::floatConstant(double value)
{
    ExprNode n;
    n.op = ExprOp::kTO_FLOAT;
    n.a = constant(1);
    n.b = n.a;
    n.scale = value;
    return intern(n);
}

ExprId ShapeGraph::toFloat(ExprId a)
{
    if (isFloat(a))
    {
        return a;
    }
    if (isConstant(a))
    {
        return floatConstant(static_cast<double>(constantValue(a)));
    }
    ExprNode n;
    n.op = ExprOp::kTO_FLOAT;
    n.a = a;
    n.b = a;
    n.scale = 1.0;
    return intern(n);
}

ExprId ShapeGraph::floatOp(ExprOp op, ExprId a, ExprId b)
{
    double x = 0.0;
    double y = 0.0;
    bool const ca = isFloatConstant(a, &x);
    bool const cb = isFloatConstant(b, &y);
    if (ca && cb)
    {
        int64_t out = 0;
        std::string unused;
        ExprNode tmp;
        tmp.op = op;
        tmp.a = 0;
        tmp.b = 1;
        std::vector<int64_t> const operands{floatBits(x), floatBits(y)};
        shape_float::evaluateFloatNode(tmp, operands, out, unused);
        return floatConstant(floatValue(out));
    }
    switch (op)
    {
    case ExprOp::kF_SUM:
        if (ca && x == 0.0) return b;
        if (cb && y == 0.0) return a;
        break;
    case ExprOp::kF_SUB:
        if (cb && y == 0.0) return a;
        break;
    case ExprOp::kF_PROD:
        if (ca && x == 1.0) return b;
        if (cb && y == 1.0) return a;
        break;
    case ExprOp::kF_DIV:
        if (cb && y == 1.0) return a;
        break;
    default: break;
    }
    bool const commutative
        = op == ExprOp::kF_SUM || op == ExprOp::kF_PROD || op == ExprOp::kF_MAX || op == ExprOp::kF_MIN;
    if (commutative && a > b)
    {
        std::swap(a, b);
    }
    ExprNode n;
    n.op = op;
    n.a = a;
    n.b = b;
    return intern(n);
}

ExprId ShapeGraph::floatRound(ExprId a, ExprRounding rounding)
{
    double x = 0.0;
    if (isFloatConstant(a, &x))
    {
        return floatConstant(shape_float::roundDouble(x, rounding));
    }
    ExprNode const& in = node(a);
    if ((in.op == ExprOp::kTO_FLOAT && in.scale == 1.0) || in.op == ExprOp::kF_ROUND)
    {
        return a; // already integral
    }
    ExprNode n;
    n.op = ExprOp::kF_ROUND;
    n.rounding = rounding;
    n.a = a;
    n.b = a;
    return intern(n);
}

ExprId ShapeGraph::toInt(ExprId a, ExprRounding rounding)
{
    if (!isFloat(a))
    {
        return a;
    }
    double x = 0.0;
    int64_t folded = 0;
    if (isFloatConstant(a, &x) && shape_float::doubleToInt(x, rounding, folded))
    {
        return constant(folded); // a value that cannot convert keeps its node, so evaluation reports the error
    }
    ExprNode const& in = node(a);
    if (in.op == ExprOp::kTO_FLOAT && in.scale == 1.0 && !isConstant(in.a))
    {
        return in.a; // int -> float -> int
    }
    ExprNode n;
    n.op = ExprOp::kTO_INT;
    n.rounding = rounding;
    n.a = a;
    n.b = a;
    return intern(n);
}

bool ShapeGraph::isFloat(ExprId id) const
{
    if (!isValid(id))
    {
        return false;
    }
    ExprNode const& n = node(id);
    if (n.op == ExprOp::kSYMBOL)
    {
        auto const s = static_cast<size_t>(n.value);
        return s < mSymbols.size() && mSymbols[s].kind == SymbolKind::kINPUT_FLOAT_VALUE;
    }
    return shape_float::producesFloat(n.op);
}

bool ShapeGraph::isFloatConstant(ExprId id, double* value) const
{
    if (!isValid(id))
    {
        return false;
    }
    ExprNode const& n = node(id);
    if (n.op != ExprOp::kTO_FLOAT || !isConstant(n.a))
    {
        return false;
    }
    if (value != nullptr)
    {
        *value = static_cast<double>(constantValue(n.a)) * n.scale;
    }
    return true;
}

std::vector<bool> ShapeGraph::dependsOnKind(SymbolKind kind) const
{
    std::vector<bool> out(mNodes.size(), false);
    auto const depends = [&](ExprId id) {
        return id >= 0 && static_cast<size_t>(id) < out.size() && out[static_cast<size_t>(id)];
    };
    for (size_t i = 0; i < mNodes.size(); ++i)
    {
        ExprNode const& n = mNodes[i];
        if (n.op == ExprOp::kSYMBOL)
        {
            auto const s = static_cast<size_t>(n.value);
            out[i] = s < mSymbols.size() && mSymbols[s].kind == kind;
        }
        else if (n.op != ExprOp::kCONSTANT)
        {
            out[i] = depends(n.a) || depends(n.b) || depends(n.c);
        }
    }
    return out;
}

} // namespace kiln
