"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
``paddle.fft`` and ``paddle.signal`` (test/fft/test_fft.py, test_spectral_op.py's
NumPy gradient formulas, test/legacy_test/test_signal.py) against eager, each
checked against the real Paddle 2.6.2.

The values (every transform, norm, n / s padding and cropping, axes, float32 /
float64 / complex / integer x, frame, overlap_add, stft, istft, the audio features)
and the gradients (1,200 random calls of the 18 transforms, 400 of the four signal
functions, fftshift / ifftshift, compared with Paddle's x.grad) agreed.
What they found (one test per bug below; each failed before its fix):

- A transform given a tensor of a dtype it has no kernel for (a bool x, a complex
  x to rfft / rfft2 / rfftn / ihfft*, float16 on the CPU) raised a TypeError only;
  Paddle's dynamic mode raises RuntimeError ("kernel ... is not registered"), which
  test_fft's test_bool_input / test_x_complex cases expect: now both.
- signal.stft / signal.istft raised ValueError / TypeError for the arguments Paddle
  ``assert``s (x's rank, n_fft, hop_length, win_length, the window's shape, pad_mode,
  onesided with a complex x or return_complex, the frequency count, a complex
  window without return_complex); test_signal's TestStftException /
  TestIstftException expect AssertionError: now also AssertionError (the NOLA
  check stays the ValueError Paddle raises). So are the other asserts of the
  spectral features: Spectrogram's power, MFCC's n_mfcc > n_mels, create_dct's norm.
- The 1-D transforms refused axis=None, which Paddle takes as the last axis.
- fft.fftfreq / rfftfreq refused a one-element Tensor n or d, which Paddle takes.
  Under a float16 default dtype they raised TypeError only, Paddle RuntimeError.
- signal.stft refused an integer x, which Paddle casts to the default dtype
  (complex64 out); stft / istft of bool or float16 and overlap_add of bool raised
  TypeError only, Paddle the RuntimeError of a missing kernel: now both.
- signal.stft / istft refused a window of another precision than x (float32 with
  float64); Paddle's multiply promotes both to float64 (complex128 out): now too.

Paddle quirks kept out (eager keeps its clear error or the NumPy value): fftn of a
0-d x and fftn(s=()) segfault Paddle, an axis named twice aborts the process
(C++ "axis specified repeatedly"), fftshift of a 0-d x fails in Paddle's roll,
istft with an odd n_fft fails in Paddle's broadcast, backward through istft of a
2-D x fails (its in-place squeeze_), stft of a real x with a complex window and
onesided=False sends complex frames to fft_r2c, a complex64 / float64 mix fails in
its cast; Paddle has no double grad of the FFT ops (eager's are differentiable to
any order); fftfreq's dtype is ignored by 2.6.2 (docs/fft.md).
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


def _t(a, **kw):
    return eager.to_tensor(np.asarray(a), **kw)


@pytest.mark.parametrize("fn, dtype", [
    ("fft", "bool"), ("fftn", "bool"), ("hfft", "bool"), ("irfft2", "bool"), ("hfftn", "bool"),
    ("rfft", "complex128"), ("rfft2", "complex64"), ("rfftn", "complex128"), ("ihfft2", "complex128"),
    ("ihfftn", "complex64"), ("fft", "float16"), ("rfft", "float16"),
])
def test_a_dtype_no_fft_kernel_takes_is_the_runtime_error_paddle_raises(fn, dtype):
    x = np.ones((4, 4)) + (1j if dtype.startswith("complex") else 0)
    with pytest.raises(RuntimeError, match=rf"fft\.{fn}: argument 'x' expected a .* tensor, got {dtype}"):
        getattr(eager.fft, fn)(_t(x.astype(dtype)))
    with pytest.raises(TypeError):  # eager's type for a wrong kind of tensor, kept
        getattr(eager.fft, fn)(_t(x.astype(dtype)))


_X = np.random.default_rng(0).standard_normal(600)


@pytest.mark.parametrize("kwargs, match", [
    (dict(x=np.zeros((1, 2, 3))), "argument 'x' expected a 1-D or 2-D Tensor"),
    (dict(n_fft=64, hop_length=0), "argument 'hop_length' expected a positive int"),
    (dict(n_fft=0), "argument 'n_fft' expected an int >= 1"),
    (dict(n_fft=601), r"argument 'n_fft' expected an int in \(0, seq_length=600\]"),
    (dict(n_fft=64, win_length=0), r"argument 'win_length' expected an int in \(0, n_fft=64\]"),
    (dict(n_fft=64, win_length=65), r"argument 'win_length' expected an int in \(0, n_fft=64\]"),
    (dict(n_fft=64, pad_mode="nonsense"), "argument 'pad_mode' expected one of 'reflect', 'constant'"),
    (dict(x=_X + 1j, n_fft=64, center=False), "argument 'onesided' must be False for a complex x"),
    (dict(n_fft=64, window=np.ones(32)), "argument 'window' expected a 1-D Tensor of win_length=64"),
])
def test_stft_argument_checks_are_the_assertion_errors_paddle_raises(kwargs, match):
    kwargs = {"x": _X, "n_fft": 64, **kwargs}
    kwargs["x"] = _t(kwargs["x"])
    if "window" in kwargs:
        kwargs["window"] = _t(kwargs["window"])
    with pytest.raises(AssertionError, match="signal.stft: " + match):
        eager.signal.stft(**kwargs)
    with pytest.raises(ValueError):  # eager's type for a bad value, kept
        eager.signal.stft(**kwargs)


_SPEC = np.random.default_rng(1).standard_normal((1, 33, 20)) + 1j


@pytest.mark.parametrize("kwargs, match", [
    (dict(x=np.zeros((1, 2, 3, 4)) + 0j), "argument 'x' expected a 2-D or 3-D Tensor"),
    (dict(n_fft=33), r"argument 'x' expected 17 frequencies \(n_fft=33 // 2 \+ 1, onesided\)"),
    (dict(hop_length=0), r"argument 'hop_length' expected an int in \(0, win_length=64\]"),
    (dict(hop_length=65), r"argument 'hop_length' expected an int in \(0, win_length=64\]"),
    (dict(win_length=0), r"argument 'win_length' expected an int in \(0, n_fft=64\]"),
    (dict(win_length=65), r"argument 'win_length' expected an int in \(0, n_fft=64\]"),
    (dict(onesided=False), r"argument 'x' expected 64 frequencies \(n_fft=64, onesided=False\)"),
    (dict(win_length=63, window=np.ones(64)), "argument 'window' expected a 1-D Tensor of win_length=63"),
    (dict(return_complex=True), "argument 'onesided' must be False when return_complex is True"),
])
def test_istft_argument_checks_are_the_assertion_errors_paddle_raises(kwargs, match):
    kwargs = {"x": _SPEC, "n_fft": 64, **kwargs}
    kwargs["x"] = _t(kwargs["x"])
    if "window" in kwargs:
        kwargs["window"] = _t(kwargs["window"])
    with pytest.raises(AssertionError, match="signal.istft: " + match):
        eager.signal.istft(**kwargs)
    with pytest.raises(ValueError):
        eager.signal.istft(**kwargs)


def test_istft_complex_window_without_return_complex_is_an_assertion_error_too():
    window = _t(np.hanning(64) + 1j)
    with pytest.raises(AssertionError, match="signal.istft: argument 'window' must be real when return_complex"):
        eager.signal.istft(_t(_SPEC), 64, window=window)
    with pytest.raises(TypeError):  # eager's type for a wrong kind of tensor, kept
        eager.signal.istft(_t(_SPEC), 64, window=window)
    # the NOLA failure stays the ValueError Paddle raises, not an assertion
    with pytest.raises(ValueError, match="NOLA") as info:
        eager.signal.istft(_t(_SPEC), 64, hop_length=64, window=_t(np.hanning(64)))
    assert not isinstance(info.value, AssertionError)


@pytest.mark.parametrize("make, match", [
    (lambda: eager.audio.features.Spectrogram(power=0), "audio.features.Spectrogram: argument 'power'"),
    (lambda: eager.audio.features.Spectrogram(power=-1.0), "audio.features.Spectrogram: argument 'power'"),
    (lambda: eager.audio.features.MFCC(n_mfcc=80, n_mels=64), "audio.features.MFCC: argument 'n_mfcc'"),
    (lambda: eager.audio.functional.create_dct(4, 8, norm="l2"), "audio.functional.create_dct: argument 'norm'"),
])
def test_audio_feature_checks_paddle_asserts_are_assertion_errors_too(make, match):
    with pytest.raises(AssertionError, match=match) as info:  # Paddle 2.6.2: AssertionError
        make()
    assert isinstance(info.value, ValueError)  # eager's type for a bad value, kept


@pytest.mark.parametrize("fn", ["fftfreq", "rfftfreq"])
def test_fftfreq_takes_one_element_tensors_for_n_and_d_as_paddle_does(fn):
    want = getattr(np.fft, fn)(5, 0.5)
    got = getattr(eager.fft, fn)(_t(5), d=_t(0.5, dtype="float32"))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    assert got.dtype == eager.float32
    np.testing.assert_allclose(getattr(eager.fft, fn)(5, _t([2])).numpy(), getattr(np.fft, fn)(5, 2), rtol=1e-6)
    with pytest.raises(ValueError, match=rf"fft.{fn}: argument 'd' expected a non-zero real number, got 0.0"):
        getattr(eager.fft, fn)(5, _t(0.0))


def _stft_reference(x, n_fft, hop, center=True, pad_mode="reflect"):
    """NumPy stft with a box window: frames of the (padded) signal, rfft of each."""
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode=pad_mode)
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., t * hop:t * hop + n_fft] for t in range(n_frames)], axis=-2)
    return np.swapaxes(np.fft.rfft(frames, axis=-1), -1, -2)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("center, pad_mode", [(True, "reflect"), (True, "constant"), (False, "reflect")])
