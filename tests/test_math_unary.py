"""What the op table cannot express for the math unary ops: the special
functions against the math module, known values and their identities; Paddle's
rules (round's halves, gradients at kinks, nan_to_num's defaults); complex
inputs, whose gradients are checked by finite differences in the real and
imaginary parts; float16; the inplace variants; and the errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

import eager
from eager.autograd import gradgradcheck
from eager.autograd.gradient_check import gradient_function
from eager.generated import forward_api as F

EULER_GAMMA = 0.5772156649015329
ZETA_3 = 1.2020569031595942


def values(op, array, *args):
    return getattr(eager, op)(eager.to_tensor(np.asarray(array)), *args).numpy()


def leaf(array):
    return eager.to_tensor(np.asarray(array), stop_gradient=False)


# -- special functions -------------------------------------------------------------------------

@pytest.fixture(params=["scipy", "array operations"])
def erf_source(request, monkeypatch):
    """Both sources of erf on the CPU: SciPy's where installed, and the array-operation
    series/continued fraction that runs without SciPy (and on the GPU)."""
    from phi.kernels import math_unary_special
    if request.param == "scipy":
        if math_unary_special.scipy_special is None:
            pytest.skip("SciPy is not installed")
    else:
        monkeypatch.setattr(math_unary_special, "scipy_special", None)
    return request.param


def test_erf_matches_math_erf_across_both_of_its_methods(erf_source):
    # The series below 3 and the continued fraction above it; erfc stays relative far out.
    x = np.concatenate([np.linspace(-8, 8, 1601), [2.9999999999, 3.0, 3.0000000001, 1e-300, -0.0]])
    want = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(values("erf", x), want, rtol=2e-15, atol=0)
    far = np.linspace(3, 26, 400)
    assert np.allclose(1 - values("erf", far), [math.erfc(v) for v in far], rtol=0, atol=3e-16)
    assert list(values("erf", [np.inf, -np.inf])) == [1.0, -1.0] and np.isnan(values("erf", [np.nan]))[0]


def test_erfinv_known_value_round_trip_and_edges():
    assert abs(values("erfinv", [0.5])[0] - 0.4769362762044699) < 2e-16
    x = np.linspace(-0.999999, 0.999999, 1001)
    back = np.array([math.erf(v) for v in values("erfinv", x)])
    np.testing.assert_allclose(back, x, rtol=0, atol=1e-15)
    # Close to 1 the residual is taken through erfc, so 1 - x keeps its digits.
    for gap in (1e-8, 1e-12, 1e-15):
        y = values("erfinv", [1 - gap])[0]
        assert math.erfc(y) == pytest.approx(np.float64(1.0) - (1 - gap), rel=1e-9)
    edges = values("erfinv", [1.0, -1.0, 1.5, -2.0, 0.0])
    assert edges[0] == np.inf and edges[1] == -np.inf and np.isnan(edges[2:4]).all() and edges[4] == 0


def test_lgamma_matches_math_lgamma_including_negative_arguments():
    x = np.concatenate([np.linspace(-20.5, 60, 3001), [1e-300, 1e-8, 0.5, 1.0, 2.0, 171.6, 1e5]])
    x = x[~((x <= 0) & (x == np.floor(x)))]
    want = np.array([math.lgamma(v) for v in x])
    np.testing.assert_allclose(values("lgamma", x), want, rtol=2e-14, atol=2e-14)
    poles = values("lgamma", [0.0, -1.0, -7.0, np.inf, -np.inf])
    assert (poles == np.inf).all()


def test_digamma_known_values_recurrence_and_reflection():
    got = values("digamma", [1.0, 0.5, 0.25, 2.0])
    np.testing.assert_allclose(got, [-EULER_GAMMA, -EULER_GAMMA - 2 * math.log(2),
                                     -EULER_GAMMA - math.pi / 2 - 3 * math.log(2), 1 - EULER_GAMMA],
                               rtol=1e-15, atol=1e-15)
    x = np.linspace(-9.73, 30.1, 2001)
    # psi(x + 1) = psi(x) + 1/x, across the branch (x < 0 is computed by reflection).
    np.testing.assert_allclose(values("digamma", x + 1) - values("digamma", x), 1 / x, rtol=1e-11, atol=1e-11)
    # psi(1 - x) - psi(x) = pi cot(pi x)
    np.testing.assert_allclose(values("digamma", 1 - x) - values("digamma", x), math.pi / np.tan(math.pi * x),
                               rtol=1e-10, atol=1e-10)
    # The poles (and -inf) give NaN, as Paddle's digamma (its docstring prints nan at 0; the
    # limits from either side are -inf and +inf); +inf gives +inf.
    edge = values("digamma", [0.0, -1.0, -4.0, -np.inf, np.inf])
    assert np.isnan(edge[:4]).all() and edge[4] == np.inf
    # Just beside a pole the values are finite and of opposite signs, as psi(x) ~ -1/(x + k).
    beside = values("digamma", [-1.0 - 1e-9, -1.0 + 1e-9])
    assert beside[0] > 1e8 and beside[1] < -1e8
    # polygamma with n = 0 is digamma, poles included (Paddle's polygamma(x, 0) calls digamma).
    assert np.isnan(values("polygamma", [0.0, -3.0], 0)).all()
    # Paddle's float32 example: [[1, 1.5], [0, -2.2]] -> [[-0.5772, 0.0365], [nan, 5.3229]]
    # (psi(1.5) = 2 - gamma - 2 log 2; psi(-2.2) from psi(0.8) by the recurrence).
    got = eager.digamma(eager.to_tensor([[1.0, 1.5], [0.0, -2.2]], dtype="float32")).numpy()
    assert got.dtype == np.float32 and np.isnan(got[1, 0])
    psi_08 = values("digamma", [0.8])[0]
    expected = [-EULER_GAMMA, 2 - EULER_GAMMA - 2 * math.log(2), psi_08 + 1 / 0.2 + 1 / 1.2 + 1 / 2.2]
    np.testing.assert_allclose(got[[0, 0, 1], [0, 1, 1]], expected, rtol=1e-6)


def test_digamma_is_the_derivative_of_lgamma():
    x = np.array([-2.7, -0.3, 0.2, 1.3, 7.5, 40.0])
    h = 1e-6
    slope = (values("lgamma", x + h) - values("lgamma", x - h)) / (2 * h)
    np.testing.assert_allclose(values("digamma", x), slope, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("n, at_one", [(1, math.pi ** 2 / 6), (2, -2 * ZETA_3), (3, math.pi ** 4 / 15)])
def test_polygamma_known_values_and_recurrence(n, at_one):
    assert values("polygamma", [1.0], n)[0] == pytest.approx(at_one, rel=1e-14)
    x = np.linspace(-6.61, 20.3, 801)
    step = (-1) ** n * math.factorial(n) / x ** (n + 1)
    got = values("polygamma", x + 1, n) - values("polygamma", x, n)
    np.testing.assert_allclose(got, step, rtol=1e-9, atol=1e-9 * np.abs(step).max())
    assert (values("polygamma", [0.0, -2.0], n) == (-1) ** (n + 1) * np.inf).all()


def test_polygamma_zero_is_digamma():
    x = np.array([-3.5, 0.1, 2.0, 17.0])
    np.testing.assert_array_equal(values("polygamma", x, 0), values("digamma", x))


def test_special_functions_differentiate_to_third_order():
    # lgamma -> digamma -> polygamma(1) -> polygamma(2): each composite rule calls the next op.
    x = leaf([0.7, 2.5, -1.5])
    (d1,) = eager.grad(eager.lgamma(x).sum(), x, create_graph=True)
    (d2,) = eager.grad(d1.sum(), x, create_graph=True)
    (d3,) = eager.grad(d2.sum(), x)
    np.testing.assert_allclose(d1.numpy(), values("digamma", x.numpy()), rtol=1e-14)
    np.testing.assert_allclose(d3.numpy(), values("polygamma", x.numpy(), 2), rtol=1e-14)


# -- Paddle's rules ------------------------------------------------------------------------------

def test_round_sends_halves_away_from_zero_unlike_numpy():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999999999999994, -1.4, 2 ** 52 + 1.0])
    np.testing.assert_array_equal(values("round", x), [1, 2, 3, -1, -3, 0, -1, 2 ** 52 + 1])
    assert list(np.round(x[:5])) == [0, 2, 2, -0, -2]  # numpy: halves to even
    specials = values("round", [np.inf, -np.inf, np.nan])
    assert specials[0] == np.inf and specials[1] == -np.inf and np.isnan(specials[2])


@pytest.mark.parametrize("op", ["floor", "ceil", "round", "trunc"])
def test_rounding_ops_have_zero_gradient(op):
    x = leaf([-1.5, -0.2, 0.0, 0.5, 2.7])
    (grad,) = eager.grad(getattr(eager, op)(x).sum(), x)
    np.testing.assert_array_equal(grad.numpy(), np.zeros(5))


def test_abs_gradient_at_zero_is_zero():
    x = leaf([-2.0, 0.0, 3.0])
    (grad,) = eager.grad(eager.abs(x).sum(), x, create_graph=True)
    np.testing.assert_array_equal(grad.numpy(), [-1.0, 0.0, 1.0])


def test_frac_keeps_the_sign_and_passes_the_gradient():
    x = leaf([-2.75, -0.5, 0.0, 3.25])
    out = eager.frac(x)
    np.testing.assert_array_equal(out.numpy(), [-0.75, -0.5, 0.0, 0.25])
    (grad,) = eager.grad(out.sum(), x)
    np.testing.assert_array_equal(grad.numpy(), np.ones(4))


def test_nan_to_num_defaults_and_gradient():
    x = np.array([np.nan, np.inf, -np.inf, -1.5], dtype="float32")
    big = np.finfo(np.float32)
    np.testing.assert_array_equal(values("nan_to_num", x), [0.0, big.max, big.min, -1.5])
    np.testing.assert_array_equal(eager.nan_to_num(eager.to_tensor(x), nan=9.0, neginf=-4.0).numpy(),
                                  [9.0, big.max, -4.0, -1.5])
    t = leaf(x.astype("float64"))
    (grad,) = eager.grad(eager.nan_to_num(t).sum(), t)
    np.testing.assert_array_equal(grad.numpy(), [0.0, 0.0, 0.0, 1.0])


def test_integer_inputs_where_paddle_takes_them():
    n = np.array([-3, 0, 7], dtype="int32")
    np.testing.assert_array_equal(values("abs", n), [3, 0, 7])
    np.testing.assert_array_equal(values("neg", n), [3, 0, -7])
    np.testing.assert_array_equal(values("square", n), [9, 0, 49])
    np.testing.assert_array_equal(values("trunc", n), n)
    np.testing.assert_array_equal(values("frac", n), [0, 0, 0])
    np.testing.assert_array_equal(values("bitwise_not", n), [2, -1, -8])
    assert values("isfinite", n).all() and not values("isnan", n).any()
    assert values("abs", n).dtype == np.int32


def test_logical_not_of_numbers_is_bool():
    out = values("logical_not", np.array([0.0, -2.0, np.nan]))
    assert out.dtype == bool and list(out) == [True, False, False]


# -- complex inputs -------------------------------------------------------------------------------

HOLOMORPHIC = {
    "sqrt": np.sqrt, "rsqrt": lambda z: 1 / np.sqrt(z), "reciprocal": lambda z: 1 / z, "square": lambda z: z * z,
    "log1p": lambda z: np.log(1 + z), "expm1": lambda z: np.exp(z) - 1, "log2": lambda z: np.log(z) / math.log(2),
    "log10": lambda z: np.log(z) / math.log(10), "sin": np.sin, "cos": np.cos, "tan": lambda z: np.sin(z) / np.cos(z),
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "neg": np.negative,
}
NON_HOLOMORPHIC = {"abs": np.abs, "real": np.real, "imag": np.imag, "conj": np.conj, "angle": np.angle}
Z = np.array([0.7 + 0.4j, -1.2 + 0.9j, 0.3 - 1.1j, 2.1 - 0.2j])


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("op", sorted(HOLOMORPHIC) + sorted(NON_HOLOMORPHIC))
def test_complex_forward_matches_numpy(op, dtype):
    z = Z.astype(dtype)
    got = values(op, z)
    want = {**HOLOMORPHIC, **NON_HOLOMORPHIC}[op](z.astype("complex128"))
    assert got.dtype == np.asarray(want).astype(z.real.dtype if np.isrealobj(want) else dtype).dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "complex64" else 1e-13, atol=1e-6)


def _finite_difference_gradient(fn, z, seed, h=1e-6):
    """dL/d(re z) + i dL/d(im z) of L = sum(re(conj(seed) * fn(z))): the gradient the
    kernels return for a real loss (PyTorch's convention)."""
    def loss(w):
        return np.sum(np.real(np.conj(seed) * fn(w)))
    grad = np.zeros_like(z)
    for k in range(z.size):
        for direction in (1.0, 1j):
            step = np.zeros_like(z)
            step[k] = h * direction
            grad[k] += direction * (loss(z + step) - loss(z - step)) / (2 * h)
    return grad


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("op", sorted(HOLOMORPHIC) + sorted(NON_HOLOMORPHIC))
def test_complex_gradient_matches_finite_differences(op, create_graph):
    fn = {**HOLOMORPHIC, **NON_HOLOMORPHIC}[op]
    rng = np.random.default_rng(len(op))
    out_is_real = np.isrealobj(fn(Z))
    seed = rng.uniform(-1, 1, Z.shape) + (0 if out_is_real else 1j * rng.uniform(-1, 1, Z.shape))
    z = leaf(Z)
    # create_graph runs the composite rule instead of the kernel: both must follow the convention.
    (grad,) = eager.grad(getattr(eager, op)(z), z, eager.to_tensor(seed), create_graph=create_graph)
    np.testing.assert_allclose(grad.numpy(), _finite_difference_gradient(fn, Z, seed), rtol=1e-7, atol=1e-8)


def test_complex_gradients_at_zero_are_zero():
    z = leaf(np.array([0j, 1 + 1j]))
    for op in ("abs", "angle"):
        (grad,) = eager.grad(getattr(eager, op)(z).sum(), z)
        assert grad.numpy()[0] == 0


def test_angle_of_real_input_is_zero_or_pi_with_zero_gradient():
    x = leaf([-2.0, 0.0, 3.0])
    out = eager.angle(x)
    np.testing.assert_array_equal(out.numpy(), [math.pi, 0.0, 0.0])
    (grad,) = eager.grad(out.sum(), x)
    np.testing.assert_array_equal(grad.numpy(), np.zeros(3))


# -- float16 -----------------------------------------------------------------------------------

FLOAT_OPS = ["abs", "neg", "sqrt", "square", "rsqrt", "reciprocal", "log1p", "expm1", "sin", "cos", "tan", "asin",
             "acos", "atan", "sinh", "cosh", "asinh", "atanh", "log2", "log10", "erf", "erfinv", "floor", "ceil",
             "round", "trunc", "lgamma", "digamma", "nan_to_num", "angle"]  # not frac: Paddle refuses float16 there


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_float16_kernels_agree_with_float64(op):
    x = np.array([0.3, 0.55, 0.8, 0.95], dtype="float16")
    got = values(op, x)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float64), values(op, x.astype(np.float64)), rtol=2e-3, atol=2e-3)


