"""Core types of the kiln module: Dims (and Dims2/DimsHW/Dims3/Dims4), DataType, nptype, volume and Weights."""

import gc
import math
import sys
import weakref

import numpy as np
import pytest

import kiln as trt


# ----------------------------------------------------------------------------------------------------------------
# Module basics
# ----------------------------------------------------------------------------------------------------------------

def test_version_is_tensorrt_api_version():
    parts = trt.__version__.split(".")
    assert parts[:2] == ["10", "16"]
    assert all(p.isdigit() for p in parts)
    assert trt.__kiln_version__.count(".") == 2


# ----------------------------------------------------------------------------------------------------------------
# Dims
# ----------------------------------------------------------------------------------------------------------------

def test_dims_from_sequences_and_sequence_protocol(rng):
    extents = [int(v) for v in rng.integers(-1, 50, size=int(rng.integers(1, trt.Dims.MAX_DIMS + 1)))]
    for source in (tuple(extents), list(extents), np.array(extents, dtype=np.int64), iter(extents)):
        dims = trt.Dims(source)
        assert len(dims) == len(extents)
        assert list(dims) == extents
        assert dims == tuple(extents)
        assert dims == extents
        assert dims == trt.Dims(extents)
        assert not (dims != tuple(extents))
        for i, value in enumerate(extents):
            assert dims[i] == value
            assert dims[i - len(extents)] == value
        assert dims[1:] == tuple(extents[1:])


def test_dims_setitem_str_and_inequality():
    dims = trt.Dims((4, 5, 6))
    dims[1] = 9
    dims[-1] = -1
    assert dims == (4, 9, -1)
    assert dims != (4, 9)
    assert dims != (4, 9, -1, 1)
    assert dims != "abc"
    assert dims != 3
    assert str(dims) == "(4, 9, -1)"
    assert str(trt.Dims([7])) == "(7,)"
    assert len(trt.Dims()) == 0
    assert trt.Dims() == ()


def test_dims_errors():
    with pytest.raises(ValueError, match="at most 8"):
        trt.Dims(range(trt.Dims.MAX_DIMS + 1))
    with pytest.raises(TypeError, match="integers"):
        trt.Dims((1, 2.5))
    with pytest.raises(TypeError):
        trt.Dims("123")
    with pytest.raises(TypeError):
        trt.Dims((1, None))
    dims = trt.Dims((1, 2))
    with pytest.raises(IndexError, match="out of range"):
        dims[2]
    with pytest.raises(IndexError):
        dims[-3]
    with pytest.raises(IndexError):
        dims[5] = 1


def test_fixed_rank_dims():
    assert trt.Dims2(3, 4) == (3, 4)
    assert trt.Dims3(1, 2, 3) == (1, 2, 3)
    assert trt.Dims4(1, 2, 3, 4) == [1, 2, 3, 4]
    assert trt.Dims4((5, 6, 7, 8)) == (5, 6, 7, 8)
    hw = trt.DimsHW(10, 20)
    assert (hw.h, hw.w) == (10, 20)
    hw.h = 11
    assert hw == (11, 20)
    assert isinstance(hw, trt.Dims2) and isinstance(hw, trt.Dims)
    assert isinstance(trt.Dims4(1, 1, 1, 1), trt.Dims)
    with pytest.raises(ValueError, match="Dims3 needs exactly 3"):
        trt.Dims3((1, 2))
    with pytest.raises(ValueError, match="Dims2 needs exactly 2"):
        trt.Dims2([1, 2, 3])


def test_dims_implicit_conversion_in_bound_calls(builder):
    # IOptimizationProfile.set_shape takes Dims: tuples, lists and Dims objects all convert.
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 2), [3, 4], trt.Dims((5, 6)))
    assert profile.get_shape("x") == [(1, 2), (3, 4), (5, 6)]
    with pytest.raises(TypeError):
        profile.set_shape("x", (1, 2), "34", (5, 6))


# ----------------------------------------------------------------------------------------------------------------
# DataType, nptype, volume
# ----------------------------------------------------------------------------------------------------------------

EXPECTED_NUMPY = {
    "FLOAT": np.float32,
    "HALF": np.float16,
    "INT8": np.int8,
    "INT32": np.int32,
    "INT64": np.int64,
    "BOOL": np.bool_,
    "UINT8": np.uint8,
}


@pytest.mark.parametrize("name", sorted(EXPECTED_NUMPY))
def test_nptype_and_itemsize(name):
    dt = getattr(trt.DataType, name)
    assert trt.nptype(dt) is EXPECTED_NUMPY[name]
    assert dt.itemsize == np.dtype(EXPECTED_NUMPY[name]).itemsize


def test_module_aliases():
    assert trt.float32 == trt.DataType.FLOAT
    assert trt.float16 == trt.DataType.HALF
    assert trt.bfloat16 == trt.DataType.BF16
    assert trt.int8 == trt.DataType.INT8
    assert trt.int32 == trt.DataType.INT32
    assert trt.int64 == trt.DataType.INT64
    assert trt.bool == trt.DataType.BOOL
    assert trt.uint8 == trt.DataType.UINT8


