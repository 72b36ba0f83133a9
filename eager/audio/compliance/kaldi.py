"""Kaldi-compatible features: ``spectrogram``, ``fbank`` and ``mfcc`` of a ``[C, T]``
waveform Tensor, with the signatures of ``paddleaudio.compliance.kaldi``
(PaddleSpeech's, itself after ``torchaudio.compliance.kaldi``).

The pipeline is Kaldi's ``compute-fbank-feats`` / ``compute-mfcc-feats``: frames of
``frame_length`` ms every ``frame_shift`` ms (``snip_edges=True``: only whole frames;
``False``: frames centred on multiples of the shift, the edges reflected), Gaussian
dither, DC offset removal, the log energy (before or after the next steps:
``raw_energy``), preemphasis ``x[n] - c x[n-1]`` (``x[-1] = x[0]``), a window
(``povey`` = hann ** 0.85, ``hann``/``hanning``, ``hamming``, ``rect``/``rectangular``,
``blackman``), zero padding to a power of two, the power (or magnitude) spectrum,
triangular filters evenly spaced on the mel scale ``1127 ln(1 + f / 700)`` (optionally
VTLN-warped), the log, and for MFCCs the orthonormal DCT and the cepstral lifter.

Every step on the waveform is a differentiable op (``gather``, ``eager.fft.rfft``,
``matmul``, ``log`` ...), on the waveform's device; the window, the filter bank and the
DCT are constants computed once in NumPy float64 and cast to the waveform's dtype.

>>> import numpy as np, eager
>>> wave = eager.to_tensor(np.sin(np.arange(16000) * 0.05)[None], dtype="float32")
>>> eager.audio.compliance.kaldi.fbank(wave, n_mels=40).shape
[98, 40]
>>> eager.audio.compliance.kaldi.mfcc(wave).shape
[98, 13]
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ... import fft as _fft
from ...arguments import to_bool
from ...composite import _paddle_api as _api
from ...creation import to_tensor
from ...generated import forward_api as _F
from ...tensor import Tensor

__all__ = ["spectrogram", "fbank", "mfcc"]

_EPSILON = 1e-7  # the floor under energies and spectra before a log (Paddle's)
# Paddle's window names, and Kaldi's own for two of them
_WINDOWS = {"povey": "povey", "hann": "hann", "hanning": "hann", "hamming": "hamming", "rect": "rect",
            "rectangular": "rect", "blackman": "blackman"}


# -- arguments ---------------------------------------------------------------------------

def _number(fn, arg, value):
    return _api.number(f"audio.compliance.kaldi.{fn}", arg, value)


def _flag(fn, arg, value):
    return to_bool(value, f"audio.compliance.kaldi.{fn}", arg)


def _waveform(fn, waveform, channel):
    """The selected channel of a [C, T] float32/float64 waveform, as a 1-D Tensor."""
    name = f"audio.compliance.kaldi.{fn}"
    _api.floating(name, "waveform", waveform)
    if waveform.dtype.value not in ("float32", "float64"):
        raise TypeError(f"{name}: argument 'waveform' expected float32 or float64, got {waveform.dtype}")
    if waveform.ndim != 2:
        raise ValueError(f"{name}: argument 'waveform' expected a 2-d Tensor [channels, time], got shape "
                         f"{waveform.shape}")
    channel = max(_api.integer(name, "channel", channel), 0)  # -1 (the default) is the first channel
    if channel >= waveform.shape[0]:
        raise ValueError(f"{name}: argument 'channel' expected a channel < {waveform.shape[0]} (the waveform's), "
                         f"got {channel}")
    return waveform[channel]


def _frame_sizes(fn, num_samples, sr, frame_shift, frame_length, round_to_power_of_two, preemphasis_coefficient):
    """(window_shift, window_size, padded_window_size) in samples, checked as Kaldi does."""
    name = f"audio.compliance.kaldi.{fn}"
    if isinstance(sr, bool) or not isinstance(sr, numbers.Real) or not sr > 0:
        raise ValueError(f"{name}: argument 'sr' expected a sample rate > 0, got {sr!r}")
    frame_shift, frame_length = _number(fn, "frame_shift", frame_shift), _number(fn, "frame_length", frame_length)
    preemphasis_coefficient = _number(fn, "preemphasis_coefficient", preemphasis_coefficient)
    if not (math.isfinite(frame_shift) and math.isfinite(frame_length)):  # int() below would fail on NaN/inf
        raise ValueError(f"{name}: arguments 'frame_shift' and 'frame_length' expected finite milliseconds, got "
                         f"{frame_shift} and {frame_length}")
    window_shift = int(sr * frame_shift * 0.001)
    window_size = int(sr * frame_length * 0.001)
    if window_size < 2:
        raise ValueError(f"{name}: frame_length={frame_length} ms at sr={sr} is {window_size} samples; "
                         f"a frame needs at least 2")
    if window_size > num_samples:
        raise ValueError(f"{name}: the waveform has {num_samples} samples, fewer than one frame of "
                         f"{window_size} (frame_length={frame_length} ms at sr={sr})")
    if window_shift < 1:
        raise ValueError(f"{name}: frame_shift={frame_shift} ms at sr={sr} is {window_shift} samples; "
                         f"expected at least 1")
    padded = 1 << (window_size - 1).bit_length() if _flag(fn, "round_to_power_of_two", round_to_power_of_two) \
        else window_size
    if padded % 2:
        raise ValueError(f"{name}: the frame of {padded} samples must be even for the FFT; set "
                         f"round_to_power_of_two=True or change frame_length")
    if not 0.0 <= preemphasis_coefficient <= 1.0:
        raise ValueError(f"{name}: argument 'preemphasis_coefficient' expected a number in [0, 1], got "
                         f"{preemphasis_coefficient}")
    return window_shift, window_size, padded


# -- framing, window, energy -------------------------------------------------------------

def _frame_indices(num_samples, window_size, window_shift, snip_edges):
    """[frames, window_size] sample indices of Kaldi's frames (reflected at the edges
    when not snip_edges: sample -1 is sample 0, sample T is sample T-1, ...)."""
    if snip_edges:
        frames = 1 + (num_samples - window_size) // window_shift
        offset = 0
    else:
        frames = (num_samples + window_shift // 2) // window_shift
        offset = window_size // 2 - window_shift // 2  # the first frame starts this far before sample 0
    positions = np.arange(frames)[:, None] * window_shift + np.arange(window_size)[None, :] - offset
    positions = np.where(positions < 0, -positions - 1, positions)
    return np.where(positions >= num_samples, 2 * num_samples - 1 - positions, positions)


def _window_function(window_type, window_size, blackman_coeff):
    """The window (symmetric, float64), per Kaldi's definitions."""
    n = np.arange(window_size)
    a = 2 * math.pi / (window_size - 1)
    if window_type == "rect":
        return np.ones(window_size)
    if window_type == "blackman":
        return blackman_coeff - 0.5 * np.cos(a * n) + (0.5 - blackman_coeff) * np.cos(2 * a * n)
    if window_type == "hamming":
        return 0.54 - 0.46 * np.cos(a * n)
    hann = 0.5 - 0.5 * np.cos(a * n)
    return hann ** 0.85 if window_type == "povey" else hann


