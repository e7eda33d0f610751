// Symbolic shape expressions. A ShapeGraph is an arena of integer expressions over symbols (the runtime
// dimensions of network inputs and the values of input shape tensors). Layers infer output dimensions as
// expressions once, at network-definition/build time; the engine stores the graph and the runtime evaluates
// it in one linear pass for each new set of input shapes. Constraints (e.g. "broadcast dims agree") are
// expressions that must evaluate to non-zero. A few nodes are float-valued (FLOAT shape tensors, e.g. resize
// scales): their values are doubles, held in the int64 value slots as bit patterns (floatBits/floatValue).
#pragma once

#include "core/status.h"

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace kiln
{

using ExprId = int32_t;
constexpr ExprId kNO_EXPR = -1;

//! Operations. The first nine match nvinfer1::DimensionOperation's values.
enum class ExprOp : uint8_t
{
    kSUM = 0,
    kPROD = 1,
    kMAX = 2,
    kMIN = 3,
    kSUB = 4,
    kEQUAL = 5,      // 1 if a == b else 0
    kLESS = 6,       // 1 if a < b else 0
    kFLOOR_DIV = 7,  // floor(a / b); b == 0 is an evaluation error
    kCEIL_DIV = 8,   // ceil(a / b)
    kTRUNC_DIV = 9,  // a / b rounded toward zero (C++ integer division)
    kFLOOR_MOD = 10, // a - b * floor(a / b)
    kTRUNC_MOD = 11, // C++ a % b
    kSELECT = 12,    // a != 0 ? b : c
    kSCALE = 13,     // round(a * scale) with the node's rounding mode
    kCONSTANT = 14,
    kSYMBOL = 15,
    // Float-valued nodes. Unary ones repeat their operand in b, so that generic traversals may read a and b.
    kTO_FLOAT = 16, // double(a) * scale, a an integer expression; float constants are kTO_FLOAT of the constant 1
    kF_SUM = 17,
    kF_SUB = 18,
    kF_PROD = 19,
    kF_DIV = 20, // IEEE division: x / 0 gives an infinity or NaN, reported when converted to an integer
    kF_MAX = 21,
    kF_MIN = 22,
    kF_ROUND = 23, // a rounded to an integral double with the node's rounding
    kTO_INT = 24,  // a rounded with the node's rounding to int64; NaN, an infinity or an out-of-range value fails
};

//! Rounding of kSCALE nodes.
enum class ExprRounding : uint8_t
{
    kFLOOR = 0,
    kCEIL = 1,
    kROUND_HALF_EVEN = 2,
    kROUND_HALF_UP = 3,
    kROUND_HALF_DOWN = 4,
    kTRUNC = 5,
};

struct ExprNode
{
    ExprOp op{ExprOp::kCONSTANT};
    ExprRounding rounding{ExprRounding::kFLOOR};
    ExprId a{kNO_EXPR};
    ExprId b{kNO_EXPR};
    ExprId c{kNO_EXPR};
    int64_t value{0}; // constant value, or symbol index for kSYMBOL
    double scale{0.0};
};

//! What a symbol stands for. The runtime binds each symbol before evaluation.
enum class SymbolKind : uint8_t
{
    kINPUT_DIM = 0,      // a runtime (-1) dimension of a network input
    kINPUT_VALUE = 1,    // an element of an input shape tensor (host values)
    kDATA_DEPENDENT = 2, // known only after a layer executes (e.g. a plugin size tensor)
    kINPUT_FLOAT_VALUE = 3, // an element of a FLOAT input shape tensor (host values; bound as floatBits)
};

//! Float node values travel in the int64 value slots as the bit pattern of a double.
int64_t floatBits(double value);
double floatValue(int64_t bits);
//! Bit pattern a build-time evaluation binds to kINPUT_FLOAT_VALUE symbols: "not known before the run".
//! Every expression depending on it evaluates to 0 (float ones to this pattern) and its errors and
//! constraints are skipped.
int64_t unknownFloatBits();

struct SymbolInfo
{
    SymbolKind kind{SymbolKind::kINPUT_DIM};
    std::string name; // dimension name, or "<tensor>[i]" / "<tensor>.value[i]"
    //! kDATA_DEPENDENT only: upper bound and auto-tuning value (IExprBuilder::declareSizeTensor), expressions
    //! over the other symbols; the runtime sizes buffers with the upper bound until the real value is known.
    ExprId upper{-1};
    ExprId opt{-1};
};

struct ShapeConstraint
{
    ExprId condition{kNO_EXPR}; // must evaluate to non-zero
    std::string message;        // names the layer and tensors involved
};

class ShapeGraph
{
public:
    ExprId constant(int64_t value);
    ExprId symbol(SymbolKind kind, std::string name);
    //! Set SymbolInfo::upper/opt of symbol index `symbol` (kDATA_DEPENDENT symbols; expressions of this graph).
    void setSymbolBounds(int32_t symbol, ExprId upper, ExprId opt);
    //! Binary operation, folded when both sides are constant and simplified for identities.
    ExprId op(ExprOp op, ExprId a, ExprId b);
    ExprId select(ExprId condition, ExprId ifTrue, ExprId ifFalse);
    ExprId scale(ExprId a, double scale, ExprRounding rounding);

    //! Float-valued nodes (see ExprOp::kTO_FLOAT and after). Operands of floatOp/floatRound/toInt must be float
    //! expressions, the operand of toFloat an integer one; each folds constants.
    ExprId floatConstant(double value);
    ExprId toFloat(ExprId a);
    //! op is one of kF_SUM .. kF_MIN.
    ExprId floatOp(ExprOp op, ExprId a, ExprId b);
    ExprId floatRound(ExprId a, ExprRounding rounding);
    ExprId toInt(ExprId a, ExprRounding rounding);
    //! True when the expression's value is a double (float node or kINPUT_FLOAT_VALUE symbol).
    bool isFloat(ExprId id) const;
    //! True when `id` is a float constant; its value goes to `value`.
    bool isFloatConstant(ExprId id, double* value = nullptr) const;
    //! Per expression: true when it depends on a symbol of `kind`.
    std::vector<bool> dependsOnKind(SymbolKind kind) const;

    bool isConstant(ExprId id) const { return node(id).op == ExprOp::kCONSTANT; }
    int64_t constantValue(ExprId id) const { return node(id).value; }
    //! Constant value, or -1 when the expression is not a build-time constant (TensorRT's "runtime dimension").
    int64_t valueOrUnknown(ExprId id) const { return isConstant(id) ? node(id).value : -1; }
    bool isValid(ExprId id) const { return id >= 0 && id < static_cast<ExprId>(mNodes.size()); }

    ExprNode const& node(ExprId id) const { return mNodes[static_cast<size_t>(id)]; }
    std::vector<ExprNode> const& nodes() const { return mNodes; }
    std::vector<SymbolInfo> const& symbols() const { return mSymbols; }
    std::vector<ShapeConstraint> const& constraints() const { return mConstraints; }

    //! Record a runtime constraint. Fails immediately when `condition` folds to the constant 0.
    Status require(ExprId condition, std::string message);

    //! Evaluate every node given one value per symbol. `values` receives one value per node.
    //! Fails on division by zero, overflow, a float that cannot become an integer (NaN, infinity, out of range),
    //! or a violated constraint (with its message). kINPUT_FLOAT_VALUE symbols bound to unknownFloatBits() make
    //! what depends on them unknown (see unknownFloatBits).
    Status evaluate(std::vector<int64_t> const& symbolValues, std::vector<int64_t>& values) const;

    //! Readable form, e.g. "((batch * 3) + 1)".
    std::string toString(ExprId id) const;

    //! Rebuild from serialized parts, validating every reference (used by the engine reader).
    static StatusOr<ShapeGraph> fromParts(std::vector<ExprNode> nodes, std::vector<SymbolInfo> symbols,
        std::vector<ShapeConstraint> constraints);

private:
    ExprId add(ExprNode const& n);
    //! The existing node equal to `n` (same op, rounding, operands, value and scale bits), or a new one.
    ExprId intern(ExprNode const& n);
    //! Index node `id` (already in mNodes) for interning; grows the table as needed.
    void index(ExprId id);
    static uint64_t hashOf(ExprNode const& n);
    static bool sameNode(ExprNode const& x, ExprNode const& y);

    std::vector<ExprNode> mNodes;
    std::vector<SymbolInfo> mSymbols;
    std::vector<ShapeConstraint> mConstraints;
    //! Structural interning: an open-addressing table (linear probing, power-of-two size, at most half full) of
    //! node ids keyed by the nodes' contents; kNO_EXPR marks an empty slot. Symbols are not interned.
    std::vector<ExprId> mInternSlots;
    size_t mInterned{0};
    std::unordered_set<ExprId> mConstrained; // conditions of mConstraints
};

//! Value-like handle used when writing shape inference: `(in - k + pre + post).floorDiv(stride) + 1`.
class DimExpr
{
public:
    DimExpr() = default;
    DimExpr(ShapeGraph* graph, ExprId id)
        : mGraph(graph)
        , mId(id)
    {
    }

    ExprId id() const { return mId; }
    ShapeGraph* graph() const { return mGraph; }
    bool isConstant() const { return mGraph->isConstant(mId); }
    int64_t constant() const { return mGraph->constantValue(mId); }
    //! Constant value or -1.
    int64_t known() const { return mGraph->valueOrUnknown(mId); }
    bool is(int64_t v) const { return isConstant() && constant() == v; }

    DimExpr operator+(DimExpr o) const { return bin(ExprOp::kSUM, o); }
    DimExpr operator-(DimExpr o) const { return bin(ExprOp::kSUB, o); }
    DimExpr operator*(DimExpr o) const { return bin(ExprOp::kPROD, o); }
    DimExpr operator+(int64_t v) const { return bin(ExprOp::kSUM, c(v)); }
    DimExpr operator-(int64_t v) const { return bin(ExprOp::kSUB, c(v)); }
    DimExpr operator*(int64_t v) const { return bin(ExprOp::kPROD, c(v)); }
    DimExpr floorDiv(DimExpr o) const { return bin(ExprOp::kFLOOR_DIV, o); }
    DimExpr floorDiv(int64_t v) const { return bin(ExprOp::kFLOOR_DIV, c(v)); }
    DimExpr ceilDiv(DimExpr o) const { return bin(ExprOp::kCEIL_DIV, o); }
    DimExpr ceilDiv(int64_t v) const { return bin(ExprOp::kCEIL_DIV, c(v)); }
    DimExpr truncDiv(DimExpr o) const { return bin(ExprOp::kTRUNC_DIV, o); }
    DimExpr floorMod(DimExpr o) const { return bin(ExprOp::kFLOOR_MOD, o); }
    DimExpr max(DimExpr o) const { return bin(ExprOp::kMAX, o); }
    DimExpr min(DimExpr o) const { return bin(ExprOp::kMIN, o); }
    DimExpr max(int64_t v) const { return bin(ExprOp::kMAX, c(v)); }
    DimExpr min(int64_t v) const { return bin(ExprOp::kMIN, c(v)); }
    DimExpr eq(DimExpr o) const { return bin(ExprOp::kEQUAL, o); }
    DimExpr eq(int64_t v) const { return bin(ExprOp::kEQUAL, c(v)); }
    DimExpr lt(DimExpr o) const { return bin(ExprOp::kLESS, o); }
    DimExpr lt(int64_t v) const { return bin(ExprOp::kLESS, c(v)); }
    DimExpr le(DimExpr o) const { return bin(ExprOp::kLESS, o + 1); }
    DimExpr logicalNot() const { return eq(0); }
    DimExpr logicalOr(DimExpr o) const { return (*this).max(o).max(0).min(1); }
    DimExpr logicalAnd(DimExpr o) const { return (*this * o).max(0).min(1); }
    //! this != 0 ? a : b
    DimExpr select(DimExpr a, DimExpr b) const { return DimExpr(mGraph, mGraph->select(mId, a.mId, b.mId)); }
    DimExpr scaled(double s, ExprRounding r) const { return DimExpr(mGraph, mGraph->scale(mId, s, r)); }

    // Float-valued expressions (FLOAT shape tensors).
    bool isFloat() const { return mGraph->isFloat(mId); }
    DimExpr toFloat() const { return DimExpr(mGraph, mGraph->toFloat(mId)); }
    DimExpr toInt(ExprRounding r) const { return DimExpr(mGraph, mGraph->toInt(mId, r)); }
    DimExpr floatOp(ExprOp op, DimExpr o) const { return DimExpr(mGraph, mGraph->floatOp(op, mId, o.mId)); }
    DimExpr floatRound(ExprRounding r) const { return DimExpr(mGraph, mGraph->floatRound(mId, r)); }

private:
    DimExpr c(int64_t v) const { return DimExpr(mGraph, mGraph->constant(v)); }
    DimExpr bin(ExprOp op, DimExpr o) const { return DimExpr(mGraph, mGraph->op(op, mId, o.mId)); }

    ShapeGraph* mGraph{nullptr};
    ExprId mId{kNO_EXPR};
};

using ShapeExpr = std::vector<DimExpr>;

//! Product of the dimensions (1 for rank 0).
DimExpr volumeOf(ShapeGraph& graph, ShapeExpr const& shape);

} // namespace kiln
