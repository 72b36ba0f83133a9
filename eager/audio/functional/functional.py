"""Mel scales, filter banks, decibels and the DCT (Paddle's ``paddle.audio.functional``).

The mel scale is Slaney's (linear below 1 kHz, logarithmic above, as librosa's
default) or, with ``htk=True``, ``2595 log10(1 + f / 700)``. Functions of a
frequency take a Python number (and give one back) or a Tensor (differentiable,
through ``where`` / ``log`` / ``exp``); the matrices are built from the ops too,
on the default device.

>>> import eager
>>> round(eager.audio.functional.hz_to_mel(1000.0), 6), round(eager.audio.functional.mel_to_hz(15.0), 6)
(15.0, 1000.0)
>>> eager.audio.functional.compute_fbank_matrix(sr=16000, n_fft=512, n_mels=40).shape
[40, 257]
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from phi.core.errors import AssertedArgumentError

from ...arguments import to_bool
from ...composite import _paddle_api as _api
from ...creation import to_tensor
from ...generated import forward_api as _F
from ...nn import functional as _NF
from ...tensor import Tensor
from .window import window_dtype

__all__ = ["hz_to_mel", "mel_to_hz", "mel_frequencies", "fft_frequencies", "compute_fbank_matrix",
           "power_to_db", "create_dct"]

_F_SP = 200.0 / 3            # Hz per mel in the linear part
_MIN_LOG_HZ = 1000.0         # where the log part begins
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOGSTEP = math.log(6.4) / 27.0


def _frequency(fn: str, arg: str, value):
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point:
            return value
        if value.dtype.is_integer:  # Paddle's arithmetic with Python floats gives float32
            return _F.cast(value, "float32")
        raise TypeError(f"audio.functional.{fn}: argument '{arg}' expected a floating-point or integer Tensor, "
                        f"got {value.dtype}")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"audio.functional.{fn}: argument '{arg}' expected a number or a Tensor, got "
                        f"{type(value).__name__} {value!r}")
    return float(value)


def _positive_int(fn: str, arg: str, value) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"audio.functional.{fn}: argument '{arg}' expected an int >= 1, got {value!r}")
    return int(value)


def _number(fn: str, arg: str, value, positive=False) -> float:
    value = _api.number(f"audio.functional.{fn}", arg, value)
    if positive and not value > 0:
        raise ValueError(f"audio.functional.{fn}: argument '{arg}' expected a number > 0, got {value!r}")
    return value


def hz_to_mel(freq, htk=False):
    """Frequencies in Hz to mels (a number or a Tensor of any shape).

    >>> round(eager.audio.functional.hz_to_mel(440.0, htk=True), 2)
    549.64
    """
    freq = _frequency("hz_to_mel", "freq", freq)
    htk = to_bool(htk, "audio.functional.hz_to_mel", "htk")
    if htk:
        if isinstance(freq, Tensor):
            # log1p: 1 + f/700 rounds away most of a low frequency in float32
            return _F.log1p(freq / 700.0) * (2595.0 / math.log(10.0))
        return 2595.0 / math.log(10.0) * math.log1p(freq / 700.0)
    if isinstance(freq, Tensor):
        linear = freq / _F_SP
        # the log branch, on frequencies clamped into its domain so neither branch is NaN
        safe = _F.maximum(freq, _F.full_like(freq, _MIN_LOG_HZ))
        log = _F.log(safe / _MIN_LOG_HZ) / _LOGSTEP + _MIN_LOG_MEL
        return _F.where(freq >= _MIN_LOG_HZ, log, linear)
    if freq >= _MIN_LOG_HZ:
        return _MIN_LOG_MEL + math.log(freq / _MIN_LOG_HZ) / _LOGSTEP
    return freq / _F_SP


def mel_to_hz(mel, htk=False):
    """Mels to frequencies in Hz (a number or a Tensor of any shape), the inverse of :func:`hz_to_mel`.

    >>> round(eager.audio.functional.mel_to_hz(549.64, htk=True), 1)
    440.0
    """
    mel = _frequency("mel_to_hz", "mel", mel)
    htk = to_bool(htk, "audio.functional.mel_to_hz", "htk")
    if htk:
        if isinstance(mel, Tensor):
            # expm1: exp(.) - 1 cancels most digits of a low mel in float32
            return _F.expm1(mel * (math.log(10.0) / 2595.0)) * 700.0
        return 700.0 * math.expm1(mel * math.log(10.0) / 2595.0)
    if isinstance(mel, Tensor):
        linear = mel * _F_SP
        log = _F.exp((_F.minimum(mel, _F.full_like(mel, 1e4)) - _MIN_LOG_MEL) * _LOGSTEP) * _MIN_LOG_HZ
        return _F.where(mel >= _MIN_LOG_MEL, log, linear)
    if mel >= _MIN_LOG_MEL:
        return _MIN_LOG_HZ * math.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
    return mel * _F_SP


def mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0, htk=False, dtype="float32"):
    """``n_mels`` frequencies (Hz) evenly spaced on the mel scale from f_min to f_max.

    >>> eager.audio.functional.mel_frequencies(3, 0.0, 2000.0, dtype="float64").numpy().round(1).tolist()
    [0.0, 836.1, 2000.0]
    """
    fn = "mel_frequencies"
    n_mels = _positive_int(fn, "n_mels", n_mels)
    low, high = _number(fn, "f_min", f_min), _number(fn, "f_max", f_max)
    htk = to_bool(htk, f"audio.functional.{fn}", "htk")
    dtype = window_dtype(f"audio.functional.{fn}", dtype)
    mels = _F.linspace(hz_to_mel(low, htk), hz_to_mel(high, htk), n_mels, dtype=dtype)
    return mel_to_hz(mels, htk)


def fft_frequencies(sr, n_fft, dtype="float32"):
    """The ``n_fft // 2 + 1`` frequencies (Hz) of a onesided spectrum: 0 .. sr / 2.

    >>> eager.audio.functional.fft_frequencies(8, 4).numpy().tolist()
    [0.0, 2.0, 4.0]
    """
    fn = "fft_frequencies"
    sr = _number(fn, "sr", sr, positive=True)
    n_fft = _positive_int(fn, "n_fft", n_fft)
    dtype = window_dtype(f"audio.functional.{fn}", dtype)
    return _F.linspace(0.0, sr / 2.0, 1 + n_fft // 2, dtype=dtype)


def compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False, norm="slaney",
                         dtype="float32"):
    """The mel filter bank: ``[n_mels, n_fft // 2 + 1]`` triangles over the FFT bins.

    Filter i rises from mel frequency i to i+1 and falls to i+2 (of ``n_mels + 2``
    frequencies from f_min to f_max, default sr / 2). ``norm='slaney'`` divides
    each by its width in Hz (constant energy per band); a number p scales each
    row to unit p-norm; None leaves the peaks at 1.

    >>> bank = eager.audio.functional.compute_fbank_matrix(sr=8000, n_fft=16, n_mels=4, norm=None)
    >>> bank.shape, float(bank.numpy().max()) <= 1.0
    ([4, 9], True)
    """
    fn = "compute_fbank_matrix"
    sr = _number(fn, "sr", sr, positive=True)
    n_fft = _positive_int(fn, "n_fft", n_fft)
    n_mels = _positive_int(fn, "n_mels", n_mels)
    f_max = sr / 2.0 if f_max is None else _number(fn, "f_max", f_max)
    f_min = _number(fn, "f_min", f_min)
    if not 0 <= f_min < f_max:
        raise ValueError(f"audio.functional.{fn}: expected 0 <= f_min < f_max, got f_min={f_min}, f_max={f_max}")
    # isinstance first: a Tensor or array norm must not reach == (elementwise)
    if not (norm is None or isinstance(norm, str) and norm == "slaney"
            or isinstance(norm, numbers.Real) and not isinstance(norm, bool) and not math.isnan(norm)):
        raise ValueError(f"audio.functional.{fn}: argument 'norm' expected 'slaney', a number (p-norm) or None, "
                         f"got {norm!r}")
    # checked here so that errors name this function, not the helpers it calls
    htk = to_bool(htk, f"audio.functional.{fn}", "htk")
    dtype = window_dtype(f"audio.functional.{fn}", dtype)
    fft_freqs = fft_frequencies(sr, n_fft, dtype)                       # [bins]
    mel_f = mel_frequencies(n_mels + 2, f_min, f_max, htk, dtype)        # [n_mels + 2]
    widths = mel_f[1:] - mel_f[:-1]                                      # [n_mels + 1]
    ramps = mel_f.unsqueeze(1) - fft_freqs.unsqueeze(0)                  # [n_mels + 2, bins]
    lower = -ramps[:n_mels] / widths[:n_mels].unsqueeze(1)
    upper = ramps[2:] / widths[1:].unsqueeze(1)
    weights = _F.maximum(_F.zeros_like(lower), _F.minimum(lower, upper))
    if norm == "slaney":
        weights = weights * (2.0 / (mel_f[2:] - mel_f[:n_mels])).unsqueeze(1)
    elif norm is not None:
        weights = _NF.normalize(weights, p=float(norm), axis=-1)
    return weights


def power_to_db(spect, ref_value=1.0, amin=1e-10, top_db=80.0):
    """A power spectrogram in decibels: ``10 log10(max(spect, amin)) - 10 log10(max(ref_value, amin))``,
    floored ``top_db`` below its maximum (unless top_db is None).

    >>> eager.audio.functional.power_to_db(eager.to_tensor([1.0, 10.0, 1e-12], dtype="float64"), top_db=None).numpy().tolist()
    [0.0, 10.0, -100.0]
    """
    fn = "audio.functional.power_to_db"
    if not isinstance(spect, Tensor):
        raise TypeError(f"{fn}: argument 'spect' expected a Tensor, got {type(spect).__name__}")
    if not spect.dtype.is_floating_point:
        raise TypeError(f"{fn}: argument 'spect' expected a floating-point Tensor, got {spect.dtype}")
    amin = _number("power_to_db", "amin", amin, positive=True)
    ref_value = _number("power_to_db", "ref_value", ref_value, positive=True)
    if top_db is not None:
        top_db = _number("power_to_db", "top_db", top_db)
        if top_db < 0:
            raise ValueError(f"{fn}: argument 'top_db' expected a number >= 0 or None, got {top_db}")
        if spect.size == 0:  # the floor is top_db below the maximum, which an empty spectrogram has not
            raise ValueError(f"{fn}: argument 'spect' is empty (shape {spect.shape}); top_db needs its maximum, "
                             f"pass top_db=None")
    log_spec = _F.log10(_F.maximum(spect, _F.full_like(spect, amin))) * 10.0
    log_spec = log_spec - 10.0 * math.log10(max(ref_value, amin))
    if top_db is not None:
        floor = log_spec.max() - top_db
        log_spec = _F.maximum(log_spec, floor.expand(log_spec.shape) if log_spec.ndim else floor)
    return log_spec


def create_dct(n_mfcc, n_mels, norm="ortho", dtype="float32"):
    """The DCT-II matrix ``[n_mels, n_mfcc]``: column k is ``cos(pi / n_mels * (n + 0.5) * k)``,
    scaled to an orthonormal basis (``norm='ortho'``) or by 2 (``norm=None``).

    >>> d = eager.audio.functional.create_dct(4, 4, dtype="float64").numpy()
    >>> bool(abs(d.T @ d - __import__("numpy").eye(4)).max() < 1e-12)
    True
    """
    fn = "create_dct"
    n_mfcc, n_mels = _positive_int(fn, "n_mfcc", n_mfcc), _positive_int(fn, "n_mels", n_mels)
    if not (norm is None or isinstance(norm, str) and norm == "ortho"):
        # Paddle asserts norm == 'ortho': AssertedArgumentError, the ValueError and that AssertionError
        raise AssertedArgumentError(f"audio.functional.{fn}: argument 'norm' expected 'ortho' or None, got {norm!r}")
    dtype = window_dtype(f"audio.functional.{fn}", dtype)
    n = _F.arange(0, n_mels, dtype=dtype)
    k = _F.arange(0, n_mfcc, dtype=dtype).unsqueeze(1)
    dct = _F.cos((n + 0.5) * k * (math.pi / n_mels))                     # [n_mfcc, n_mels]
    if norm is None:
        dct = dct * 2.0
    else:
        scale = np.full((n_mfcc, 1), math.sqrt(2.0 / n_mels))
        scale[0] /= math.sqrt(2.0)
        dct = dct * to_tensor(scale.astype(dtype), dtype=dtype, place=dct.place)
    return dct.transpose([1, 0])
