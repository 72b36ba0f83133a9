"""Paddle's tensor-form jacobian/hessian (eager.autograd.lazy_jacobian):
shapes, values against closed forms, batching, laziness and errors."""
import numpy as np
import pytest

import eager
from eager.autograd import Hessian, Jacobian, hessian, jacobian


def leaf(values):
    return eager.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=False)


def count_backward_passes(monkeypatch):
    """Counts calls of eager.autograd.grad made by the Jacobian rows."""
    import eager.autograd.lazy_jacobian as module
    calls = []
    real = module.grad

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "grad", counting)
    return calls


def test_jacobian_of_a_matrix_product_is_the_matrix():
    A = np.arange(6.0).reshape(2, 3)
    x = leaf([1.0, -2.0, 0.5])
    J = jacobian(eager.matmul(eager.to_tensor(A), x), x)
    assert isinstance(J, Jacobian) and J.shape == [2, 3] and len(J) == 2
    np.testing.assert_allclose(J[:].numpy(), A)
    np.testing.assert_allclose(J[1].numpy(), A[1])
    np.testing.assert_allclose(J[:, 2].numpy(), A[:, 2])
    np.testing.assert_allclose(J[[1, 0], 1:].numpy(), A[[1, 0], 1:])


def test_rows_are_evaluated_lazily_and_cached(monkeypatch):
    calls = count_backward_passes(monkeypatch)
    x = leaf([1.0, 2.0, 3.0, 4.0])
    J = jacobian(x * x, x)
    assert calls == []                           # nothing computed at creation
    np.testing.assert_allclose(J[1:3].numpy(), np.diag([2.0, 4.0, 6.0, 8.0])[1:3])
    assert len(calls) == 2                       # only rows 1 and 2
    np.testing.assert_allclose(J[2].numpy(), [0, 0, 6.0, 0])
    assert len(calls) == 2                       # from the cache
    np.testing.assert_allclose(J[:].numpy(), np.diag([2.0, 4.0, 6.0, 8.0]))
    assert len(calls) == 4                       # rows 0 and 3, once each


def test_tuples_nest_ys_first_and_single_tensors_drop_their_level():
    x1, x2 = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y1, y2 = x1 * x2, x1 + x2 * 2
    J = jacobian((y1, y2), (x1, x2))
    assert len(J) == 2 and all(len(row) == 2 for row in J)
    np.testing.assert_allclose(J[0][0][:].numpy(), np.diag([3.0, 4.0]))
    np.testing.assert_allclose(J[0][1][:].numpy(), np.diag([1.0, 2.0]))
    np.testing.assert_allclose(J[1][1][:].numpy(), 2 * np.eye(2))
    by_x = jacobian(y1, (x1, x2))
    assert isinstance(by_x, tuple) and len(by_x) == 2 and by_x[1].shape == [2, 2]
    by_y = jacobian((y1, y2), x1)
    assert isinstance(by_y, tuple) and by_y[1].shape == [2, 2]


def test_zero_dimensional_sides_contribute_no_axis():
    x = leaf([1.0, 2.0, 3.0])
    s = leaf(2.0)
    grad_row = jacobian((x ** 2).sum(), x)
    assert grad_row.shape == [3]
    np.testing.assert_allclose(grad_row[:].numpy(), [2.0, 4.0, 6.0])
    column = jacobian(x * s, s)
    assert column.shape == [3]
    np.testing.assert_allclose(column[:].numpy(), [1.0, 2.0, 3.0])
    both = jacobian(s * s, s)
    assert both.shape == []
    np.testing.assert_allclose(both[:].numpy(), 4.0)


def test_an_unused_input_gives_zeros():
    x, unused = leaf([1.0, 2.0]), leaf([5.0, 6.0, 7.0])
    J = jacobian(x * 3, unused)
    np.testing.assert_array_equal(J[:].numpy(), np.zeros((2, 3)))


