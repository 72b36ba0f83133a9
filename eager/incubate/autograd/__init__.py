"""Paddle's ``paddle.incubate.autograd``: function-form vjp/jvp, the
flattened ``Jacobian``/``Hessian`` matrices of a function, ``grad`` and
``forward_grad`` over a recorded graph, and the prim-mode switches.

Every op's gradient here is already written with differentiable ops, so
Paddle's "prim" mode (lowering ops to primitives so static graphs can take
higher-order gradients) has nothing to change: ``enable_prim``/``disable_prim``
only set the flag ``prim_enabled()`` reads back, and results are the same
either way.

Paddle's file-named modules load on first use: ``functional`` (vjp, jvp,
Jacobian, Hessian), ``primapi`` (grad, forward_grad) and ``utils`` (the prim
switches). Paddle's static-graph prim modules (primops, primx, ...) have no
counterpart here.
"""
from __future__ import annotations

import importlib
import math
import pkgutil

from ...autograd import functional as _functional
from ...autograd.backward_api import grad as _grad
from ...autograd.engine import run_backward
from ...autograd.grad_mode import enable_grad, no_grad
from ...autograd.meta import AutogradMeta, records_gradient
from ...errors import AutogradError
from ...generated import forward_api as _F
from ...tensor import Tensor

_PRIM = {"enabled": False}


def enable_prim():
    """Sets the prim flag (no effect on computation here: see the module docstring).

    >>> eager.incubate.autograd.enable_prim(); eager.incubate.autograd.prim_enabled()
    True
    >>> eager.incubate.autograd.disable_prim()
    """
    _PRIM["enabled"] = True


def disable_prim():
    """Clears the prim flag (no effect on computation here)."""
    _PRIM["enabled"] = False


def prim_enabled() -> bool:
    """Whether :func:`enable_prim` was called last (no effect on computation here)."""
    return _PRIM["enabled"]


def _separate(xs):
    """xs as tensors of their own, so that one tensor listed twice counts as two
    inputs (as Paddle's functional API treats it): a tensor that needs no gradient
    becomes a fresh leaf on the same buffer, one that does a recorded copy (so
    results stay differentiable with respect to it)."""
    def single(x):
        if not isinstance(x, Tensor) or not records_gradient(x):
            return Tensor(x.impl, AutogradMeta()) if isinstance(x, Tensor) else x
        with enable_grad():
            return _F.assign(x)
    if isinstance(xs, (list, tuple)):
        return tuple(single(x) for x in xs)
    return single(xs)


def vjp(func, xs, v=None):
    """``(func(xs), v^T J)``: func's outputs and the vector-Jacobian product;
    ``v`` shaped like the outputs (None: ones), the product like ``xs``. As in
    Paddle, both are recorded (``stop_gradient=False``), so they differentiate
    again, and a tensor listed twice in ``xs`` counts as two inputs.

    >>> x = eager.to_tensor([1.0, 2.0])
    >>> _, g = eager.incubate.autograd.vjp(lambda x: x * x, x)
    >>> g.numpy()
    array([2., 4.], dtype=float32)
    """
    return _functional.vjp(func, _separate(xs), v, create_graph=True)


def jvp(func, xs, v=None):
    """``(func(xs), J v)``: func's outputs and the Jacobian-vector product;
    ``v`` shaped like ``xs`` (None: ones), the product like the outputs. Both
    are recorded, as :func:`vjp`'s are.

    >>> x = eager.to_tensor([1.0, 2.0])
    >>> _, t = eager.incubate.autograd.jvp(lambda x: x * x, x)
    >>> t.numpy()
    array([2., 4.], dtype=float32)
    """
    return _functional.jvp(func, _separate(xs), v, create_graph=True)


def _as_tuple(who: str, arg: str, value) -> tuple:
    if isinstance(value, Tensor):
        return (value,)
    if isinstance(value, (list, tuple)) and value and all(isinstance(t, Tensor) for t in value):
        return tuple(value)
    raise TypeError(f"incubate.autograd.{who}: argument '{arg}' expected a Tensor or a non-empty list/tuple of "
                    f"Tensors, got {type(value).__name__}")


def _flat(t: Tensor, batched: bool) -> Tensor:
    return _F.reshape(t, [t.shape[0], -1] if batched else [-1])


