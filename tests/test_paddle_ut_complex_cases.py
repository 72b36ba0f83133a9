"""Cases found by re-running the dygraph parts of PaddlePaddle's own complex-number
unit tests (test/legacy_test: test_complex_abs, _cast, _elementwise_layers,
_getitem, _grad_accumulated, _kron, _matmul, _op, _reshape, _simplenet,
_sum_layer, _trace_layer, _transpose, _variable, _view_op, test_real_imag_op,
test_conj_op, test_angle_op) and the complex branches of the activation,
creation and reduction tests against eager, each checked against the real
Paddle 2.6.2 (values, dtypes and gradients, which follow Paddle's conjugate
Wirtinger convention: x.grad = out_grad * conj(f'(x)) for a holomorphic f).

What they found (one test per bug below; each failed before its fix):
- matmul, kron, inner, outer, dot (and mm, tensordot through matmul) refused a
  floating tensor with a complex one; Paddle's kernel dispatch makes both the
  complex type (test_complex_matmul's test_complex_x_real_y, test_complex_kron):
  now promoted (ops.yaml's complex_promotion), each input's gradient in its own
  dtype as Paddle's. Two real dtypes, or an integer with a complex tensor, are
  still refused, as Paddle's.
- nn.functional.sigmoid, silu, log_sigmoid and tanh refused complex tensors,
  which Paddle 2.6.2 computes (with conjugate-Wirtinger gradients).
- einsum, add_n and stack refused a complex operand with real ones (isclose a
  complex x with a real y); Paddle's kernel takes the first operand's complex
  dtype and casts the real operands to it.
- nn.functional.linear (and nn.Linear) refused a complex x with float weights;
  Paddle's linear is a matmul and an add, which promote that pair.
- polar refused abs and angle of two float dtypes; Paddle's multiply promotes
  them (float32 with float64 gives complex128).
- complex() of integer parts raised a ValueError only, and the float-only
  activations (relu, softmax, gelu, ...) a TypeError only, for a dtype no
  kernel takes; Paddle's dygraph raises RuntimeError there (test_real_imag_op's
  test_dtype_dygraph_error): eager's errors are now RuntimeErrors too.

Left as they were (eager refused what Paddle 2.6.2 computes; both computed since
test_paddle_ut_leftovers_cases): softsign, softplus and hardswish of a complex tensor
(stanh was done by the activation pass); index_put with a complex x and a real y.

Fixed afterwards: logical_and/or/xor of a complex x and a real y (ops.yaml's
complex_promotion; a real x with a complex y is computed too, where Paddle 2.6.2's
kernel raises).

Paddle quirks kept out (eager keeps the correct value): cumprod's and acosh's
complex gradients are wrong in Paddle 2.6.2 (checked against finite
differences); a complex Python scalar with a real tensor (float32 - (1+1j),
int64 + 1j) silently drops the imaginary part in Paddle (eager promotes to
complex); the stored test_complex_variable passes a name as to_tensor's second
argument (dtype), which Paddle 2.6.2 refuses too; as_real of an empty tensor
fails in Paddle's backward (eager computes it). Paddle's CPU kernels lack
complex log, sqrt, rsqrt, square, reciprocal, pow, prod, cumsum, where, eye,
diag, isnan/isfinite, tile's gradient and full with a complex fill value: eager
computes them.
"""
import numpy as np
import pytest

import eager
import eager.nn.functional as F

pytestmark = pytest.mark.usefixtures("device")


