"""Autograd: grad nodes, saved tensors, the backward engine, grad mode and checking."""
from .anomaly import AnomalyError, detect_anomaly, is_anomaly_enabled
from .engine import run_backward
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .meta import AbstractAutogradMeta, AutogradMeta
from .accumulation import GradNodeAccumulation, edge_of
from .node import GradNodeBase, GradSlotMeta
from .saved_hooks import saved_tensors_hooks
from .tensor_wrapper import AutogradError, SavedInput, SavedOutput, SavedShape, TensorWrapper
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .py_layer import PyLayer, PyLayerContext
from .functional import hessian, jacobian, jvp, vjp


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
    raises unless ``allow_unused=True``, which gives None for it. Inputs may be
    intermediate tensors. ``no_grad_vars`` are treated as constants: no
    gradient flows through them. ``only_inputs`` is accepted for Paddle
    compatibility and, as in Paddle, has no effect.

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
    cut = None
    if no_grad_vars is not None:
        cut = {edge for edge in (edge_of(t) for t in _as_tensor_list(
            no_grad_vars, "grad", "no_grad_vars", Tensor)) if edge is not None}
    return run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=inputs,
                        allow_unused=allow_unused, what="grad", cut=cut)


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
    "AbstractAutogradMeta", "AnomalyError", "AutogradError", "detect_anomaly", "is_anomaly_enabled", "AutogradMeta", "GradNodeAccumulation",
    "GradNodeBase", "GradSlotMeta", "GradcheckError", "TensorWrapper", "backward", "enable_grad",
    "grad", "gradcheck", "gradgradcheck",
    "is_grad_enabled", "no_grad", "run_backward", "saved_tensors_hooks", "set_grad_enabled",
    "SavedInput", "SavedOutput", "SavedShape",
    "PyLayer", "PyLayerContext",
    "hessian", "jacobian", "jvp", "vjp",
]
