"""Paddle's ``paddle.incubate.optimizer.functional``: minimize a function of one
1-D tensor with BFGS or L-BFGS, functionally (no parameters, no optimizer
state: the function, the starting point in, the result out).

Each iteration takes the direction ``p = -H g`` (H the inverse-Hessian
estimate: a dense matrix for BFGS, the two-loop recursion over the last
``history_size`` curvature pairs for L-BFGS), finds a step along it with the
strong-Wolfe line search, and updates H with the pair ``s = step``,
``y = change of gradient`` (skipped when ``y . s <= 0``). It stops converged
when the gradient's largest entry falls below ``tolerance_grad`` or the
direction's below ``tolerance_change``, and unconverged after ``max_iters``
iterations or when the line search finds no step.

Gradients come from eager's autograd on a detached copy of the point, so
``objective_func`` is written with ordinary eager ops.
"""
from __future__ import annotations

import collections
import numbers

import numpy as np

from ....autograd.grad_mode import no_grad
from ....creation import to_tensor
from ....errors import UnsupportedOptionError
from ....generated import forward_api as _F
from ....tensor import Tensor
from .line_search import dot, strong_wolfe, value_and_gradient


def _check(op: str, objective_func, initial_position, dtype, line_search_fn, counts, floats, estimate):
    if not callable(objective_func):
        raise TypeError(f"{op}: argument 'objective_func' expected a callable, got {type(objective_func).__name__}")
    if dtype not in ("float32", "float64"):
        raise ValueError(f"{op}: argument 'dtype' expected 'float32' or 'float64', got {dtype!r}")
    if not isinstance(initial_position, Tensor):
        raise TypeError(f"{op}: argument 'initial_position' expected a Tensor, got {type(initial_position).__name__}")
    if initial_position.ndim != 1:
        raise ValueError(f"{op}: argument 'initial_position' expected a 1-D Tensor (flatten it first), got shape "
                         f"{initial_position.shape}")
    if initial_position.dtype.value != dtype:
        raise TypeError(f"{op}: argument 'initial_position' expected dtype {dtype} (the 'dtype' argument), got "
                        f"{initial_position.dtype}")
    if line_search_fn != "strong_wolfe":
        raise UnsupportedOptionError(f"{op}: argument 'line_search_fn' expected 'strong_wolfe' (the only one "
                                     f"Paddle offers), "
                         f"got {line_search_fn!r}")
    for arg, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"{op}: argument '{arg}' expected an int >= 1, got {value!r}")
    for arg, value in floats.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
            raise ValueError(f"{op}: argument '{arg}' expected a number >= 0, got {value!r}")
    if floats.get("initial_step_length", 1.0) <= 0:
        raise ValueError(f"{op}: argument 'initial_step_length' expected a number > 0, got "
                         f"{floats['initial_step_length']!r}")
    if estimate is None:
        return None
    n = initial_position.shape[0]
    if not isinstance(estimate, Tensor):
        raise TypeError(f"{op}: argument 'initial_inverse_hessian_estimate' expected a Tensor, got "
                        f"{type(estimate).__name__}")
    if estimate.shape != [n, n] or estimate.dtype.value != dtype:
        raise ValueError(f"{op}: argument 'initial_inverse_hessian_estimate' expected a [{n}, {n}] {dtype} Tensor, "
                         f"got shape {estimate.shape} dtype {estimate.dtype}")
    matrix = estimate.numpy().astype(np.float64)
    if not np.allclose(matrix, matrix.T):
        raise ValueError(f"{op}: argument 'initial_inverse_hessian_estimate' expected a symmetric matrix")
    try:
        np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        raise ValueError(f"{op}: argument 'initial_inverse_hessian_estimate' expected a positive definite "
                         f"matrix") from None
    return estimate.detach()


class _DenseInverse:
    """BFGS: H kept as a matrix, H+ = (I - r s y^T) H (I - r y s^T) + r s s^T, r = 1 / y.s."""

    def __init__(self, h):
        self.h = h

    def direction(self, g):
        return _F.scale(_F.matmul(self.h, g), -1.0)

    def update(self, s, y, ys):
        n = s.shape[0]
        eye = _F.eye(n, n, s.dtype, s.place)
        left = _F.subtract(eye, _F.scale(_F.outer(s, y), 1.0 / ys))
        self.h = _F.add(_F.matmul(_F.matmul(left, self.h), left, transpose_y=True),
                        _F.scale(_F.outer(s, s), 1.0 / ys))


class _TwoLoopInverse:
    """L-BFGS: H applied by the two-loop recursion over the last pairs, from H0."""

    def __init__(self, h0, history_size):
        self.h0 = h0
        self.pairs = collections.deque(maxlen=history_size)

    def direction(self, g):
        q, alphas = g, []
        for s, y, rho in reversed(self.pairs):
            alpha = rho * dot(s, q)
            alphas.append(alpha)
            q = _F.subtract(q, _F.scale(y, alpha))
        r = _F.matmul(self.h0, q)
        for (s, y, rho), alpha in zip(self.pairs, reversed(alphas)):
            beta = rho * dot(y, r)
            r = _F.add(r, _F.scale(s, alpha - beta))
        return _F.scale(r, -1.0)

    def update(self, s, y, ys):
        self.pairs.append((s, y, 1.0 / ys))