def _c(rng, *shape, dtype="complex128"):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _r(rng, *shape, dtype="float64"):
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("real_dtype, complex_dtype, expected", [
    ("float32", "complex64", "complex64"),
    ("float64", "complex128", "complex128"),
    ("float32", "complex128", "complex128"),
])
@pytest.mark.parametrize("real_first", [True, False])
def test_matmul_promotes_a_floating_with_a_complex_tensor(real_dtype, complex_dtype, expected, real_first):
    rng = np.random.default_rng(0)
    a, b = _r(rng, 2, 3, 4, dtype=real_dtype), _c(rng, 2, 4, 5, dtype=complex_dtype)
    if not real_first:
        a, b = _c(rng, 2, 3, 4, dtype=complex_dtype), _r(rng, 2, 4, 5, dtype=real_dtype)
    x = eager.to_tensor(a, stop_gradient=False)
    y = eager.to_tensor(b, stop_gradient=False)
    out = eager.matmul(x, y)
    assert out.dtype == getattr(eager, expected)
    np.testing.assert_allclose(out.numpy(), np.matmul(a, b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.matmul(y).numpy(), np.matmul(a, b), rtol=1e-5, atol=1e-6)
    g = _c(rng, 2, 3, 5, dtype=expected)
    out.backward(eager.to_tensor(g))
    # d out / d x: g @ conj(y)^T, d out / d y: conj(x)^T @ g; a real input keeps the real part
    gx = np.matmul(g, np.conj(np.swapaxes(b, -1, -2)))
    gy = np.matmul(np.conj(np.swapaxes(a, -1, -2)), g)
    assert x.grad.dtype == x.dtype and y.grad.dtype == y.dtype
    np.testing.assert_allclose(x.grad.numpy(), gx if np.iscomplexobj(a) else gx.real, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y.grad.numpy(), gy if np.iscomplexobj(b) else gy.real, rtol=1e-4, atol=1e-5)


def test_matmul_promotion_keeps_the_transpose_flags():
    rng = np.random.default_rng(1)
    a, b = _r(rng, 4, 3, dtype="float32"), _c(rng, 5, 4, dtype="complex64")
    out = eager.matmul(eager.to_tensor(a), eager.to_tensor(b), transpose_x=True, transpose_y=True)
    assert out.dtype == eager.complex64
    np.testing.assert_allclose(out.numpy(), a.T @ b.T, rtol=1e-5, atol=1e-6)


def test_products_promote_a_floating_with_a_complex_tensor():
    rng = np.random.default_rng(2)
    r, c = _r(rng, 2, 3, dtype="float32"), _c(rng, 2, 3, dtype="complex64")
    R, C = eager.to_tensor(r), eager.to_tensor(c)
    cases = [
        (eager.kron(R, C), np.kron(r, c)), (eager.kron(C, R), np.kron(c, r)),
        (eager.inner(R, C), np.inner(r, c)), (eager.outer(C, R), np.outer(c, r)),
        (eager.dot(C[0], R[0]), np.dot(c[0], r[0])), (eager.dot(R[0], C[0]), np.dot(r[0], c[0])),
        (eager.mm(R, C.T), r @ c.T), (eager.tensordot(R, C, axes=2), np.tensordot(r, c, axes=2)),
    ]
    for out, expected in cases:
        assert out.dtype == eager.complex64
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_kron_of_real_and_complex_gradients():
    rng = np.random.default_rng(3)
    a, b = _r(rng, 2, 2), _c(rng, 3, 3)
    x = eager.to_tensor(a, stop_gradient=False)
    y = eager.to_tensor(b, stop_gradient=False)
    out = eager.kron(x, y)
    g = _c(rng, 6, 6)
    out.backward(eager.to_tensor(g))
    blocks = g.reshape(2, 3, 2, 3)
    gx = np.einsum("iajb,ab->ij", blocks, np.conj(b))
    gy = np.einsum("iajb,ij->ab", blocks, a)
    assert x.grad.dtype == eager.float64 and y.grad.dtype == eager.complex128
    np.testing.assert_allclose(x.grad.numpy(), gx.real, rtol=1e-10)
    np.testing.assert_allclose(y.grad.numpy(), gy, rtol=1e-10)


@pytest.mark.parametrize("left, right", [("float32", "float64"), ("int64", "complex64"), ("complex64", "int32")])
def test_products_still_refuse_other_dtype_pairs(left, right):
    # Paddle 2.6.2 refuses these pairs too (ValueError from its kernels)
    x = eager.ones([2, 2], dtype=left)
    y = eager.ones([2, 2], dtype=right)
    for op in (eager.matmul, eager.kron, eager.inner, eager.outer):
        with pytest.raises(ValueError, match="dtype"):
            op(x, y)


def _holomorphic_grad(f, z, g, h=1e-6):
    """out_grad * conj(f'(z)), f' by a central difference along the real axis."""
    return g * np.conj((f(z + h) - f(z - h)) / (2 * h))


def _np_sigmoid(z):
    return 1 / (1 + np.exp(-z))


@pytest.mark.parametrize("name, reference", [
    ("sigmoid", _np_sigmoid),
    ("silu", lambda z: z * _np_sigmoid(z)),
    ("log_sigmoid", lambda z: np.log(_np_sigmoid(z))),
    ("tanh", np.tanh),
])
def test_activations_take_complex_tensors(name, reference):
    rng = np.random.default_rng(4)
    z, g = _c(rng, 3, 4), _c(rng, 3, 4)
    x = eager.to_tensor(z, stop_gradient=False)
    out = getattr(F, name)(x)
    assert out.dtype == eager.complex128
    np.testing.assert_allclose(out.numpy(), reference(z), rtol=1e-10, atol=1e-12)
    out.backward(eager.to_tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), _holomorphic_grad(reference, z, g), rtol=1e-6, atol=1e-7)
    out64 = getattr(F, name)(eager.to_tensor(z.astype("complex64")))
    assert out64.dtype == eager.complex64
    np.testing.assert_allclose(out64.numpy(), reference(z), rtol=1e-4, atol=1e-5)


