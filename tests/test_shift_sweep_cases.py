"""Cases a sweep of three small gaps found (values against hand-written references of
Paddle's rules: phi/kernels/funcs/bitwise_functors.h, python/paddle/fft.py,
python/paddle/tensor/math.py's sgn):

- bitwise_left_shift / bitwise_right_shift (is_arithmetic, out, inplace twins, Tensor
  methods) were missing; a shift below 0 or of the bit width or more is Paddle's
  functor's value (0, or the sign fill of an arithmetic right shift of a signed x),
  not NumPy's undefined C shift, and a logical right shift shifts the unsigned bits.
- fft of an integer x under set_default_dtype('float16' / 'bfloat16') died with a
  KeyError in eager/fft.py; Paddle casts to the default dtype, which its FFT kernels
  refuse: now a TypeError naming the function.
- sgn of a complex NaN/inf gave NaN where Paddle gives 0 (each part divided by |x|,
  a NaN quotient set to 0), and sgn of int/bool/bfloat16 x returned sign(x) where
  Paddle's sgn raises TypeError.
"""
import numpy as np
import pytest

import eager
from torch_reference import needs_torch, torch

pytestmark = pytest.mark.usefixtures("device")

_INTS = ["int8", "uint8", "int16", "int32", "int64"]


def _shift_reference(left, a, b, arithmetic):
    """Paddle's shift functors, element by element on Python ints."""
    width = a.dtype.itemsize * 8
    signed = a.dtype.kind == "i"
    a, b = np.broadcast_arrays(a, b)
    out = np.empty(a.shape, a.dtype)
    for index in np.ndindex(a.shape):
        value, shift = int(a[index]), int(b[index])
        if shift < 0 or shift >= width:
            result = -1 if (not left and arithmetic and signed and value < 0) else 0
        elif left:
            result = value << shift
        elif arithmetic or not signed:
            result = value >> shift
        else:
            result = (value % (1 << width)) >> shift  # the unsigned bits of the same width
        result %= 1 << width
        if signed and result >= 1 << (width - 1):
            result -= 1 << width
        out[index] = result
    return out


@pytest.mark.parametrize("dtype", _INTS)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("arithmetic", [True, False])
def test_shifts_match_paddles_functors_including_out_of_range_shifts(dtype, left, arithmetic):
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    width = info.bits
    a = rng.integers(info.min, info.max, size=(3, 40), endpoint=True).astype(dtype)
    a[0, :4] = [info.min, info.max, 0, info.min + 1 if info.min else 1]
    low = 0 if dtype == "uint8" else -3
    b = rng.integers(low, width + 3, size=(40,), endpoint=True).astype(dtype)
    b[:4] = [width - 1, width, 0, low]
    name = "bitwise_left_shift" if left else "bitwise_right_shift"
    got = getattr(eager, name)(eager.to_tensor(a), eager.to_tensor(b), is_arithmetic=arithmetic)
    expected = _shift_reference(left, a, b, arithmetic)
    assert got.dtype == eager.to_tensor(a).dtype and got.shape == [3, 40]
    np.testing.assert_array_equal(got.numpy(), expected)
    # The Tensor method, Paddle's positional is_arithmetic and its (untouched) out.
    method = getattr(eager.to_tensor(a), name)(eager.to_tensor(b), arithmetic, None)
    np.testing.assert_array_equal(method.numpy(), expected)


def test_shift_examples_from_paddles_docstring():
    x = eager.to_tensor([[1, 2, 4, 8], [16, 17, 32, 65]])
    y = eager.to_tensor([[1, 2, 3, 4], [2, 3, 2, 1]])
    for arithmetic in (True, False):
        np.testing.assert_array_equal(eager.bitwise_left_shift(x, y, is_arithmetic=arithmetic).numpy(),
                                      [[2, 8, 32, 128], [64, 136, 128, 130]])
    x = eager.to_tensor([[-10, -9, -8, -7]], dtype="int8")
    y = eager.to_tensor([[1, 2, 3, 4]], dtype="int8")
    np.testing.assert_array_equal(eager.bitwise_right_shift(x, y).numpy(), [[-5, -3, -1, -1]])
    np.testing.assert_array_equal(eager.bitwise_right_shift(x, y, is_arithmetic=False).numpy(),
                                  [[123, 61, 31, 15]])


@pytest.mark.parametrize("shape_x, shape_y", [([], []), ([0, 3], [3]), ([2, 1], [1, 3]), ([1], [])])
def test_shifts_broadcast_and_take_empty_and_0d(shape_x, shape_y):
    a = np.arange(int(np.prod(shape_x)), dtype="int32").reshape(shape_x) - 2
    b = np.full(shape_y, 33, dtype="int32") if shape_y == [] else np.arange(int(np.prod(shape_y)),
                                                                              dtype="int32").reshape(shape_y)
    got = eager.bitwise_right_shift(eager.to_tensor(a), eager.to_tensor(b))
    np.testing.assert_array_equal(got.numpy(), _shift_reference(False, a, b, True))
    assert got.shape == list(np.broadcast_shapes(a.shape, b.shape))


