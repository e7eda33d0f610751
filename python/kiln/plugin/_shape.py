"""Symbolic shape expressions of kiln.plugin (tensorrt.plugin's ShapeExpr / ShapeExprs).

A ShapeExpr is a small expression tree. Leaves are constants, input dimensions (an IDimensionExpr handed over by
the builder, or an opaque symbol when no builder is involved) and size-tensor values. Operators build new trees and
fold constants at once. The tree is lowered to IDimensionExpr objects through an IExprBuilder only when the builder
asks the plugin for its output shapes, so calling a shape function never has side effects.
"""

import operator

__all__ = ["ShapeExpr", "ShapeExprs", "cdiv", "max", "min"]

_builtin_max = max
_builtin_min = min


def _floordiv(a, b):
    if b == 0:
        raise ZeroDivisionError("shape expression: division by a constant zero")
    return a // b


def _ceildiv(a, b):
    if b == 0:
        raise ZeroDivisionError("shape expression: division by a constant zero")
    return -(-a // b)


# Binary operations: name -> (IExprBuilder DimensionOperation member, constant evaluator, printed form).
_OPS = {
    "SUM": ("SUM", operator.add, "+"),
    "SUB": ("SUB", operator.sub, "-"),
    "PROD": ("PROD", operator.mul, "*"),
    "FLOOR_DIV": ("FLOOR_DIV", _floordiv, "//"),
    "CEIL_DIV": ("CEIL_DIV", _ceildiv, "cdiv"),
    "MAX": ("MAX", _builtin_max, "max"),
    "MIN": ("MIN", _builtin_min, "min"),
    "EQUAL": ("EQUAL", lambda a, b: int(a == b), "=="),
    "LESS": ("LESS", lambda a, b: int(a < b), "<"),
}


class ShapeExpr:
    """A symbolic integer: one dimension of a tensor, a constant or an expression of those.

    Supports ``+ - * //`` (with ShapeExpr or int operands), ``==`` and ``<`` (which give a 0/1 expression, as
    IExprBuilder's EQUAL and LESS do), and the module functions ``cdiv``, ``max`` and ``min``. Expressions whose
    operands are all known are folded to constants right away.
    """

    __slots__ = ("_kind", "_value", "_args", "_label")

    def __init__(self, value=None):
        """Create a constant expression from an int (or copy another ShapeExpr)."""
        if isinstance(value, ShapeExpr):
            self._kind, self._value, self._args, self._label = value._kind, value._value, value._args, value._label
            return
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"ShapeExpr: expected an int constant, got {type(value).__name__}")
        self._kind = "const"
        self._value = int(value)
        self._args = ()
        self._label = None

    # Construction helpers (internal) -------------------------------------------------------------------------
    @classmethod
    def _leaf(cls, kind, value, label):
        expr = cls.__new__(cls)
        expr._kind = kind
        expr._value = value
        expr._args = ()
        expr._label = label
        return expr

    @classmethod
    def _dim(cls, dim_expr, label):
        """A leaf for an input dimension: `dim_expr` is an IDimensionExpr or None (an opaque symbol)."""
        if dim_expr is not None and _is_constant_dim(dim_expr):
            return cls(int(dim_expr.get_constant_value()))
        return cls._leaf("dim", dim_expr, label)

    @classmethod
    def _size(cls, size_desc):
        """A leaf for the value of a size tensor (see size_tensor())."""
        return cls._leaf("size", size_desc, "size_tensor")

    @classmethod
    def _binary(cls, op, lhs, rhs):
        lhs = _as_expr(lhs, op)
        rhs = _as_expr(rhs, op)
        if lhs.is_constant and rhs.is_constant:
            return cls(_OPS[op][1](lhs.constant_value, rhs.constant_value))
        expr = cls.__new__(cls)
        expr._kind = op
        expr._value = None
        expr._args = (lhs, rhs)
        expr._label = None
        return expr

    # Public properties ---------------------------------------------------------------------------------------
    @property
    def is_constant(self):
        """True when the value is known without running the network."""
        return self._kind == "const"

    @property
    def constant_value(self):
        """The value of a constant expression; ValueError otherwise."""
        if not self.is_constant:
            raise ValueError(f"ShapeExpr {self!r} is not a constant (check is_constant first)")
        return self._value

    @property
    def is_size_tensor(self):
        """True when this expression is the value of a size tensor (a data-dependent dimension)."""
        return self._kind == "size"

    @property
    def is_fake(self):
        """True for placeholder dimensions of a descriptor that has no shape (never in Kiln's own calls)."""
        return False

    # Operators -----------------------------------------------------------------------------------------------
    def __add__(self, other):
        return ShapeExpr._binary("SUM", self, other)

    def __radd__(self, other):
        return ShapeExpr._binary("SUM", other, self)

    def __sub__(self, other):
        return ShapeExpr._binary("SUB", self, other)

    def __rsub__(self, other):
        return ShapeExpr._binary("SUB", other, self)

    def __mul__(self, other):
        return ShapeExpr._binary("PROD", self, other)

    def __rmul__(self, other):
        return ShapeExpr._binary("PROD", other, self)

    def __floordiv__(self, other):
        return ShapeExpr._binary("FLOOR_DIV", self, other)

    def __rfloordiv__(self, other):
        return ShapeExpr._binary("FLOOR_DIV", other, self)

    def __eq__(self, other):
        if not isinstance(other, (ShapeExpr, int)) or isinstance(other, bool):
            return NotImplemented
        return ShapeExpr._binary("EQUAL", self, other)

    def __ne__(self, other):
        if not isinstance(other, (ShapeExpr, int)) or isinstance(other, bool):
            return NotImplemented
        return ShapeExpr._binary("SUB", 1, ShapeExpr._binary("EQUAL", self, other))

    def __lt__(self, other):
        return ShapeExpr._binary("LESS", self, other)

    def __gt__(self, other):
        return ShapeExpr._binary("LESS", other, self)

    __hash__ = None

    def __bool__(self):
        if self.is_constant:
            return bool(self._value)
        raise TypeError(f"the truth value of the symbolic expression {self!r} is unknown until run time")

    def __int__(self):
        return self.constant_value

    def __index__(self):
        return self.constant_value

    def __repr__(self):
        if self._kind == "const":
            return str(self._value)
        if self._kind in ("dim", "size"):
            return self._label or self._kind
        sym = _OPS[self._kind][2]
        lhs, rhs = self._args
        if sym.isalpha():
            return f"{sym}({lhs!r}, {rhs!r})"
        return f"({lhs!r} {sym} {rhs!r})"

    # Evaluation ----------------------------------------------------------------------------------------------
    def _evaluate(self, leaf_value):
        """Evaluate with concrete ints; `leaf_value(expr)` gives the value of each non-constant leaf."""
        if self._kind == "const":
            return self._value
        if self._kind in ("dim", "size"):
            return int(leaf_value(self))
        a = self._args[0]._evaluate(leaf_value)
        b = self._args[1]._evaluate(leaf_value)
        return _OPS[self._kind][1](a, b)

    def _lower(self, lowering):
        """Lower to an IDimensionExpr through a _Lowering (expression builder + size-tensor declarations)."""
        return lowering.lower(self)

    def _leaves(self):
        """Yield every non-constant leaf of the tree."""
        if self._kind in ("dim", "size"):
            yield self
        for arg in self._args:
            yield from arg._leaves()


