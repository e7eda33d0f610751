"""kiln.plugin building blocks without an engine: shape expressions, descriptors, Tensor views, autotune strings."""

import operator

import numpy as np
import pytest

import kiln as trt
import kiln.plugin as trtp
from kiln.plugin._autotune import FormatTable
from kiln.plugin._shape import ShapeExpr, _Lowering

RNG = np.random.default_rng(1234)


def _sym(name):
    return ShapeExpr._dim(None, name)


def _ceil_div(a, b):
    return -(-a // b)


BINARY = [
    (operator.add, operator.add),
    (operator.sub, operator.sub),
    (operator.mul, operator.mul),
    (operator.floordiv, operator.floordiv),
    (trtp.cdiv, _ceil_div),
    (trtp.max, max),
    (trtp.min, min),
    (operator.eq, lambda a, b: int(a == b)),
    (operator.lt, lambda a, b: int(a < b)),
]


@pytest.mark.parametrize("sym_op,ref_op", BINARY)
def test_symbolic_ops_evaluate_like_ints(sym_op, ref_op):
    for _ in range(20):
        a_val, b_val = (int(v) for v in RNG.integers(1, 50, size=2))
        a, b = _sym("a"), _sym("b")
        expr = sym_op(a, b)
        assert not expr.is_constant
        got = expr._evaluate(lambda leaf: {"a": a_val, "b": b_val}[leaf._label])
        assert got == ref_op(a_val, b_val)
        # Mixed int operands work on both sides where Python allows it.
        mixed = sym_op(a, b_val)
        assert mixed._evaluate(lambda leaf: a_val) == ref_op(a_val, b_val)


@pytest.mark.parametrize("sym_op,ref_op", BINARY)
def test_constants_fold(sym_op, ref_op):
    a_val, b_val = (int(v) for v in RNG.integers(1, 50, size=2))
    expr = sym_op(ShapeExpr(a_val), ShapeExpr(b_val))
    assert expr.is_constant
    assert expr.constant_value == ref_op(a_val, b_val)


def test_reverse_operators_and_repr():
    a = _sym("a")
    assert (3 + a)._evaluate(lambda _: 4) == 7
    assert (10 - a)._evaluate(lambda _: 4) == 6
    assert (5 * a)._evaluate(lambda _: 4) == 20
    assert (9 // a)._evaluate(lambda _: 4) == 2
    assert "a" in repr(a * 2)


def test_non_constant_errors():
    a = _sym("a")
    with pytest.raises(ValueError, match="not a constant"):
        _ = a.constant_value
    with pytest.raises(TypeError, match="truth value"):
        bool(a == 3)
    with pytest.raises(TypeError, match="unsupported operand"):
        _ = a + 1.5
    with pytest.raises(TypeError):
        ShapeExpr(2.0)
    with pytest.raises(ZeroDivisionError):
        _ = ShapeExpr(4) // 0


def test_shape_exprs_numel_and_indexing():
    dims = [int(v) for v in RNG.integers(1, 9, size=4)]
    shape = trtp.ShapeExprs([_sym(f"d{i}") for i in range(4)])
    env = {f"d{i}": v for i, v in enumerate(dims)}
    assert len(shape) == 4 and shape.ndim == 4
    assert shape.numel()._evaluate(lambda leaf: env[leaf._label]) == int(np.prod(dims))
    sub = shape[1:3]
    assert isinstance(sub, trtp.ShapeExprs) and len(sub) == 2
    shape[0] = shape[0] * 2
    assert shape._evaluate(lambda leaf: env[leaf._label])[0] == 2 * dims[0]
    const = trtp.ShapeExprs([3, 4])
    assert const.is_constant and const.to_tuple() == (3, 4)
    assert trtp.ShapeExprs([]).numel().constant_value == 1


class _FakeDim:
    """Stands in for IDimensionExpr: holds an int or a symbolic label."""

    def __init__(self, value, label=None):
        self.value = value
        self.label = label

    def is_constant(self):
        return self.label is None

    def get_constant_value(self):
        return self.value


class _FakeBuilder:
    """Records what a lowering asks of IExprBuilder and evaluates it with concrete leaf values."""

    def __init__(self, env):
        self.env = env
        self.declared = []

    def constant(self, value):
        return _FakeDim(value)

    def operation(self, op, a, b):
        ref = {"SUM": operator.add, "SUB": operator.sub, "PROD": operator.mul, "FLOOR_DIV": operator.floordiv,
               "CEIL_DIV": _ceil_div, "MAX": max, "MIN": min, "EQUAL": lambda x, y: int(x == y),
               "LESS": lambda x, y: int(x < y)}[op]
        return _FakeDim(ref(self._val(a), self._val(b)))

    def declare_size_tensor(self, index, opt, upper):
        self.declared.append((index, self._val(opt), self._val(upper)))
        return _FakeDim(-1, f"size{index}")

    def _val(self, d):
        return self.env[d.label] if d.label is not None and d.label in self.env else d.value


class _Ops:
    SUM, SUB, PROD, FLOOR_DIV, CEIL_DIV, MAX, MIN, EQUAL, LESS = (
        "SUM", "SUB", "PROD", "FLOOR_DIV", "CEIL_DIV", "MAX", "MIN", "EQUAL", "LESS")


def test_lowering_through_an_expression_builder():
    n, c = (int(v) for v in RNG.integers(2, 20, size=2))
    builder = _FakeBuilder({"n": n, "c": c})
    dn = ShapeExpr._dim(_FakeDim(0, "n"), "n")
    dc = ShapeExpr._dim(_FakeDim(0, "c"), "c")
    st = trtp.size_tensor(trtp.cdiv(dn * dc, 2), dn * dc)
    expr = trtp.max(dn + 3, dc * 2) - st.expr()
    lowering = _Lowering(builder, _Ops, {id(st): 1}, "plugin 'x::y'")
    lowered = lowering.lower(dn * dc + 3)
    assert lowered.value == n * c + 3
    lowering.lower(expr)
    lowering.lower(st.expr())  # declared once only
    assert builder.declared == [(1, _ceil_div(n * c, 2), n * c)]
    # A constant IDimensionExpr becomes a constant leaf.
    assert ShapeExpr._dim(_FakeDim(7), "k").constant_value == 7


def test_lowering_rejects_size_tensor_not_returned():
    st = trtp.size_tensor(2, 10)
    lowering = _Lowering(_FakeBuilder({}), _Ops, {}, "plugin 'x::y'")
    with pytest.raises(ValueError, match="size tensor"):
        lowering.lower(st.expr() * 2)


def test_tensor_desc_like_aliased_and_from_shape_expr():
    desc = trtp.TensorDesc((4, 5), dtype=trt.float32)
    assert desc.has_shape and desc.shape_expr.to_tuple() == (4, 5)
    assert desc.format == trt.TensorFormat.LINEAR
    like = desc.like()
    assert like.shape_expr.to_tuple() == (4, 5) and like.dtype == trt.float32 and not like.is_aliased
    alias = desc.aliased()
    assert alias.is_aliased and alias.get_aliased() is desc
    with pytest.raises(ValueError, match="immutable"):
        alias.dtype = trt.float16
    made = trtp.from_shape_expr(desc.shape_expr, dtype=trt.int32)
    assert made.dtype == trt.int32 and made.shape_expr.to_tuple() == (4, 5)
    assert not trtp.TensorDesc().has_shape
    with pytest.raises(ValueError, match="no shape"):
        _ = trtp.TensorDesc().shape_expr


def test_size_tensor_desc():
    st = trtp.size_tensor(3, 12)
    assert st.is_size_tensor and st.dtype == trt.int32 and len(st.shape_expr) == 0
    assert st.expr().is_size_tensor and st.expr() is st.expr()
    with pytest.raises(ValueError):
        st.like()
    with pytest.raises(ValueError):
        st.aliased()


@pytest.mark.parametrize("dtype,np_dtype", [(trt.float32, np.float32), (trt.float16, np.float16),
                                            (trt.int32, np.int32), (trt.int8, np.int8), (trt.int64, np.int64)])
def test_tensor_array_interface_is_zero_copy(dtype, np_dtype):
    shape = tuple(int(v) for v in RNG.integers(1, 6, size=3))
    buf = (RNG.standard_normal(shape) * 10).astype(np_dtype)
    t = trtp.Tensor._create(buf.ctypes.data, shape, dtype, trt.TensorFormat.LINEAR, True)
    view = np.asarray(t)
    assert view.shape == shape and view.dtype == np_dtype
    np.testing.assert_array_equal(view, buf)
    view[...] = 7
    assert np.all(buf == 7)  # same memory
    assert t.numel() == buf.size and t.strides == tuple(s // buf.itemsize for s in buf.strides)
    assert t.shape.numel() == buf.size and t.data_ptr == buf.ctypes.data
    assert not hasattr(t, "__cuda_array_interface__")


def test_tensor_aliased_and_data_dependent():
    buf = RNG.standard_normal(24).astype(np.float32)
    t = trtp.Tensor._create(buf.ctypes.data, (4, 6), trt.float32, trt.TensorFormat.LINEAR, True)
    r = t.aliased((2, 12))
    assert r.shape == (2, 12) and r.data_ptr == t.data_ptr and r.get_aliased() is t and r.is_aliased
    np.testing.assert_array_equal(np.asarray(r).ravel(), buf)
    with pytest.raises(ValueError, match="elements"):
        t.aliased((5, 5))
    dds = trtp.Tensor._create(buf.ctypes.data, (2, 12), trt.float32, trt.TensorFormat.LINEAR, True,
                              data_dependent=True)
    assert dds.is_data_dependent
    with pytest.raises(ValueError, match="data-dependent"):
        dds.numel()
    assert dds.aliased((2, 5)).shape == (2, 5)
    unknown = trtp.Tensor._create(buf.ctypes.data, (-1, 2), trt.float32, trt.TensorFormat.LINEAR, True,
                                  data_dependent=True)
    with pytest.raises(ValueError, match="data-dependent"):
        np.asarray(unknown)
    assert np.asarray(unknown.aliased((7, 2))).shape == (7, 2)
    with pytest.raises(ValueError, match="allocated"):
        dds.aliased((5, 5))


def test_tensor_on_device_offers_cuda_interface_only():
    t = trtp.Tensor._create(0x1000, (2, 2), trt.float32, trt.TensorFormat.LINEAR, False, stream=5)
    iface = t.__cuda_array_interface__
    assert iface["shape"] == (2, 2) and iface["typestr"] == "<f4" and iface["data"] == (0x1000, False)
    assert iface["stream"] == 5
    assert not hasattr(t, "__array_interface__")


def test_autotune_combinations_expand():
    combo = trtp.AutoTuneCombination("FP32|FP16, FP32|FP16")
    table = FormatTable([combo], 2)
    lin = trt.TensorFormat.LINEAR
    assert sorted(table.rows, key=str) == sorted([((trt.float32, lin), (trt.float32, lin)),
                                                  ((trt.float16, lin), (trt.float16, lin))], key=str)
    indep = trtp.AutoTuneCombination("FP32*FP16, FP32|FP16, FP32|FP16")
    rows = FormatTable([indep], 3).rows
    assert len(rows) == 4
    assert ((trt.float16, lin), (trt.float32, lin), (trt.float32, lin)) in rows
    assert table.supports(0, [(trt.float16, lin)])
    assert not table.supports(1, [(trt.float16, lin), (trt.float32, lin)])
    assert not table.supports(0, [(trt.int8, lin)])


def test_autotune_pos_layouts_and_tactics():
    combo = trtp.AutoTuneCombination().pos([0, 1], "FP32", "LINEAR*HWC").tactics([3, 1])
    table = FormatTable([combo], 2)
    assert len(table.rows) == 4
    lin, hwc = trt.TensorFormat.LINEAR, trt.TensorFormat.HWC
    assert table.tactics([(trt.float32, hwc), (trt.float32, lin)]) == [3, 1]
    assert table.tactics([(trt.float16, lin), (trt.float32, lin)]) == []
    default = FormatTable.from_defaults([trt.int32, trt.float32])
    assert default.rows == [((trt.int32, lin), (trt.float32, lin))]


def test_autotune_errors():
    with pytest.raises(ValueError, match="entries"):
        FormatTable([trtp.AutoTuneCombination("FP32, FP32")], 3)
    # A single entry applies to every position.
    lin = trt.TensorFormat.LINEAR
    assert FormatTable([trtp.AutoTuneCombination("FP16", "LINEAR")], 3).rows == [((trt.float16, lin),) * 3]
    with pytest.raises(ValueError, match="unknown data type"):
        FormatTable([trtp.AutoTuneCombination("FP33, FP32")], 2)
    with pytest.raises(ValueError, match="same number"):
        FormatTable([trtp.AutoTuneCombination("FP32|FP16, FP32|FP16|INT8")], 2)
    with pytest.raises(ValueError, match="mixes"):
        trtp.AutoTuneCombination("FP32|FP16*INT8, FP32")
    with pytest.raises(ValueError, match="reserved"):
        trtp.AutoTuneCombination("FP32, FP32", tactics=[0])
    with pytest.raises(ValueError, match="duplicate"):
        trtp.AutoTuneCombination("FP32, FP32").tactics([2, 2])
    with pytest.raises(ValueError, match="no io_types"):
        FormatTable([trtp.AutoTuneCombination().pos(0, "FP32")], 2)
    with pytest.raises(ValueError, match="unknown layout"):
        FormatTable([trtp.AutoTuneCombination("FP32", "NOPE")], 1)
