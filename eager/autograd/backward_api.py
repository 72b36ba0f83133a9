"""The entry points of a backward pass: ``backward`` (into ``.grad``) and
``grad`` (returned, ``.grad`` untouched), with their argument checks."""
from __future__ import annotations

import warnings

from ..errors import AutogradError
from ..tensor import Tensor
from .accumulation import edge_of
from .engine import run_backward
from .meta import AutogradMeta, records_gradient


def backward(tensors, grad_tensors=None, retain_graph: bool = False) -> None:
    """Runs backward from several tensors at once, accumulating into the leaves' ``.grad``.

    ``grad_tensors`` gives one seed per tensor (None: ones of its shape, as in
    Paddle). A root may be an ancestor of another root; each node still runs
    once. Roots with ``stop_gradient=True`` have no graph and are skipped with a
    warning, as in Paddle; so are integer roots (eager records no gradients
    through integers, whatever their stop_gradient flag says).
    """
    tensors = _as_tensor_list(tensors, "backward", "tensors")
    if not tensors:
        raise ValueError("backward: argument 'tensors' is an empty list; pass at least one Tensor")
    if not isinstance(retain_graph, bool):
        raise TypeError(f"backward: argument 'retain_graph' expected a bool, got {retain_graph!r}")
    grad_tensors = _seeds(grad_tensors, len(tensors), "backward")
    _check_distinct(tensors, "backward", "tensors")
    kept = [(t, g) for t, g in zip(tensors, grad_tensors) if records_gradient(t)]
    if len(kept) < len(tensors):
        warnings.warn(f"backward: {len(tensors) - len(kept)} of {len(tensors)} tensor(s) have "
                      f"stop_gradient=True or are integer tensors (which record no gradients), so no "
                      f"gradient flows from them", stacklevel=2)
    if kept:
        run_backward([t for t, _ in kept], [g for _, g in kept], retain_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool = False, no_grad_vars=None):
    """The gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad``.

    Only the part of the graph between outputs and inputs runs. ``retain_graph``
    defaults to ``create_graph``; with ``create_graph`` the returned gradients
    are themselves differentiable. An input that the outputs do not depend on
    raises unless ``allow_unused=True``, which gives None for it. Inputs may be
    intermediate tensors. ``no_grad_vars`` (a Tensor, or a list, tuple or set of
    them) are treated as constants: no gradient flows through them. ``only_inputs`` must be True, as in Paddle
    (False is refused). ``outputs`` and ``inputs`` may not be empty.

    >>> x = eager.to_tensor(3.0, stop_gradient=False)
    >>> (dx,) = eager.grad(x * x, x)
    >>> dx.item()
    6.0
    """
    outputs = _as_tensor_list(outputs, "grad", "outputs")
    inputs = _as_tensor_list(inputs, "grad", "inputs")
    for arg, tensors in (("outputs", outputs), ("inputs", inputs)):
        if not tensors:
            raise ValueError(f"grad: argument '{arg}' is an empty list; pass at least one Tensor")
    for flag, value in (("create_graph", create_graph), ("allow_unused", allow_unused),
                        ("retain_graph", retain_graph), ("only_inputs", only_inputs)):
        if value is not None and not isinstance(value, bool):
            raise TypeError(f"grad: argument '{flag}' expected a bool, got {value!r}")
    if only_inputs is False:
        raise ValueError("grad: only_inputs=False is not supported (nor is it in Paddle): the "
                         "gradients are those of 'inputs' only")
    _check_distinct(outputs, "grad", "outputs")
    _check_distinct(inputs, "grad", "inputs")
    grad_outputs = _seeds(grad_outputs, len(outputs), "grad")
    if retain_graph is None:
        retain_graph = create_graph
    cut = None
    if no_grad_vars is not None:
        # Paddle takes a set here too (a model's parameters(), as set(layer.parameters()))
        if isinstance(no_grad_vars, (set, frozenset)):
            no_grad_vars = list(no_grad_vars)
        cut = {edge for edge in (edge_of(t) for t in _as_tensor_list(
            no_grad_vars, "grad", "no_grad_vars")) if edge is not None}
    grads = run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=inputs,
                         allow_unused=allow_unused, what="grad", cut=cut)
    if create_graph:
        grads = [None if g is None else _as_differentiable(g) for g in grads]
    return grads


def _as_differentiable(grad):
    """With create_graph every returned gradient has stop_gradient=False, as in
    Paddle: one that depends on no input (a constant) becomes a new leaf."""
    if not grad.stop_gradient:
        return grad
    return Tensor(grad.impl, AutogradMeta())


def _as_tensor_list(value, op, arg) -> list:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, Tensor) for v in value):
        return list(value)
    raise TypeError(f"{op}: argument '{arg}' expected a Tensor or a list of Tensors, got {type(value).__name__}")


def _seeds(grad_tensors, count: int, op: str) -> list:
    if grad_tensors is None:
        return [None] * count
    if not isinstance(grad_tensors, (list, tuple)):
        grad_tensors = [grad_tensors]
    if len(grad_tensors) != count:
        raise ValueError(f"{op}: got {len(grad_tensors)} gradient seeds for {count} tensors")
    return list(grad_tensors)


def _check_distinct(tensors, op: str, arg: str) -> None:
    seen = set()
    for i, t in enumerate(tensors):
        if id(t) in seen:
            # An AutogradError: a ValueError, and the RuntimeError Paddle raises for a duplicate.
            raise AutogradError(f"{op}: argument '{arg}' lists the same tensor twice (position {i}, a "
                                f"duplicate); pass each tensor once")
        seen.add(id(t))


__all__ = ["backward", "grad"]
