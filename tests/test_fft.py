"""eager.fft: the 22 functions of paddle.fft against numpy.fft (values, dtypes,
n / s cropping and padding, norms), the gradients of the three primitives and of
the composed functions against finite differences in float64 (complex values
through their real and imaginary parts), Parseval's identity as an independent
gradient check, and the errors of bad arguments."""
from __future__ import annotations

import doctest

import numpy as np
import pytest

import eager
from eager import fft as E
from eager.autograd import gradcheck, gradgradcheck

NORMS = ("backward", "forward", "ortho")


def _t(array, grad=False):
    return eager.to_tensor(array, stop_gradient=not grad)


def _close(got, want, tol=1e-10):
    got = got.numpy()
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, float(np.abs(want).max(initial=0))))


@pytest.fixture
def signals():
    rng = np.random.default_rng(7)
    real = rng.standard_normal((4, 6))
    return real, real + 1j * rng.standard_normal((4, 6))


# -- values against numpy.fft, on both devices ----------------------------------------------

ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
REAL_ONLY = ("rfft", "ihfft", "rfftn", "ihfftn", "rfft2", "ihfft2")


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n, axis", [(None, -1), (3, 1), (9, 0), (6, -2), (1, 1)])
def test_one_d_transforms_match_numpy(name, norm, n, axis, signals, device):
    real, cplx = signals
    for x in ((real,) if name in REAL_ONLY else (real, cplx)):
        if name in ("irfft", "hfft") and n == 1 and axis == 1:
            continue  # n=1 keeps one bin: covered by test_one_output_point_needs_n
        want = getattr(np.fft, name)(x, n, axis, norm)
        _close(getattr(E, name)(_t(x), n, axis, norm), want)


ND_CASES = [(None, None), ((3, 8), None), (None, (1, 0)), ((5, 2), (1, 0)), ((3,), (0,)), ((7,), (-1,)),
            (None, (0,))]


@pytest.mark.parametrize("name", ("fftn", "ifftn", "rfftn", "irfftn"))
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s, axes", ND_CASES)
def test_n_d_transforms_match_numpy(name, norm, s, axes, signals, device):
    real, cplx = signals
    # numpy is given the axes Paddle defaults to (its own default for s without axes is deprecated).
    numpy_axes = axes if axes is not None or s is None else tuple(range(real.ndim - len(s), real.ndim))
    for x in ((real,) if name in REAL_ONLY else (real, cplx)):
        _close(getattr(E, name)(_t(x), s, axes, norm), getattr(np.fft, name)(x, s, numpy_axes, norm))


def _hfftn_reference(x, s, axes, norm):
    # The forward transform of the Hermitian signal: 1-D forward transforms over the
    # leading axes (each cropped or padded to its size), then numpy's 1-D hfft.
    axes = list(range(x.ndim)) if axes is None else [a % x.ndim for a in axes]
    for i, axis in enumerate(axes[:-1]):
        x = np.fft.fft(x, None if s is None else s[i], axis, norm)
    return np.fft.hfft(x, None if s is None else s[-1], axes[-1], norm)


def _ihfftn_reference(x, s, axes, norm):
    axes = list(range(x.ndim)) if axes is None else [a % x.ndim for a in axes]
    out = np.fft.ihfft(x, None if s is None else s[-1], axes[-1], norm)
    for i, axis in enumerate(axes[:-1]):
        out = np.fft.ifft(out, None if s is None else s[i], axis, norm)
    return out


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s, axes", [(None, None), ((3, 8), (0, 1)), (None, (1, 0)), ((5, 3), (1, 0))])
def test_hermitian_n_d_transforms(norm, s, axes, signals, device):
    real, cplx = signals
    _close(E.hfftn(_t(cplx), s, axes, norm), _hfftn_reference(cplx, s, axes, norm))
    _close(E.ihfftn(_t(real), s, axes, norm), _ihfftn_reference(real, s, axes, norm))
    # ihfftn inverts hfftn given the output sizes, as Paddle's docstring says.
    sizes = list(E.hfftn(_t(cplx), s, axes, norm).shape)
    picked = list(range(real.ndim)) if axes is None else [a % real.ndim for a in axes]
    round_trip = E.ihfftn(E.hfftn(_t(cplx), s, axes, norm), [sizes[a] for a in picked], axes, norm)
    assert round_trip.shape[picked[-1]] == sizes[picked[-1]] // 2 + 1


@pytest.mark.parametrize("name", ("fft2", "ifft2", "rfft2", "irfft2"))
@pytest.mark.parametrize("s, axes", [(None, (-2, -1)), ((3, 5), (-2, -1)), ((8, 3), (1, 0))])
def test_two_d_transforms_match_numpy(name, s, axes, device):
    x = np.random.default_rng(3).standard_normal((2, 4, 6)) + (0 if name.startswith("r") else 0.5j)
    _close(getattr(E, name)(_t(x), s, axes, "ortho"), getattr(np.fft, name)(x, s, axes, "ortho"))


