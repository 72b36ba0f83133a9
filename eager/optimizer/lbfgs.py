"""L-BFGS (Paddle 2.x's ``paddle.optimizer.LBFGS``): a quasi-Newton method that
re-evaluates the loss through a closure.

The parameters are handled as one flat vector (their values concatenated in
order). Each iteration builds a search direction from the last
``history_size`` curvature pairs (s = step, y = change of gradient) with the
two-loop recursion, then takes a step of fixed length (``learning_rate``; the
first iteration scales it by min(1, 1/||g||_1)) or the step a strong-Wolfe
line search (bracketing, then zoom by safeguarded cubic interpolation; c1 =
1e-4, c2 = 0.9, at most 25 evaluations) finds. All vector work is eager
tensor ops under ``no_grad`` in the parameters' dtype and device; scalars
(dot products, step lengths) are Python floats.

>>> opt = eager.optimizer.LBFGS(learning_rate=1.0, parameters=[x], line_search_fn="strong_wolfe")
>>> def closure():
...     opt.clear_grad()
...     loss = f(x)
...     loss.backward()
...     return loss
>>> opt.step(closure)
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from phi import api as phi_api

from ..autograd.grad_mode import enable_grad, no_grad
from ..creation import to_tensor
from ..errors import UnsupportedOptionError
from ..generated import forward_api as _F
from ..tensor import Tensor
from .optimizer import Optimizer, _check_finite, _dense

_C1, _C2, _MAX_LS = 1e-4, 0.9, 25


class LBFGS(Optimizer):
    """L-BFGS with Paddle's arguments: ``learning_rate`` (the step length, 1.0),
    ``max_iter`` (iterations per :meth:`step`, 20), ``max_eval`` (closure
    evaluations per step, max_iter * 5 // 4 when None), ``tolerance_grad``
    (stop when max |grad| <= it), ``tolerance_change`` (stop when the step or
    the change of the loss is below it), ``history_size`` (curvature pairs
    kept, 100), ``line_search_fn`` (None or "strong_wolfe").

    ``step(closure)`` calls ``closure`` (which clears the gradients, computes
    the loss, calls ``backward`` and returns the loss) as often as needed and
    returns the loss of its first call. ``weight_decay`` (an L2Decay/L1Decay or
    float) adds its gradient to the flat gradient; ``grad_clip`` clips it.

    >>> opt = eager.optimizer.LBFGS(parameters=model.parameters(), line_search_fn="strong_wolfe")
    >>> loss = opt.step(closure)
    """

    _int_learning_rate = True

    def __init__(self, learning_rate: float = 1.0, max_iter: int = 20, max_eval=None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn=None, parameters=None, weight_decay=None,
                 grad_clip=None, name=None):
        who = "LBFGS"
        # A value of the wrong kind is a TypeError (as Paddle's, whose arithmetic on it fails),
        # a number out of range a ValueError.
        for arg, value in (("max_iter", max_iter), ("history_size", history_size)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{who}: argument '{arg}' expected a positive int, got {value!r}")
            if value < 1:
                raise ValueError(f"{who}: argument '{arg}' expected a positive int, got {value!r}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if isinstance(max_eval, bool) or not isinstance(max_eval, numbers.Integral):
            raise TypeError(f"{who}: argument 'max_eval' expected a positive int or None, got {max_eval!r}")
        if max_eval < 1:
            raise ValueError(f"{who}: argument 'max_eval' expected a positive int or None, got {max_eval!r}")
        for arg, value in (("tolerance_grad", tolerance_grad), ("tolerance_change", tolerance_change)):
            _check_finite(who, arg, value, positive=False)
        if line_search_fn not in (None, "strong_wolfe"):
            raise UnsupportedOptionError(f"{who}: argument 'line_search_fn' expected None or 'strong_wolfe', got "
                                         f"{line_search_fn!r}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        if self._param_groups:
            raise ValueError(f"{who}: argument 'parameters' expected a list of Tensors; LBFGS "
                             f"optimizes one flat vector and takes no parameter groups")
        if not self._parameter_list:
            raise ValueError(f"{who}: argument 'parameters' is empty; LBFGS searches along the flat vector "
                             f"of its parameters and needs at least one")
        self._max_iter, self._max_eval = int(max_iter), int(max_eval)
        self._tolerance_grad, self._tolerance_change = float(tolerance_grad), float(tolerance_change)
        self._history_size, self._line_search_fn = int(history_size), line_search_fn
        self._numel = [int(np.prod(p.shape)) for p in self._parameter_list]
        self.state = {"func_evals": 0, "n_iter": 0}

    # -- flat views of the parameters ---------------------------------------------
    def _flat_grad(self) -> Tensor:
        """The parameters' gradients (after grad_clip and weight decay) as one vector."""
        params_grads = []
        for p in self._parameter_list:
            grad = _dense(p.grad)
            if grad is None:
                grad = _F.zeros(p.shape, p.dtype)
            params_grads.append((p, grad))
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        flat = []
        for p, grad in params_grads:
            regularizer = self._regularizer_of(p)
            if regularizer is not None:
                grad = _F.add(grad, regularizer(p, grad))
            flat.append(grad.reshape([-1]))
        return _F.concat(flat) if len(flat) > 1 else flat[0].clone()

    def _flat_params(self) -> Tensor:
        flat = [p.reshape([-1]) for p in self._parameter_list]
        return _F.concat(flat) if len(flat) > 1 else flat[0].clone()

    def _set_params(self, flat: Tensor) -> None:
        pieces = _F.split(flat, self._numel) if len(self._numel) > 1 else [flat]
        for p, piece in zip(self._parameter_list, pieces):
            phi_api.assign_out_(piece.reshape(p.shape).impl, p.impl)

    def _add_step(self, t: float, d: Tensor) -> None:
        """params += t * d."""
        self._set_params(_F.add(self._flat_params(), _F.scale(d, t)))

    def _evaluate(self, closure) -> float:
        with enable_grad():
            loss = closure()
        if not isinstance(loss, Tensor):
            raise TypeError(f"LBFGS.step: the closure must return the loss Tensor, got "
                            f"{type(loss).__name__}")
        return float(loss.item())

    def _directional(self, closure, x: Tensor, t: float, d: Tensor):
        """(loss, flat gradient) at x + t * d; the parameters are put back to x."""
        self._set_params(_F.add(x, _F.scale(d, t)))
        loss = self._evaluate(closure)
        grad = self._flat_grad()
        self._set_params(x)
        return loss, grad

    # -- the step -----------------------------------------------------------------
    @no_grad()
    def step(self, closure=None):
        """Runs up to ``max_iter`` L-BFGS iterations, calling ``closure`` to evaluate
        the loss and gradients; returns the loss of the first evaluation."""
        if closure is None or not callable(closure):
            raise TypeError(f"LBFGS.step: argument 'closure' expected a callable that clears the "
                            f"gradients, computes the loss, calls backward and returns the loss, "
                            f"got {closure!r}")
        if self._lr_scheduler is not None:
            self._lr_value = self._lr_scheduler()
        lr = self._lr_value
        state = self.state
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss.item())
        current_evals = 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if _abs_max(g) <= self._tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_yk, old_sk, ro = state.setdefault("old_yk", []), state.setdefault("old_sk", []), \
            state.setdefault("ro", [])
        h_diag = state.get("H_diag", 1.0)
        prev_g, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < self._max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = _F.scale(g, -1.0)
                old_yk.clear(), old_sk.clear(), ro.clear()
                h_diag = 1.0
            else:
                y = _F.subtract(g, prev_g)
                s = _F.scale(d, t)
                ys = _dot(y, s)
                if ys > 1e-10:  # keep the pair only with positive curvature
                    if len(old_yk) == self._history_size:
                        old_yk.pop(0), old_sk.pop(0), ro.pop(0)
                    old_yk.append(y), old_sk.append(s), ro.append(1.0 / ys)
                    h_diag = ys / _dot(y, y)
                # two-loop recursion: d = -H g
                q = _F.scale(g, -1.0)
                alphas = [0.0] * len(old_yk)
                for i in range(len(old_yk) - 1, -1, -1):
                    alphas[i] = _dot(old_sk[i], q) * ro[i]
                    q = _F.subtract(q, _F.scale(old_yk[i], alphas[i]))
                d = _F.scale(q, h_diag)
                for i in range(len(old_yk)):
                    beta = _dot(old_yk[i], d) * ro[i]
                    d = _F.add(d, _F.scale(old_sk[i], alphas[i] - beta))
            prev_g, prev_loss = g.clone(), loss
            t = min(1.0, 1.0 / _abs_sum(g)) * lr if state["n_iter"] == 1 else lr
            gtd = _dot(g, d)
            if gtd > -self._tolerance_change:  # not a descent direction
                break
            if self._line_search_fn == "strong_wolfe":
                x = self._flat_params()
                loss, g, t, ls_evals = self._strong_wolfe(closure, x, t, d, loss, g, gtd)
                self._add_step(t, d)
                opt_cond = _abs_max(g) <= self._tolerance_grad
            else:
                self._add_step(t, d)
                ls_evals = 0
                opt_cond = False
                if n_iter != self._max_iter:
                    loss = self._evaluate(closure)
                    g = self._flat_grad()
                    opt_cond = _abs_max(g) <= self._tolerance_grad
                    ls_evals = 1
            current_evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == self._max_iter or current_evals >= self._max_eval or opt_cond:
                break
            if _abs_max(d) * abs(t) <= self._tolerance_change:
                break
            if abs(loss - prev_loss) < self._tolerance_change:
                break
        state.update(d=d, t=t, H_diag=h_diag, prev_flat_grad=prev_g, prev_loss=prev_loss)
        self._step_count += 1
        return orig_loss

    def _strong_wolfe(self, closure, x, t, d, f, g, gtd):
        """A step t satisfying the strong Wolfe conditions along d from x (loss f,
        gradient g, slope gtd < 0): bracket, then zoom. Returns (loss, gradient, t,
        evaluations)."""
        tol = self._tolerance_change
        d_norm = _abs_max(d)
        f_new, g_new = self._directional(closure, x, t, d)
        evals, gtd_new = 1, _dot(g_new, d)
        t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
        done, ls_iter = False, 0
        while ls_iter < _MAX_LS:
            if f_new > f + _C1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
                bracket, b_f, b_g, b_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
                break
            if abs(gtd_new) <= -_C2 * gtd:
                bracket, b_f, b_g, b_gtd = [t], [f_new], [g_new], [gtd_new]
                done = True
                break
            if gtd_new >= 0:
                bracket, b_f, b_g, b_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
                break
            # extrapolate: a cubic step between 1.01 t - 0.01 t_prev and 10 t
            low, high = t + 0.01 * (t - t_prev), t * 10
            t_next = _cubic_min(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, (low, high))
            t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
            t = t_next
            f_new, g_new = self._directional(closure, x, t, d)
            evals, gtd_new, ls_iter = evals + 1, _dot(g_new, d), ls_iter + 1
        else:
            bracket, b_f, b_g, b_gtd = [0.0, t], [f, f_new], [g, g_new], [gtd, gtd_new]

        # zoom: shrink the bracket [low, high] (low: the lower loss) until a point
        # meets both conditions
        insufficient = False
        lo, hi = (0, 1) if b_f[0] <= b_f[-1] else (1, 0)
        while not done and ls_iter < _MAX_LS:
            if abs(bracket[1] - bracket[0]) * d_norm < tol:
                break
            t = _cubic_min(bracket[0], b_f[0], b_gtd[0], bracket[1], b_f[1], b_gtd[1])
            b_max, b_min = max(bracket), min(bracket)
            margin = 0.1 * (b_max - b_min)
            if min(b_max - t, t - b_min) < margin:
                # too close to an end: move into the interval unless progress was made
                if insufficient or t >= b_max or t <= b_min:
                    t = b_max - margin if abs(t - b_max) < abs(t - b_min) else b_min + margin
                    insufficient = False
                else:
                    insufficient = True
            else:
                insufficient = False
            f_new, g_new = self._directional(closure, x, t, d)
            evals, gtd_new, ls_iter = evals + 1, _dot(g_new, d), ls_iter + 1
            if f_new > f + _C1 * t * gtd or f_new >= b_f[lo]:
                bracket[hi], b_f[hi], b_g[hi], b_gtd[hi] = t, f_new, g_new, gtd_new
                lo, hi = (0, 1) if b_f[0] <= b_f[1] else (1, 0)
            else:
                if abs(gtd_new) <= -_C2 * gtd:
                    done = True
                elif gtd_new * (bracket[hi] - bracket[lo]) >= 0:
                    bracket[hi], b_f[hi], b_g[hi], b_gtd[hi] = bracket[lo], b_f[lo], b_g[lo], b_gtd[lo]
                bracket[lo], b_f[lo], b_g[lo], b_gtd[lo] = t, f_new, g_new, gtd_new
        return b_f[lo], b_g[lo], bracket[lo], evals

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Not available for LBFGS, which must re-evaluate the loss: raises
        TypeError pointing to step(closure) (as Paddle's LBFGS)."""
        raise TypeError("LBFGS.minimize: LBFGS re-evaluates the loss, so it runs through "
                        "step(closure); call opt.step(closure)")

    def apply_gradients(self, params_grads):
        """Not available for LBFGS, which must re-evaluate the loss: raises
        TypeError pointing to step(closure), as :meth:`minimize` does."""
        raise TypeError("LBFGS.apply_gradients: LBFGS re-evaluates the loss, so it runs through "
                        "step(closure); call opt.step(closure)")

    # -- state ----------------------------------------------------------------------
    def state_dict(self) -> dict:
        """{"state": the iteration state (NumPy copies of the direction, the
        curvature pairs, the previous gradient; floats and counts), "@lr",
        "@step"} — restoring it with :meth:`set_state_dict` continues exactly."""
        state = {}
        for key, value in self.state.items():
            if isinstance(value, Tensor):
                state[key] = np.array(value.numpy(), copy=True)
            elif isinstance(value, list):
                state[key] = [np.array(v.numpy(), copy=True) if isinstance(v, Tensor) else v
                              for v in value]
            else:
                state[key] = value
        out = {"state": state, "@step": self._step_count, "@lr": self.get_lr()}
        if self._lr_scheduler is not None:
            out["LR_Scheduler"] = self._lr_scheduler.state_dict()
        return out

    def set_state_dict(self, state_dict) -> None:
        """Restores what :meth:`state_dict` returned; every vector must have the
        flat parameter size, else nothing changes and ValueError names the key."""
        who = "LBFGS.set_state_dict"
        if not isinstance(state_dict, dict) or not isinstance(state_dict.get("state"), dict):
            raise TypeError(f"{who}: argument 'state_dict' expected a dict with a 'state' dict, "
                            f"got {type(state_dict).__name__}")
        size = sum(self._numel)
        place = self._parameter_list[0].impl.place
        dtype = self._parameter_list[0].dtype

        def vector(key, value):
            array = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
            if array.shape != (size,):
                raise ValueError(f"{who}: {key!r} expected a vector of {size} elements (the "
                                 f"parameters' total size), got shape {list(array.shape)}")
            return to_tensor(array, place=place).astype(dtype)

        staged = {}
        for key, value in state_dict["state"].items():
            if key in ("d", "prev_flat_grad"):
                staged[key] = None if value is None else vector(key, value)
            elif key in ("old_yk", "old_sk"):
                staged[key] = [vector(key, v) for v in value]
            elif key in ("func_evals", "n_iter"):
                staged[key] = int(value)
            elif key == "ro":
                staged[key] = [float(v) for v in value]
            elif key in ("t", "H_diag", "prev_loss"):
                staged[key] = None if value is None else float(value)
        lr = state_dict.get("@lr")
        if self._lr_scheduler is None and lr is not None and not (
                isinstance(lr, numbers.Real) and lr >= 0 and math.isfinite(lr)):
            raise ValueError(f"{who}: '@lr' expected a finite float >= 0, got {lr!r}")
        if self._lr_scheduler is not None and "LR_Scheduler" in state_dict:
            self._lr_scheduler._apply(self._lr_scheduler._staged(state_dict["LR_Scheduler"]))
        elif lr is not None and self._lr_scheduler is None:
            self._lr_value = float(lr)
        self._step_count = int(state_dict.get("@step", self._step_count))
        self.state = staged


def _dot(a: Tensor, b: Tensor) -> float:
    return float(_F.multiply(a, b).sum().item())


def _abs_max(a: Tensor) -> float:
    return float(a.abs().max().item())


def _abs_sum(a: Tensor) -> float:
    return float(a.abs().sum().item())


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None) -> float:
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2
    (Nocedal & Wright eq. 3.59), clipped to bounds (default: between x1 and x2);
    the middle of the bounds when the cubic has no minimizer."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (low + high) / 2.0
    d2 = math.sqrt(disc)
    if x1 <= x2:
        t = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        t = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(t, low), high)


__all__ = ["LBFGS"]
