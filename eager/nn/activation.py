"""Activation layers (beyond ReLU, Tanh, Sigmoid and Softmax in layers.py) (Paddle's ``paddle.nn``).

Each layer holds its function's attributes and calls the functional of
``eager.nn.functional.activation`` in ``forward``; the attributes are checked
when the layer is built, with the functional's rules. PReLU is the one layer
with a Parameter (its slopes).
"""
from __future__ import annotations

import numbers

from phi.core.errors import ZeroDivisorError

from ..arguments import describe
from . import initializer as _init
from .functional import activation as F
from .functional.checks import check_float_number, check_number
from .layer import Layer, ParamAttr, name_repr

__all__ = [
    "CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU", "LogSigmoid",
    "LogSoftmax", "Maxout", "Mish", "PReLU", "ReLU6", "RReLU", "SELU", "SiLU", "Softplus", "Softshrink", "Softsign",
    "Swish", "Tanhshrink", "ThresholdedReLU", "Softmax2D",
]
__all__ += ["Silu"]


class _Elementwise(Layer):
    """An activation without attributes: forward is ``_fn(x)``."""

    _fn = None

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        """The activation of x, elementwise."""
        return type(self)._fn(x)

    def extra_repr(self):
        """A given name, shown by repr (as Paddle's)."""
        return name_repr(self._name, "")


class GELU(_Elementwise):
    """Layer form of :func:`eager.nn.functional.gelu`.

    >>> eager.nn.GELU(approximate=True)(eager.to_tensor([1.0])).numpy().round(4)
    array([0.8412], dtype=float32)
    """

    def __init__(self, approximate: bool = False, name=None):
        super().__init__(name)
        if not isinstance(approximate, bool):
            raise TypeError(f"GELU: argument 'approximate' expected a bool, got {describe(approximate)}")
        self._approximate = approximate

    def forward(self, x):
        """gelu(x, approximate)."""
        return F.gelu(x, self._approximate)

    def extra_repr(self):
        """The approximation, shown by repr."""
        return f"approximate={self._approximate}{name_repr(self._name)}"


class SiLU(_Elementwise):
    """x * sigmoid(x) (:func:`eager.nn.functional.silu`).

    >>> eager.nn.SiLU()(eager.to_tensor([1.0])).numpy().round(4)
    array([0.7311], dtype=float32)
    """

    _fn = staticmethod(F.silu)


class Silu(SiLU):
    """x * sigmoid(x): Paddle's name for this layer (:class:`SiLU` is the same layer).

    >>> eager.nn.Silu()(eager.to_tensor([1.0])).numpy().round(4)
    array([0.7311], dtype=float32)
    """


class Swish(_Elementwise):
    """x * sigmoid(x) (:func:`eager.nn.functional.swish`).

    >>> eager.nn.Swish()(eager.to_tensor([1.0])).numpy().round(4)
    array([0.7311], dtype=float32)
    """

    _fn = staticmethod(F.swish)


class LeakyReLU(Layer):
    """x where x > 0, negative_slope * x elsewhere (:func:`eager.nn.functional.leaky_relu`).

    >>> eager.nn.LeakyReLU(0.1)(eager.to_tensor([-1.0, 2.0])).numpy()
    array([-0.1,  2. ], dtype=float32)
    """

    def __init__(self, negative_slope: float = 0.01, name=None):
        super().__init__()
        self._name = name
        self._negative_slope = check_number("LeakyReLU", "negative_slope", negative_slope)

    def forward(self, x):
        """leaky_relu(x, negative_slope)."""
        return F.leaky_relu(x, self._negative_slope)

    def extra_repr(self):
        """The slope, shown by repr."""
        return f"negative_slope={self._negative_slope}{name_repr(self._name)}"


