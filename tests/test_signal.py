"""eager.signal: stft against a NumPy loop written from the definition
(X[f, t] = sum_n w[n] x[t*hop + n] exp(-2j pi f n / N)), istft against the
overlap-add / envelope formula and as stft's inverse, float64 finite-difference
gradients through signal, window and spectrum, and the errors of bad arguments."""
from __future__ import annotations

import doctest

import numpy as np
import pytest

import eager
from eager import signal as S
from eager.autograd import gradcheck, gradgradcheck


def _t(array, grad=False):
    return eager.to_tensor(array, stop_gradient=not grad)


def _window_full(window, win_length, n_fft):
    w = np.ones(win_length) if window is None else window
    left = (n_fft - win_length) // 2
    return np.concatenate([np.zeros(left), w, np.zeros(n_fft - win_length - left)])


def _stft_reference(x, n_fft, hop, win_length, window, center, pad_mode, normalized, onesided):
    x = np.atleast_2d(x)
    w = _window_full(window, win_length, n_fft)
    if center:
        p = n_fft // 2
        x = np.stack([np.pad(row, p, mode="reflect" if pad_mode == "reflect" else "constant") for row in x])
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    n_freq = n_fft // 2 + 1 if onesided else n_fft
    out = np.zeros((x.shape[0], n_freq, n_frames), complex)
    n = np.arange(n_fft)
    for b in range(x.shape[0]):
        for t in range(n_frames):
            frame = w * x[b, t * hop:t * hop + n_fft]
            for f in range(n_freq):
                out[b, f, t] = np.sum(frame * np.exp(-2j * np.pi * f * n / n_fft))
    return out / np.sqrt(n_fft) if normalized else out


def _istft_reference(spec, n_fft, hop, win_length, window, center, normalized, length):
    """Complex, two-sided: y = sum_t w * ifft(X[:, t]) shifted by t*hop, over sum_t w^2 shifted."""
    w = _window_full(window, win_length, n_fft)
    n_frames = spec.shape[-1]
    full = n_fft + hop * (n_frames - 1)
    y, env = np.zeros(full, complex), np.zeros(full)
    k = np.arange(n_fft)
    for t in range(n_frames):
        frame = np.array([np.sum(spec[:, t] * np.exp(2j * np.pi * k * m / n_fft)) for m in range(n_fft)]) / n_fft
        if normalized:
            frame = frame * np.sqrt(n_fft)
        y[t * hop:t * hop + n_fft] += w * frame
        env[t * hop:t * hop + n_fft] += w * w
    start = n_fft // 2 if center else 0
    stop = start + length if length is not None else (full - start if center else full)
    return y[start:stop] / env[start:stop]


STFT_CASES = [  # n_fft, hop, win_length, center, pad_mode, normalized, onesided
    (8, None, None, True, "reflect", False, True), (8, 3, 6, True, "constant", True, True),
    (7, 2, 5, False, "reflect", False, False), (16, 4, 16, True, "reflect", True, False),
    (5, 5, 3, False, "constant", False, True), (1, 1, 1, True, "reflect", False, True),
]


@pytest.mark.parametrize("n_fft, hop, win_length, center, pad_mode, normalized, onesided", STFT_CASES)
def test_stft_matches_the_definition(n_fft, hop, win_length, center, pad_mode, normalized, onesided):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 23))
    window = rng.standard_normal(win_length or n_fft)
    got = S.stft(_t(x), n_fft, hop, win_length, _t(window), center, pad_mode, normalized, onesided)
    want = _stft_reference(x, n_fft, hop or n_fft // 4, win_length or n_fft, window, center, pad_mode,
                           normalized, onesided)
    assert got.dtype.value == "complex128" and got.shape == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want, atol=1e-10)


def test_stft_of_a_complex_signal_and_window_on_both_devices(device):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(20) + 1j * rng.standard_normal(20)).astype(np.complex64)
    window = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype(np.complex64)
    got = S.stft(_t(x), 8, 2, 6, _t(window), onesided=False)
    assert got.dtype.value == "complex64" and got.shape == [8, 11]
    want = _stft_reference(x, 8, 2, 6, window, True, "reflect", False, False)[0]
    np.testing.assert_allclose(got.numpy(), want, atol=1e-4)
    real = S.stft(_t(x.real.copy()), 8, 2, 6, _t(window.real.copy()))   # float32 -> complex64, onesided
    assert real.dtype.value == "complex64" and real.shape == [5, 11]
    np.testing.assert_allclose(real.numpy(), _stft_reference(x.real, 8, 2, 6, window.real, True, "reflect",
                                                             False, True)[0], atol=1e-4)


