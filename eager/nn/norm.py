"""Normalization layers (Paddle's ``paddle.nn``).

Weights start at one and biases at zero, as in Paddle; ``weight_attr=False``
or ``bias_attr=False`` leaves that parameter out (None). The batch norms keep
their running statistics in the persistable buffers ``_mean`` (zeros) and
``_variance`` (ones), the names Paddle's state_dict uses; in training mode
each call updates them in place, in eval mode they normalize.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..creation import to_tensor
from ..framework import get_default_dtype
from ..generated import forward_api as _F
from ..tensor import Tensor
from ..utils import unique_name
from . import functional
from . import initializer as _init
from .functional import norm as norm_functional
from .functional.checks import check_number, check_positive_int, check_tensor
from .layer import Layer, ParamAttr, fixed_parameter, name_repr


def _affine(layer: Layer, who: str, shape, weight_attr, bias_attr, fixed_when_false: bool = False) -> None:
    """Creates layer.weight (ones) and layer.bias (zeros) of ``shape``. An attr of
    False gives None, or with ``fixed_when_false`` a fixed (stop_gradient) weight of
    ones / bias of zeros, as Paddle 2.6's GroupNorm and SyncBatchNorm keep."""
    fixed = [fixed_when_false and attr is False for attr in (weight_attr, bias_attr)]
    weight_attr = None if fixed[0] else ParamAttr.from_argument(weight_attr, who, "weight_attr")
    bias_attr = None if fixed[1] else ParamAttr.from_argument(bias_attr, who, "bias_attr")
    layer.weight = (fixed_parameter(layer, shape, False) if fixed[0] else
                    layer.create_parameter(list(shape), weight_attr, default_initializer=_init.Constant(1.0)))
    layer.bias = (fixed_parameter(layer, shape, True) if fixed[1] else
                  layer.create_parameter(list(shape), bias_attr, is_bias=True))


def _epsilon(who: str, epsilon) -> float:
    return norm_functional.check_epsilon(who, epsilon)