class ELU(Layer):
    """x where x > 0, alpha * (exp(x) - 1) elsewhere (:func:`eager.nn.functional.elu`).

    >>> eager.nn.ELU(0.5)(eager.to_tensor([-1.0, 2.0])).numpy().round(4)
    array([-0.3161,  2.    ], dtype=float32)
    """

    def __init__(self, alpha: float = 1.0, name=None):
        super().__init__()
        self._name = name
        self._alpha = check_number("ELU", "alpha", alpha)

    def forward(self, x):
        """elu(x, alpha)."""
        return F.elu(x, self._alpha)

    def extra_repr(self):
        """alpha, shown by repr."""
        return f"alpha={self._alpha}{name_repr(self._name)}"


class SELU(Layer):
    """scale * elu(x, alpha) with scale > 1 and alpha >= 0 (:func:`eager.nn.functional.selu`).

    >>> eager.nn.SELU()(eager.to_tensor([1.0])).numpy().round(4)
    array([1.0507], dtype=float32)
    """

    def __init__(self, scale: float = 1.0507009873554804934193349852946,
                 alpha: float = 1.6732632423543772848170429916717, name=None):
        super().__init__()
        self._name = name
        self._scale = check_number("SELU", "scale", scale)
        self._alpha = check_number("SELU", "alpha", alpha)
        if not self._scale > 1.0:
            raise ValueError(f"SELU: argument 'scale' expected a number greater than 1.0, got {scale}")
        if not self._alpha >= 0.0:
            raise ValueError(f"SELU: argument 'alpha' expected a number >= 0, got {alpha}")

    def forward(self, x):
        """selu(x, scale, alpha)."""
        return F.selu(x, self._scale, self._alpha)

    def extra_repr(self):
        """scale and alpha, shown by repr."""
        return f"scale={self._scale:.16f}, alpha={self._alpha:.16f}{name_repr(self._name)}"


