"""Autograd: grad nodes, saved tensors, the backward engine, grad mode and checking.

The core (everything up to the engine and PyLayer) sits below the generated op
functions, which import it. ``jacobian``/``hessian`` (Paddle's lazy
tensor form, and the function form of ``functional``), ``vjp``/``jvp`` and
``gradcheck``/``gradgradcheck`` run ops, so they sit above the generated code.
This package loads each name's submodule on first use (``_EXPORTS``), so that
importing it never loads more than what is asked for: the Tensor core imports
``autograd.meta`` and most of the rest imports Tensor.
"""
import importlib

from ..errors import AnomalyError, AutogradError, GradcheckError

__all__ = [
    "AbstractAutogradMeta", "AnomalyError", "AutogradError", "AutogradMeta", "GradNodeAccumulation",
    "GradNodeBase", "GradSlotMeta", "GradcheckError", "Hessian", "Jacobian", "PyLayer", "PyLayerContext", "SavedInput",
    "SavedList", "SavedOutput", "SavedShape", "TensorWrapper", "backward", "detect_anomaly",
    "edge_of", "enable_grad", "grad", "gradcheck", "gradgradcheck", "hessian", "is_anomaly_enabled",
    "is_grad_enabled", "jacobian", "jvp", "no_grad", "queue_callback", "run_backward",
    "saved_tensors_hooks", "set_grad_enabled", "vjp",
]

# name -> the submodule that defines it, loaded on first use. The Tensor core
# (eager.tensor) imports autograd.meta, and most of these submodules import
# Tensor: loading them with the package would make `import eager.tensor`, as a
# program's first import, a cycle. The tools at the end sit above the generated
# code, which imports the rest.
_EXPORTS = {
    "GradNodeAccumulation": "accumulation", "edge_of": "accumulation",
    "detect_anomaly": "anomaly", "is_anomaly_enabled": "anomaly",
    "backward": "backward_api", "grad": "backward_api",
    "queue_callback": "engine", "run_backward": "engine",
    "enable_grad": "grad_mode", "is_grad_enabled": "grad_mode", "no_grad": "grad_mode",
    "set_grad_enabled": "grad_mode",
    "AbstractAutogradMeta": "meta", "AutogradMeta": "meta",
    "GradNodeBase": "node", "GradSlotMeta": "node",
    "PyLayer": "py_layer", "PyLayerContext": "py_layer",
    "saved_tensors_hooks": "saved_hooks",
    "SavedInput": "tensor_wrapper", "SavedList": "tensor_wrapper", "SavedOutput": "tensor_wrapper",
    "SavedShape": "tensor_wrapper", "TensorWrapper": "tensor_wrapper",
    "hessian": "lazy_jacobian", "jacobian": "lazy_jacobian", "Jacobian": "lazy_jacobian",
    "Hessian": "lazy_jacobian", "jvp": "functional", "vjp": "functional",
    "gradcheck": "gradient_check", "gradgradcheck": "gradient_check",
}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'eager.autograd' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
