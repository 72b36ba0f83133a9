"""Automatic SParsity training in the dynamic graph (Paddle's ``paddle.incubate.asp``
workflow): ``decorate`` an optimizer, ``prune_model`` a model to the ``n:m``
pattern, then train; after every ``step()`` the pruned weights are multiplied
by their masks again, so they stay sparse.

Which parameters take part is decided by name, as in Paddle: a weight
(``<layer>_<k>.w_<j>``) of a supported layer kind (``linear``, ``fc``,
``conv2d`` and whatever :func:`add_supported_layer` adds), unless excluded by
:func:`set_excluded_layers`. Kinds compare without underscores, so eager's
``conv2_d_0.w_0`` is a ``conv2d`` weight as Paddle's ``conv2d_0.w_0`` is.

The masks live in one registry for the process (Paddle keeps them per static
Program; the dynamic graph uses its one default program, so the same).
"""
from __future__ import annotations

import re
import warnings

import numpy as np

from ...autograd.grad_mode import no_grad
from ...creation import to_tensor
from ...nn.layer import Layer
from ...tensor import Tensor
from .masks import CheckMethod, MaskAlgo, check_sparsity, create_mask

_MASK_SUFFIX = "asp_mask"
_ALGOS = {"mask_1d": MaskAlgo.MASK_1D, "mask_2d_greedy": MaskAlgo.MASK_2D_GREEDY,
          "mask_2d_best": MaskAlgo.MASK_2D_BEST}


def default_pruning(weight, m, n, func_name, param_name):
    """Prunes a weight array along its input dimension (the second-to-last axis
    of a Linear's ``[in, out]`` weight, the input channels of a Conv2D's
    ``[out, in, kh, kw]``): returns ``(pruned weight, mask)``, both NumPy arrays
    shaped like ``weight``. The signature every pruning function has (see
    :func:`add_supported_layer`). A weight whose input dimension is shorter than
    m stays dense (mask of ones), with a warning, as in Paddle: cuSparseLt cannot
    run it sparse.

    >>> w = np.arange(1.0, 9.0).reshape(4, 2)
    >>> default_pruning(w, 4, 2, MaskAlgo.MASK_1D, "linear_0.w_0")[1].T
    array([[0., 0., 1., 1.],
           [0., 0., 1., 1.]])
    """
    shape = np.shape(weight)
    axis = {2: 0, 4: 1}.get(len(shape))
    if axis is not None and shape[axis] < m:
        warnings.warn(f"prune_model: {param_name} is not pruned because dimension {axis} of {list(shape)} is "
                      f"smaller than m={m}", stacklevel=4)
        return np.array(weight, copy=True), np.ones_like(weight)
    mask = create_mask(weight.T, func_name=func_name, n=n, m=m).T
    pruned = np.multiply(weight, mask)
    if not check_sparsity(pruned.T, CheckMethod.get_checking_method(func_name), n, m):
        raise ValueError(f"prune_model: the pruned {param_name} does not keep the {n}:{m} pattern")
    return pruned, mask


class _Registry:
    """The supported layer kinds, the excluded names and the masks of decorated parameters."""

    def __init__(self):
        self.supported = {"fc": default_pruning, "linear": default_pruning, "conv2d": default_pruning}
        self.excluded = set()
        self.masks = {}          # parameter name -> (parameter, mask Tensor)


_REGISTRY = _Registry()


def _kind(name: str) -> str:
    return name.replace("_", "").lower()


