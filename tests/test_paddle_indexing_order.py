"""Indexing with ints beside index arrays, read as Paddle 2.6 and PyTorch read it.

Found by comparing eager's ``x[index]`` / ``x[index] = v`` (values, shapes and
gradients) call by call with the real Paddle 2.6.2 and with PyTorch on random
index tuples (ints, 0-d int tensors, slices with steps, None, Ellipsis, int
lists, int arrays of several ranks, bool masks, bool scalars):

- An int beside an index array was one more advanced index (NumPy's single-step
  rule), so ``x[0, :, [0, 1]]`` of x [2, 3, 4, 5] had shape [2, 3, 5]; Paddle and
  PyTorch apply the ints first, as basic indexing, and NumPy's rules to the rest:
  [3, 2, 5]. The same held for writing, for both gradients and for writes into a
  view. A 0-d integer tensor counts as an int (and x[paddle.to_tensor(1)] is a
  view, as x[1] is; it was a copy).
- An Ellipsis that stands for no axis separated two index arrays (NumPy), so
  ``x[:, [1], ..., [0]]`` of x [2, 3, 2] had shape [1, 2]; Paddle and PyTorch: [2, 1].
- Where Paddle 2.6.2 is buggy (None beside an int and index arrays), eager
  follows PyTorch (docs/autograd.md, "Ops that differ from Paddle").

The reference is NumPy in two steps, ``x[basic][rest]``: the ints with full
slices elsewhere, then the index without its ints.
"""
import numpy as np
import pytest

import eager
from torch_reference import needs_torch, torch

pytestmark = pytest.mark.usefixtures("device")

S = slice(None)
X = np.arange(120.0).reshape(2, 3, 4, 5)

# (index, basic, rest): X[index] in Paddle / PyTorch is X[basic][rest] in NumPy.
CASES = [
    ((0, S, [0, 1]), (0,), (S, [0, 1])),                                   # [3, 2, 5]
    ((-1, S, [0, 1], -2), (-1, S, S, -2), (S, [0, 1])),                    # [3, 2]
    ((0, Ellipsis, [1, 2]), (0,), (Ellipsis, [1, 2])),                     # [3, 4, 2]
    ((0, S, [[0, 1], [2, 3]], 1), (0, S, S, 1), (S, [[0, 1], [2, 3]])),    # [3, 2, 2]
    ((S, [0, 1], 0, [1, 2]), (S, S, 0), (S, [0, 1], [1, 2])),              # [2, 2]
    ((0, S, np.array([True, False, True, True])), (0,), (S, np.array([True, False, True, True]))),
    ((1, [2, 0], S, 3), (1, S, S, 3), ([2, 0], S)),                        # [2, 4]
    ((S, 2, S, [4, 0, 1]), (S, 2), (S, S, [4, 0, 1])),                     # [2, 4, 3]
]
SHAPES = [(3, 2, 5), (3, 2), (3, 4, 2), (3, 2, 2), (2, 2), (3, 3, 5), (2, 4), (2, 4, 3)]


def _eager_index(index):
    return tuple(eager.to_tensor(i) if isinstance(i, np.ndarray) else i for i in index)


@pytest.mark.parametrize("case,shape", list(zip(CASES, SHAPES)), ids=[str(c[0]) for c in CASES])
def test_ints_apply_first_when_reading(case, shape):
    index, basic, rest = case
    expected = X[basic][rest]
    assert expected.shape == shape  # values from Paddle 2.6.2 and PyTorch
    out = eager.to_tensor(X)[_eager_index(index)]
    assert out.shape == list(shape)
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize("case", CASES, ids=[str(c[0]) for c in CASES])
def test_ints_apply_first_when_writing_with_both_gradients(case):
    index, basic, rest = case
    rng = np.random.default_rng(0)
    region = X[basic][rest]
    v = rng.standard_normal(region.shape)
    g = rng.standard_normal(X.shape)
    written = X.copy()
    written[basic][rest] = v
    x_grad = g.copy()
    x_grad[basic][rest] = 0

    x = eager.to_tensor(X, stop_gradient=False)
    value = eager.to_tensor(v, stop_gradient=False)
    y = x * 1
    y[_eager_index(index)] = value
    np.testing.assert_array_equal(y.numpy(), written)
    y.backward(eager.to_tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), x_grad)
    np.testing.assert_allclose(value.grad.numpy(), g[basic][rest])


def test_the_out_of_place_setitem_op_reads_the_same_order():
    v = np.full((3, 2, 5), -1.0)
    out = eager.setitem(eager.to_tensor(X), eager.to_tensor(v), (0, S, [0, 1]))
    expected = X.copy()
    expected[0][:, [0, 1]] = v
    np.testing.assert_array_equal(out.numpy(), expected)


def test_getitem_gradient_adds_repeated_indices_at_the_int_selected_place():
    x = eager.to_tensor(X, stop_gradient=False)
    out = x[1, S, [3, 3, 0], 2]                 # [3, 3]
    g = np.arange(9.0).reshape(3, 3)
    out.backward(eager.to_tensor(g))
    expected = np.zeros_like(X)
    np.add.at(expected[1, :, :, 2], (S, [3, 3, 0]), g)
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_getitem_gradient_of_gradient_keeps_the_order():
    x = eager.to_tensor(X / 100.0, stop_gradient=False)
    (first,) = eager.grad((x[0, S, [0, 1]] ** 3).sum(), x, create_graph=True)
    (second,) = eager.grad(first.sum(), x)
    expected = np.zeros_like(X)
    expected[0][:, [0, 1]] = 6.0 * (X / 100.0)[0][:, [0, 1]]
    np.testing.assert_allclose(second.numpy(), expected)


