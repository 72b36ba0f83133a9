"""``eager.signal``: Paddle's ``paddle.signal`` namespace (short-time Fourier transforms,
and the framing and overlap-adding they are built on).

:func:`stft` cuts a signal into overlapping frames, weights each by a window and
takes its discrete Fourier transform; :func:`istft` inverts it by overlap-adding
the inverse transforms of the frames and dividing by the overlap-added squared
window (the least-squares estimate, Griffin & Lim 1984). Both are compositions of
differentiable ops (``index_select``, ``index_add``, ``pad``, ``eager.fft``), so
gradients flow to the signal, the spectrum and the window, to any order, on any
device the ops run on.

>>> import numpy as np, eager
>>> x = eager.to_tensor(np.random.rand(2, 64))
>>> spec = eager.signal.stft(x, n_fft=16, hop_length=4)
>>> print(spec.shape, spec.dtype)
[2, 9, 17] paddle.complex128
>>> y = eager.signal.istft(spec, n_fft=16, hop_length=4, length=64)
>>> bool(np.allclose(y.numpy(), x.numpy()))
True
"""
from __future__ import annotations

import numpy as np

from phi.common import DataType
from phi.core.errors import AssertedArgumentError, AssertedDtypeError, InvalidDtypeError, UnsupportedDtypeError

from . import fft as _fft
from .arguments import to_bool
from .composite import _paddle_api as _api
from .creation import to_tensor
from .framework import get_default_dtype
from .generated import forward_api as _F
from .tensor import Tensor

__all__ = ["frame", "overlap_add", "stft", "istft"]

_REAL_OF = {"complex64": "float32", "complex128": "float64", "float32": "float32", "float64": "float64"}
_INTEGERS = ("int8", "uint8", "int16", "int32", "int64")
_COMPLEX_OF = {"float32": "complex64", "float64": "complex128", "complex64": "complex64",
               "complex128": "complex128"}


_named = _api.composed_in("signal")  # errors from the ops inside name signal.<function>


# -- checks ------------------------------------------------------------------------------

def _int(fn: str, arg: str, value, low: int, high: int, high_name: str, error=ValueError) -> int:
    """An int in (low, high] (high_name names the bound in the message), else ``error``."""
    _api.integer(f"signal.{fn}", arg, value)
    if not low < value <= high:
        raise error(f"signal.{fn}: argument '{arg}' expected an int in ({low}, {high_name}={high}], got {value}")
    return int(value)


def _sizes(fn: str, n_fft, hop_length, win_length, seq_length=None):
    """(n_fft, hop_length, win_length) with Paddle's defaults (n_fft//4, n_fft). Paddle
    ``assert``s these ranges, so a value out of range is an AssertedArgumentError (a
    ValueError, and the AssertionError its test_signal expects)."""
    _api.integer(f"signal.{fn}", "n_fft", n_fft)
    if n_fft < 1:
        raise AssertedArgumentError(f"signal.{fn}: argument 'n_fft' expected an int >= 1, got {n_fft}")
    if seq_length is not None:
        _int(fn, "n_fft", n_fft, 0, seq_length, "seq_length", AssertedArgumentError)
    win_length = n_fft if win_length is None else win_length
    win_length = _int(fn, "win_length", win_length, 0, n_fft, "n_fft", AssertedArgumentError)
    hop_length = n_fft // 4 if hop_length is None else hop_length
    _api.integer(f"signal.{fn}", "hop_length", hop_length)
    if fn == "istft":  # no gaps between frames, or the signal cannot be rebuilt
        hop_length = _int(fn, "hop_length", hop_length, 0, win_length, "win_length", AssertedArgumentError)
    elif hop_length <= 0:
        raise AssertedArgumentError(f"signal.{fn}: argument 'hop_length' expected a positive int (default "
                                    f"n_fft//4 = {n_fft // 4}), got {hop_length}")
    return int(n_fft), int(hop_length), win_length


