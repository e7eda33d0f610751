// ShapeGraph: construction with folding and structural interning (hash of op, operands, value and scale), validation of deserialized graphs, and evaluation.
#include "core/shapeExpr.h"
#include "core/shapeExprFloat.h"

#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

namespace kiln
{
namespace
{

bool isBinary(ExprOp op)
{
    return static_cast<uint8_t>(op) <= static_cast<uint8_t>(ExprOp::kTRUNC_MOD);
}

int64_t floorDiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
    {
        --q;
    }
    return q;
}

int64_t ceilDiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) == (b < 0)))
    {
        ++q;
    }
    return q;
}

//! Applies a binary op; returns false on division by zero or overflow.
bool applyBinary(ExprOp op, int64_t a, int64_t b, int64_t& out)
{
    switch (op)
    {
    case ExprOp::kSUM: return !__builtin_add_overflow(a, b, &out);
    case ExprOp::kSUB: return !__builtin_sub_overflow(a, b, &out);
    case ExprOp::kPROD: return !__builtin_mul_overflow(a, b, &out);
    case ExprOp::kMAX: out = a > b ? a : b; return true;
    case ExprOp::kMIN: out = a < b ? a : b; return true;
    case ExprOp::kEQUAL: out = a == b ? 1 : 0; return true;
    case ExprOp::kLESS: out = a < b ? 1 : 0; return true;
    case ExprOp::kFLOOR_DIV:
    case ExprOp::kCEIL_DIV:
    case ExprOp::kTRUNC_DIV:
    case ExprOp::kFLOOR_MOD:
    case ExprOp::kTRUNC_MOD:
        if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
        {
            return false;
        }
        if (op == ExprOp::kFLOOR_DIV)
        {
            out = floorDiv(a, b);
        }
        else if (op == ExprOp::kCEIL_DIV)
        {
            out = ceilDiv(a, b);
        }
        else if (op == ExprOp::kTRUNC_DIV)
        {
            out = a / b;
        }
        else if (op == ExprOp::kFLOOR_MOD)
        {
            out = a - b * floorDiv(a, b);
        }
        else
        {
            out = a % b;
        }
        return true;
    default: return false;
    }
}

bool applyScale(int64_t a, double scale, ExprRounding rounding, int64_t& out)
{
    return shape_float::doubleToInt(static_cast<double>(a) * scale, rounding, out);
}

char const* opSymbol(ExprOp op)
{
    switch (op)
    {
    case ExprOp::kSUM: return "+";
    case ExprOp::kPROD: return "*";
    case ExprOp::kMAX: return "max";
    case ExprOp::kMIN: return "min";
    case ExprOp::kSUB: return "-";
    case ExprOp::kEQUAL: return "==";
    case ExprOp::kLESS: return "<";
    case ExprOp::kFLOOR_DIV: return "floordiv";
    case ExprOp::kCEIL_DIV: return "ceildiv";
    case ExprOp::kTRUNC_DIV: return "/";
    case ExprOp::kFLOOR_MOD: return "mod";
    case ExprOp::kTRUNC_MOD: return "%";
    default: return "?";
    }
}

//! A product of an expression and a constant factor (the one form the simplifications below rewrite).
struct ScaledTerm
{
    ExprId term{kNO_EXPR};
    int64_t factor{1};
};

//! `e` as term · factor when it is a product with a constant operand; nullopt otherwise.
std::optional<ScaledTerm> scaledTerm(ShapeGraph const& graph, ExprId e)
{
    ExprNode const& n = graph.node(e);
    if (n.op != ExprOp::kPROD)
    {
        return std::nullopt;
    }
    if (graph.isConstant(n.a))
    {
        return ScaledTerm{n.b, graph.constantValue(n.a)};
    }
    if (graph.isConstant(n.b))
    {
        return ScaledTerm{n.a, graph.constantValue(n.b)};
    }
    return std::nullopt;
}

} // namespace

ExprId ShapeGraph::add(ExprNode const& n)
{
    mNodes.push_back(n);
    return static_cast<ExprId>(mNodes.size() - 1);
}

