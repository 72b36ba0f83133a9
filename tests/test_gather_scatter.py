"""What the op table cannot say about the gather scatter ops: out-of-range and
badly typed indices (checked before anything is written, inplace variants
included), repeated indices and Paddle's gradient rules for them, int32 and
bool indices, numbers for tensor arguments, and the scalar_tensor YAML key."""
import numpy as np
import pytest

import eager
from eager.api_gen.render import load_specs

from test_api_gen import assert_points_at, copy_yaml, edit_entry, rejected


def t(values, dtype=None, grad=False):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=not grad)


X = np.arange(12.0).reshape(3, 4)


# -- index values out of range: a clear error, before anything is written -----------------

OUT_OF_RANGE = [
    ("gather", lambda x: eager.gather(x, t([0, 3]), 0), "index", "[0, 3)", "3"),
    ("gather", lambda x: eager.gather(x, t([-1]), 1), "index", "[0, 4)", "-1"),
    ("index_select", lambda x: eager.index_select(x, t([4]), axis=1), "index", "[0, 4)", "4"),
    ("take_along_axis", lambda x: eager.take_along_axis(x, t([[5]]), 1), "indices", "[-4, 4)", "5"),
    ("gather_nd", lambda x: eager.gather_nd(x, t([[0, 0], [1, -5]])), "index", "[-4, 4)", "-5"),
    ("scatter", lambda x: eager.scatter(x, t([7]), t(np.ones((1, 4)))), "index", "[0, 3)", "7"),
    ("scatter_", lambda x: x.scatter_(t([0, 9]), t(np.ones((2, 4)))), "index", "[0, 3)", "9"),
    ("scatter_nd_add", lambda x: eager.scatter_nd_add(x, t([[3]]), t(np.ones((1, 4)))), "index", "[-3, 3)", "3"),
    ("index_add", lambda x: eager.index_add(x, t([0, 5]), 1, t(np.ones((3, 2)))), "index", "[0, 4)", "5"),
    ("index_add_", lambda x: x.index_add_(t([3]), 0, t(np.ones((1, 4)))), "index", "[0, 3)", "3"),
    ("index_put", lambda x: eager.index_put(x, [t([1]), t([4])], t(1.0, "float64")), "indices", "[-4, 4)", "4"),
    ("index_put_", lambda x: x.index_put_([t([-4])], t(np.ones(4))), "indices", "[-3, 3)", "-4"),
    ("put_along_axis", lambda x: eager.put_along_axis(x, t([[4]]), 1.0, 1), "indices", "[-4, 4)", "4"),
    ("put_along_axis_", lambda x: x.put_along_axis_(t([[0], [1], [-5]]), 1.0, 1, "add"), "indices", "[-4, 4)", "-5"),
]


@pytest.mark.parametrize("op, call, arg, bounds, bad", OUT_OF_RANGE, ids=[c[0] for c in OUT_OF_RANGE])
def test_an_index_out_of_range_is_refused_and_nothing_is_written(op, call, arg, bounds, bad):
    x = t(X.copy())
    with pytest.raises(IndexError) as info:
        call(x)
    message = str(info.value)
    assert message.startswith(f"{op.rstrip('_')}") or message.startswith(op), message
    assert f"argument '{arg}'" in message and bounds in message and f"got {bad}" in message, message
    np.testing.assert_array_equal(x.numpy(), X)  # the input, inplace variants included, is as it was


def test_scatter_nd_out_of_range_names_the_coordinate():
    with pytest.raises(IndexError, match=r"scatter_nd: argument 'index' \(coordinate 1 of its last dimension\) "
                                         r"expected index values in \[-2, 2\), got 2"):
        eager.scatter_nd(t([[0, 2]]), t([1.0]), [3, 2])


@pytest.mark.parametrize("call", [
    lambda x: eager.gather(x, t([0.0])),
    lambda x: eager.index_select(x, t([True])),
    lambda x: eager.take_along_axis(x, t([[0]], "int16"), 1),
    lambda x: eager.scatter(x, t([0.0]), t(np.ones((1, 4)))),
    lambda x: eager.gather_nd(x, t([[0.0]])),
    lambda x: eager.index_add(x, t([0.0]), 0, t(np.ones((1, 4)))),
    lambda x: eager.put_along_axis(x, t([[0.0]]), 1.0, 1),
])
def test_an_index_must_be_an_integer_tensor(call):
    with pytest.raises(ValueError, match=r"argument '(index|indices)' expected an int32 or int64 tensor of indices"):
        call(t(X))