def _matrix(func, xs: tuple, batched: bool) -> Tensor:
    """The Jacobian of func at xs with outputs and inputs flattened and
    concatenated: [M, N], or [B, M, N] (each sample's own block) when batched."""
    blocks = _functional.jacobian(func, xs, create_graph=True, allow_unused=True)  # xs a tuple: each row a tuple of blocks
    rows = [blocks] if not isinstance(blocks[0], tuple) else list(blocks)
    if any(all(b is None for b in row) for row in rows):  # an output no input reaches: ask func its shape
        with no_grad():
            outputs = func(*xs)
        out_shapes = [o.shape for o in ((outputs,) if isinstance(outputs, Tensor) else outputs)]
    else:
        out_shapes = [next(b.shape[:b.ndim - x.ndim] for b, x in zip(row, xs) if b is not None) for row in rows]
    matrix_rows = []
    for out_shape, row in zip(out_shapes, rows):
        out_size = math.prod(out_shape)
        parts = []
        for x, block in zip(xs, row):
            if block is None:
                block = _F.zeros(out_shape + x.shape, x.dtype, x.place)
            if batched:  # [B, m..., B, n...] -> the diagonal b == b' as [B, m, n]
                b = out_shape[0]
                square = _F.reshape(block, [b, out_size // b, b, x.size // b])
                parts.append(_F.transpose(_F.diagonal(square, 0, 0, 2), [2, 0, 1]))
            else:
                parts.append(_F.reshape(block, [out_size, x.size]))
        matrix_rows.append(_F.concat(parts, -1))
    return _F.concat(matrix_rows, -2)


def _check_batched(who: str, is_batched, xs: tuple) -> bool:
    if not isinstance(is_batched, bool):
        raise TypeError(f"incubate.autograd.{who}: argument 'is_batched' expected a bool, got {is_batched!r}")
    if is_batched:
        sizes = {x.shape[0] if x.ndim else None for x in xs}
        if None in sizes or len(sizes) != 1:
            raise ValueError(f"incubate.autograd.{who}: with is_batched=True every input expected the same "
                             f"leading batch dimension, got shapes {[x.shape for x in xs]}")
    return is_batched


class Jacobian:
    """The Jacobian matrix of ``func`` at ``xs``: inputs and outputs flattened
    and concatenated, shape ``[M, N]`` (M output elements, N input elements), or
    ``[B, M, N]`` with ``is_batched=True`` (axis 0 of every input and output is
    the batch, samples independent). Index it (``J[:]``, ``J[0, :]``) for a
    Tensor. Computed when made (Paddle computes rows on demand; the values are
    the same), recorded so it differentiates again; a tensor listed twice in
    ``xs`` counts as two inputs.

    >>> x = eager.to_tensor([1.0, 2.0])
    >>> eager.incubate.autograd.Jacobian(lambda x: x * x, x)[:].numpy()
    array([[2., 0.],
           [0., 4.]], dtype=float32)
    """

    def __init__(self, func, xs, is_batched=False):
        if not callable(func):
            raise TypeError(f"incubate.autograd.{type(self).__name__}: argument 'func' expected a callable, got "
                            f"{type(func).__name__}")
        xs = _separate(_as_tuple(type(self).__name__, "xs", xs))
        self.is_batched = _check_batched(type(self).__name__, is_batched, xs)
        self._value = self._evaluate(func, xs)

    def _evaluate(self, func, xs: tuple) -> Tensor:
        return _matrix(func, xs, self.is_batched)

    @property
    def shape(self) -> tuple:
        """``(M, N)``, or ``(B, M, N)`` when batched (a tuple, as in Paddle 2.6.2)."""
        return tuple(self._value.shape)

    def __getitem__(self, index):
        return self._value[index]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={self.shape}, is_batched={self.is_batched})"


class Hessian(Jacobian):
    """The Hessian matrix of a scalar ``func`` at ``xs`` (inputs flattened and
    concatenated): ``[N, N]``, or ``[B, N, N]`` with ``is_batched=True`` (func
    then returns ``[B, 1]`` or ``[B]``).

    >>> x = eager.to_tensor([1.0, 2.0])
    >>> eager.incubate.autograd.Hessian(lambda x: (x ** 3).sum(), x)[:].numpy()
    array([[ 6.,  0.],
           [ 0., 12.]], dtype=float32)
    """

    def _evaluate(self, func, xs: tuple) -> Tensor:
        batched = self.is_batched

        def gradient(*inputs):
            out = func(*inputs)
            wanted = [inputs[0].shape[0], 1] if batched else [1]
            # one value (per batch row when batched): [B] and [B, 1] alike, as Paddle's Jacobian
            # flattens func's output to [B, -1] before checking that its width is 1
            if not isinstance(out, Tensor) or out.size != (wanted[0] if batched else 1) or \
                    (batched and (not out.shape or out.shape[0] != wanted[0])):
                # AutogradError: a ValueError, and the RuntimeError Paddle raises here
                expected = f"shape {wanted} or {wanted[:1]}" if batched else "one element"
                raise AutogradError(f"incubate.autograd.Hessian: func expected to return a Tensor of {expected}, "
                                    f"got {getattr(out, 'shape', type(out).__name__)}")
            with enable_grad():
                grads = _grad(_F.sum(out), list(inputs), create_graph=True, allow_unused=True)
            flat = [_flat(_F.zeros(x.shape, x.dtype, x.place) if g is None else g, batched)
                    for g, x in zip(grads, inputs)]
            return _F.concat(flat, -1)

        return _matrix(gradient, xs, batched)


def grad(outputs, inputs, grad_outputs=None):
    """The gradients of ``outputs`` with respect to ``inputs`` on the recorded
    graph (eager.grad with ``create_graph=True``, so they differentiate again);
    None for an input the outputs do not reach.

    >>> x = eager.to_tensor(3.0, stop_gradient=False)
    >>> eager.incubate.autograd.grad(x * x, x).item()
    6.0
    """
    single = isinstance(inputs, Tensor)
    grads = _grad(outputs, inputs, grad_outputs, create_graph=True, allow_unused=True)
    return grads[0] if single else grads


def forward_grad(outputs, inputs, grad_inputs=None):
    """Forward mode on the recorded graph: ``J v`` of ``outputs`` with respect to
    ``inputs`` for tangents ``grad_inputs`` (shaped like inputs; None: ones),
    by the double-vjp trick. Returns a Tensor, or a list like ``outputs``.

    >>> x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> eager.incubate.autograd.forward_grad(x * x, x).numpy()
    array([2., 4.], dtype=float32)
    """
    single = isinstance(outputs, Tensor)
    outs = _as_tuple("forward_grad", "outputs", outputs)
    ins = _as_tuple("forward_grad", "inputs", inputs)
    if grad_inputs is None:
        tangents = [_F.ones(x.shape, x.dtype, x.place) for x in ins]
    else:
        tangents = list(_as_tuple("forward_grad", "grad_inputs", grad_inputs))
        if len(tangents) != len(ins) or any(t.shape != x.shape for t, x in zip(tangents, ins)):
            raise ValueError(f"incubate.autograd.forward_grad: argument 'grad_inputs' expected shapes "
                             f"{[x.shape for x in ins]}, got {[t.shape for t in tangents]}")
        if any(t.dtype != x.dtype for t, x in zip(tangents, ins)):
            raise TypeError(f"incubate.autograd.forward_grad: argument 'grad_inputs' expected the dtypes of "
                            f"inputs {[str(x.dtype) for x in ins]}, got {[str(t.dtype) for t in tangents]}")
    us = [Tensor(_F.zeros(o.shape, o.dtype, o.place).impl, AutogradMeta()) for o in outs]
    with enable_grad():
        gs = run_backward(list(outs), us, True, True, inputs=list(ins), allow_unused=True, what="forward_grad")
        used = [(g, t) for g, t in zip(gs, tangents) if g is not None and not g.stop_gradient]
        if used:
            ts = _grad([g for g, _ in used], us, [t for _, t in used], create_graph=True, allow_unused=True)
        else:
            ts = [None] * len(us)
    result = [_F.zeros(o.shape, o.dtype, o.place) if t is None else t for t, o in zip(ts, outs)]
    return result[0] if single else result


__all__ = ["Hessian", "Jacobian", "disable_prim", "enable_prim", "forward_grad", "grad", "jvp", "prim_enabled",
           "vjp"]

# Paddle's file-named modules of this package (see the docstring).
_PADDLE_FILES = frozenset(module.name for module in pkgutil.iter_modules(__path__))


def __getattr__(name):
    if name in _PADDLE_FILES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'eager.incubate.autograd' has no attribute {name!r}")