def _window(fn: str, window, win_length: int, n_fft: int, dtype: str, place) -> Tensor:
    """The window as a length-n_fft Tensor (centred, zero-padded), ones of ``dtype`` by
    default; a given window keeps its dtype (see :func:`_same_precision`)."""
    if window is None:
        window = _F.full([win_length], 1, dtype, place)
    else:
        _api.tensor(f"signal.{fn}", "window", window)
        if window.ndim != 1 or window.shape[0] != win_length:  # an assert in Paddle
            raise AssertedArgumentError(f"signal.{fn}: argument 'window' expected a 1-D Tensor of "
                                        f"win_length={win_length} points, got shape {window.shape}")
        if window.dtype.value not in _REAL_OF:  # Paddle: its multiply's dtype mismatch, a ValueError
            raise InvalidDtypeError(f"signal.{fn}: argument 'window' expected a float32, float64, complex64 or "
                                    f"complex128 Tensor, got {window.dtype.value}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _F.pad(window, [left, n_fft - win_length - left])
    return window


def _same_precision(x: Tensor, window: Tensor):
    """x and window at the wider of their precisions (float32 / float64, each keeping
    whether it is complex), as Paddle's multiply promotes a float32 signal and a
    float64 window, or the other way round."""
    real = "float64" if "float64" in (_REAL_OF[x.dtype.value], _REAL_OF[window.dtype.value]) else "float32"
    if _REAL_OF[x.dtype.value] != real:
        x = _F.cast(x, _COMPLEX_OF[real] if x.dtype.is_complex else real)
    if _REAL_OF[window.dtype.value] != real:
        window = _F.cast(window, _COMPLEX_OF[real] if window.dtype.is_complex else real)
    return x, window


def _frames(x: Tensor, n_fft: int, hop_length: int, pad: int, pad_mode: str) -> Tensor:
    """[B, L] -> [B, T, n_fft]: frame t is samples t*hop .. t*hop + n_fft - 1 of x padded
    with ``pad`` points at both ends, picked by one index_select (reflect padding is
    the reflected index, so it needs no padded copy)."""
    length = x.shape[-1]
    if pad and pad_mode == "constant":
        x, length, pad = _F.pad(x, [0, 0, pad, pad]), length + 2 * pad, 0
    n_frames = 1 + (length + 2 * pad - n_fft) // hop_length
    index = _frame_starts(n_frames, n_fft, hop_length).reshape(-1) - pad
    index = np.abs(index)                                     # reflect at the start: -i -> i
    index = np.where(index >= length, 2 * (length - 1) - index, index)   # and at the end
    picked = _F.index_select(x, to_tensor(index, dtype="int64", place=x.place), axis=-1)
    return picked.reshape([x.shape[0], n_frames, n_fft])


def _frame_starts(n_frames: int, frame_length: int, hop_length: int) -> np.ndarray:
    """[T, n]: the signal positions of the n samples of each of the T frames."""
    return np.arange(n_frames)[:, None] * hop_length + np.arange(frame_length)


def _add_frames(frames: Tensor, hop_length: int) -> Tensor:
    """[..., T, n] -> [..., n + hop*(T-1)]: frame t added at offset t*hop (one index_add)."""
    *lead, n_frames, n = frames.shape
    index = _frame_starts(n_frames, n, hop_length).reshape(-1)
    out = _F.full([*lead, n + hop_length * (n_frames - 1)], 0, frames.dtype.value, frames.place)
    return _F.index_add(out, to_tensor(index, dtype="int64", place=frames.place),
                        frames.reshape([*lead, n_frames * n]), -1)


def _frame_axis(fn: str, axis) -> int:
    _api.integer(f"signal.{fn}", "axis", axis)
    if axis not in (0, -1):
        raise ValueError(f"signal.{fn}: argument 'axis' expected 0 or -1, got {axis}")
    return axis


@_named
def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Slices ``x`` into frames of ``frame_length`` samples, ``hop_length`` apart, along
    its last axis (``axis=-1``: ``[..., seq_length] -> [..., frame_length, num_frames]``)
    or its first (``axis=0``: ``[seq_length, ...] -> [num_frames, frame_length, ...]``),
    with ``num_frames = 1 + (seq_length - frame_length) // hop_length`` (the samples
    after the last whole frame are dropped). Differentiable.

    >>> eager.signal.frame(eager.arange(6), frame_length=4, hop_length=2).numpy().tolist()
    [[0, 2], [1, 3], [2, 4], [3, 5]]
    """
    fn = "signal.frame"
    _api.tensor(fn, "x", x)
    axis = _frame_axis("frame", axis)
    if not x.shape:
        raise ValueError(f"{fn}: argument 'x' expected a Tensor of at least 1 dimension, got a 0-d Tensor")
    seq_length = x.shape[axis]
    _int("frame", "frame_length", frame_length, 0, seq_length, "seq_length")
    _api.integer(fn, "hop_length", hop_length, minimum=1)
    n_frames = 1 + (seq_length - frame_length) // hop_length
    starts = _frame_starts(n_frames, frame_length, hop_length)          # [T, n]
    if axis == 0:
        index = to_tensor(starts.reshape(-1), dtype="int64", place=x.place)
        return _F.index_select(x, index, 0).reshape([n_frames, frame_length, *x.shape[1:]])
    index = to_tensor(starts.T.reshape(-1), dtype="int64", place=x.place)
    return _F.index_select(x, index, -1).reshape([*x.shape[:-1], frame_length, n_frames])


@_named
def overlap_add(x, hop_length, axis=-1, name=None):
    """Adds up frames placed ``hop_length`` apart, the inverse layout of :func:`frame`:
    ``axis=-1`` takes ``[..., frame_length, num_frames]`` to ``[..., seq_length]``,
    ``axis=0`` takes ``[num_frames, frame_length, ...]`` to ``[seq_length, ...]``, with
    ``seq_length = (num_frames - 1) * hop_length + frame_length``; where frames
    overlap their samples are summed (``hop_length`` is at most ``frame_length``,
    as in Paddle). Differentiable.

    >>> eager.signal.overlap_add(eager.ones([3, 2]), hop_length=1).numpy().tolist()
    [1.0, 2.0, 2.0, 1.0]
    """
    fn = "signal.overlap_add"
    _api.tensor(fn, "x", x)
    if x.dtype == DataType.BOOL:  # summing frames has no bool meaning (Paddle's kernel takes numbers only)
        raise UnsupportedDtypeError(f"{fn}: argument 'x' expected a numeric Tensor, got {x.dtype}")
    axis = _frame_axis("overlap_add", axis)
    if len(x.shape) < 2:
        raise ValueError(f"{fn}: argument 'x' expected a Tensor of at least 2 dimensions (frame_length and "
                         f"num_frames), got shape {x.shape}")
    _api.integer(fn, "hop_length", hop_length, minimum=1)
    frame_length = x.shape[-2] if axis == -1 else x.shape[1]
    if hop_length > frame_length:  # Paddle's OverlapAddOp refuses gaps between the frames
        raise ValueError(f"{fn}: argument 'hop_length' expected an int in [1, frame_length={frame_length}] "
                         f"(x has shape {x.shape}), got {hop_length}")
    if axis == -1:
        return _add_frames(_F.transpose(x, [*range(len(x.shape) - 2), len(x.shape) - 1, len(x.shape) - 2]),
                           hop_length)
    rest = list(range(2, len(x.shape)))
    moved = _F.transpose(x, [*rest, 0, 1])                                # [..., T, n]
    out = _add_frames(moved, hop_length)                                  # [..., seq]
    return _F.transpose(out, [len(rest), *range(len(rest))])


# -- the transforms ----------------------------------------------------------------------

@_named
def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=True, name=None):
    """Short-time Fourier transform (Paddle's ``paddle.signal.stft``).

    ``X[..., f, t] = sum_n window[n] * x[..., t*hop_length + n] * exp(-2j*pi*f*n/n_fft)``

    Args:
        x: a 1-D ``[seq_length]`` or 2-D ``[batch, seq_length]`` Tensor, float32,
            float64, complex64 or complex128 (an integer x is cast to the default
            dtype first, as Paddle's transform does).
        n_fft: the size of each transform, in (0, seq_length].
        hop_length: the step between frames (default ``n_fft // 4``), > 0.
        win_length: the window's length, in (0, n_fft] (default ``n_fft``); a
            shorter window is centred in n_fft points with zeros either side.
        window: a 1-D Tensor of ``win_length`` points, real or complex (default:
            ones); a float32 / float64 mix of x and window computes in float64, as
            Paddle's promotion does.
        center: pad x with ``n_fft // 2`` points at both ends so that frame t is
            centred at sample ``t * hop_length``.
        pad_mode: ``'reflect'`` or ``'constant'`` (zeros), for ``center``.
        normalized: scale the transform by ``1 / sqrt(n_fft)``.
        onesided: keep only the ``n_fft // 2 + 1`` non-negative frequencies; only
            for a real x and window.

    Returns:
        A complex Tensor ``[..., n_fft // 2 + 1 (or n_fft), num_frames]`` with
        ``num_frames = 1 + (seq_length + 2 * (n_fft // 2 if center else 0) - n_fft) // hop_length``.

    >>> eager.signal.stft(eager.ones([100]), n_fft=32).shape
    [17, 13]
    """
    fn = "signal.stft"
    _api.tensor(fn, "x", x)
    kind = x.dtype.value
    if kind in _INTEGERS and get_default_dtype() in _REAL_OF:
        # Paddle's r2c transform casts an integer x to the default dtype (complex64 out under float32)
        kind = get_default_dtype()
        x = _F.cast(x, kind)
    elif kind not in _REAL_OF:
        # bool, float16 (or integers under a float16 default): no kernel of Paddle's takes them, a RuntimeError
        raise UnsupportedDtypeError(f"{fn}: argument 'x' expected float32, float64, complex64, complex128 or an "
                                    f"integer dtype (under a float32 / float64 default dtype), got {kind}")
    if x.ndim not in (1, 2):  # Paddle's stft asserts its checks: AssertedArgumentError from here on
        raise AssertedArgumentError(f"{fn}: argument 'x' expected a 1-D or 2-D Tensor [..., seq_length], got "
                                    f"shape {x.shape}")
    n_fft, hop_length, win_length = _sizes("stft", n_fft, hop_length, win_length, x.shape[-1])
    center = to_bool(center, "signal.stft", "center")
    normalized = to_bool(normalized, "signal.stft", "normalized")
    onesided = to_bool(onesided, "signal.stft", "onesided")
    if center and (not isinstance(pad_mode, str) or pad_mode not in ("reflect", "constant")):
        raise AssertedArgumentError(f"{fn}: argument 'pad_mode' expected one of 'reflect', 'constant', "
                                    f"got {pad_mode!r}")
    window = _window("stft", window, win_length, n_fft, _REAL_OF[kind], x.place)
    x, window = _same_precision(x, window)
    kind = x.dtype.value
    is_complex = x.dtype.is_complex or window.dtype.is_complex
    if is_complex and onesided:
        raise AssertedArgumentError(f"{fn}: argument 'onesided' must be False for a complex x or window (x is "
                                    f"{kind}, window {window.dtype.value})")

    signal = x.unsqueeze(0) if x.ndim == 1 else x
    frames = _frames(signal, n_fft, hop_length, n_fft // 2 if center else 0, pad_mode)   # [B, T, n_fft]
    if is_complex:
        target = _COMPLEX_OF[kind]
        frames = frames if frames.dtype.value == target else frames.astype(target)
        window = window if window.dtype.value == target else window.astype(target)
    frames = frames * window
    norm = "ortho" if normalized else "backward"
    if is_complex or not onesided:
        out = _fft.fft(frames, axis=-1, norm=norm)
    else:
        out = _fft.rfft(frames, axis=-1, norm=norm)
    out = out.transpose([0, 2, 1])                                    # [B, freq, T]
    return out.squeeze(0) if x.ndim == 1 else out


@_named
def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=True, length=None, return_complex=False, name=None):
    """Inverse short-time Fourier transform (Paddle's ``paddle.signal.istft``).

    Each frame's inverse transform is weighted by the window and overlap-added
    at ``t * hop_length``; the sum is divided by the overlap-added squared window
    (its envelope), the least-squares signal whose :func:`stft` is closest to x.
    The envelope must be nonzero everywhere kept (the NOLA condition), else
    ValueError.

    Args:
        x: a complex Tensor ``[..., fft_size, num_frames]`` (2-D or 3-D), with
            ``fft_size`` ``n_fft // 2 + 1`` if ``onesided`` else ``n_fft`` (a
            float32 / float64 x is a spectrum with zero imaginary parts).
        n_fft, hop_length, win_length, window, center, normalized: as given to
            :func:`stft` (here ``hop_length`` is at most ``win_length``).
        onesided: x holds only the non-negative frequencies of a real signal's
            spectrum.
        length: cut the result to this many samples (after removing the
            ``center`` padding); default: keep them all.
        return_complex: return the complex signal (needs ``onesided=False``);
            otherwise the result is real and the window must be real.

    Returns:
        ``[..., seq_length]``: real (x's real dtype) unless ``return_complex``.

    >>> spec = eager.signal.stft(eager.ones([64], dtype="float64"), n_fft=16)
    >>> eager.signal.istft(spec, n_fft=16).shape
    [64]
    """
    fn = "signal.istft"
    _api.tensor(fn, "x", x)
    kind = x.dtype.value
    if x.dtype in (DataType.FLOAT32, DataType.FLOAT64):
        # a real spectrum (zero imaginary parts), which Paddle's c2r transform also takes
        x = _F.complex(x, _F.zeros_like(x))
    elif not x.dtype.is_complex:  # Paddle: the RuntimeError of its c2r kernel's missing dtype
        raise UnsupportedDtypeError(f"{fn}: argument 'x' expected complex64, complex128 or a real float32 / "
                                    f"float64 spectrum, got {kind}")
    if x.ndim not in (2, 3):  # Paddle's istft asserts its checks: AssertedArgumentError from here on
        raise AssertedArgumentError(f"{fn}: argument 'x' expected a 2-D or 3-D Tensor [..., fft_size, "
                                    f"num_frames], got shape {x.shape}")
    n_fft, hop_length, win_length = _sizes("istft", n_fft, hop_length, win_length)
    center = to_bool(center, "signal.istft", "center")
    normalized = to_bool(normalized, "signal.istft", "normalized")
    onesided = to_bool(onesided, "signal.istft", "onesided")
    return_complex = to_bool(return_complex, "signal.istft", "return_complex")
    if length is not None:
        _api.integer(fn, "length", length, minimum=1)
    fft_size, n_frames = x.shape[-2], x.shape[-1]
    expected = n_fft // 2 + 1 if onesided else n_fft
    if fft_size != expected:
        raise AssertedArgumentError(f"{fn}: argument 'x' expected {expected} frequencies (n_fft="
                                    f"{n_fft}{' // 2 + 1, onesided' if onesided else ', onesided=False'}) on "
                                    f"axis -2, got {fft_size}")
    if n_frames == 0:
        raise ValueError(f"{fn}: argument 'x' expected at least one frame (axis -1), got shape {x.shape}")
    if return_complex and onesided:
        raise AssertedArgumentError(f"{fn}: argument 'onesided' must be False when return_complex is True")
    window = _window("istft", window, win_length, n_fft, _REAL_OF[kind], x.place)
    if not return_complex and window.dtype.is_complex:
        raise AssertedDtypeError(f"{fn}: argument 'window' must be real when return_complex is False, got "
                                 f"{window.dtype.value}")
    x, window = _same_precision(x, window)
    kind = x.dtype.value                                                     # complex64 or complex128

    spectrum = (x.unsqueeze(0) if x.ndim == 2 else x).transpose([0, 2, 1])   # [B, T, fft_size]
    norm = "ortho" if normalized else "backward"
    if return_complex:
        frames = _fft.ifft(spectrum, axis=-1, norm=norm)
        window = window if window.dtype.value == kind else window.astype(kind)
    else:
        if not onesided:
            spectrum = spectrum[:, :, :n_fft // 2 + 1]
        frames = _fft.irfft(spectrum, n=n_fft, axis=-1, norm=norm)
    out = _add_frames(frames * window, hop_length)                   # [B, full]
    squared = (window * window).unsqueeze(0).unsqueeze(0)
    envelope = _add_frames(_F.tile(squared, [1, n_frames, 1]), hop_length)[0]
    full = out.shape[-1]
    start = n_fft // 2 if center else 0
    if length is not None:
        stop = min(start + length, full)
    else:
        stop = full - start if center else full
    out, envelope = out[:, start:stop], envelope[start:stop]
    if envelope.shape[0] == 0 or float(envelope.abs().min().item()) < 1e-11:
        raise ValueError(f"{fn}: the nonzero overlap-add (NOLA) condition fails: the overlap-added squared "
                         f"window is zero somewhere (window, hop_length={hop_length}, n_fft={n_fft}); see "
                         f"scipy.signal.check_NOLA")
    out = out / envelope
    return out.squeeze(0) if x.ndim == 2 else out