@pytest.mark.parametrize("n_fft, hop, win_length, center, normalized, length", [
    (8, 2, None, True, False, None), (9, 3, 8, False, True, 25), (16, 4, 12, True, True, 30),
    (6, 6, 6, False, False, 10),
])
def test_istft_matches_the_overlap_add_formula(n_fft, hop, win_length, center, normalized, length):
    # A spectrum that no signal has: istft is the least-squares estimate, given by the formula.
    rng = np.random.default_rng(3)
    spec = rng.standard_normal((n_fft, 9)) + 1j * rng.standard_normal((n_fft, 9))
    window = rng.uniform(0.5, 1.5, win_length or n_fft)
    got = S.istft(_t(spec), n_fft, hop, win_length, _t(window), center, normalized, onesided=False,
                  length=length, return_complex=True)
    want = _istft_reference(spec, n_fft, hop, win_length or n_fft, window, center, normalized, length)
    assert got.dtype.value == "complex128"
    np.testing.assert_allclose(got.numpy(), want, atol=1e-10)


@pytest.mark.parametrize("n_fft, hop, win_length, center, normalized, onesided", [
    (16, 4, None, True, False, True), (15, 5, 15, True, True, True), (8, 2, 8, False, False, False),
    (12, 3, 10, True, True, False),
])
def test_stft_then_istft_gives_the_signal_back(n_fft, hop, win_length, center, normalized, onesided, device):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 48))
    window = np.hanning(win_length or n_fft) + 0.1
    spec = S.stft(_t(x), n_fft, hop, win_length, _t(window), center, "reflect", normalized, onesided)
    y = S.istft(spec, n_fft, hop, win_length, _t(window), center, normalized, onesided, length=48)
    assert y.dtype.value == "float64" and y.shape == [3, 48]
    if not center:  # the last samples that no frame covers are not rebuilt
        covered = n_fft + hop * ((48 - n_fft) // hop)
        y, x = y.numpy()[:, :covered], x[:, :covered]
    else:
        y = y.numpy()
    np.testing.assert_allclose(y, x, atol=1e-10)
    complex_x = x[0] + 1j * x[1]
    back = S.istft(S.stft(_t(complex_x), n_fft, hop, win_length, _t(window), center, "reflect", normalized,
                          onesided=False), n_fft, hop, win_length, _t(window), center, normalized,
                   onesided=False, length=complex_x.shape[0], return_complex=True)
    np.testing.assert_allclose(back.numpy(), complex_x, atol=1e-10)


def test_stft_gradients_reach_the_signal_and_the_window():
    rng = np.random.default_rng(5)
    x, w = _t(rng.standard_normal((2, 13)), True), _t(rng.standard_normal(5), True)

    def f(a, b):
        spec = S.stft(a, 6, 2, 5, b, pad_mode="reflect", normalized=True)
        padded = S.stft(a, 4, 3, pad_mode="constant", onesided=False)
        return eager.real(spec), eager.imag(spec), eager.real(padded), eager.imag(padded)
    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))


def test_istft_gradients_reach_the_spectrum_and_the_window():
    rng = np.random.default_rng(6)
    re, im = _t(rng.standard_normal((5, 6)), True), _t(rng.standard_normal((5, 6)), True)
    w = _t(rng.uniform(0.5, 1.5, 8), True)

    def f(a, b, window):
        return S.istft(eager.complex(a, b), 8, 3, 8, window, length=14)
    assert gradcheck(f, (re, im, w))
    assert gradgradcheck(f, (re, im, w))


def test_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    x, w = rng.standard_normal((2, 50)), np.hanning(12)
    got = S.stft(_t(x), 16, 5, 12, _t(w), normalized=True)
    want = torch.stft(torch.tensor(x), 16, 5, 12, torch.tensor(w), normalized=True, return_complex=True,
                      pad_mode="reflect")
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-10)
    back = S.istft(got, 16, 5, 12, _t(w), normalized=True, length=47)
    np.testing.assert_allclose(back.numpy(), torch.istft(want, 16, 5, 12, torch.tensor(w), normalized=True,
                                                         length=47).numpy(), atol=1e-10)


