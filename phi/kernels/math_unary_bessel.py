"""Modified Bessel functions of the first kind, orders 0 and 1 (i0, i1) and their
exponentially scaled forms (i0e = exp(-|x|) i0, i1e = exp(-|x|) i1): the math_unary
ops' Bessel kernels. Their gradients are composite rules (eager/composite/math_unary.py:
i0' = i1, i1' = i0 - i1 / x), so they need no kernels here.

Written with array operations only (NumPy and CuPy alike, no SciPy), in float64,
mask-free (both branches run on every element, each on a clamped copy, and
``where`` picks), so nothing is read back from a device:

- |x| < 30: the power series I_n(x) = (x/2)^n sum_k (x^2/4)^k / (k! (k+n)!), whose
  terms are all positive (no cancellation); 80 terms reach float64 precision there.
- |x| >= 30: Hankel's asymptotic expansion
  I_n(x) ~ e^x / sqrt(2 pi x) sum_k (-1)^k a_k(n) / x^k,
  a_k(n) = prod_{j<=k} (4n^2 - (2j-1)^2) / (k! 8^k), summed to 25 terms, whose last
  term is far below float64's epsilon at x = 30.

The scaled forms are computed directly from the expansion's sum beyond 30, so they
stay finite where i0 and i1 overflow (|x| > ~713).
"""
import math

import numpy as np

from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS

_SERIES_BELOW = 30.0
_SERIES_TERMS = 80
_ASYMPTOTIC_TERMS = 25


def _as_float64(xp, x):
    return x.astype(xp.float64) if x.dtype != xp.float64 else x


def _series(xp, ax, order):
    """sum_k (x^2/4)^k / (k! (k+order)!) for 0 <= ax < 30 (without the (x/2)^order factor)."""
    quarter_sq = 0.25 * ax * ax
    term = xp.full_like(ax, 1.0 / math.factorial(order))
    total = term
    for k in range(1, _SERIES_TERMS):
        term = term * quarter_sq / (k * (k + order))
        total = total + term
    return total


def _hankel_sum(xp, ax, order):
    """sum_k (-1)^k a_k(order) / x^k for ax >= 30: I_order(ax) = e^ax / sqrt(2 pi ax) * this."""
    mu = 4.0 * order * order
    inverse = 1.0 / ax
    term = xp.ones_like(ax)
    total = term
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = term * (-(mu - (2 * k - 1) ** 2) / (k * 8.0)) * inverse
        total = total + term
    return total


def _bessel(xp, x, order, scaled):
    """I_order(x) (or exp(-|x|) I_order(x) when scaled) of float64 x, order 0 or 1."""
    with np.errstate(all="ignore"):
        ax = xp.abs(x)
        near = xp.minimum(ax, _SERIES_BELOW)
        series = _series(xp, near, order) * (0.5 * near) ** order
        if scaled:
            series = series * xp.exp(-near)
        far = xp.maximum(ax, _SERIES_BELOW)
        asymptotic = _hankel_sum(xp, far, order) / xp.sqrt(2.0 * math.pi * far)
        if not scaled:
            # e^x / sqrt(2 pi x) as (e^(x/2))^2 / sqrt(...) would still overflow past ~709:
            # that is I's true overflow, so inf there is right.
            asymptotic = asymptotic * xp.exp(far)
        out = xp.where(ax < _SERIES_BELOW, series, asymptotic)
        out = xp.where(ax == xp.inf, 0.0 if scaled else xp.inf, out)
        if order == 1:  # I_1 is odd
            out = xp.where(x < 0, -out, out)
        return xp.where(xp.isnan(x), xp.nan, out)


def _register(name, order, scaled, doc):
    def kernel(ctx, x, *, into=None):
        xp = ctx.xp
        value = _bessel(xp, _as_float64(xp, x), order, scaled)
        if into is None:
            return value.astype(x.dtype)
        into[...] = value  # the inplace op's target (KernelFactory.writes_into), cast on the way
        return into

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = doc
    return register_kernel(name, ALL_BACKENDS, FLOATS)(kernel)


i0 = _register("i0", 0, False, "I_0(x), the modified Bessel function of the first kind of order 0.")
i0e = _register("i0e", 0, True, "exp(-|x|) I_0(x), the exponentially scaled I_0.")
i1 = _register("i1", 1, False, "I_1(x), the modified Bessel function of the first kind of order 1.")
i1e = _register("i1e", 1, True, "exp(-|x|) I_1(x), the exponentially scaled I_1.")
