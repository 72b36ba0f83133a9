"""Special functions (erf, erfinv, lgamma, digamma, polygamma) and the parts of complex
numbers (real, imag, conj, angle), with their gradients: the math_unary ops' third
kernel module (one generated module per kernel module, and one would be too long).

The special functions are written with array operations only, so the same code
runs on NumPy and CuPy and needs no SciPy; they compute in float64 and are
accurate to a few ulp there (tests/test_math_unary.py checks them against the
math module and their identities). Where SciPy is installed, erf and erfc on
the CPU come from it instead (5x faster, and erfc keeps its relative precision
up to 3, where 1 - erf loses digits); gelu is their main user. On a GPU, real
CuPy's cupyx.scipy.special serves erf, erfc and erfinv; without it (the CuPy
stand-in of the tests) the array formulations run mask-free, so no value is
read back from the device.
"""
import importlib
import math

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, COMPLEX, FLOATS, INEXACT, NUMERIC

_SQRT_PI = math.sqrt(math.pi)
_HALF_LN_2PI = 0.5 * math.log(2.0 * math.pi)


# scipy.special costs a quarter of a second to import, more than the rest of phi, and
# most programs never call erf: it is imported at the first call that asks for it.
# ``scipy_special`` stays a module attribute (scipy.special, or None without SciPy), set
# at first use; tests read it and swap in None to run the array-operation versions.

def _load_scipy_special():
    """scipy.special, or None where SciPy is not installed (the array-operation versions
    below serve then); imported once, on first use."""
    try:
        found = importlib.import_module("scipy.special")
    except ImportError:  # SciPy is optional
        found = None
    globals()["scipy_special"] = found
    return found


def _scipy_special():
    """The module attribute ``scipy_special``, loading it at the first call."""
    found = globals().get("scipy_special", _load_scipy_special)
    return found() if found is _load_scipy_special else found


def __getattr__(name):
    """``math_unary_special.scipy_special`` read from outside before any kernel loaded it."""
    if name == "scipy_special":
        return _load_scipy_special()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- complex parts ---------------------------------------------------------------------------

@register_kernel("real", ALL_BACKENDS, COMPLEX)
def real(ctx, x):
    return ctx.xp.real(x).copy()


@register_kernel("imag", ALL_BACKENDS, COMPLEX)
def imag(ctx, x):
    return ctx.xp.imag(x).copy()


@register_kernel("conj", ALL_BACKENDS, NUMERIC)
def conj_kernel(ctx, x):
    """The complex conjugate; a copy of x for real x (as Paddle)."""
    return ctx.xp.conj(x) if x.dtype.kind == "c" else x.copy()


@register_kernel("angle", ALL_BACKENDS, INEXACT)
def angle(ctx, x):
    """The argument of x in (-pi, pi]; for real x, pi where x < 0 and 0 elsewhere."""
    xp = ctx.xp
    if x.dtype.kind == "c":
        return xp.angle(x)
    return xp.where(x < 0, xp.asarray(math.pi, x.dtype), xp.zeros((), x.dtype)).astype(x.dtype)


@register_kernel("angle_grad", ALL_BACKENDS, INEXACT)
def angle_grad(ctx, x, out_grad):
    """0 for real x (angle is piecewise constant); for complex x = a + ib,
    out_grad * (-b + ia) / |x|^2, and 0 at x == 0."""
    xp = ctx.xp
    if x.dtype.kind != "c":
        return xp.zeros_like(x)
    norm = xp.real(x * xp.conj(x))
    safe = xp.where(norm == 0, 1, norm)
    return xp.where(norm == 0, 0, out_grad * (x * 1j) / safe).astype(x.dtype)


# -- special functions ------------------------------------------------------------------------

def _as_float64(xp, x):
    return x.astype(xp.float64) if x.dtype != xp.float64 else x


