"""Parameter utilities (Paddle's ``paddle.nn.utils``): gradient clipping by norm and value,
parameters <-> one vector, weight and spectral normalization.

The clipping functions change the gradients in place (a SelectedRows gradient,
from ``Embedding(sparse=True)``, is replaced by its merged, clipped rows).
``weight_norm`` and ``spectral_norm`` reparametrize a layer's weight as
Paddle's hooks do: the weight becomes a plain attribute recomputed by a
forward pre-hook from new parameters (``weight_g``/``weight_v``; or
``weight_orig`` with the power-iteration buffers ``weight_u``/``weight_v``), so
gradients flow to those parameters.
"""
from __future__ import annotations

import math
import numbers

from phi import api as phi_api
from phi.common import DataType, TensorKind
from phi.core import SelectedRows
from phi.core.errors import AssertedArgumentError

from ..autograd import no_grad
from ..composite.spine import exactly_equal
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor
from . import conv as _conv
from . import initializer as _init
from .layer import Layer, MemberNameError, Parameter
from .layers import Linear

# -- gradient clipping ------------------------------------------------------------------


def _parameter_list(who: str, parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        params = list(parameters)
    except TypeError:
        raise TypeError(f"{who}: argument 'parameters' expected a Tensor or an iterable of Tensors, got "
                        f"{type(parameters).__name__}") from None
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(f"{who}: argument 'parameters' expected Tensors, got an element of type "
                            f"{type(p).__name__}")
    return params


def _norm_type(who: str, norm_type) -> float:
    """norm_type as a float: one of Paddle 2.6's orders 0, 1, 2 and inf (any other
    order Paddle refuses too)."""
    if (not isinstance(norm_type, numbers.Real) or isinstance(norm_type, bool)
            or norm_type not in (0, 1, 2, math.inf)):
        raise ValueError(f"{who}: argument 'norm_type' expected one of 0, 1, 2 and inf (float('inf')), "
                         f"got {norm_type!r}")
    return float(norm_type)


def _merged_values(grad: Tensor) -> Tensor:
    """The stored values of a gradient: itself when dense, the merged row blocks of a SelectedRows."""
    if grad.impl.kind is TensorKind.DENSE:
        return grad
    return Tensor(phi_api.merge_selected_rows(grad.impl).value)


def _scaled_(param: Tensor, factor: Tensor) -> None:
    """param.grad *= factor, in place for a dense gradient; a SelectedRows gradient
    is replaced by its merged rows times factor."""
    grad = param.grad
    if grad.impl.kind is TensorKind.DENSE:
        _F.multiply_(grad, _F.cast(factor, grad.dtype))
        return
    merged = phi_api.merge_selected_rows(grad.impl)
    value = _F.multiply(Tensor(merged.value), _F.cast(factor, grad.dtype))
    param.grad = Tensor(SelectedRows(merged.rows, value.impl, merged.height))


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients of ``parameters`` in place so that their joint
    ``norm_type``-norm (all gradients as one vector; 'inf' for the largest
    magnitude; 0 for the number of gradients with a nonzero entry, as Paddle's
    norm of the per-gradient norms) is at most ``max_norm``: each is multiplied by
    min(1, max_norm / (total_norm + 1e-6)). Returns the total norm before
    clipping, a 0-d Tensor: float64 if a gradient is float64, else float32. ``error_if_nonfinite=True`` raises if that
    norm is NaN or infinite (which reads it back from the device).

    >>> w = eager.to_tensor([3.0, 4.0], stop_gradient=False)
    >>> (w * w).sum().backward()                      # grad [6, 8], norm 10
    >>> float(eager.nn.utils.clip_grad_norm_([w], 5.0))
    10.0
    >>> w.grad.numpy().round(4)
    array([3., 4.], dtype=float32)
    """
    who = "clip_grad_norm_"
    params = [p for p in _parameter_list(who, parameters) if p.grad is not None]
    if not isinstance(max_norm, numbers.Real) or isinstance(max_norm, bool) or not max_norm >= 0:
        raise ValueError(f"{who}: argument 'max_norm' expected a number >= 0, got {max_norm!r}")
    p = _norm_type(who, norm_type)
    if not isinstance(error_if_nonfinite, bool):
        raise TypeError(f"{who}: argument 'error_if_nonfinite' expected a bool, got {error_if_nonfinite!r}")
    if not params:
        return _F.full([], 0.0, DataType.FLOAT32)
    # Paddle's norm is in the gradients' dtype: float64 ones are not rounded to float32
    wide = DataType.FLOAT64 if any(q.grad.dtype is DataType.FLOAT64 for q in params) else DataType.FLOAT32
    values = [_F.reshape(_F.cast(_merged_values(q.grad), wide), [-1]) for q in params]
    if p == 0:
        # Paddle (and PyTorch) take the norm of the gradients' norms, which for order 0
        # counts the gradients holding a nonzero entry, not the nonzero entries
        counts = [_F.sum(_F.cast(_F.logical_not(exactly_equal(v, _F.full_like(v, 0.0, None))), wide))
                  for v in values]
        held = [_F.cast(_F.greater_than(c, _F.full_like(c, 0.0, None)), wide) for c in counts]
        total = _F.sum(_F.stack(held, 0)) if len(held) > 1 else held[0]
    else:
        flat = _F.concat(values, 0) if len(values) > 1 else values[0]
        if p == math.inf:
            total = _F.amax(_F.abs(flat)) if flat.shape[0] else _F.sum(flat)
        else:
            total = _F.pow(_F.sum(_F.pow(_F.abs(flat), p)), 1.0 / p)
    if error_if_nonfinite and not bool(_F.isfinite(total)):
        raise RuntimeError(f"{who}: the total norm of order {norm_type} of the gradients is {float(total)}; "
                           f"pass error_if_nonfinite=False to clip anyway")
    factor = _F.clip(_F.divide(_F.full_like(total, float(max_norm)), _F.add(total, _F.full_like(total, 1e-6))),
                     None, 1.0)
    for q in params:
        _scaled_(q, factor)
    return total


@no_grad()
def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient of ``parameters`` into [-clip_value, clip_value], in place.

    >>> w = eager.to_tensor([1.0, -2.0], stop_gradient=False)
    >>> (w * 3.0).sum().backward()
    >>> eager.nn.utils.clip_grad_value_([w], 1.0)
    >>> w.grad.numpy()
    array([1., 1.], dtype=float32)
    """
    who = "clip_grad_value_"
    params = [p for p in _parameter_list(who, parameters) if p.grad is not None]
    if not isinstance(clip_value, numbers.Real) or isinstance(clip_value, bool) or not clip_value >= 0:
        raise ValueError(f"{who}: argument 'clip_value' expected a number >= 0, got {clip_value!r}")
    c = float(clip_value)
    for q in params:
        grad = q.grad
        if grad.impl.kind is TensorKind.DENSE:
            phi_api.assign_out_(_F.clip(grad, -c, c).impl, grad.impl)
        else:  # repeated rows add up first: the sum is what gets clamped
            merged = phi_api.merge_selected_rows(grad.impl)
            value = _F.clip(Tensor(merged.value), -c, c)
            q.grad = Tensor(SelectedRows(merged.rows, value.impl, merged.height))


# -- parameters <-> one vector --------------------------------------------------------------

def parameters_to_vector(parameters, name=None) -> Tensor:
    """The parameters flattened and joined into one 1-D Tensor (a copy, differentiable).

    >>> net = eager.nn.Linear(2, 3)
    >>> eager.nn.utils.parameters_to_vector(net.parameters()).shape
    [9]
    """
    params = _parameter_list("parameters_to_vector", parameters)
    if not params:
        raise ValueError("parameters_to_vector: argument 'parameters' is empty")
    _same_dtype_and_place("parameters_to_vector", params)
    return _F.concat([_F.reshape(p, [-1]) for p in params], 0)


@no_grad()
def vector_to_parameters(vec, parameters, name=None) -> None:
    """Writes consecutive slices of the 1-D ``vec`` into ``parameters``, in place
    (each keeps its buffer and identity); ``vec`` must have exactly their total size.

    >>> net = eager.nn.Linear(2, 3)
    >>> eager.nn.utils.vector_to_parameters(eager.zeros([9]), net.parameters())
    >>> float(net.weight.abs().sum())
    0.0
    """
    who = "vector_to_parameters"
    params = _parameter_list(who, parameters)
    if not isinstance(vec, Tensor):
        raise TypeError(f"{who}: argument 'vec' expected a 1-D Tensor, got {type(vec).__name__}")
    total = sum(p.size for p in params)
    if len(vec.shape) != 1 or vec.shape[0] != total:
        raise ValueError(f"{who}: argument 'vec' expected shape [{total}] (the parameters' total size), "
                         f"got {vec.shape}")
    _same_dtype_and_place(who, params)
    if params and vec.dtype is not params[0].dtype:
        raise TypeError(f"{who}: argument 'vec' expected dtype {params[0].dtype} like the parameters, "
                        f"got {vec.dtype}")
    pieces = _F.split(vec, [p.size for p in params], 0) if params else []
    staged = [(p, _F.reshape(piece, p.shape)) for p, piece in zip(params, pieces)]
    for p, value in staged:
        phi_api.assign_out_(value.impl, p.impl)


def _same_dtype_and_place(who: str, params) -> None:
    first = params[0]
    for p in params[1:]:
        if p.dtype is not first.dtype or p.place != first.place:
            raise TypeError(f"{who}: every parameter must have one dtype and place, got {first.dtype} on "
                            f"{first.place} and {p.dtype} on {p.place}")


# -- weight normalization -------------------------------------------------------------------

def _norm_except_dim(w: Tensor, dim: int) -> Tensor:
    """sqrt(sum(w ** 2) + 1e-12) over every axis but ``dim`` (a 1-D tensor of
    w.shape[dim]); over all of w when dim is -1 (Paddle's norm_except_dim, whose
    l2_norm adds its epsilon inside the root)."""
    squares = _F.multiply(w, w)
    total = _F.sum(squares) if dim == -1 else _F.sum(squares, [a for a in range(len(w.shape)) if a != dim])
    return _F.sqrt(_F.add(total, _F.full_like(total, 1e-12)))


def _along(g: Tensor, dim: int, ndim: int) -> Tensor:
    """g (of shape [n]) shaped to broadcast along axis dim of an ndim-d tensor."""
    if dim == -1:
        return g
    shape = [1] * ndim
    shape[dim] = -1
    return _F.reshape(g, shape)


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm`: weight = g * v / ||v|| (the norm
    over every axis but ``dim``; over all of v for dim -1), a zero slice of v giving
    zeros (Paddle's normalize divides by at least 1e-12), not 0 / 0."""

    def __init__(self, name: str, dim: int):
        self.name, self.dim = name, dim

    def compute_weight(self, layer: Layer) -> Tensor:
        g = getattr(layer, self.name + "_g")
        v = getattr(layer, self.name + "_v")
        ndim = len(v.shape)
        return _F.multiply(v, _along(_F.divide(g, _norm_except_dim(v, self.dim)), self.dim, ndim))

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer))


def _hook_of(layer: Layer, kind: type, name: str):
    for key, hook in layer._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            return key, hook
    return None, None


def weight_norm(layer: Layer, name: str = "weight", dim=0) -> Layer:
    """Reparametrizes ``layer.<name>`` as g * v / ||v|| (Paddle's weight_norm):
    the parameter is replaced by ``<name>_g`` (the norms over every axis but
    ``dim``: shape [w.shape[dim]]; 0-d for dim=None or -1) and
    ``<name>_v`` (the direction, w's shape), and a forward pre-hook recomputes
    ``<name>`` before each call. Returns the layer.

    >>> fc = eager.nn.utils.weight_norm(eager.nn.Linear(3, 4), dim=1)
    >>> sorted(n for n, _ in fc.named_parameters())
    ['bias', 'weight_g', 'weight_v']
    """
    who = "weight_norm"
    if not isinstance(layer, Layer):
        raise TypeError(f"{who}: argument 'layer' expected a Layer, got {type(layer).__name__}")
    if _hook_of(layer, WeightNorm, name)[1] is not None:
        raise RuntimeError(f"{who}: {name!r} of this layer is already weight-normalized")
    w = layer._parameters.get(name) if isinstance(name, str) else None
    if w is None:
        raise MemberNameError(f"{who}: layer {type(layer).__name__} has no parameter {name!r}")
    ndim = len(w.shape)
    if dim is None:
        dim = -1
    if not isinstance(dim, numbers.Integral) or isinstance(dim, bool):
        raise TypeError(f"{who}: argument 'dim' expected None or an int, got {dim!r}")
    if not -ndim <= dim < ndim:  # Paddle asserts it: AssertedArgumentError is that and a ValueError
        raise AssertedArgumentError(f"{who}: argument 'dim' expected None or an int in [{-ndim}, {ndim}), "
                                    f"got {dim!r}")
    dim = -1 if dim == -1 else int(dim) % ndim
    hook = WeightNorm(name, dim)
    with no_grad():
        g_value = _norm_except_dim(w, dim)  # 0-d for dim -1, as Paddle 2.6's weight_g
    del layer._parameters[name]
    layer.add_parameter(name + "_v", _new_parameter(w, w))
    layer.add_parameter(name + "_g", _new_parameter(g_value, w))
    setattr(layer, name, hook.compute_weight(layer))
    layer.register_forward_pre_hook(hook)
    return layer


def _new_parameter(value: Tensor, like: Parameter) -> Parameter:
    """A Parameter holding a copy of value, with like's training attributes."""
    return Parameter(value, trainable=not like.stop_gradient,
                     learning_rate=getattr(like, "optimize_attr", {}).get("learning_rate", 1.0),
                     need_clip=getattr(like, "need_clip", True), regularizer=getattr(like, "regularizer", None))


def remove_weight_norm(layer: Layer, name: str = "weight") -> Layer:
    """Undoes :func:`weight_norm`: ``<name>`` is a Parameter again, holding the
    current g * v / ||v||; ``<name>_g``, ``<name>_v`` and the hook are removed.

    >>> fc = eager.nn.utils.remove_weight_norm(eager.nn.utils.weight_norm(eager.nn.Linear(3, 4)))
    >>> sorted(n for n, _ in fc.named_parameters())
    ['bias', 'weight']
    """
    if not isinstance(layer, Layer):
        raise TypeError(f"remove_weight_norm: argument 'layer' expected a Layer, got {type(layer).__name__}")
    key, hook = _hook_of(layer, WeightNorm, name)
    if hook is None:
        raise ValueError(f"remove_weight_norm: {name!r} of layer {type(layer).__name__} is not weight-normalized")
    with no_grad():
        weight = hook.compute_weight(layer)
    v = layer._parameters[name + "_v"]
    del layer._forward_pre_hooks[key]
    del layer._parameters[name + "_g"]
    del layer._parameters[name + "_v"]
    if hasattr(layer, name):  # the hook's computed weight (a buffer or a plain attribute)
        delattr(layer, name)
    layer.add_parameter(name, _new_parameter(weight, v))
    return layer


# -- spectral normalization ---------------------------------------------------------------

def _normalized(x: Tensor, eps: float) -> Tensor:
    """x / max(||x||, eps)."""
    norm = _F.sqrt(_F.sum(_F.multiply(x, x)))
    return _F.divide(x, _F.maximum(norm, _F.full_like(norm, eps)))


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm`: weight = weight_orig / sigma,
    sigma = u . (W v) with W the weight as a matrix [shape[dim], -1] and u, v
    refined by ``n_power_iterations`` steps of power iteration per call in training."""

    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float):
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def weight_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            order = [self.dim] + [a for a in range(len(weight.shape)) if a != self.dim]
            weight = _F.transpose(weight, order)
        return _F.reshape(weight, [weight.shape[0], -1])

    def compute_weight(self, layer: Layer, do_power_iteration: bool) -> Tensor:
        weight = getattr(layer, self.name + "_orig")
        u = getattr(layer, self.name + "_u")
        v = getattr(layer, self.name + "_v")
        matrix = self.weight_matrix(weight)
        if do_power_iteration and self.n_power_iterations > 0:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    phi_api.assign_out_(_normalized(_F.mv(_F.t(matrix), u), self.eps).impl, v.impl)
                    phi_api.assign_out_(_normalized(_F.mv(matrix, v), self.eps).impl, u.impl)
            # Copies: the next call updates the buffers in place, which must not
            # change what this call's graph saved.
            u, v = _F.assign(u), _F.assign(v)
        sigma = _F.dot(u, _F.mv(matrix, v))
        return _F.divide(weight, sigma)

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer, do_power_iteration=layer.training))


def _transposed_layers() -> tuple:
    """The layers whose weight keeps its output axis at 1 (Paddle's spectral_norm
    default dim=1): Linear ([in, out]) and the transposed convolutions, where they exist."""
    names = ("Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose")
    return (Linear,) + tuple(getattr(_conv, n) for n in names if hasattr(_conv, n))


def spectral_norm(layer: Layer, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim=None) -> Layer:
    """Divides ``layer.<name>`` by its largest singular value (estimated by power
    iteration), as Paddle's spectral_norm hook: the parameter becomes
    ``<name>_orig``, the buffers ``<name>_u`` and ``<name>_v`` hold the singular
    vector estimates (random unit vectors at first), and a forward pre-hook
    recomputes ``<name>`` before each call, iterating only in training mode.
    ``dim``: the weight's output axis, by default 1 for Linear and transposed
    convolutions, else 0. Returns the layer.

    >>> eager.seed(0)
    >>> fc = eager.nn.utils.spectral_norm(eager.nn.Linear(3, 4), n_power_iterations=20)
    >>> y = fc(eager.ones([1, 3]))
    >>> bool(abs(np.linalg.svd(fc.weight.numpy(), compute_uv=False)[0] - 1) < 1e-3)
    True
    """
    who = "spectral_norm"
    if not isinstance(layer, Layer):
        raise TypeError(f"{who}: argument 'layer' expected a Layer, got {type(layer).__name__}")
    if _hook_of(layer, SpectralNorm, name)[1] is not None:
        raise RuntimeError(f"{who}: {name!r} of this layer already has spectral normalization")
    weight = layer._parameters.get(name) if isinstance(name, str) else None
    if weight is None:
        raise MemberNameError(f"{who}: layer {type(layer).__name__} has no parameter {name!r}")
    if not isinstance(n_power_iterations, numbers.Integral) or isinstance(n_power_iterations, bool) \
            or n_power_iterations < 0:
        raise ValueError(f"{who}: argument 'n_power_iterations' expected an int >= 0, got {n_power_iterations!r}")
    if not isinstance(eps, numbers.Real) or isinstance(eps, bool) or not eps > 0:
        raise ValueError(f"{who}: argument 'eps' expected a positive number, got {eps!r}")
    ndim = len(weight.shape)
    if dim is None:
        dim = 1 if isinstance(layer, _transposed_layers()) else 0
    if not isinstance(dim, numbers.Integral) or isinstance(dim, bool) or not -ndim <= dim < ndim:
        raise ValueError(f"{who}: argument 'dim' expected None or an int in [{-ndim}, {ndim}), got {dim!r}")
    hook = SpectralNorm(name, int(n_power_iterations), int(dim) % ndim, float(eps))
    with no_grad():
        h, w = hook.weight_matrix(weight).shape
        draw = _init.Normal(0.0, 1.0)  # the initializers' generator: follows eager.seed
        u = _normalized(to_tensor(draw((h,), weight.dtype), place=weight.place), hook.eps)
        v = _normalized(to_tensor(draw((w,), weight.dtype), place=weight.place), hook.eps)
    del layer._parameters[name]
    layer.add_parameter(name + "_orig", weight)
    setattr(layer, name, _F.scale(weight, 1.0))
    layer.register_buffer(name + "_u", u)
    layer.register_buffer(name + "_v", v)
    layer.register_forward_pre_hook(hook)
    return layer


__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "remove_weight_norm", "spectral_norm",
           "vector_to_parameters", "weight_norm"]
