"""Checking analytic gradients against central finite differences.

:func:`gradcheck` compares the Jacobian the autograd engine computes (one row
per output element, from ``grad`` with a one-hot ``grad_outputs``) with the
Jacobian of central differences ``(f(x + eps) - f(x - eps)) / (2 eps)`` taken
in float64 on copies of the inputs. :func:`gradgradcheck` runs the same check on
the gradient function itself, which tests second-order derivatives (and, applied
to a gradient function, any higher order).

Which inputs are checked: every Tensor argument with ``stop_gradient=False``.
Which outputs are checked: every floating-point Tensor output. An output that
does not depend on a checked input must have a zero numerical derivative.
"""
from __future__ import annotations

import numpy as np

from phi.common import DataType

from ..creation import to_tensor
from ..errors import GradcheckError
from ..tensor import Tensor
from .backward_api import grad
from .grad_mode import no_grad
from .meta import records_gradient


_DOUBLE = DataType.FLOAT64
_INEXACT = (DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64,
            DataType.COMPLEX64, DataType.COMPLEX128)


def gradcheck(func, inputs, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True) -> bool:
    """Whether ``func``'s analytic gradients match central finite differences.

    ``func`` takes the Tensors in ``inputs`` (a Tensor or a tuple; other values
    are passed through unchanged) and returns a Tensor or a tuple of Tensors.
    The inputs with ``stop_gradient=False`` are the ones differentiated; they
    must be float64. An element passes when
    ``|analytic - numerical| <= atol + rtol * |numerical|``.

    Returns True when every element passes. Otherwise raises
    :class:`GradcheckError` naming the input, the output, the worst element's
    index, both values and the tolerance (or returns False when
    ``raise_exception=False``).

    >>> x = eager.to_tensor(np.array([0.5, 2.0]), stop_gradient=False)
    >>> gradcheck(lambda t: eager.tanh(t) * t, (x,))
    True
    """
    inputs = _as_tuple(inputs)
    checked = _checked_inputs(inputs, "gradcheck")
    if not checked:
        raise GradcheckError(
            "gradcheck: no input has stop_gradient=False, so there is nothing to check; "
            "set stop_gradient=False on the inputs to differentiate"
        )
    outputs = _call(func, inputs, "gradcheck")
    out_positions = [i for i, o in enumerate(outputs) if o.dtype in _INEXACT]
    analytic = _analytic_jacobians(outputs, out_positions, [inputs[i] for i in checked])
    numerical = _numerical_jacobians(func, inputs, checked, outputs, out_positions, eps)
    for ci, in_pos in enumerate(checked):
        for oi, out_pos in enumerate(out_positions):
            failure = _compare(analytic[oi][ci], numerical[oi][ci], atol, rtol)
            if failure is None:
                continue
            if not raise_exception:
                return False
            raise GradcheckError(_failure_message(
                failure, inputs, in_pos, outputs, out_pos, atol, rtol, eps))
    return True


def gradgradcheck(func, inputs, grad_outputs=None, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, raise_exception: bool = True, seed: int = 0) -> bool:
    """Whether the second derivatives of ``func`` match finite differences of its gradient.

    Checks, with :func:`gradcheck`, the gradient function
    ``g(*inputs, *grad_outputs) = grad(func(*inputs), inputs, grad_outputs, create_graph=True)``
    with respect to both the inputs and the ``grad_outputs``. ``grad_outputs``
    (one float64 Tensor per floating-point output of ``func``) default to
    random values drawn with ``seed``.

    >>> x = eager.to_tensor(np.array([0.5, 2.0]), stop_gradient=False)
    >>> gradgradcheck(lambda t: eager.exp(t) * t, (x,))
    True
    """
    inputs = _as_tuple(inputs)
    checked = _checked_inputs(inputs, "gradgradcheck")
    if not checked:
        raise GradcheckError("gradgradcheck: no input has stop_gradient=False, so there is "
                             "nothing to check")
    with no_grad():
        outputs = _call(func, inputs, "gradgradcheck")
    float_outputs = [o for o in outputs if o.dtype in _INEXACT]
    if grad_outputs is None:
        rng = np.random.default_rng(seed)
        grad_outputs = tuple(
            to_tensor(rng.uniform(-1.0, 1.0, o.shape).astype(np.float64), place=o.place, stop_gradient=False)
            for o in float_outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
        if len(grad_outputs) != len(float_outputs):
            raise GradcheckError(
                f"gradgradcheck: got {len(grad_outputs)} grad_outputs for "
                f"{len(float_outputs)} floating-point outputs")
    n_inputs = len(inputs)
    return gradcheck(gradient_function(func, n_inputs), inputs + tuple(grad_outputs),
                     eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)


def gradient_function(func, n_inputs: int):
    """``g(*inputs, *grad_outputs)``: the differentiable vector-Jacobian product of ``func``.

    It returns one gradient per input with ``stop_gradient=False`` (zeros where
    the input is unused), built with ``create_graph=True``, so ``g`` can itself
    be given to :func:`gradcheck` or :func:`gradgradcheck` (third order).
    """
    def vjp(*args):
        inputs, grad_outputs = args[:n_inputs], args[n_inputs:]
        wrt = [t for t in inputs if isinstance(t, Tensor) and records_gradient(t)]
        outputs = [o for o in _call(func, inputs, "gradgradcheck") if o.dtype in _INEXACT]
        differentiable = [(o, g) for o, g in zip(outputs, grad_outputs) if records_gradient(o)]
        if differentiable and wrt:
            grads = grad([o for o, _ in differentiable], wrt, [g for _, g in differentiable],
                         create_graph=True, allow_unused=True)
        else:
            grads = [None] * len(wrt)
        return tuple(to_tensor(np.zeros(t.shape, np.float64), place=t.place) if g is None else g
                     for t, g in zip(wrt, grads))

    return vjp


# -- the parts --------------------------------------------------------------


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _checked_inputs(inputs, what: str) -> list:
    """Positions of the inputs to differentiate; each must be float64."""
    checked = []
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor) or not records_gradient(t):  # an integer tensor's flag records nothing
            continue
        if t.dtype is not _DOUBLE:
            raise GradcheckError(
                f"{what}: input {i}{_name_of(t)} is {t.dtype}{list(t.shape)}; finite differences "
                f"need float64 inputs (use .astype('float64'))")
        checked.append(i)
    return checked


