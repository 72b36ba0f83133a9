"""``eager.audio``: Paddle's ``paddle.audio`` feature extraction: ``functional``
(windows, mel filter banks, decibels, DCT) and ``features`` (the layers
Spectrogram, MelSpectrogram, LogMelSpectrogram and MFCC), built on
:mod:`eager.signal` and differentiable ops, and ``load`` / ``save`` / ``info`` of 16-bit
PCM WAV files (``backends``), and the ESC50 / TESS datasets read from local
files (``datasets``); and ``compliance``, PaddleSpeech's Kaldi- and librosa-compatible
features (``compliance.kaldi``, ``compliance.librosa``). See docs/signal_audio.md."""
from .. import signal  # noqa: F401  (the features run on it; importing it first loads eager's core in order)
from . import backends, compliance, datasets, features, functional
from .backends import info, load, save

__all__ = ["backends", "compliance", "datasets", "features", "functional", "info", "load", "save"]