class LayerNorm(Layer):
    """Layer normalization over the trailing axes ``normalized_shape`` (Paddle's
    ``paddle.nn.LayerNorm``): weight and bias hold prod(normalized_shape) values,
    flattened as Paddle's (so Paddle's checkpoints load).

    >>> norm = eager.nn.LayerNorm([3])
    >>> norm(eager.ones([2, 3])).shape
    [2, 3]
    """

    def __init__(self, normalized_shape, epsilon: float = 1e-05, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        who = type(self).__name__
        self._normalized_shape = norm_functional.normalized_shape_list(who, normalized_shape)
        self._epsilon = _epsilon(who, epsilon)
        _affine(self, who, [math.prod(self._normalized_shape)], weight_attr, bias_attr)

    def forward(self, input: Tensor) -> Tensor:
        """input normalized over its trailing ``normalized_shape`` axes."""
        check_tensor(f"{type(self).__name__}({self._full_name})", "input", input)
        return norm_functional.layer_norm(input, self._normalized_shape, self.weight, self.bias, self._epsilon)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


def _format(who: str, data_format, formats) -> str:
    if not isinstance(data_format, str) or data_format not in formats:
        raise ValueError(f"{who}: argument 'data_format' expected one of {list(formats)}, got {data_format!r}")
    return data_format


def _check_input(layer: Layer, x, ranks) -> str:
    """input: a Tensor of one of ``ranks`` with the layer's number of channels."""
    who = f"{type(layer).__name__}({layer._full_name})"
    check_tensor(who, "input", x)
    if x.ndim not in ranks:
        raise ValueError(f"{who}: argument 'input' expected a tensor of rank {' or '.join(map(str, ranks))} "
                         f"(data_format {layer._data_format!r}), got shape {x.shape}")
    channels = x.shape[norm_functional.channel_axis(x, layer._data_format)]
    if channels != layer._num_features:
        raise ValueError(f"{who}: argument 'input' expected {layer._num_features} channels (num_features) in "
                         f"data_format {layer._data_format!r}, got shape {x.shape} with {channels}")
    return who


class _BatchNormBase(Layer):
    _formats = ("NCHW", "NHWC")
    _ranks = (4,)
    # Paddle 2.6's BatchNorm1D/2D/3D (and the older nn.BatchNorm) have no weight/bias where weight_attr or
    # bias_attr is False; its SyncBatchNorm keeps fixed ones and zeros with stop_gradient there.
    _fixed_affine = False

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", use_global_stats=None, name=None, dtype=None):
        if dtype is None:
            # Paddle's BatchNorm*D follow the default dtype, keeping float32 statistics
            # and affine parameters under a float16 default (the kernel computes in float32).
            dtype = "float32" if get_default_dtype() == "float16" else get_default_dtype()
        super().__init__(dtype=dtype)
        who = type(self).__name__
        self._num_features = check_positive_int(who, "num_features", num_features)
        if not isinstance(momentum, numbers.Real) or isinstance(momentum, bool) or not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{who}: argument 'momentum' expected a number in [0, 1], got {momentum!r}")
        self._momentum = float(momentum)
        self._epsilon = _epsilon(who, epsilon)
        self._data_format = _format(who, data_format, self._formats)
        if use_global_stats is not None and not isinstance(use_global_stats, bool):
            raise TypeError(f"{who}: argument 'use_global_stats' expected None or a bool, got {use_global_stats!r}")
        self._use_global_stats = use_global_stats
        self._name = name
        _affine(self, who, [self._num_features], weight_attr, bias_attr, self._fixed_affine)
        dtype = self._dtype.numpy_dtype
        self.register_buffer("_mean", to_tensor(np.zeros(self._num_features, dtype)))
        self.register_buffer("_variance", to_tensor(np.ones(self._num_features, dtype)))
        # Paddle's are non-trainable Parameters, so persistable (buffers here: docs/nn.md),
        # named as the layer's next weights (batch_norm2d_0.w_1, .w_2): a state dict keyed
        # by those names (use_structured_name=False) loads them.
        for stat in (self._mean, self._variance):
            stat.persistable = True
            stat.name = unique_name.generate(f"{self._full_name}.w")

    def forward(self, input: Tensor) -> Tensor:
        """input normalized per channel: by the batch's statistics in training mode
        (which also updates ``_mean`` and ``_variance``), by the running ones in eval
        mode (``use_global_stats`` overrides either way)."""
        _check_input(self, input, self._ranks)
        return norm_functional.batch_norm(input, self._mean, self._variance, self.weight, self.bias,
                                          training=self.training, momentum=self._momentum, epsilon=self._epsilon,
                                          data_format=self._data_format, use_global_stats=self._use_global_stats)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        text = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        # Paddle's repr names the data format only when it is not NCHW (a BatchNorm1D's NCL too).
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        return text + name_repr(self._name)


class BatchNorm1D(_BatchNormBase):
    """Batch normalization over [N, C] or [N, C, L] (``data_format="NCL"``, also
    "NC") or [N, L, C] ("NLC") (Paddle's ``paddle.nn.BatchNorm1D``).

    >>> bn = eager.nn.BatchNorm1D(4)
    >>> bn(eager.randn([8, 4, 5])).shape
    [8, 4, 5]
    """

    _formats = ("NC", "NCL", "NLC")
    _ranks = (2, 3)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm2D(_BatchNormBase):
    """Batch normalization over [N, C, H, W] (``data_format="NCHW"``) or NHWC
    (Paddle's ``paddle.nn.BatchNorm2D``).

    >>> bn = eager.nn.BatchNorm2D(6)
    >>> bn(eager.randn([4, 6, 8, 8])).shape
    [4, 6, 8, 8]
    """

    _formats = ("NCHW", "NHWC")
    _ranks = (4,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm3D(_BatchNormBase):
    """Batch normalization over [N, C, D, H, W] (``data_format="NCDHW"``) or NDHWC
    (Paddle's ``paddle.nn.BatchNorm3D``).

    >>> bn = eager.nn.BatchNorm3D(2)
    >>> bn(eager.randn([2, 2, 3, 4, 4])).shape
    [2, 2, 3, 4, 4]
    """

    _formats = ("NCDHW", "NDHWC")
    _ranks = (5,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


# Paddle's nn.BatchNorm runs ``act`` as the legacy C op of that name
# (_legacy_C_ops.<act>) with the op's default attributes: leaky_relu's alpha is
# 0.02 there and hard_sigmoid's slope 0.2, and the names are the ops' own
# (hard_swish, logsigmoid; "hardswish" or "log_sigmoid" fail in Paddle).
_LEGACY_ACTIVATIONS = {
    **{name: getattr(functional, name) for name in (
        "relu", "sigmoid", "tanh", "softmax", "log_softmax", "swish", "silu", "elu", "celu", "selu", "gelu",
        "relu6", "softplus", "softsign", "softshrink", "thresholded_relu", "mish")},
    "leaky_relu": lambda x: functional.leaky_relu(x, 0.02),
    "hard_sigmoid": lambda x: functional.hardsigmoid(x, 0.2, 0.5),
    "hard_swish": functional.hardswish,
    "hard_shrink": functional.hardshrink,
    "tanh_shrink": functional.tanhshrink,
    "logsigmoid": functional.log_sigmoid,
    "brelu": lambda x: _F.clip(x, 0.0, 24.0),
    "soft_relu": lambda x: _F.log1p(_F.exp(_F.clip(x, -40.0, 40.0))),
    "stanh": lambda x: _F.tanh(x * 0.67) * 1.7159,
}
_LEGACY_MATH = ("abs", "ceil", "cos", "exp", "floor", "log", "reciprocal", "round", "rsqrt", "sin", "sqrt",
                "square")


def _legacy_activation(act):
    """The function Paddle's legacy ``act`` name stands for, or None."""
    if not isinstance(act, str):
        return None
    if act in _LEGACY_MATH:
        return getattr(_F, act)
    return _LEGACY_ACTIVATIONS.get(act)


class BatchNorm(_BatchNormBase):
    """Paddle's older ``paddle.nn.BatchNorm``: batch normalization of [N, C, ...]
    (``data_layout="NCHW"``) or channel-last ("NHWC") inputs of rank 2 to 5,
    optionally followed by an activation ``act``: the name of one of Paddle's
    legacy activation ops ("relu", "leaky_relu" with its alpha 0.02,
    "hard_sigmoid", ...) or unary math ops ("sqrt"), with those ops' default
    attributes, as Paddle runs it. As in Paddle 2.6.2's dygraph, the
    layer's mode decides between batch and running statistics: ``is_test`` is
    kept (``_is_test``) but does not freeze a layer in training mode (call
    ``eval()``); ``trainable_statistics=True`` uses the batch's even in eval.
    ``moving_mean_name``/``moving_variance_name`` name the running-statistics
    tensors (``_mean.name``/``_variance.name``). ``in_place`` (Paddle's in-place
    activation: the same values) and ``do_model_average_for_mean_and_var`` (a
    static-graph ModelAverage flag) are accepted as bools and change nothing.

    >>> bn = eager.nn.BatchNorm(3, act="relu")
    >>> bn(eager.randn([2, 3, 4, 4])).shape
    [2, 3, 4, 4]
    """

    # Paddle's Layer.float16()/bfloat16() leave this layer (exactly this class) in its dtype by default
    _kept_in_half = True

    _formats = ("NCHW", "NHWC")
    _ranks = (2, 3, 4, 5)
    _fixed_affine = False

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
                 bias_attr=None, dtype="float32", data_layout="NCHW", in_place=False, moving_mean_name=None,
                 moving_variance_name=None, do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        who = type(self).__name__
        if act is not None and _legacy_activation(act) is None:
            raise ValueError(f"{who}: argument 'act' expected None or the name of one of Paddle's legacy "
                             f"activation ops ({', '.join(sorted(_LEGACY_ACTIVATIONS))}, or a unary math op: "
                             f"{', '.join(_LEGACY_MATH)}), got {act!r}")
        for arg, value in (("is_test", is_test), ("in_place", in_place),
                           ("do_model_average_for_mean_and_var", do_model_average_for_mean_and_var),
                           ("use_global_stats", use_global_stats), ("trainable_statistics", trainable_statistics)):
            if not isinstance(value, bool):
                raise TypeError(f"{who}: argument '{arg}' expected a bool, got {value!r}")
        for arg, value in (("moving_mean_name", moving_mean_name), ("moving_variance_name", moving_variance_name)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{who}: argument '{arg}' expected None or a str, got {value!r}")
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout, use_global_stats,
                         dtype=dtype)
        self._act = None if act is None else _legacy_activation(act)
        self._act_name = act
        self._is_test = is_test
        self._trainable_statistics = trainable_statistics
        if moving_mean_name is not None:
            self._mean.name = moving_mean_name
        if moving_variance_name is not None:
            self._variance.name = moving_variance_name

    def forward(self, input: Tensor) -> Tensor:
        """input normalized per channel (and activated, with ``act``)."""
        who = _check_input(self, input, self._ranks)
        out = norm_functional.run_batch_norm(who, input, self._mean, self._variance, self.weight, self.bias,
                                             not self.training, self._momentum, self._epsilon,
                                             self._data_format, self._use_global_stats, self._trainable_statistics)
        return out if self._act is None else self._act(out)

    def extra_repr(self) -> str:
        """Nothing: Paddle's legacy BatchNorm prints as ``BatchNorm()``."""
        return ""


class _InstanceNormBase(Layer):
    _formats = ("NCHW", "NHWC")
    _ranks = (4,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__()
        who = type(self).__name__
        self._num_features = check_positive_int(who, "num_features", num_features)
        self._epsilon = _epsilon(who, epsilon)
        self._momentum = momentum
        self._data_format = _format(who, data_format, self._formats)
        weight_attr = ParamAttr.from_argument(weight_attr, who, "weight_attr")
        bias_attr = ParamAttr.from_argument(bias_attr, who, "bias_attr")
        # Paddle names the weight of the instance norms ``scale``.
        self.scale = self.create_parameter([self._num_features], weight_attr, default_initializer=_init.Constant(1.0))
        self.bias = self.create_parameter([self._num_features], bias_attr, is_bias=True)

    def forward(self, input: Tensor) -> Tensor:
        """input with each sample's channels standardized over their spatial axes."""
        _check_input(self, input, self._ranks)
        return norm_functional.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                                             data_format=self._data_format)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    """Instance normalization over [N, C, L] (``data_format="NCL"``) or [N, L, C],
    or [N, C] (Paddle's ``paddle.nn.InstanceNorm1D``; its weight is ``scale``).

    >>> norm = eager.nn.InstanceNorm1D(3)
    >>> norm(eager.randn([2, 3, 5])).shape
    [2, 3, 5]
    """

    _formats = ("NCL", "NLC")
    _ranks = (2, 3)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCL", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm2D(_InstanceNormBase):
    """Instance normalization over [N, C, H, W] (``data_format="NCHW"``) or NHWC
    (Paddle's ``paddle.nn.InstanceNorm2D``; its weight is ``scale``).

    >>> norm = eager.nn.InstanceNorm2D(3)
    >>> norm(eager.randn([2, 3, 4, 4])).shape
    [2, 3, 4, 4]
    """

    _formats = ("NCHW", "NHWC")
    _ranks = (4,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm3D(_InstanceNormBase):
    """Instance normalization over [N, C, D, H, W] (``data_format="NCDHW"``) or
    NDHWC (Paddle's ``paddle.nn.InstanceNorm3D``; its weight is ``scale``).

    >>> norm = eager.nn.InstanceNorm3D(2)
    >>> norm(eager.randn([1, 2, 3, 3, 3])).shape
    [1, 2, 3, 3, 3]
    """

    _formats = ("NCDHW", "NDHWC")
    _ranks = (5,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class GroupNorm(Layer):
    """Group normalization (Paddle's ``paddle.nn.GroupNorm``): the channels split
    into ``num_groups`` groups, each standardized per sample; weight and bias
    are [num_channels].

    >>> norm = eager.nn.GroupNorm(num_groups=2, num_channels=4)
    >>> norm(eager.randn([3, 4, 5, 5])).shape
    [3, 4, 5, 5]
    """

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__()
        who = type(self).__name__
        self._num_groups = check_positive_int(who, "num_groups", num_groups, ValueError)   # as Paddle's group_norm
        self._num_channels = check_positive_int(who, "num_channels", num_channels)
        if self._num_channels % self._num_groups:
            raise ValueError(f"{who}: argument 'num_groups' ({num_groups}) must divide num_channels "
                             f"({num_channels})")
        self._epsilon = _epsilon(who, epsilon)
        self._data_format = _format(who, data_format, ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"))
        self._name = name
        _affine(self, who, [self._num_channels], weight_attr, bias_attr, fixed_when_false=True)

    def forward(self, input: Tensor) -> Tensor:
        """input normalized per sample and group of channels."""
        who = f"{type(self).__name__}({self._full_name})"
        check_tensor(who, "input", input)
        # Without weight and bias nothing else would compare the channels with num_channels.
        if input.ndim >= 2:
            channels = input.shape[norm_functional.channel_axis(input, self._data_format)]
            if channels != self._num_channels:
                raise ValueError(f"{who}: argument 'input' expected {self._num_channels} channels (num_channels) "
                                 f"in data_format {self._data_format!r}, got shape {input.shape} with {channels}")
        return norm_functional.group_norm(input, self._num_groups, self._epsilon, self.weight, self.bias,
                                          self._data_format)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, epsilon={self._epsilon}"


class SpectralNorm(Layer):
    """Spectral normalization of a weight (Paddle's ``paddle.nn.SpectralNorm``):
    ``forward(weight)`` returns ``weight / sigma``, sigma its largest singular value
    estimated by ``power_iters`` power iterations.

    The weight is seen as a matrix [h, w] with h = weight_shape[dim] (that axis
    moved first, the rest flattened). From the vectors ``weight_u`` [h] and
    ``weight_v`` [w] (parameters drawn from N(0, 1), with stop_gradient), each
    iteration sets ``v = W^T u / (||W^T u|| + eps)``, ``u = W v / (||W v|| + eps)``;
    then ``sigma = u^T W v``. As in Paddle, the iterations start from the stored
    vectors at every call (the layer does not write them back) and the gradient
    treats u and v as constants.

    >>> sn = eager.nn.SpectralNorm([2, 3], power_iters=20)
    >>> w = eager.to_tensor([[3.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    >>> sn(w).numpy().round(4)
    array([[1.    , 0.    , 0.    ],
           [0.    , 0.3333, 0.    ]], dtype=float32)
    """

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__()
        who = type(self).__name__
        if (not isinstance(weight_shape, (list, tuple)) or len(weight_shape) < 2
                or any(isinstance(d, bool) or not isinstance(d, numbers.Integral) or d <= 0 for d in weight_shape)):
            raise ValueError(f"{who}: argument 'weight_shape' expected a list of at least 2 positive ints, got "
                             f"{weight_shape!r}")
        self._weight_shape = [int(d) for d in weight_shape]
        rank = len(self._weight_shape)
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or not -rank <= dim < rank:
            raise ValueError(f"{who}: argument 'dim' expected an int in [{-rank}, {rank}), got {dim!r}")
        self._dim = int(dim) % rank
        if isinstance(power_iters, bool) or not isinstance(power_iters, numbers.Integral) or power_iters < 0:
            raise ValueError(f"{who}: argument 'power_iters' expected an int >= 0, got {power_iters!r}")
        self._power_iters = int(power_iters)
        self._eps = _epsilon(who, eps)
        h = self._weight_shape[self._dim]
        w = int(np.prod(self._weight_shape)) // h
        self._dtype = dtype
        self.weight_u = self.create_parameter([h], dtype=dtype, default_initializer=_init.Normal(0.0, 1.0))
        self.weight_v = self.create_parameter([w], dtype=dtype, default_initializer=_init.Normal(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v.stop_gradient = True

    def forward(self, weight: Tensor) -> Tensor:
        """weight divided by its estimated largest singular value."""
        fn = f"{type(self).__name__}({self._full_name})"
        check_tensor(fn, "weight", weight)
        if weight.shape != self._weight_shape:
            raise ValueError(f"{fn}: argument 'weight' expected shape {self._weight_shape} (weight_shape), got "
                             f"{weight.shape}")
        if weight.dtype != self.weight_u.dtype:
            raise TypeError(f"{fn}: argument 'weight' expected dtype {self.weight_u.dtype}, got {weight.dtype}")
        h = self._weight_shape[self._dim]
        matrix = _F.reshape(_F.moveaxis(weight, [self._dim], [0]), [h, -1])         # [h, w]
        fixed = matrix.detach()
        u, v = self.weight_u.detach(), self.weight_v.detach()

        def normalized(x):
            return _F.divide(x, _F.scale(_F.sqrt(_F.sum(_F.multiply(x, x))), 1.0, self._eps, True))

        for _ in range(self._power_iters):
            v = normalized(_F.matmul(fixed, u, True, False))
            u = normalized(_F.matmul(fixed, v, False, False))
        sigma = _F.sum(_F.multiply(u, _F.matmul(matrix, v, False, False)))           # u^T W v, through W only
        return _F.divide(weight, sigma)


class LocalResponseNorm(Layer):
    """Local response normalization across channels (Paddle's
    ``paddle.nn.LocalResponseNorm``); see eager.nn.functional.local_response_norm.

    >>> lrn = eager.nn.LocalResponseNorm(size=5)
    >>> lrn(eager.randn([2, 8, 4, 4])).shape
    [2, 8, 4, 4]
    """

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        who = type(self).__name__
        self._size = check_positive_int(who, "size", size, ValueError)   # as local_response_norm, Paddle's path
        self._alpha, self._beta, self._k = (check_number(who, arg, value)
                                            for arg, value in (("alpha", alpha), ("beta", beta), ("k", k)))
        self._data_format = _format(who, data_format, ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"))
        self._name = name

    def forward(self, input: Tensor) -> Tensor:
        """input divided by its local channel energy."""
        check_tensor(f"{type(self).__name__}({self._full_name})", "input", input)
        return norm_functional.local_response_norm(input, self._size, self._alpha, self._beta, self._k,
                                                   self._data_format)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        text = f"size={self._size}, alpha={self._alpha}, beta={self._beta}, k={self._k}"
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        return text + name_repr(self._name)


__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "GroupNorm", "InstanceNorm1D",
           "InstanceNorm2D", "InstanceNorm3D", "LayerNorm", "LocalResponseNorm"]
__all__ += ["SpectralNorm"]