@pytest.mark.parametrize("call, error, message", [
    (lambda x, z: S.stft(x.numpy(), 4), TypeError, r"signal.stft: argument 'x' expected a Tensor"),
    (lambda x, z: S.stft(eager.ones([8], dtype="bool"), 4), TypeError, r"signal.stft: argument 'x' expected float32"),
    (lambda x, z: S.stft(x.reshape([1, 2, 8]), 4), ValueError, r"signal.stft: argument 'x' expected a 1-D or 2-D"),
    (lambda x, z: S.stft(x, 17), ValueError, r"signal.stft: argument 'n_fft' expected an int in \(0, seq_length=16\]"),
    (lambda x, z: S.stft(x, 3), ValueError, r"signal.stft: argument 'hop_length' expected a positive int"),
    (lambda x, z: S.stft(x, 8, win_length=9), ValueError, r"argument 'win_length' expected an int in \(0, n_fft=8\]"),
    (lambda x, z: S.stft(x, 8, 2.0), TypeError, r"signal.stft: argument 'hop_length' expected an int"),
    (lambda x, z: S.stft(x, 8, window=eager.ones([7], dtype="float64")), ValueError,
     r"argument 'window' expected a 1-D Tensor of win_length=8 points, got shape \[7\]"),
    (lambda x, z: S.stft(x, 8, window=eager.ones([8], dtype="int64")), TypeError,
     r"argument 'window' expected a float32, float64, complex64 or complex128 Tensor, got int64"),
    (lambda x, z: S.stft(x, 8, pad_mode="edge"), ValueError, r"signal.stft: argument 'pad_mode' expected one of"),
    (lambda x, z: S.stft(x.astype("complex128"), 8), ValueError, r"argument 'onesided' must be False for a complex"),
    (lambda x, z: S.stft(x, 8, center=1), TypeError, r"signal.stft: argument 'center' expected a bool"),
    (lambda x, z: S.istft(x.reshape([2, 8]).astype("int64"), 8), TypeError,
     r"signal.istft: argument 'x' expected complex64, complex128 or a real"),
    (lambda x, z: S.istft(z[0][0], 8), ValueError, r"signal.istft: argument 'x' expected a 2-D or 3-D"),
    (lambda x, z: S.istft(z, 8), ValueError, r"argument 'x' expected 5 frequencies \(n_fft=8 // 2 \+ 1, onesided\)"),
    (lambda x, z: S.istft(z, 8, onesided=False), ValueError, r"expected 8 frequencies"),
    (lambda x, z: S.istft(z, 4, hop_length=5), ValueError, r"argument 'hop_length' expected an int in \(0, win_length=4\]"),
    (lambda x, z: S.istft(z, 4, return_complex=True), ValueError, r"'onesided' must be False when return_complex"),
    (lambda x, z: S.istft(z, 4, length=0), ValueError, r"signal.istft: argument 'length' expected an int >= 1"),
    (lambda x, z: S.istft(z, 4, window=eager.ones([4], dtype="complex128")), TypeError,
     r"argument 'window' must be real when return_complex is False"),
    (lambda x, z: S.istft(z, 4, hop_length=2, window=_t(np.array([1.0, 0, 0, 0]))), ValueError,
     r"signal.istft: the nonzero overlap-add \(NOLA\) condition fails"),
])
def test_bad_arguments_raise_clear_errors(call, error, message):
    x = _t(np.arange(16.0), True)
    z = _t(np.ones((3, 3, 4), complex))
    with pytest.raises(error, match=message):
        call(x, z)
    assert x.grad is None and np.array_equal(x.numpy(), np.arange(16.0))


def test_docstring_examples_run():
    result = doctest.testmod(S, extraglobs={"eager": eager, "np": np}, optionflags=doctest.NORMALIZE_WHITESPACE,
                             report=False)
    assert result.attempted >= 6 and result.failed == 0, result


def test_tensor_methods_are_the_functions():
    x = _t(np.random.default_rng(9).standard_normal(32))
    spec = x.stft(8, 2)
    np.testing.assert_array_equal(spec.numpy(), S.stft(x, 8, 2).numpy())
    np.testing.assert_allclose(spec.istft(8, 2, length=32).numpy(), x.numpy(), atol=1e-12)


def test_eager_signal_loads_first_in_a_fresh_process():
    # `import eager as paddle; paddle.signal.stft(...)` loads eager.signal before the rest of
    # eager's API (and Tensor's methods, which include stft): that order must work.
    import os
    import pathlib
    import subprocess
    import sys
    root = pathlib.Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    code = ("import numpy as np, eager as paddle\n"
            "x = paddle.to_tensor(np.ones(32, 'float32'))\n"
            "print(paddle.signal.stft(x, 8).shape, x.stft(8).shape, paddle.audio.features.MFCC)")
    for first in ("import eager.signal\n", ""):
        done = subprocess.run([sys.executable, "-c", first + code], capture_output=True, text=True, timeout=120,
                              cwd=root, env=env)
        assert done.returncode == 0 and "[5, 17] [5, 17]" in done.stdout, done.stderr[-2000:]


