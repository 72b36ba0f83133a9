"""Activation functions (Paddle's ``paddle.nn.functional.activation``)."""
from __future__ import annotations

import numpy as np

from phi.common.data_type import float_info
from phi.core import NotFoundError, UnsupportedDtypeError
from phi.core.errors import AssertedArgumentError

from ...arguments import describe, to_bool, to_dtype
from ...composite.spine import reshape_exactly
from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import (check_axis, check_float, check_float_number, check_number, check_positive_int, check_tensor,
                     dtypes_differ)


def relu(x: Tensor, name=None) -> Tensor:
    """max(x, 0) elementwise."""
    try:
        return _F.relu(x if isinstance(x, Tensor) else check_tensor("relu", "x", x))
    except NotFoundError:  # no kernel for x's dtype: say so as the other activations do
        check_float("relu", "x", x)
        raise


def sigmoid(x: Tensor, name=None) -> Tensor:
    """1 / (1 + exp(-x)) elementwise (a complex x too, as in Paddle).

    >>> eager.nn.functional.sigmoid(eager.to_tensor([0.0, 2j])).numpy().round(4)
    array([0.5+0.j    , 0.5+0.7787j], dtype=complex64)
    """
    try:
        x = check_float("sigmoid", "x", x)
    except UnsupportedDtypeError:  # a complex x, or the error naming both kinds
        x = check_float("sigmoid", "x", x, complex_ok=True)
    return _F.sigmoid(x)


def tanh(x: Tensor, name=None) -> Tensor:
    """Hyperbolic tangent elementwise (a complex x too, as ``eager.tanh``)."""
    try:
        x = check_float("tanh", "x", x)
    except UnsupportedDtypeError:  # a complex x, or the error naming both kinds
        x = check_float("tanh", "x", x, complex_ok=True)
    return _F.tanh(x)


# The complex forms of silu and log_sigmoid, which Paddle computes (its CPU kernels take
# complex64/complex128): compositions of sigmoid, exp, log1p and multiply, whose complex
# gradients (out_grad times the conjugate derivative, Paddle's convention) compose to
# any order. Reached only from the float check's failure path, so real inputs keep
# their fused kernels.

def _silu_complex(x: Tensor) -> Tensor:
    return _F.multiply(x, _F.sigmoid(x))


def _log_sigmoid_complex(x: Tensor) -> Tensor:
    return _F.neg(_F.log1p(_F.exp(_F.neg(x))))


def _softsign_complex(x: Tensor) -> Tensor:
    return _F.divide(x, _F.scale(_F.abs(x), 1.0, 1.0).astype(x.dtype))


def _softplus_complex(x: Tensor, beta: float, threshold: float) -> Tensor:
    # log(1 + e^z) = m + log(e^-m + e^(z - m)) for any constant m: m = max(Re z, 0) keeps
    # both exponentials finite, and as a constant it leaves the gradient exact. The
    # threshold compares the real part, as Paddle's complex kernel does.
    z = _F.scale(x, float(beta), 0.0)
    real = _F.real(z)
    shift = _F.relu(real).detach()
    stable = _F.add(shift.astype(x.dtype), _F.log(_F.add(_F.exp(_F.neg(shift)).astype(x.dtype),
                                                           _F.exp(_F.subtract(z, shift.astype(x.dtype))))))
    return _F.where(_F.greater_than(real, _F.full_like(real, threshold)), x, _F.scale(stable, 1.0 / beta, 0.0))


def _hardswish_complex(x: Tensor) -> Tensor:
    # Paddle's complex kernel clips on the real part: 0 where Re(x) + 3 <= 0, x where it is >= 6
    real = _F.real(x)
    middle = _F.scale(_F.multiply(x, _F.scale(x, 1.0, 3.0)), 1.0 / 6.0, 0.0)
    upper = _F.where(_F.greater_equal(real, _F.full_like(real, 3.0)), x, middle)
    return _F.where(_F.less_equal(real, _F.full_like(real, -3.0)), _F.zeros_like(x), upper)