uint64_t ShapeGraph::hashOf(ExprNode const& n)
{
    // Fold the fields into 64 bits with multiply-xorshift steps (splitmix64's finaliser).
    auto mix = [](uint64_t h, uint64_t v) {
        h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
        h ^= h >> 31;
        h *= 0xBF58476D1CE4E5B9ULL;
        return h ^ (h >> 29);
    };
    uint64_t h = static_cast<uint64_t>(n.op) | (static_cast<uint64_t>(n.rounding) << 8);
    h = mix(h, static_cast<uint64_t>(static_cast<uint32_t>(n.a)) | (static_cast<uint64_t>(static_cast<uint32_t>(n.b)) << 32));
    h = mix(h, static_cast<uint64_t>(static_cast<uint32_t>(n.c)));
    h = mix(h, static_cast<uint64_t>(n.value));
    return mix(h, std::bit_cast<uint64_t>(n.scale));
}

bool ShapeGraph::sameNode(ExprNode const& x, ExprNode const& y)
{
    return x.op == y.op && x.rounding == y.rounding && x.a == y.a && x.b == y.b && x.c == y.c && x.value == y.value
        && std::bit_cast<uint64_t>(x.scale) == std::bit_cast<uint64_t>(y.scale);
}

void ShapeGraph::index(ExprId id)
{
    if ((mInterned + 1) * 2 > mInternSlots.size())
    {
        std::vector<ExprId> old(std::max<size_t>(64, mInternSlots.size() * 2), kNO_EXPR);
        old.swap(mInternSlots);
        mInterned = 0;
        for (ExprId existing : old)
        {
            if (existing != kNO_EXPR)
            {
                index(existing);
            }
        }
    }
    size_t const mask = mInternSlots.size() - 1;
    for (size_t i = hashOf(mNodes[static_cast<size_t>(id)]) & mask;; i = (i + 1) & mask)
    {
        if (mInternSlots[i] == kNO_EXPR)
        {
            mInternSlots[i] = id;
            ++mInterned;
            return;
        }
    }
}

ExprId ShapeGraph::intern(ExprNode const& n)
{
    if (!mInternSlots.empty())
    {
        size_t const mask = mInternSlots.size() - 1;
        for (size_t i = hashOf(n) & mask; mInternSlots[i] != kNO_EXPR; i = (i + 1) & mask)
        {
            if (sameNode(mNodes[static_cast<size_t>(mInternSlots[i])], n))
            {
                return mInternSlots[i];
            }
        }
    }
    ExprId const id = add(n);
    index(id);
    return id;
}

ExprId ShapeGraph::constant(int64_t value)
{
    ExprNode n;
    n.op = ExprOp::kCONSTANT;
    n.value = value;
    return intern(n);
}

ExprId ShapeGraph::symbol(SymbolKind kind, std::string name)
{
    ExprNode n;
    n.op = ExprOp::kSYMBOL;
    n.value = static_cast<int64_t>(mSymbols.size());
    mSymbols.push_back(SymbolInfo{kind, std::move(name)});
    return add(n); // every symbol is distinct
}

void ShapeGraph::setSymbolBounds(int32_t symbol, ExprId upper, ExprId opt)
{
    if (symbol < 0 || symbol >= static_cast<int32_t>(mSymbols.size()))
    {
        return;
    }
    mSymbols[static_cast<size_t>(symbol)].upper = upper;
    mSymbols[static_cast<size_t>(symbol)].opt = opt;
}