# -- inplace variants ---------------------------------------------------------------------------

INPLACE = ["abs", "sqrt", "rsqrt", "reciprocal", "log1p", "expm1", "sin", "cos", "tan", "asin", "acos", "atan",
           "sinh", "cosh", "asinh", "atanh", "log2", "log10", "erf", "erfinv", "floor", "ceil", "round",
           "trunc", "frac", "lgamma", "digamma", "nan_to_num"]


@pytest.mark.parametrize("op", INPLACE)
def test_inplace_variant_writes_into_x_and_differentiates(op):
    data = np.array([0.25, 0.5, 0.75])
    want = values(op, data)
    x = leaf(data)
    y = x * 1.0
    result = getattr(y, op + "_")()
    assert result is y
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-15)
    # The backward of an op that saves its input sees the input, not the overwritten buffer.
    (grad,) = eager.grad(y.sum(), x)
    z = leaf(data)
    (expected,) = eager.grad(getattr(eager, op)(z).sum(), z)
    np.testing.assert_allclose(grad.numpy(), expected.numpy(), rtol=1e-15)


def test_inplace_ops_on_other_dtypes():
    n = eager.to_tensor(np.array([0, 5], dtype="int16"))
    n.bitwise_not_()
    np.testing.assert_array_equal(n.numpy(), [-1, -6])
    b = eager.to_tensor(np.array([True, False]))
    b.logical_not_()
    np.testing.assert_array_equal(b.numpy(), [False, True])
    p = eager.to_tensor(np.array([1.0, 2.0]))
    p.polygamma_(1)
    np.testing.assert_allclose(p.numpy(), [math.pi ** 2 / 6, math.pi ** 2 / 6 - 1], rtol=1e-14)


