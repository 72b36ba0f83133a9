"""``eager.audio.backends``: Paddle's ``paddle.audio.backends``. Only the built-in
``wave_backend`` (16-bit PCM WAV through Python's ``wave`` module) exists here."""
from ...errors import UnsupportedAudioError
from .wave_backend import AudioInfo, info, load, save

__all__ = ["list_available_backends", "get_current_backend", "set_backend", "AudioInfo", "info", "load", "save"]

_BACKENDS = ("wave_backend",)


def list_available_backends():
    """The backends :func:`set_backend` accepts: ``['wave_backend']``."""
    return list(_BACKENDS)


def get_current_backend():
    """The backend ``eager.audio.load`` / ``save`` / ``info`` use: ``'wave_backend'``."""
    return "wave_backend"


def set_backend(backend_name):
    """Selects the audio backend; only ``'wave_backend'`` exists (anything else: UnsupportedAudioError, a
    ValueError and the NotImplementedError Paddle raises)."""
    if backend_name not in _BACKENDS:
        raise UnsupportedAudioError(f"audio.backends.set_backend: argument 'backend_name' expected one of "
                         f"{list(_BACKENDS)} (soundfile / sox_io need paddleaudio, which eager does not use), "
                         f"got {backend_name!r}")
    return None