def test_stft_casts_an_integer_x_to_the_default_dtype_as_paddle_does(dtype, center, pad_mode):
    x = np.random.default_rng(2).integers(-3, 4, (2, 40))
    got = eager.signal.stft(_t(x.astype(dtype)), 16, hop_length=5, center=center, pad_mode=pad_mode)
    assert got.dtype == eager.complex64  # Paddle 2.6.2: complex64 under the float32 default
    np.testing.assert_allclose(got.numpy(), _stft_reference(x.astype("float64"), 16, 5, center, pad_mode),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("call, match", [
    (lambda: eager.signal.stft(_t(np.ones(32) > 0), 8), r"signal.stft: argument 'x' expected float32, .*got bool"),
    (lambda: eager.signal.stft(_t(np.ones(32, "float16")), 8), r"signal.stft: argument 'x' .*got float16"),
    (lambda: eager.signal.istft(_t(np.ones((5, 4), "int64")), 8), r"signal.istft: argument 'x' expected complex64"),
    (lambda: eager.signal.istft(_t(np.ones((5, 4)) > 0), 8), r"signal.istft: argument 'x' .*got bool"),
    (lambda: eager.signal.overlap_add(_t(np.ones((4, 3)) > 0), 2), r"signal.overlap_add: argument 'x' expected a "
                                                                      r"numeric Tensor"),
])
def test_signal_dtypes_no_kernel_takes_are_the_runtime_error_paddle_raises(call, match):
    with pytest.raises(RuntimeError, match=match) as info:  # Paddle 2.6.2: "(NotFound) The kernel ..."
        call()
    assert isinstance(info.value, TypeError)  # eager's type for a wrong kind of tensor, kept


@pytest.mark.parametrize("x_dtype, w_dtype", [("float32", "float64"), ("float64", "float32")])
def test_stft_promotes_a_float32_float64_mix_of_x_and_window_as_paddle_does(x_dtype, w_dtype):
    x = np.random.default_rng(3).standard_normal((2, 40))
    w = np.hanning(16)
    xt, wt = _t(x.astype(x_dtype), stop_gradient=False), _t(w.astype(w_dtype), stop_gradient=False)
    got = eager.signal.stft(xt, 16, hop_length=5, window=wt, center=False)
    assert got.dtype == eager.complex128  # Paddle 2.6.2: complex128 either way
    frames = np.stack([x[:, t * 5:t * 5 + 16] for t in range(5)], axis=-2) * w
    np.testing.assert_allclose(got.numpy(), np.swapaxes(np.fft.rfft(frames, axis=-1), -1, -2), rtol=1e-5, atol=1e-5)
    got.abs().sum().backward()
    assert xt.grad.dtype == xt.dtype and wt.grad.dtype == wt.dtype


def test_istft_promotes_a_float32_float64_mix_of_spectrum_and_window_as_paddle_does():
    x = np.random.default_rng(4).standard_normal((2, 100))
    w = np.hanning(16) + 0.1
    spec = eager.signal.stft(_t(x), 16, hop_length=4, window=_t(w)).numpy()
    got = eager.signal.istft(_t(spec.astype("complex64")), 16, hop_length=4, window=_t(w), length=100)
    assert got.dtype == eager.float64  # Paddle 2.6.2: float64
    np.testing.assert_allclose(got.numpy(), x, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn", ["fftfreq", "rfftfreq"])
def test_fftfreq_under_a_float16_default_dtype_is_the_runtime_error_paddle_raises(fn):
    eager.set_default_dtype("float16")
    try:
        with pytest.raises(RuntimeError, match=rf"fft.{fn}: argument 'dtype' expected float32 or float64 "
                                               r"\(default: the default dtype, float16\), got None"):
            getattr(eager.fft, fn)(4)
    finally:
        eager.set_default_dtype("float32")
    with pytest.raises(TypeError, match=rf"fft.{fn}: argument 'dtype'"):  # eager's type, kept
        getattr(eager.fft, fn)(4, dtype="int32")


@pytest.mark.parametrize("fn, complex_x", [("fft", True), ("ifft", False), ("rfft", False), ("irfft", True),
                                           ("hfft", True), ("ihfft", False)])
def test_a_1d_transform_with_axis_none_takes_the_last_axis_as_paddle_does(fn, complex_x):
    x = np.random.default_rng(5).standard_normal((3, 6))
    x = x + 1j * x[::-1] if complex_x else x
    got = getattr(eager.fft, fn)(_t(x), n=8, axis=None)
    np.testing.assert_allclose(got.numpy(), getattr(np.fft, fn)(x, n=8, axis=-1), rtol=1e-10, atol=1e-12)
