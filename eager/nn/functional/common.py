"""Linear maps and distances: linear, bilinear, cosine_similarity, pairwise_distance (Paddle's ``paddle.nn.functional``).

Compositions of differentiable ops (matmul, multiply, sum, norm), so their
gradients of every order come from those ops.

Paddle's ``paddle.nn.functional.common`` file also holds dropout, pad,
interpolate, unfold, label_smooth and a few more, which eager defines in other
modules of this package: as attributes of this module they are looked up on
the package on first use (``from eager.nn.functional.common import dropout``
works), since importing them here would make an import cycle.
"""
from __future__ import annotations

import functools
import importlib
import numbers

from phi.core import DenseTensor
from phi.core.errors import PhiError
from phi.core.kernel_registry import SignatureCache
from phi.infermeta.checks import broadcast_dims

from ...arguments import to_bool
from ...composite.spine import reshape_exactly
from ...generated import forward_api as _F
from ...tensor import Tensor
from ...type_promotion import promoted_dtype
from .checks import check_axis, check_float, dtypes_differ


def _same_dtype(fn: str, a_name: str, a: Tensor, b_name: str, b: Tensor) -> None:
    if dtypes_differ(a, b):
        raise TypeError(f"{fn}: argument '{b_name}' expected the dtype of '{a_name}' {a.dtype}, got {b.dtype}")


def linear(x: Tensor, weight: Tensor, bias=None, name=None) -> Tensor:
    """x @ weight + bias, with weight [in_features, out_features] (Paddle's
    layout, the transpose of PyTorch's) and bias [out_features] (or any shape that
    broadcasts with the product, as Paddle adds it).

    One fused op (``linear``): the bias is added in place into the product, and
    one grad node gives the gradients of x, weight and bias in one kernel call.

    >>> x = eager.ones([3, 4]); w = eager.ones([4, 2]); b = eager.to_tensor([1.0, -1.0])
    >>> eager.nn.functional.linear(x, w, b).tolist()
    [[5.0, 3.0], [5.0, 3.0], [5.0, 3.0]]
    """
    signature = _linear_signature(x, weight, bias)
    if signature in _LINEAR_CHECKED:  # these dtypes and shapes passed every check below before
        return _F.linear(x, weight, bias)
    # complex: Paddle's linear is a matmul and an add, which take complex
    check_float("linear", "x", x, complex_ok=True)
    check_float("linear", "weight", weight, complex_ok=True)
    if bias is not None:
        check_float("linear", "bias", bias, complex_ok=True)
    if (dtypes_differ(x, weight) or (bias is not None and dtypes_differ(x, bias))) \
            and any(t is not None and t.dtype.is_complex for t in (x, weight, bias)):
        return linear(*_complex_operands(x, weight, bias))
    _same_dtype("linear", "x", x, "weight", weight)
    if weight.ndim != 2:
        raise ValueError(f"linear: argument 'weight' expected a 2-d tensor [in_features, out_features], got shape "
                         f"{weight.shape}")
    if x.ndim < 1 or x.shape[-1] != weight.shape[0]:
        raise ValueError(f"linear: argument 'x' expected a last dimension of {weight.shape[0]} (weight's "
                         f"in_features), got shape {x.shape}")
    if bias is not None:
        _same_dtype("linear", "x", x, "bias", bias)
        if bias.shape != [weight.shape[1]]:
            return _broadcast_bias_linear(x, weight, bias)
    if signature is not None:
        _LINEAR_CHECKED.remember(signature, True)
    return _F.linear(x, weight, bias)


def _complex_operands(*tensors):
    """The tensors (None left as is) cast to the complex dtype wide enough for all:
    Paddle's linear is a matmul and an add, which promote a floating tensor meeting a
    complex one (a complex64 x with a float32 weight gives complex64). Each cast is
    recorded, so each gradient comes back in its input's dtype."""
    target = functools.reduce(promoted_dtype, (t.dtype for t in tensors if t is not None))
    return tuple(t if t is None or t.dtype is target else t.astype(target) for t in tensors)


