"""Autograd: grad nodes, saved tensors, the backward engine, grad mode and checking."""
from .engine import run_backward
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .meta import AbstractAutogradMeta, AutogradMeta
from .node import GradNodeAccumulation, GradNodeBase, GradSlotMeta
from .saved_hooks import saved_tensors_hooks
from .tensor_wrapper import AutogradError, SavedInput, SavedOutput, SavedShape, TensorWrapper
from .gradcheck import GradcheckError, gradcheck, gradgradcheck


def backward(tensors, grad_tensors=None, retain_graph: bool = False) -> None:
    """Runs backward from several tensors at once, accumulating into the leaves' ``.grad``.

    ``grad_tensors`` gives one seed per tensor (None for a one-element tensor).
    A root may be an ancestor of another root; each node still runs once.
    """
    from ..tensor import Tensor

    tensors = _as_tensor_list(tensors, "backward", "tensors", Tensor)
    grad_tensors = _seeds(grad_tensors, len(tensors), "backward")
    _check_distinct(tensors, "backward", "tensors")
    run_backward(tensors, grad_tensors, retain_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool = False, no_grad_vars=None):
    """The gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad``.

    Only the part of the graph between outputs and inputs runs. ``retain_graph``
    defaults to ``create_graph``; with ``create_graph`` the returned gradients
    are themselves differentiable. An input that the outputs do not depend on
    raises unless ``allow_unused=True``, which gives None for it.

    >>> x = eager.to_tensor(3.0, stop_gradient=False)
    >>> (dx,) = eager.grad(x * x, x)
    >>> dx.item()
    6.0
    """
    from ..tensor import Tensor

    outputs = _as_tensor_list(outputs, "grad", "outputs", Tensor)
    inputs = _as_tensor_list(inputs, "grad", "inputs", Tensor)
    _check_distinct(outputs, "grad", "outputs")
    _check_distinct(inputs, "grad", "inputs")
    grad_outputs = _seeds(grad_outputs, len(outputs), "grad")
    if retain_graph is None:
        retain_graph = create_graph
    if no_grad_vars is not None:
        cut = _as_tensor_list(no_grad_vars, "grad", "no_grad_vars", Tensor)
        saved = [(t, t._meta.stop_gradient) for t in cut if t._meta is not None]
        for t, _ in saved:
            t._meta.stop_gradient = True
        try:
            return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, cut)
        finally:
            for t, value in saved:
                t._meta.stop_gradient = value
    return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, ())


def _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, cut):
    from ..autograd.node import GradNodeBase  # noqa: F401

    cut_nodes = {id(t._meta.node) for t in cut if t._meta is not None and t._meta.node is not None}
    if cut_nodes:
        return _grad_with_cut(outputs, inputs, grad_outputs, retain_graph, create_graph,
                              allow_unused, cut)
    return run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=inputs,
                        allow_unused=allow_unused, what="grad")


def _grad_with_cut(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, cut):
    # Edges into the cut tensors' positions are removed for this call only.
    severed = []
    cut_edges = {(id(t._meta.node), t._meta.rank) for t in cut if t._meta is not None}
    from .engine import _count_dependencies

    roots = [o._meta.node for o in outputs if o._meta is not None and o._meta.node is not None]
    for node in list(_count_dependencies(roots)) + roots:
        edges = node.next_edges
        if any(e is not None and (id(e[0]), e[1]) in cut_edges for e in edges):
            severed.append((node, edges))
            node.next_edges = [None if e is not None and (id(e[0]), e[1]) in cut_edges else e
                               for e in edges]
    try:
        return run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=inputs,
                            allow_unused=allow_unused, what="grad")
    finally:
        for node, edges in severed:
            node.next_edges = edges


def _as_tensor_list(value, op, arg, tensor_type) -> list:
    if isinstance(value, tensor_type):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, tensor_type) for v in value):
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
            raise ValueError(f"{op}: argument '{arg}' lists the same tensor twice (position {i}); "
                             f"pass each tensor once")
        seen.add(id(t))


__all__ = [
    "AbstractAutogradMeta", "AutogradError", "AutogradMeta", "GradNodeAccumulation",
    "GradNodeBase", "GradSlotMeta", "GradcheckError", "TensorWrapper", "backward", "enable_grad",
    "grad", "gradcheck", "gradgradcheck",
    "is_grad_enabled", "no_grad", "run_backward", "saved_tensors_hooks", "set_grad_enabled",
    "SavedInput", "SavedOutput", "SavedShape",
]