def test_batched_jacobian_differentiates_each_sample_against_its_own_inputs():
    rng = np.random.default_rng(0)
    W = rng.standard_normal((3, 2))
    xb = rng.standard_normal((4, 3))
    x = leaf(xb)
    y = eager.tanh(eager.matmul(x, eager.to_tensor(W)))          # [4, 2]
    J = jacobian(y, x, batch_axis=0)
    assert J.shape == [4, 2, 3]
    expected = (1 - np.tanh(xb @ W) ** 2)[:, :, None] * W.T[None]   # [B, M, N]
    np.testing.assert_allclose(J[:].numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(J[:, 1, :].numpy(), expected[:, 1, :], rtol=1e-12)
    np.testing.assert_allclose(J[2].numpy(), expected[2], rtol=1e-12)


def test_hessian_of_a_cubic_and_of_two_inputs():
    x = leaf([1.0, 2.0])
    H = hessian((x ** 3).sum(), x)
    assert isinstance(H, Hessian) and H.shape == [2, 2]
    np.testing.assert_allclose(H[:].numpy(), np.diag([6.0, 12.0]))
    a, b = leaf([1.0, 2.0]), leaf([3.0, -1.0, 0.5])
    f = (a * a).sum() * (b * b * b).sum()
    H = hessian(f, (a, b))
    sa, sb = float((a.numpy() ** 2).sum()), float((b.numpy() ** 3).sum())
    np.testing.assert_allclose(H[0][0][:].numpy(), 2 * sb * np.eye(2))
    np.testing.assert_allclose(H[0][1][:].numpy(), np.outer(2 * a.numpy(), 3 * b.numpy() ** 2))
    np.testing.assert_allclose(H[1][1][:].numpy(), np.diag(6 * sa * b.numpy()))


def test_batched_hessian():
    xb = np.array([[1.0, 2.0], [-1.0, 0.5], [3.0, 1.0]])
    x = leaf(xb)
    y = (x ** 3).sum(axis=1, keepdim=True)                        # [B, 1]
    H = hessian(y, x, batch_axis=0)
    assert H.shape == [3, 2, 2]
    np.testing.assert_allclose(H[:].numpy(), np.stack([np.diag(6 * row) for row in xb]))


def test_results_are_differentiable():
    x = leaf([1.0, 2.0])
    J = jacobian(x ** 3, x)[:]                                    # diag(3 x^2)
    assert not J.stop_gradient
    (g,) = eager.grad(J.sum(), x)
    np.testing.assert_allclose(g.numpy(), 6 * x.numpy())


def test_the_function_form_still_works():
    x = eager.to_tensor(np.array([1.0, 2.0]))
    np.testing.assert_allclose(jacobian(lambda v: v * v, x).numpy(), np.diag([2.0, 4.0]))
    np.testing.assert_allclose(hessian(lambda v: (v ** 3).sum(), x).numpy(), np.diag([6.0, 12.0]))


@pytest.mark.parametrize("call, error, message", [
    (lambda x: jacobian(x, x, batch_axis=1), ValueError, "argument 'batch_axis' expected None or 0, got 1"),
    (lambda x: jacobian(eager.reshape(x, [2, 2]) * 1, x), ValueError, "must be 0-d or 1-d, got shape [2, 2]"),
    (lambda x: jacobian(x.sum(), x, batch_axis=0), ValueError, "every tensor of ys must be 1-d or 2-d"),
    (lambda x: jacobian(x * 2, eager.to_tensor([1.0, 2.0])), ValueError, "xs[0] has stop_gradient=True"),
    (lambda x: jacobian([1.0], x), TypeError, "ys[0] is float, expected a Tensor"),
    (lambda x: jacobian(x * 2, "x"), TypeError, "argument 'xs' expected a Tensor"),
    (lambda x: jacobian(x * 2, x, create_graph=True), TypeError, "belong to the function form"),
    (lambda x: jacobian(lambda v: v, x, 0), TypeError, "batch_axis belongs to the tensor form"),
    (lambda x: hessian(x * 2, x), ValueError, "ys must be 0-d, got shape [4]"),
    (lambda x: hessian((x * 2, x), x), TypeError, "ys must be a single Tensor"),
    (lambda x: jacobian(x * 2, x)[7], IndexError, "does not fit a Jacobian of shape [4, 4]"),
])
def test_bad_calls_raise_clear_errors(call, error, message):
    x = leaf([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(error) as info:
        call(x)
    assert message in str(info.value)


def test_batched_shapes_must_agree():
    x = leaf(np.ones((3, 2)))
    y = leaf(np.ones((4, 2)))
    with pytest.raises(ValueError, match="the same batch size"):
        jacobian(y * 1, x, batch_axis=0)
