"""Identity, Flatten, Unflatten, Bilinear and distance layers (Paddle's ``paddle.nn``)."""
from __future__ import annotations

import numbers

from phi.core.errors import AssertedArgumentError

from ..generated import forward_api as _F
from ..tensor import Tensor
from .functional import common as common_functional
from .functional.checks import check_axis, check_positive_int, check_tensor
from .layer import Layer, ParamAttr, name_repr


def _int(who: str, arg: str, value) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{who}: argument '{arg}' expected an int, got {value!r}")
    return int(value)


class Identity(Layer):
    """Returns its input unchanged; any arguments are accepted and ignored.

    >>> eager.nn.Identity(54, unused="argument")(eager.ones([2, 3])).shape
    [2, 3]
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        """input, unchanged."""
        return input


class Flatten(Layer):
    """Flattens the axes start_axis..stop_axis (inclusive) into one.

    >>> eager.nn.Flatten()(eager.ones([2, 3, 4, 5])).shape
    [2, 60]
    """

    def __init__(self, start_axis: int = 1, stop_axis: int = -1):
        super().__init__()
        self.start_axis = _int("Flatten", "start_axis", start_axis)
        self.stop_axis = _int("Flatten", "stop_axis", stop_axis)

    def forward(self, input: Tensor) -> Tensor:
        """input with axes start_axis..stop_axis merged."""
        check_tensor("Flatten", "input", input)
        return _F.flatten(input, self.start_axis, self.stop_axis)


class Unflatten(Layer):
    """Splits axis ``axis`` into ``shape`` (a list or tuple of ints, one may be -1).

    >>> eager.nn.Unflatten(1, [2, 3])(eager.ones([4, 6, 5])).shape
    [4, 2, 3, 5]
    """

    def __init__(self, axis: int, shape, name=None):
        super().__init__()
        self.axis = _int("Unflatten", "axis", axis)
        if (not isinstance(shape, (list, tuple)) or not shape
                or any(not isinstance(s, numbers.Integral) or isinstance(s, bool) or (s <= 0 and s != -1)
                       for s in shape) or list(shape).count(-1) > 1):
            raise ValueError(f"Unflatten: argument 'shape' expected a non-empty list of positive ints (at most one "
                             f"-1), got {shape!r}")
        self.shape = [int(s) for s in shape]
        self._given_shape, self.name = shape, name  # repr shows the shape as given (Paddle's: a tuple stays one)

    def forward(self, input: Tensor) -> Tensor:
        """input with axis ``axis`` reshaped to ``shape``."""
        check_tensor("Unflatten", "input", input)
        axis = check_axis("Unflatten", input, self.axis)
        size = input.shape[axis]
        known = 1
        for s in self.shape:
            known *= s if s != -1 else 1
        if (-1 in self.shape and (known == 0 or size % known)) or (-1 not in self.shape and known != size):
            raise ValueError(f"Unflatten: argument 'shape' {self.shape} does not split axis {axis} of size {size} "
                             f"(input shape {input.shape})")
        return _F.reshape(input, input.shape[:axis] + self.shape + input.shape[axis + 1:])

    def extra_repr(self) -> str:
        """The axis and shape, shown by repr."""
        return f"axis={self.axis}, shape={self._given_shape}{name_repr(self.name)}"


class Bilinear(Layer):
    """out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[o], weight [out_features,
    in1_features, in2_features] and bias [1, out_features] (Paddle's shapes).

    >>> layer = eager.nn.Bilinear(3, 4, 5)
    >>> layer(eager.ones([2, 3]), eager.ones([2, 4])).shape
    [2, 5]
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__()
        for arg, value in (("in1_features", in1_features), ("in2_features", in2_features),
                           ("out_features", out_features)):
            if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value <= 0:
                # Paddle asserts the weight's dims > 0: its AssertionError, and a ValueError
                raise AssertedArgumentError(f"Bilinear: argument '{arg}' expected a positive int, got {value!r}")
        self._in1_features = check_positive_int("Bilinear", "in1_features", in1_features)
        self._in2_features = check_positive_int("Bilinear", "in2_features", in2_features)
        self._out_features = check_positive_int("Bilinear", "out_features", out_features)
        self._name = name
        weight_attr = ParamAttr.from_argument(weight_attr, "Bilinear", "weight_attr")
        if weight_attr is False:
            raise ValueError("Bilinear: argument 'weight_attr' cannot be False: a Bilinear layer needs a weight")
        self.weight = self.create_parameter([self._out_features, self._in1_features, self._in2_features],
                                            weight_attr)
        self.bias = self.create_parameter([1, self._out_features],
                                          ParamAttr.from_argument(bias_attr, "Bilinear", "bias_attr"), is_bias=True)

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """bilinear(x1, x2, weight, bias)."""
        return common_functional.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self._dtype.name.lower()}{name_repr(self._name)}")


class CosineSimilarity(Layer):
    """cosine_similarity(x1, x2, axis, eps).

    >>> eager.nn.CosineSimilarity(axis=0)(eager.ones([3, 2]), eager.ones([3, 2])).tolist()
    [1.0, 1.0]
    """

    def __init__(self, axis: int = 1, eps: float = 1e-8):
        super().__init__()
        self._axis = _int("CosineSimilarity", "axis", axis)
        self._eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """The cosine similarity of x1 and x2 along axis."""
        return common_functional.cosine_similarity(x1, x2, self._axis, self._eps)

    def extra_repr(self) -> str:
        """axis and eps, shown by repr."""
        return f"axis={self._axis}, eps={self._eps}"


class PairwiseDistance(Layer):
    """pairwise_distance(x, y, p, epsilon, keepdim): the p-norm of x - y + epsilon
    over the last axis.

    >>> eager.nn.PairwiseDistance()(eager.ones([4, 3]), eager.zeros([4, 3])).shape
    [4]
    """

    def __init__(self, p: float = 2.0, epsilon: float = 1e-6, keepdim: bool = False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim, self.name = p, epsilon, keepdim, name

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        """The distance of each row of x to the matching row of y."""
        return common_functional.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim)

    def extra_repr(self) -> str:
        """p, and epsilon and keepdim where not the defaults, shown by repr (as Paddle's)."""
        text = f"p={self.p}"
        if self.epsilon != 1e-6:
            text += f", epsilon={self.epsilon}"
        if self.keepdim is not False:
            text += f", keepdim={self.keepdim}"
        return text + name_repr(self.name)


__all__ = ["Bilinear", "CosineSimilarity", "Flatten", "Identity", "PairwiseDistance", "Unflatten"]
