"""Reading and writing 16-bit PCM WAV files with Python's ``wave`` module (Paddle's
default ``wave_backend`` of ``paddle.audio``: ``load``, ``save``, ``info``).

>>> import os, tempfile, numpy as np, eager
>>> path = os.path.join(tempfile.mkdtemp(), "tone.wav")
>>> tone = eager.to_tensor(0.5 * np.sin(np.linspace(0, 100, 800))[None].astype("float32"))
>>> eager.audio.save(path, tone, 8000)
>>> info = eager.audio.info(path)
>>> info.sample_rate, info.num_samples, info.num_channels, info.bits_per_sample, info.encoding
(8000, 800, 1, 16, 'PCM_S')
>>> wave_data, sr = eager.audio.load(path)
>>> wave_data.shape, sr, bool(abs(wave_data.numpy() - tone.numpy()).max() < 1e-4)
([1, 800], 8000, True)
"""
from __future__ import annotations

import numbers
import os
import wave

import numpy as np

from ...creation import to_tensor
from ...errors import UnsupportedAudioError
from ...tensor import Tensor

__all__ = ["AudioInfo", "info", "load", "save"]


class AudioInfo:
    """What :func:`info` reads from a file's header: ``sample_rate``, ``num_samples``
    (samples per channel; Paddle's name, also readable as ``num_frames``),
    ``num_channels``, ``bits_per_sample``, ``encoding``."""

    def __init__(self, sample_rate, num_samples, num_channels, bits_per_sample, encoding):
        self.sample_rate = sample_rate
        self.num_samples = num_samples
        self.num_channels = num_channels
        self.bits_per_sample = bits_per_sample
        self.encoding = encoding

    @property
    def num_frames(self):
        """``num_samples`` under the name of torchaudio's AudioMetaData."""
        return self.num_samples

    def __repr__(self):
        return (f"AudioInfo(sample_rate={self.sample_rate}, num_samples={self.num_samples}, num_channels="
                f"{self.num_channels}, bits_per_sample={self.bits_per_sample}, encoding={self.encoding!r})")


def _open(fn: str, filepath):
    """A ``wave`` reader of a path or a binary file object; UnsupportedAudioError unless it is PCM16 WAV."""
    if not (hasattr(filepath, "read") or isinstance(filepath, (str, os.PathLike))):
        raise TypeError(f"audio.{fn}: argument 'filepath' expected a path or a binary file object, got "
                        f"{type(filepath).__name__}")
    try:
        reader = wave.open(filepath if hasattr(filepath, "read") else os.fspath(filepath), "rb")
    except (wave.Error, EOFError) as error:
        raise UnsupportedAudioError(f"audio.{fn}: {filepath!r} is not a WAV file the wave backend reads (16-bit PCM "
                                    f"only): {error}") from None
    if reader.getsampwidth() != 2:
        bits = reader.getsampwidth() * 8
        reader.close()
        raise UnsupportedAudioError(f"audio.{fn}: {filepath!r} holds {bits}-bit samples; the wave backend reads 16-bit "
                                    f"PCM only")
    return reader


def info(filepath) -> AudioInfo:
    """The header of a 16-bit PCM WAV file (a path or a binary file object) as an :class:`AudioInfo`."""
    reader = _open("info", filepath)
    with reader:
        return AudioInfo(reader.getframerate(), reader.getnframes(), reader.getnchannels(), 16, "PCM_S")


def load(filepath, frame_offset=0, num_frames=-1, normalize=True, channels_first=True):
    """``(waveform, sample_rate)`` of a 16-bit PCM WAV file.

    ``frame_offset`` samples are skipped and ``num_frames`` read (-1: to the end);
    ``normalize`` divides by 2**15 (values in [-1, 1)), otherwise the raw integer
    values come back (as float32, as Paddle's do). The waveform is float32
    ``[channels, time]`` (``[time, channels]`` with ``channels_first=False``).
    """
    for arg, value, low in (("frame_offset", frame_offset, 0), ("num_frames", num_frames, -1)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
            raise ValueError(f"audio.load: argument '{arg}' expected an int >= {low}, got {value!r}")
    reader = _open("load", filepath)
    with reader:
        channels, sample_rate, total = reader.getnchannels(), reader.getframerate(), reader.getnframes()
        start = min(int(frame_offset), total)
        if start:
            reader.setpos(start)
        raw = reader.readframes(total - start if num_frames == -1 else int(num_frames))
    samples = np.frombuffer(raw, dtype="<i2").astype(np.float32).reshape(-1, channels)
    if normalize:
        samples = samples / np.float32(2 ** 15)
    if channels_first:
        samples = samples.T
    return to_tensor(np.ascontiguousarray(samples), dtype="float32"), sample_rate


def save(filepath, src, sample_rate, channels_first=True, encoding=None, bits_per_sample=16):
    """Writes ``src`` (a 2-D Tensor, ``[channels, time]`` or with ``channels_first=False``
    ``[time, channels]``) as a 16-bit PCM WAV file. A floating-point ``src`` holds
    values in [-1, 1] (scaled by 2**15 and clipped to the int16 range); an int16
    ``src`` is written as it is."""
    if not isinstance(src, Tensor):
        raise TypeError(f"audio.save: argument 'src' expected a Tensor, got {type(src).__name__}")
    if src.ndim != 2:
        raise ValueError(f"audio.save: argument 'src' expected a 2-D Tensor (channels and time), got shape {src.shape}")
    kind = src.dtype.value
    if kind not in ("float32", "float64", "int16"):
        raise TypeError(f"audio.save: argument 'src' expected float32, float64 or int16, got {kind}")
    if bits_per_sample not in (None, 16):
        raise ValueError(f"audio.save: argument 'bits_per_sample' expected 16 (the wave backend writes 16-bit PCM), "
                         f"got {bits_per_sample!r}")
    if encoding not in (None, "PCM_S", "PCM_16"):
        raise ValueError(f"audio.save: argument 'encoding' expected None or 'PCM_S' (16-bit PCM), got {encoding!r}")
    if not isinstance(sample_rate, numbers.Integral) or isinstance(sample_rate, bool) or sample_rate < 1:
        raise ValueError(f"audio.save: argument 'sample_rate' expected an int >= 1, got {sample_rate!r}")
    data = src.numpy()
    data = data.T if channels_first else data
    if kind != "int16":
        # toward zero, as Paddle's astype('<h'): a file written here reads back as Paddle's would
        data = np.clip(np.trunc(data * 2.0 ** 15), -2 ** 15, 2 ** 15 - 1)
    with wave.open(filepath if hasattr(filepath, "write") else os.fspath(filepath), "wb") as writer:
        writer.setnchannels(data.shape[1])
        writer.setsampwidth(2)
        writer.setframerate(int(sample_rate))
        writer.writeframes(np.ascontiguousarray(data).astype("<i2").tobytes())
