"""Window functions (Paddle's ``paddle.audio.functional.get_window``).

Each window is written from its formula in NumPy float64 (a window is a constant
of a layer, computed once) and handed back as a Tensor of the asked dtype. With
``fftbins=True`` (the default) the window is *periodic*: the symmetric window of
``win_length + 1`` points without its last point, the one to use before an FFT;
with ``fftbins=False`` it is the symmetric window, for filter design.

>>> import eager
>>> w = eager.audio.functional.get_window("hann", 4)
>>> w.numpy().tolist()
[0.0, 0.5, 1.0, 0.5]
>>> eager.audio.functional.get_window(("gaussian", 1.0), 3, fftbins=False).numpy().round(4).tolist()
[0.6065, 1.0, 0.6065]
"""
from __future__ import annotations

import numbers

import numpy as np

from phi.common import convert_dtype

from ...creation import to_tensor
from ...errors import ArgumentKindError

__all__ = ["get_window"]


def _general_cosine(m: int, coefficients) -> np.ndarray:
    """sum_k (-1)^k a_k cos(2 pi k n / (m - 1)), n = 0 .. m-1 (symmetric)."""
    phase = np.linspace(-np.pi, np.pi, m)  # 2 pi n / (m - 1) - pi
    return sum(a * np.cos(k * phase) for k, a in enumerate(coefficients))


def _hamming(m):
    return _general_cosine(m, [0.54, 0.46])


def _hann(m):
    return _general_cosine(m, [0.5, 0.5])


def _blackman(m):
    return _general_cosine(m, [0.42, 0.50, 0.08])


def _nuttall(m):
    return _general_cosine(m, [0.3635819, 0.4891775, 0.1365995, 0.0106411])


def _cosine(m):
    return np.sin(np.pi / m * (np.arange(m) + 0.5))


def _triang(m):
    half = np.arange(1, (m + 1) // 2 + 1)
    if m % 2 == 0:
        rise = (2 * half - 1.0) / m
        return np.concatenate([rise, rise[::-1]])
    rise = 2 * half / (m + 1.0)
    return np.concatenate([rise, rise[-2::-1]])


def _bartlett(m):
    n = np.arange(m)
    return np.where(n <= (m - 1) / 2.0, 2.0 * n / (m - 1), 2.0 - 2.0 * n / (m - 1))


def _bohman(m):
    distance = np.abs(np.linspace(-1, 1, m)[1:-1])
    inner = (1 - distance) * np.cos(np.pi * distance) + np.sin(np.pi * distance) / np.pi
    return np.concatenate([[0.0], inner, [0.0]])


def _gaussian(m, std):
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-n ** 2 / (2.0 * std * std))


def _general_gaussian(m, p, sig):
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-0.5 * np.abs(n / sig) ** (2 * p))


def _exponential(m, center=None, tau=1.0):
    center = (m - 1) / 2.0 if center is None else center
    return np.exp(-np.abs(np.arange(m) - center) / tau)


def _tukey(m, alpha=0.5):
    if alpha <= 0:
        return np.ones(m)
    if alpha >= 1.0:
        return _hann(m)
    n = np.arange(m)
    width = alpha * (m - 1) / 2.0
    w = np.ones(m)
    rise, fall = n < width, n > (m - 1) * (1 - alpha / 2.0)
    w[rise] = 0.5 * (1 + np.cos(np.pi * (-1 + 2.0 * n[rise] / alpha / (m - 1))))
    w[fall] = 0.5 * (1 + np.cos(np.pi * (-2.0 / alpha + 1 + 2.0 * n[fall] / alpha / (m - 1))))
    return w


def _kaiser(m, beta):
    n = np.arange(m)
    ratio = 2.0 * n / (m - 1) - 1.0
    return np.i0(beta * np.sqrt(np.clip(1 - ratio ** 2, 0, None))) / np.i0(float(beta))


def _taylor(m, nbar=4, sll=30, norm=True):
    """Taylor's window: nbar - 1 cosine terms whose side lobes sit sll dB below the main lobe."""
    b = 10 ** (sll / 20.0)
    a = np.arccosh(b) / np.pi
    s2 = nbar ** 2 / (a ** 2 + (nbar - 0.5) ** 2)
    ma = np.arange(1, nbar, dtype=float)
    m2 = ma * ma
    fm = np.empty(nbar - 1)
    for i in range(nbar - 1):
        sign = 1.0 if i % 2 == 0 else -1.0
        numer = sign * np.prod(1 - m2[i] / s2 / (a ** 2 + (ma - 0.5) ** 2))
        others = np.delete(m2, i)
        fm[i] = numer / (2 * np.prod(1 - m2[i] / others))

    def curve(n):
        return 1 + 2 * np.dot(fm, np.cos(2 * np.pi * ma[:, None] * (n - m / 2.0 + 0.5) / m))

    w = curve(np.arange(m))
    return w / curve((m - 1) / 2.0) if norm else w