def _cast_into(value, like, into):
    """The float64 ``value`` as ``like``'s dtype: a new array, or written (cast) into
    ``into`` when the inplace op passes its target (into=, KernelFactory.writes_into)."""
    if into is None:
        return value.astype(like.dtype)
    into[...] = value
    return into


def _device_special(xp):
    """cupyx.scipy.special for CuPy arrays when real CuPy has it (its erf, erfc and
    erfinv are single elementwise kernels); None for NumPy and where it is absent
    (the CuPy stand-in tests run on), which the array formulations serve."""
    if xp is np:
        return None
    found = _DEVICE_SPECIAL.get(xp)
    if found is None:
        try:
            found = importlib.import_module("cupyx.scipy.special")
        except ImportError:
            found = False
        _DEVICE_SPECIAL[xp] = found
    return found or None


_DEVICE_SPECIAL: dict = {}


def _erf_and_erfc(xp, x):
    """(erf(|x|), erfc(|x|)) of float64 x, both to a few ulp.

    Below 3: the series 2/sqrt(pi) exp(-x^2) sum 2^n x^(2n+1) / (2n+1)!!, whose
    terms are all positive (no cancellation); 20 + 5.5 x^2 terms reach full
    precision (70 at 3). From 3 up: the continued fraction of erfc, evaluated
    backward at a fixed depth. SciPy's erf/erfc serve NumPy arrays where it is
    installed, cupyx.scipy.special's CuPy arrays where real CuPy has it.

    On the CPU each method runs on its own elements only (bands of |x|, picked
    with boolean masks). On a GPU a boolean mask would read its count back
    from the device, so both methods run on every element, each on arguments
    clamped into its range, and a ``where`` picks: more arithmetic, no wait.
    """
    a = xp.abs(x)
    if xp is np:
        cpu_special = _scipy_special()
        if cpu_special is not None:
            return cpu_special.erf(a), cpu_special.erfc(a)
    special = _device_special(xp)
    if special is not None:
        return special.erf(a), special.erfc(a)
    if xp is not np:
        is_near = a < 3.0  # NaN is not: it takes the continued fraction and stays NaN
        erf_near = _erf_series(xp, xp.where(is_near, a, 0.0), 9.0)
        erfc_far = _erfc_fraction(xp, xp.where(is_near, 3.0, a))
        return xp.where(is_near, erf_near, 1.0 - erfc_far), xp.where(is_near, 1.0 - erf_near, erfc_far)
    erf_abs = xp.empty_like(a)
    erfc_abs = xp.empty_like(a)
    is_near = a < 3.0
    lower = 0.0
    for upper in (1.0, 2.0, 3.0):  # bands, so small arguments take few terms
        band = (a >= lower) & (a < upper)
        lower = upper
        near = a[band]
        if not near.size:
            continue
        erf_near = _erf_series(xp, near, float((near * near).max()))  # the band's largest square sets the length
        erf_abs[band] = erf_near
        erfc_abs[band] = 1.0 - erf_near
    is_far = ~is_near  # NaN lands here and stays NaN
    far = a[is_far]
    if far.size:
        erfc_far = _erfc_fraction(xp, far)
        erfc_abs[is_far] = erfc_far
        erf_abs[is_far] = 1.0 - erfc_far
    return erf_abs, erfc_abs


def _erf_series(xp, a, top):
    """erf of a in [0, 3) by its series, with enough terms for squares up to ``top``."""
    square = a * a
    term = a.copy()
    total = a.copy()
    for n in range(1, int(20 + 5.5 * top) + 1):
        term = term * (2.0 * square / (2 * n + 1))
        total = total + term
    return (2.0 / _SQRT_PI) * xp.exp(-square) * total


def _erfc_fraction(xp, far):
    """erfc of far >= 3 by its continued fraction
    erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))."""
    tail = far
    for k in range(80, 0, -1):
        tail = far + (k / 2.0) / tail
    # exp(-x^2) with x^2 split as hi^2 (exact: hi has 4 fraction bits) + (x - hi)(x + hi),
    # since a rounded x^2 near 600 would cost exp(-x^2) 1e-13 of its precision.
    hi = xp.floor(far * 16.0) / 16.0
    erfc_far = xp.exp(-hi * hi) * xp.exp(-(far - hi) * (far + hi)) / _SQRT_PI / tail
    return xp.where(far == xp.inf, 0.0, erfc_far)  # inf - inf in the split above