def _cast_first(fn: str, x, dtype) -> Tensor:
    """x cast to ``dtype`` before softmax/log_softmax (as Paddle: so an integer x with a
    floating-point dtype is accepted); x itself, which must be floating-point, without one."""
    if dtype is None:
        return check_float(fn, "x", x)
    check_tensor(fn, "x", x)
    dtype = to_dtype(dtype, fn, "dtype")
    if not dtype.is_floating_point:  # Paddle casts, then finds no kernel: also its RuntimeError
        raise UnsupportedDtypeError(f"{fn}: argument 'dtype' expected a floating-point dtype, got {dtype}")
    return x if x.dtype == dtype else x.astype(dtype)


def softmax(x: Tensor, axis: int = -1, dtype=None, name=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``axis``, computed stably (a fused kernel).

    >>> eager.nn.functional.softmax(eager.to_tensor([1.0, 2.0, 3.0])).numpy().round(3)
    array([0.09 , 0.245, 0.665], dtype=float32)
    """
    x = _cast_first("softmax", x, dtype)
    return _F.softmax(x, check_axis("softmax", x, axis))


def log_softmax(x: Tensor, axis: int = -1, dtype=None, name=None) -> Tensor:
    """log(softmax(x)) along ``axis``, computed stably (a fused kernel)."""
    x = _cast_first("log_softmax", x, dtype)
    return _F.log_softmax(x, check_axis("log_softmax", x, axis))


def softmax_(x: Tensor, axis: int = -1, dtype=None, name=None) -> Tensor:
    """Inplace :func:`softmax`: writes softmax(x) along ``axis`` into x and returns it.
    ``dtype``, if given, must be x's own (an inplace result cannot change dtype).

    >>> x = eager.to_tensor([0.0, 0.0])
    >>> eager.nn.functional.softmax_(x) is x, x.numpy()
    (True, array([0.5, 0.5], dtype=float32))
    """
    check_float("softmax_", "x", x)
    if dtype is not None and to_dtype(dtype, "softmax_", "dtype") != x.dtype:
        raise TypeError(f"softmax_: argument 'dtype' expected None or x's dtype {x.dtype} (an inplace "
                        f"softmax keeps x's dtype), got {dtype!r}")
    return _F.softmax_(x, check_axis("softmax_", x, axis))


def gumbel_softmax(x: Tensor, temperature: float = 1.0, hard: bool = False, axis: int = -1, name=None) -> Tensor:
    """A sample of the Gumbel-softmax (concrete) distribution over ``axis``:
    ``softmax((x + g) / temperature)`` with g = -log(-log(U)), U uniform on
    (0, 1) from the global generator (``eager.seed``). With ``hard=True`` the
    value is the one-hot vector of that sample's largest entry, and the gradient
    is the soft sample's (the straight-through estimator).

    >>> _ = eager.seed(0)
    >>> y = eager.nn.functional.gumbel_softmax(eager.zeros([2, 3]), hard=True)
    >>> y.sum(axis=-1).numpy(), sorted(set(y.numpy().ravel().tolist()))
    (array([1., 1.], dtype=float32), [0.0, 1.0])
    """
    fn = "gumbel_softmax"
    check_float(fn, "x", x)
    temperature = check_number(fn, "temperature", temperature)
    if not temperature > 0:
        raise ValueError(f"{fn}: argument 'temperature' expected a number > 0, got {temperature}")
    if not isinstance(hard, (bool, np.bool_)):
        raise TypeError(f"{fn}: argument 'hard' expected a bool, got {describe(hard)}")
    axis = check_axis(fn, x, axis)
    tiny = float(float_info(x.dtype).tiny)  # U > 0, so log(U) is finite
    draws = _F.uniform(x.shape, x.dtype, tiny, 1.0, 0, x.place)
    gumbel = _F.neg(_F.log(_F.neg(_F.log(draws))))
    soft = _F.softmax(_F.scale(_F.add(x, gumbel), 1.0 / temperature, 0.0, True), axis)
    if not hard or 0 in x.shape:  # an empty sample has no entry to pick: it is its own one-hot
        return soft
    if x.ndim == 0:
        return _F.add(_F.ones_like(soft), _F.subtract(soft, soft.detach()))
    first = _F.argmax(soft, axis, True)
    one_hot = _F.put_along_axis(_F.zeros_like(soft), first, _F.ones_like(first).astype(x.dtype), axis)
    # one_hot + (soft - soft): exactly one-hot in value, the soft sample's gradient
    return _F.add(one_hot.detach(), _F.subtract(soft, soft.detach()))


# -- issue #10: the activations beyond the spine's -----------------------------------------
# Each elementwise one is a phi op (phi/kernels/activation.py) with an overflow-free
# kernel and a composite backward, so create_graph works to any order; glu, maxout,
# prelu and rrelu are compositions of existing ops.

_PRELU_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def relu_(x: Tensor, name=None) -> Tensor:
    """Inplace :func:`relu`: writes max(x, 0) into x and returns it.

    >>> x = eager.to_tensor([-1.0, 2.0])
    >>> eager.nn.functional.relu_(x) is x, x.numpy()
    (True, array([0., 2.], dtype=float32))
    """
    return _F.relu_(check_float("relu_", "x", x))


def tanh_(x: Tensor, name=None) -> Tensor:
    """Inplace :func:`tanh`: writes tanh(x) into x and returns it.

    >>> eager.nn.functional.tanh_(eager.to_tensor([0.0])).numpy()
    array([0.], dtype=float32)
    """
    try:
        x = check_float("tanh_", "x", x)
    except UnsupportedDtypeError:  # a complex x, or the error naming both kinds
        x = check_float("tanh_", "x", x, complex_ok=True)
    return _F.tanh_(x)


def gelu(x: Tensor, approximate: bool = False, name=None) -> Tensor:
    """The Gaussian error linear unit x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))); with
    ``approximate=True`` the tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).

    >>> eager.nn.functional.gelu(eager.to_tensor([-1.0, 0.0, 1.0])).numpy().round(4)
    array([-0.1587,  0.    ,  0.8413], dtype=float32)
    """
    check_float("gelu", "x", x)
    return _F.gelu(x, to_bool(approximate, "gelu", "approximate"))


def silu(x: Tensor, name=None) -> Tensor:
    """x * sigmoid(x) (the sigmoid linear unit; a complex x too, as in Paddle).

    >>> eager.nn.functional.silu(eager.to_tensor([0.0, 1.0])).numpy().round(4)
    array([0.    , 0.7311], dtype=float32)
    """
    try:
        x = check_float("silu", "x", x)
    except UnsupportedDtypeError:  # a complex x, or the error naming both kinds
        return _silu_complex(check_float("silu", "x", x, complex_ok=True))
    return _F.silu(x)


def swish(x: Tensor, name=None) -> Tensor:
    """x * sigmoid(x), the same function as :func:`silu`.

    >>> eager.nn.functional.swish(eager.to_tensor([-1.0, 1.0])).numpy().round(4)
    array([-0.2689,  0.7311], dtype=float32)
    """
    return _F.silu(check_float("swish", "x", x))


def leaky_relu(x: Tensor, negative_slope: float = 0.01, name=None) -> Tensor:
    """x where x > 0, negative_slope * x elsewhere.

    >>> eager.nn.functional.leaky_relu(eager.to_tensor([-2.0, 3.0]), 0.1).numpy()
    array([-0.2,  3. ], dtype=float32)
    """
    check_float("leaky_relu", "x", x)
    return _F.leaky_relu(x, check_number("leaky_relu", "negative_slope", negative_slope))


def leaky_relu_(x: Tensor, negative_slope: float = 0.01, name=None) -> Tensor:
    """Inplace :func:`leaky_relu`: writes the result into x and returns it.

    >>> eager.nn.functional.leaky_relu_(eager.to_tensor([-2.0, 3.0]), 0.5).numpy()
    array([-1.,  3.], dtype=float32)
    """
    check_float("leaky_relu_", "x", x)
    return _F.leaky_relu_(x, check_number("leaky_relu_", "negative_slope", negative_slope))


def elu(x: Tensor, alpha: float = 1.0, name=None) -> Tensor:
    """x where x > 0, alpha * (exp(x) - 1) elsewhere (no overflow for large |x|).

    >>> eager.nn.functional.elu(eager.to_tensor([-1.0, 2.0])).numpy().round(4)
    array([-0.6321,  2.    ], dtype=float32)
    """
    check_float("elu", "x", x)
    return _F.elu(x, check_number("elu", "alpha", alpha))


def elu_(x: Tensor, alpha: float = 1.0, name=None) -> Tensor:
    """Inplace :func:`elu`; as in Paddle, alpha must be >= 0.

    >>> eager.nn.functional.elu_(eager.to_tensor([-1.0, 2.0])).numpy().round(4)
    array([-0.6321,  2.    ], dtype=float32)
    """
    check_float("elu_", "x", x)
    alpha = check_number("elu_", "alpha", alpha)
    if not alpha >= 0:  # Paddle asserts it: AssertedArgumentError is that AssertionError and a ValueError
        raise AssertedArgumentError(f"elu_: argument 'alpha' expected a number >= 0, got {alpha}")
    return _F.elu_(x, alpha)


def selu(x: Tensor, scale: float = 1.0507009873554804934193349852946,
         alpha: float = 1.6732632423543772848170429916717, name=None) -> Tensor:
    """scale * (x where x > 0, alpha * (exp(x) - 1) elsewhere); scale > 1, alpha >= 0.

    >>> eager.nn.functional.selu(eager.to_tensor([-1.0, 1.0])).numpy().round(4)
    array([-1.1113,  1.0507], dtype=float32)
    """
    check_float("selu", "x", x)
    return _F.selu(x, check_number("selu", "scale", scale), check_number("selu", "alpha", alpha))


def celu(x: Tensor, alpha: float = 1.0, name=None) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha must not be 0.

    >>> eager.nn.functional.celu(eager.to_tensor([-1.0, 1.0]), alpha=0.5).numpy().round(4)
    array([-0.4323,  1.    ], dtype=float32)
    """
    check_float("celu", "x", x)
    return _F.celu(x, check_number("celu", "alpha", alpha))