class CELU(Layer):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), alpha != 0
    (:func:`eager.nn.functional.celu`).

    >>> eager.nn.CELU(0.5)(eager.to_tensor([-1.0])).numpy().round(4)
    array([-0.4323], dtype=float32)
    """

    def __init__(self, alpha: float = 1.0, name=None):
        super().__init__()
        self._name = name
        self._alpha = check_number("CELU", "alpha", alpha)
        if self._alpha == 0:
            raise ZeroDivisorError("CELU: argument 'alpha' expected a nonzero number (celu divides x by it), got 0")

    def forward(self, x):
        """celu(x, alpha)."""
        return F.celu(x, self._alpha)

    def extra_repr(self):
        """alpha, shown by repr."""
        return f"alpha={self._alpha}{name_repr(self._name)}"


class ReLU6(_Elementwise):
    """min(max(x, 0), 6) (:func:`eager.nn.functional.relu6`).

    >>> eager.nn.ReLU6()(eager.to_tensor([-1.0, 8.0])).numpy()
    array([0., 6.], dtype=float32)
    """

    _fn = staticmethod(F.relu6)


class Softplus(Layer):
    """log(1 + exp(beta * x)) / beta, x where beta * x > threshold
    (:func:`eager.nn.functional.softplus`).

    >>> eager.nn.Softplus()(eager.to_tensor([0.0])).numpy().round(4)
    array([0.6931], dtype=float32)
    """

    def __init__(self, beta: float = 1, threshold: float = 20, name=None):
        super().__init__()
        self._name = name
        self._beta = check_number("Softplus", "beta", beta)
        self._threshold = check_number("Softplus", "threshold", threshold)
        self._given = (beta, threshold)  # repr shows them as given (Paddle's: beta=1, not 1.0)
        if self._beta == 0:
            raise ValueError("Softplus: argument 'beta' expected a nonzero number (softplus divides by it), got 0")

    def forward(self, x):
        """softplus(x, beta, threshold)."""
        return F.softplus(x, self._beta, self._threshold)

    def extra_repr(self):
        """beta and threshold, shown by repr."""
        return f"beta={self._given[0]}, threshold={self._given[1]}{name_repr(self._name)}"


class Softsign(_Elementwise):
    """x / (1 + |x|) (:func:`eager.nn.functional.softsign`).

    >>> eager.nn.Softsign()(eager.to_tensor([1.0])).numpy()
    array([0.5], dtype=float32)
    """

    _fn = staticmethod(F.softsign)


class Softshrink(Layer):
    """x - threshold above threshold, x + threshold below -threshold, 0 between; threshold >= 0
    (:func:`eager.nn.functional.softshrink`).

    >>> eager.nn.Softshrink()(eager.to_tensor([-1.0, 0.2])).numpy()
    array([-0.5,  0. ], dtype=float32)
    """

    def __init__(self, threshold: float = 0.5, name=None):
        super().__init__()
        self._name = name
        self._threshold = check_number("Softshrink", "threshold", threshold)
        if not self._threshold >= 0:
            raise ValueError(f"Softshrink: argument 'threshold' expected a number >= 0, got {threshold}")

    def forward(self, x):
        """softshrink(x, threshold)."""
        return F.softshrink(x, self._threshold)

    def extra_repr(self):
        """The threshold, shown by repr."""
        return f"threshold={self._threshold}{name_repr(self._name)}"


class Hardshrink(Layer):
    """x where |x| > threshold, 0 elsewhere (:func:`eager.nn.functional.hardshrink`).

    >>> eager.nn.Hardshrink()(eager.to_tensor([-1.0, 0.2])).numpy()
    array([-1.,  0.], dtype=float32)
    """

    def __init__(self, threshold: float = 0.5, name=None):
        super().__init__()
        self._name = name
        self._threshold = check_number("Hardshrink", "threshold", threshold)

    def forward(self, x):
        """hardshrink(x, threshold)."""
        return F.hardshrink(x, self._threshold)

    def extra_repr(self):
        """The threshold, shown by repr."""
        return f"threshold={self._threshold}{name_repr(self._name)}"


class Tanhshrink(_Elementwise):
    """x - tanh(x) (:func:`eager.nn.functional.tanhshrink`).

    >>> eager.nn.Tanhshrink()(eager.to_tensor([0.0])).numpy()
    array([0.], dtype=float32)
    """

    _fn = staticmethod(F.tanhshrink)


class Hardtanh(Layer):
    """x clipped to [min, max], min <= max (:func:`eager.nn.functional.hardtanh`).

    >>> eager.nn.Hardtanh(-2.0, 2.0)(eager.to_tensor([-3.0, 1.0])).numpy()
    array([-2.,  1.], dtype=float32)
    """

    def __init__(self, min: float = -1.0, max: float = 1.0, name=None):  # noqa: A002
        super().__init__()
        self._name = name
        self._min = check_number("Hardtanh", "min", min)
        self._max = check_number("Hardtanh", "max", max)
        self._given = (min, max)  # repr shows them as given (Paddle's: min=-2, not -2.0)
        if not self._min <= self._max:
            raise ValueError(f"Hardtanh: argument 'max' expected a number >= argument 'min', got min={min}, "
                             f"max={max}")

    def forward(self, x):
        """hardtanh(x, min, max)."""
        return F.hardtanh(x, self._min, self._max)

    def extra_repr(self):
        """The bounds, shown by repr."""
        return f"min={self._given[0]}, max={self._given[1]}{name_repr(self._name)}"


class Hardswish(_Elementwise):
    """x * min(max(x + 3, 0), 6) / 6 (:func:`eager.nn.functional.hardswish`).

    >>> eager.nn.Hardswish()(eager.to_tensor([4.0])).numpy()
    array([4.], dtype=float32)
    """

    _fn = staticmethod(F.hardswish)


class Hardsigmoid(_Elementwise):
    """max(0, min(1, x / 6 + 1 / 2)) (:func:`eager.nn.functional.hardsigmoid` with its
    default slope and offset, as Paddle's layer).

    >>> eager.nn.Hardsigmoid()(eager.to_tensor([0.0])).numpy()
    array([0.5], dtype=float32)
    """

    _fn = staticmethod(F.hardsigmoid)


class Mish(_Elementwise):
    """x * tanh(softplus(x)) (:func:`eager.nn.functional.mish`).

    >>> eager.nn.Mish()(eager.to_tensor([0.0])).numpy()
    array([0.], dtype=float32)
    """

    _fn = staticmethod(F.mish)


class LogSigmoid(_Elementwise):
    """log(sigmoid(x)) (:func:`eager.nn.functional.log_sigmoid`).

    >>> eager.nn.LogSigmoid()(eager.to_tensor([0.0])).numpy().round(4)
    array([-0.6931], dtype=float32)
    """

    _fn = staticmethod(F.log_sigmoid)


class ThresholdedReLU(Layer):
    """x where x > threshold, 0 elsewhere (:func:`eager.nn.functional.thresholded_relu`).

    >>> eager.nn.ThresholdedReLU()(eager.to_tensor([2.0, 0.5])).numpy()
    array([2., 0.], dtype=float32)
    """

    def __init__(self, threshold: float = 1.0, name=None):
        super().__init__()
        self._name = name
        self._threshold = check_number("ThresholdedReLU", "threshold", threshold)

    def forward(self, x):
        """thresholded_relu(x, threshold)."""
        return F.thresholded_relu(x, self._threshold)

    def extra_repr(self):
        """The threshold, shown by repr."""
        return f"threshold={self._threshold}{name_repr(self._name)}"


class RReLU(Layer):
    """Randomized leaky ReLU (:func:`eager.nn.functional.rrelu`): random slopes in
    [lower, upper] in training mode, their mean (lower + upper) / 2 in eval mode.

    >>> layer = eager.nn.RReLU(0.1, 0.3)
    >>> _ = layer.eval()
    >>> layer(eager.to_tensor([-1.0, 2.0])).numpy()
    array([-0.2,  2. ], dtype=float32)
    """

    def __init__(self, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, name=None):
        super().__init__()
        self._name = name
        self._lower = check_float_number("RReLU", "lower", lower)   # as F.rrelu: Paddle refuses ints
        self._upper = check_float_number("RReLU", "upper", upper)
        if not 0.0 <= self._lower <= self._upper <= 1.0:
            raise ValueError(f"RReLU: arguments 'lower' and 'upper' expected 0 <= lower <= upper <= 1, got "
                             f"lower={lower}, upper={upper}")

    def forward(self, x):
        """rrelu(x, lower, upper, training=self.training)."""
        return F.rrelu(x, self._lower, self._upper, self.training)

    def extra_repr(self):
        """The bounds, shown by repr."""
        return (f"lower={self._lower}, upper={self._upper}, training={self.training}, "
                f"dtype={self._dtype.name.lower()}{name_repr(self._name)}")


class GLU(Layer):
    """The gated linear unit along ``axis`` (:func:`eager.nn.functional.glu`).

    >>> eager.nn.GLU()(eager.to_tensor([[1.0, 0.0]])).numpy()
    array([[0.5]], dtype=float32)
    """

    def __init__(self, axis: int = -1, name=None):
        super().__init__()
        self._name = name
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"GLU: argument 'axis' expected an int, got {describe(axis)}")
        self._axis = int(axis)

    def forward(self, x):
        """glu(x, axis)."""
        return F.glu(x, self._axis)

    def extra_repr(self):
        """The axis, shown by repr."""
        return f"axis={self._axis}{name_repr(self._name)}"


class Maxout(Layer):
    """The maximum over runs of ``groups`` channels (:func:`eager.nn.functional.maxout`).

    >>> x = eager.to_tensor(np.arange(4.0).reshape(1, 4, 1, 1))
    >>> eager.nn.Maxout(groups=2)(x).numpy().ravel()
    array([1., 3.])
    """

    def __init__(self, groups: int, axis: int = 1, name=None):
        super().__init__()
        self._name = name
        if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups <= 0:
            raise ValueError(f"Maxout: argument 'groups' expected a positive int, got {groups!r}")
        if not isinstance(axis, numbers.Integral) or isinstance(axis, bool) or axis not in (1, -1, 3):
            raise ValueError(f"Maxout: argument 'axis' expected 1, 3 or -1, got {axis!r}")
        self._groups, self._axis = int(groups), int(axis)

    def forward(self, x):
        """maxout(x, groups, axis)."""
        return F.maxout(x, self._groups, self._axis)

    def extra_repr(self):
        """groups and axis, shown by repr."""
        return f"groups={self._groups}, axis={self._axis}{name_repr(self._name)}"


class LogSoftmax(Layer):
    """log(softmax(x)) along ``axis`` (:func:`eager.nn.functional.log_softmax`).

    >>> eager.nn.LogSoftmax()(eager.to_tensor([0.0, 0.0])).numpy().round(4)
    array([-0.6931, -0.6931], dtype=float32)
    """

    def __init__(self, axis: int = -1, name=None):
        super().__init__()
        self._name = name
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"LogSoftmax: argument 'axis' expected an int, got {describe(axis)}")
        self._axis = int(axis)

    def forward(self, x):
        """log_softmax(x, axis)."""
        return F.log_softmax(x, self._axis)

    def extra_repr(self):
        """The axis, shown by repr."""
        return f"axis={self._axis}{name_repr(self._name)}"


class Softmax2D(Layer):
    """softmax over the channels of [C, H, W] or [N, C, H, W] input (axis -3),
    Paddle's ``paddle.nn.Softmax2D``.

    >>> out = eager.nn.Softmax2D()(eager.to_tensor(np.zeros((1, 2, 1, 1), "float32")))
    >>> out.numpy().ravel()
    array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        """softmax(x) along axis -3."""
        if getattr(x, "ndim", None) not in (3, 4):
            raise ValueError(f"Softmax2D: argument 'x' expected a 3-D [C, H, W] or 4-D [N, C, H, W] Tensor, got "
                             f"{describe(x) if not hasattr(x, 'shape') else x.shape}")
        return F.softmax(x, -3)

    def extra_repr(self):
        """A given name, shown by repr (as Paddle's)."""
        return name_repr(self._name, "")


class PReLU(Layer):
    """max(0, x) + weight * min(0, x) with a learned ``weight`` Parameter: one slope
    (``num_parameters=1``) or one per channel (``num_parameters`` = the channels of x,
    found on axis 1, or last for 'NLC', 'NHWC', 'NDHWC'); every slope starts at ``init``.

    >>> layer = eager.nn.PReLU(num_parameters=2, init=0.1, data_format="NC")
    >>> layer(eager.to_tensor([[-1.0, -2.0]])).numpy()
    array([[-0.1, -0.2]], dtype=float32)
    >>> layer._weight.shape
    [2]
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, weight_attr=None, data_format: str = "NCHW",
                 name=None):
        super().__init__()
        self._name = name
        if isinstance(num_parameters, bool) or not isinstance(num_parameters, numbers.Integral) \
                or num_parameters <= 0:
            raise ValueError(f"PReLU: argument 'num_parameters' expected a positive int, got {num_parameters!r}")
        init = check_number("PReLU", "init", init)
        if not isinstance(data_format, str) or data_format not in F._PRELU_FORMATS:
            raise ValueError(f"PReLU: argument 'data_format' expected one of {list(F._PRELU_FORMATS)}, got "
                             f"{data_format!r}")
        weight_attr = ParamAttr.from_argument(weight_attr, "PReLU", "weight_attr")
        if weight_attr is False:
            raise ValueError("PReLU: argument 'weight_attr' cannot be False: PReLU needs its weight")
        self._num_parameters, self._init, self._data_format = int(num_parameters), init, data_format
        # Paddle's name for it (state_dict key '_weight'): Paddle checkpoints load as they are
        self._weight = self.create_parameter([self._num_parameters], weight_attr,
                                             default_initializer=_init.Constant(init))

    def forward(self, x):
        """prelu(x, self._weight, data_format)."""
        return F.prelu(x, self._weight, self._data_format)

    @property
    def weight(self):
        """The slopes (the Parameter ``_weight``)."""
        return self._weight

    def extra_repr(self):
        """The number of slopes, their initial value and the data format, shown by repr."""
        return (f"num_parameters={self._num_parameters}, data_format={self._data_format}, init={self._init}, "
                f"dtype={self._dtype.name.lower()}{name_repr(self._name)}")
