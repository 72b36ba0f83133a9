"""``eager.fft``: Paddle's ``paddle.fft`` namespace (discrete Fourier transforms).

Every transform is one call of three differentiable primitives (the ops
``fft_c2c``, ``fft_r2c`` and ``fft_c2r`` of ops.yaml, with Paddle's attributes
axes / normalization / forward / onesided / last_dim_size), after the input is
cropped or zero-padded to ``n`` / ``s`` along the transformed axes. Dtypes follow
Paddle: a real input gives complex64 from float32 and complex128 from float64, an
integer input is first cast to the default dtype, and the real transforms
(irfft, hfft) give the real dtype of their complex input.

``norm`` is "backward" (no scale forward, 1/n on the inverse), "forward" (the
other way round) or "ortho" (1/sqrt(n) both ways), n the product of the sizes
of the transformed axes (of the real output, for irfft and hfft).

>>> import numpy as np, eager
>>> x = eager.to_tensor([0.0, 1.0, 0.0, 0.0])
>>> spectrum = eager.fft.rfft(x)
>>> print(spectrum.dtype, spectrum.shape)
paddle.complex64 [3]
>>> np.round(eager.fft.irfft(spectrum, n=4).numpy(), 6).tolist()
[0.0, 1.0, 0.0, 0.0]
"""
from __future__ import annotations

import numbers

from phi.common import convert_dtype, to_scalar
from phi.core.errors import AxisError, UnsupportedDtypeArgumentError, UnsupportedDtypeError

from .framework import get_default_dtype
from .generated import forward_api as _F
from .tensor import Tensor

__all__ = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft",
    "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
    "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

_NORMS = ("backward", "forward", "ortho")
_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}
_INTEGERS = ("int8", "uint8", "int16", "int32", "int64")


# -- checks ------------------------------------------------------------------------------

def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_x(fn: str, x) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"fft.{fn}: argument 'x' expected a Tensor, got {type(x).__name__}")


def _check_norm(fn: str, norm) -> None:
    if not isinstance(norm, str) or norm not in _NORMS:
        raise ValueError(f"fft.{fn}: argument 'norm' expected 'backward', 'forward' or 'ortho', got {norm!r}")


def _check_n(fn: str, n) -> None:
    if not _is_int(n) or n <= 0:
        raise ValueError(f"fft.{fn}: argument 'n' expected a positive integer, got {n!r}")


def _axis(fn: str, x, axis) -> int:
    ndim = x.ndim
    if not _is_int(axis):
        raise ValueError(f"fft.{fn}: argument 'axis' expected an integer, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"fft.{fn}: argument 'axis' expected an axis in [{-ndim}, {ndim}) for a {ndim}-d x, "
                         f"got {axis}")
    return int(axis) % ndim


