"""``eager.audio``: Paddle's ``paddle.audio`` feature extraction: ``functional``
(windows, mel filter banks, decibels, DCT) and ``features`` (the layers
Spectrogram, MelSpectrogram, LogMelSpectrogram and MFCC), built on
:mod:`eager.signal` and differentiable ops. See docs/signal_audio.md."""
from .. import signal  # noqa: F401  (the features run on it; importing it first loads eager's core in order)
from . import features, functional

__all__ = ["features", "functional"]
