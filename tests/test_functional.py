"""jacobian, hessian, vjp, jvp: closed forms, finite differences, nesting, errors."""
from __future__ import annotations

import numpy as np
import pytest

import eager
from eager.autograd import AutogradError, PyLayer, hessian, jacobian, jvp, vjp

pytestmark = pytest.mark.usefixtures("device")


def t(values, stop_gradient=True):
    return eager.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=stop_gradient)


def numeric_jacobian(f, arrays, k, eps=1e-6):
    """Central differences of f (numpy arrays -> numpy array) in argument k:
    shape f(...).shape + arrays[k].shape."""
    base = np.asarray(f(*arrays))
    x = arrays[k]
    jac = np.zeros(base.shape + x.shape)
    for index in np.ndindex(*x.shape):
        plus = [a.copy() for a in arrays]
        minus = [a.copy() for a in arrays]
        plus[k][index] += eps
        minus[k][index] -= eps
        jac[(...,) + index] = (np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * eps)
    return jac


def as_numpy_fn(f):
    return lambda *arrays: f(*[t(a) for a in arrays]).numpy()


# -- jacobian ---------------------------------------------------------------------

def test_jacobian_of_linear_map_is_the_matrix(rng):
    A = rng.standard_normal((2, 3))
    x = t(rng.standard_normal(3))
    J = jacobian(lambda v: eager.matmul(t(A), v), x)
    assert isinstance(J, eager.Tensor) and J.shape == [2, 3]
    np.testing.assert_allclose(J.numpy(), A)
    assert J.stop_gradient


def test_jacobian_matches_finite_differences_for_matrix_input(rng):
    def f(x):
        return eager.tanh(eager.matmul(x, x)) * 2

    x = rng.standard_normal((2, 2)) * 0.5
    J = jacobian(f, t(x))
    assert J.shape == [2, 2, 2, 2]  # out.shape + in.shape
    np.testing.assert_allclose(J.numpy(), numeric_jacobian(as_numpy_fn(f), [x], 0), atol=1e-7)


def test_jacobian_several_inputs_and_outputs_nest_output_first(rng):
    x, y = rng.standard_normal(3), rng.standard_normal(3)

    def f(a, b):
        return a * b, (eager.exp(a) * b).sum()

    J = jacobian(f, (t(x), t(y)))
    assert isinstance(J, tuple) and len(J) == 2 and all(len(row) == 2 for row in J)
    np.testing.assert_allclose(J[0][0].numpy(), np.diag(y))
    np.testing.assert_allclose(J[0][1].numpy(), np.diag(x))
    assert J[1][0].shape == [3]  # 0-d output: just the input's shape
    np.testing.assert_allclose(J[1][0].numpy(), np.exp(x) * y)
    np.testing.assert_allclose(J[1][1].numpy(), np.exp(x))


def test_jacobian_unused_input_raises_or_gives_none():
    x, y = t([1.0, 2.0]), t([3.0])
    with pytest.raises(AutogradError, match=r"jacobian: output 0 does not depend on input 1; pass "
                                            r"allow_unused=True"):
        jacobian(lambda a, b: a * 2, (x, y))
    J = jacobian(lambda a, b: a * 2, (x, y), allow_unused=True)
    np.testing.assert_allclose(J[0].numpy(), 2 * np.eye(2))
    assert J[1] is None


def test_jacobian_single_input_tuple_outputs():
    x = t([1.0, 2.0])
    J = jacobian(lambda a: (a * 3, a * a), x)
    assert isinstance(J, tuple) and len(J) == 2
    np.testing.assert_allclose(J[0].numpy(), 3 * np.eye(2))
    np.testing.assert_allclose(J[1].numpy(), np.diag([2.0, 4.0]))


def test_jacobian_does_not_touch_inputs_or_their_grad():
    x = t([1.0, 2.0], stop_gradient=False)
    jacobian(lambda a: a * a, x)
    assert x.grad is None and x.is_leaf


