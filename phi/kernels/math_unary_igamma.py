"""The regularized incomplete gamma functions, gammainc(x, y) = P(x, y) (lower) and
gammaincc(x, y) = Q(x, y) = 1 - P(x, y) (upper), for a shape parameter x > 0 and a
point y >= 0: the math_unary ops' incomplete gamma kernels. Their gradient (in y
only, as Paddle's: d/dy P = y^(x-1) e^(-y) / Gamma(x)) is a composite rule.

Written with array operations (NumPy and CuPy alike), in float64:

- y < x + 1: the series P = y^x e^(-y) / Gamma(x + 1) sum_n y^n / ((x+1)...(x+n)),
  whose terms are positive and shrink once n > y - x;
- y >= x + 1: the continued fraction
  Q = y^x e^(-y) / Gamma(x) / (y + 1 - x - 1(1 - x) / (y + 3 - x - 2(2 - x) / ...)),
  evaluated by the modified Lentz method.

Both run on every element, each on a copy whose other elements are put where it
converges at once, and stop when every element has converged (checked every 16
steps) or after 4096 steps. The one kept is the one that is not a difference
near 1, so both P and Q keep their relative precision in their tails.
Edges: x <= 0, y < 0 or NaN give NaN; y = 0 gives P = 0, Q = 1; y = inf gives P = 1, Q = 0.
"""
import numpy as np

from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS
from .math_unary_special import _lgamma_positive

_EPS = 2.0 ** -53
_TINY = 1e-300
_CHECK_EVERY = 16
_MAX_STEPS = 4096


def _as_float64(xp, x):
    return x.astype(xp.float64) if x.dtype != xp.float64 else x


def _series_sum(xp, a, y):
    """sum_n y^n / ((a+1)...(a+n)), until every term is below eps of its sum."""
    term = xp.ones_like(y)
    total = xp.ones_like(y)
    for n in range(1, _MAX_STEPS + 1):
        term = term * y / (a + n)
        total = total + term
        if n % _CHECK_EVERY == 0 and bool(xp.all(term <= _EPS * total)):
            break
    return total


def _fraction(xp, a, y):
    """1 / (y + 1 - a - 1(1 - a) / (y + 3 - a - ...)) by the modified Lentz method."""
    b = y + 1.0 - a
    c = xp.full_like(y, 1.0 / _TINY)
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_STEPS + 1):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = xp.where(xp.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = xp.where(xp.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if i % _CHECK_EVERY == 0 and bool(xp.all(xp.abs(delta - 1.0) <= _EPS)):
            break
    return h


def _incomplete_gamma(xp, a, y, upper):
    """P(a, y), or Q(a, y) when upper, of broadcast float64 arrays."""
    a, y = xp.broadcast_arrays(a, y)
    with np.errstate(all="ignore"):
        valid = (a > 0) & (y >= 0)  # False for NaN too
        finite = valid & (y > 0) & (y < xp.inf)
        safe_a = xp.where(finite, a, 1.0)
        by_series = finite & (y < safe_a + 1.0)
        by_fraction = finite & ~by_series
        # Elsewhere each method gets a point where it converges in one step.
        series_y = xp.where(by_series, y, 0.0)
        fraction_y = xp.where(by_fraction, y, safe_a + 1.0)
        series_a = xp.where(by_series, safe_a, 1.0)
        fraction_a = xp.where(by_fraction, safe_a, 1.0)

        log_lead = safe_a * xp.log(xp.where(finite, y, 1.0)) - xp.where(finite, y, 1.0)
        p_series = xp.exp(log_lead - _lgamma_positive(xp, series_a + 1.0)) * _series_sum(xp, series_a, series_y)
        q_fraction = xp.exp(log_lead - _lgamma_positive(xp, fraction_a)) * _fraction(xp, fraction_a, fraction_y)
        if upper:
            out = xp.where(by_series, 1.0 - p_series, q_fraction)
            edge = xp.where(y == 0, 1.0, 0.0)
        else:
            out = xp.where(by_series, p_series, 1.0 - q_fraction)
            edge = xp.where(y == 0, 0.0, 1.0)
        out = xp.where(finite, out, edge)
        return xp.where(valid, out, xp.nan)


def _written(value, x, into):
    """The float64 result as x's dtype, or written into ``into``, the inplace op's target
    (KernelFactory.writes_into; the result has its shape, which the op checks)."""
    if into is None:
        return value.astype(x.dtype)
    into[...] = value
    return into


@register_kernel("gammainc", ALL_BACKENDS, FLOATS)
def gammainc(ctx, x, y, *, into=None):
    """P(x, y) = (1 / Gamma(x)) int_0^y t^(x-1) e^(-t) dt, broadcast."""
    xp = ctx.xp
    return _written(_incomplete_gamma(xp, _as_float64(xp, x), _as_float64(xp, y), upper=False), x, into)


@register_kernel("gammaincc", ALL_BACKENDS, FLOATS)
def gammaincc(ctx, x, y, *, into=None):
    """Q(x, y) = (1 / Gamma(x)) int_y^inf t^(x-1) e^(-t) dt = 1 - P(x, y), broadcast."""
    xp = ctx.xp
    return _written(_incomplete_gamma(xp, _as_float64(xp, x), _as_float64(xp, y), upper=True), x, into)
