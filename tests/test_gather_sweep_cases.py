"""Regression cases found by the differential sweep of the gather / scatter /
index / search / sort family (eager against NumPy, PyTorch and Paddle's rules on
random arguments, empty and 0-d shapes included).

- take: an empty index keeps its shape (a 0 in it used to be read by reshape as
  "copy that dimension" and raised), and 'clip' or 'wrap' with an empty x and an
  empty index gives an empty result instead of refusing the clip range [0, -1].
- unique with an axis: an empty x (or empty slices) no longer dies inside NumPy
  on a reshape with -1.
- searchsorted with a batched (N-d) sequence: empty values or an empty batch no
  longer die inside NumPy on a reshape with -1.
- nanmedian (and quantile / nanquantile, which share the code): keepdim over an
  input with an empty kept axis keeps the axis empty, and keepdim on a 0-d input
  gives a 0-d result (it was [1]).
- nonzero(as_tuple=True) (and where(condition)) of a 0-d tensor: an empty tuple,
  as Paddle returns one tensor per axis.
"""
import numpy as np
import pytest

import eager
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")


def _reference_take(x, index, mode):
    """A direct loop over the flat x, with the mode's rule for each index."""
    flat = x.reshape(-1)
    n = flat.size
    out = np.empty(index.shape, dtype=x.dtype)
    for pos in np.ndindex(index.shape):
        i = int(index[pos])
        if mode == "wrap":
            i %= n
        elif mode == "clip":
            i = min(max(i, 0), n - 1)
        elif i < 0:
            i += n
        out[pos] = flat[i]
    return out


# -- take -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@pytest.mark.parametrize("index_shape", [(4, 0), (0, 3), (0,), (2, 0, 1)])
def test_take_empty_index_keeps_its_shape(mode, index_shape):
    x = eager.to_tensor(np.arange(6.0).reshape(2, 3))
    out = eager.take(x, eager.to_tensor(np.zeros(index_shape, dtype=np.int64)), mode=mode)
    assert out.shape == list(index_shape)
    assert out.dtype == eager.float64


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_take_empty_x_and_empty_index(mode):
    out = eager.take(eager.zeros([2, 0], dtype="float64"), eager.to_tensor(np.zeros((3, 0), dtype=np.int32)), mode=mode)
    assert out.shape == [3, 0]


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_take_values_and_gradient(mode):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4))
    index = np.array([[0, -1, 5], [11, -12, 7]]) if mode == "raise" else np.array([[0, -1, 15], [-13, 24, 7]])
    out = eager.take(eager.to_tensor(x), eager.to_tensor(index), mode=mode)
    np.testing.assert_allclose(out.numpy(), _reference_take(x, index, mode), rtol=0, atol=0)
    xt = eager.to_tensor(x)
    xt.stop_gradient = False
    assert gradcheck(lambda t: eager.take(t, eager.to_tensor(index), mode=mode), (xt,))


def test_take_0d_index_gives_0d_result_with_gradient():
    x = eager.to_tensor(np.arange(6.0).reshape(2, 3))
    x.stop_gradient = False
    out = eager.take(x, eager.to_tensor(4), mode="clip")
    assert out.shape == []
    assert out.item() == 4.0
    assert gradcheck(lambda t: eager.take(t, eager.to_tensor(-2), mode="wrap"), (x,))


# -- unique with an axis on empty input ---------------------------------------------------

def test_a_string_option_given_an_array_is_refused_naming_the_argument():
    # The composites' shared choice check compared an array against the options with
    # `in`, which died in NumPy's truth-value error instead of naming take's 'mode'.
    x, index = eager.to_tensor(np.arange(4.0)), eager.to_tensor(np.array([1]))
    with pytest.raises(ValueError, match=r"take: argument 'mode' expected one of 'raise', 'wrap', 'clip', got array"):
        eager.take(x, index, mode=np.array(["raise", "wrap"]))
    with pytest.raises(ValueError, match=r"argument 'interpolation' expected one of"):
        eager.quantile(x, 0.5, interpolation=np.array(["linear", "lower"]))


def test_unique_axis_on_empty_x():
    out, inverse, counts = eager.unique(eager.zeros([0, 3], dtype="float64"), return_inverse=True,
                                        return_counts=True, axis=0)
    assert out.shape == [0, 3] and inverse.shape == [0] and counts.shape == [0]
    assert eager.unique(eager.zeros([0], dtype="float64"), axis=0).shape == [0]


def test_unique_axis_with_empty_slices_are_all_equal():
    # Two rows of no elements are the same row: one unique row, seen twice.
    out, index, inverse, counts = eager.unique(eager.zeros([2, 0], dtype="float64"), return_index=True,
                                               return_inverse=True, return_counts=True, axis=0)
    assert out.shape == [1, 0]
    assert index.numpy().tolist() == [0]
    assert inverse.numpy().tolist() == [0, 0]
    assert counts.numpy().tolist() == [2]