def test_jacobian_create_graph_is_differentiable_in_the_inputs():
    x = t([1.0, -2.0, 0.5], stop_gradient=False)
    J = jacobian(lambda a: a ** 3, x, create_graph=True)  # diag(3 x^2)
    assert not J.stop_gradient
    np.testing.assert_allclose(J.numpy(), np.diag(3 * x.numpy() ** 2))
    (g,) = eager.grad(J.sum(), x)
    np.testing.assert_allclose(g.numpy(), 6 * x.numpy())


def test_jacobian_of_a_pylayer():
    class Square(PyLayer):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, grad):
            (a,) = ctx.saved_tensor()
            return 2 * a * grad

    x = t([1.0, 3.0])
    np.testing.assert_allclose(jacobian(Square.apply, x).numpy(), np.diag([2.0, 6.0]))
    np.testing.assert_allclose(hessian(lambda a: Square.apply(a).sum(), x).numpy(), 2 * np.eye(2))


# -- hessian ------------------------------------------------------------------------

def test_hessian_of_sum_of_cubes_is_diag_6x():
    x = t([1.0, -2.0, 0.5])
    H = hessian(lambda a: (a ** 3).sum(), x)
    assert H.shape == [3, 3]
    np.testing.assert_allclose(H.numpy(), np.diag(6 * x.numpy()))


def test_hessian_of_quadratic_form_two_inputs(rng):
    A = rng.standard_normal((3, 3))
    x, y = rng.standard_normal(3), rng.standard_normal(3)

    def f(a, b):  # a^T A b + sum(a^2)
        return (a * eager.matmul(t(A), b)).sum() + (a * a).sum()

    H = hessian(f, (t(x), t(y)))
    np.testing.assert_allclose(H[0][0].numpy(), 2 * np.eye(3))
    np.testing.assert_allclose(H[0][1].numpy(), A)
    np.testing.assert_allclose(H[1][0].numpy(), A.T)
    np.testing.assert_allclose(H[1][1].numpy(), np.zeros((3, 3)))  # linear in b: zeros, no error


def test_hessian_matches_finite_differences_of_the_gradient(rng):
    x = rng.standard_normal((2, 2))

    def f(a):
        return (eager.sigmoid(a) * eager.tanh(a)).sum()

    def grad_np(a):
        s, th = 1 / (1 + np.exp(-a)), np.tanh(a)
        return s * (1 - s) * th + s * (1 - th ** 2)

    H = hessian(f, t(x))
    assert H.shape == [2, 2, 2, 2]
    np.testing.assert_allclose(H.numpy(), numeric_jacobian(grad_np, [x], 0), atol=1e-7)


def test_hessian_linear_function_is_zero():
    H = hessian(lambda a: (a * 3).sum(), t([1.0, 2.0]))
    np.testing.assert_array_equal(H.numpy(), np.zeros((2, 2)))


def test_hessian_unused_input_and_non_scalar_output():
    x, y = t([1.0]), t([2.0])
    with pytest.raises(AutogradError, match=r"hessian: func does not depend on input 1"):
        hessian(lambda a, b: (a * a).sum(), (x, y))
    H = hessian(lambda a, b: (a * a).sum(), (x, y), allow_unused=True)
    assert H[1] == (None, None)
    np.testing.assert_allclose(H[0][0].numpy(), [[2.0]])
    with pytest.raises(ValueError, match=r"hessian: func must return a single Tensor with one "
                                         r"element, got a Tensor of shape \[2\]"):
        hessian(lambda a: a * a, t([1.0, 2.0]))


def test_hessian_create_graph_third_derivative():
    x = t([0.5, 2.0], stop_gradient=False)
    H = hessian(lambda a: (a ** 4).sum(), x, create_graph=True)  # diag(12 x^2)
    (g,) = eager.grad(H.sum(), x)
    np.testing.assert_allclose(g.numpy(), 24 * x.numpy())


