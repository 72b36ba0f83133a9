"""Regression cases found by the differential sweep of eager.fft and eager.signal
(eager against numpy.fft and PyTorch on random shapes, dtypes, n / s, axis / axes,
norms, windows and lengths, with Paddle's rules where they differ).

- the 2-D transforms (fft2, ..., ihfft2) name themselves in their errors, not the
  N-D function they are composed on;
- a transformed axis of size 0 without ``n`` / ``s`` raises a ValueError naming the
  public function (it came from the fft_r2c / fft_c2c primitive); with ``n`` / ``s``
  the empty axis is zero-padded, as numpy.fft does;
- a 0-d x for the 1-D transforms says it needs a dimension (the message was about
  an axis range [0, 0));
- istft of a spectrum with no frame raises a ValueError naming signal.istft (it
  died inside tile).
"""
import numpy as np
import pytest

import eager
from eager import fft as E
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")

ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
REAL_INPUT = ("rfft", "ihfft")


def _input(name, shape, rng):
    real = rng.standard_normal(shape)
    return real if name in REAL_INPUT else real + 1j * rng.standard_normal(shape)


def _dft_axis(a, axis, sign, scale):
    """A direct O(n^2) DFT of a along axis: sum_k a[k] exp(sign 2 pi i j k / n) * scale."""
    a = np.moveaxis(np.asarray(a, dtype=np.complex128), axis, -1)
    n = a.shape[-1]
    out = np.zeros_like(a)
    for j in range(n):
        for k in range(n):
            out[..., j] += a[..., k] * np.exp(sign * 2j * np.pi * j * k / n)
    return np.moveaxis(out * scale, -1, axis)


# -- the 2-D transforms name themselves ---------------------------------------------------

@pytest.mark.parametrize("name", [f + "2" for f in ONE_D])
@pytest.mark.parametrize("axes", [(2, -1), (0, -3)])
def test_two_d_errors_name_the_two_d_function(name, axes):
    x = eager.to_tensor(_input(name[:-1], (3, 4, 4), np.random.default_rng(0)))
    with pytest.raises(ValueError, match=rf"fft\.{name}: argument 'axes' names an axis twice"):
        getattr(E, name)(x, axes=axes)


@pytest.mark.parametrize("name", [f + "2" for f in ONE_D])
def test_two_d_bad_s_names_the_two_d_function(name):
    x = eager.to_tensor(_input(name[:-1], (3, 4), np.random.default_rng(1)))
    with pytest.raises(ValueError, match=rf"fft\.{name}: argument 's' expected positive integers"):
        getattr(E, name)(x, s=(0, 4))


def test_fft2_over_aliased_negative_axes_matches_a_direct_dft():
    # axes (2, -3) of a 3-D x: the last and the first, transformed in that order.
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 2, 5)) + 1j * rng.standard_normal((3, 2, 5))
    want = _dft_axis(_dft_axis(a, 2, -1, 1.0), 0, -1, 1.0) / np.sqrt(15)
    got = E.fft2(eager.to_tensor(a), axes=(2, -3), norm="ortho").numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

    re = eager.to_tensor(a.real, stop_gradient=False)
    im = eager.to_tensor(a.imag, stop_gradient=False)
    assert gradcheck(lambda p, q: eager.as_real(E.fft2(eager.complex(p, q), axes=(2, -3), norm="ortho")),
                     (re, im))


# -- empty transformed axes ---------------------------------------------------------------

@pytest.mark.parametrize("name", ONE_D)
def test_empty_axis_without_n_names_the_function(name):
    x = eager.to_tensor(_input(name, (3, 0), np.random.default_rng(3)))
    message = rf"fft\.{name}: .*(no point along transformed axis 1|0 bin along axis 1)"
    with pytest.raises(ValueError, match=message):
        getattr(E, name)(x)


@pytest.mark.parametrize("name", [f + "n" for f in ONE_D] + [f + "2" for f in ONE_D])
def test_empty_leading_axis_without_s_names_the_function(name):
    # axis 1 is empty and transformed, but not the halved (last) one of the real transforms
    x = eager.to_tensor(_input(name[:-1], (2, 0, 4), np.random.default_rng(4)))
    with pytest.raises(ValueError, match=rf"fft\.{name}: argument 'x' has no point along transformed axis 1 "
                                         r"\(shape \[2, 0, 4\]\); pass s"):
        getattr(E, name)(x, axes=(1, 2))


@pytest.mark.parametrize("name, n, bins", [("fft", 4, 4), ("ifft", 3, 3), ("rfft", 4, 3), ("ihfft", 5, 3),
                                           ("irfft", 4, 4), ("hfft", 6, 6)])
def test_empty_axis_with_n_is_zero_padded(name, n, bins):
    # A zero-padded empty axis is all zeros, and so is every transform of it.
    x = eager.to_tensor(_input(name, (3, 0), np.random.default_rng(5)))
    out = getattr(E, name)(x, n=n).numpy()
    assert out.shape == (3, bins)
    assert not out.any()


@pytest.mark.parametrize("name, s, shape", [("fftn", (2, 3), (2, 3)), ("rfft2", (2, 4), (2, 3)),
                                            ("irfftn", (2, 4), (2, 4))])
def test_empty_axis_with_s_is_zero_padded(name, s, shape):
    x = eager.to_tensor(_input(name[:-1], (0, 3), np.random.default_rng(6)))
    out = getattr(E, name)(x, s=s).numpy()
    assert out.shape == shape
    assert not out.any()


# -- a 0-d x ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ONE_D)
def test_zero_d_x_needs_a_dimension(name):
    x = eager.to_tensor(np.complex128(1 + 2j) if name not in REAL_INPUT else 1.5)
    with pytest.raises(ValueError, match=rf"fft\.{name}: argument 'x' expected a Tensor of at least 1 dimension"):
        getattr(E, name)(x)


# -- istft without frames -----------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 0), (2, 3, 0)])
def test_istft_of_no_frame_raises_naming_istft(shape):
    x = eager.to_tensor(np.zeros(shape, dtype=np.complex128))
    with pytest.raises(ValueError, match=r"signal\.istft: argument 'x' expected at least one frame"):
        eager.signal.istft(x, n_fft=4)
