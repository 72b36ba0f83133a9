"""Cases found by re-running the dygraph parts of PaddlePaddle's own manipulation and
indexing unit tests (test/legacy_test, second pass: concat, stack, split, unbind,
reshape, squeeze, unsqueeze, flatten, expand, tile, roll, flip, rot90, moveaxis,
transpose, ...) with ``import eager as paddle`` and checking each failure against real
Paddle 2.6.2. Each test failed before its fix:

- squeeze with an axis listed twice ([1, 1] or [1, -2] on a [5, 1, 10] x) was refused;
  Paddle 2.6.2 squeezes that axis once;
- unsqueeze with ``axis=[]`` was refused; Paddle 2.6.2 returns x's shape unchanged;
- flatten of a 0-d x took any start_axis / stop_axis; Paddle 2.6.2 takes only 0 or -1
  there (ValueError otherwise);
- flip with two spellings of one axis ([0, -3] on a 3-d x) was refused; Paddle 2.6.2
  reverses that axis once (the same value twice, [0, 0], stays an error in both);
- where with x and y of two float dtypes (float32 and float64) was refused; Paddle 2.6.2
  promotes them as add does (float64 result, each gradient in its input's dtype);
- masked_fill with a mask larger than x ([3] x, [4, 3] mask) was refused; Paddle 2.6.2
  computes where(~mask, x, value), so x broadcasts and the result is [4, 3] (x's
  gradient summed back to [3]); masked_fill_ still cannot grow x;
- sort, argsort, topk, unique, argmax, kthvalue, ... of a bool (or complex) x raised a
  plain ValueError; Paddle 2.6.2 has no kernel for them and raises RuntimeError (its
  "kernel ... is not registered"): now UnsupportedInputDtypeError, which is both;
- as_complex of an integer x, as_real of a real x, shard_index of a float input and
  tril_indices / triu_indices with a float dtype raised a plain TypeError; Paddle 2.6.2
  raises RuntimeError (no kernel): now UnsupportedDtypeError, a TypeError and a
  RuntimeError;
- take with an index outside [-n, n) (mode='raise') or of an empty x raised a plain
  IndexError; Paddle 2.6.2 raises ValueError (its index_select / clip checks): now
  ElementIndexError, both;
- index_put with an all-False bool mask and a value that does not broadcast to the empty
  selection (Paddle's own test: value [2, 1], mask [16, 21]) died inside NumPy, and its
  gradient too; Paddle 2.6.2 writes nothing (x's gradient ones, value's zeros). A mask
  whose True count does not broadcast with the other index tensors raised NumPy's
  IndexError; now the ValueError Paddle raises, naming the argument;
- diag_embed (and nn.functional.diag_embed) refused a NumPy array or a list; Paddle 2.6.2
  converts it with assign (float64 data becomes float32);
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


def _leaf(values, dtype=np.float32):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


@pytest.mark.parametrize("axis", [[1, 1], [1, -2], (1, 1, -2)])
def test_squeeze_repeated_axis_squeezes_it_once(axis):
    data = np.random.default_rng(0).random((5, 1, 10)).astype(np.float32)
    x = _leaf(data)
    out = eager.squeeze(x, axis)
    np.testing.assert_array_equal(out.numpy(), data.reshape(5, 10))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((5, 1, 10)))


def test_squeeze_inplace_repeated_axis():
    x = eager.zeros([2, 1, 3])
    assert x.squeeze_([1, -2]).shape == [2, 3]


@pytest.mark.parametrize("axis", [[], ()])
def test_unsqueeze_empty_axis_list_keeps_the_shape(axis):
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = _leaf(data)
    out = eager.unsqueeze(x, axis)
    np.testing.assert_array_equal(out.numpy(), data)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3)))


@pytest.mark.parametrize("start, stop", [(0, 0), (-1, -1), (0, -1), (-1, 0)])
def test_flatten_0d_takes_axes_0_and_minus_1(start, stop):
    out = eager.flatten(eager.to_tensor(2.5), start, stop)
    assert out.shape == [1]
    np.testing.assert_array_equal(out.numpy(), [2.5])


@pytest.mark.parametrize("start, stop, bad", [(0, 1, "stop_axis"), (1, 0, "start_axis"), (-2, 0, "start_axis")])
def test_flatten_0d_refuses_other_axes(start, stop, bad):
    x = eager.to_tensor(2.5)
    with pytest.raises(ValueError, match=rf"flatten: argument '{bad}' expected 0 or -1 for a 0-d x"):
        eager.flatten(x, start, stop)
    with pytest.raises(ValueError, match=rf"flatten_: argument '{bad}'"):
        eager.flatten_(x, start, stop)
    assert x.shape == []


def test_flip_two_spellings_of_one_axis_reverse_it_once():
    data = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    x = _leaf(data, np.float64)
    out = eager.flip(x, [0, -3])
    np.testing.assert_array_equal(out.numpy(), data[::-1])
    out.backward(eager.to_tensor(data))
    np.testing.assert_array_equal(x.grad.numpy(), data[::-1])
    with pytest.raises(ValueError, match="flip: argument 'axis' lists axis 0 more than once"):
        eager.flip(x, [0, 0])


def test_where_promotes_two_float_dtypes():
    data = np.arange(12.0).reshape(4, 3)
    cond = data > 5
    x = _leaf(data, np.float32)
    y = _leaf(-data, np.float64)
    out = eager.where(eager.to_tensor(cond), x, y)
    assert out.dtype == eager.float64
    np.testing.assert_array_equal(out.numpy(), np.where(cond, data, -data))
    out.sum().backward()
    assert x.grad.dtype == eager.float32 and y.grad.dtype == eager.float64
    np.testing.assert_array_equal(x.grad.numpy(), cond.astype(np.float32))
    np.testing.assert_array_equal(y.grad.numpy(), (~cond).astype(np.float64))


def test_where_int_pair_still_refused():
    cond = eager.to_tensor([True, False])
    with pytest.raises(ValueError, match="where"):
        eager.where(cond, eager.to_tensor([1, 2], dtype="int32"), eager.to_tensor([3, 4], dtype="int64"))


def test_masked_fill_broadcasts_x_to_the_mask():
    data = np.arange(12.0).reshape(4, 3)
    mask = data > 5
    x = _leaf(data[0], np.float64)
    out = eager.masked_fill(x, eager.to_tensor(mask), 2.0)
    expected = np.where(mask, 2.0, np.broadcast_to(data[0], (4, 3)))
    np.testing.assert_array_equal(out.numpy(), expected)
    grad = np.arange(12.0).reshape(4, 3)
    out.backward(eager.to_tensor(grad))
    np.testing.assert_array_equal(x.grad.numpy(), np.where(mask, 0.0, grad).sum(axis=0))


def test_masked_fill_broadcast_double_grad_and_value_grad():
    data = np.arange(6.0).reshape(2, 3)
    mask = eager.to_tensor(data > 1)  # [[F, F, T], [T, T, T]]
    x = _leaf([1.0, 2.0, 3.0], np.float64)
    value = _leaf(7.0, np.float64)
    out = eager.masked_fill(x, mask, value)
    (gx, gv) = eager.grad(out, [x, value], eager.to_tensor(np.ones((2, 3))), create_graph=True)
    np.testing.assert_array_equal(gx.numpy(), [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(gv.numpy(), 4.0)


def test_masked_fill_inplace_cannot_grow_x():
    x = eager.to_tensor([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="masked_fill_"):
        x.masked_fill_(eager.to_tensor(np.ones((2, 3), dtype=bool)), 0.0)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("call", [
    lambda x: eager.sort(x), lambda x: eager.argsort(x), lambda x: eager.topk(x, 1),
    lambda x: eager.unique(x), lambda x: eager.argmax(x), lambda x: eager.kthvalue(x, 1),
    lambda x: eager.mode(x), lambda x: eager.cummax(x),
])
def test_order_ops_of_bool_raise_runtime_error(call):
    x = eager.to_tensor([True, False, True])
    with pytest.raises(RuntimeError, match="expected an integer or floating-point tensor, got paddle.bool"):
        call(x)
    with pytest.raises(ValueError):
        call(x)


@pytest.mark.parametrize("call", [
    lambda: eager.as_complex(eager.ones([3, 2], dtype="int32")),
    lambda: eager.as_real(eager.ones([3], dtype="float32")),
    lambda: eager.shard_index(eager.ones([3, 1], dtype="float32"), 20, 2, 0),
    lambda: eager.tril_indices(4, 4, 0, "float32"),
    lambda: eager.triu_indices(4, 4, 0, "float32"),
])
def test_kernel_dtype_misses_raise_runtime_error(call):
    with pytest.raises(RuntimeError):
        call()
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize("x, index", [(np.arange(12.0).reshape(3, 4), [12]), (np.arange(12.0), [-13]),
                                      (np.zeros(0), [0])])
def test_take_out_of_range_is_value_error_and_index_error(x, index):
    xt, it = eager.to_tensor(x), eager.to_tensor(index)
    with pytest.raises(ValueError, match="take: argument"):
        eager.take(xt, it)
    with pytest.raises(IndexError, match="take: argument"):
        eager.take(xt, it)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_all_false_mask_writes_nothing(accumulate):
    x = _leaf(np.ones((16, 21)), np.float64)
    value = _leaf(np.ones((2, 1)), np.float64)
    out = eager.index_put(x, (eager.zeros([16, 21], dtype="bool"),), value, accumulate)
    np.testing.assert_array_equal(out.numpy(), np.ones((16, 21)))
    dx, dvalue = eager.grad([out], [x, value], create_graph=True)
    np.testing.assert_array_equal(dx.numpy(), np.ones((16, 21)))
    np.testing.assert_array_equal(dvalue.numpy(), np.zeros((2, 1)))
    dx, dvalue = eager.grad([eager.index_put(x, (eager.zeros([16, 21], dtype="bool"),), value, accumulate)],
                            [x, value])
    np.testing.assert_array_equal(dvalue.numpy(), np.zeros((2, 1)))


def test_index_put_value_that_does_not_fit_the_mask_count():
    x = eager.ones([4, 3], dtype="float64")
    mask = eager.to_tensor([True, True, True, False])
    np.testing.assert_array_equal(eager.index_put(x, (mask,), eager.full([3, 1], 2.0, "float64")).numpy(),
                                  [[2, 2, 2], [2, 2, 2], [2, 2, 2], [1, 1, 1]])
    with pytest.raises(ValueError, match=r"index_put: argument 'value' of shape \[2, 1\] cannot be broadcast"):
        eager.index_put(x, (mask,), eager.ones([2, 1], dtype="float64"))


def test_index_put_mask_count_that_does_not_broadcast_with_other_indices():
    x = eager.zeros([5, 4, 6], dtype="float64")
    rows = eager.to_tensor(np.array([[0, 1], [2, 3]], dtype=np.int32))
    mask = eager.to_tensor(np.array([True, False, True, False, True, True]))
    with pytest.raises(ValueError, match="index_put: argument 'indices' holds indices of shapes"):
        eager.index_put(x, (rows, rows, mask), eager.ones([2, 2], dtype="float64"))


@pytest.mark.parametrize("fn", [eager.diag_embed, eager.nn.functional.diag_embed])
def test_diag_embed_takes_an_array_or_list(fn):
    data = np.arange(6.0).reshape(2, 3)
    out = fn(data, offset=1)
    assert out.dtype == eager.float32  # assign's rule, as Paddle 2.6.2
    expected = np.zeros((2, 4, 4))
    for i in range(2):
        expected[i] += np.diag(data[i], 1)
    np.testing.assert_array_equal(out.numpy(), expected)
    assert fn([1, 2]).dtype == eager.int64