@register_kernel("erf", ALL_BACKENDS, FLOATS)
def erf(ctx, x, *, into=None):
    """The error function 2/sqrt(pi) * integral_0^x exp(-t^2) dt."""
    xp = ctx.xp
    wide = _as_float64(xp, x)
    with np.errstate(all="ignore"):
        erf_abs, _ = _erf_and_erfc(xp, wide)
    return _cast_into(xp.where(wide < 0, -erf_abs, erf_abs), x, into)


@register_kernel("erf_grad", ALL_BACKENDS, FLOATS)
def erf_grad(ctx, x, out_grad):
    xp = ctx.xp
    return (out_grad * ((2.0 / _SQRT_PI) * xp.exp(-_as_float64(xp, x) ** 2))).astype(out_grad.dtype)


@register_kernel("erfinv", ALL_BACKENDS, FLOATS)
def erfinv(ctx, x, *, into=None):
    """The inverse of erf on [-1, 1]: +-inf at +-1, NaN outside.

    Winitzki's closed form (relative error ~2e-3) starts three Halley steps on
    erf(y) = |x|. Where |x| > 0.5 the residual is written (1 - |x|) - erfc(y),
    1 - |x| being exact there, so the result keeps the precision x carries
    close to +-1. With real CuPy, cupyx.scipy.special.erfinv serves instead.
    All of it is elementwise: no value is read back from a GPU.
    """
    xp = ctx.xp
    special = _device_special(xp)
    if special is not None:
        out = special.erfinv(x)
        return out.astype(x.dtype, copy=False) if into is None else _cast_into(out, x, into)
    wide = _as_float64(xp, x)
    with np.errstate(all="ignore"):
        a = xp.abs(wide)
        inside = a < 1.0
        a_in = xp.where(inside, a, 0.5)
        log_gap = xp.log((1.0 - a_in) * (1.0 + a_in))
        width = 0.147
        shift = 2.0 / (math.pi * width) + 0.5 * log_gap
        y = xp.sqrt(xp.sqrt(shift * shift - log_gap / width) - shift)
        gap = 1.0 - a_in
        for _ in range(3):
            erf_y, erfc_y = _erf_and_erfc(xp, y)
            residual = xp.where(a_in > 0.5, gap - erfc_y, erf_y - a_in)
            step = residual / ((2.0 / _SQRT_PI) * xp.exp(-y * y))
            y = y - step / (1.0 + y * step)
        y = xp.where(a == 1.0, xp.inf, xp.where(inside, y, xp.nan))
    return _cast_into(xp.where(wide < 0, -y, y), x, into)


@register_kernel("erfinv_grad", ALL_BACKENDS, FLOATS)
def erfinv_grad(ctx, out, out_grad):
    xp = ctx.xp
    return (out_grad * ((_SQRT_PI / 2.0) * xp.exp(_as_float64(xp, out) ** 2))).astype(out_grad.dtype)


# Bernoulli numbers B_2, B_4, ..., B_16 for the asymptotic series.
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_SHIFT_TO = 15.0  # the series below are used from here up; smaller arguments are shifted


def _sin_pi_abs(xp, x):
    """|sin(pi x)|, exact at integers: x - floor(x) is exact, and so is 1 - r for r >= 1/2."""
    r = x - xp.floor(x)
    return xp.sin(math.pi * xp.minimum(r, 1.0 - r))


def _cot_pi(xp, x):
    """cot(pi x), periodic in x with period 1, from the exact remainder; exactly 0 at
    the half-integers, where 1 / tan(pi / 2) is 6e-17 and the reflected polygamma of a
    high order, a difference of huge terms there, turned that into a wrong value."""
    r = x - xp.floor(x)
    r = xp.where(r > 0.5, r - 1.0, r)
    return xp.where(r == 0.5, 0.0, 1.0 / xp.tan(math.pi * r))


