"""Audio feature layers (Paddle's ``paddle.audio.features``).

Each is an :class:`eager.nn.Layer` whose constants (the window, the mel filter
bank, the DCT matrix) are buffers, so ``layer.to(...)`` / ``state_dict`` carry
them as Paddle's do; ``forward`` runs :func:`eager.signal.stft` and
differentiable ops, so a loss on the features back-propagates to the waveform.

>>> import numpy as np, eager
>>> from eager.audio.features import LogMelSpectrogram
>>> wav = eager.to_tensor(np.sin(np.linspace(0, 400, 4000)).astype("float32")[None])
>>> LogMelSpectrogram(sr=16000, n_fft=256, n_mels=32)(wav).shape
[1, 32, 63]
"""
from __future__ import annotations

import numbers

from phi.core.errors import AssertedArgumentError

from ... import signal as _signal
from ...generated import forward_api as _F
from ...nn import Layer
from ...tensor import Tensor
from ..functional import compute_fbank_matrix, create_dct, get_window, power_to_db

__all__ = ["Spectrogram", "MelSpectrogram", "LogMelSpectrogram", "MFCC"]


class Spectrogram(Layer):
    """``|stft(x)| ** power``: ``[N, T]`` (or ``[T]``) waveforms to ``[N, n_fft // 2 + 1, num_frames]``.

    Args (Paddle's): n_fft=512, hop_length=512 (None: n_fft // 4),
    win_length=None (n_fft), window='hann' (a name or tuple for
    :func:`eager.audio.functional.get_window`, periodic), power=1.0 (> 0),
    center=True, pad_mode='reflect', dtype='float32' (of the input and window).

    >>> Spectrogram(n_fft=64, hop_length=16)(eager.ones([2, 256])).shape
    [2, 33, 17]
    """

    def __init__(self, n_fft=512, hop_length=512, win_length=None, window="hann", power=1.0, center=True,
                 pad_mode="reflect", dtype="float32"):
        super().__init__()
        if isinstance(power, bool) or not isinstance(power, numbers.Real) or not power > 0:
            # an assert in Paddle: AssertedArgumentError is the ValueError and its AssertionError
            raise AssertedArgumentError(f"audio.features.Spectrogram: argument 'power' expected a number > 0, "
                                        f"got {power!r}")
        self.power = float(power)
        win_length = n_fft if win_length is None else win_length
        self.n_fft, self.hop_length, self.win_length = n_fft, hop_length, win_length
        self.center, self.pad_mode = center, pad_mode
        self.register_buffer("fft_window", get_window(window, win_length, fftbins=True, dtype=dtype))

    def forward(self, x):
        """``[N, T]`` or ``[T]`` waveforms -> ``[N, n_fft // 2 + 1, num_frames]`` (``[freq, frames]`` for 1-D)."""
        if isinstance(x, Tensor) and x.dtype != self.fft_window.dtype:
            raise TypeError(f"audio.features.{type(self).__name__}: argument 'x' expected {self.fft_window.dtype} "
                            f"(the layer's dtype), got {x.dtype}")
        spec = _signal.stft(x, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.win_length,
                            window=self.fft_window, center=self.center, pad_mode=self.pad_mode)
        magnitude = _F.abs(spec)
        return magnitude if self.power == 1.0 else _F.pow(magnitude, self.power)


class MelSpectrogram(Layer):
    """The spectrogram times the mel filter bank: ``[N, n_mels, num_frames]``.

    Args (Paddle's): sr=22050, n_fft=2048, hop_length=512, win_length=None,
    window='hann', power=2.0, center=True, pad_mode='reflect', n_mels=64,
    f_min=50.0, f_max=None (sr // 2), htk=False, norm='slaney', dtype='float32'.

    >>> MelSpectrogram(sr=8000, n_fft=128, hop_length=32, n_mels=16)(eager.ones([1, 512])).shape
    [1, 16, 17]
    """

    def __init__(self, sr=22050, n_fft=2048, hop_length=512, win_length=None, window="hann", power=2.0,
                 center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False, norm="slaney",
                 dtype="float32"):
        super().__init__()
        self._spectrogram = Spectrogram(n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
                                        power=power, center=center, pad_mode=pad_mode, dtype=dtype)
        self.n_mels, self.f_min, self.f_max, self.htk, self.norm = n_mels, f_min, f_max, htk, norm
        if isinstance(sr, bool) or not isinstance(sr, numbers.Real):
            # before sr // 2 below, which would fail on a non-number with a bare Python error
            raise TypeError(f"audio.features.MelSpectrogram: argument 'sr' expected a number, got "
                            f"{type(sr).__name__} {sr!r}")
        f_max = sr // 2 if f_max is None else f_max
        self.register_buffer("fbank_matrix", compute_fbank_matrix(sr=sr, n_fft=n_fft, n_mels=n_mels, f_min=f_min,
                                                                  f_max=f_max, htk=htk, norm=norm, dtype=dtype))

    def forward(self, x):
        """``[N, T]`` waveforms -> ``[N, n_mels, num_frames]``."""
        return _F.matmul(self.fbank_matrix, self._spectrogram(x))