def test_masks_must_be_bool():
    for call in (lambda: eager.masked_fill(t(X), t([1, 0, 1, 0]), 0.0),
                 lambda: eager.masked_select(t(X), t([1, 0, 1, 0])),
                 lambda: eager.masked_scatter(t(X), t([1, 0, 1, 0]), t(np.ones(12)))):
        with pytest.raises(ValueError, match=r"argument 'mask' expected a bool tensor, got paddle.int64"):
            call()


def test_index_put_refuses_float_index_tensors():
    with pytest.raises(ValueError, match=r"index_put: argument 'indices' element 0 expected an int32, int64 or bool"):
        eager.index_put(t(X), [t([0.0])], t(1.0, "float64"))


def test_shape_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"scatter: argument 'updates' expected shape \[2, 4\]"):
        eager.scatter(t(X), t([0, 1]), t(np.ones((2, 3))))
    with pytest.raises(ValueError, match=r"gather: argument 'index' expected a 0-d or 1-d index tensor"):
        eager.gather(t(X), t([[0, 1]]))
    with pytest.raises(ValueError, match=r"gather: argument 'axis' expected an axis in \[-2, 2\)"):
        eager.gather(t(X), t([0]), 2)
    with pytest.raises(ValueError, match=r"masked_scatter: argument 'value' expected at least 6 elements"):
        eager.masked_scatter(t(X), t([True, False, True, False]), t(np.ones(5)))
    with pytest.raises(ValueError, match=r"put_along_axis: argument 'reduce' expected one of"):
        eager.put_along_axis(t(X), t([[0]]), 1.0, 1, "max")
    with pytest.raises(ValueError, match=r"take_along_axis: argument 'indices' expected as many dimensions as arr"):
        eager.take_along_axis(t(X), t([0]), 1)


# -- repeated indices and Paddle's gradient rules -------------------------------------------

def test_gather_gradient_adds_up_over_repeated_indices():
    x = t(X, grad=True)
    out = eager.gather(x, t([2, 0, 2, 2]))
    out.backward(t(np.arange(16.0).reshape(4, 4)))
    want = np.zeros((3, 4))
    want[2] = np.arange(0, 4) + np.arange(8, 12) + np.arange(12, 16)
    want[0] = np.arange(4, 8)
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_scatter_overwrite_keeps_the_last_update_and_gives_every_update_its_rows_gradient():
    x = t(X, grad=True)
    updates = t(np.array([[1.0] * 4, [2.0] * 4]), grad=True)
    out = eager.scatter(x, t([1, 1]), updates)
    np.testing.assert_array_equal(out.numpy()[1], [2.0] * 4)
    seed = np.arange(12.0).reshape(3, 4) + 1
    out.backward(t(seed))
    x_grad = seed.copy()
    x_grad[1] = 0  # the overwritten row
    np.testing.assert_array_equal(x.grad.numpy(), x_grad)
    # Paddle's rule: both updates get row 1's gradient (gather), though only the last landed.
    np.testing.assert_array_equal(updates.grad.numpy(), np.stack([seed[1], seed[1]]))


def test_scatter_without_overwrite_zeroes_the_rows_then_adds_every_update():
    x = t(X, grad=True)
    updates = t(np.array([[1.0] * 4, [2.0] * 4, [5.0] * 4]), grad=True)
    out = eager.scatter(x, t([1, 1, 0]), updates, overwrite=False)
    np.testing.assert_array_equal(out.numpy(), [[5.0] * 4, [3.0] * 4, X[2]])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0] * 4, [0.0] * 4, [1.0] * 4])
    np.testing.assert_array_equal(updates.grad.numpy(), np.ones((3, 4)))


