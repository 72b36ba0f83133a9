"""Regression cases found by a differential sweep of the matmul / contraction family
(matmul with transpose_x/transpose_y and 1-d operands, mm, bmm, mv, dot, inner,
outer, addmm, baddbmm, einsum, tensordot, kron, cross, multi_dot, cdist, dist and
nn.functional.linear) against PyTorch and NumPy in float64: values, dtypes,
shapes, first and second order gradients, on the CPU and the fake GPU, with
size-0 and size-1 axes, plus bad arguments.

Found: nn.functional.linear's composite gradient (the one create_graph
differentiates again) reshaped with _F.reshape, where a 0 in the shape copies
the input's dimension (Paddle's rule), so the second order gradient of linear
with 0 out_features, 0 in_features, or an empty batch in more than 2 dimensions
raised a reshape error. addmm and baddbmm computed 0 * input (beta 0) and
0 * product (alpha 0), so NaN or inf there reached the result; Paddle runs one
BLAS GEMM, which reads neither term when its factor is 0 (PyTorch agrees).
dist's gradient was NaN where x == y (its pow chain gave 0 * inf; Paddle's
p_norm_grad, and PyTorch, give 0).
Values are checked against the closed forms and NumPy products written here.
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")

rng = np.random.default_rng(31)


def t(array, grad=False):
    return eager.to_tensor(np.asarray(array, dtype=np.float64), stop_gradient=not grad)


# -- linear's second order gradient with empty axes (the composite rule's reshape) --------------

@pytest.mark.parametrize("x_shape, out_features", [
    ((3,), 0), ((2, 3), 0), ((0, 3), 0), ((2, 0, 3), 0), ((2, 2, 3), 0),
    ((2, 0), 2), ((2, 2, 0), 2), ((0, 0), 0), ((2, 0, 3), 2), ((2, 2, 3), 2),
])
def test_linear_second_order_gradient_with_empty_axes(x_shape, out_features):
    in_features = x_shape[-1]
    xv = rng.normal(size=x_shape)
    wv = rng.normal(size=(in_features, out_features))
    gv = rng.normal(size=x_shape[:-1] + (out_features,))
    x, w, b = t(xv, True), t(wv, True), t(rng.normal(size=(out_features,)), True)
    out = eager.nn.functional.linear(x, w, b)
    gx, gw, gb = eager.grad([out], [x, w, b], [t(gv)], create_graph=True)
    # s = |G w^T|^2 + |x^T G|^2 + |sum G|^2 over rows, with G the out_grad as [rows, out].
    lead = int(np.prod(x_shape[:-1]))
    rows_x, rows_g = xv.reshape(lead, in_features), gv.reshape(lead, out_features)
    ref_gx, ref_gw = rows_g @ wv.T, rows_x.T @ rows_g
    np.testing.assert_allclose(gx.numpy(), ref_gx.reshape(x_shape), atol=1e-12)
    np.testing.assert_allclose(gw.numpy(), ref_gw, atol=1e-12)
    np.testing.assert_allclose(gb.numpy(), rows_g.sum(0), atol=1e-12)
    s = (gx * gx).sum() + (gw * gw).sum() + (gb * gb).sum()
    dx, dw = eager.grad([s], [x, w])
    assert dx.shape == list(x_shape) and dw.shape == [in_features, out_features]
    np.testing.assert_allclose(dx.numpy(), (2 * rows_g @ ref_gw.T).reshape(x_shape), atol=1e-12)
    np.testing.assert_allclose(dw.numpy(), 2 * ref_gx.T @ rows_g, atol=1e-12)


# -- addmm / baddbmm with beta or alpha 0 (Paddle's one GEMM reads neither term then) -----------

@pytest.mark.parametrize("op", ["addmm", "baddbmm"])
def test_zero_beta_or_alpha_drops_non_finite_terms(op):
    batch = (2,) if op == "baddbmm" else ()
    xv, yv = rng.normal(size=batch + (2, 3)), rng.normal(size=batch + (3, 4))
    product = xv @ yv
    fn = getattr(eager, op)
    bad_input = t(np.full(batch + (2, 4), np.nan), True)
    x, y = t(xv, True), t(yv, True)
    out = fn(bad_input, x, y, beta=0.0, alpha=1.5)
    np.testing.assert_allclose(out.numpy(), 1.5 * product, rtol=1e-12)
    out.sum().backward()
    np.testing.assert_array_equal(bad_input.grad.numpy(), np.zeros(batch + (2, 4)))
    np.testing.assert_allclose(x.grad.numpy(), 1.5 * np.ones(batch + (2, 4)) @ np.swapaxes(yv, -1, -2), rtol=1e-12)
    inputv = rng.normal(size=(4,))
    inp, bad_x = t(inputv, True), t(np.full(batch + (2, 3), np.inf), True)
    out = fn(inp, bad_x, y, beta=2.0, alpha=0.0)
    np.testing.assert_allclose(out.numpy(), np.broadcast_to(2.0 * inputv, batch + (2, 4)), rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(inp.grad.numpy(), np.full(4, 2.0 * np.prod(batch + (2,))), rtol=1e-12)
    np.testing.assert_array_equal(bad_x.grad.numpy(), np.zeros(batch + (2, 3)))


# -- dist's gradient where x == y (the pow chain's 0 * inf) -------------------------------------

@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 1.5])
def test_dist_gradient_is_zero_where_x_equals_y(p):
    values = rng.normal(size=(2, 3))
    x, y = t(values, True), t(values.copy(), True)
    out = eager.dist(x, y, p=p)
    assert float(out) == 0.0
    out.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))  # Paddle's p_norm_grad: 0 at a zero norm
    np.testing.assert_array_equal(y.grad.numpy(), np.zeros((2, 3)))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 0.5, -2.0])
def test_dist_values_and_gradients_elsewhere(p):
    xv, yv = rng.normal(size=(2, 3)), rng.normal(size=(3,))
    x, y = t(xv, True), t(yv, True)
    out = eager.dist(x, y, p=p)
    diff = xv - yv
    norm = (np.abs(diff) ** p).sum() ** (1 / p)
    np.testing.assert_allclose(float(out), norm, rtol=1e-12)
    out.backward()
    ref = np.abs(diff) ** (p - 1) * np.sign(diff) * norm ** (1 - p)
    np.testing.assert_allclose(x.grad.numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(y.grad.numpy(), -ref.sum(0), rtol=1e-10)
    assert eager.autograd.gradgradcheck(lambda a, b: eager.dist(a, b, p=p), [t(xv, True), t(yv, True)])


@pytest.mark.parametrize("shape", [(3, 0), (0,), (0, 2)])
def test_dist_of_empty_tensors_is_zero(shape):
    assert float(eager.dist(t(np.zeros(shape)), t(np.zeros(shape)), p=2.0)) == 0.0