def _is_constant_dim(dim_expr):
    probe = getattr(dim_expr, "is_constant", None)
    if probe is None:
        return False
    return bool(probe() if callable(probe) else probe)


def _as_expr(value, op="operation"):
    if isinstance(value, ShapeExpr):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return ShapeExpr(value)
    raise TypeError(f"shape expression {_OPS.get(op, (op, None, op))[2]}: unsupported operand of type "
                    f"{type(value).__name__} (use ShapeExpr or int)")


def cdiv(first, second):
    """Ceiling division of two shape expressions (IExprBuilder CEIL_DIV)."""
    return ShapeExpr._binary("CEIL_DIV", first, second)


def max(first, second):  # noqa: A001 - tensorrt.plugin's name
    """The larger of two shape expressions (IExprBuilder MAX)."""
    return ShapeExpr._binary("MAX", first, second)


def min(first, second):  # noqa: A001 - tensorrt.plugin's name
    """The smaller of two shape expressions (IExprBuilder MIN)."""
    return ShapeExpr._binary("MIN", first, second)


class ShapeExprs:
    """The symbolic shape of a tensor: a sequence of ShapeExpr, one per dimension.

    Indexing with an int gives a ShapeExpr, with a slice a ShapeExprs. Elements can be replaced
    (``shape[1] = shape[1] * 2``). ``numel()`` is the product of all dimensions.
    """

    def __init__(self, length_or_exprs=0):
        """Create from a rank (every dimension the constant 0) or from a sequence of ShapeExpr / int."""
        if isinstance(length_or_exprs, int) and not isinstance(length_or_exprs, bool):
            if length_or_exprs < 0:
                raise ValueError(f"ShapeExprs: negative rank {length_or_exprs}")
            self._exprs = [ShapeExpr(0) for _ in range(length_or_exprs)]
        else:
            self._exprs = [_as_expr(e) for e in length_or_exprs]

    def __len__(self):
        return len(self._exprs)

    def __iter__(self):
        return iter(self._exprs)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ShapeExprs(self._exprs[index])
        return self._exprs[index]

    def __setitem__(self, index, value):
        self._exprs[index] = _as_expr(value)

    def __repr__(self):
        return "ShapeExprs(" + ", ".join(repr(e) for e in self._exprs) + ")"

    @property
    def ndim(self):
        """Number of dimensions."""
        return len(self._exprs)

    def numel(self):
        """Number of elements, as a ShapeExpr (the constant 1 for a 0-D shape)."""
        total = ShapeExpr(1)
        for e in self._exprs:
            total = total * e
        return total

    @property
    def is_constant(self):
        """True when every dimension is a constant."""
        return all(e.is_constant for e in self._exprs)

    def to_tuple(self):
        """The dimensions as a tuple of ints (ValueError unless every dimension is constant)."""
        return tuple(e.constant_value for e in self._exprs)

    def _evaluate(self, leaf_value):
        return tuple(e._evaluate(leaf_value) for e in self._exprs)


