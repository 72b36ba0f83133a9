"""Functional autograd: Jacobians, Hessians and vector products of a function.

Each takes ``func`` (Tensors in, a Tensor or a tuple of Tensors out) and
``inputs`` (a Tensor or a sequence of Tensors). ``func`` is run on fresh
copies of the inputs that require gradients, so the caller's tensors need not
have ``stop_gradient=False`` and nothing is written into any ``.grad``.

Shapes, for inputs ``x_k`` and outputs ``y_i``:

- ``jacobian``: block ``[i][k]`` has shape ``y_i.shape + x_k.shape``;
- ``hessian`` (``func`` returns one element): block ``[j][k]`` has shape
  ``x_j.shape + x_k.shape``;
- ``vjp(func, inputs, v)``: ``v`` is shaped like the outputs, the result like the inputs;
- ``jvp(func, inputs, v)``: ``v`` is shaped like the inputs, the result like the outputs.

A single Tensor in (or out) gives a Tensor, not a one-element tuple, on that
side, as in ``torch.autograd.functional``.

With ``create_graph=True`` the results are differentiable, also with respect
to the caller's inputs when those have ``stop_gradient=False``; otherwise they
are plain tensors outside any graph.

jvp uses the double-vjp trick: ``g(u) = J^T u`` is linear in ``u``, so the
vjp of ``g`` with ``v`` is ``J v``. It needs the backward of every op between
inputs and outputs to be differentiable (all built-in ops are; a PyLayer is if
its backward is written with eager ops).
"""
from __future__ import annotations

import numpy as np

from phi import api as phi_api

from ..creation import to_tensor
from ..errors import AutogradError
from ..generated.forward_api import reshape, stack
from ..tensor import Tensor
from .backward_api import _as_differentiable, grad
from .engine import run_backward
from .grad_mode import enable_grad
from .meta import AutogradMeta, records_gradient


# -- public API ----------------------------------------------------------------

def jacobian(func, inputs, create_graph: bool = False, allow_unused: bool = False):
    """The Jacobian of ``func`` at ``inputs``.

    Block ``[i][k]`` is d outputs[i] / d inputs[k], of shape
    ``outputs[i].shape + inputs[k].shape``. Tuples are nested output-first;
    a single Tensor on either side drops that level of nesting.

    An output that does not depend on an input raises :class:`AutogradError`
    unless ``allow_unused=True``, which gives None for that block.

    >>> A = eager.to_tensor(np.arange(6.0).reshape(2, 3))
    >>> x = eager.to_tensor(np.ones(3))
    >>> jacobian(lambda x: eager.matmul(A, x), x).numpy()   # == A, shape [2, 3]
    >>> jx, jy = jacobian(lambda x, y: x * y, (x, x))       # two blocks, each [3, 3]
    """
    inputs_tuple, single_input = _as_inputs("jacobian", inputs)
    xs = _prepare(inputs_tuple, create_graph)
    outputs, single_output = _call("jacobian", func, xs)
    blocks = []
    for i, out in enumerate(outputs):
        row = _jacobian_of(out, xs, create_graph)
        for k, block in enumerate(row):
            if block is None and not allow_unused:
                raise AutogradError(
                    f"jacobian: output {i} does not depend on input {k}; pass allow_unused=True "
                    f"to get None for that block")
        blocks.append(tuple(row))
    return _nest(blocks, single_output, single_input)


