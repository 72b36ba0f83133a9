"""Autograd: grad nodes, saved tensors, the backward engine, grad mode and checking.

The core (everything up to the engine and PyLayer) sits below the generated op
functions, which import it. ``jacobian``/``hessian`` (Paddle's lazy
tensor form, and the function form of ``functional``), ``vjp``/``jvp`` and
``gradcheck``/``gradgradcheck`` run ops, so they sit above the generated code:
this package loads them on first use instead of at import, which would be a
cycle.
"""
import importlib

from ..errors import AnomalyError, AutogradError, GradcheckError
from .accumulation import GradNodeAccumulation, edge_of
from .anomaly import detect_anomaly, is_anomaly_enabled
from .backward_api import backward, grad
from .engine import queue_callback, run_backward
from .gc_policy import install as _install_gc_policy
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .meta import AbstractAutogradMeta, AutogradMeta
from .node import GradNodeBase, GradSlotMeta
from .py_layer import PyLayer, PyLayerContext
from .saved_hooks import saved_tensors_hooks
from .tensor_wrapper import SavedInput, SavedList, SavedOutput, SavedShape, TensorWrapper

# Full garbage collections stay off large live graphs (gc_policy.py; opt out there).
_install_gc_policy()

__all__ = [
    "AbstractAutogradMeta", "AnomalyError", "AutogradError", "AutogradMeta", "GradNodeAccumulation",
    "GradNodeBase", "GradSlotMeta", "GradcheckError", "Hessian", "Jacobian", "PyLayer", "PyLayerContext", "SavedInput",
    "SavedList", "SavedOutput", "SavedShape", "TensorWrapper", "backward", "detect_anomaly",
    "edge_of", "enable_grad", "grad", "gradcheck", "gradgradcheck", "hessian", "is_anomaly_enabled",
    "is_grad_enabled", "jacobian", "jvp", "no_grad", "queue_callback", "run_backward",
    "saved_tensors_hooks", "set_grad_enabled", "vjp",
]

# name -> the submodule above the generated code that defines it
_TOOLS = {"hessian": "lazy_jacobian", "jacobian": "lazy_jacobian", "Jacobian": "lazy_jacobian",
          "Hessian": "lazy_jacobian", "jvp": "functional",
          "vjp": "functional", "gradcheck": "gradient_check", "gradgradcheck": "gradient_check"}


def __getattr__(name):
    module = _TOOLS.get(name)
    if module is None:
        raise AttributeError(f"module 'eager.autograd' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
