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


def window_geometry(in_sizes, kernel, strides, paddings, dilations, algorithm: str = "EXPLICIT",
                    ceil_mode: bool = False):
    """Padding and output size of a sliding window over each spatial axis
    (convolution, pooling), as Paddle computes them.

    ``paddings`` holds one int per axis (both sides) or two (before, after) per
    axis; ``algorithm`` "SAME" pads so that out = ceil(in / stride) (and, as in
    Paddle, uses dilation 1), "VALID" pads nothing. Returns (pads as
    ((before, after), ...), dilations used, output sizes); an output size may be
    <= 0 for a window larger than its padded input, which InferMeta refuses.
    """
    k = len(in_sizes)
    if algorithm == "SAME":
        dilations = (1,) * k
        pads = []
        for size, ks, s in zip(in_sizes, kernel, strides):
            out = -(-size // s)
            total = max((out - 1) * s + ks - size, 0)
            pads.append((total // 2, total - total // 2))
    elif algorithm == "VALID":
        pads = [(0, 0)] * k
    elif len(paddings) == k:
        pads = [(p, p) for p in paddings]
    else:
        pads = [(paddings[2 * i], paddings[2 * i + 1]) for i in range(k)]
    outs = []
    for size, ks, s, d, (before, after) in zip(in_sizes, kernel, strides, dilations, pads):
        span = size + before + after - (d * (ks - 1) + 1)
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= size + before:  # the last window must start inside input or left pad
            out -= 1
        outs.append(out)
    return tuple(pads), tuple(dilations), tuple(outs)


def pool_window_problem(spatial, kernel, pads, outs, padding_name: str):
    """What is wrong with a pooling window geometry (window_geometry's pads and
    output sizes over ``spatial``), as an error message's text, or None: a padding
    of at least the kernel size (a window of only padding has no value), or a
    kernel larger than the padded input. InferMeta and the functions that check
    before calling another op (1-D pooling, lp_pool) raise it as their own."""
    flat = [p for pair in pads for p in pair]
    if any(p >= ks for pair, ks in zip(pads, kernel) for p in pair):
        return (f"argument '{padding_name}' expected each padding smaller than the kernel size {list(kernel)} "
                f"(a window of only padding has no value), got {flat}")
    if any(o <= 0 for o in outs):
        return (f"the kernel {list(kernel)} is larger than the padded input {list(spatial)} (paddings {flat}): "
                f"output size {list(outs)}")
    return None


def padded_window_counts(sizes, kernel, strides, pads, outs) -> list:
    """Per axis, each pooling window's positions inside the padded input (the
    non-exclusive average's divisor, as Paddle's CPU kernel counts it): the
    kernel's size, less what a ceil_mode window overhangs past the right padding.
    Window i starts at i * stride - before; the padded input ends at size + after."""
    return [[min(ks, n + before + after - i * s) for i in range(o)]
            for n, ks, s, (before, after), o in zip(sizes, kernel, strides, pads, outs)]