def hessian(func, inputs, create_graph: bool = False, allow_unused: bool = False):
    """The Hessian of a scalar function ``func`` at ``inputs``.

    ``func`` must return a Tensor with one element. Block ``[j][k]`` is
    d^2 func / d inputs[j] d inputs[k], of shape ``inputs[j].shape + inputs[k].shape``;
    a single Tensor input gives a single Tensor.

    An input that ``func`` does not use raises :class:`AutogradError` unless
    ``allow_unused=True``, which gives None for its blocks. An input ``func``
    uses only linearly has zero blocks.

    >>> x = eager.to_tensor(np.array([1.0, 2.0]))
    >>> hessian(lambda x: (x ** 3).sum(), x).numpy()   # diag(6 x)
    array([[ 6.,  0.],
           [ 0., 12.]])
    """
    inputs_tuple, single_input = _as_inputs("hessian", inputs)
    xs = _prepare(inputs_tuple, create_graph)
    outputs, single_output = _call("hessian", func, xs)
    if not single_output or outputs[0].size != 1:
        shapes = [o.shape for o in outputs]
        raise ValueError(f"hessian: func must return a single Tensor with one element, got "
                         f"{'a Tensor of shape ' + str(shapes[0]) if single_output else 'a tuple of shapes ' + str(shapes)}")
    out = outputs[0]
    if not records_gradient(out):
        grads = [None] * len(xs)
    else:
        with enable_grad():
            grads = grad(out, list(xs), create_graph=True, allow_unused=True)
    blocks = []
    for j, g in enumerate(grads):
        if g is None:
            if not allow_unused:
                raise AutogradError(f"hessian: func does not depend on input {j}; pass "
                                    f"allow_unused=True to get None for its blocks")
            blocks.append((None,) * len(xs))
            continue
        # A gradient that is constant in every input (func linear in x_j) has zero blocks.
        row = _jacobian_of(g, xs, create_graph)
        blocks.append(tuple(_zeros(g.shape + x.shape, x) if b is None else b
                            for b, x in zip(row, xs)))
    return _nest(blocks, single_input, single_input)


def vjp(func, inputs, v=None, create_graph: bool = False, allow_unused: bool = True):
    """``(outputs, v^T J)``: func's outputs and the vector-Jacobian product with ``v``.

    ``v`` is shaped like the outputs (a Tensor, or a tuple with one Tensor per
    output); None means ones for every output, as in Paddle.
    The product is shaped like the inputs, zeros for an input the outputs do
    not use; ``allow_unused=False`` makes such an input an error instead.

    >>> x = eager.to_tensor(np.array([1.0, 2.0]))
    >>> out, g = vjp(lambda x: x * x, x, eager.to_tensor(np.array([1.0, 10.0])))
    >>> g.numpy()                                   # 2 x * v
    array([ 2., 40.])
    """
    inputs_tuple, single_input = _as_inputs("vjp", inputs)
    xs = _prepare(inputs_tuple, create_graph)
    outputs, single_output = _call("vjp", func, xs)
    vs = _check_vectors("vjp", v, outputs, single_output, "outputs")
    pairs = [(o, w) for o, w in zip(outputs, vs) if records_gradient(o)]
    if pairs:
        with enable_grad():
            grads = grad([o for o, _ in pairs], list(xs), [w for _, w in pairs],
                         retain_graph=create_graph, create_graph=create_graph, allow_unused=True)
    else:
        grads = [None] * len(xs)
    _check_used("vjp", "input", grads, allow_unused)
    # Under create_graph the zeros of an unused input are differentiable like the
    # other products, as grad(create_graph=True) makes them (Paddle's vjp too).
    result = tuple((_as_differentiable(_zeros(x.shape, x)) if create_graph else _zeros(x.shape, x))
                   if g is None else g for g, x in zip(grads, xs))
    return (_finish(outputs, single_output, create_graph),
            result[0] if single_input else result)