def test_itemsize_of_types_without_numpy_equivalent():
    assert trt.DataType.BF16.itemsize == 2
    assert trt.DataType.FP8.itemsize == 1
    assert trt.DataType.E8M0.itemsize == 1
    assert trt.DataType.INT4.itemsize == 0.5
    assert trt.DataType.FP4.itemsize == 0.5


@pytest.mark.parametrize("name", ["FP8", "INT4", "FP4", "E8M0"])
def test_nptype_unsupported_types_raise(name):
    with pytest.raises(TypeError, match=name):
        trt.nptype(getattr(trt.DataType, name))


def test_nptype_bfloat16_depends_on_ml_dtypes():
    try:
        import ml_dtypes
    except ImportError:
        with pytest.raises(TypeError, match="ml_dtypes"):
            trt.nptype(trt.bfloat16)
    else:
        assert trt.nptype(trt.bfloat16) is ml_dtypes.bfloat16


def test_volume(rng):
    shape = tuple(int(v) for v in rng.integers(1, 9, size=4))
    assert trt.volume(shape) == math.prod(shape)
    assert trt.volume(list(shape)) == math.prod(shape)
    assert trt.volume(trt.Dims(shape)) == math.prod(shape)
    assert trt.volume(np.array(shape)) == math.prod(shape)
    assert trt.volume(()) == 0
    assert trt.volume(trt.Dims()) == 0
    big = (2**20, 2**20, 2**20)
    assert trt.volume(big) == 2**60
    with pytest.raises(TypeError):
        trt.volume(5)


# ----------------------------------------------------------------------------------------------------------------
# Weights
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.int32, np.int64, np.uint8, np.bool_])
def test_weights_from_numpy(rng, dtype):
    values = (rng.standard_normal(37) * 50).astype(dtype)
    weights = trt.Weights(values)
    assert weights.size == values.size
    assert weights.nbytes == values.nbytes
    assert trt.nptype(weights.dtype) is np.dtype(dtype).type
    np.testing.assert_array_equal(weights.numpy(), values)
    # The view shares memory with the array: a change is visible through the weights.
    values[3] = values[4]
    assert weights.numpy()[3] == values[4]


def test_weights_keep_their_array_alive(rng):
    values = rng.standard_normal((4, 5)).astype(np.float32)
    expected = values.ravel().copy()
    ref = weakref.ref(values) if hasattr(values, "__weakref__") else None
    weights = trt.Weights(values)
    del values
    gc.collect()
    if ref is not None:
        assert ref() is not None
    np.testing.assert_array_equal(weights.numpy(), expected)
    view = weights.numpy()
    del weights
    gc.collect()
    # The numpy view keeps the weights (and so the array) alive.
    np.testing.assert_array_equal(view, expected)


def test_weights_from_non_contiguous_array_is_copied(rng):
    base = rng.standard_normal((6, 8)).astype(np.float32)
    strided = base[:, ::2]
    weights = trt.Weights(strided)
    del base, strided
    gc.collect()
    assert weights.size == 24
    assert weights.numpy().shape == (24,)


def test_weights_empty_and_raw_pointer(rng):
    empty = trt.Weights(trt.DataType.HALF)
    assert empty.size == 0 and empty.dtype == trt.DataType.HALF
    assert empty.numpy().size == 0
    assert trt.Weights().dtype == trt.DataType.FLOAT
    values = rng.integers(-100, 100, size=9).astype(np.int32)
    raw = trt.Weights(trt.int32, values.ctypes.data, values.size)
    np.testing.assert_array_equal(raw.numpy(), values)
    with pytest.raises(ValueError, match="null pointer"):
        trt.Weights(trt.float32, 0, 4)
    with pytest.raises(ValueError, match="non-negative"):
        trt.Weights(trt.float32, values.ctypes.data, -1)


def test_weights_unsupported_numpy_type_raises():
    with pytest.raises(TypeError, match="Unsupported numpy data type"):
        trt.Weights(np.zeros(3, dtype=np.float64) + 1.5)
    with pytest.raises(TypeError, match="Unsupported numpy data type"):
        trt.Weights(np.array(["a", "b"]))


def test_enums_exist_with_tensorrt_names():
    assert trt.TensorFormat.LINEAR != trt.TensorFormat.CHW32
    assert {m for m in trt.TensorFormat.__members__} >= {"LINEAR", "CHW4", "HWC8", "DHWC", "HWC16"}
    assert trt.TensorLocation.DEVICE != trt.TensorLocation.HOST
    assert int(trt.ErrorCodeTRT.SUCCESS) == 0
    assert int(trt.ErrorCodeTRT.UNSUPPORTED_STATE) == 10
    assert sys.modules["kiln"] is trt


def test_dims_pickle_round_trip():
    import pickle

    for dims in (trt.Dims((3, -1, 7)), trt.Dims4(1, 2, 3, 4), trt.DimsHW(5, 6)):
        copy = pickle.loads(pickle.dumps(dims))
        assert type(copy) is type(dims)
        assert copy == dims