def test_accumulating_ops_add_repeated_indices():
    np.testing.assert_array_equal(
        eager.index_add(t(np.zeros((2, 3))), t([1, 1, 1]), axis=1, value=t(np.ones((2, 3)))).numpy(), [[0, 3, 0]] * 2)
    np.testing.assert_array_equal(
        eager.scatter_nd_add(t(np.zeros(3)), t([[2], [2]]), t([1.0, 4.0])).numpy(), [0, 0, 5])
    np.testing.assert_array_equal(
        eager.index_put(t(np.zeros(3)), [t([0, 0, 2])], t(1.0, "float64"), True).numpy(), [2, 0, 1])
    np.testing.assert_array_equal(
        eager.put_along_axis(t(np.ones((1, 3))), t([[0, 0]]), t([[2.0, 3.0]], "float64"), 1, "mul").numpy(),
        [[6, 1, 1]])


def test_int32_indices_work_like_int64():
    for dtype in ("int32", "int64"):
        np.testing.assert_array_equal(eager.gather(t(X), t([2, 0], dtype), 1).numpy(), X[:, [2, 0]])
        np.testing.assert_array_equal(eager.gather_nd(t(X), t([[1, 3]], dtype)).numpy(), [7.0])


def test_gather_with_a_0d_index_drops_the_axis_as_paddle():
    out = eager.gather(t(X), t(2), axis=1)
    assert out.shape == [3]
    np.testing.assert_array_equal(out.numpy(), X[:, 2])


def test_index_put_with_a_bool_mask_and_its_gradient():
    x = t(X, grad=True)
    value = t(-1.0, "float64", grad=True)
    mask = X % 3 == 0
    out = eager.index_put(x, [t(mask)], value)
    want = X.copy()
    want[mask] = -1
    np.testing.assert_array_equal(out.numpy(), want)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), (~mask).astype(float))
    assert value.grad.numpy() == mask.sum()