# -- errors --------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: eager.sqrt(eager.to_tensor([1, 2])), "sqrt: argument 'x' expected a floating-point or complex"),
    (lambda: eager.erf(eager.to_tensor(np.array([1j]))), "erf: argument 'x' expected a real floating-point"),
    (lambda: eager.real(eager.to_tensor([1.0])), "real: argument 'x' expected a complex"),
    (lambda: eager.bitwise_not(eager.to_tensor([1.0])), "bitwise_not: argument 'x' expected a bool or integer"),
    (lambda: eager.neg(eager.to_tensor([True])), "neg: argument 'x' expected a numeric"),
    (lambda: eager.trunc(eager.to_tensor(np.array([1], "int8"))), "trunc: argument 'input' expected a floating-point,"),
    (lambda: eager.angle(eager.to_tensor([1, 2])), "angle: argument 'x' expected a floating-point or complex"),
    (lambda: eager.polygamma(eager.to_tensor([1.0]), -1), "polygamma: argument 'n' expected an order >= 0"),
    (lambda: F.sin_grad(eager.ones([3]), eager.ones([4])), r"sin_grad: argument 'out_grad' expected paddle.float32\[3\]"),
    (lambda: F.abs_grad(eager.to_tensor(np.array([1j])), eager.to_tensor(np.array([1j]))),
     r"abs_grad: argument 'out_grad' expected paddle.float64\[1\]"),
])
def test_bad_input_is_refused_with_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_inplace_with_a_result_of_another_dtype_is_refused_and_leaves_x():
    z = eager.to_tensor(np.array([3 + 4j]))
    with pytest.raises(TypeError, match="abs_: the result is paddle.float64 but the tensor written in place is paddle.complex128"):
        z.abs_()
    assert z.numpy()[0] == 3 + 4j


