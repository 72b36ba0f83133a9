"""Random kernels, each drawing from the generator of its place (phi/core/generator.py).

A kernel draws uniform [0, 1) floats, standard normals, integers, permutations
or Poisson counts from the generator and shapes them with ``ctx.xp``, so the
same code runs on NumPy and CuPy. Values a random op cannot take (probabilities
outside [0, 1], negative rates) are checked before anything is drawn, so a bad
call leaves the generator's state as it was.
"""
import numpy as np

from ..common.data_type import DataType as T
from ..core.errors import InvalidArgumentError, ProbabilityOutOfRangeError
from ..core.bfloat16_kernels import computing_in_float32
from ..core.generator import generator_for_call
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS

_NO_SEED = 0


def _generator(ctx, seed=_NO_SEED):
    return generator_for_call(ctx.place, seed)


@register_kernel("uniform", ALL_BACKENDS, FLOATS)
def uniform(ctx, shape, dtype, min, max, seed):
    low, high = float(min), float(max)
    values = (low + (high - low) * _generator(ctx, seed).random(shape)).astype(dtype.numpy_dtype)
    return _below_max(ctx.xp, values, low, high)


@register_kernel("uniform", ALL_BACKENDS, (T.BFLOAT16,))
def uniform_bfloat16(ctx, shape, dtype, min, max, seed):
    # The float32 twin rounds its draws to bfloat16 after its own bound, which can
    # reach max (1 draw in ~500 for rand); so the bound is applied again in bfloat16.
    values = computing_in_float32(uniform)(ctx, shape, dtype, min, max, seed)
    return _below_max(ctx.xp, values, float(min), float(max))


def _below_max(xp, values, low, high):
    """values with those that rounding to their dtype took up to (or, where high is
    no value of the dtype, past) high put on the dtype's value just below: the
    interval is half-open. The two bounds are worked out on the host and filled
    on the device (no upload per call)."""
    top = np.asarray(high, dtype=values.dtype)
    below_top = np.nextafter(top, np.asarray(low, dtype=values.dtype))
    top, below_top = (xp.full((), float(v), dtype=values.dtype) for v in (top, below_top))
    return xp.where(values < top, values, below_top)


@register_kernel("gaussian", ALL_BACKENDS, FLOATS)
def gaussian(ctx, shape, mean, std, seed, dtype):
    normals = _generator(ctx, seed).standard_normal(shape)
    return (float(mean) + float(std) * normals).astype(dtype.numpy_dtype)


@register_kernel("randint", ALL_BACKENDS, (T.INT32, T.INT64))
def randint(ctx, low, high, shape, dtype):
    if high is None:
        low, high = 0, low
    return _generator(ctx).integers(low, high, shape).astype(dtype.numpy_dtype)


@register_kernel("randint_like", ALL_BACKENDS, (T.BOOL, T.INT32, T.INT64) + FLOATS)
def randint_like(ctx, x, low, high, dtype):
    if high is None:
        low, high = 0, low
    out_dtype = x.dtype if dtype is None else dtype.numpy_dtype
    return _generator(ctx).integers(low, high, x.shape).astype(out_dtype)


@register_kernel("randperm", ALL_BACKENDS, (T.INT32, T.INT64, T.FLOAT32, T.FLOAT64))
def randperm(ctx, n, dtype):
    return _generator(ctx).permutation(n).astype(dtype.numpy_dtype)


def _check_probabilities(ctx, x, what, arg="x"):
    # NaN fails both comparisons, so it is refused too. Only where ctx.check_values
    # (always on the CPU; on a GPU in anomaly mode: the answer is a device read).
    if not ctx.check_values:
        return
    xp = ctx.xp
    inside = (x >= 0) & (x <= 1)
    if not bool(xp.all(inside)):
        bad = x[~inside].reshape(-1)[0]
        raise ProbabilityOutOfRangeError(f"argument '{arg}' expected {what} in [0, 1], got {float(bad)!r}")