# name -> (function, the number of parameters it needs, the number it accepts)
_WINDOWS = {
    "hamming": (_hamming, 0, 0), "hann": (_hann, 0, 0), "blackman": (_blackman, 0, 0),
    "nuttall": (_nuttall, 0, 0), "cosine": (_cosine, 0, 0), "triang": (_triang, 0, 0),
    "bartlett": (_bartlett, 0, 0), "bohman": (_bohman, 0, 0), "tukey": (_tukey, 0, 1),
    "taylor": (_taylor, 0, 3), "kaiser": (_kaiser, 1, 1), "gaussian": (_gaussian, 1, 1),
    "general_gaussian": (_general_gaussian, 2, 2), "exponential": (_exponential, 0, 2),
}
_NEEDS_TUPLE = ("gaussian", "exponential", "kaiser", "general_gaussian")


def window_dtype(fn: str, dtype) -> str:
    """'float32' or 'float64' from a name or an eager dtype, else TypeError naming fn."""
    try:
        name = convert_dtype(dtype).value
    except (TypeError, ValueError, AttributeError):
        name = None
    if name not in ("float32", "float64"):
        raise TypeError(f"{fn}: argument 'dtype' expected 'float32' or 'float64', got {dtype!r}")
    return name


def get_window(window, win_length, fftbins=True, dtype="float64"):
    """The window ``window`` of ``win_length`` points as a 1-D Tensor.

    Args:
        window: a name, or a tuple ``(name, *parameters)``: 'hamming', 'hann',
            'blackman', 'nuttall', 'cosine', 'triang', 'bartlett', 'bohman',
            ``('tukey', alpha=0.5)``, ``('taylor', nbar=4, sll=30, norm=True)``,
            ``('kaiser', beta)``, ``('gaussian', std)``,
            ``('general_gaussian', p, sig)``, ``('exponential', center, tau)``
            (the last four only as tuples).
        win_length: the number of points, >= 0 (0 gives an empty window, as in Paddle and SciPy).
        fftbins: True for the periodic window (for spectra), False for the
            symmetric one.
        dtype: 'float32' or 'float64' (default).

    >>> eager.audio.functional.get_window("hamming", 3, fftbins=False).numpy().round(2).tolist()
    [0.08, 1.0, 0.08]
    """
    fn = "audio.functional.get_window"
    if isinstance(window, tuple) and window and isinstance(window[0], str):
        name, params = window[0], tuple(window[1:])
    elif isinstance(window, str):
        name, params = window, ()
        if name in _NEEDS_TUPLE:
            raise ValueError(f"{fn}: the '{name}' window needs parameters: pass a tuple such as "
                             f"('{name}', ...), got {window!r}")
    else:
        # Paddle raises ValueError here ("<class 'int'> as window type is not supported")
        raise ArgumentKindError(f"{fn}: argument 'window' expected a window name or a tuple (name, *parameters), got "
                        f"{type(window).__name__} {window!r}")
    if name not in _WINDOWS:
        raise ValueError(f"{fn}: unknown window {name!r}; expected one of {', '.join(sorted(_WINDOWS))}")
    function, needed, accepted = _WINDOWS[name]
    if not needed <= len(params) <= accepted:
        raise ValueError(f"{fn}: the '{name}' window takes {needed}" + (f" to {accepted}" if accepted > needed else "")
                         + f" parameters, got {len(params)}: {params!r}")
    for value in params:
        if value is not None and (isinstance(value, bool) and name != "taylor"
                                  or not isinstance(value, (numbers.Real, bool))):
            raise TypeError(f"{fn}: the '{name}' window's parameters must be numbers, got {params!r}")
    if not isinstance(win_length, numbers.Integral) or isinstance(win_length, bool) or win_length < 0:
        raise ValueError(f"{fn}: argument 'win_length' expected an int >= 0, got {win_length!r}")
    if not isinstance(fftbins, (bool, np.bool_)):
        raise TypeError(f"{fn}: argument 'fftbins' expected a bool, got {type(fftbins).__name__} {fftbins!r}")
    dtype = window_dtype(fn, dtype)
    m = int(win_length)
    if m <= 1:
        values = np.ones(m)
    elif fftbins:
        values = function(m + 1, *params)[:-1]
    else:
        values = function(m, *params)
    return to_tensor(values.astype(dtype), dtype=dtype)