ExprId ShapeGraph::op(ExprOp op, ExprId a, ExprId b)
{
    bool const ca = isConstant(a);
    bool const cb = isConstant(b);
    if (ca && cb)
    {
        int64_t out = 0;
        if (applyBinary(op, constantValue(a), constantValue(b), out))
        {
            return constant(out);
        }
        // Not foldable (e.g. division by zero): keep the node so evaluation reports the error.
    }
    // Identities that keep graphs small.
    switch (op)
    {
    case ExprOp::kSUM:
        if (ca && constantValue(a) == 0) return b;
        if (cb && constantValue(b) == 0) return a;
        break;
    case ExprOp::kSUB:
        if (cb && constantValue(b) == 0) return a;
        if (a == b) return constant(0);
        break;
    case ExprOp::kPROD:
        if (ca && constantValue(a) == 1) return b;
        if (cb && constantValue(b) == 1) return a;
        if (ca || cb)
        {
            // (x·c1)·c2 -> x·(c1·c2): a volume's constant factors gather into one, so that a reshape's inferred
            // extent (below) can divide them out.
            ExprId const x = ca ? b : a;
            int64_t const c = constantValue(ca ? a : b);
            std::optional<ScaledTerm> const inner = scaledTerm(*this, x);
            int64_t folded = 0;
            if (inner.has_value() && applyBinary(ExprOp::kPROD, inner->factor, c, folded))
            {
                return ShapeGraph::op(ExprOp::kPROD, inner->term, constant(folded));
            }
        }
        break;
    case ExprOp::kMAX:
    case ExprOp::kMIN:
        if (a == b) return a;
        break;
    case ExprOp::kEQUAL:
        if (a == b) return constant(1);
        break;
    case ExprOp::kLESS:
        if (a == b) return constant(0);
        break;
    case ExprOp::kFLOOR_DIV:
    case ExprOp::kCEIL_DIV:
    case ExprOp::kTRUNC_DIV:
        if (cb && constantValue(b) == 1) return a;
        if (cb && constantValue(b) > 0)
        {
            // (x·c1) / c2 with c2 dividing c1 is exactly x·(c1 / c2) under every rounding: a reshape's inferred
            // extent, volume / (the other extents), becomes the extent it came from ([b·s, r] -> [-1, s, r] is b).
            std::optional<ScaledTerm> const inner = scaledTerm(*this, a);
            int64_t const divisor = constantValue(b);
            if (inner.has_value() && inner->factor % divisor == 0)
            {
                return ShapeGraph::op(ExprOp::kPROD, inner->term, constant(inner->factor / divisor));
            }
        }
        break;
    default: break;
    }
    ExprNode n;
    n.op = op;
    // Commutative ops get a canonical operand order so equal expressions intern to one node.
    if ((op == ExprOp::kSUM || op == ExprOp::kPROD || op == ExprOp::kMAX || op == ExprOp::kMIN
            || op == ExprOp::kEQUAL)
        && a > b)
    {
        std::swap(a, b);
    }
    n.a = a;
    n.b = b;
    return intern(n);
}

ExprId ShapeGraph::select(ExprId condition, ExprId ifTrue, ExprId ifFalse)
{
    if (isConstant(condition))
    {
        return constantValue(condition) != 0 ? ifTrue : ifFalse;
    }
    if (ifTrue == ifFalse)
    {
        return ifTrue;
    }
    ExprNode n;
    n.op = ExprOp::kSELECT;
    n.a = condition;
    n.b = ifTrue;
    n.c = ifFalse;
    return intern(n);
}

ExprId ShapeGraph::scale(ExprId a, double scale, ExprRounding rounding)
{
    if (isConstant(a))
    {
        int64_t out = 0;
        if (applyScale(constantValue(a), scale, rounding, out))
        {
            return constant(out);
        }
    }
    ExprNode n;
    n.op = ExprOp::kSCALE;
    n.a = a;
    n.scale = scale;
    n.rounding = rounding;
    return intern(n);
}

Status ShapeGraph::require(ExprId condition, std::string message)
{
    if (isConstant(condition))
    {
        if (constantValue(condition) == 0)
        {
            return invalidArgument(message);
        }
        return Status::ok();
    }
    if (!mConstrained.insert(condition).second)
    {
        return Status::ok(); // the first message stays
    }
    mConstraints.push_back(ShapeConstraint{condition, std::move(message)});
    return Status::ok();
}