def test_unique_axis_values_against_a_loop():
    x = np.array([[2, 1, 2, 1], [0, 5, 0, 5], [3, 3, 3, 3]], dtype=np.int64)
    out, inverse, counts = eager.unique(eager.to_tensor(x), return_inverse=True, return_counts=True, axis=1)
    columns = sorted({tuple(x[:, j]) for j in range(x.shape[1])})
    assert out.numpy().T.tolist() == [list(c) for c in columns]
    assert inverse.numpy().tolist() == [columns.index(tuple(x[:, j])) for j in range(x.shape[1])]
    assert counts.numpy().tolist() == [sum(tuple(x[:, j]) == c for j in range(x.shape[1])) for c in columns]


# -- searchsorted with a batched sequence ----------------------------------------------------

@pytest.mark.parametrize("seq_shape, values_shape", [((0, 4), (0, 0)), ((0, 4), (0, 2)), ((3, 2), (3, 0)),
                                                     ((2, 0), (2, 3)), ((2, 0, 3), (2, 0, 5))])
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_batched_empty(seq_shape, values_shape, right):
    seq = np.sort(np.arange(float(np.prod(seq_shape))).reshape(seq_shape), axis=-1)
    values = np.full(values_shape, 1.5)
    out = eager.searchsorted(eager.to_tensor(seq), eager.to_tensor(values), right=right)
    assert out.shape == list(values_shape)
    assert out.dtype == eager.int64
    # Each row searched on its own (an empty row: everything inserts at 0).
    rows = seq.reshape(-1, seq_shape[-1]) if seq.size else np.zeros((int(np.prod(seq_shape[:-1])), seq_shape[-1]))
    want = np.zeros(values_shape, dtype=np.int64).reshape(rows.shape[0], values_shape[-1])
    for r in range(rows.shape[0]):
        for c in range(values_shape[-1]):
            want[r, c] = sum((v <= 1.5) if right else (v < 1.5) for v in rows[r])
    np.testing.assert_array_equal(out.numpy().reshape(want.shape), want)


# -- nanmedian / quantile keepdim shapes -------------------------------------------------------

def test_nanmedian_keepdim_with_an_empty_kept_axis():
    out = eager.nanmedian(eager.zeros([4, 3, 0], dtype="float64"), axis=-3, keepdim=True)
    assert out.shape == [1, 3, 0]
    out = eager.quantile(eager.zeros([4, 3, 0], dtype="float64"), [0.2, 0.5], axis=0, keepdim=True)
    assert out.shape == [2, 1, 3, 0]


@pytest.mark.parametrize("keepdim", [False, True])
def test_nanmedian_of_0d_is_0d(keepdim):
    x = eager.to_tensor(np.float64(2.5))
    x.stop_gradient = False
    out = eager.nanmedian(x, keepdim=keepdim)
    assert out.shape == []
    assert out.item() == 2.5
    assert eager.median(x, keepdim=keepdim).shape == []
    assert eager.quantile(x, 0.3, keepdim=keepdim).shape == []
    assert gradcheck(lambda t: eager.nanmedian(t, keepdim=keepdim), (x,))


def test_nanmedian_keepdim_values_and_gradient():
    rng = np.random.default_rng(5)
    x = rng.permutation(24).reshape(2, 3, 4).astype(np.float64) + 0.25
    x[0, 1, 2] = np.nan
    out = eager.nanmedian(eager.to_tensor(x), axis=1, keepdim=True)
    want = np.empty((2, 1, 4))
    for i in range(2):
        for k in range(4):
            vals = sorted(v for v in x[i, :, k] if not np.isnan(v))
            m = len(vals)
            want[i, 0, k] = vals[m // 2] if m % 2 else (vals[m // 2 - 1] + vals[m // 2]) / 2
    np.testing.assert_allclose(out.numpy(), want, rtol=0, atol=1e-12)
    xt = eager.to_tensor(np.where(np.isnan(x), 100.5, x))
    xt.stop_gradient = False
    assert gradcheck(lambda t: eager.nanmedian(t, axis=1, keepdim=True), (xt,))


# -- nonzero(as_tuple=True) of a 0-d tensor ------------------------------------------------------

@pytest.mark.parametrize("value", [0.0, 2.0])
def test_nonzero_as_tuple_of_0d_is_empty_tuple(value):
    # Paddle returns one [count, 1] tensor per axis; a 0-d tensor has no axis.
    assert eager.nonzero(eager.to_tensor(value), as_tuple=True) == ()
    assert eager.where(eager.to_tensor(value != 0.0)) == ()
    # Without as_tuple the [count, 0] coordinates stay (count 1 for a non-zero value).
    assert eager.nonzero(eager.to_tensor(value)).shape == [int(value != 0.0), 0]


@pytest.mark.parametrize("axis", [None, 0, -2])
def test_median_refuses_empty_reduced_axes_as_nanmedian_does(axis):
    # It gave nan; Paddle refuses an empty x, and nanmedian already refused this case.
    x = eager.zeros([0, 3], dtype="float64")
    for op in (eager.median, eager.nanmedian):
        with pytest.raises(ValueError, match=r"median: the reduced axes \[.*\] of x's shape \[0, 3\] hold no element"):
            op(x, axis=axis)


def test_median_over_a_kept_empty_axis_is_empty():
    assert eager.median(eager.zeros([0, 3]), axis=1).shape == [0]
    assert eager.median(eager.zeros([0, 3]), axis=1, keepdim=True).shape == [0, 1]