def test_a_zero_d_integer_tensor_is_an_int():
    x = eager.to_tensor(X)
    i = eager.to_tensor(0)
    out = x[i, S, [0, 1]]
    assert out.shape == [3, 2, 5]  # Paddle 2.6.2 and PyTorch (NumPy's 0-d array: [2, 3, 5])
    np.testing.assert_array_equal(out.numpy(), X[0][:, [0, 1]])
    np.testing.assert_array_equal(x[np.array(1), 2].numpy(), X[1, 2])


def test_a_zero_d_integer_tensor_index_is_a_view_as_an_int_is():
    # Paddle 2.6.2: y = x[paddle.to_tensor(1)]; y[0] = 100 writes x[1, 0] (measured), as x[1].
    for i in (eager.to_tensor(1), np.array(1)):
        x = eager.arange(6, dtype="float32").reshape([2, 3])
        y = x[i]
        y[0] = 100
        np.testing.assert_array_equal(x.numpy(), [[0, 1, 2], [100, 4, 5]])


def test_none_beside_an_int_and_index_arrays_follows_pytorch():
    x = eager.to_tensor(X)
    # PyTorch: [1, 3, 2, 5]; Paddle 2.6.2 gives [1, 2, 4, 5] (its bug).
    out = x[None, 0, S, [1, 2]]
    assert out.shape == [1, 3, 2, 5]
    np.testing.assert_array_equal(out.numpy(), X[0][None, :, [1, 2]])
    # PyTorch: [2, 1, 5] (the None separates the arrays); Paddle 2.6.2 raises ValueError.
    out = x[[0, 1], 1, None, [1, 2]]
    assert out.shape == [2, 1, 5]
    np.testing.assert_array_equal(out.numpy(), X[:, 1][[0, 1], None, [1, 2]])


def test_an_ellipsis_of_no_axis_does_not_separate_index_arrays():
    a = np.arange(12.0).reshape(2, 3, 2)
    x = eager.to_tensor(a, stop_gradient=False)
    out = x[S, [1], ..., [0]]
    assert out.shape == [2, 1]  # Paddle 2.6.2 and PyTorch (NumPy: [1, 2])
    np.testing.assert_array_equal(out.numpy(), a[:, [1], [0]])
    out.backward(eager.to_tensor(np.ones((2, 1))))
    expected = np.zeros_like(a)
    expected[:, 1, 0] = 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    # An Ellipsis of one axis or more still separates them, in all three.
    b = np.arange(24.0).reshape(2, 3, 2, 2)
    assert eager.to_tensor(b)[S, [1], ..., [0]].shape == list(b[:, [1], ..., [0]].shape) == [1, 2, 2]


def test_writing_through_a_view_with_an_int_beside_an_index_array():
    x = eager.to_tensor(X, stop_gradient=False)
    v = eager.to_tensor(np.full((4, 2), 7.0), stop_gradient=False)
    y = x * 1
    view = y[1]                                  # [3, 4, 5], a view of y
    view[2, S, [0, 3]] = v                       # writes y[1, 2][:, [0, 3]]
    expected = X.copy()
    expected[1, 2][:, [0, 3]] = 7.0
    np.testing.assert_array_equal(y.numpy(), expected)
    y.sum().backward()
    x_grad = np.ones_like(X)
    x_grad[1, 2][:, [0, 3]] = 0
    np.testing.assert_array_equal(x.grad.numpy(), x_grad)
    np.testing.assert_array_equal(v.grad.numpy(), np.ones((4, 2)))


def test_basic_indices_stay_views():
    x = eager.to_tensor(X.copy())
    row = x[1, 2]
    row += 1
    np.testing.assert_array_equal(x.numpy()[1, 2], X[1, 2] + 1)


def test_a_mixed_index_out_of_range_is_refused_naming_the_op():
    x = eager.to_tensor(X)
    with pytest.raises(IndexError, match="getitem"):
        x[2, S, [0, 1]]
    with pytest.raises(IndexError, match="setitem"):
        x[0, S, [0, 9]] = 1.0
    np.testing.assert_array_equal(x.numpy(), X)


def _random_index(rng, shape):
    items, axis = [], 0
    for _ in range(int(rng.integers(1, len(shape) + 3))):
        r = rng.random()
        if r < 0.1:
            items.append(None)
            continue
        if axis >= len(shape):
            break
        d = shape[axis]
        if r < 0.4:
            items.append(int(rng.integers(-d, d)))
        elif r < 0.55:
            items.append(slice(int(rng.integers(-d, d)), None, int(rng.integers(1, 3))))
        elif r < 0.85:
            items.append(rng.integers(-d, d, size=(2,)))
        else:
            items.append(rng.random(d) < 0.5)
        axis += 1
    return tuple(items)


@needs_torch
def test_random_indices_match_pytorch():
    rng = np.random.default_rng(7)
    compared = 0
    for _ in range(300):
        shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 5))))
        index = _random_index(rng, shape)
        a = rng.standard_normal(shape)
        t_index = tuple(torch.tensor(i) if isinstance(i, np.ndarray) else i for i in index)
        try:
            expected = torch.tensor(a)[t_index].numpy()
        except (IndexError, RuntimeError):
            with pytest.raises((IndexError, ValueError)):
                eager.to_tensor(a)[index]
            continue
        out = eager.to_tensor(a)[index]
        assert out.shape == list(expected.shape), index
        np.testing.assert_array_equal(out.numpy(), expected)
        compared += 1
    assert compared > 200