Status ShapeGraph::evaluate(std::vector<int64_t> const& symbolValues, std::vector<int64_t>& values) const
{
    if (symbolValues.size() != mSymbols.size())
    {
        return internalError("shape evaluation: expected " + std::to_string(mSymbols.size()) + " symbol values, got "
            + std::to_string(symbolValues.size()));
    }
    values.resize(mNodes.size());
    // Build-time evaluations bind FLOAT input values to unknownFloatBits(): what depends on them is unknown.
    std::vector<uint8_t> unknown;
    for (size_t s = 0; s < mSymbols.size(); ++s)
    {
        if (mSymbols[s].kind == SymbolKind::kINPUT_FLOAT_VALUE && symbolValues[s] == unknownFloatBits())
        {
            unknown.assign(mNodes.size(), 0);
            break;
        }
    }
    auto const isUnknown = [&](ExprId id) {
        return !unknown.empty() && id >= 0 && unknown[static_cast<size_t>(id)] != 0;
    };
    for (size_t i = 0; i < mNodes.size(); ++i)
    {
        ExprNode const& n = mNodes[i];
        if (!unknown.empty())
        {
            bool const u = n.op == ExprOp::kSYMBOL
                ? (isFloat(static_cast<ExprId>(i)) && symbolValues[static_cast<size_t>(n.value)] == unknownFloatBits())
                : (n.op != ExprOp::kCONSTANT && (isUnknown(n.a) || isUnknown(n.b) || isUnknown(n.c)));
            if (u)
            {
                unknown[i] = 1;
                values[i] = shape_float::producesFloat(n.op) || n.op == ExprOp::kSYMBOL ? unknownFloatBits() : 0;
                continue;
            }
        }
        switch (n.op)
        {
        case ExprOp::kCONSTANT: values[i] = n.value; break;
        case ExprOp::kSYMBOL: values[i] = symbolValues[static_cast<size_t>(n.value)]; break;
        case ExprOp::kSELECT:
            values[i] = values[static_cast<size_t>(n.a)] != 0 ? values[static_cast<size_t>(n.b)]
                                                              : values[static_cast<size_t>(n.c)];
            break;
        case ExprOp::kSCALE:
            if (!applyScale(values[static_cast<size_t>(n.a)], n.scale, n.rounding, values[i]))
            {
                return invalidArgument("shape computation overflowed: " + toString(static_cast<ExprId>(i)));
            }
            break;
        default:
            if (shape_float::isFloatNodeOp(n.op))
            {
                std::string what;
                if (!shape_float::evaluateFloatNode(n, values, values[i], what))
                {
                    return invalidArgument("shape computation failed: " + toString(n.a) + " = " + what
                        + " cannot become an integer dimension or shape value (in " + toString(static_cast<ExprId>(i))
                        + ")");
                }
                break;
            }
            if (!applyBinary(n.op, values[static_cast<size_t>(n.a)], values[static_cast<size_t>(n.b)], values[i]))
            {
                return invalidArgument("shape computation failed (division by zero or overflow) in "
                    + toString(static_cast<ExprId>(i)) + " with " + std::to_string(values[static_cast<size_t>(n.a)])
                    + " and " + std::to_string(values[static_cast<size_t>(n.b)]));
            }
            break;
        }
    }
    for (auto const& c : mConstraints)
    {
        if (!isUnknown(c.condition) && values[static_cast<size_t>(c.condition)] == 0)
        {
            return invalidArgument(c.message);
        }
    }
    return Status::ok();
}

namespace
{
// Messages print expressions as trees. Shared sub-expressions (the graph is a DAG) make that text exponential in
// the depth (e.g. the reshapes of an exported BERT), so one top-level toString prints at most kMAX_PRINTED_NODES
// nodes and abbreviates the rest as "...".
constexpr int32_t kMAX_PRINTED_NODES = 256;
thread_local int32_t tPrintDepth = 0;
thread_local int32_t tPrintBudget = 0;
} // namespace