def _log_energy(frames, energy_floor):
    energy = _F.log(_F.clip(_F.sum(frames * frames, axis=1), min=_EPSILON))
    if energy_floor != 0.0:
        energy = _F.clip(energy, min=math.log(energy_floor))
    return energy


def _windowed_frames(fn, waveform, padded_window_size, window_size, window_shift, window_type, blackman_coeff,
                     snip_edges, raw_energy, energy_floor, dither, remove_dc_offset, preemphasis_coefficient):
    """([frames, padded_window_size] windowed frames, [frames] log energies)."""
    name = f"audio.compliance.kaldi.{fn}"
    if not isinstance(window_type, str) or window_type not in _WINDOWS:  # str first: a list is unhashable
        raise ValueError(f"{name}: argument 'window_type' expected one of {', '.join(map(repr, _WINDOWS))}, "
                         f"got {window_type!r}")
    blackman_coeff, dither = _number(fn, "blackman_coeff", blackman_coeff), _number(fn, "dither", dither)
    if not math.isfinite(dither):
        raise ValueError(f"{name}: argument 'dither' expected a finite number, got {dither}")
    energy_floor = _number(fn, "energy_floor", energy_floor)
    if energy_floor < 0:
        raise ValueError(f"{name}: argument 'energy_floor' expected a number >= 0, got {energy_floor}")
    snip_edges, raw_energy = _flag(fn, "snip_edges", snip_edges), _flag(fn, "raw_energy", raw_energy)
    remove_dc_offset = _flag(fn, "remove_dc_offset", remove_dc_offset)
    dtype, place = waveform.dtype.value, waveform.place

    index = _frame_indices(waveform.shape[0], window_size, window_shift, snip_edges)
    flat = to_tensor(index.reshape(-1), dtype="int64", place=place)
    frames = _F.reshape(_F.gather(waveform, flat, 0), list(index.shape))       # [m, window_size]
    if dither != 0.0:
        # Paddle adds dither * randn: a negative dither is noise of standard deviation |dither|
        frames = frames + _F.gaussian(frames.shape, 0.0, abs(dither), 0, dtype, place)
    if remove_dc_offset:
        frames = frames - _F.mean(frames, axis=1, keepdim=True)
    if raw_energy:
        energy = _log_energy(frames, energy_floor)
    if preemphasis_coefficient != 0.0:
        previous = _F.concat([frames[:, :1], frames[:, :-1]], axis=1)          # x[-1] = x[0]
        frames = frames - previous * preemphasis_coefficient
    window = _window_function(_WINDOWS[window_type], window_size, blackman_coeff)
    frames = frames * to_tensor(window.astype(dtype), dtype=dtype, place=place)
    if padded_window_size != window_size:
        zeros = _F.full([frames.shape[0], padded_window_size - window_size], 0.0, dtype, place)
        frames = _F.concat([frames, zeros], axis=1)
    if not raw_energy:
        energy = _log_energy(frames, energy_floor)
    return frames, energy


