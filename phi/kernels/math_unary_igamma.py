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
converges at once; every 16 steps the converged elements are set aside and the
rest go on (at most 4096 steps), so the cost follows the slow elements only. The one kept is the one that is not a difference
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


def _iterate(xp, state, step, converged):
    """Runs ``step`` (state, n) -> state on flat float64 arrays until ``converged(state)``
    holds everywhere, checking every 16 steps, and from each check on only over the
    elements still going (the others' results are set aside), so a few slow elements
    do not keep the whole array iterating; at most 4096 steps. Returns state[-1]'s
    final values in the original order."""
    out = xp.empty_like(state[-1])
    positions = xp.arange(out.size)
    n = 0
    while n < _MAX_STEPS:
        for _ in range(_CHECK_EVERY):
            n += 1
            state = step(state, n)
        done = converged(state)
        if bool(xp.all(done)):
            break
        finished = xp.nonzero(done)[0]
        out[positions[finished]] = state[-1][finished]
        going = xp.nonzero(~done)[0]
        positions = positions[going]
        state = tuple(part[going] for part in state)
    out[positions] = state[-1]
    return out


def _series_sum(xp, a, y):
    """sum_n y^n / ((a+1)...(a+n)) of flat arrays, until every term is below eps of its sum."""
    def step(state, n):
        a, y, term, total = state
        term = term * y / (a + n)
        return a, y, term, total + term

    ones = xp.ones_like(y)
    return _iterate(xp, (a, y, ones, ones), step, lambda state: state[2] <= _EPS * state[3])


def _fraction(xp, a, y):
    """1 / (y + 1 - a - 1(1 - a) / (y + 3 - a - ...)) of flat arrays, by the modified Lentz method."""
    def step(state, i):
        a, b, c, d, delta, h = state
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = xp.where(xp.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = xp.where(xp.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        return a, b, c, d, delta, h * delta

    b = y + 1.0 - a
    d = 1.0 / b
    state = (a, b, xp.full_like(y, 1.0 / _TINY), d, xp.zeros_like(y), d)
    return _iterate(xp, state, step, lambda state: xp.abs(state[4] - 1.0) <= _EPS)


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
        shape = y.shape
        series = _series_sum(xp, series_a.ravel(), series_y.ravel()).reshape(shape)
        fraction = _fraction(xp, fraction_a.ravel(), fraction_y.ravel()).reshape(shape)
        p_series = xp.exp(log_lead - _lgamma_positive(xp, series_a + 1.0)) * series
        q_fraction = xp.exp(log_lead - _lgamma_positive(xp, fraction_a)) * fraction
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
