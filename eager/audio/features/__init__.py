"""``eager.audio.features``: Paddle's ``paddle.audio.features`` layers."""
from .layers import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram

__all__ = ["Spectrogram", "MelSpectrogram", "LogMelSpectrogram", "MFCC"]