def test_hfft2_and_ihfft2_are_the_n_d_transforms_over_two_axes(signals):
    real, cplx = signals
    _close(E.hfft2(_t(cplx), (4, 5)), E.hfftn(_t(cplx), (4, 5), (-2, -1)).numpy())
    _close(E.ihfft2(_t(real), None, (1, 0)), _ihfftn_reference(real, None, (1, 0), "backward"))


def test_round_trips_recover_the_signal(signals):
    real, cplx = signals
    _close(E.ifft(E.fft(_t(cplx))), cplx)
    _close(E.irfft(E.rfft(_t(real[:, :5])), n=5), real[:, :5])
    _close(E.irfftn(E.rfftn(_t(real)), real.shape), real)
    _close(E.ihfft(E.hfft(_t(cplx[:, :4]), n=7), n=7), np.concatenate([cplx[:, :1].real, cplx[:, 1:4]], 1))


# -- dtypes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("real, cplx", [("float32", "complex64"), ("float64", "complex128")])
def test_dtypes_follow_the_input_precision(real, cplx):
    x = _t(np.arange(6.0).astype(real))
    for name in ("fft", "ifft", "rfft", "ihfft", "fftn", "ifftn", "rfftn", "ihfftn"):
        assert getattr(E, name)(x).dtype.value == cplx, name
    z = _t(np.arange(4.0).astype(cplx))
    for name in ("fft", "ifft", "fftn", "ifftn"):
        assert getattr(E, name)(z).dtype.value == cplx, name
    for name in ("irfft", "hfft", "irfftn", "hfftn"):
        assert getattr(E, name)(z).dtype.value == real, name
        assert getattr(E, name)(x).dtype.value == real, name  # a real input is taken as complex


def test_integer_inputs_go_through_the_default_dtype():
    x = _t(np.array([1, 2, 3, 4], np.int32))
    assert E.fft(x).dtype.value == "complex64" and E.rfft(x).dtype.value == "complex64"
    assert E.irfft(x).dtype.value == "float32"
    _close(E.fft(x), np.fft.fft([1.0, 2.0, 3.0, 4.0]), 1e-6)
    eager.set_default_dtype("float64")
    try:
        assert E.fft(x).dtype.value == "complex128" and E.irfft(x).dtype.value == "float64"
        assert E.fftfreq(4).dtype.value == "float64"
    finally:
        eager.set_default_dtype("float32")


# -- gradients ------------------------------------------------------------------------------

def _parts(z):
    return eager.real(z), eager.imag(z)


PRIMITIVE_CASES = [
    ((3, 4), [1], "backward", True), ((3, 5), [0, 1], "ortho", False), ((4, 5), [1, 0], "forward", True),
    ((2, 3, 4), [2, 0], "backward", False), ((6,), [0], "ortho", True), ((3, 1), [1], "forward", False),
]


@pytest.mark.parametrize("shape, axes, norm, forward", PRIMITIVE_CASES)
def test_c2c_gradients(shape, axes, norm, forward, device):
    rng = np.random.default_rng(11)
    re, im = _t(rng.standard_normal(shape), True), _t(rng.standard_normal(shape), True)

    def f(a, b):
        return _parts(eager.ops.fft_c2c(eager.complex(a, b), axes, norm, forward))
    assert gradcheck(f, (re, im))
    assert gradgradcheck(f, (re, im))


@pytest.mark.parametrize("onesided", [True, False])
@pytest.mark.parametrize("shape, axes, norm, forward", PRIMITIVE_CASES)
def test_r2c_gradients(shape, axes, norm, forward, onesided, device):
    x = _t(np.random.default_rng(12).standard_normal(shape), True)

    def f(a):
        return _parts(eager.ops.fft_r2c(a, axes, norm, forward, onesided))
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


C2R_CASES = [(*case, n_out) for case in PRIMITIVE_CASES for n_out in ("default", "odd")
             if not (n_out == "default" and case[0][case[1][-1]] == 1)]  # one bin and n = 0: no output


@pytest.mark.parametrize("shape, axes, norm, forward, n_out", C2R_CASES)
def test_c2r_gradients(shape, axes, norm, forward, n_out, device):
    # The bins with a dropped mirror count twice, the zero (and Nyquist) bin's imaginary
    # part not at all: finite differences see both.
    n = 2 * shape[axes[-1]] - (2 if n_out == "default" else 1)
    rng = np.random.default_rng(13)
    re, im = _t(rng.standard_normal(shape), True), _t(rng.standard_normal(shape), True)

    def f(a, b):
        return eager.ops.fft_c2r(eager.complex(a, b), axes, norm, forward, n)
    assert gradcheck(f, (re, im))
    assert gradgradcheck(f, (re, im))


