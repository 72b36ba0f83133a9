"""``eager.audio.functional``: Paddle's ``paddle.audio.functional`` (windows, mel
scales, filter banks, decibels, the DCT matrix)."""
from .functional import (compute_fbank_matrix, create_dct, fft_frequencies, hz_to_mel, mel_frequencies,
                         mel_to_hz, power_to_db)
from .window import get_window

__all__ = ["get_window", "hz_to_mel", "mel_to_hz", "mel_frequencies", "fft_frequencies",
           "compute_fbank_matrix", "power_to_db", "create_dct"]