class LogMelSpectrogram(Layer):
    """The mel spectrogram in decibels (:func:`eager.audio.functional.power_to_db`).

    Args (Paddle's): sr=22050, n_fft=512, hop_length=None, win_length=None,
    window='hann', power=2.0, center=True, pad_mode='reflect', n_mels=64,
    f_min=50.0, f_max=None, htk=False, norm='slaney', ref_value=1.0, amin=1e-10,
    top_db=None, dtype='float32'.
    """

    def __init__(self, sr=22050, n_fft=512, hop_length=None, win_length=None, window="hann", power=2.0,
                 center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False, norm="slaney",
                 ref_value=1.0, amin=1e-10, top_db=None, dtype="float32"):
        super().__init__()
        self._melspectrogram = MelSpectrogram(sr=sr, n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                                              window=window, power=power, center=center, pad_mode=pad_mode,
                                              n_mels=n_mels, f_min=f_min, f_max=f_max, htk=htk, norm=norm,
                                              dtype=dtype)
        power_to_db(_F.ones([1], dtype), ref_value=ref_value, amin=amin, top_db=top_db)  # checks them now
        self.ref_value, self.amin, self.top_db = ref_value, amin, top_db

    def forward(self, x):
        """``[N, T]`` waveforms -> ``[N, n_mels, num_frames]`` in dB."""
        return power_to_db(self._melspectrogram(x), ref_value=self.ref_value, amin=self.amin, top_db=self.top_db)


class MFCC(Layer):
    """Mel-frequency cepstral coefficients: the DCT (orthonormal) of the log-mel
    spectrogram over the mel axis, ``[N, n_mfcc, num_frames]``.

    Args (Paddle's): sr=22050, n_mfcc=40 (<= n_mels), and LogMelSpectrogram's
    (n_fft=512, hop_length=None, ..., n_mels=64, ..., top_db=None, dtype='float32').

    >>> MFCC(sr=8000, n_mfcc=13, n_fft=128, n_mels=24)(eager.ones([1, 512])).shape
    [1, 13, 17]
    """

    def __init__(self, sr=22050, n_mfcc=40, n_fft=512, hop_length=None, win_length=None, window="hann", power=2.0,
                 center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False, norm="slaney",
                 ref_value=1.0, amin=1e-10, top_db=None, dtype="float32"):
        super().__init__()
        if isinstance(n_mfcc, numbers.Integral) and isinstance(n_mels, numbers.Integral) and n_mfcc > n_mels:
            raise AssertedArgumentError(f"audio.features.MFCC: argument 'n_mfcc' expected at most n_mels={n_mels}, "
                                        f"got {n_mfcc}")  # an assert in Paddle, as power's
        self._log_melspectrogram = LogMelSpectrogram(sr=sr, n_fft=n_fft, hop_length=hop_length,
                                                     win_length=win_length, window=window, power=power,
                                                     center=center, pad_mode=pad_mode, n_mels=n_mels, f_min=f_min,
                                                     f_max=f_max, htk=htk, norm=norm, ref_value=ref_value, amin=amin,
                                                     top_db=top_db, dtype=dtype)
        self.register_buffer("dct_matrix", create_dct(n_mfcc=n_mfcc, n_mels=n_mels, dtype=dtype))

    def forward(self, x):
        """``[N, T]`` waveforms -> ``[N, n_mfcc, num_frames]``."""
        log_mel = self._log_melspectrogram(x)                                # [N, n_mels, T]
        return _F.matmul(self.dct_matrix, log_mel, transpose_x=True)         # [n_mfcc, n_mels] @ [N, n_mels, T]