def _zeta(k: int) -> float:
    """Riemann's zeta(k), k >= 2: ten terms of the sum, then Euler-Maclaurin for the tail."""
    head = math.fsum(n ** -k for n in range(1, 10))
    tail = 10.0 ** (1 - k) / (k - 1) + 0.5 * 10.0 ** -k
    rising = float(k)  # k (k + 1) ... (k + 2j - 2)
    for j, b in enumerate(_BERNOULLI, start=1):
        tail += b / math.factorial(2 * j) * rising * 10.0 ** (-k - 2 * j + 1)
        rising *= (k + 2 * j - 1) * (k + 2 * j)
    return head + tail


# log Gamma(1 + z) = -gamma z + sum_k (-1)^k zeta(k) z^k / k, for |z| < 1; highest power first
_LGAMMA_NEAR_ONE = tuple((-1) ** k * _zeta(k) / k for k in range(26, 1, -1)) + (-0.5772156649015329, 0.0)
_NEAR_ROOT = 0.2  # |x - 1| or |x - 2| below this: the series (the dropped terms are 1e-18 of the value)


def _lgamma_near_one(xp, z):
    out = xp.zeros_like(z)
    for c in _LGAMMA_NEAR_ONE:
        out = out * z + c
    return out


def _lgamma_positive(xp, x):
    """log Gamma(x) for x > 0: shifted up past 15 by Gamma(x + 1) = x Gamma(x), then Stirling's
    series; near the roots 1 and 2 the Taylor series about 1 instead, as the shifted form's
    log(product) cancels there to an absolute error of 4e-15 (lgamma(1) was 3.6e-15, not 0)."""
    stirling = _lgamma_stirling(xp, x)
    near_one, near_two = xp.abs(x - 1.0) < _NEAR_ROOT, xp.abs(x - 2.0) < _NEAR_ROOT
    z = xp.where(near_two, x - 2.0, x - 1.0)
    series = _lgamma_near_one(xp, z) + xp.where(near_two, xp.log1p(z), 0.0)  # Gamma(2 + z) = (1 + z) Gamma(1 + z)
    return xp.where(near_one | near_two, series, stirling)


def _lgamma_stirling(xp, x):
    z = x
    product = xp.ones_like(x)
    for _ in range(int(_SHIFT_TO)):
        small = z < _SHIFT_TO
        product = xp.where(small, product * z, product)
        z = xp.where(small, z + 1.0, z)
    inverse = 1.0 / z
    inverse_sq = inverse * inverse
    series = xp.zeros_like(z)
    power = inverse
    for k, b in enumerate(_BERNOULLI, start=1):
        series = series + b / (2 * k * (2 * k - 1)) * power
        power = power * inverse_sq
    return (z - 0.5) * xp.log(z) - z + _HALF_LN_2PI + series - xp.log(product)


@register_kernel("lgamma", ALL_BACKENDS, FLOATS)
def lgamma(ctx, x, *, into=None):
    """log |Gamma(x)|; +inf at 0 and the negative integers (poles)."""
    xp = ctx.xp
    wide = _as_float64(xp, x)
    with np.errstate(all="ignore"):
        positive = wide > 0
        # On (-1, 0) Gamma(x) = Gamma(x + 1) / x; below, the reflection Gamma(x) Gamma(1 - x) =
        # pi / sin(pi x) (on (-1, 0) its sin(pi x), from x - floor(x), rounds a tiny x away:
        # lgamma(-1e-30) was inf, not 69.08). One call of the positive form serves all three.
        above_minus_one = (wide < 0) & (wide > -1.0)
        argument = xp.where(positive, wide, xp.where(above_minus_one, wide + 1.0, 1.0 - wide))
        value = _lgamma_positive(xp, argument)
        mirrored = xp.where(positive | above_minus_one, 0.5, wide)
        reflected = math.log(math.pi) - xp.log(_sin_pi_abs(xp, mirrored)) - value
        out = xp.where(positive, value, xp.where(above_minus_one, value - xp.log(xp.abs(wide)), reflected))
        out = xp.where(xp.isinf(wide), xp.inf, out)
    return _cast_into(out, x, into)