def relu6(x: Tensor, name=None) -> Tensor:
    """min(max(x, 0), 6) (the hardtanh op with bounds 0 and 6).

    >>> eager.nn.functional.relu6(eager.to_tensor([-1.0, 3.0, 8.0])).numpy()
    array([0., 3., 6.], dtype=float32)
    """
    return _F.hardtanh(check_float("relu6", "x", x), 0.0, 6.0)


def softplus(x: Tensor, beta: float = 1, threshold: float = 20, name=None) -> Tensor:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold; computed
    without overflow for any x.

    >>> eager.nn.functional.softplus(eager.to_tensor([0.0, 30.0])).numpy().round(4)
    array([ 0.6931, 30.    ], dtype=float32)
    """
    beta, threshold = check_number("softplus", "beta", beta), check_number("softplus", "threshold", threshold)
    try:
        x = check_float("softplus", "x", x)
    except UnsupportedDtypeError:  # a complex x (as in Paddle), or the error naming both kinds
        return _softplus_complex(check_float("softplus", "x", x, complex_ok=True), beta, threshold)
    return _F.softplus(x, beta, threshold)


def softsign(x: Tensor, name=None) -> Tensor:
    """x / (1 + |x|).

    >>> eager.nn.functional.softsign(eager.to_tensor([-3.0, 1.0])).numpy()
    array([-0.75,  0.5 ], dtype=float32)
    """
    try:
        x = check_float("softsign", "x", x)
    except UnsupportedDtypeError:  # a complex x (as in Paddle), or the error naming both kinds
        return _softsign_complex(check_float("softsign", "x", x, complex_ok=True))
    return _F.softsign(x)


def softshrink(x: Tensor, threshold: float = 0.5, name=None) -> Tensor:
    """x - threshold where x > threshold, x + threshold where x < -threshold, 0 elsewhere;
    threshold >= 0.

    >>> eager.nn.functional.softshrink(eager.to_tensor([-1.0, 0.2, 2.0])).numpy()
    array([-0.5,  0. ,  1.5], dtype=float32)
    """
    check_float("softshrink", "x", x)
    return _F.softshrink(x, check_number("softshrink", "threshold", threshold))


def hardshrink(x: Tensor, threshold: float = 0.5, name=None) -> Tensor:
    """x where |x| > threshold, 0 elsewhere.

    >>> eager.nn.functional.hardshrink(eager.to_tensor([-1.0, 0.2, 2.0])).numpy()
    array([-1.,  0.,  2.], dtype=float32)
    """
    check_float("hardshrink", "x", x)
    return _F.hardshrink(x, check_number("hardshrink", "threshold", threshold))


def tanhshrink(x: Tensor, name=None) -> Tensor:
    """x - tanh(x).

    >>> eager.nn.functional.tanhshrink(eager.to_tensor([1.0])).numpy().round(4)
    array([0.2384], dtype=float32)
    """
    return _F.tanhshrink(check_float("tanhshrink", "x", x))


def hardtanh(x: Tensor, min: float = -1.0, max: float = 1.0, name=None) -> Tensor:  # noqa: A002
    """x clipped to [min, max] (min <= max); the gradient passes where min < x < max.

    >>> eager.nn.functional.hardtanh(eager.to_tensor([-2.0, 0.5, 2.0])).numpy()
    array([-1. ,  0.5,  1. ], dtype=float32)
    """
    check_float("hardtanh", "x", x)
    return _F.hardtanh(x, check_number("hardtanh", "min", min), check_number("hardtanh", "max", max))


def hardtanh_(x: Tensor, min: float = -1.0, max: float = 1.0, name=None) -> Tensor:  # noqa: A002
    """Inplace :func:`hardtanh`: writes the result into x and returns it.

    >>> eager.nn.functional.hardtanh_(eager.to_tensor([-2.0, 2.0])).numpy()
    array([-1.,  1.], dtype=float32)
    """
    check_float("hardtanh_", "x", x)
    return _F.hardtanh_(x, check_number("hardtanh_", "min", min), check_number("hardtanh_", "max", max))


def hardswish(x: Tensor, name=None) -> Tensor:
    """x * min(max(x + 3, 0), 6) / 6.

    >>> eager.nn.functional.hardswish(eager.to_tensor([-4.0, 1.0, 4.0])).numpy().round(4)
    array([-0.    ,  0.6667,  4.    ], dtype=float32)
    """
    try:
        x = check_float("hardswish", "x", x)
    except UnsupportedDtypeError:  # a complex x (as in Paddle), or the error naming both kinds
        return _hardswish_complex(check_float("hardswish", "x", x, complex_ok=True))
    return _F.hardswish(x)


def hardsigmoid(x: Tensor, slope: float = 0.1666667, offset: float = 0.5, name=None) -> Tensor:
    """max(0, min(1, slope * x + offset)).

    >>> eager.nn.functional.hardsigmoid(eager.to_tensor([-4.0, 0.0, 4.0])).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    check_float("hardsigmoid", "x", x)
    return _F.hardsigmoid(x, check_number("hardsigmoid", "slope", slope), check_number("hardsigmoid", "offset", offset))