@pytest.mark.parametrize("name, shape, kwargs", [
    ("fft", (3, 5), {"n": 3}), ("ifft", (3, 5), {"n": 8, "axis": 0}), ("rfft", (5,), {"n": 7, "norm": "ortho"}),
    ("irfft", (2, 4), {"n": 5}), ("irfft", (2, 4), {}), ("hfft", (4,), {"n": 4, "norm": "forward"}),
    ("ihfft", (2, 5), {"axis": 0}), ("fft2", (3, 4), {"s": (2, 6)}), ("rfftn", (2, 3, 4), {"axes": (0, 2)}),
    ("irfftn", (3, 3), {"s": (4, 5)}), ("hfftn", (3, 3), {}), ("ihfft2", (4, 3), {"s": (3, 5)}),
])
def test_composed_functions_are_differentiable(name, shape, kwargs, device):
    rng = np.random.default_rng(14)
    re, im = _t(rng.standard_normal(shape), True), _t(rng.standard_normal(shape), True)
    fn = getattr(E, name)

    def f(a, b):
        x = a if name in REAL_ONLY else eager.complex(a, b)  # b unused for a real input
        out = fn(x, **kwargs)
        return _parts(out) if out.dtype.is_complex else out
    assert gradcheck(f, (re, im))


def test_parseval_gives_the_gradient_of_the_spectrum_energy():
    # sum |fft(x)|^2 = n * sum x^2 for real x, so its gradient is 2 n x; for rfft the
    # mirrored bins are counted once, the zero and Nyquist bins once as well.
    x = np.random.default_rng(5).standard_normal(8)
    t = _t(x, True)
    spectrum = E.fft(t)
    energy = (eager.real(spectrum) ** 2 + eager.imag(spectrum) ** 2).sum()
    energy.backward()
    np.testing.assert_allclose(t.grad.numpy(), 2 * 8 * x, rtol=1e-12, atol=1e-12)
    t.clear_grad()
    half = E.rfft(t, norm="ortho")
    weights = _t(np.array([1.0, 2, 2, 2, 1]))
    ((eager.real(half) ** 2 + eager.imag(half) ** 2) * weights).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), 2 * x, rtol=1e-12, atol=1e-12)