class _Lowering:
    """Turns ShapeExpr trees into IDimensionExpr objects with one IExprBuilder, during get_output_shapes.

    `size_outputs` maps id(SizeTensorDesc) -> output index; each size tensor is declared once
    (IExprBuilder.declare_size_tensor) and its expression reused.
    """

    def __init__(self, expr_builder, dim_operation, size_outputs, plugin_label):
        self._builder = expr_builder
        self._ops = dim_operation
        self._size_outputs = size_outputs
        self._declared = {}
        self._label = plugin_label

    def lower(self, expr):
        kind = expr._kind
        if kind == "const":
            return self._builder.constant(expr._value)
        if kind == "dim":
            if expr._value is None:
                raise ValueError(f"{self._label}: shape expression {expr!r} has no dimension to lower")
            return expr._value
        if kind == "size":
            return self._declare(expr._value)
        lhs = self.lower(expr._args[0])
        rhs = self.lower(expr._args[1])
        return self._builder.operation(getattr(self._ops, _OPS[kind][0]), lhs, rhs)

    def _declare(self, size_desc):
        key = id(size_desc)
        if key not in self._declared:
            if key not in self._size_outputs:
                raise ValueError(f"{self._label}: an output shape uses a size tensor's expr() but that size tensor "
                                 "is not returned as an output of the shape function")
            opt = self.lower(_as_expr(size_desc._opt))
            upper = self.lower(_as_expr(size_desc._upper_bound))
            self._declared[key] = self._builder.declare_size_tensor(self._size_outputs[key], opt, upper)
        return self._declared[key]
