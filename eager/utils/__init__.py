"""Utilities, as Paddle's ``paddle.utils``: :func:`run_check` checks the install;
``download`` finds files by URL in Paddle's cache folders (it never downloads);
``try_import``, ``deprecated``, ``require_version``, ``unique_name``, the nest
helpers ``flatten``/``pack_sequence_as``/``map_structure``/``assert_same_structure``/
``is_sequence``/``to_sequence``/``padding_to_same_structure``, ``convert_to_list`` and
``dlpack`` (loaded on first use).

>>> import eager
>>> eager.utils.run_check()
Running verify eager program ...
eager works well on 1 CPU.
eager is installed successfully! Let's start deep learning with eager now.
"""
from __future__ import annotations

import importlib

import numpy as np

import eager  # its API loads on first use, by when eager.utils (loaded lazily) runs
from phi.common import CPUPlace, GPUPlace

from .. import framework

from . import download, unique_name
from .deprecation import deprecated
from .layers_utils import (assert_same_structure, convert_to_list, flatten, is_sequence,  # Paddle's nest helpers
                           map_structure, pack_sequence_as, padding_to_same_structure, to_sequence)
from .lazy_import import try_import
from .versions import require_version

__all__ = ["deprecated", "dlpack", "require_version", "run_check", "try_import", "unique_name"]


def __getattr__(name):
    # eager.utils.dlpack loads on first use: it needs eager.tensor, and eager.utils.unique_name
    # is imported while eager.tensor's own imports load.
    if name == "dlpack":
        return importlib.import_module(".dlpack", __name__)
    raise AttributeError(f"module 'eager.utils' has no attribute {name!r}")


class _StepFailed(RuntimeError):
    pass


def _check_on(place) -> None:
    """One training step of y = x @ w + b on ``place``, each stage checked against
    NumPy; raises _StepFailed naming the stage that went wrong."""
    x_np = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype="float32")
    y_np = np.array([[1.0], [2.0], [3.0]], dtype="float32")
    w_np = np.array([[0.5], [-0.25]], dtype="float32")
    b_np = np.array([0.1], dtype="float32")
    lr = 0.01
    stage = "creating tensors"
    try:
        x = eager.to_tensor(x_np, place=place)
        y = eager.to_tensor(y_np, place=place)
        model = eager.nn.Linear(2, 1)
        model.to(device=place, dtype="float32")  # whatever the default dtype is
        model.weight.set_value(w_np)
        model.bias.set_value(b_np)
        optimizer = eager.optimizer.SGD(learning_rate=lr, parameters=model.parameters())

        stage = "forward"
        loss = eager.nn.functional.mse_loss(model(x), y)
        residual = x_np @ w_np + b_np - y_np
        expected_loss = float(np.mean(residual ** 2))
        if not np.isclose(float(loss), expected_loss, rtol=1e-5):
            raise _StepFailed(f"loss {float(loss)} where {expected_loss} was expected")

        stage = "backward"
        loss.backward()
        grad_w = 2.0 * x_np.T @ residual / residual.size
        grad_b = 2.0 * residual.sum(axis=0) / residual.size
        if not np.allclose(model.weight.grad.numpy(), grad_w, rtol=1e-5, atol=1e-6):
            raise _StepFailed(f"weight gradient {model.weight.grad.numpy().ravel()} where "
                              f"{grad_w.ravel()} was expected")
        if not np.allclose(model.bias.grad.numpy(), grad_b, rtol=1e-5, atol=1e-6):
            raise _StepFailed(f"bias gradient {model.bias.grad.numpy()} where {grad_b} was expected")

        stage = "optimizer step"
        optimizer.step()
        optimizer.clear_grad()
        if not np.allclose(model.weight.numpy(), w_np - lr * grad_w, rtol=1e-5, atol=1e-6):
            raise _StepFailed(f"updated weight {model.weight.numpy().ravel()} where "
                              f"{(w_np - lr * grad_w).ravel()} was expected")
    except _StepFailed as error:
        raise _StepFailed(f"the {stage} stage gave wrong results: {error}") from None
    except Exception as error:
        raise _StepFailed(f"the {stage} stage raised {type(error).__name__}: {error}") from error


def run_check() -> None:
    """Checks that eager works: one forward pass, backward pass and SGD step of a
    small linear model on the CPU, and on the GPU when CuPy sees one, each compared
    with NumPy (gradients on, whatever the caller's grad mode). Prints what worked; raises RuntimeError naming the device and the
    stage that failed.

    >>> eager.utils.run_check()
    Running verify eager program ...
    eager works well on 1 CPU.
    eager is installed successfully! Let's start deep learning with eager now.
    """
    print("Running verify eager program ...")
    devices = [("CPU", CPUPlace())]
    if framework.gpu_count() > 0:
        devices.append(("GPU", GPUPlace(0)))
    for label, place in devices:
        try:
            with eager.enable_grad():  # a script may have turned gradients off (set_grad_enabled(False))
                _check_on(place)
        except _StepFailed as error:
            raise RuntimeError(f"run_check: eager does not work on the {label} ({place}): {error}") from (
                error.__cause__)
        print(f"eager works well on 1 {label}.")
    print("eager is installed successfully! Let's start deep learning with eager now.")
