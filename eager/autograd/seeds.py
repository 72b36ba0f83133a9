"""The ones a backward starts from (``loss.backward()`` without ``grad_tensor``), on a GPU
without a kernel launch per backward.

On the host fresh ones cost under a microsecond, and stay. On a GPU
it is a CuPy call (~18 us of host time, more than a small step's fused kernels),
so each thread keeps one ones-array per (device, dtype, shape) and lends it to
every backward that needs that seed, as long as nothing but this cache can reach
it and its version counter never moved:

- the engine never writes into a seed (``engine._exclusive``: the seed is never
  exclusively owned, so no kernel gets it as ``into``), and a leaf's ``.grad`` is
  a copy of it (the cache's reference makes it look shared to
  ``accumulation.accumulate_leaves``);
- anything that could write into it or keep it goes through a Tensor: an
  in-place op (a hook that breaks the contract and modifies its argument) moves
  its version counter, which views share; a tensor kept past the backward (a
  hook's stash, ``paddle.grad`` of the loss itself, ``create_graph``'s saved
  tensors) holds a reference to its DenseTensor or its array.

Either way the cached one is dropped at the next lend and a fresh one made in its
place, so a seed a backward starts from is always ones. Per thread, so two
threads never share one.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from phi import api as phi_api
from phi.core.dense_tensor import REFS_OF_ONE_LOCAL, DenseTensor
from phi.core.kernel_registry import BIND_HOOK
from phi.core.sparse_tensor import SparseCooTensor, SparseCsrTensor, with_values


class _Cache(threading.local):
    def __init__(self):
        self.ones: dict = {}


_CACHE = _Cache()
_LIMIT = 64  # (device, dtype, shape) entries per thread: the cache is emptied past this
_HOST_ONE: dict = {}  # NumPy dtype -> its read-only 0-d one, which host 0-d seeds copy


def _host_one(dtype):
    """The read-only 0-d one of ``dtype`` that host seeds of a 0-d tensor copy
    (a copy: the seed's owner may write into it; nothing writes this one)."""
    one = np.ones((), dtype)
    one.flags.writeable = False
    _HOST_ONE[dtype] = one
    return one


def _untouched(dense) -> bool:
    """Whether only the cache (and this call) refers to ``dense`` and its array,
    and no in-place op ever wrote it."""
    if REFS_OF_ONE_LOCAL is None or dense.version:
        return False
    array = dense.array
    # dense: the cache's dict, ones_like's `dense` and this `dense`; array: dense's slot and `array`
    return (sys.getrefcount(dense) == REFS_OF_ONE_LOCAL + 2
            and sys.getrefcount(array) == REFS_OF_ONE_LOCAL + 1)


def ones_like(impl):
    """The seed gradient of a tensor whose value is ``impl``: ones of its shape and
    dtype. A GPU dense tensor gets this thread's cached one when it is untouched
    (see the module doc); anything else a fresh ``full_like``, and so does every
    seed while eager.jit captures kernel calls (BIND_HOOK set): a capture must see
    the seed made by a kernel it records, not an array from before the call.

    The result is read-only for whoever receives it: the engine, which never
    writes into a seed. On the host, outside a capture, the fresh ones are made
    by NumPy directly (what the full_like kernel computes, without the phi
    call's frames: a third of the time); a 0-d seed, a loss's, is a copy of a
    read-only 0-d one per dtype (0.10 us against 0.30 for empty and fill).
    """
    if type(impl) is not DenseTensor or BIND_HOOK.hook is not None:
        if isinstance(impl, (SparseCooTensor, SparseCsrTensor)):  # ones at the stored entries, as Paddle seeds
            return with_values(impl, phi_api.full_like(impl.values, 1, None))
        return phi_api.full_like(impl, 1, None)
    array = impl.array
    if type(array) is np.ndarray:
        if array.ndim:
            ones = np.empty(array.shape, array.dtype)
            ones.fill(1)
        else:  # a loss: a copy of this dtype's read-only 0-d one (one call instead of two)
            one = _HOST_ONE.get(array.dtype)
            ones = (one if one is not None else _host_one(array.dtype)).copy()
        return DenseTensor(ones)
    key = (type(array), array.device.id, array.dtype, array.shape)
    ones = _CACHE.ones
    dense = ones.get(key)
    if dense is not None and _untouched(dense):
        return dense
    dense = phi_api.full_like(impl, 1, None)
    if len(ones) >= _LIMIT:
        ones.clear()
    ones[key] = dense
    return dense