@no_grad()
def _minimize(op, objective_func, x0, inverse, max_iters, tolerance_grad, tolerance_change, max_line_search_iters,
              initial_step_length):
    x = x0.detach()
    value, g = value_and_gradient(op, objective_func, x)
    calls, converged = 1, False
    if float(g.abs().max().item()) < tolerance_grad:
        converged, max_iters = True, 0
    for _ in range(max_iters):
        p = inverse.direction(g)
        t, value_new, g_new, ls_calls = strong_wolfe(op, objective_func, x, p, value, g, max_line_search_iters,
                                                     initial_step_length)
        calls += ls_calls
        if t > 0:
            s = _F.scale(p, t)
            y = _F.subtract(g_new, g)
            x, value, g = _F.add(x, s), value_new, g_new
            ys = dot(y, s)
            if ys > 0:
                inverse.update(s, y, ys)
        if float(g.abs().max().item()) < tolerance_grad or float(p.abs().max().item()) < tolerance_change:
            converged = True
            break
        if t == 0:
            break
    return (to_tensor([converged]), to_tensor(np.array([calls], np.int64), place=x.place), x, value, g)


def minimize_bfgs(objective_func, initial_position, max_iters=50, tolerance_grad=1e-7, tolerance_change=1e-9,
                  initial_inverse_hessian_estimate=None, line_search_fn="strong_wolfe", max_line_search_iters=50,
                  initial_step_length=1.0, dtype="float32", name=None):
    """Minimizes ``objective_func`` (a 1-D Tensor in, one element out) from
    ``initial_position`` with BFGS (see the module docstring). Returns
    ``(is_converge, num_func_calls, position, objective_value,
    objective_gradient, inverse_hessian_estimate)``: a bool Tensor [1], an
    int64 Tensor [1] (evaluations of objective_func), the minimizer, the value
    and gradient there, and the final [n, n] estimate of the inverse Hessian.

    >>> f = lambda x: ((x - eager.to_tensor([1.0, -2.0])) ** 2).sum()
    >>> result = eager.incubate.optimizer.functional.minimize_bfgs(f, eager.zeros([2]))
    >>> bool(result[0]), result[2].numpy().round(4).tolist()
    (True, [1.0, -2.0])
    """
    op = "minimize_bfgs"
    h0 = _check(op, objective_func, initial_position, dtype, line_search_fn,
                {"max_iters": max_iters, "max_line_search_iters": max_line_search_iters},
                {"tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                 "initial_step_length": initial_step_length}, initial_inverse_hessian_estimate)
    n = initial_position.shape[0]
    inverse = _DenseInverse(h0 if h0 is not None else _F.eye(n, n, initial_position.dtype, initial_position.place))
    result = _minimize(op, objective_func, initial_position, inverse, max_iters, tolerance_grad, tolerance_change,
                       max_line_search_iters, initial_step_length)
    return result + (inverse.h,)


def minimize_lbfgs(objective_func, initial_position, history_size=100, max_iters=50, tolerance_grad=1e-8,
                   tolerance_change=1e-8, initial_inverse_hessian_estimate=None, line_search_fn="strong_wolfe",
                   max_line_search_iters=50, initial_step_length=1.0, dtype="float32", name=None):
    """Minimizes ``objective_func`` (a 1-D Tensor in, one element out) from
    ``initial_position`` with L-BFGS, keeping the last ``history_size``
    curvature pairs (see the module docstring). Returns ``(is_converge,
    num_func_calls, position, objective_value, objective_gradient)`` as
    :func:`minimize_bfgs` does, without the inverse-Hessian estimate.

    >>> f = lambda x: ((x - eager.to_tensor([1.0, -2.0])) ** 2).sum()
    >>> result = eager.incubate.optimizer.functional.minimize_lbfgs(f, eager.zeros([2]))
    >>> bool(result[0]), result[2].numpy().round(4).tolist()
    (True, [1.0, -2.0])
    """
    op = "minimize_lbfgs"
    h0 = _check(op, objective_func, initial_position, dtype, line_search_fn,
                {"history_size": history_size, "max_iters": max_iters,
                 "max_line_search_iters": max_line_search_iters},
                {"tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                 "initial_step_length": initial_step_length}, initial_inverse_hessian_estimate)
    n = initial_position.shape[0]
    inverse = _TwoLoopInverse(h0 if h0 is not None else _F.eye(n, n, initial_position.dtype,
                                                                initial_position.place), history_size)
    return _minimize(op, objective_func, initial_position, inverse, max_iters, tolerance_grad, tolerance_change,
                     max_line_search_iters, initial_step_length)


__all__ = ["minimize_bfgs", "minimize_lbfgs"]