def jvp(func, inputs, v=None, create_graph: bool = False, allow_unused: bool = True):
    """``(outputs, J v)``: func's outputs and the Jacobian-vector product with ``v``.

    ``v`` is shaped like the inputs (a Tensor, or a tuple with one Tensor per
    input); None means ones for every input, as in Paddle. The product is
    shaped like the outputs, zeros for an output that depends on no input;
    ``allow_unused=False`` makes such an output an error instead.

    >>> x = eager.to_tensor(np.array([0.0, 1.0]))
    >>> out, t = jvp(eager.tanh, x, eager.to_tensor(np.array([1.0, 1.0])))
    >>> t.numpy()                                   # (1 - tanh(x)^2) * v
    array([1.        , 0.41997434])
    """
    inputs_tuple, single_input = _as_inputs("jvp", inputs)
    vs = _check_vectors("jvp", v, inputs_tuple, single_input, "inputs")
    xs = _prepare(inputs_tuple, create_graph)
    outputs, single_output = _call("jvp", func, xs)
    products = [None] * len(outputs)
    live = [i for i, o in enumerate(outputs) if records_gradient(o)]
    if live:
        # u: a dummy cotangent per output; g(u) = J^T u is linear in u.
        us = [Tensor(_zeros_impl(outputs[i].shape, outputs[i]), AutogradMeta()) for i in live]
        with enable_grad():
            # The engine itself, not grad(): grad would turn a gradient that records
            # no graph into a new leaf, hiding exactly what is checked below.
            gs = run_backward([outputs[i] for i in live], us, True, True, inputs=list(xs),
                              allow_unused=True, what="jvp")
            used = [(g, w) for g, w in zip(gs, vs) if g is not None]
            for g, x in zip(gs, xs):
                if g is not None and g.stop_gradient:
                    raise AutogradError(
                        "jvp: the gradient of the outputs with respect to an input is not "
                        "differentiable, so the double-vjp trick cannot be used: some op (a "
                        "PyLayer whose backward does not use eager ops?) has a backward that "
                        "records no graph")
            if used:
                ts = grad([g for g, _ in used], us, [w for _, w in used],
                          retain_graph=create_graph, create_graph=create_graph, allow_unused=True)
            else:
                ts = [None] * len(us)
        for i, t in zip(live, ts):
            products[i] = t
    _check_used("jvp", "output", products, allow_unused)
    result = tuple(_zeros(o.shape, o) if t is None else t for t, o in zip(products, outputs))
    return (_finish(outputs, single_output, create_graph),
            result[0] if single_output else result)


# -- helpers -------------------------------------------------------------------

def _check_used(op: str, side: str, products, allow_unused: bool) -> None:
    what = {"input": "is not used by any output", "output": "does not depend on any input"}[side]
    if not isinstance(allow_unused, bool):
        raise TypeError(f"{op}: argument 'allow_unused' expected a bool, got {allow_unused!r}")
    if not allow_unused:
        for index, product in enumerate(products):
            if product is None:
                raise AutogradError(f"{op}: {side} {index} {what}; pass allow_unused=True to get "
                                    f"zeros for it")


def _as_inputs(op: str, inputs):
    """(tuple of Tensors, whether a single Tensor was given), with checks."""
    single = isinstance(inputs, Tensor)
    if single:
        items = (inputs,)
    elif isinstance(inputs, (list, tuple)):
        items = tuple(inputs)
        if not items:
            raise ValueError(f"{op}: inputs is empty; give a Tensor or a sequence of Tensors")
    else:
        raise TypeError(f"{op}: inputs must be a Tensor or a sequence of Tensors, got "
                        f"{type(inputs).__name__}")
    for k, x in enumerate(items):
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}: inputs[{k}] is {type(x).__name__}, expected a Tensor")
        if not (x.dtype.is_floating_point or x.dtype.is_complex):
            raise TypeError(f"{op}: inputs[{k}] has dtype {x.dtype}; only floating-point "
                            f"inputs can be differentiated")
    if len({id(x) for x in items}) != len(items):
        raise ValueError(f"{op}: inputs lists the same tensor twice; pass each tensor once")
    return items, single


def _prepare(inputs, create_graph: bool) -> tuple:
    """The tensors func is run on: leaves sharing each input's buffer, or with
    create_graph a differentiable copy of an input that requires a gradient
    (so the results stay connected to it)."""
    xs = []
    for x in inputs:
        if create_graph and records_gradient(x):
            with enable_grad():
                xs.append(x * 1)  # a recorded identity: gradients flow on to x
        else:
            xs.append(Tensor(x.impl, AutogradMeta()))
    return tuple(xs)