def _snake(class_name: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", class_name).lower()


def _no_program(op: str, main_program) -> None:
    if main_program is not None:
        raise ValueError(f"incubate.asp.{op}: argument 'main_program' expected None (eager has no static-graph "
                         f"Program), got {type(main_program).__name__}")


def _pruning_func(param_name: str):
    """The pruning function of a supported weight, or None when it takes no part."""
    if _MASK_SUFFIX in param_name:
        return None
    layer, _, suffix = param_name.partition(".")
    if not suffix.startswith("w_"):
        return None
    if param_name in _REGISTRY.excluded or layer in _REGISTRY.excluded:
        return None
    kind = _kind(layer.rsplit("_", 1)[0] if "_" in layer else layer)
    for name, func in _REGISTRY.supported.items():
        if _kind(name) in (kind, _kind(layer)):
            return func
    return None


def add_supported_layer(layer, pruning_func=None):
    """Makes a layer kind take part in ASP: ``layer`` is a name (``"linear"``), a
    Layer subclass or a Layer; ``pruning_func(weight, m, n, func_name,
    param_name) -> (pruned, mask)`` prunes its weights (default:
    :func:`default_pruning`).

    >>> add_supported_layer("my_dense")
    """
    if isinstance(layer, str):
        name = layer
    elif isinstance(layer, Layer):
        name = _snake(type(layer).__name__)
    elif isinstance(layer, type) and issubclass(layer, Layer):
        name = _snake(layer.__name__)
    else:
        raise TypeError(f"incubate.asp.add_supported_layer: argument 'layer' expected a layer name, a Layer "
                        f"subclass or a Layer, got {type(layer).__name__}")
    if pruning_func is not None and not callable(pruning_func):
        raise TypeError(f"incubate.asp.add_supported_layer: argument 'pruning_func' expected a callable or None, "
                        f"got {type(pruning_func).__name__}")
    _REGISTRY.supported[name] = pruning_func or default_pruning


def set_excluded_layers(param_names, main_program=None):
    """Leaves the named parameters (or every parameter of the named layers, by
    ``layer.full_name()``) out of ASP. Call it before :func:`decorate`.

    >>> set_excluded_layers(["linear_7"]); reset_excluded_layers()
    """
    _no_program("set_excluded_layers", main_program)
    if isinstance(param_names, str) or not isinstance(param_names, (list, tuple)) or \
            not all(isinstance(name, str) for name in param_names):
        raise TypeError(f"incubate.asp.set_excluded_layers: argument 'param_names' expected a list of str, got "
                        f"{param_names!r}")
    _REGISTRY.excluded.update(param_names)


def reset_excluded_layers(main_program=None):
    """Clears what :func:`set_excluded_layers` excluded."""
    _no_program("reset_excluded_layers", main_program)
    _REGISTRY.excluded.clear()


class OptimizerWithSparsityGuarantee:
    """An optimizer whose ``step()`` re-applies the ASP masks after each update;
    everything else is the wrapped optimizer's (made by :func:`decorate`)."""

    def __init__(self, optimizer):
        # _inner_opt too: wrappers that take a wrapped optimizer (GradScaler.minimize/step,
        # as fleet's HybridParallelOptimizer) find the real one there
        self._optimizer = self._inner_opt = optimizer

    def __getattr__(self, item):
        return getattr(self._optimizer, item)

    @no_grad()
    def step(self):
        """The wrapped optimizer's step, then every masked parameter times its mask."""
        self._optimizer.step()
        _apply_masks(self._optimizer._parameter_list)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """The wrapped optimizer's minimize, then the masks as in :meth:`step`."""
        result = self._optimizer.minimize(loss, startup_program, parameters, no_grad_set)
        with no_grad():
            _apply_masks(self._optimizer._parameter_list)
        return result

    def state_dict(self):
        """The wrapped optimizer's state with each mask under ``<parameter name>.asp_mask``."""
        state = self._optimizer.state_dict()
        for name, (param, mask) in _REGISTRY.masks.items():
            if any(p is param for p in self._optimizer._parameter_list):
                state[f"{name}.{_MASK_SUFFIX}"] = mask
        return state

    def set_state_dict(self, state_dict):
        """Restores the masks saved by :meth:`state_dict`, then the wrapped optimizer's state."""
        for name, (param, mask) in _REGISTRY.masks.items():
            if not any(p is param for p in self._optimizer._parameter_list):
                continue
            key = f"{name}.{_MASK_SUFFIX}"
            if key not in state_dict:
                raise ValueError(f"OptimizerWithSparsityGuarantee.set_state_dict: argument 'state_dict' has no "
                                 f"'{key}'")
            mask.set_value(state_dict[key])
        rest = {k: v for k, v in state_dict.items() if not k.endswith(f".{_MASK_SUFFIX}")}
        return self._optimizer.set_state_dict(rest)


def _apply_masks(parameters) -> None:
    for param in parameters:
        entry = _REGISTRY.masks.get(param.name)
        if entry is not None and entry[0] is param:
            param.set_value(param * entry[1])


def decorate(optimizer):
    """Wraps a dynamic-graph optimizer for ASP training: makes a mask (all ones
    until :func:`prune_model`) for each supported weight it updates, and returns
    an :class:`OptimizerWithSparsityGuarantee` whose ``step()`` keeps those
    weights masked.

    >>> linear = eager.nn.Linear(8, 4)
    >>> opt = decorate(eager.optimizer.SGD(0.1, parameters=linear.parameters()))
    """
    if isinstance(optimizer, OptimizerWithSparsityGuarantee):
        return optimizer
    parameters = getattr(optimizer, "_parameter_list", None)
    if not callable(getattr(optimizer, "step", None)) or parameters is None:
        raise TypeError(f"incubate.asp.decorate: argument 'optimizer' expected an eager.optimizer optimizer "
                        f"built with parameters, got {type(optimizer).__name__}")
    for param in parameters:
        if _pruning_func(param.name) is not None:
            entry = _REGISTRY.masks.get(param.name)
            if entry is None or entry[0] is not param:
                mask = to_tensor(np.ones(param.shape, param.dtype.numpy_dtype), place=param.place)
                _REGISTRY.masks[param.name] = (param, mask)
    return OptimizerWithSparsityGuarantee(optimizer)


@no_grad()
def prune_model(model, n=2, m=4, mask_algo="mask_1d", with_mask=True):
    """Prunes every supported weight of ``model`` to the ``n:m`` pattern built by
    ``mask_algo`` (``"mask_1d"``, ``"mask_2d_greedy"`` or ``"mask_2d_best"``).
    With ``with_mask`` (the default) the masks also go to the decorated
    optimizer, which keeps the weights pruned while training: call
    :func:`decorate` first. Returns ``{parameter name: mask}`` (NumPy arrays).

    >>> linear = eager.nn.Linear(8, 4)
    >>> masks = prune_model(linear, with_mask=False)
    >>> float((linear.weight.numpy() == 0).mean())
    0.5
    """
    if not isinstance(model, Layer):
        raise TypeError(f"incubate.asp.prune_model: argument 'model' expected an eager.nn.Layer, got "
                        f"{type(model).__name__}")
    for arg, value in (("n", n), ("m", m)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"incubate.asp.prune_model: argument '{arg}' expected an int, got {value!r}")
    if not 0 <= n <= m or m <= 0:
        raise ValueError(f"incubate.asp.prune_model: arguments 'n' and 'm' expected 0 <= n <= m and m > 0, got "
                         f"n={n}, m={m}")
    if mask_algo not in _ALGOS:
        raise ValueError(f"incubate.asp.prune_model: argument 'mask_algo' expected one of {sorted(_ALGOS)}, got "
                         f"{mask_algo!r}")
    if not isinstance(with_mask, bool):
        raise TypeError(f"incubate.asp.prune_model: argument 'with_mask' expected a bool, got {with_mask!r}")
    chosen = [(param, func) for param in model.parameters()
              if (func := _pruning_func(param.name)) is not None]
    if with_mask:
        missing = [param.name for param, _ in chosen
                   if param.name not in _REGISTRY.masks or _REGISTRY.masks[param.name][0] is not param]
        if missing:
            raise RuntimeError(f"incubate.asp.prune_model: no mask for {missing}: call incubate.asp.decorate on "
                               f"the optimizer first (or pass with_mask=False)")
    masks = {}
    for param, func in chosen:
        weight = param.numpy()
        pruned, mask = func(weight, m, n, _ALGOS[mask_algo], param.name)
        param.set_value(np.asarray(pruned).astype(weight.dtype))
        if with_mask:
            _REGISTRY.masks[param.name][1].set_value(np.asarray(mask).astype(weight.dtype))
        masks[param.name] = np.asarray(mask)
    return masks


__all__ = ["OptimizerWithSparsityGuarantee", "add_supported_layer", "decorate", "default_pruning", "prune_model",
           "reset_excluded_layers", "set_excluded_layers"]