def _broadcast_bias_linear(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    """linear with a bias of another shape than [out_features] (0-d, [1], [N, out], ...),
    which Paddle adds with broadcasting: the product, then an add that broadcasts."""
    product_shape = (*x.shape[:-1], weight.shape[1])
    try:
        broadcast_dims("x @ weight", product_shape, "bias", tuple(bias.shape))
    except PhiError as error:
        raise ValueError(f"linear: argument 'bias' expected a shape that broadcasts with {list(product_shape)} "
                         f"(x @ weight), got {bias.shape}") from error
    return _F.add(_F.linear(x, weight, None), bias)


# What linear's checks read, for calls that passed them: x's dtype and last
# dimension, weight's and bias's dtypes and shapes (bounded, oldest dropped first).
_LINEAR_CHECKED = SignatureCache("nn.functional.linear")


def _linear_signature(x, weight, bias):
    """(x dtype, x's last dimension, weight dtype and shape, bias dtype and shape or
    None) for Tensors over DenseTensors; None for anything else (every check runs)."""
    if isinstance(x, Tensor) and isinstance(weight, Tensor):
        xi, wi = x.impl, weight.impl
        if type(xi) is DenseTensor and type(wi) is DenseTensor:
            xa, wa = xi.array, wi.array
            if bias is None:
                return xa.dtype, xa.shape[-1:], wa.dtype, wa.shape, None
            if isinstance(bias, Tensor) and type(bias.impl) is DenseTensor:
                ba = bias.impl.array
                return xa.dtype, xa.shape[-1:], wa.dtype, wa.shape, (ba.dtype, ba.shape)
    return None


def bilinear(x1: Tensor, x2: Tensor, weight: Tensor, bias=None, name=None) -> Tensor:
    """out[n, o] = sum_ij x1[n, i] * weight[o, i, j] * x2[n, j] + bias[o], with x1
    [N, in1], x2 [N, in2], weight [out, in1, in2] and bias [1, out] (or [out]).

    >>> x1 = eager.ones([2, 3]); x2 = eager.ones([2, 4]); w = eager.ones([5, 3, 4])
    >>> eager.nn.functional.bilinear(x1, x2, w).shape
    [2, 5]
    """
    fn = "bilinear"
    for arg, value in (("x1", x1), ("x2", x2), ("weight", weight)):
        check_float(fn, arg, value)
    _same_dtype(fn, "x1", x1, "x2", x2)
    _same_dtype(fn, "x1", x1, "weight", weight)
    if weight.ndim != 3:
        raise ValueError(f"{fn}: argument 'weight' expected a 3-d tensor [out_features, in1_features, "
                         f"in2_features], got shape {weight.shape}")
    out_features, in1, in2 = weight.shape
    if x1.ndim != 2 or x1.shape[1] != in1:
        raise ValueError(f"{fn}: argument 'x1' expected shape [N, {in1}] (weight's in1_features), got {x1.shape}")
    if x2.ndim != 2 or x2.shape[1] != in2 or x2.shape[0] != x1.shape[0]:
        raise ValueError(f"{fn}: argument 'x2' expected shape [{x1.shape[0]}, {in2}] (x1's batch, weight's "
                         f"in2_features), got {x2.shape}")
    if bias is not None:
        check_float(fn, "bias", bias)
        _same_dtype(fn, "x1", x1, "bias", bias)
        if bias.shape not in ([out_features], [1, out_features]):
            raise ValueError(f"{fn}: argument 'bias' expected shape [1, {out_features}], got {bias.shape}")
    # x1 @ W as [in1, out * in2], then the in2 axis contracted with x2 (reshape_exactly:
    # any of the sizes may be 0, which _F.reshape would read as "keep this dimension")
    w = reshape_exactly(_F.transpose(weight, [1, 0, 2]), [in1, out_features * in2])
    left = reshape_exactly(_F.matmul(x1, w), [x1.shape[0], out_features, in2])
    out = _F.sum(_F.multiply(left, _F.unsqueeze(x2, [1])), [2])
    if bias is not None:
        out = _F.add(out, bias)
    return out


def cosine_similarity(x1: Tensor, x2: Tensor, axis: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / sqrt(max(sum(x1 ** 2) * sum(x2 ** 2), eps ** 2)) along axis,
    x1 and x2 broadcasting against each other (Paddle's formula, with both
    broadcast before the sums: the cosine of the broadcast vectors, see docs/nn.md).
    Two float dtypes promote as in ``multiply``.

    >>> x1 = eager.to_tensor([[1.0, 0.0], [1.0, 1.0]]); x2 = eager.to_tensor([[0.0, 1.0], [2.0, 2.0]])
    >>> [round(v, 6) for v in eager.nn.functional.cosine_similarity(x1, x2).tolist()]
    [0.0, 1.0]
    """
    fn = "cosine_similarity"
    check_float(fn, "x1", x1)
    check_float(fn, "x2", x2)
    if not isinstance(eps, numbers.Real) or isinstance(eps, bool):
        raise TypeError(f"{fn}: argument 'eps' expected a non-negative number, got {eps!r}")
    if eps < 0:
        raise ValueError(f"{fn}: argument 'eps' expected a non-negative number, got {eps!r}")
    try:
        product = _F.multiply(x1, x2)
    except ValueError as error:
        raise ValueError(f"{fn}: arguments 'x1' {x1.shape} and 'x2' {x2.shape} do not broadcast") from error
    axis = check_axis(fn, product, axis)
    if x1.shape != product.shape:
        x1 = _F.broadcast_to(x1, product.shape)
    if x2.shape != product.shape:
        x2 = _F.broadcast_to(x2, product.shape)
    w12 = _F.sum(product, [axis])
    w1 = _F.sum(_F.multiply(x1, x1), [axis])
    w2 = _F.sum(_F.multiply(x2, x2), [axis])
    n12 = _F.sqrt(_F.clip(_F.multiply(w1, w2), float(eps) ** 2, None))
    return _F.divide(w12, n12)


def pairwise_distance(x: Tensor, y: Tensor, p: float = 2.0, epsilon: float = 1e-6, keepdim: bool = False,
                      name=None) -> Tensor:
    """The p-norm of x - y + epsilon over the last axis: x and y are [N, D] (or
    [D], or any shapes that broadcast, as Paddle's p_norm takes them; two float
    dtypes promote as in ``subtract``); p may be inf, -inf or 0 as in norm.

    >>> x = eager.to_tensor([[3.0, 0.0]]); y = eager.to_tensor([[0.0, 4.0]])
    >>> [round(v, 4) for v in eager.nn.functional.pairwise_distance(x, y, epsilon=0.0).tolist()]
    [5.0]
    """
    fn = "pairwise_distance"
    check_float(fn, "x", x)
    check_float(fn, "y", y)
    try:
        broadcast_dims("x", tuple(x.shape), "y", tuple(y.shape))
    except PhiError:
        raise ValueError(f"{fn}: argument 'y' expected a shape broadcasting with x's {x.shape}, got {y.shape}") from None
    if not isinstance(p, numbers.Real) or isinstance(p, bool):
        raise TypeError(f"{fn}: argument 'p' expected a number, got {p!r}")
    if not isinstance(epsilon, numbers.Real) or isinstance(epsilon, bool):
        raise TypeError(f"{fn}: argument 'epsilon' expected a number, got {epsilon!r}")
    keepdim = to_bool(keepdim, fn, "keepdim")
    difference = _F.scale(_F.subtract(x, y), 1.0, float(epsilon), True)
    return _F.norm(difference, float(p), [-1], keepdim)


__all__ = ["bilinear", "cosine_similarity", "linear", "pairwise_distance"]


# The functions Paddle's nn/functional/common.py defines that live elsewhere in eager (see the docstring).
_PADDLE_COMMON = frozenset({"alpha_dropout", "class_center_sample", "dropout", "dropout2d", "dropout3d", "fold",
                            "interpolate", "label_smooth", "pad", "unfold", "upsample", "zeropad2d"})


def __getattr__(name):
    if name in _PADDLE_COMMON:
        return getattr(importlib.import_module(__package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