@pytest.mark.parametrize("name", ["bitwise_left_shift_", "bitwise_right_shift_"])
def test_inplace_shifts_write_into_x_and_refuse_a_broadcast_target(name):
    a = np.array([-5, 3, 100, -128], dtype="int8")
    b = np.array([1, 8, -1, 7], dtype="int8")
    x = eager.to_tensor(a)
    out = getattr(x, name)(eager.to_tensor(b), False)
    assert out is x
    np.testing.assert_array_equal(x.numpy(), _shift_reference(name == "bitwise_left_shift_", a, b, False))
    assert getattr(eager, name)(x, eager.to_tensor(b)) is x
    before = x.numpy().copy()
    with pytest.raises(ValueError, match=name + ": .*cannot broadcast its target"):
        getattr(eager, name)(x, eager.to_tensor(np.ones((2, 4), "int8")))
    np.testing.assert_array_equal(x.numpy(), before)


@pytest.mark.parametrize("name", ["bitwise_left_shift", "bitwise_right_shift", "bitwise_left_shift_",
                                  "bitwise_right_shift_"])
def test_shifts_refuse_bad_input_by_name_and_leave_x_unchanged(name):
    fn = getattr(eager, name)
    x = eager.to_tensor(np.array([1, 2], "int32"))
    for bad_x, bad_y, error, message in [
            (x.astype("float32"), x.astype("float32"), ValueError, "argument 'x' expected an integer .*float32"),
            (x.astype("bool"), x.astype("bool"), ValueError, "argument 'x' expected an integer .*bool"),
            (x, x.astype("int64"), ValueError, "'x' and 'y' expected the same dtype"),
            (x, 1, TypeError, "argument 'y' expected a Tensor"),
            (x, eager.ones([3], "int32"), ValueError, "cannot be broadcast")]:
        with pytest.raises(error, match=f"{name}: .*{message}"):
            fn(bad_x, bad_y)
        np.testing.assert_array_equal(x.numpy(), [1, 2])
    with pytest.raises(TypeError, match=f"{name}: argument 'is_arithmetic' expected a bool"):
        fn(x, x, "yes")
    with pytest.raises(TypeError, match=f"{name}: argument 'out' expected None or a Tensor"):
        fn(x, x, True, [1])
    np.testing.assert_array_equal(x.numpy(), [1, 2])


@pytest.mark.parametrize("default", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "rfftn", "irfftn"])
def test_fft_of_integers_under_a_half_default_dtype_is_refused_by_name(default, fn):
    x = eager.to_tensor([1, 2, 3, 4])
    previous = eager.get_default_dtype()
    eager.set_default_dtype(default)
    try:
        with pytest.raises(TypeError, match=rf"fft\.{fn}: argument 'x' is an integer tensor, .*default dtype, "
                                            rf"{default}, .*float32 or float64"):
            getattr(eager.fft, fn)(x)
    finally:
        eager.set_default_dtype(previous)
    np.testing.assert_array_equal(x.numpy(), [1, 2, 3, 4])


def test_fft_of_integers_still_follows_a_float_default_dtype():
    previous = eager.get_default_dtype()
    eager.set_default_dtype("float64")
    try:
        got = eager.fft.fft(eager.to_tensor([1, 2, 3, 4]))
    finally:
        eager.set_default_dtype(previous)
    assert got.dtype == eager.complex128
    np.testing.assert_allclose(got.numpy(), np.fft.fft([1.0, 2.0, 3.0, 4.0]))


def _sgn_reference(z):
    """Paddle's sgn: as_real(z) / |z|, each NaN quotient set to 0."""
    magnitude = np.abs(z)
    with np.errstate(invalid="ignore", divide="ignore"):
        parts = [np.where(np.isnan(p / magnitude), 0, p / magnitude) for p in (z.real, z.imag)]
    return (parts[0] + 1j * parts[1]).astype(z.dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_sgn_of_complex_nan_and_inf_is_zero_as_paddles(dtype):
    inf, nan = np.inf, np.nan
    z = np.array([0, 3 + 4j, -2j, complex(inf, 0), complex(inf, 1), complex(-inf, inf), complex(1, nan),
                  complex(nan, 0), complex(nan, nan), complex(0, -inf)], dtype=dtype)
    x = eager.to_tensor(z)
    got = eager.sgn(x).numpy()
    expected = _sgn_reference(z)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(got[1:3], [0.6 + 0.8j, -1j], rtol=1e-6)
    np.testing.assert_array_equal(x.numpy(), z)


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "bool", "bfloat16"])
def test_sgn_refuses_what_paddles_sgn_refuses(dtype, device):
    if dtype == "bfloat16" and device == "gpu":
        pytest.skip("bfloat16 is CPU only")
    x = eager.to_tensor([1, 0]).astype(dtype)
    with pytest.raises(TypeError, match=f"sgn: argument 'x' expected a float16, float32, float64, complex64 or "
                                        f"complex128 Tensor, got paddle.{dtype}"):
        eager.sgn(x)


def test_sgn_of_float16_is_still_sign():
    np.testing.assert_array_equal(eager.sgn(eager.to_tensor([-2.0, 0.0, 3.0], dtype="float16")).numpy(),
                                  np.array([-1.0, 0.0, 1.0], "float16"))


@needs_torch
def test_sgn_gradient_of_complex_x_matches_torch_and_is_0_at_0():
    z = np.array([0j, 3 + 4j, -1 + 2j, 0.5 - 2j])
    x = eager.to_tensor(z, stop_gradient=False)
    eager.real(eager.sgn(x)).sum().backward()
    t = torch.tensor(z, requires_grad=True)
    torch.sgn(t).real.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-15)
    assert x.grad.numpy()[0] == 0
