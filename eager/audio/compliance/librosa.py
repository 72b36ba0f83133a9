"""librosa-compatible features with the signatures of ``paddleaudio.compliance.librosa``
(PaddleSpeech's): ``stft``, ``spectrogram``, ``melspectrogram``, ``mfcc``,
``power_to_db``, ``hz_to_mel``, ``mel_to_hz``, ``mel_frequencies``,
``fft_frequencies``, ``compute_fbank_matrix``, ``mu_encode``, ``mu_decode``.

As in PaddleSpeech, a waveform or spectrogram given as a NumPy array gives a NumPy
array back (the features in float32, as its complex64 STFT gives). A Tensor gives a
Tensor, computed with differentiable ops (:func:`eager.signal.stft`, ``matmul``,
``log10`` ...) on its device and in its precision, so a loss on the features
back-propagates to the waveform. The frequency helpers take numbers (a float back),
lists or arrays (an array back) or Tensors (a Tensor back); the filter bank and the
frequency grids are arrays.

>>> import numpy as np
>>> from eager.audio.compliance import librosa
>>> x = np.sin(np.arange(8000) * 0.1).astype("float32")
>>> librosa.melspectrogram(x, sr=8000, n_mels=32).shape
(32, 26)
>>> librosa.mfcc(x, sr=8000, n_mfcc=13, n_mels=32).shape
(13, 26)
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ... import signal as _signal
from ...arguments import to_bool
from ...composite import _paddle_api as _api
from ...creation import to_tensor
from ...generated import forward_api as _F
from ...tensor import Tensor
from .. import functional as _functional

__all__ = ["stft", "mfcc", "hz_to_mel", "mel_to_hz", "mel_frequencies", "power_to_db", "compute_fbank_matrix",
           "melspectrogram", "spectrogram", "mu_encode", "mu_decode", "fft_frequencies"]

_NAME = "audio.compliance.librosa"


def _number(fn, arg, value):
    return _api.number(f"{_NAME}.{fn}", arg, value)


def _positive_int(fn, arg, value):
    return _api.integer(f"{_NAME}.{fn}", arg, value, minimum=1)


def _as_tensor(fn, arg, value):
    """(a Tensor of value, whether value was a NumPy array): a float Tensor passes as it is;
    an array must be floating point and finite, as librosa checks audio."""
    if isinstance(value, Tensor):
        if value.dtype.value not in ("float32", "float64"):
            raise TypeError(f"{_NAME}.{fn}: argument '{arg}' expected a float32 or float64 Tensor, got {value.dtype}")
        return value, False
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{_NAME}.{fn}: argument '{arg}' expected a NumPy array or a Tensor, got "
                        f"{type(value).__name__}")
    if value.dtype.kind != "f":
        raise TypeError(f"{_NAME}.{fn}: argument '{arg}' expected floating-point values, got {value.dtype}")
    if not np.isfinite(value).all():
        raise ValueError(f"{_NAME}.{fn}: argument '{arg}' has values that are not finite")
    dtype = "float64" if value.dtype == np.float64 else "float32"
    return to_tensor(value.astype(dtype, copy=False), dtype=dtype, place="cpu"), True


def _waveform(fn, x):
    """A mono waveform: a non-empty 1-D float array or Tensor."""
    tensor, was_array = _as_tensor(fn, "x", x)
    if tensor.ndim != 1:
        raise ValueError(f"{_NAME}.{fn}: argument 'x' expected a mono (1-d) waveform, got shape {list(tensor.shape)}")
    if tensor.shape[0] == 0:
        raise ValueError(f"{_NAME}.{fn}: argument 'x' is an empty waveform")
    return tensor, was_array


def _back(tensor, was_array, dtype="float32"):
    """The result as the caller gave the input: an array of ``dtype``, or the Tensor."""
    return tensor.numpy().astype(dtype) if was_array else tensor


# -- the mel scale and frequency grids --------------------------------------------------------

def _frequencies(fn, arg, value):
    """(a float, float64 array or Tensor, the kind to give back)."""
    if isinstance(value, Tensor):
        return value, "tensor"
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value), "number"
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{_NAME}.{fn}: argument '{arg}' expected a number, a list or array of numbers, or a "
                        f"Tensor, got {type(value).__name__}") from None
    return array, "array"


def hz_to_mel(frequencies, htk=False):
    """Frequencies in Hz to mels: Slaney's scale (linear below 1 kHz, logarithmic above),
    or ``2595 log10(1 + f / 700)`` with ``htk``.

    Args:
        frequencies: a number, a list or array of numbers, or a float Tensor.
        htk (bool): HTK's formula. Default False.

    Returns:
        float, np.ndarray (float64) or Tensor, as ``frequencies``.

    >>> round(hz_to_mel(1000.0), 6), hz_to_mel([0.0, 2000.0]).round(3).tolist()
    (15.0, [0.0, 25.082])
    """
    freq, kind = _frequencies("hz_to_mel", "frequencies", frequencies)
    htk = to_bool(htk, f"{_NAME}.hz_to_mel", "htk")
    if kind != "array":
        return _functional.hz_to_mel(freq, htk=htk)
    return _functional.hz_to_mel(to_tensor(freq), htk=htk).numpy()  # one formula: eager.audio.functional's


def mel_to_hz(mels, htk=False):
    """Mels to frequencies in Hz, the inverse of :func:`hz_to_mel`.

    Args:
        mels: a number, a list or array of numbers, or a float Tensor.
        htk (bool): HTK's formula. Default False.

    Returns:
        float, np.ndarray (float64) or Tensor, as ``mels``.

    >>> round(mel_to_hz(15.0), 6), mel_to_hz([0.0, 3.0]).tolist()
    (1000.0, [0.0, 200.0])
    """
    mel, kind = _frequencies("mel_to_hz", "mels", mels)
    htk = to_bool(htk, f"{_NAME}.mel_to_hz", "htk")
    if kind != "array":
        return _functional.mel_to_hz(mel, htk=htk)
    return _functional.mel_to_hz(to_tensor(mel), htk=htk).numpy()  # one formula: eager.audio.functional's


def mel_frequencies(n_mels=128, fmin=0.0, fmax=11025.0, htk=False):
    """``n_mels`` frequencies (Hz, float64 array) evenly spaced on the mel scale from fmin to fmax.

    >>> mel_frequencies(3, 0.0, 2000.0).round(1).tolist()
    [0.0, 836.1, 2000.0]
    """
    n_mels = _positive_int("mel_frequencies", "n_mels", n_mels)
    fmin, fmax = _number("mel_frequencies", "fmin", fmin), _number("mel_frequencies", "fmax", fmax)
    mels = np.linspace(hz_to_mel(fmin, htk=htk), hz_to_mel(fmax, htk=htk), n_mels)
    return mel_to_hz(mels, htk=htk)


def fft_frequencies(sr, n_fft):
    """The ``1 + n_fft // 2`` frequencies (Hz, float64 array) of a onesided spectrum, 0 to sr / 2.

    >>> fft_frequencies(8, 4).tolist()
    [0.0, 2.0, 4.0]
    """
    sr = _number("fft_frequencies", "sr", sr)
    if not sr > 0:
        raise ValueError(f"{_NAME}.fft_frequencies: argument 'sr' expected a sample rate > 0, got {sr}")
    n_fft = _positive_int("fft_frequencies", "n_fft", n_fft)
    return np.linspace(0.0, sr / 2.0, 1 + n_fft // 2)


def compute_fbank_matrix(sr, n_fft, n_mels=128, fmin=0.0, fmax=None, htk=False, norm="slaney", dtype=np.float32):
    """The mel filter bank ``[n_mels, 1 + n_fft // 2]`` (a NumPy array of ``dtype``):
    triangles between neighbouring mel frequencies, each divided by its width in Hz
    (Slaney's normalization, the only one PaddleSpeech's accepts). Warns when a filter is empty.

    >>> compute_fbank_matrix(sr=8000, n_fft=16, n_mels=4).shape
    (4, 9)
    """
    fn = f"{_NAME}.compute_fbank_matrix"
    if not isinstance(norm, str) or norm != "slaney":  # str first: an array would compare elementwise
        raise ValueError(f"{fn}: argument 'norm' expected 'slaney', got {norm!r}")
    sr = _number("compute_fbank_matrix", "sr", sr)
    if not sr > 0:
        raise ValueError(f"{fn}: argument 'sr' expected a sample rate > 0, got {sr}")
    fmax = sr / 2.0 if fmax is None else fmax
    weights = _functional.compute_fbank_matrix(sr=sr, n_fft=n_fft, n_mels=n_mels, f_min=fmin, f_max=fmax, htk=htk,
                                               norm="slaney", dtype="float64").numpy()
    mel_f = mel_frequencies(int(n_mels) + 2, fmin=fmin, fmax=fmax, htk=htk)
    if not np.all((mel_f[:-2] == 0) | (weights.max(axis=1) > 0)):
        warnings.warn("audio.compliance.librosa.compute_fbank_matrix: some mel filters are empty (no FFT bin "
                      "falls in them); raise n_fft or lower n_mels", stacklevel=2)
    return weights.astype(dtype)


# -- spectra ----------------------------------------------------------------------------------

def _stft(fn, x, n_fft, hop_length, win_length, window, center, pad_mode):
    """The complex STFT ``[1 + n_fft // 2, frames]`` of a 1-D Tensor, in its precision."""
    name = f"{_NAME}.{fn}"
    n_fft = _positive_int(fn, "n_fft", n_fft)
    win_length = n_fft if win_length is None else _positive_int(fn, "win_length", win_length)
    hop_length = win_length // 4 if hop_length is None else _positive_int(fn, "hop_length", hop_length)
    center = to_bool(center, name, "center")
    if not center and n_fft > x.shape[0]:
        raise ValueError(f"{name}: n_fft={n_fft} is longer than the waveform ({x.shape[0]} samples)")
    fft_window = _functional.get_window(window, win_length, fftbins=True, dtype=x.dtype.value)
    if fft_window.place != x.place:
        fft_window = fft_window.to(x.place)
    return _signal.stft(x, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=fft_window,
                        center=center, pad_mode=pad_mode)


def stft(x, n_fft=2048, hop_length=None, win_length=None, window="hann", center=True, dtype=np.complex64,
         pad_mode="reflect"):
    """The short-time Fourier transform of a mono waveform, ``[1 + n_fft // 2, frames]``.

    Args:
        x (np.ndarray | Tensor): the 1-d waveform.
        n_fft (int): the FFT size. Default 2048.
        hop_length (int): the step between frames. Default win_length // 4.
        win_length (int): the window's length (<= n_fft; centred with zeros). Default n_fft.
        window (str | tuple): the window, periodic (:func:`eager.audio.functional.get_window`). Default 'hann'.
        center (bool): pad n_fft // 2 samples at both ends so frame t centres on t * hop_length. Default True.
        dtype: the complex dtype of the result. Default np.complex64.
        pad_mode (str): 'reflect' or 'constant', for center. Default 'reflect'.

    Returns:
        np.ndarray or Tensor (as x): complex ``[1 + n_fft // 2, 1 + len(x) // hop_length]`` (centred).

    >>> stft(np.ones(64), n_fft=16, hop_length=4).shape
    (9, 17)
    """
    x, was_array = _waveform("stft", x)
    spec = _stft("stft", x, n_fft, hop_length, win_length, window, center, pad_mode)
    complex_dtype = np.dtype(dtype)
    if complex_dtype.kind != "c":
        raise TypeError(f"{_NAME}.stft: argument 'dtype' expected a complex dtype, got {complex_dtype}")
    if was_array:
        return spec.numpy().astype(complex_dtype)
    return spec if spec.dtype.value == complex_dtype.name else spec.astype(complex_dtype.name)


def _power_spectrum(fn, x, window_size, hop_length, window, center, pad_mode, power):
    power = _number(fn, "power", power)
    if not power > 0:
        raise ValueError(f"{_NAME}.{fn}: argument 'power' expected a number > 0, got {power}")
    magnitude = _F.abs(_stft(fn, x, window_size, hop_length, window_size, window, center, pad_mode))
    return magnitude if power == 1.0 else _F.pow(magnitude, power)


def spectrogram(x, sr=16000, window_size=512, hop_length=320, window="hann", center=True, pad_mode="reflect",
                power=2.0):
    """``|stft(x)| ** power``, ``[1 + window_size // 2, frames]`` (``sr`` is not used, as in
    PaddleSpeech).

    >>> spectrogram(np.ones(1000, "float32"), window_size=64, hop_length=16).shape
    (33, 63)
    """
    x, was_array = _waveform("spectrogram", x)
    return _back(_power_spectrum("spectrogram", x, window_size, hop_length, window, center, pad_mode, power),
                 was_array)


def power_to_db(spect, ref=1.0, amin=1e-10, top_db=80.0):
    """A power spectrogram in decibels: ``10 log10(max(amin, spect)) - 10 log10(max(amin, |ref|))``,
    floored ``top_db`` below its maximum (unless top_db is None).

    Args:
        spect (np.ndarray | Tensor): power values (a complex array: its magnitude, with a warning).
        ref (float | callable): the reference power, or a function of the magnitudes giving it
            (e.g. ``np.max``). Default 1.0.
        amin (float): the floor (> 0) under spect and ref. Default 1e-10.
        top_db (float | None): the dynamic range kept (>= 0). Default 80.0.

    >>> power_to_db(np.array([1.0, 10.0, 1e-12]), top_db=None).tolist()
    [0.0, 10.0, -100.0]
    """
    fn = f"{_NAME}.power_to_db"
    amin = _number("power_to_db", "amin", amin)
    if not amin > 0:
        raise ValueError(f"{fn}: argument 'amin' expected a number > 0, got {amin}")
    if top_db is not None:
        top_db = _number("power_to_db", "top_db", top_db)
        if top_db < 0:
            raise ValueError(f"{fn}: argument 'top_db' expected a number >= 0 or None, got {top_db}")
    if isinstance(spect, np.ndarray) and spect.dtype.kind == "c":
        warnings.warn(f"{fn}: a complex spect: its phase is discarded (pass np.abs(D) ** 2)", stacklevel=2)
        spect = np.abs(spect)
    if isinstance(spect, np.ndarray) and spect.dtype.kind in "iub":
        spect = spect.astype(np.float64)
    magnitude, was_array = _as_tensor("power_to_db", "spect", spect)
    if callable(ref):
        ref_value = ref(spect)
        ref_value = float(ref_value.numpy() if isinstance(ref_value, Tensor) else ref_value)
    else:
        ref_value = abs(_number("power_to_db", "ref", ref))
    log_spec = _F.log10(_F.clip(magnitude, min=amin)) * 10.0 - 10.0 * math.log10(max(amin, ref_value))
    if top_db is not None:
        if log_spec.size == 0:  # the floor is top_db below the maximum, which nothing has
            raise ValueError(f"{fn}: argument 'spect' is empty (shape {log_spec.shape}); top_db needs its maximum, "
                             f"pass top_db=None")
        floor = log_spec.max() - top_db
        log_spec = _F.maximum(log_spec, floor.expand(log_spec.shape) if log_spec.ndim else floor)
    return _back(log_spec, was_array, magnitude.dtype.value if was_array else None)


def melspectrogram(x, sr=16000, window_size=512, hop_length=320, n_mels=64, fmin=50.0, fmax=None, window="hann",
                   center=True, pad_mode="reflect", power=2.0, to_db=True, ref=1.0, amin=1e-10, top_db=None):
    """The mel spectrogram ``[n_mels, frames]``: the filter bank (:func:`compute_fbank_matrix`,
    window_size-point FFT) times ``|stft| ** power``, in decibels with ``to_db``
    (:func:`power_to_db` with ref, amin, top_db).

    Args:
        x (np.ndarray | Tensor): the 1-d waveform.
        sr (int): the sample rate. Default 16000.
        window_size (int): the FFT size and window length. Default 512.
        hop_length (int): the step between frames. Default 320.
        n_mels (int): the number of mel bands. Default 64.
        fmin (float), fmax (float | None): the band, 0 <= fmin < fmax. Defaults 50.0, sr // 2.
        window, center, pad_mode, power: as :func:`spectrogram`'s.
        to_db (bool): decibels. Default True.
        ref, amin, top_db: as :func:`power_to_db`'s (top_db default None).

    >>> melspectrogram(np.ones(1000, "float32"), sr=8000, window_size=128, hop_length=64, n_mels=20).shape
    (20, 16)
    """
    fn = "melspectrogram"
    x, was_array = _waveform(fn, x)
    sr = _number(fn, "sr", sr)
    if not sr > 0:
        raise ValueError(f"{_NAME}.{fn}: argument 'sr' expected a sample rate > 0, got {sr}")
    fmax = sr // 2 if fmax is None else _number(fn, "fmax", fmax)
    fmin = _number(fn, "fmin", fmin)
    if not 0 <= fmin < fmax:
        raise ValueError(f"{_NAME}.{fn}: expected 0 <= fmin < fmax, got fmin={fmin}, fmax={fmax}")
    spect = _power_spectrum(fn, x, window_size, hop_length, window, center, pad_mode, power)
    bank = compute_fbank_matrix(sr=sr, n_fft=window_size, n_mels=n_mels, fmin=fmin, fmax=fmax, dtype=np.float64)
    mel = _F.matmul(to_tensor(bank.astype(x.dtype.value), dtype=x.dtype.value, place=x.place), spect)
    if to_bool(to_db, f"{_NAME}.{fn}", "to_db"):
        mel = power_to_db(mel, ref=ref, amin=amin, top_db=top_db)
    return _back(mel, was_array)


def mfcc(x, sr=16000, spect=None, n_mfcc=20, dct_type=2, norm="ortho", lifter=0, **kwargs):
    """Mel-frequency cepstral coefficients ``[n_mfcc, frames]``: the first ``n_mfcc``
    coefficients of the DCT-II (over the mel axis) of ``spect``, by default the log-power
    mel spectrogram :func:`melspectrogram` ``(x, sr, **kwargs)``; with ``lifter > 0`` row i
    (from 1) is scaled by ``sin(pi i / lifter)``, as PaddleSpeech's.

    Args:
        x (np.ndarray | Tensor): the 1-d waveform (unused when spect is given).
        sr (int): the sample rate. Default 16000.
        spect (np.ndarray | Tensor | None): a ``[n_mels, frames]`` log-power mel spectrogram.
        n_mfcc (int): how many coefficients. Default 20.
        dct_type (int): 2 (the only type supported).
        norm (str | None): 'ortho' (orthonormal) or None (scipy's unnormalized DCT-II). Default 'ortho'.
        lifter (number): >= 0. Default 0.

    >>> mfcc(np.ones(1000, "float32"), sr=8000, n_mfcc=5, window_size=128, hop_length=64, n_mels=20).shape
    (5, 16)
    """
    fn = f"{_NAME}.mfcc"
    if isinstance(dct_type, bool) or not isinstance(dct_type, numbers.Integral) or dct_type != 2:
        raise ValueError(f"{fn}: argument 'dct_type' expected 2 (the DCT-II, the only type supported), got "
                         f"{dct_type!r}")
    if not (norm is None or isinstance(norm, str) and norm == "ortho"):
        raise ValueError(f"{fn}: argument 'norm' expected 'ortho' or None, got {norm!r}")
    lifter = _number("mfcc", "lifter", lifter)
    if lifter < 0:
        raise ValueError(f"{fn}: argument 'lifter' expected a number >= 0, got {lifter}")
    n_mfcc = _positive_int("mfcc", "n_mfcc", n_mfcc)
    if spect is None:
        x, was_array = _waveform("mfcc", x)
        spect = melspectrogram(x, sr=sr, **kwargs)
        out_dtype = "float32"
    else:
        spect, was_array = _as_tensor("mfcc", "spect", spect)
        out_dtype = spect.dtype.value
    if spect.ndim != 2:
        raise ValueError(f"{fn}: argument 'spect' expected a 2-d [n_mels, frames] spectrogram, got shape "
                         f"{list(spect.shape)}")
    n_mels = spect.shape[0]
    if n_mfcc > n_mels:
        raise ValueError(f"{fn}: argument 'n_mfcc' expected at most {n_mels} (the spectrogram's mel bands), got "
                         f"{n_mfcc}")
    dtype = spect.dtype.value
    basis = _functional.create_dct(n_mfcc, n_mels, norm=norm, dtype="float64").numpy()   # [n_mels, n_mfcc]
    if lifter > 0:
        basis = basis * np.sin(math.pi * np.arange(1, 1 + n_mfcc) / lifter)
    out = _F.matmul(to_tensor(basis.astype(dtype), dtype=dtype, place=spect.place), spect, transpose_x=True)
    return _back(out, was_array, out_dtype)


# -- mu-law -----------------------------------------------------------------------------------

def _mu(fn, mu):
    mu = _api.integer(f"{_NAME}.{fn}", "mu", mu)
    if mu < 1:
        raise ValueError(f"{_NAME}.{fn}: argument 'mu' expected an int >= 1 (typically 2 ** k - 1), got {mu}")
    return mu


def mu_encode(x, mu=255, quantized=True):
    """Mu-law companding of a waveform in [-1, 1]: ``sign(x) ln(1 + mu |x|) / ln(1 + mu)``,
    quantized to the integers 0 .. mu (``floor((y + 1) / 2 * mu + 0.5)``) when ``quantized``.

    >>> mu_encode(np.array([-1.0, 0.0, 1.0])).tolist()
    [0.0, 128.0, 255.0]
    """
    mu = _mu("mu_encode", mu)
    x, was_array = _as_tensor("mu_encode", "x", x)
    y = _F.sign(x) * _F.log1p(_F.abs(x) * float(mu)) / math.log1p(mu)
    if to_bool(quantized, f"{_NAME}.mu_encode", "quantized"):
        y = _F.floor((y + 1.0) / 2.0 * mu + 0.5)
    return _back(y, was_array, x.dtype.value)


def mu_decode(y, mu=255, quantized=True):
    """The inverse of :func:`mu_encode`: ``sign(y) ((1 + mu) ** |y| - 1) / mu`` of y in
    [-1, 1], or of the integers 0 .. mu mapped there (``y * 2 / mu - 1``) when ``quantized``.

    >>> mu_decode(np.array([0.0, 255.0])).round(12).tolist()
    [-1.0, 1.0]
    """
    mu = _mu("mu_decode", mu)
    y, was_array = _as_tensor("mu_decode", "y", y)
    if to_bool(quantized, f"{_NAME}.mu_decode", "quantized"):
        y = y * (2.0 / mu) - 1.0
    x = _F.sign(y) * (_F.exp(_F.abs(y) * math.log1p(mu)) - 1.0) / float(mu)
    return _back(x, was_array, y.dtype.value)