@register_kernel("bernoulli", ALL_BACKENDS, FLOATS)
def bernoulli(ctx, x):
    _check_probabilities(ctx, x, "probabilities")
    return (_generator(ctx).random(x.shape) < x).astype(x.dtype)


@register_kernel("poisson", ALL_BACKENDS, FLOATS)
def poisson(ctx, x):
    xp = ctx.xp
    valid = (x >= 0) & xp.isfinite(x) if ctx.check_values else None
    if valid is not None and not bool(xp.all(valid)):
        raise InvalidArgumentError(
            f"argument 'x' expected finite rates >= 0, got {float(x[~valid].reshape(-1)[0])!r}")
    return _generator(ctx).poisson(x.astype(np.float64)).astype(x.dtype)


@register_kernel("binomial", ALL_BACKENDS, FLOATS)
def binomial(ctx, count, prob):
    """Successes in ``count`` trials of probability ``prob`` (broadcast together), int64."""
    xp = ctx.xp
    count, prob = xp.broadcast_arrays(count, prob)
    _check_probabilities(ctx, prob, "probabilities", "prob")
    if ctx.check_values:
        valid = (count >= 0) & (count == xp.floor(count)) if count.dtype.kind == "f" else count >= 0
        if not bool(xp.all(valid)):
            raise InvalidArgumentError(f"argument 'count' expected whole numbers >= 0, got "
                                       f"{float(count[~valid].reshape(-1)[0])!r}")
    return _generator(ctx).binomial(count.astype(np.int64), prob.astype(np.float64))


def _check_weights(xp, weights, num_samples, replacement):
    """Raises unless every weight is finite and >= 0, every row has a positive one
    and, without replacement, at least num_samples of them."""
    valid = (weights >= 0) & xp.isfinite(weights)
    if not bool(xp.all(valid)):
        raise InvalidArgumentError(
            f"argument 'x' expected finite weights >= 0, got {float(weights[~valid][0])!r}")
    positive = (weights > 0).sum(axis=1)
    if not bool(xp.all(positive > 0)):
        raise InvalidArgumentError("argument 'x' has a row of weights that sum to 0; each row needs a positive weight")
    if not replacement and positive.size and int(positive.min()) < num_samples:
        raise InvalidArgumentError(
            f"argument 'num_samples' is {num_samples}, but a row of x has only {int(positive.min())} categories "
            f"of positive weight; without replacement num_samples may not exceed that")


@register_kernel("multinomial", ALL_BACKENDS, FLOATS)
def multinomial(ctx, x, num_samples, replacement):
    xp = ctx.xp
    weights = x.astype(np.float64).reshape(-1, x.shape[-1])
    if ctx.check_values:  # three device reads on a GPU: only in anomaly mode there
        _check_weights(xp, weights, num_samples, replacement)
    generator = _generator(ctx)
    if replacement:
        # Inverse CDF: category j covers [cdf[j-1], cdf[j]); the last cdf is exactly 1,
        # so a draw below 1 never lands on a weight-0 category, trailing ones included.
        cdf = xp.cumsum(weights, axis=1)
        cdf = cdf / cdf[:, -1:]
        draws = generator.random((weights.shape[0], num_samples))
        picks = xp.stack([xp.searchsorted(cdf[row], draws[row], side="right")
                          for row in range(weights.shape[0])]) if weights.shape[0] else \
            xp.zeros((0, num_samples), dtype=np.int64)
    else:
        # Exponential races: the categories with the smallest E_j / w_j (E_j ~ Exp(1))
        # are a draw without replacement with probabilities proportional to w.
        races = -xp.log1p(-generator.random(weights.shape))
        keys = xp.where(weights > 0, races / xp.where(weights > 0, weights, 1.0), xp.inf)
        picks = xp.argsort(keys, axis=1)[:, :num_samples]
    return picks.astype(np.int64).reshape(x.shape[:-1] + (num_samples,))