# -- frame and overlap_add -------------------------------------------------------------------

def _frame_reference(x, frame_length, hop, axis):
    """Frames written from the definition: frame t holds samples t*hop .. t*hop + frame_length - 1."""
    moved = np.moveaxis(x, axis, -1)
    n_frames = 1 + (moved.shape[-1] - frame_length) // hop
    frames = np.stack([moved[..., t * hop:t * hop + frame_length] for t in range(n_frames)], -1)
    return frames if axis == -1 else np.moveaxis(frames, (-2, -1), (1, 0))


def _overlap_add_reference(x, hop, axis):
    frames = x if axis == -1 else np.moveaxis(x, (0, 1), (-1, -2))       # [..., n, T]
    n, n_frames = frames.shape[-2:]
    out = np.zeros(frames.shape[:-2] + ((n_frames - 1) * hop + n,), x.dtype)
    for t in range(n_frames):
        out[..., t * hop:t * hop + n] += frames[..., t]
    return out if axis == -1 else np.moveaxis(out, -1, 0)


@pytest.mark.parametrize("shape, frame_length, hop, axis", [((9,), 4, 2, -1), ((9,), 4, 2, 0), ((2, 3, 10), 3, 3, -1),
                                                            ((10, 2, 3), 5, 1, 0), ((7,), 7, 4, -1)])
def test_frame_matches_the_definition(shape, frame_length, hop, axis):
    x = np.random.default_rng(0).standard_normal(shape)
    got = S.frame(_t(x), frame_length, hop, axis=axis).numpy()
    np.testing.assert_array_equal(got, _frame_reference(x, frame_length, hop, axis))


def test_frame_keeps_integer_dtypes_and_the_hand_example():
    got = S.frame(eager.arange(8), frame_length=4, hop_length=2)
    assert got.dtype == eager.int64
    assert got.numpy().tolist() == [[0, 2, 4], [1, 3, 5], [2, 4, 6], [3, 5, 7]]


@pytest.mark.parametrize("shape, hop, axis", [((8, 2), 2, -1), ((2, 8), 2, 0), ((2, 1, 8, 3), 3, -1),
                                              ((3, 4, 2, 1), 1, 0), ((5, 2), 5, -1)])
def test_overlap_add_matches_the_definition(shape, hop, axis):
    x = np.random.default_rng(1).standard_normal(shape)
    np.testing.assert_allclose(S.overlap_add(_t(x), hop, axis=axis).numpy(), _overlap_add_reference(x, hop, axis),
                               rtol=1e-12, atol=1e-12)


def test_overlap_add_of_integers_by_hand():
    # frames [0..7] and [8..15] (columns), 2 apart: positions 2..7 hold two samples each.
    got = S.overlap_add(eager.arange(16).reshape([2, 8]).t(), hop_length=2)
    assert got.dtype == eager.int64
    assert got.numpy().tolist() == [0, 1, 10, 12, 14, 16, 18, 20, 14, 15]


def test_frame_and_overlap_add_gradients():
    x = _t(np.random.default_rng(2).standard_normal((2, 9)), grad=True)
    assert gradcheck(lambda v: S.frame(v, 4, 2) * S.frame(v, 4, 2), (x,))
    y = _t(np.random.default_rng(3).standard_normal((3, 5, 2)), grad=True)
    assert gradcheck(lambda v: S.overlap_add(v, 2, axis=0) ** 2, (y,))


def test_frame_and_overlap_add_errors():
    with pytest.raises(ValueError, match=r"signal.frame: argument 'frame_length' expected an int in \(0, seq_length=5\]"):
        S.frame(eager.ones([5]), 6, 1)
    with pytest.raises(ValueError, match="signal.frame: argument 'axis' expected 0 or -1, got 1"):
        S.frame(eager.ones([2, 5]), 2, 1, axis=1)
    with pytest.raises(ValueError, match="signal.frame: argument 'hop_length' expected an int >= 1, got 0"):
        S.frame(eager.ones([5]), 2, 0)
    with pytest.raises(ValueError, match="signal.overlap_add: argument 'x' expected a Tensor of at least 2 dimensions"):
        S.overlap_add(eager.ones([5]), 1)
    with pytest.raises(TypeError, match="signal.overlap_add: argument 'x'"):
        S.overlap_add(np.ones((2, 2)), 1)