def test_sigmoid_layer_of_a_complex_tensor():
    # value from Paddle 2.6.2: paddle.nn.Sigmoid()(paddle.to_tensor([0.3+0.4j]))
    out = eager.nn.Sigmoid()(eager.to_tensor(np.array([0.3 + 0.4j])))
    np.testing.assert_allclose(out.numpy(), _np_sigmoid(np.array([0.3 + 0.4j])), rtol=1e-12)


def test_activations_still_refuse_integer_tensors():
    for name in ("sigmoid", "silu", "log_sigmoid", "tanh"):
        with pytest.raises(TypeError, match=f"{name}: argument 'x' expected a floating-point or complex"):
            getattr(F, name)(eager.to_tensor([1, 2]))


def test_polar_of_two_float_dtypes_promotes():
    # Paddle 2.6.2: polar(float32 abs, float64 angle) is complex128; each gradient in its input's dtype
    a, t = np.array([2.0, 0.5], "float32"), np.array([1.0, -2.0])
    g = np.array([1 + 2j, -0.5 + 1j])
    abs_ = eager.to_tensor(a, stop_gradient=False)
    angle = eager.to_tensor(t, stop_gradient=False)
    out = eager.polar(abs_, angle)
    assert out.dtype == eager.complex128
    np.testing.assert_allclose(out.numpy(), a * np.exp(1j * t), rtol=1e-7)
    out.backward(eager.to_tensor(g))
    assert abs_.grad.dtype == eager.float32 and angle.grad.dtype == eager.float64
    np.testing.assert_allclose(abs_.grad.numpy(), (g * np.conj(np.exp(1j * t))).real, rtol=1e-6)
    np.testing.assert_allclose(angle.grad.numpy(), (g * np.conj(1j * a * np.exp(1j * t))).real, rtol=1e-6)


def test_complex_of_integer_parts_is_also_a_runtime_error():
    # Paddle 2.6.2 raises RuntimeError (no complex kernel for int64); eager's ValueError is one too
    parts = eager.to_tensor([1, 2]), eager.to_tensor([3, 4])
    with pytest.raises(RuntimeError, match="complex: argument 'real' expected one of paddle.float32"):
        eager.complex(*parts)
    with pytest.raises(ValueError):
        eager.complex(*parts)


def test_float_only_activations_refuse_complex_with_a_runtime_error():
    # Paddle 2.6.2's relu / softmax / gelu of a complex tensor: RuntimeError (kernel not registered)
    x = eager.to_tensor(np.array([1 + 1j, -2j]))
    for fn in (F.relu, F.softmax, F.gelu, F.elu):
        with pytest.raises(RuntimeError, match="expected a floating-point Tensor"):
            fn(x)
        with pytest.raises(TypeError):
            fn(x)