def _call(func, inputs, what: str) -> tuple:
    outputs = _as_tuple(func(*inputs))
    for i, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            raise GradcheckError(f"{what}: func must return Tensors, output {i} is "
                                 f"{type(o).__name__}")
    return outputs


def _analytic_jacobians(outputs, out_positions, wrt) -> list:
    """J[o][i]: array of shape (outputs[o].size, wrt[i].size), row by row with grad."""
    jacobians = []
    for pos in out_positions:
        out = outputs[pos]
        rows = [np.zeros((out.size, t.size)) for t in wrt]
        if records_gradient(out):
            for j in range(out.size):
                one_hot = np.zeros(out.size, dtype=out.dtype.numpy_dtype)
                one_hot[j] = 1
                seed = to_tensor(one_hot.reshape(out.shape), place=out.place)
                grads = grad([out], wrt, [seed], retain_graph=True, allow_unused=True)
                for i, g in enumerate(grads):
                    if g is not None:
                        rows[i][j] = np.asarray(g.numpy(), dtype=np.float64).reshape(-1)
        jacobians.append(rows)
    return jacobians


def _numerical_jacobians(func, inputs, checked, outputs, out_positions, eps) -> list:
    """J[o][i] by central differences, perturbing copies of one input element at a time."""
    jacobians = [[np.zeros((outputs[p].size, inputs[i].size)) for i in checked]
                 for p in out_positions]
    for ci, in_pos in enumerate(checked):
        # order="C": reshape(-1) must be a view of base, or the steps below would be lost
        # on an input whose array is not C-contiguous (a transposed or moveaxis view).
        base = np.array(inputs[in_pos].numpy(), dtype=np.float64, copy=True, order="C")
        flat = base.reshape(-1)
        for k in range(flat.size):
            values = []
            for step in (eps, -eps):
                original = flat[k]
                flat[k] = original + step
                perturbed = list(inputs)
                perturbed[in_pos] = to_tensor(base.copy(), place=inputs[in_pos].place, stop_gradient=False)
                flat[k] = original
                # Grad mode stays as it is: a gradient function (gradgradcheck) needs
                # its inner graph recorded to compute anything.
                values.append(_call(func, tuple(perturbed), "gradcheck"))
            plus, minus = values
            for oi, pos in enumerate(out_positions):
                diff = (np.asarray(plus[pos].numpy(), np.float64) -
                        np.asarray(minus[pos].numpy(), np.float64)) / (2 * eps)
                jacobians[oi][ci][:, k] = diff.reshape(-1)
    return jacobians


def _compare(analytic, numerical, atol, rtol):
    """None when all close, else (row, column, analytic, numerical) of the worst element."""
    if analytic.size == 0:
        return None
    excess = np.abs(analytic - numerical) - (atol + rtol * np.abs(numerical))
    excess = np.where(np.isnan(analytic) | np.isnan(numerical), np.inf, excess)
    worst = np.unravel_index(int(np.argmax(excess)), excess.shape)
    if excess[worst] <= 0:
        return None
    return int(worst[0]), int(worst[1]), float(analytic[worst]), float(numerical[worst])


def _failure_message(failure, inputs, in_pos, outputs, out_pos, atol, rtol, eps) -> str:
    row, col, analytic, numerical = failure
    x, out = inputs[in_pos], outputs[out_pos]
    in_index = tuple(int(i) for i in np.unravel_index(col, x.shape)) if x.shape else ()
    out_index = tuple(int(i) for i in np.unravel_index(row, out.shape)) if out.shape else ()
    tolerance = atol + rtol * abs(numerical)
    return (
        f"gradcheck: Jacobian mismatch for output {out_pos} (shape {list(out.shape)}) with "
        f"respect to input {in_pos}{_name_of(x)} (shape {list(x.shape)}):\n"
        f"  worst element d output{list(out_index)} / d input{list(in_index)}: "
        f"numerical {numerical:.10g}, analytic {analytic:.10g}, |difference| "
        f"{abs(analytic - numerical):.3g} > tolerance {tolerance:.3g} "
        f"(atol={atol}, rtol={rtol}, eps={eps})"
    )


def _name_of(tensor) -> str:
    # Only a name the user gave; the generated ones say nothing about the input.
    name = getattr(tensor, "_name", None)
    return f" ({name!r})" if name else ""