@register_kernel("lgamma_grad", ALL_BACKENDS, FLOATS)
def lgamma_grad(ctx, x, out_grad):
    return (out_grad * _polygamma(ctx.xp, _as_float64(ctx.xp, x), 0)).astype(out_grad.dtype)


def _poly_cot_derivative(n):
    """Coefficients (lowest first) of Q_n = P_n / n!, where d^n/dx^n cot(pi x) =
    pi^n P_n(cot(pi x)).

    d/dx cot(pi x) = -pi (1 + cot^2), so P_{k+1}(c) = -(1 + c^2) P_k'(c), P_0(c) = c;
    divided by the factorial as it goes, as P_n's own coefficients pass the float64
    range from n = 170.
    """
    coefficients = np.array([0.0, 1.0])
    for k in range(n):
        derivative = np.polynomial.polynomial.polyder(coefficients)
        coefficients = -np.polynomial.polynomial.polymul([1.0, 0.0, 1.0], derivative) / (k + 1)
    return coefficients


def _polygamma_positive(xp, x, n):
    """psi^(n)(x) for x > 0: shifted up by the recurrence, then the asymptotic series.

    For n >= 1 the series' terms shrink by about ((2k + n) / (2 pi z))^2 each, so z is
    shifted past 15 + n (past 15 alone, psi^(20) was off by 1e-12 at 20 and psi^(100) by
    1e-2); the terms n! / z^(n+1) and the series' coefficients are formed as exp of
    logarithms, as n! / z^(n+1) overflows (and n! as a float did, from n = 155) long
    before the value does."""
    if n == 0:
        z, shifted = x, xp.zeros_like(x)
        for _ in range(int(_SHIFT_TO)):
            small = z < _SHIFT_TO
            shifted = xp.where(small, shifted - 1.0 / z, shifted)  # psi(z) = psi(z + 1) - 1/z
            z = xp.where(small, z + 1.0, z)
        inverse_sq = 1.0 / (z * z)
        series = xp.log(z) - 0.5 / z
        power = inverse_sq
        for k, b in enumerate(_BERNOULLI, start=1):
            series = series - b / (2 * k) * power
            power = power * inverse_sq
        return series + shifted
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1)^(n+1)
    shift_to = _SHIFT_TO + n
    log_factorial = math.lgamma(n + 1)
    z, shifted = x, xp.zeros_like(x)
    for _ in range(int(shift_to)):
        small = z < shift_to
        # psi^(n)(z) = psi^(n)(z + 1) + (-1)^(n+1) n! / z^(n+1)
        shifted = xp.where(small, shifted + xp.exp(log_factorial - (n + 1) * xp.log(z)), shifted)
        z = xp.where(small, z + 1.0, z)
    log_z = xp.log(z)
    # (n-1)!/z^n + n!/(2 z^(n+1)) + sum_k B_2k (2k+n-1)!/(2k)! / z^(2k+n)
    series = xp.exp(math.lgamma(n) - n * log_z) + 0.5 * xp.exp(log_factorial - (n + 1) * log_z)
    for k, b in enumerate(_BERNOULLI, start=1):
        log_coefficient = math.lgamma(2 * k + n) - math.lgamma(2 * k + 1)
        series = series + math.copysign(1.0, b) * xp.exp(math.log(abs(b)) + log_coefficient - (2 * k + n) * log_z)
    return sign * (series + shifted)


# Past this order n! overflows float64: Paddle's kernel, (-1)^(n+1) exp(lgamma(n+1)) zeta(n+1, x),
# gives (-1)^(n+1) inf there (nan for a nan x), which is what is returned, without running the
# recurrence and series (whose exact factorials of a huge n would never finish).
_MAX_FINITE_ORDER = 170


