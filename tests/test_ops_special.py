"""The special functions and Paddle functions the op table cannot cover alone:
i0/i0e/i1/i1e and the incomplete gamma functions over their whole range (SciPy,
where installed, and identities and loops otherwise), nextafter, the composed
functions (gammaln, multigammaln, isposinf, isneginf, isreal, log_normal, crop,
multiplex, shard_index, baddbmm, pdist) and eager.linalg's vector_norm,
matrix_norm, cholesky_solve, matrix_exp, householder_product, svd_lowrank and
pca_lowrank: values against NumPy written from the maths (hand loops), float64
finite-difference gradients, and errors by type and message. Every test runs on
the CPU and on the GPU stand-in.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import eager
from eager.autograd import gradcheck, gradgradcheck

pytestmark = pytest.mark.usefixtures("device")


def t(array, grad=False, dtype=None):
    return eager.to_tensor(np.asarray(array, dtype=dtype), stop_gradient=not grad)


# -- Bessel functions ----------------------------------------------------------------------------

def _bessel_series(v, order):
    # sum_k (v/2)^(2k+n) / (k! (k+n)!) in Python floats, summed with the terms' own exponents
    # (log-space, so it reaches |v| = 60 without overflow).
    half = abs(v) / 2
    if half == 0:
        return 1.0 if order == 0 else 0.0
    logs = [(2 * k + order) * math.log(half) - math.lgamma(k + 1) - math.lgamma(k + order + 1)
            for k in range(400)]
    top = max(logs)
    value = math.exp(top) * math.fsum(math.exp(v_ - top) for v_ in logs)
    return -value if (order == 1 and v < 0) else value


BESSEL = {"i0": (0, False), "i0e": (0, True), "i1": (1, False), "i1e": (1, True)}


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_values_across_series_and_asymptotic_ranges(name):
    order, scaled = BESSEL[name]
    x = np.concatenate([np.linspace(-60, 60, 241), [29.999, 30.0, 30.001, -0.0, 1e-8]])
    want = np.array([_bessel_series(v, order) * (math.exp(-abs(v)) if scaled else 1.0) for v in x])
    got = getattr(eager, name)(t(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=3e-14, atol=1e-300)
    np.testing.assert_allclose(getattr(eager, name)(t(x[:50], dtype="float32")).numpy(),
                               want[:50].astype(np.float32), rtol=2e-6)
    assert getattr(t(x), name)().numpy().tobytes() == got.tobytes()  # the Tensor method


def test_bessel_edges_and_scipy():
    big = t([800.0, -800.0, np.inf, -np.inf, np.nan])
    assert eager.i0(big).numpy()[:4].tolist() == [np.inf, np.inf, np.inf, np.inf]
    assert eager.i1(big).numpy()[:4].tolist() == [np.inf, -np.inf, np.inf, -np.inf]
    # The scaled forms stay finite where I overflows: ~ 1 / sqrt(2 pi x).
    np.testing.assert_allclose(eager.i0e(t([800.0])).numpy(), [1 / math.sqrt(2 * math.pi * 800) * (1 + 1 / 6400)],
                               rtol=1e-6)
    assert np.isnan(eager.i0(big).numpy()[4]) and eager.i1e(big).numpy()[2] == 0.0
    special = pytest.importorskip("scipy.special")
    x = np.linspace(-700, 700, 2801)
    for name in BESSEL:
        np.testing.assert_allclose(getattr(eager, name)(t(x)).numpy(), getattr(special, name)(x), rtol=5e-15)


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_gradients_to_second_order(name):
    fn = getattr(eager, name)
    # exp(-|x|) has a kink at 0, so the scaled forms' derivatives jump there: 0 only for i0, i1.
    points = [-35.0, -2.5, -0.3, 0.7, 3.0, 29.5, 30.5] + ([] if BESSEL[name][1] else [0.0])
    x = t(points, grad=True)
    assert gradcheck(fn, (x,), eps=1e-6, atol=1e-6, rtol=1e-6)
    assert gradgradcheck(fn, (x,))


def test_bessel_derivative_identities():
    x = t(np.linspace(-5, 5, 11), grad=True)
    (g0,) = eager.grad(eager.i0(x).sum(), [x])
    np.testing.assert_allclose(g0.numpy(), eager.i1(x).numpy(), rtol=1e-15)
    (g1,) = eager.grad(eager.i1(x).sum(), [x])
    xs = x.numpy()
    want = np.where(xs == 0, 0.5, eager.i0(x).numpy() - eager.i1(x).numpy() / np.where(xs == 0, 1, xs))
    np.testing.assert_allclose(g1.numpy(), want, rtol=1e-14)


def test_bessel_rejects_integers_and_non_tensors():
    with pytest.raises(ValueError, match="i0: argument 'x' expected a real floating-point"):
        eager.i0(t([1, 2]))
    with pytest.raises(TypeError, match="i1e"):
        eager.i1e([1.0])


# -- incomplete gamma ---------------------------------------------------------------------------

def _lower_gamma(a, y):
    # P(a, y) by the series (positive terms) in log space, 3000 terms: enough for y <= 100.
    total, term = 1.0, 1.0
    for n in range(1, 3000):
        term *= y / (a + n)
        total += term
        if term < 1e-18 * total:
            break
    return math.exp(a * math.log(y) - y - math.lgamma(a + 1)) * total


def test_gammainc_values_identities_and_paddle_example():
    x = t([0.5] * 5)
    y = t([0.0, 1.0, 10.0, 100.0, 1000.0])
    np.testing.assert_allclose(eager.gammainc(x, y).numpy(), [0, 0.8427007929497149, 0.9999922557835689, 1, 1],
                               rtol=1e-6)
    np.testing.assert_allclose(eager.gammaincc(x, y).numpy(), [1, 0.15729920705028513, 7.744216431044e-06, 0, 0],
                               rtol=1e-6, atol=1e-30)
    rng = np.random.default_rng(0)
    a = np.exp(rng.uniform(-3, 4, 200))
    yy = a * np.exp(rng.uniform(-2, 1.5, 200))
    yy = np.minimum(yy, 90.0)
    lower = eager.gammainc(t(a), t(yy)).numpy()
    upper = eager.gammaincc(t(a), t(yy)).numpy()
    np.testing.assert_allclose(lower, [_lower_gamma(p, q) for p, q in zip(a, yy)], rtol=1e-11, atol=1e-300)
    np.testing.assert_allclose(lower + upper, np.ones_like(lower), rtol=1e-14)
    # P(1, y) = 1 - e^-y; Q(1/2, y) = erfc(sqrt(y)).
    z = np.linspace(0.01, 30, 50)
    np.testing.assert_allclose(eager.gammaincc(t(np.ones(50)), t(z)).numpy(), np.exp(-z), rtol=1e-12)
    np.testing.assert_allclose(eager.gammaincc(t(np.full(50, 0.5)), t(z)).numpy(),
                               [math.erfc(math.sqrt(v)) for v in z], rtol=1e-12)


def test_gammainc_edges_broadcasting_and_scipy():
    out = eager.gammainc(t([[0.0], [-1.0], [2.0]]), t([1.0, -1.0, np.inf])).numpy()
    assert out.shape == (3, 3)
    assert np.isnan(out[:2]).all() and np.isnan(out[2, 1]) and out[2, 2] == 1.0
    assert eager.gammaincc(t([2.0]), t([np.inf])).numpy()[0] == 0.0
    special = pytest.importorskip("scipy.special")
    rng = np.random.default_rng(1)
    a = np.exp(rng.uniform(-4, 6, 500))
    y = a * np.exp(rng.uniform(-3, 3, 500))
    np.testing.assert_allclose(eager.gammainc(t(a), t(y)).numpy(), special.gammainc(a, y), rtol=5e-12, atol=1e-300)
    np.testing.assert_allclose(eager.gammaincc(t(a), t(y)).numpy(), special.gammaincc(a, y), rtol=5e-12,
                               atol=1e-300)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_gammainc_gradient_is_in_y_only(name):
    fn = getattr(eager, name)
    x = t([0.7, 2.0, 5.0], grad=True)
    y = t([[0.4], [3.0]], grad=True)
    out = fn(x, y)
    out.sum().backward()
    assert x.grad is None
    density = np.exp((x.numpy() - 1) * np.log(y.numpy()) - y.numpy()
                     - np.vectorize(math.lgamma)(x.numpy())).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y.grad.numpy(), density if name == "gammainc" else -density, rtol=1e-13)
    assert gradcheck(lambda yy: fn(x.detach(), yy), (y,))
    assert gradgradcheck(lambda yy: fn(x.detach(), yy), (y,))


def test_gammainc_errors():
    with pytest.raises(ValueError, match="gammainc: arguments 'x' and 'y' expected the same dtype"):
        eager.gammainc(t([1.0]), t([1.0], dtype="float32"))
    with pytest.raises(ValueError, match="gammaincc.*broadcast"):
        eager.gammaincc(t([1.0, 2.0]), t([1.0, 2.0, 3.0]))


# -- nextafter ----------------------------------------------------------------------------------

def test_nextafter_steps_one_ulp_and_is_not_differentiable():
    x = t([1.0, 1.0, 0.0, 2.0])
    y = t([2.0, 0.0, -1.0, 2.0])
    got = eager.nextafter(x, y).numpy()
    assert got[0] == 1.0 + 2.0 ** -52 and got[1] == 1.0 - 2.0 ** -53 and got[2] == -5e-324 and got[3] == 2.0
    f32 = eager.nextafter(t([1.0], dtype="float32"), t([2.0], dtype="float32")).numpy()
    assert f32.dtype == np.float32 and f32[0] == np.float32(1.0) + np.finfo(np.float32).eps
    assert eager.nextafter(t([1.0], grad=True), t([2.0])).stop_gradient
    with pytest.raises(ValueError, match="nextafter: argument 'x' expected a floating-point"):
        eager.nextafter(t([1, 2]), t([2, 3]))


# -- composed unary functions -------------------------------------------------------------------

def test_gammaln_and_multigammaln():
    x = t([0.5, 2.5, 3.5, 4.0, 10.23, 34.25], grad=True)
    np.testing.assert_allclose(eager.gammaln(x).numpy(), [math.lgamma(v) for v in x.numpy()], rtol=1e-14)
    for p in (1, 2, 3):
        # From p = 2 on, 0.5 meets a pole of lgamma (0.5 - 1/2 = 0): left out.
        values = x.numpy() if p == 1 else x.numpy()[1:]
        want = [sum(math.lgamma(v - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi) for v in values]
        got = eager.multigammaln(x, p).numpy()[len(x.numpy()) - len(values):]
        np.testing.assert_allclose(got, want, rtol=1e-13)
    assert gradcheck(lambda v: eager.multigammaln(v, 2), (t([2.5, 3.0, 7.0], grad=True),))
    np.testing.assert_allclose(t([2.5]).multigammaln(2).numpy(), [0.8570478], rtol=1e-6)  # Paddle's example
    with pytest.raises(ValueError, match="multigammaln: argument 'p' expected an int >= 1, got 0"):
        eager.multigammaln(x, 0)
    with pytest.raises(TypeError, match="gammaln: argument 'x' expected a floating-point"):
        eager.gammaln(t([1, 2]))


def test_isposinf_isneginf_isreal():
    x = t([-np.inf, -1.0, 0.0, np.inf, np.nan])
    assert eager.isposinf(x).numpy().tolist() == [False, False, False, True, False]
    assert eager.isneginf(x).numpy().tolist() == [True, False, False, False, False]
    assert x.isposinf().dtype == eager.bool
    assert eager.isneginf(t([1, 2])).numpy().tolist() == [False, False]
    assert eager.isreal(t([1 + 0j, 1j, -2 + 0j])).numpy().tolist() == [True, False, True]
    assert t([[1.0, 2.0]]).isreal().numpy().tolist() == [[True, True]]
    with pytest.raises(TypeError, match="isposinf: argument 'x' expected a real Tensor, got paddle.complex"):
        eager.isposinf(t([1j]))
    with pytest.raises(TypeError, match="isreal"):
        eager.isreal(np.ones(2))


def test_log_normal_moments_seed_and_inplace():
    eager.seed(7)
    a = eager.log_normal(0.5, 0.25, shape=[4000])
    eager.seed(7)
    b = eager.log_normal(0.5, 0.25, shape=[4000])
    assert a.shape == [4000] and a.dtype == eager.float32
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    logs = np.log(a.numpy().astype(np.float64))
    assert abs(logs.mean() - 0.5) < 0.02 and abs(logs.std() - 0.25) < 0.02
    mean = t(np.zeros((3, 1000)))
    c = eager.log_normal(mean, 1.0)
    assert c.shape == [3, 1000] and (c.numpy() > 0).all()
    w = eager.zeros([2000], dtype="float64")
    assert w.log_normal_(1.0, 0.1) is w
    assert abs(np.log(w.numpy()).mean() - 1.0) < 0.02
    with pytest.raises(ValueError, match="log_normal_: argument 'std' expected a number >= 0"):
        w.log_normal_(0.0, -1.0)
    with pytest.raises(TypeError, match="log_normal_: argument 'x' expected a floating-point"):
        eager.log_normal_(t([1, 2]))


# -- crop, multiplex, shard_index -----------------------------------------------------------------

def test_crop_values_gradient_and_errors():
    data = np.arange(24.0).reshape(2, 3, 4)
    x = t(data, grad=True)
    np.testing.assert_array_equal(eager.crop(x, shape=[2, 2, -1], offsets=[0, 0, 1]).numpy(), data[:, :2, 1:])
    np.testing.assert_array_equal(eager.crop(x, shape=t([1, 2, 2])).numpy(), data[:1, :2, :2])
    np.testing.assert_array_equal(x.crop([1, 1, 1], [1, 2, 3]).numpy(), data[1:, 2:, 3:])
    np.testing.assert_array_equal(eager.crop(x).numpy(), data)
    eager.crop(x, [1, 2, 2], [1, 1, 1]).sum().backward()
    want = np.zeros_like(data)
    want[1:2, 1:3, 1:3] = 1
    np.testing.assert_array_equal(x.grad.numpy(), want)
    with pytest.raises(ValueError, match="crop: offsets .* plus shape .* exceed"):
        eager.crop(x, [2, 2, 2], [1, 0, 0])
    with pytest.raises(ValueError, match="crop: argument 'shape' expected 3 values"):
        eager.crop(x, [2, 2])
    with pytest.raises(TypeError, match="crop: argument 'offsets' expected an int"):
        eager.crop(x, [1, 1, 1], [0, 0.5, 0])


def test_multiplex_values_gradient_and_errors():
    rng = np.random.default_rng(2)
    arrays = [rng.normal(size=(4, 3)) for _ in range(3)]
    index = np.array([[2], [0], [1], [2]])
    inputs = [t(a, grad=True) for a in arrays]
    out = eager.multiplex(inputs, t(index))
    np.testing.assert_array_equal(out.numpy(), np.stack([arrays[index[i, 0]][i] for i in range(4)]))
    out.sum().backward()
    for k, x in enumerate(inputs):
        np.testing.assert_array_equal(x.grad.numpy(), np.repeat((index == k).astype(float), 3, axis=1))
    with pytest.raises(IndexError, match=r"multiplex: argument 'index' expected values in \[0, 3\)"):
        eager.multiplex(inputs, t([[0], [3], [0], [0]]))
    with pytest.raises(ValueError, match="multiplex: argument 'index' expected shape \\[4, 1\\]"):
        eager.multiplex(inputs, t([[0], [1]]))
    with pytest.raises(ValueError, match="multiplex: argument 'inputs' expected one shape"):
        eager.multiplex([inputs[0], t(np.ones((4, 2)))], t(index))
    with pytest.raises(TypeError, match="multiplex: argument 'index' expected an int32 or int64"):
        eager.multiplex(inputs, t(index.astype(float)))


def test_shard_index_against_a_loop_and_errors():
    ids = np.array([[0], [4], [5], [9], [10], [19]])
    for nshards, shard_id in ((2, 0), (2, 1), (3, 2)):
        size = -(-20 // nshards)
        want = [[v - shard_id * size if v // size == shard_id else -7] for (v,) in ids]
        got = eager.shard_index(t(ids), 20, nshards, shard_id, ignore_value=-7).numpy()
        assert got.tolist() == want
    with pytest.raises(ValueError, match=r"shard_index: argument 'shard_id' expected a shard in \[0, 2\)"):
        eager.shard_index(t(ids), 20, 2, 2)
    with pytest.raises(ValueError, match=r"shard_index: argument 'input' expected ids in \[0, 20\)"):
        eager.shard_index(t([[25]]), 20, 2, 0)
    with pytest.raises(ValueError, match="shard_index: argument 'input' expected a last axis of size 1"):
        eager.shard_index(t([1, 2]), 20, 2, 0)
    with pytest.raises(TypeError, match="shard_index: argument 'input' expected an int32 or int64"):
        eager.shard_index(t([[1.0]]), 20, 2, 0)


# -- baddbmm, pdist ------------------------------------------------------------------------------

def test_baddbmm_values_gradients_and_errors():
    rng = np.random.default_rng(3)
    base, x, y = rng.normal(size=(1, 3, 2)), rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 2))
    want = 0.5 * base + 2.0 * np.einsum("bij,bjk->bik", x, y)
    got = eager.baddbmm(t(base), t(x), t(y), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)
    np.testing.assert_allclose(t(base).baddbmm(t(x), t(y), 0.5, 2.0).numpy(), want, rtol=1e-14)
    assert gradcheck(lambda a, b, c: eager.baddbmm(a, b, c, 0.5, 2.0), (t(base, True), t(x, True), t(y, True)))
    with pytest.raises(ValueError, match="baddbmm: x \\[B, M, K\\] and y \\[B, K, N\\] do not match"):
        eager.baddbmm(t(base), t(x), t(x))
    with pytest.raises(ValueError, match="baddbmm: argument 'input' expected a shape that broadcasts"):
        eager.baddbmm(t(np.ones((3, 3))), t(x), t(y))


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, math.inf, 0.0])
def test_pdist_against_loops(p):
    rng = np.random.default_rng(4)
    data = rng.normal(size=(5, 3))
    data[4, 0] = data[1, 0]  # a tie in one coordinate
    want = []
    for i in range(5):
        for j in range(i + 1, 5):
            d = np.abs(data[i] - data[j])
            want.append(d.max() if p == math.inf else (d != 0).sum() if p == 0 else (d ** p).sum() ** (1 / p))
    x = t(data, grad=True)
    np.testing.assert_allclose(eager.pdist(x, p).numpy(), want, rtol=1e-13)
    if p >= 1:
        assert gradcheck(lambda v: eager.pdist(v, p), (x,))


def test_pdist_edges_and_errors():
    assert eager.pdist(t(np.ones((1, 3)))).shape == [0]
    with pytest.raises(ValueError, match="pdist: argument 'x' expected a 2-D tensor"):
        eager.pdist(t(np.ones(3)))
    with pytest.raises(ValueError, match="pdist: argument 'p' expected a number >= 0"):
        eager.pdist(t(np.ones((2, 2))), -1.0)


# -- eager.linalg ---------------------------------------------------------------------------------

def _vector_norm_ref(x, p, axes):
    a = np.abs(x)
    if p == 0:
        return (x != 0).sum(axes)
    if p == math.inf:
        return a.max(axes)
    if p == -math.inf:
        return a.min(axes)
    return (a ** p).sum(axes) ** (1 / p)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.0, -1.0, math.inf, -math.inf])
def test_vector_norm_against_numpy(p):
    rng = np.random.default_rng(5)
    data = rng.normal(size=(2, 3, 4))
    x = t(data, grad=True)
    for axis, axes in ((None, (0, 1, 2)), (1, (1,)), ([0, 2], (0, 2)), ([-1, 0], (0, 2))):
        got = eager.linalg.vector_norm(x, p, axis)
        np.testing.assert_allclose(got.numpy(), _vector_norm_ref(data, p, axes), rtol=1e-13)
        kept = eager.linalg.vector_norm(x, p, axis, keepdim=True)
        assert kept.shape == [1 if a in axes else s for a, s in enumerate(data.shape)]
    if p not in (0.0,):
        assert gradcheck(lambda v: eager.linalg.vector_norm(v, p, [0, 2]), (x,))
    with pytest.raises(ValueError, match="vector_norm: argument 'axis' .* repeats an axis"):
        eager.linalg.vector_norm(x, p, [0, -3])


@pytest.mark.parametrize("p", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_matrix_norm_against_numpy(p):
    rng = np.random.default_rng(6)
    data = rng.normal(size=(2, 3, 4))
    x = t(data, grad=True)
    for axis in ([-2, -1], [0, 2], [2, 0]):
        np.testing.assert_allclose(eager.linalg.matrix_norm(x, p, axis).numpy(),
                                   np.linalg.norm(data, p, axis=tuple(axis)), rtol=1e-13)
    assert eager.linalg.matrix_norm(x, p, keepdim=True).shape == [2, 1, 1]
    assert gradcheck(lambda v: eager.linalg.matrix_norm(v, p), (x,))
    with pytest.raises(ValueError, match="matrix_norm: argument 'p' expected one of"):
        eager.linalg.matrix_norm(x, 3)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve(upper):
    rng = np.random.default_rng(7)
    a = rng.normal(size=(2, 4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    lower = np.linalg.cholesky(spd)
    factor = np.swapaxes(lower, -1, -2).copy() if upper else lower
    b = rng.normal(size=(2, 4, 3))
    got = eager.linalg.cholesky_solve(t(b), t(factor), upper=upper)
    np.testing.assert_allclose(spd @ got.numpy(), b, atol=1e-12)
    assert gradcheck(lambda bb, ff: eager.linalg.cholesky_solve(bb, ff, upper=upper), (t(b, True), t(factor, True)))
    with pytest.raises(ValueError, match="cholesky_solve: argument 'y' expected square matrices"):
        eager.linalg.cholesky_solve(t(b), t(b))


def test_matrix_exp_against_eigen_decomposition_and_series():
    rng = np.random.default_rng(8)
    for scale in (0.1, 1.0, 8.0):
        a = rng.normal(size=(3, 4, 4)) * scale
        sym = (a + np.swapaxes(a, -1, -2)) / 2
        w, v = np.linalg.eigh(sym)
        want = v @ (np.exp(w)[..., None] * np.swapaxes(v, -1, -2))
        np.testing.assert_allclose(eager.linalg.matrix_exp(t(sym)).numpy(), want, rtol=1e-12,
                                   atol=1e-13 * np.abs(want).max())
    nilpotent = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    want = np.eye(3) + nilpotent + nilpotent @ nilpotent / 2
    np.testing.assert_allclose(eager.linalg.matrix_exp(t(nilpotent)).numpy(), want, rtol=1e-15)
    rotation = eager.linalg.matrix_exp(t(np.array([[0.0, -1.0], [1.0, 0.0]]))).numpy()
    np.testing.assert_allclose(rotation, [[math.cos(1), -math.sin(1)], [math.sin(1), math.cos(1)]], rtol=1e-15)
    # Complex: a Hermitian matrix, from its (NumPy) eigendecomposition.
    c = rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4))
    hermitian = (c + c.conj().T) / 2
    w, v = np.linalg.eigh(hermitian)
    np.testing.assert_allclose(eager.linalg.matrix_exp(t(hermitian)).numpy(), (v * np.exp(w)) @ v.conj().T,
                               rtol=1e-12, atol=1e-12 * np.exp(w).max())
    x = t(rng.normal(size=(2, 3, 3)) * 1.5, grad=True)
    assert gradcheck(eager.linalg.matrix_exp, (x,))
    with pytest.raises(ValueError, match="matrix_exp: argument 'x' expected square matrices"):
        eager.linalg.matrix_exp(t(np.ones((2, 3))))


def _householder_reference(x, tau):
    m, n = x.shape
    q = np.eye(m)
    for i in range(len(tau)):
        v = np.zeros(m)
        v[i] = 1.0
        v[i + 1:] = x[i + 1:, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q[:, :n]


def test_householder_product_against_a_loop_and_lapack():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(2, 5, 3))
    tau = rng.uniform(0.5, 1.5, size=(2, 2))
    got = eager.linalg.householder_product(t(x), t(tau)).numpy()
    for b in range(2):
        np.testing.assert_allclose(got[b], _householder_reference(x[b], tau[b]), rtol=1e-13, atol=1e-14)
    assert gradcheck(eager.linalg.householder_product, (t(x, True), t(tau, True)))
    with pytest.raises(ValueError, match="householder_product: argument 'x' expected matrices .* M >= N"):
        eager.linalg.householder_product(t(np.ones((2, 3))), t(np.ones(1)))
    with pytest.raises(ValueError, match="householder_product: argument 'tau' expected shape"):
        eager.linalg.householder_product(t(x), t(np.ones((2, 4))))
    lapack = pytest.importorskip("scipy.linalg.lapack")
    packed, taus, _, _ = lapack.dgeqrf(x[0])
    np.testing.assert_allclose(eager.linalg.householder_product(t(packed), t(taus)).numpy(),
                               np.linalg.qr(x[0])[0], atol=1e-13)
    z = x[0] + 1j * rng.normal(size=(5, 3))
    packed, taus, _, _ = lapack.zgeqrf(z)
    np.testing.assert_allclose(eager.linalg.householder_product(t(packed), t(taus)).numpy(), np.linalg.qr(z)[0],
                               atol=1e-13)


def test_svd_lowrank_and_pca_lowrank():
    rng = np.random.default_rng(10)
    low = rng.normal(size=(2, 12, 3)) @ rng.normal(size=(2, 3, 8))
    eager.seed(11)
    u, s, v = eager.linalg.svd_lowrank(t(low), q=5)
    eager.seed(11)
    u2 = eager.linalg.svd_lowrank(t(low), q=5)[0]
    np.testing.assert_array_equal(u.numpy(), u2.numpy())
    assert (u.shape, s.shape, v.shape) == ([2, 12, 5], [2, 5], [2, 8, 5])
    np.testing.assert_allclose(u.numpy() @ (s.numpy()[..., None] * np.swapaxes(v.numpy(), -1, -2)), low, atol=1e-12)
    np.testing.assert_allclose(s.numpy()[:, :3], np.linalg.svd(low)[1][:, :3], rtol=1e-12)
    assert eager.linalg.svd_lowrank(t(low[0]))[1].shape == [6]
    centred = low[0] - low[0].mean(axis=0)
    _, s_pca, v_pca = eager.linalg.pca_lowrank(t(low[0]), q=3)
    np.testing.assert_allclose(s_pca.numpy(), np.linalg.svd(centred)[1][:3], rtol=1e-12)
    np.testing.assert_allclose(np.abs(v_pca.numpy().T @ np.linalg.svd(centred)[2][:3].T), np.eye(3), atol=1e-10)
    with pytest.raises(ValueError, match="svd_lowrank: argument 'q' expected an int >= 1"):
        eager.linalg.svd_lowrank(t(low), q=0)
    with pytest.raises(TypeError, match="pca_lowrank: argument 'center' expected a bool"):
        eager.linalg.pca_lowrank(t(low), center=1)


# -- eig / eigvals gradients ----------------------------------------------------------------------

def test_eig_gradient_by_finite_differences_on_phase_free_losses():
    rng = np.random.default_rng(12)
    x = t(rng.normal(size=(2, 4, 4)), grad=True)  # distinct (some complex) eigenvalues
    weights = t(rng.normal(size=(2, 4, 4)))
    mix = t(rng.normal(size=(2, 4)) + 1j * rng.normal(size=(2, 4)))

    def loss(a):
        w, v = eager.linalg.eig(a)
        return eager.add(eager.real(eager.multiply(w, mix)).sum(),
                         eager.multiply(eager.square(eager.abs(v)), weights).sum())

    assert gradcheck(loss, (x,))
    assert gradcheck(lambda a: eager.square(eager.imag(eager.linalg.eigvals(a))), (x,))
    assert gradcheck(lambda a: eager.abs(a.eigvals()), (x,))  # the Tensor method


def test_eigvals_sum_has_the_trace_gradient_even_with_repeated_eigenvalues():
    x = t(np.eye(3) * 2.0, grad=True)
    eager.real(eager.linalg.eigvals(x)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.eye(3), atol=1e-15)


# -- histogramdd ---------------------------------------------------------------------------------

def _histogram_loop(points, edges, weights):
    counts = [len(e) - 1 for e in edges]
    hist = np.zeros(counts)
    for point, weight in zip(points, weights):
        index = []
        for value, edge, count in zip(point, edges, counts):
            found = [i for i in range(count)
                     if edge[i] <= value < edge[i + 1] or (i == count - 1 and value == edge[-1])]
            if not found:
                break
            index.append(found[0])
        else:
            hist[tuple(index)] += weight
    return hist


def test_histogramdd_against_a_loop():
    rng = np.random.default_rng(13)
    data = np.round(rng.normal(size=(2, 30, 3)), 1)  # ties on edges
    weights = rng.uniform(size=(2, 30))
    flat, flat_w = data.reshape(-1, 3), weights.reshape(-1)
    hist, edges = eager.histogramdd(t(data), bins=[2, 3, 4], weights=t(weights))
    want_edges = [np.linspace(flat[:, d].min(), flat[:, d].max(), n + 1) for d, n in enumerate([2, 3, 4])]
    for got, want in zip(edges, want_edges):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)
    np.testing.assert_allclose(hist.numpy(), _histogram_loop(flat, want_edges, flat_w), rtol=1e-13)
    # Given ranges leave points out; density divides by the total and the bin volumes.
    ranges = [-1.0, 1.0, -0.5, 0.5, 0.0, 2.0]
    hist, edges = eager.histogramdd(t(data), bins=3, ranges=ranges, density=True)
    want_edges = [np.linspace(ranges[2 * d], ranges[2 * d + 1], 4) for d in range(3)]
    counts = _histogram_loop(flat, want_edges, np.ones(60))
    volume = np.prod(np.meshgrid(*[np.diff(e) for e in want_edges], indexing="ij"), axis=0)
    np.testing.assert_allclose(hist.numpy(), counts / counts.sum() / volume, rtol=1e-13)
    # Edge tensors, uneven.
    bins = [t([-3.0, 0.0, 0.5, 3.0]), t([-3.0, 3.0]), t([-1.0, 0.0, 1.0])]
    hist, _ = eager.histogramdd(t(data), bins=bins)
    np.testing.assert_allclose(hist.numpy(), _histogram_loop(flat, [b.numpy() for b in bins], np.ones(60)))


def test_histogramdd_paddle_example_and_errors():
    x = t([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]], dtype="float32")
    hist, edges = eager.histogramdd(x, bins=[3, 3], weights=t([1.0, 2.0, 4.0, 8.0], dtype="float32"))
    assert hist.numpy().tolist() == [[0, 1, 0], [2, 0, 0], [4, 0, 8]] and hist.dtype == eager.float32
    np.testing.assert_allclose(edges[1].numpy(), [0, 2 / 3, 4 / 3, 2], rtol=1e-6)
    with pytest.raises(ValueError, match="histogramdd: argument 'x' expected a tensor of at least 2 dimensions"):
        eager.histogramdd(t([1.0, 2.0]))
    with pytest.raises(ValueError, match="histogramdd: argument 'bins' expected 2 bin counts"):
        eager.histogramdd(x, bins=[2, 2, 2])
    with pytest.raises(ValueError, match="histogramdd: argument 'ranges' expected 4 numbers"):
        eager.histogramdd(x, ranges=[0.0, 1.0])
    with pytest.raises(ValueError, match="histogramdd: argument 'weights' expected shape \\[4\\]"):
        eager.histogramdd(x, weights=t(np.ones(3), dtype="float32"))


def test_eig_second_derivative_raises():
    x = t([[2.0, 1.0], [0.5, -1.0]], grad=True)
    (grad,) = eager.grad(eager.real(eager.linalg.eigvals(x)).sum(), [x], create_graph=True)
    np.testing.assert_allclose(grad.numpy(), np.eye(2), atol=1e-14)  # d trace / dx
    with pytest.raises(eager.errors.AutogradError, match="differentiable to order 1 only"):
        eager.grad(grad.sum(), [x])


# -- inplace variants ------------------------------------------------------------------------------

def test_inplace_variants_write_into_their_first_argument():
    values = np.array([0.5, 1.5, 3.0])
    for name in ("i0", "i0e", "i1", "i1e", "gammaln"):
        x = t(values)
        assert getattr(eager, name + "_")(x) is x
        np.testing.assert_array_equal(x.numpy(), getattr(eager, name)(t(values)).numpy())
    x = t(values + 1.0)
    assert x.multigammaln_(2) is x
    np.testing.assert_array_equal(x.numpy(), eager.multigammaln(t(values + 1.0), 2).numpy())
    shape, point = t([0.5, 2.0]), t([1.0, 3.0])
    eager.gammaincc_(shape, point)
    np.testing.assert_array_equal(shape.numpy(), eager.gammaincc(t([0.5, 2.0]), point).numpy())
    rng = np.random.default_rng(14)
    base, x, y = rng.normal(size=(2, 3, 2)), rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 2))
    out = t(base)
    assert out.baddbmm_(t(x), t(y), 0.5, 2.0) is out
    np.testing.assert_allclose(out.numpy(), 0.5 * base + 2.0 * x @ y, rtol=1e-14)
    with pytest.raises(ValueError, match=r"baddbmm_: the result has shape \[2, 3, 2\] but x, written in place"):
        eager.baddbmm_(t(base[:1]), t(x), t(y))
    # Gradients flow through the written tensor (a non-leaf), also where the function's own
    # gradient reads x's old values (multigammaln_: lgamma's rule reads its input).
    leaf = t([2.5, 3.0], grad=True)
    eager.scale(leaf, 1.0).multigammaln_(2).sum().backward()
    # d/dx log Gamma_2(x) = digamma(x) + digamma(x - 1/2)
    np.testing.assert_allclose(leaf.grad.numpy(), (eager.digamma(leaf) + eager.digamma(leaf - 0.5)).numpy(),
                               rtol=1e-12)
    leaf = t([0.5, 2.0], grad=True)
    inner = eager.scale(leaf, 1.0)
    eager.i1_(inner).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), eager.i0(leaf).numpy() - eager.i1(leaf).numpy() / leaf.numpy(),
                               rtol=1e-14)