# -- vjp -----------------------------------------------------------------------------

def test_vjp_matches_jacobian_transpose(rng):
    A = rng.standard_normal((2, 3))
    x, v = rng.standard_normal(3), rng.standard_normal(2)

    def f(a):
        return eager.tanh(eager.matmul(t(A), a))

    out, g = vjp(f, t(x), t(v))
    J = jacobian(f, t(x)).numpy()
    np.testing.assert_allclose(out.numpy(), np.tanh(A @ x))
    np.testing.assert_allclose(g.numpy(), v @ J)
    assert out.stop_gradient and g.stop_gradient


def test_vjp_several_inputs_outputs_and_unused_input():
    x, y, z = t([1.0, 2.0]), t([3.0, 4.0]), t([5.0])
    out, grads = vjp(lambda a, b, c: (a * b, a + b), (x, y, z), (t([1.0, 1.0]), t([10.0, 10.0])))
    assert isinstance(out, tuple) and len(grads) == 3
    np.testing.assert_allclose(grads[0].numpy(), [13.0, 14.0])
    np.testing.assert_allclose(grads[1].numpy(), [11.0, 12.0])
    np.testing.assert_array_equal(grads[2].numpy(), [0.0])  # unused: zeros


def test_vjp_scalar_output_v_defaults_to_one():
    out, g = vjp(lambda a: (a * a).sum(), t([1.0, 2.0]))
    assert out.item() == 5.0
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])


def test_vjp_create_graph():
    x = t([1.0, 2.0], stop_gradient=False)
    out, g = vjp(lambda a: a ** 3, x, t([1.0, 1.0]), create_graph=True)
    assert not out.stop_gradient
    (gg,) = eager.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * x.numpy())