std::string ShapeGraph::toString(ExprId id) const
{
    if (tPrintDepth == 0)
    {
        tPrintBudget = kMAX_PRINTED_NODES;
    }
    if (tPrintBudget <= 0)
    {
        return "...";
    }
    --tPrintBudget;
    ++tPrintDepth;
    struct DepthGuard
    {
        ~DepthGuard() { --tPrintDepth; }
    } const depthGuard;
    if (!isValid(id))
    {
        return "<invalid>";
    }
    ExprNode const& n = node(id);
    switch (n.op)
    {
    case ExprOp::kCONSTANT: return std::to_string(n.value);
    case ExprOp::kSYMBOL: return mSymbols[static_cast<size_t>(n.value)].name;
    case ExprOp::kSELECT: return "(" + toString(n.a) + " ? " + toString(n.b) + " : " + toString(n.c) + ")";
    case ExprOp::kSCALE:
    {
        std::ostringstream os;
        os << "round(" << toString(n.a) << " * " << n.scale << ")";
        return os.str();
    }
    case ExprOp::kTO_FLOAT:
    {
        std::ostringstream os;
        double v = 0.0;
        if (isFloatConstant(id, &v))
        {
            os << v;
            return os.str();
        }
        os << "float(" << toString(n.a) << ")";
        if (n.scale != 1.0)
        {
            os << " * " << n.scale;
        }
        return os.str();
    }
    case ExprOp::kF_ROUND: return std::string(shape_float::roundingName(n.rounding)) + "(" + toString(n.a) + ")";
    case ExprOp::kTO_INT:
        return std::string("int_") + shape_float::roundingName(n.rounding) + "(" + toString(n.a) + ")";
    case ExprOp::kF_MAX:
    case ExprOp::kF_MIN:
        return std::string(shape_float::floatOpSymbol(n.op)) + "(" + toString(n.a) + ", " + toString(n.b) + ")";
    case ExprOp::kF_SUM:
    case ExprOp::kF_SUB:
    case ExprOp::kF_PROD:
    case ExprOp::kF_DIV:
        return "(" + toString(n.a) + " " + shape_float::floatOpSymbol(n.op) + " " + toString(n.b) + ")";
    default:
    {
        char const* s = opSymbol(n.op);
        if (n.op == ExprOp::kMAX || n.op == ExprOp::kMIN || n.op == ExprOp::kFLOOR_DIV || n.op == ExprOp::kCEIL_DIV
            || n.op == ExprOp::kFLOOR_MOD)
        {
            return std::string(s) + "(" + toString(n.a) + ", " + toString(n.b) + ")";
        }
        return "(" + toString(n.a) + " " + s + " " + toString(n.b) + ")";
    }
    }
}

StatusOr<ShapeGraph> ShapeGraph::fromParts(
    std::vector<ExprNode> nodes, std::vector<SymbolInfo> symbols, std::vector<ShapeConstraint> constraints)
{
    ShapeGraph g;
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        ExprNode const& n = nodes[i];
        auto const before = [&](ExprId ref) { return ref >= 0 && static_cast<size_t>(ref) < i; };
        uint8_t const opValue = static_cast<uint8_t>(n.op);
        if (opValue > static_cast<uint8_t>(ExprOp::kTO_INT)
            || static_cast<uint8_t>(n.rounding) > static_cast<uint8_t>(ExprRounding::kTRUNC))
        {
            return invalidArgument("shape expression " + std::to_string(i) + " has an unknown operation");
        }
        bool ok = true;
        if (n.op == ExprOp::kSYMBOL)
        {
            ok = n.value >= 0 && static_cast<size_t>(n.value) < symbols.size();
        }
        else if (n.op == ExprOp::kSELECT)
        {
            ok = before(n.a) && before(n.b) && before(n.c);
        }
        else if (n.op == ExprOp::kSCALE)
        {
            ok = before(n.a) && std::isfinite(n.scale);
        }
        else if (isBinary(n.op) || shape_float::isFloatNodeOp(n.op))
        {
            ok = before(n.a) && before(n.b);
        }
        if (!ok)
        {
            return invalidArgument("shape expression " + std::to_string(i) + " has an invalid operand");
        }
    }
    for (auto const& s : symbols)
    {
        if (static_cast<uint8_t>(s.kind) > static_cast<uint8_t>(SymbolKind::kINPUT_FLOAT_VALUE))
        {
            return invalidArgument("shape symbol '" + s.name + "' has an unknown kind");
        }
    }
    for (auto const& c : constraints)
    {
        if (c.condition < 0 || static_cast<size_t>(c.condition) >= nodes.size())
        {
            return invalidArgument("shape constraint '" + c.message + "' refers to a missing expression");
        }
    }
    g.mNodes = std::move(nodes);
    g.mSymbols = std::move(symbols);
    g.mConstraints = std::move(constraints);
    for (size_t i = 0; i < g.mNodes.size(); ++i)
    {
        if (g.mNodes[i].op != ExprOp::kSYMBOL)
        {
            g.index(static_cast<ExprId>(i)); // (a crafted graph may repeat a node: the first one is found)
        }
    }
    for (auto const& c : g.mConstraints)
    {
        g.mConstrained.insert(c.condition);
    }
    return g;
}

DimExpr volumeOf(ShapeGraph& graph, ShapeExpr const& shape)
{
    DimExpr v(&graph, graph.constant(1));
    for (auto const& d : shape)
    {
        v = v * d;
    }
    return v;
}

} // namespace kiln