def test_linear_of_a_complex_input_with_float_weights():
    # Paddle 2.6.2: F.linear (and nn.Linear) of a complex64 x with float32 weight and bias
    # is complex64; weight.grad and bias.grad stay float32 (the real part)
    rng = np.random.default_rng(7)
    a, w, b = _c(rng, 2, 3, dtype="complex64"), _r(rng, 3, 4, dtype="float32"), _r(rng, 4, dtype="float32")
    g = _c(rng, 2, 4, dtype="complex64")
    x = eager.to_tensor(a, stop_gradient=False)
    weight = eager.to_tensor(w, stop_gradient=False)
    bias = eager.to_tensor(b, stop_gradient=False)
    out = F.linear(x, weight, bias)
    assert out.dtype == eager.complex64
    np.testing.assert_allclose(out.numpy(), a @ w + b, rtol=1e-5, atol=1e-5)
    out.backward(eager.to_tensor(g))
    assert x.grad.dtype == eager.complex64 and weight.grad.dtype == eager.float32 and bias.grad.dtype == eager.float32
    np.testing.assert_allclose(x.grad.numpy(), g @ w.T, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(weight.grad.numpy(), (np.conj(a).T @ g).real, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bias.grad.numpy(), g.sum(0).real, rtol=1e-5, atol=1e-5)
    layer = eager.nn.Linear(3, 4)
    np.testing.assert_allclose(layer(x).numpy(), a @ layer.weight.numpy() + layer.bias.numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="linear: argument 'weight' expected the dtype of 'x'"):
        F.linear(eager.ones([2, 3]), eager.ones([3, 4], dtype="float64"))  # two real dtypes: still refused


def test_einsum_and_add_n_cast_real_operands_to_a_complex_first_one():
    # Paddle 2.6.2 takes the first operand's complex dtype and casts the real ones to it
    # (complex64 with float64 stays complex64); each gradient in its input's dtype
    rng = np.random.default_rng(8)
    a, b = _c(rng, 2, 3, dtype="complex64"), _r(rng, 2, 3)
    x = eager.to_tensor(a, stop_gradient=False)
    y = eager.to_tensor(b, stop_gradient=False)
    out = eager.einsum("ij,kj->ik", x, y)
    assert out.dtype == eager.complex64
    np.testing.assert_allclose(out.numpy(), a @ b.T, rtol=1e-5, atol=1e-5)
    g = _c(rng, 2, 2, dtype="complex64")
    out.backward(eager.to_tensor(g))
    assert y.grad.dtype == eager.float64
    np.testing.assert_allclose(x.grad.numpy(), g @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y.grad.numpy(), (g.T @ np.conj(a)).real, rtol=1e-5, atol=1e-5)
    total = eager.add_n([eager.to_tensor(a), eager.to_tensor(b)])
    assert total.dtype == eager.complex64
    np.testing.assert_allclose(total.numpy(), a + b, rtol=1e-6)
    # a real first operand: Paddle refuses; eager promotes to the complex type wide enough
    assert eager.einsum("ij,kj->ik", y, x).dtype == eager.complex128
    with pytest.raises(ValueError, match="add_n: argument 'inputs' expected tensors of one shape and dtype"):
        eager.add_n([eager.ones([2]), eager.ones([2], dtype="int64")])  # no complex: still refused


def test_stack_and_isclose_take_a_complex_tensor_with_real_ones():
    # Paddle 2.6.2: stack([complex64, float64]) is complex64 (the real one cast to the
    # first's dtype); isclose(complex64, float32) compares in complex64
    rng = np.random.default_rng(9)
    a, b = _c(rng, 2, 3, dtype="complex64"), _r(rng, 2, 3)
    x = eager.to_tensor(a, stop_gradient=False)
    y = eager.to_tensor(b, stop_gradient=False)
    out = eager.stack([x, y])
    assert out.dtype == eager.complex64
    np.testing.assert_allclose(out.numpy(), np.stack([a, b]), rtol=1e-6)
    g = _c(rng, 2, 2, 3, dtype="complex64")
    out.backward(eager.to_tensor(g))
    assert y.grad.dtype == eager.float64
    np.testing.assert_allclose(x.grad.numpy(), g[0], rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), g[1].real, rtol=1e-6)
    close = eager.isclose(eager.to_tensor(np.array([1 + 0j, 1 + 1j], "complex64")), eager.to_tensor([1.0, 1.0]))
    np.testing.assert_array_equal(close.numpy(), [True, False])
    with pytest.raises(ValueError, match="stack: argument 'x' expected tensors of one dtype"):
        eager.stack([eager.ones([2]), eager.ones([2], dtype="int64")])  # no complex: still refused


@pytest.mark.parametrize("op, expected", [("logical_and", [False, True, False]), ("logical_or", [True, True, False]),
                                          ("logical_xor", [True, False, False])])
def test_logical_ops_take_a_complex_x_with_a_real_y(op, expected):
    # from Paddle 2.6.2: a purely imaginary element is nonzero (True)
    z = eager.to_tensor([1j, 1 + 0j, 0j])
    y = eager.to_tensor([0.0, 2.0, 0.0])
    out = getattr(eager, op)(z, y)
    assert out.dtype == eager.bool
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(getattr(z, op)(y).numpy(), expected)