def test_masked_select_gradient_scatters_back_and_sums_over_broadcasting():
    x = t([1.0, 2.0, 3.0], grad=True)
    mask = t([[True, False, True], [True, True, False]])
    out = eager.masked_select(x, mask)
    np.testing.assert_array_equal(out.numpy(), [1, 3, 1, 2])
    out.backward(t([10.0, 20.0, 30.0, 40.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [40, 40, 20])


def test_nonzero_of_bool_and_0d_tensors():
    np.testing.assert_array_equal(eager.nonzero(t([[True, False], [False, True]])).numpy(), [[0, 0], [1, 1]])
    assert eager.nonzero(t(3.0)).shape == [1, 0]
    assert eager.nonzero(t(0.0)).shape == [0, 0]
    assert eager.nonzero(t(np.zeros((2, 3)))).shape == [0, 2]


# -- numbers for tensor arguments, inplace variants ------------------------------------------

def test_masked_fill_takes_a_number_or_a_0d_tensor_and_differentiates_both():
    x = t(X, grad=True)
    mask = t([True, False, False, True])
    np.testing.assert_array_equal(eager.masked_fill(x, mask, 7).numpy(), np.where([1, 0, 0, 1], 7.0, X))
    value = t(2.0, "float64", grad=True)
    eager.masked_fill(x, mask, value).sum().backward()
    assert value.grad.numpy() == 6.0
    np.testing.assert_array_equal(x.grad.numpy(), np.tile([0.0, 1.0, 1.0, 0.0], (3, 1)))
    with pytest.raises(TypeError, match=r"masked_fill: argument 'value' expected a Tensor or a number, got str"):
        eager.masked_fill(x, mask, "seven")
    with pytest.raises(ValueError, match=r"masked_fill: argument 'value' expected a number in \[-128, 127\]"):
        eager.masked_fill(t([1, 2], "int8"), t([True, False]), 300)


def test_inplace_variants_match_out_of_place_values_and_gradients():
    index = t([2, 0])
    cases = [
        (lambda a: eager.scatter(a, index, a[:2] * 2.0), lambda a: a.scatter_(index, a[:2] * 2.0)),
        (lambda a: eager.index_add(a, index, 0, a[:2] * 3.0), lambda a: a.index_add_(index, 0, a[:2] * 3.0)),
        (lambda a: eager.masked_fill(a, t([True, False, True, False]), 1.5),
         lambda a: a.masked_fill_(t([True, False, True, False]), 1.5)),
        (lambda a: eager.index_put(a, [index], a[1] * 2.0), lambda a: a.index_put_([index], a[1] * 2.0)),
        (lambda a: eager.put_along_axis(a, t([[1], [0], [3]]), a[:, :1] * 4.0, 1),
         lambda a: a.put_along_axis_(t([[1], [0], [3]]), a[:, :1] * 4.0, 1)),
    ]
    seed = np.arange(12.0).reshape(3, 4) - 5
    for out_of_place, inplace in cases:
        x1, x2 = t(X, grad=True), t(X, grad=True)
        want = out_of_place(x1 * 1.0)
        got = inplace(x2 * 1.0)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        want.backward(t(seed))
        got.backward(t(seed))
        np.testing.assert_array_equal(x2.grad.numpy(), x1.grad.numpy())


def test_a_leaf_that_needs_grad_refuses_an_inplace_scatter():
    x = t(X, grad=True)
    with pytest.raises(Exception, match="leaf"):
        x.scatter_(t([0]), t(np.ones((1, 4))))


def test_second_order_through_a_gather_of_a_square():
    # d2/dx2 sum(gather(x)^2) = 2 * (how often each element was gathered), through composite rules.
    x = t([1.0, 2.0, 3.0], grad=True)
    y = eager.gather(x * x, t([0, 2, 2]))
    (g,) = eager.grad(y.sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [2.0, 0.0, 12.0])
    (h,) = eager.grad(g.sum(), x)
    np.testing.assert_array_equal(h.numpy(), [2.0, 0.0, 4.0])


# -- the scalar_tensor key of the YAML schema -----------------------------------------------

def test_scalar_tensor_must_name_tensor_arguments(tmp_path):
    ops, bwd = copy_yaml(tmp_path)
    line = edit_entry(ops, "- op : masked_fill", "  scalar_tensor : (value -> x)", "  scalar_tensor : (value -> axis)")
    assert_points_at(rejected(ops, bwd), ops, line, "masked_fill: scalar_tensor names 'axis'")


def test_scalar_tensor_takes_the_dtype_of_an_earlier_argument(tmp_path):
    ops, bwd = copy_yaml(tmp_path)
    line = edit_entry(ops, "- op : masked_fill", "  scalar_tensor : (value -> x)", "  scalar_tensor : (x -> value)")
    assert_points_at(rejected(ops, bwd), ops, line, "must come before 'x'")


def test_scalar_tensor_parses():
    forward_ops, _ = load_specs()
    by_name = {op.name: op for op in forward_ops}
    assert by_name["masked_fill"].scalar_tensor == ("value", "x")
    assert by_name["put_along_axis"].scalar_tensor == ("values", "arr")
    assert by_name["gather"].scalar_tensor is None


def test_index_add_takes_paddles_argument_order():
    x = np.arange(6.0).reshape(2, 3)
    got = eager.index_add(t(x), t([2, 0, 2]), 1, t(np.ones((2, 3))))
    expected = x.copy()
    np.add.at(expected, (slice(None), [2, 0, 2]), 1.0)
    np.testing.assert_array_equal(got.numpy(), expected)
    np.testing.assert_array_equal(t(x).index_add(t([1]), 0, t(np.ones((1, 3)))).numpy(), x + [[0], [1]])


def test_nonzero_as_tuple_gives_one_column_per_axis():
    x = np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]])
    rows, cols = eager.nonzero(t(x), as_tuple=True)
    assert rows.shape == [3, 1] and cols.shape == [3, 1]  # Paddle's [count, 1]
    np.testing.assert_array_equal(np.stack([rows.numpy().ravel(), cols.numpy().ravel()]), np.nonzero(x))
    (only,) = t([0.0, 1.0, 0.0, 3.0]).nonzero(as_tuple=True)
    np.testing.assert_array_equal(only.numpy().ravel(), [1, 3])
    with pytest.raises(TypeError, match="nonzero: argument 'as_tuple' expected a bool"):
        eager.nonzero(t(x), as_tuple="yes")