def mish(x: Tensor, name=None) -> Tensor:
    """x * tanh(softplus(x)), computed without overflow.

    >>> eager.nn.functional.mish(eager.to_tensor([-1.0, 1.0])).numpy().round(4)
    array([-0.3034,  0.8651], dtype=float32)
    """
    return _F.mish(check_float("mish", "x", x))


def log_sigmoid(x: Tensor, name=None) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), finite for every finite x.

    >>> eager.nn.functional.log_sigmoid(eager.to_tensor([-200.0, 0.0])).numpy().round(4)
    array([-200.    ,   -0.6931], dtype=float32)
    """
    try:
        x = check_float("log_sigmoid", "x", x)
    except UnsupportedDtypeError:  # a complex x, or the error naming both kinds
        return _log_sigmoid_complex(check_float("log_sigmoid", "x", x, complex_ok=True))
    return _F.log_sigmoid(x)


def thresholded_relu(x: Tensor, threshold: float = 1.0, name=None) -> Tensor:
    """x where x > threshold, 0 elsewhere.

    >>> eager.nn.functional.thresholded_relu(eager.to_tensor([2.0, 0.0, 1.0])).numpy()
    array([2., 0., 0.], dtype=float32)
    """
    check_float("thresholded_relu", "x", x)
    return _F.thresholded_relu(x, check_number("thresholded_relu", "threshold", threshold))


def thresholded_relu_(x: Tensor, threshold: float = 1.0, name=None) -> Tensor:
    """Inplace :func:`thresholded_relu`: writes the result into x and returns it.

    >>> eager.nn.functional.thresholded_relu_(eager.to_tensor([2.0, 0.5])).numpy()
    array([2., 0.], dtype=float32)
    """
    check_float("thresholded_relu_", "x", x)
    return _F.thresholded_relu_(x, check_number("thresholded_relu_", "threshold", threshold))


def prelu(x: Tensor, weight: Tensor, data_format: str = "NCHW", name=None) -> Tensor:
    """max(0, x) + weight * min(0, x): one slope for every element (a weight of one
    element, 1-d or 0-d) or one per channel (a weight of C elements; the channel axis is 1, or the
    last axis for the channel-last formats 'NLC', 'NHWC', 'NDHWC').

    >>> x = eager.to_tensor([[-1.0, 2.0], [-3.0, -4.0]])
    >>> eager.nn.functional.prelu(x, eager.to_tensor([0.1, 0.5]), data_format="NC").numpy()
    array([[-0.1,  2. ],
           [-0.3, -2. ]], dtype=float32)
    """
    check_float("prelu", "x", x)
    check_float("prelu", "weight", weight)
    if dtypes_differ(weight, x):
        raise TypeError(f"prelu: argument 'weight' expected the dtype of 'x' {x.dtype}, got {weight.dtype}")
    if not isinstance(data_format, str) or data_format not in _PRELU_FORMATS:
        raise ValueError(f"prelu: argument 'data_format' expected one of {list(_PRELU_FORMATS)}, got "
                         f"{data_format!r}")
    if weight.ndim > 1:
        raise ValueError(f"prelu: argument 'weight' expected a 0-d or 1-d tensor, got shape {weight.shape}")
    count = weight.shape[0] if weight.ndim else 1  # a 0-d weight is one slope, as Paddle's [] weight
    if count == 1:
        slope = _F.reshape(weight, [1] * x.ndim) if x.ndim else _F.reshape(weight, [])
    else:
        if x.ndim < 2:
            raise ValueError(f"prelu: argument 'x' expected at least 2 dims (batch, channels) for a weight "
                             f"of {count} elements, got shape {x.shape}")
        axis = x.ndim - 1 if data_format[-1] == "C" and data_format != "NC" else 1
        if x.shape[axis] != count:
            raise AssertedArgumentError(f"prelu: argument 'weight' expected 1 or {x.shape[axis]} elements (the "
                                        f"channels of x, axis {axis} of shape {x.shape}), got {count}")
        shape = [1] * x.ndim
        shape[axis] = count
        slope = _F.reshape(weight, shape)
    zero = _F.full_like(x, 0, None)
    return _F.where(_F.greater_than(x, zero), x, _F.multiply(x, slope))


def rrelu(x: Tensor, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, training: bool = True,
          name=None) -> Tensor:
    """Randomized leaky ReLU: x where x >= 0, a * x elsewhere, a drawn uniformly from
    [lower, upper] for each element in training, (lower + upper) / 2 otherwise;
    0 <= lower <= upper <= 1.

    >>> eager.nn.functional.rrelu(eager.to_tensor([-2.0, 3.0]), 0.25, 0.25).numpy()
    array([-0.5,  3. ], dtype=float32)
    """
    check_float("rrelu", "x", x)
    lower = check_float_number("rrelu", "lower", lower)    # Paddle refuses ints here: rrelu(x, 0, 1)
    upper = check_float_number("rrelu", "upper", upper)
    if not 0.0 <= lower <= 1.0:
        raise ValueError(f"rrelu: argument 'lower' expected a number in [0, 1], got {lower}")
    if not 0.0 <= upper <= 1.0:
        raise ValueError(f"rrelu: argument 'upper' expected a number in [0, 1], got {upper}")
    if upper < lower:
        raise ValueError(f"rrelu: argument 'upper' expected a number >= lower ({lower}), got {upper}")
    if not to_bool(training, "rrelu", "training"):
        return _F.leaky_relu(x, (lower + upper) / 2.0)
    slope = _F.uniform(x.shape, x.dtype, lower, upper) if upper > lower else _F.full_like(x, lower, None)
    zero = _F.full_like(x, 0, None)
    return _F.where(_F.greater_equal(x, zero), x, _F.multiply(x, slope))


def glu(x: Tensor, axis: int = -1, name=None) -> Tensor:
    """The gated linear unit a * sigmoid(b), where a and b are the two halves of x along
    ``axis`` (whose size must be even).

    >>> eager.nn.functional.glu(eager.to_tensor([[1.0, 2.0, 0.0, 100.0]])).numpy().round(4)
    array([[0.5, 2. ]], dtype=float32)
    """
    check_float("glu", "x", x)
    if x.ndim == 0:
        raise ValueError("glu: argument 'x' expected at least 1 dim, got a 0-d tensor")
    axis = check_axis("glu", x, axis)
    if x.shape[axis] % 2:
        raise ValueError(f"glu: argument 'x' expected an even size along axis {axis} (it is halved), got "
                         f"shape {x.shape}")
    a, b = _F.split(x, 2, axis)
    return _F.multiply(a, _F.sigmoid(b))


def maxout(x: Tensor, groups: int, axis: int = 1, name=None) -> Tensor:
    """The maximum over each run of ``groups`` consecutive channels of a 4-d x: channel i
    of the result is max(x[:, i*groups:(i+1)*groups]) (``axis`` 1, or 3 / -1 for NHWC).
    At a tie the gradient goes to the first maximal channel of the group.

    >>> x = eager.to_tensor(np.arange(8.0).reshape(1, 4, 1, 2))
    >>> eager.nn.functional.maxout(x, groups=2)[0, :, 0].numpy()
    array([[2., 3.],
           [6., 7.]])
    """
    check_float("maxout", "x", x)
    groups = check_positive_int("maxout", "groups", groups, ValueError)
    if groups == 1:  # Paddle's MaxOutInferMeta: "Attr(groups) of Op(maxout) should be larger than 1"
        raise ValueError("maxout: argument 'groups' expected an int > 1, got 1")
    if x.ndim != 4:
        raise ValueError(f"maxout: argument 'x' expected a 4-d tensor, got shape {x.shape}")
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or axis not in (1, -1, 3):
        raise ValueError(f"maxout: argument 'axis' expected 1, 3 or -1, got {axis!r}")
    axis = axis % 4
    channels = x.shape[axis]
    if channels % groups:
        raise ValueError(f"maxout: argument 'groups' ({groups}) must divide the {channels} channels of x "
                         f"(axis {axis} of shape {x.shape})")
    shape = list(x.shape)
    if 0 in shape:
        # an empty x cannot be split into groups by reshape (which reads a 0 as "keep
        # this dimension"): its empty result, still connected to x
        shape[axis] = channels // groups
        return reshape_exactly(x, shape)
    shape[axis:axis + 1] = [channels // groups, groups]
    grouped = _F.reshape(x, shape)
    # Gathering at the argmax (the first maximum) rather than taking max: at a tie the
    # gradient goes to one element, the first of the group, as in Paddle's maxout.
    first = _F.argmax(grouped, axis + 1, True)
    return _F.squeeze(_F.take_along_axis(grouped, first, axis + 1), [axis + 1])


__all__ = [
    "celu", "elu", "elu_", "gelu", "glu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "hardtanh_",
    "leaky_relu", "leaky_relu_", "log_sigmoid", "log_softmax", "maxout", "mish", "prelu", "relu", "relu6",
    "relu_", "rrelu", "selu", "sigmoid", "silu", "softmax", "softplus", "softshrink", "softsign", "swish",
    "tanh", "tanh_", "tanhshrink", "thresholded_relu", "thresholded_relu_",
]
__all__ += ["gumbel_softmax", "softmax_"]
