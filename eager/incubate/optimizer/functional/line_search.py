"""The strong-Wolfe line search of the functional minimizers (minimize_bfgs,
minimize_lbfgs): Nocedal & Wright's algorithms 3.5 (bracketing, doubling the
step) and 3.6 (zoom by safeguarded cubic interpolation), c1 = 1e-4, c2 = 0.9.

Vectors stay eager tensors; the scalars steering the search (values, slopes,
step lengths) are Python floats."""
from __future__ import annotations

from ....autograd.backward_api import grad
from ....autograd.grad_mode import enable_grad, no_grad
from ....generated import forward_api as _F
from ....optimizer.lbfgs import _cubic_min
from ....tensor import Tensor

C1, C2 = 1e-4, 0.9
ALPHA_MAX = 10.0


def value_and_gradient(op: str, func, x: Tensor):
    """``(func(x), d func / d x)``, both detached; func must return one element."""
    with enable_grad():
        leaf = x.detach()
        leaf.stop_gradient = False
        value = func(leaf)
        if not isinstance(value, Tensor) or value.size != 1:
            raise ValueError(f"{op}: objective_func expected to return a Tensor of one element, got "
                             f"{getattr(value, 'shape', type(value).__name__)}")
        if not value.dtype.is_floating_point:
            raise TypeError(f"{op}: objective_func expected to return a floating-point Tensor, got {value.dtype}")
        (gradient,) = grad(value, [leaf], allow_unused=True)
    if gradient is None:
        gradient = _F.zeros(x.shape, x.dtype, x.place)
    return value.detach(), gradient.detach()


def dot(a: Tensor, b: Tensor) -> float:
    return float(_F.multiply(a, b).sum().item())


class _Point:
    """Where the search has evaluated: step t, value f, gradient g, slope d = g . p."""

    __slots__ = ("t", "value", "f", "g", "d")

    def __init__(self, t, value, g, p):
        self.t, self.value, self.g = t, value, g
        self.f, self.d = float(value.item()), dot(g, p)


@no_grad()
def strong_wolfe(op: str, func, x: Tensor, p: Tensor, value: Tensor, g: Tensor, max_iters: int,
                 initial_step_length: float):
    """A step t along p from x meeting the strong Wolfe conditions. Returns
    ``(t, value, gradient, evaluations)`` at the accepted point; t = 0 (x itself)
    when p is no descent direction, the best point seen when max_iters run out."""
    start = _Point(0.0, value, g, p)
    if start.d >= 0:
        return 0.0, value, g, 0
    calls = 0

    def evaluate(t):
        nonlocal calls
        calls += 1
        new_value, new_g = value_and_gradient(op, func, _F.add(x, _F.scale(p, t)))
        return _Point(t, new_value, new_g, p)

    def sufficient(point):
        return point.f <= start.f + C1 * point.t * start.d

    def curvature(point):
        return abs(point.d) <= -C2 * start.d

    def zoom(low, high):
        best = low
        while calls < max_iters:
            width = abs(high.t - low.t)
            if width < 1e-12:
                break
            lo, hi = sorted((low.t, high.t))
            t = _cubic_min(low.t, low.f, low.d, high.t, high.f, high.d, (lo + 0.1 * width, hi - 0.1 * width))
            point = evaluate(t)
            if not sufficient(point) or point.f >= low.f:
                high = point
            else:
                if curvature(point):
                    return point
                if point.d * (high.t - low.t) >= 0:
                    high = low
                low = point
                best = point
        return best

    previous, t = start, float(initial_step_length)
    while calls < max_iters:
        point = evaluate(t)
        if not sufficient(point) or (previous is not start and point.f >= previous.f):
            point = zoom(previous, point)
            break
        if curvature(point):
            break
        if point.d >= 0:
            point = zoom(point, previous)
            break
        if t >= ALPHA_MAX:
            break
        previous, t = point, min(2.0 * t, ALPHA_MAX)
    return point.t, point.value, point.g, calls
