"""``eager.audio.compliance``: feature extraction that reproduces other toolkits'
numbers, with the signatures of PaddleSpeech's ``paddleaudio.compliance``:
``kaldi`` (Kaldi's spectrogram, fbank and mfcc of a ``[C, T]`` waveform Tensor) and
``librosa`` (librosa-style stft, spectrogram, melspectrogram, mfcc, power_to_db and
the mel-scale helpers, on NumPy arrays or Tensors). See docs/signal_audio.md."""
from . import kaldi, librosa

__all__ = ["kaldi", "librosa"]