def _polygamma(xp, x, n):
    """psi^(n)(x) of float64 x; infinite at the poles 0, -1, -2, ... (see below)."""
    if n > _MAX_FINITE_ORDER:
        return xp.where(xp.isnan(x), xp.nan, -xp.inf if n % 2 == 0 else xp.inf)
    with np.errstate(all="ignore"):
        positive = x > 0
        # On (-1, 0) one step of the recurrence, psi^(n)(x) = psi^(n)(x + 1) + n! / |x|^(n+1) (x < 0);
        # below, the reflection (on (-1, 0) its cot(pi x), from x - floor(x), rounds a tiny x away:
        # digamma(-1e-30) was NaN). One call of the positive form serves all three.
        above_minus_one = (x < 0) & (x > -1.0)
        argument = xp.where(positive, x, xp.where(above_minus_one, x + 1.0, 1.0 - x))
        value = _polygamma_positive(xp, argument, n)
        recurred = value + xp.exp(math.lgamma(n + 1) - (n + 1) * xp.log(xp.abs(x)))
        # Reflection, differentiated n times: psi(1 - x) - psi(x) = pi cot(pi x) gives
        # psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x)).
        mirrored = xp.where(positive | above_minus_one, 0.5, x)
        cot = _cot_pi(xp, mirrored)
        poly = xp.zeros_like(cot)
        for c in _poly_cot_derivative(n)[::-1]:
            poly = poly * cot + c
        # pi^(n+1) n! Q_n(cot) through logarithms: the factor alone overflows from n = 150
        log_scale = (n + 1) * math.log(math.pi) + math.lgamma(n + 1)
        reflected = (-1.0) ** n * value - xp.sign(poly) * xp.exp(log_scale + xp.log(xp.abs(poly)))
        out = xp.where(positive, value, xp.where(above_minus_one, recurred, reflected))
        # At the poles 0, -1, -2, ... (and -inf, which Eigen counts among them): NaN for
        # digamma, as Paddle's (its Eigen's digamma; the sign of the infinity depends on the
        # side); (-1)^(n+1) inf for n >= 1, as its zeta (psi^(n) = (-1)^(n+1) n! zeta(n+1, x)).
        pole = (x <= 0) & (x == xp.floor(x))
        out = xp.where(pole, xp.nan if n == 0 else xp.inf if n % 2 == 1 else -xp.inf, out)
        return xp.where(x == xp.inf, xp.inf if n == 0 else 0.0, out)


@register_kernel("digamma", ALL_BACKENDS, FLOATS)
def digamma(ctx, x, *, into=None):
    """psi(x) = d/dx log Gamma(x); NaN at 0 and the negative integers, as Paddle."""
    xp = ctx.xp
    return _cast_into(_polygamma(xp, _as_float64(xp, x), 0), x, into)


@register_kernel("digamma_grad", ALL_BACKENDS, FLOATS)
def digamma_grad(ctx, x, out_grad):
    xp = ctx.xp
    return (out_grad * _polygamma(xp, _as_float64(xp, x), 1)).astype(out_grad.dtype)


@register_kernel("polygamma", ALL_BACKENDS, FLOATS)
def polygamma(ctx, x, n, *, into=None):
    """psi^(n)(x), the n-th derivative of digamma (n = 0 is digamma)."""
    xp = ctx.xp
    if n < 0:
        raise InvalidArgumentError(f"argument 'n' expected an order >= 0, got {n}")
    return _cast_into(_polygamma(xp, _as_float64(xp, x), n), x, into)


@register_kernel("polygamma_grad", ALL_BACKENDS, FLOATS)
def polygamma_grad(ctx, x, out_grad, n):
    xp = ctx.xp
    return (out_grad * _polygamma(xp, _as_float64(xp, x), n + 1)).astype(out_grad.dtype)