# -- higher orders ----------------------------------------------------------------------------------

THIRD_ORDER = {
    "sqrt": (0.5, 2.0), "rsqrt": (0.5, 2.0), "reciprocal": (0.5, 2.0), "square": (-1.0, 1.0), "abs": (0.5, 2.0),
    "log1p": (0.1, 2.0), "expm1": (-1.0, 1.0), "log2": (0.5, 2.0), "sin": (-1.0, 1.0), "cos": (-1.0, 1.0),
    "tan": (-1.0, 1.0), "asin": (-0.8, 0.8), "acos": (-0.8, 0.8), "atan": (-1.0, 1.0), "sinh": (-1.0, 1.0),
    "cosh": (-1.0, 1.0), "asinh": (-1.0, 1.0), "acosh": (1.5, 3.0), "atanh": (-0.8, 0.8), "erf": (-1.0, 1.0),
    "erfinv": (-0.8, 0.8), "digamma": (0.5, 3.0), "nan_to_num": (-1.0, 1.0),
}


@pytest.mark.parametrize("op", sorted(THIRD_ORDER))
def test_third_order_gradients(op):
    # gradgradcheck of the gradient function checks second derivatives of the
    # composite rules, which are the op's third.
    low, high = THIRD_ORDER[op]
    rng = np.random.default_rng(len(op) * 7919)
    x = leaf(rng.uniform(low, high, (3,)))
    seed = leaf(rng.uniform(-1, 1, (3,)))
    assert gradgradcheck(gradient_function(getattr(eager, op), 1), [x, seed])