def _nd_axes(fn: str, x, s, axes):
    """(axes, s): the transformed axes (non-negative) and their sizes (None: keep x's),
    with Paddle's defaults: the last len(s) axes, or every axis."""
    ndim = x.ndim
    if s is not None:
        if not isinstance(s, (list, tuple)):
            raise ValueError(f"fft.{fn}: argument 's' expected a sequence of integers, got {s!r}")
        if len(s) > ndim:
            raise ValueError(f"fft.{fn}: argument 's' has {len(s)} sizes, more than the {ndim} dimensions of x")
        for size in s:
            if not _is_int(size) or size <= 0:
                raise ValueError(f"fft.{fn}: argument 's' expected positive integers, got {list(s)}")
        s = [int(size) for size in s]
    if axes is None:
        axes = list(range(ndim - len(s), ndim)) if s is not None else list(range(ndim))
    else:
        if not isinstance(axes, (list, tuple)):
            raise ValueError(f"fft.{fn}: argument 'axes' expected a sequence of integers, got {axes!r}")
        if len(axes) > ndim:
            raise ValueError(f"fft.{fn}: argument 'axes' has {len(axes)} axes, more than the {ndim} dimensions of x")
        for axis in axes:
            if not _is_int(axis) or not -ndim <= axis < ndim:
                raise ValueError(f"fft.{fn}: argument 'axes' expected axes in [{-ndim}, {ndim}) for a {ndim}-d x, "
                                 f"got {list(axes)}")
        axes = [int(a) % ndim for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError(f"fft.{fn}: argument 'axes' names an axis twice: {axes}")
        if s is not None and len(s) != len(axes):
            raise ValueError(f"fft.{fn}: arguments 's' and 'axes' expected the same length, got {len(s)} and "
                             f"{len(axes)}")
    if not axes:
        raise ValueError(f"fft.{fn}: no axis to transform (x is {ndim}-d, s={s!r}, axes={axes!r})")
    return axes, s


def _check_pair(fn: str, x, s, axes) -> None:
    """The 2-D transforms: x has at least 2 dimensions, s and axes two entries each."""
    if x.ndim < 2:
        raise ValueError(f"fft.{fn}: argument 'x' expected at least 2 dimensions, got {x.ndim}")
    for arg, value in (("s", s), ("axes", axes)):
        if value is not None and (not isinstance(value, (list, tuple)) or len(value) != 2):
            raise ValueError(f"fft.{fn}: argument '{arg}' expected a sequence of 2 integers, got {value!r}")


# -- dtypes and sizes ------------------------------------------------------------------

def _dtype(x) -> str:
    return x.dtype.value


def _default_float(fn: str) -> str:
    """The default dtype, which an integer x is cast to (Paddle's rule); Paddle's FFT
    kernels have no float16 or bfloat16 ones, so under those defaults an integer x is
    refused here, by name, as Paddle's kernel refuses it."""
    default = get_default_dtype()
    if default not in _COMPLEX_OF:
        raise UnsupportedDtypeError(f"fft.{fn}: argument 'x' is an integer tensor, which is cast to the default "
                                    f"dtype, {default}, and the FFT takes float32 or float64 only; cast x to "
                                    f"float32 or float64 or set_default_dtype('float32')")
    return default


def _as_complex(fn: str, x):
    """x as the complex input of c2c / c2r: integers through the default dtype. Other
    dtypes (bool, float16) are an UnsupportedDtypeError: the TypeError of a wrong kind
    of tensor and the RuntimeError Paddle's missing kernel raises (its test_fft expects
    RuntimeError for a bool x)."""
    dtype = _dtype(x)
    if dtype in ("complex64", "complex128"):
        return x
    if dtype in _INTEGERS:
        return _F.cast(x, _COMPLEX_OF[_default_float(fn)])
    if dtype in _COMPLEX_OF:
        return _F.cast(x, _COMPLEX_OF[dtype])
    raise UnsupportedDtypeError(f"fft.{fn}: argument 'x' expected a float32, float64, complex or integer tensor, "
                                f"got {dtype}")


def _as_real(fn: str, x, takes_complex: bool = False):
    """x as the real input of r2c: integers cast to the default dtype; complex (and bool,
    float16) refused as in :func:`_as_complex` (``takes_complex``: fn is a complex
    transform, whose complex x went to c2c, so the message lists complex too)."""
    dtype = _dtype(x)
    if dtype in _COMPLEX_OF:
        return x
    if dtype in _INTEGERS:
        return _F.cast(x, _default_float(fn))
    kinds = "float32, float64, complex or integer" if takes_complex else "real (float32, float64 or integer)"
    raise UnsupportedDtypeError(f"fft.{fn}: argument 'x' expected a {kinds} tensor, got {dtype}")


def _check_points(fn: str, x, s, axes) -> None:
    """Every transformed axis x keeps (no size in ``s`` for it) must hold a point: an
    empty axis is only transformed once ``n`` / ``s`` pads it."""
    shape = x.shape
    for i, a in enumerate(axes):
        if shape[a] == 0 and s is None:
            raise ValueError(f"fft.{fn}: argument 'x' has no point along transformed axis {a} (shape {shape}); "
                             f"pass {'s' if fn.endswith(('2', 'n')) else 'n'} to zero-pad it")


def _resize(x, sizes, axes):
    """x cropped (from the end) or zero-padded (at the end) to sizes along axes."""
    shape = x.shape
    crop = [(a, n) for a, n in zip(axes, sizes) if shape[a] > n]
    if crop:
        x = _F.slice(x, [a for a, _ in crop], [0] * len(crop), [n for _, n in crop])
    grow = [(a, n - shape[a]) for a, n in zip(axes, sizes) if shape[a] < n]
    if grow:
        paddings = [0] * (2 * x.ndim)
        for a, extra in grow:
            paddings[2 * a + 1] = extra
        x = _F.pad(x, paddings, 0.0)
    return x


# -- the three kinds of transform ----------------------------------------------------------

def _c2c(fn, x, s, axes, norm, forward):
    _check_norm(fn, norm)
    _check_points(fn, x, s, axes)
    x = _as_complex(fn, x)
    if s is not None:
        x = _resize(x, s, axes)
    return _F.fft_c2c(x, axes, norm, forward)


def _r2c(fn, x, s, axes, norm, forward, onesided):
    _check_norm(fn, norm)
    _check_points(fn, x, s, axes)
    x = _as_real(fn, x, not onesided)
    if s is not None:
        x = _resize(x, s, axes)
    return _F.fft_r2c(x, axes, norm, forward, onesided)


def _c2r(fn, x, s, axes, norm, forward):
    _check_norm(fn, norm)
    x = _as_complex(fn, x)
    if s is None:
        _check_points(fn, x, s, axes[:-1])
        if x.shape[axes[-1]] < 2:
            raise ValueError(f"fft.{fn}: x has {x.shape[axes[-1]]} bin along axis {axes[-1]}, which gives no "
                             f"output point; pass n (or s) to choose the output length")
        return _F.fft_c2r(x, axes, norm, forward, 0)
    x = _resize(x, list(s[:-1]) + [s[-1] // 2 + 1], axes)
    return _F.fft_c2r(x, axes, norm, forward, s[-1])


def _one_d(fn, x, n, axis):
    _check_x(fn, x)
    if x.ndim == 0:
        raise ValueError(f"fft.{fn}: argument 'x' expected a Tensor of at least 1 dimension, got a 0-d Tensor")
    axis = _axis(fn, x, -1 if axis is None else axis)  # None: the last axis, as in Paddle
    if n is not None:
        _check_n(fn, n)
        return [axis], [int(n)]
    return [axis], None


# -- 1-D --------------------------------------------------------------------------------

def fft(x, n=None, axis=-1, norm="backward", name=None):
    """The 1-D discrete Fourier transform of x along ``axis``, cropped or zero-padded
    to ``n`` points first; a complex tensor (complex64 from float32 or integers
    under the default float32, complex128 from float64).

    >>> import eager
    >>> eager.fft.fft(eager.to_tensor([1.0, 0.0, -1.0, 0.0])).numpy().real.tolist()
    [0.0, 2.0, 0.0, 2.0]
    """
    axes, s = _one_d("fft", x, n, axis)
    if x.dtype.is_complex:
        return _c2c("fft", x, s, axes, norm, True)
    return _r2c("fft", x, s, axes, norm, True, False)


def ifft(x, n=None, axis=-1, norm="backward", name=None):
    """The 1-D inverse discrete Fourier transform of x along ``axis`` (``n`` as in
    :func:`fft`): ``ifft(fft(x)) == x`` up to rounding."""
    axes, s = _one_d("ifft", x, n, axis)
    if x.dtype.is_complex:
        return _c2c("ifft", x, s, axes, norm, False)
    return _r2c("ifft", x, s, axes, norm, False, False)


def rfft(x, n=None, axis=-1, norm="backward", name=None):
    """The 1-D transform of a real x: the n//2+1 non-negative frequency bins (the
    others are their conjugates). x must be real (floating-point or integer)."""
    axes, s = _one_d("rfft", x, n, axis)
    return _r2c("rfft", x, s, axes, norm, True, True)


def irfft(x, n=None, axis=-1, norm="backward", name=None):
    """The inverse of :func:`rfft`: the real signal of ``n`` points (default
    2 * (m - 1), m the bins along ``axis``) whose onesided spectrum is x; x is cropped
    or zero-padded to n//2+1 bins first."""
    axes, s = _one_d("irfft", x, n, axis)
    return _c2r("irfft", x, s, axes, norm, False)


def hfft(x, n=None, axis=-1, norm="backward", name=None):
    """The forward transform of a Hermitian signal given by its first n//2+1 values
    x: a real spectrum of ``n`` points (default 2 * (m - 1))."""
    axes, s = _one_d("hfft", x, n, axis)
    return _c2r("hfft", x, s, axes, norm, True)


def ihfft(x, n=None, axis=-1, norm="backward", name=None):
    """The inverse of :func:`hfft`: the inverse transform of a real x, its n//2+1
    non-negative frequency bins."""
    axes, s = _one_d("ihfft", x, n, axis)
    return _r2c("ihfft", x, s, axes, norm, False, True)


# -- N-D --------------------------------------------------------------------------------

def _transform(fn, kind, x, s, axes, norm):
    """The transform ``kind`` (fft, ifft, rfft, irfft, hfft, ihfft) over checked axes and
    sizes; errors name ``fn``, the public function called."""
    if kind in ("fft", "ifft"):
        forward = kind == "fft"
        if x.dtype.is_complex:
            return _c2c(fn, x, s, axes, norm, forward)
        return _r2c(fn, x, s, axes, norm, forward, False)
    if kind in ("rfft", "ihfft"):
        return _r2c(fn, x, s, axes, norm, kind == "rfft", True)
    return _c2r(fn, x, s, axes, norm, kind == "hfft")


def _nd(fn, kind, x, s, axes, norm):
    _check_x(fn, x)
    axes, s = _nd_axes(fn, x, s, axes)
    return _transform(fn, kind, x, s, axes, norm)


def fftn(x, s=None, axes=None, norm="backward", name=None):
    """The N-D discrete Fourier transform over ``axes`` (default: the last len(s)
    axes, or all), x cropped or zero-padded to the sizes ``s`` first.

    >>> import eager
    >>> eager.fft.fftn(eager.ones([2, 3])).numpy().real.tolist()
    [[6.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    return _nd("fftn", "fft", x, s, axes, norm)


def ifftn(x, s=None, axes=None, norm="backward", name=None):
    """The N-D inverse discrete Fourier transform (``s`` and ``axes`` as in :func:`fftn`)."""
    return _nd("ifftn", "ifft", x, s, axes, norm)


def rfftn(x, s=None, axes=None, norm="backward", name=None):
    """The N-D transform of a real x: onesided (n//2+1 bins) along the last axis in
    ``axes``, full along the others."""
    return _nd("rfftn", "rfft", x, s, axes, norm)


def irfftn(x, s=None, axes=None, norm="backward", name=None):
    """The inverse of :func:`rfftn`: a real tensor of sizes ``s`` along ``axes`` (the
    last one 2 * (m - 1) by default); x is cropped or padded to s, with s[-1]//2+1
    bins along the last axis, first."""
    return _nd("irfftn", "irfft", x, s, axes, norm)


def hfftn(x, s=None, axes=None, norm="backward", name=None):
    """The N-D forward transform of a Hermitian signal given by its onesided half x
    (along the last axis in ``axes``): a real tensor, sizes as in :func:`irfftn`."""
    return _nd("hfftn", "hfft", x, s, axes, norm)


def ihfftn(x, s=None, axes=None, norm="backward", name=None):
    """The inverse of :func:`hfftn`: the N-D inverse transform of a real x, onesided
    along the last axis in ``axes``."""
    return _nd("ihfftn", "ihfft", x, s, axes, norm)


# -- 2-D: the N-D transforms over two axes (the last two by default) ----------------------------

def _2d(fn, kind, x, s, axes, norm):
    _check_x(fn, x)
    _check_pair(fn, x, s, axes)
    return _nd(fn, kind, x, s, axes, norm)


def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`fftn` over two axes (the last two by default)."""
    return _2d("fft2", "fft", x, s, axes, norm)


def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`ifftn` over two axes (the last two by default)."""
    return _2d("ifft2", "ifft", x, s, axes, norm)


def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`rfftn` over two axes (the last two by default)."""
    return _2d("rfft2", "rfft", x, s, axes, norm)


def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`irfftn` over two axes (the last two by default)."""
    return _2d("irfft2", "irfft", x, s, axes, norm)


def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`hfftn` over two axes (the last two by default)."""
    return _2d("hfft2", "hfft", x, s, axes, norm)


def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`ihfftn` over two axes (the last two by default)."""
    return _2d("ihfft2", "ihfft", x, s, axes, norm)


# -- frequencies and shifts ---------------------------------------------------------------

def _freq_args(fn: str, n, d, dtype):
    """(n, d, dtype name), checked; a one-element Tensor n or d is read as its number,
    as Paddle's arithmetic on them does."""
    if isinstance(n, Tensor):
        n = to_scalar(n, f"fft.{fn}", "n")
    if isinstance(d, Tensor):
        d = to_scalar(d, f"fft.{fn}", "d")
    if not _is_int(n) or n <= 0:
        raise ValueError(f"fft.{fn}: argument 'n' expected a positive integer, got {n!r}")
    if isinstance(d, bool) or not isinstance(d, numbers.Real) or d == 0 or d != d:
        raise ValueError(f"fft.{fn}: argument 'd' expected a non-zero real number, got {d!r}")
    try:
        name = get_default_dtype() if dtype is None else convert_dtype(dtype).value
    except (TypeError, ValueError):
        name = None
    if name not in _COMPLEX_OF:  # a float16 default too: Paddle's kernels then raise their RuntimeError
        raise UnsupportedDtypeArgumentError(f"fft.{fn}: argument 'dtype' expected float32 or float64 (default: "
                                            f"the default dtype, {get_default_dtype()}), got {dtype!r}")
    return n, d, name


def fftfreq(n, d=1.0, dtype=None, name=None):
    """The sample frequencies of an ``n``-point transform, sample spacing ``d``:
    ``[0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d * n)``, of ``dtype`` (default: the
    default dtype).

    >>> import eager
    >>> eager.fft.fftfreq(4, d=0.5).numpy().tolist()
    [0.0, 0.5, -1.0, -0.5]
    """
    n, d, dtype = _freq_args("fftfreq", n, d, dtype)
    indices = _F.roll(_F.arange(-(n // 2), (n + 1) // 2, 1, dtype), [-(n // 2)], [0])
    return _F.scale(indices, 1.0 / (n * d), 0.0, True)


def rfftfreq(n, d=1.0, dtype=None, name=None):
    """The sample frequencies of :func:`rfft`'s n//2+1 bins: ``[0, 1, ..., n//2] / (d * n)``."""
    n, d, dtype = _freq_args("rfftfreq", n, d, dtype)
    return _F.scale(_F.arange(0, n // 2 + 1, 1, dtype), 1.0 / (n * d), 0.0, True)


def _shift_axes(fn: str, x, axes) -> list:
    _check_x(fn, x)
    ndim = x.ndim
    if axes is None:
        return list(range(ndim))
    listed = [axes] if _is_int(axes) else axes
    if not isinstance(listed, (list, tuple)) or not all(_is_int(a) and -ndim <= a < ndim for a in listed):
        # AxisError is a ValueError and, for an axis out of range, the IndexError Paddle's roll raises
        error = AxisError if isinstance(listed, (list, tuple)) and all(_is_int(a) for a in listed) else ValueError
        raise error(f"fft.{fn}: argument 'axes' expected an axis or a sequence of axes in [{-ndim}, {ndim}) "
                    f"for a {ndim}-d x, got {axes!r}")
    return [int(a) % ndim for a in listed]


def fftshift(x, axes=None, name=None):
    """x rolled by size//2 along ``axes`` (an int, a sequence, or None: every axis), so
    the zero frequency moves to the centre.

    >>> import eager
    >>> eager.fft.fftshift(eager.fft.fftfreq(4)).numpy().tolist()
    [-0.5, -0.25, 0.0, 0.25]
    """
    axes = _shift_axes("fftshift", x, axes)
    if not axes:
        return _F.roll(x, [0], None)
    return _F.roll(x, [x.shape[a] // 2 for a in axes], axes)


def ifftshift(x, axes=None, name=None):
    """The inverse of :func:`fftshift`: x rolled by -(size//2) along ``axes``."""
    axes = _shift_axes("ifftshift", x, axes)
    if not axes:
        return _F.roll(x, [0], None)
    return _F.roll(x, [-(x.shape[a] // 2) for a in axes], axes)
