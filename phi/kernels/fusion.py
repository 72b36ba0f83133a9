"""Kernel bodies written once over ``xp``, run as one fused CuPy kernel on a GPU.

On a GPU each CuPy call costs the host 8-30 us (launch, allocation, argument
parsing) however small the arrays, so a rule of five elementwise steps costs
five launches where one would do. :func:`fused` turns a body written over an
array module, ``body(xp, *operands, **static)``, into a :class:`FusedKernel`
that calls it as is on NumPy and, on CuPy, as ``cupy.fuse`` of it: ONE kernel
for all its elementwise maths and at most one reduction, compiled once per
body, static switches, operand dtypes and ndims, and cached (by CuPy, on disk
too).

It lives in phi/kernels because only kernels use it: it is a way of writing a
kernel, not a device context (phi/backends) nor an op.

Rules for a body (what ``cupy.fuse`` compiles; tests/fake_cupy.py's ``fuse``
refuses the rest, so CI catches a body the GPU could not compile):

- operands are device arrays, Python numbers (weakly typed, as in ufuncs: a
  Python float does not widen float32) or None (a trace-time constant: test it
  with ``is None``); keywords are *static*: compile-time switches (bools,
  dtypes, axes) that select code with plain Python ``if``. Never pass a value
  that changes from call to call (a learning rate) as a keyword: each new
  value compiles a kernel.
- inside, only operators, ufuncs (``xp.sqrt``, ``xp.maximum``, ...), ``astype``,
  ``x[...] = value`` and one reduction (``xp.sum(..., axis=...)``, no keepdims)
  after which only scalar maths follows; no ``.shape``, ``.size``, indexing or
  values (no branch on data: a Python ``if`` only on static switches and None).
- in-place updates of operands (``p -= lr * g``) write the arrays given; the
  results returned are new arrays (never an operand itself).
- no arithmetic between a Python float operand and another scalar (``1.0 - beta1``,
  ``sqrt(beta)``): cupy.fuse does it in the smallest dtype holding the value, so on
  an H200 (CuPy 14.2) ``1.0 - 0.9`` came out 0.10009765625 (float16). Compute such
  coefficients before the call, or pass a NumPy float64 scalar (exact there). To
  match a host rule that computes in float32, pass NumPy scalars of float32: a
  float64 one widens a float32 expression (``g * c``) to float64 under NumPy's
  promotion, where the host rounds the constant to float32 first.

The GPU compiler contracts ``a * b + c`` into a fused multiply-add, so a fused
result may differ from the unfused formula's in the last bit; NumPy runs the
body's operations one by one, as written.

>>> import numpy as np
>>> @fused
... def axpy(xp, a, x, y):
...     return a * x + y
>>> axpy(np, 2.0, np.ones(2), np.zeros(2))
array([2., 2.])
"""
from __future__ import annotations

import numpy as np


class FusedKernel:
    """A body ``body(xp, *operands, **static)`` callable as ``kernel(xp, *operands,
    **static)``: on NumPy the body itself, elsewhere ``xp.fuse`` of it (see the
    module doc)."""

    __slots__ = ("body", "name", "_compiled")

    def __init__(self, body):
        name = getattr(body, "__name__", "")
        if not name.isidentifier():
            raise ValueError(f"fused: the body's name {name!r} is not an identifier: CuPy names the kernel "
                             f"after it, so write a named function (def), not a lambda")
        self.body = body
        self.name = name
        self._compiled: dict = {}

    def __call__(self, xp, *operands, **static):
        if xp is np:
            return self.body(np, *operands, **static)
        key = (xp, tuple(static.items())) if static else xp
        kernel = self._compiled.get(key)
        if kernel is None:
            kernel = self._compiled[key] = self._compile(xp, static)
        return kernel(*operands)

    def _compile(self, xp, static):
        body = self.body

        def kernel(*operands):
            return body(xp, *operands, **static)

        kernel.__name__ = kernel.__qualname__ = self.name  # the CUDA kernel's name
        return xp.fuse(kernel)

    def __repr__(self):
        return f"<fused kernel {self.name}>"


def fused(body) -> FusedKernel:
    """Decorator: ``body(xp, *operands, **static)`` as a :class:`FusedKernel`."""
    return FusedKernel(body)