def _subtract_column_mean(fn, features, subtract_mean):
    if _flag(fn, "subtract_mean", subtract_mean):
        features = features - _F.mean(features, axis=0, keepdim=True)
    return features


# -- spectrogram -------------------------------------------------------------------------

def spectrogram(waveform, blackman_coeff=0.42, channel=-1, dither=0.0, energy_floor=1.0, frame_length=25.0,
                frame_shift=10.0, preemphasis_coefficient=0.97, raw_energy=True, remove_dc_offset=True,
                round_to_power_of_two=True, sr=16000, snip_edges=True, subtract_mean=False, window_type="povey"):
    """Kaldi's log power spectrogram, ``[frames, padded_window_size // 2 + 1]``; its first
    column is the frame's log energy.

    Args:
        waveform (Tensor): ``[C, T]`` float32/float64.
        blackman_coeff (float): the Blackman window's coefficient. Default 0.42.
        channel (int): the channel used (-1: the first). Default -1.
        dither (float): the standard deviation of Gaussian noise added to the frames. Default 0.0.
        energy_floor (float): the floor of the energy (0: none). Default 1.0.
        frame_length (float): the frame length in ms. Default 25.0.
        frame_shift (float): the frame shift in ms. Default 10.0.
        preemphasis_coefficient (float): in [0, 1]. Default 0.97.
        raw_energy (bool): the energy before preemphasis and the window. Default True.
        remove_dc_offset (bool): subtract each frame's mean. Default True.
        round_to_power_of_two (bool): zero-pad the frames to a power of two. Default True.
        sr (int): the sample rate (> 0). Default 16000.
        snip_edges (bool): only whole frames (else frames centred on the shifts, edges reflected). Default True.
        subtract_mean (bool): subtract each column's mean over the frames. Default False.
        window_type (str): 'povey', 'hann', 'hamming', 'rect', 'blackman' (Kaldi's 'hanning' and
            'rectangular' too). Default 'povey'.

    Returns:
        Tensor: ``[frames, padded_window_size // 2 + 1]`` of the waveform's dtype.

    >>> import eager
    >>> eager.audio.compliance.kaldi.spectrogram(eager.ones([1, 1000]) * 0.5).shape
    [4, 257]
    """
    fn = "spectrogram"
    waveform = _waveform(fn, waveform, channel)
    shift, size, padded = _frame_sizes(fn, waveform.shape[0], sr, frame_shift, frame_length, round_to_power_of_two,
                                       preemphasis_coefficient)
    frames, energy = _windowed_frames(fn, waveform, padded, size, shift, window_type, blackman_coeff, snip_edges,
                                      raw_energy, energy_floor, dither, remove_dc_offset,
                                      float(preemphasis_coefficient))
    power = _F.abs(_fft.rfft(frames))
    power = _F.log(_F.clip(power * power, min=_EPSILON))
    power = _F.concat([_F.unsqueeze(energy, [1]), power[:, 1:]], axis=1)
    return _subtract_column_mean(fn, power, subtract_mean)