def _call(op: str, func, xs):
    """func(*xs) with grad mode on, as (tuple of outputs, whether it returned a single Tensor)."""
    if not callable(func):
        raise TypeError(f"{op}: argument 'func' expected a callable, got {type(func).__name__}")
    with enable_grad():
        result = func(*xs)
    if isinstance(result, Tensor):
        return (result,), True
    if isinstance(result, (tuple, list)) and result and all(isinstance(r, Tensor) for r in result):
        return tuple(result), False
    raise TypeError(f"{op}: func must return a Tensor or a non-empty tuple of Tensors, got "
                    f"{type(result).__name__}")


def _check_vectors(op: str, v, like, single: bool, side: str) -> tuple:
    """v as a tuple matching ``like`` one to one in shape and dtype."""
    if v is None:  # ones for every one, as Paddle does
        return tuple(Tensor(phi_api.full_like(t.impl, 1, None)) for t in like)
    if isinstance(v, Tensor):
        vs = (v,)
    elif isinstance(v, (list, tuple)):
        vs = tuple(v)
    else:
        raise TypeError(f"{op}: v must be a Tensor or a tuple of Tensors, got {type(v).__name__}")
    # AutogradError: a ValueError, and the RuntimeError Paddle's incubate.autograd raises
    if len(vs) != len(like):
        raise AutogradError(f"{op}: v has {len(vs)} tensor(s) but there are {len(like)} {side}; "
                         f"give one v per {side[:-1]}")
    for k, (w, t) in enumerate(zip(vs, like)):
        if not isinstance(w, Tensor):
            raise TypeError(f"{op}: v[{k}] is {type(w).__name__}, expected a Tensor")
        if w.shape != t.shape:
            raise AutogradError(f"{op}: v[{k}] has shape {w.shape} but {side}[{k}] has shape "
                             f"{t.shape}; they must be equal")
        if w.dtype != t.dtype:
            raise AutogradError(f"{op}: v[{k}] has dtype {w.dtype} but {side}[{k}] has dtype "
                             f"{t.dtype}; they must be equal")
    return vs


def _jacobian_of(out, xs, create_graph: bool) -> list:
    """One Jacobian block of ``out`` per x (shape out.shape + x.shape), None where
    out does not reach x. One backward pass per element of out."""
    if not records_gradient(out):  # also an integer output flagged stop_gradient=False
        return [None] * len(xs)
    n = out.size
    if n == 0:
        return [_zeros(out.shape + x.shape, x) for x in xs]
    rows = [[] for _ in xs]
    seed = np.zeros(n, out.dtype.numpy_dtype)
    with enable_grad():
        for j in range(n):
            seed[:] = 0
            seed[j] = 1
            onehot = to_tensor(seed.reshape(out.shape), place=out.place)
            grads = grad(out, list(xs), onehot, retain_graph=True, create_graph=create_graph,
                         allow_unused=True)
            for k, g in enumerate(grads):
                rows[k].append(g)
        blocks = []
        for k, x in enumerate(xs):
            if all(g is None for g in rows[k]):
                blocks.append(None)
                continue
            if x.size == 0:
                # Nothing to stack; and reshape would read a 0 in the target shape as
                # "keep that axis" (Paddle's rule), giving [1, 0] for [0, 0].
                blocks.append(_zeros(out.shape + x.shape, x))
                continue
            filled = [_zeros(x.shape, x) if g is None else g for g in rows[k]]
            stacked = stack(filled, 0)                    # [n, *x.shape], differentiable
            blocks.append(reshape(stacked, out.shape + x.shape))
    return blocks


def _nest(blocks, single_outer: bool, single_inner: bool):
    """Drops the tuple levels that came from a single Tensor."""
    rows = [row[0] if single_inner else row for row in blocks]
    return rows[0] if single_outer else tuple(rows)


def _finish(outputs, single: bool, create_graph: bool):
    """func's outputs as returned to the caller: detached unless create_graph."""
    if not create_graph:
        outputs = tuple(Tensor(o.impl) for o in outputs)
    return outputs[0] if single else tuple(outputs)


def _zeros_impl(shape, like):
    return phi_api.full(list(shape), 0, like.dtype, like.place)


def _zeros(shape, like):
    return Tensor(_zeros_impl(shape, like))


__all__ = ["hessian", "jacobian", "jvp", "vjp"]