def test_vjp_bad_v():
    x = t([1.0, 2.0])
    with pytest.raises(ValueError, match=r"vjp: v\[0\] has shape \[3\] but outputs\[0\] has shape \[2\]"):
        vjp(lambda a: a * 2, x, t([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"vjp: v has 1 tensor\(s\) but there are 2 outputs"):
        vjp(lambda a: (a, a * 2), x, t([1.0, 1.0]))
    with pytest.raises(ValueError, match=r"vjp: v\[0\] has dtype paddle.float32 but outputs\[0\] has dtype "
                                         r"paddle.float64"):
        vjp(lambda a: a * 2, x, eager.to_tensor([1.0, 1.0]))
    with pytest.raises(TypeError, match=r"vjp: v must be a Tensor or a tuple of Tensors, got ndarray"):
        vjp(lambda a: a * 2, x, np.ones(2))


# -- jvp -----------------------------------------------------------------------------

def test_jvp_of_tanh_is_one_minus_tanh_squared_times_v(rng):
    x, v = rng.standard_normal(4), rng.standard_normal(4)
    out, tangent = jvp(eager.tanh, t(x), t(v))
    np.testing.assert_allclose(out.numpy(), np.tanh(x))
    np.testing.assert_allclose(tangent.numpy(), (1 - np.tanh(x) ** 2) * v)
    assert tangent.stop_gradient


def test_jvp_matches_jacobian_times_v(rng):
    A = rng.standard_normal((3, 2))
    x, y = rng.standard_normal(2), rng.standard_normal(2)
    vx, vy = rng.standard_normal(2), rng.standard_normal(2)

    def f(a, b):
        return eager.matmul(t(A), a * b), eager.exp(a).sum()

    out, (t0, t1) = jvp(f, (t(x), t(y)), (t(vx), t(vy)))
    J = jacobian(f, (t(x), t(y)), allow_unused=True)
    assert J[1][1] is None  # the second output does not use b
    np.testing.assert_allclose(t0.numpy(), J[0][0].numpy() @ vx + J[0][1].numpy() @ vy)
    np.testing.assert_allclose(t1.numpy(), np.exp(x) @ vx)
    assert t1.shape == []


def test_jvp_output_independent_of_inputs_is_zero():
    x = t([1.0, 2.0])
    _, (t0, t1) = jvp(lambda a: (a * 2, t([7.0])), x, t([1.0, 1.0]))
    np.testing.assert_allclose(t0.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(t1.numpy(), [0.0])


def test_jvp_create_graph():
    x = t([1.0, 2.0], stop_gradient=False)
    _, tangent = jvp(lambda a: a ** 3, x, t([1.0, 1.0]), create_graph=True)  # 3 x^2
    (g,) = eager.grad(tangent.sum(), x)
    np.testing.assert_allclose(g.numpy(), 6 * x.numpy())


def test_jvp_bad_v():
    x = t([1.0, 2.0])
    with pytest.raises(ValueError, match=r"jvp: v\[0\] has shape \[1\] but inputs\[0\] has shape \[2\]"):
        jvp(eager.tanh, x, t([1.0]))
    _, ones = jvp(eager.tanh, x)  # v=None: ones, as in Paddle
    np.testing.assert_allclose(ones.numpy(), 1 - np.tanh(x.numpy()) ** 2, rtol=1e-6)
    with pytest.raises(ValueError, match=r"jvp: v has 1 tensor\(s\) but there are 2 inputs"):
        jvp(lambda a, b: a * b, (x, x * 1), t([1.0, 1.0]))


def test_jvp_needs_a_differentiable_backward():
    class NumpyBackward(PyLayer):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return eager.to_tensor(grad.numpy() * 2)  # leaves the graph

    with pytest.raises(AutogradError, match=r"jvp: .*double-vjp trick"):
        jvp(NumpyBackward.apply, t([1.0]), t([1.0]))


# -- argument errors ---------------------------------------------------------------

@pytest.mark.parametrize("fn", [jacobian, hessian, vjp, jvp])
def test_bad_inputs(fn):
    name = fn.__name__
    with pytest.raises(TypeError, match=rf"{name}: inputs must be a Tensor or a sequence"):
        fn(lambda a: a, np.ones(2))
    with pytest.raises(TypeError, match=rf"{name}: inputs\[1\] is float, expected a Tensor"):
        fn(lambda a, b: a, (t([1.0]), 2.0))
    with pytest.raises(TypeError, match=rf"{name}: inputs\[0\] has dtype paddle.int64; only floating-point"):
        fn(lambda a: a, eager.to_tensor([1, 2]))
    with pytest.raises(ValueError, match=rf"{name}: inputs is empty"):
        fn(lambda: t([1.0]), ())
    x = t([1.0])
    with pytest.raises(ValueError, match=rf"{name}: inputs lists the same tensor twice"):
        fn(lambda a, b: a * b, (x, x))


@pytest.mark.parametrize("fn", [jacobian, hessian])
def test_func_must_return_tensors(fn):
    with pytest.raises(TypeError, match=rf"{fn.__name__}: func must return a Tensor or a non-empty "
                                        rf"tuple of Tensors, got float"):
        fn(lambda a: 1.0, t([1.0]))


def test_identity_function():
    x, v = t([1.0, 2.0]), t([3.0, 4.0])
    np.testing.assert_array_equal(jacobian(lambda a: a, x).numpy(), np.eye(2))
    np.testing.assert_array_equal(vjp(lambda a: a, x, v)[1].numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(jvp(lambda a: a, x, v)[1].numpy(), [3.0, 4.0])


def test_constant_output_jacobian_is_unused():
    with pytest.raises(AutogradError, match=r"jacobian: output 0 does not depend on input 0"):
        jacobian(lambda a: t([1.0, 1.0]), t([1.0]))
    assert jacobian(lambda a: t([1.0, 1.0]), t([1.0]), allow_unused=True) is None