# -- mel filter banks ------------------------------------------------------------------------

def _mel(freq):
    return 1127.0 * np.log(1.0 + np.asarray(freq, dtype=np.float64) / 700.0)


def _inverse_mel(mel):
    return 700.0 * (np.exp(np.asarray(mel, dtype=np.float64) / 1127.0) - 1.0)


def _vtln_warp_freq(vtln_low, vtln_high, low_freq, high_freq, warp, freq):
    """Kaldi's piecewise-linear VTLN warp of frequencies (Hz): scaled by 1 / warp between
    the inflection points, linear to the band's edges outside them, unchanged outside the band."""
    low_point, high_point = vtln_low * max(1.0, warp), vtln_high * min(1.0, warp)
    scale = 1.0 / warp
    scale_left = (scale * low_point - low_freq) / (low_point - low_freq)
    scale_right = (high_freq - scale * high_point) / (high_freq - high_point)
    return np.where((freq < low_freq) | (freq > high_freq), freq,
                    np.where(freq < low_point, low_freq + scale_left * (freq - low_freq),
                             np.where(freq < high_point, scale * freq,
                                      high_freq + scale_right * (freq - high_freq))))


def _mel_banks(fn, n_mels, padded_window_size, sr, low_freq, high_freq, vtln_low, vtln_high, vtln_warp):
    """[n_mels, padded_window_size // 2 + 1] triangular filters (float64), the last column zero."""
    name = f"audio.compliance.kaldi.{fn}"
    n_mels = _api.integer(name, "n_mels", n_mels)
    if n_mels <= 3:
        raise ValueError(f"{name}: argument 'n_mels' expected more than 3 mel bins, got {n_mels}")
    low_freq, high_freq = _number(fn, "low_freq", low_freq), _number(fn, "high_freq", high_freq)
    vtln_low, vtln_high, vtln_warp = (_number(fn, "vtln_low", vtln_low), _number(fn, "vtln_high", vtln_high),
                                      _number(fn, "vtln_warp", vtln_warp))
    nyquist = 0.5 * sr
    if high_freq <= 0.0:
        high_freq += nyquist  # 0 is the Nyquist frequency, a negative number an offset below it
    if not (0.0 <= low_freq < nyquist and 0.0 < high_freq <= nyquist and low_freq < high_freq):
        raise ValueError(f"{name}: expected 0 <= low_freq < high_freq <= {nyquist} (the Nyquist frequency; "
                         f"high_freq <= 0 counts back from it), got low_freq={low_freq}, high_freq={high_freq}")
    if vtln_high < 0.0:
        vtln_high += nyquist
    if vtln_warp <= 0.0:
        raise ValueError(f"{name}: argument 'vtln_warp' expected a number > 0, got {vtln_warp}")
    if vtln_warp != 1.0 and not (low_freq < vtln_low < high_freq and 0.0 < vtln_high < high_freq
                                 and vtln_low < vtln_high):
        raise ValueError(f"{name}: with vtln_warp={vtln_warp} expected low_freq < vtln_low < vtln_high < high_freq "
                         f"(vtln_high < 0 counts back from the Nyquist frequency), got vtln_low={vtln_low}, "
                         f"vtln_high={vtln_high}, low_freq={low_freq}, high_freq={high_freq}")
    mel_low, mel_high = _mel(low_freq), _mel(high_freq)
    delta = (mel_high - mel_low) / (n_mels + 1)
    left = mel_low + np.arange(n_mels)[:, None] * delta                  # [n_mels, 1]
    center, right = left + delta, left + 2 * delta
    if vtln_warp != 1.0:
        left, center, right = (_mel(_vtln_warp_freq(vtln_low, vtln_high, low_freq, high_freq, vtln_warp,
                                                    _inverse_mel(edge))) for edge in (left, center, right))
    mel = _mel(sr / padded_window_size * np.arange(padded_window_size // 2))[None, :]
    up = (mel - left) / (center - left)
    down = (right - mel) / (right - center)
    if vtln_warp == 1.0:
        banks = np.maximum(0.0, np.minimum(up, down))
    else:  # warped edges may cross the bins unevenly: each slope only strictly inside its half
        banks = np.where((mel > left) & (mel < center), up, np.where((mel > center) & (mel < right), down, 0.0))
    return np.concatenate([banks, np.zeros((n_mels, 1))], axis=1), n_mels


def _fbank(fn, waveform, blackman_coeff, channel, dither, energy_floor, frame_length, frame_shift, high_freq,
           htk_compat, low_freq, n_mels, preemphasis_coefficient, raw_energy, remove_dc_offset,
           round_to_power_of_two, sr, snip_edges, use_energy, use_log_fbank, use_power, vtln_high, vtln_low,
           vtln_warp, window_type):
    """(the [frames, n_mels (+1)] features before subtract_mean, n_mels)."""
    waveform = _waveform(fn, waveform, channel)
    dtype, place = waveform.dtype.value, waveform.place
    shift, size, padded = _frame_sizes(fn, waveform.shape[0], sr, frame_shift, frame_length, round_to_power_of_two,
                                       preemphasis_coefficient)
    banks, n_mels = _mel_banks(fn, n_mels, padded, sr, low_freq, high_freq, vtln_low, vtln_high, vtln_warp)
    htk_compat, use_energy = _flag(fn, "htk_compat", htk_compat), _flag(fn, "use_energy", use_energy)
    use_log_fbank, use_power = _flag(fn, "use_log_fbank", use_log_fbank), _flag(fn, "use_power", use_power)
    frames, energy = _windowed_frames(fn, waveform, padded, size, shift, window_type, blackman_coeff, snip_edges,
                                      raw_energy, energy_floor, dither, remove_dc_offset,
                                      float(preemphasis_coefficient))
    spectrum = _F.abs(_fft.rfft(frames))                                  # [m, padded // 2 + 1]
    if use_power:
        spectrum = spectrum * spectrum
    features = _F.matmul(spectrum, to_tensor(banks.T.astype(dtype), dtype=dtype, place=place))
    if use_log_fbank:
        features = _F.log(_F.clip(features, min=_EPSILON))
    if use_energy:
        energy = _F.unsqueeze(energy, [1])
        features = _F.concat([features, energy] if htk_compat else [energy, features], axis=1)
    return features, n_mels


def fbank(waveform, blackman_coeff=0.42, channel=-1, dither=0.0, energy_floor=1.0, frame_length=25.0,
          frame_shift=10.0, high_freq=0.0, htk_compat=False, low_freq=20.0, n_mels=23, preemphasis_coefficient=0.97,
          raw_energy=True, remove_dc_offset=True, round_to_power_of_two=True, sr=16000, snip_edges=True,
          subtract_mean=False, use_energy=False, use_log_fbank=True, use_power=True, vtln_high=-500.0,
          vtln_low=100.0, vtln_warp=1.0, window_type="povey"):
    """Kaldi's (log) mel filter bank energies, ``[frames, n_mels]`` (``n_mels + 1`` with
    ``use_energy``: the log energy first, or last with ``htk_compat``).

    Arguments as :func:`spectrogram`'s, and: high_freq (the upper edge of the filters in
    Hz; <= 0 counts back from the Nyquist frequency. Default 0.0), low_freq (Default 20.0),
    n_mels (> 3. Default 23), use_energy (Default False), use_log_fbank (the log of the
    energies. Default True), use_power (the power spectrum, else the magnitude. Default
    True), vtln_low / vtln_high / vtln_warp (the VTLN warp's inflection points in Hz,
    vtln_high < 0 counting back from the Nyquist frequency, and factor. Defaults 100.0,
    -500.0, 1.0), htk_compat (Default False).

    Returns:
        Tensor: ``[frames, n_mels (+ 1)]`` of the waveform's dtype.

    >>> import eager
    >>> eager.audio.compliance.kaldi.fbank(eager.ones([1, 1000]) * 0.5, n_mels=10, use_energy=True).shape
    [4, 11]
    """
    features, _ = _fbank("fbank", waveform, blackman_coeff, channel, dither, energy_floor, frame_length,
                         frame_shift, high_freq, htk_compat, low_freq, n_mels, preemphasis_coefficient, raw_energy,
                         remove_dc_offset, round_to_power_of_two, sr, snip_edges, use_energy, use_log_fbank,
                         use_power, vtln_high, vtln_low, vtln_warp, window_type)
    return _subtract_column_mean("fbank", features, subtract_mean)


def _dct_matrix(n_mfcc, n_mels):
    """[n_mels, n_mfcc]: the orthonormal DCT-II basis (column k: cos(pi k (n + 0.5) / n_mels))."""
    n = np.arange(n_mels)[:, None]
    k = np.arange(n_mfcc)[None, :]
    basis = np.cos(math.pi / n_mels * (n + 0.5) * k) * math.sqrt(2.0 / n_mels)
    basis[:, 0] = math.sqrt(1.0 / n_mels)
    return basis


def mfcc(waveform, blackman_coeff=0.42, cepstral_lifter=22.0, channel=-1, dither=0.0, energy_floor=1.0,
         frame_length=25.0, frame_shift=10.0, high_freq=0.0, htk_compat=False, low_freq=20.0, n_mfcc=13, n_mels=23,
         preemphasis_coefficient=0.97, raw_energy=True, remove_dc_offset=True, round_to_power_of_two=True, sr=16000,
         snip_edges=True, subtract_mean=False, use_energy=False, vtln_high=-500.0, vtln_low=100.0, vtln_warp=1.0,
         window_type="povey"):
    """Kaldi's MFCCs, ``[frames, n_mfcc]``: the orthonormal DCT of the log mel energies
    (:func:`fbank`), its first ``n_mfcc`` coefficients, scaled by the lifter
    ``1 + cepstral_lifter / 2 * sin(pi i / cepstral_lifter)`` (0: none). With ``use_energy``
    coefficient 0 is the log energy; with ``htk_compat`` coefficient 0 moves last (times
    sqrt(2) without use_energy).

    Arguments as :func:`fbank`'s (``n_mfcc <= n_mels``; Default 13), and cepstral_lifter
    (Default 22.0).

    Returns:
        Tensor: ``[frames, n_mfcc]`` of the waveform's dtype.

    >>> import eager
    >>> eager.audio.compliance.kaldi.mfcc(eager.ones([1, 1000]) * 0.5, n_mfcc=5, n_mels=10).shape
    [4, 5]
    """
    fn = "mfcc"
    name = f"audio.compliance.kaldi.{fn}"
    n_mfcc = _api.integer(name, "n_mfcc", n_mfcc, minimum=1)
    if isinstance(n_mels, numbers.Integral) and not isinstance(n_mels, bool) and n_mfcc > n_mels:
        raise ValueError(f"{name}: argument 'n_mfcc' expected at most n_mels={n_mels}, got {n_mfcc}")
    cepstral_lifter = _number(fn, "cepstral_lifter", cepstral_lifter)
    features, n_mels = _fbank(fn, waveform, blackman_coeff, channel, dither, energy_floor, frame_length,
                              frame_shift, high_freq, htk_compat, low_freq, n_mels, preemphasis_coefficient,
                              raw_energy, remove_dc_offset, round_to_power_of_two, sr, snip_edges, use_energy, True,
                              True, vtln_high, vtln_low, vtln_warp, window_type)
    dtype, place = features.dtype.value, features.place
    if use_energy:
        energy = features[:, n_mels:] if htk_compat else features[:, :1]
        features = features[:, :n_mels] if htk_compat else features[:, 1:]
    basis = _dct_matrix(n_mfcc, n_mels)
    if cepstral_lifter != 0.0:
        basis = basis * (1.0 + 0.5 * cepstral_lifter * np.sin(math.pi * np.arange(n_mfcc) / cepstral_lifter))
    features = _F.matmul(features, to_tensor(basis.astype(dtype), dtype=dtype, place=place))
    if use_energy:
        features = _F.concat([energy, features[:, 1:]], axis=1)
    if htk_compat:
        first = features[:, :1] if use_energy else features[:, :1] * math.sqrt(2.0)
        features = _F.concat([features[:, 1:], first], axis=1)
    return _subtract_column_mean(fn, features, subtract_mean)
