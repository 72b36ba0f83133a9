"""Shape arithmetic shared by InferMeta, kernels and eager's composite rules, so
each rule exists once: undoing a broadcast, inverting a permutation, the axes
a reduction removes."""
from __future__ import annotations


def broadcast_axes(source, target) -> tuple:
    """The axes of ``source`` (a broadcast result's shape) to sum over to get
    back ``target``: the leading extra axes, and those where target has 1."""
    source, target = tuple(source), tuple(target)
    if len(target) > len(source):  # target's extra leading dims are 1s (x[0] = v[None])
        target = target[len(target) - len(source):]
    lead = len(source) - len(target)
    return tuple(range(lead)) + tuple(lead + i for i, d in enumerate(target)
                                      if d == 1 and source[lead + i] != 1)


def inverse_permutation(perm) -> list:
    """The permutation that undoes ``perm`` (negative entries count from the end)."""
    n = len(perm)
    inverse = [0] * n
    for i, p in enumerate(perm):
        inverse[p % n] = i
    return inverse


def reduced_axes(ndim: int, axis) -> tuple:
    """The sorted axes a reduction over ``axis`` removes: every axis for an empty
    list, none for a 0-d input (which accepts axis 0 and -1)."""
    if not ndim:
        return ()
    return tuple(sorted({a % ndim for a in axis})) if axis else tuple(range(ndim))