def test_gradients_match_torch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(6).standard_normal((3, 6))
    t = _t(x, True)
    out = E.irfft(E.rfft(t, n=5) * E.rfft(t, n=5), n=7, norm="ortho")
    (out * out).sum().backward()
    tx = torch.tensor(x, requires_grad=True)
    tout = torch.fft.irfft(torch.fft.rfft(tx, n=5) ** 2, n=7, norm="ortho")
    (tout * tout).sum().backward()
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(t.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


# -- frequencies and shifts --------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 4, 5])
def test_frequencies_match_numpy(n, device):
    _close(E.fftfreq(n, 0.3, "float64"), np.fft.fftfreq(n, 0.3))
    _close(E.rfftfreq(n, 2, "float64"), np.fft.rfftfreq(n, 2))
    assert E.fftfreq(n).dtype.value == "float32" and E.rfftfreq(n, dtype="float64").dtype.value == "float64"
    _close(E.fftfreq(n, 0.3), np.fft.fftfreq(n, 0.3).astype(np.float32), 1e-6)
    for dtype in (eager.float64, np.float64, "float64"):
        assert E.fftfreq(n, dtype=dtype).dtype.value == "float64"


@pytest.mark.parametrize("axes", [None, 0, 1, (1,), [0, 1], (-1, 0)])
def test_shifts_match_numpy(axes, device):
    x = np.arange(15.0).reshape(3, 5)
    _close(E.fftshift(_t(x), axes), np.fft.fftshift(x, axes))
    _close(E.ifftshift(_t(x), axes), np.fft.ifftshift(x, axes))
    _close(E.ifftshift(E.fftshift(_t(x), axes), axes), x)


def test_shift_is_differentiable():
    x = _t(np.arange(5.0), True)
    (E.fftshift(x) * _t(np.arange(5.0))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.fft.ifftshift(np.arange(5.0)))


# -- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda x, z: E.fft(x, norm="none"), ValueError, r"fft.fft: argument 'norm' expected 'backward', 'forward' or"),
    (lambda x, z: E.ifft(x, n=0), ValueError, r"fft.ifft: argument 'n' expected a positive integer, got 0"),
    (lambda x, z: E.rfft(x, n=2.5), ValueError, r"fft.rfft: argument 'n' expected a positive integer, got 2.5"),
    (lambda x, z: E.fft(x, axis=2), ValueError, r"fft.fft: argument 'axis' expected an axis in \[-2, 2\)"),
    (lambda x, z: E.hfft(z, axis=1.0), ValueError, r"fft.hfft: argument 'axis' expected an integer"),
    (lambda x, z: E.rfft(z), TypeError, r"fft.rfft: argument 'x' expected a real .* got complex128"),
    (lambda x, z: E.ihfftn(z), TypeError, r"fft.ihfftn: argument 'x' expected a real"),
    (lambda x, z: E.fft(_t(np.ones(3, bool))), TypeError, r"fft.fft: argument 'x' expected .* got bool"),
    (lambda x, z: E.fft(np.ones(3)), TypeError, r"fft.fft: argument 'x' expected a Tensor, got ndarray"),
    (lambda x, z: E.fftn(x, s=(2, 2, 2)), ValueError, r"fft.fftn: argument 's' has 3 sizes, more than the 2"),
    (lambda x, z: E.fftn(x, s=(2, 0)), ValueError, r"fft.fftn: argument 's' expected positive integers"),
    (lambda x, z: E.fftn(x, s=5), ValueError, r"fft.fftn: argument 's' expected a sequence"),
    (lambda x, z: E.rfftn(x, s=(2, 3), axes=(0,)), ValueError, r"'s' and 'axes' expected the same length"),
    (lambda x, z: E.ifftn(x, axes=(0, 0)), ValueError, r"fft.ifftn: argument 'axes' names an axis twice"),
    (lambda x, z: E.irfftn(z, axes=(0, 3)), ValueError, r"fft.irfftn: argument 'axes' expected axes in \[-2, 2\)"),
    (lambda x, z: E.fftn(x, axes=()), ValueError, r"fft.fftn: no axis to transform"),
    (lambda x, z: E.fft2(_t(np.ones(4))), ValueError, r"fft.fft2: argument 'x' expected at least 2 dimensions"),
    (lambda x, z: E.irfft2(z, axes=(0, 1, 1)), ValueError, r"fft.irfft2: argument 'axes' expected a sequence of 2"),
    (lambda x, z: E.ihfft2(x, s=(3,)), ValueError, r"fft.ihfft2: argument 's' expected a sequence of 2"),
    (lambda x, z: E.fft(_t(np.float64(1.0))), ValueError, r"fft.fft: argument 'x' expected a Tensor of at least 1"),
    (lambda x, z: E.irfft(_t(np.ones(1, complex))), ValueError, r"fft.irfft: x has 1 bin .* pass n"),
    (lambda x, z: E.fft(_t(np.ones((0, 3))), axis=0), ValueError, r"fft.fft: argument 'x' has no point along"),
    (lambda x, z: E.fftfreq(0), ValueError, r"fft.fftfreq: argument 'n' expected a positive integer"),
    (lambda x, z: E.rfftfreq(4, d=0), ValueError, r"fft.rfftfreq: argument 'd' expected a non-zero real"),
    (lambda x, z: E.fftfreq(4, dtype="int32"), TypeError, r"fft.fftfreq: argument 'dtype' expected float32 or"),
    (lambda x, z: E.rfftfreq(4, dtype="nonsense"), TypeError, r"fft.rfftfreq: argument 'dtype' expected float32"),
    (lambda x, z: E.fftshift(x, axes=5), ValueError, r"fft.fftshift: argument 'axes' expected an axis"),
    (lambda x, z: eager.ops.fft_c2r(z, [1], "backward", False, 9), ValueError,
     r"fft_c2r: argument 'x' expected 5 bins \(n//2\+1 for last_dim_size n=9\) along axis 1, got 3"),
    (lambda x, z: eager.ops.fft_c2c(x, [1], "backward", True), ValueError,
     r"fft_c2c: argument 'x' expected a complex .* got paddle.float64"),
    (lambda x, z: eager.ops.fft_r2c(x, [1, -1], "ortho", True, True), ValueError,
     r"fft_r2c: argument 'axes' lists axis -1 more than once"),
])
def test_bad_arguments_raise_clear_errors(call, error, message):
    x, z = _t(np.ones((2, 3)), True), _t(np.ones((2, 3), complex))
    with pytest.raises(error, match=message):
        call(x, z)
    assert x.grad is None and np.array_equal(x.numpy(), np.ones((2, 3)))


def test_docstring_examples_run():
    result = doctest.testmod(E, extraglobs={"eager": eager, "np": np}, optionflags=doctest.NORMALIZE_WHITESPACE,
                             report=False)
    assert result.attempted >= 10 and result.failed == 0, result
