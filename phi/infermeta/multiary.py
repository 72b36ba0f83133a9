"""InferMeta of ops that take or give a list of tensors (concat, stack, split, unbind).

A list output is passed in as an empty list, which the function fills with
one MetaTensor per output: how many there are depends on the arguments.
"""
from __future__ import annotations

from ..core.errors import AssertedAxisError, InvalidArgumentError
from ..core.meta_tensor import MetaTensor
from .checks import normalize_axis


def _check_list(arg: str, xs) -> None:
    if not xs:
        raise InvalidArgumentError(f"argument '{arg}' expected at least one tensor, got an empty list")
    dtype = xs[0].dtype
    for i, t in enumerate(xs):
        if t.dtype is not dtype:
            raise InvalidArgumentError(
                f"argument '{arg}' expected tensors of one dtype, but {arg}[0] is {dtype} and "
                f"{arg}[{i}] is {t.dtype}"
            )


def concat_infer_meta(x, axis, out) -> None:
    """Joins along an existing axis: the other dims must agree."""
    _check_list("x", x)
    first = tuple(x[0].dims)
    if not first:
        raise InvalidArgumentError("argument 'x' holds 0-d tensors, which have no axis to concatenate along")
    a = normalize_axis("axis", axis, len(first))
    total = 0
    for i, t in enumerate(x):
        dims = tuple(t.dims)
        if len(dims) != len(first) or dims[:a] + dims[a + 1:] != first[:a] + first[a + 1:]:
            raise InvalidArgumentError(
                f"argument 'x': x[{i}] has shape {list(dims)}, which does not match x[0]'s "
                f"{list(first)} outside axis {axis}"
            )
        total += dims[a]
    out.dims = first[:a] + (total,) + first[a + 1:]
    out.dtype = x[0].dtype
    out.layout = x[0].layout


def stack_infer_meta(x, axis, out) -> None:
    """Joins along a new axis: all shapes must be equal."""
    _check_list("x", x)
    first = tuple(x[0].dims)
    for i, t in enumerate(x):
        if tuple(t.dims) != first:
            raise InvalidArgumentError(
                f"argument 'x': x[{i}] has shape {list(t.dims)} but x[0] has {list(first)}; "
                f"stack needs equal shapes"
            )
    a = normalize_axis("axis", axis, len(first) + 1)
    out.dims = first[:a] + (len(x),) + first[a:]
    out.dtype = x[0].dtype
    out.layout = x[0].layout


def split_sizes(dims, num_or_sections, axis) -> list:
    """The size of each piece: a number n means n equal pieces; a list gives the
    sizes, one of which may be -1 (the rest), so [n] is one piece of size n (as
    Paddle's split)."""
    if not dims:
        # Paddle asserts rank(x) + axis >= 0 (AssertionError) or checks the axis (ValueError)
        raise AssertedAxisError("argument 'x' is 0-d and cannot be split")
    a = normalize_axis("axis", axis, len(dims))
    length = dims[a]
    if isinstance(num_or_sections, int):
        n = num_or_sections
        if n <= 0 or length % n:
            raise InvalidArgumentError(
                f"argument 'num_or_sections' = {n} must divide the size {length} of axis {axis}"
            )
        return [length // n] * n
    sections = list(num_or_sections)
    if sections.count(-1) > 1 or any(s < -1 for s in sections):
        raise InvalidArgumentError(
            f"argument 'num_or_sections' expected sizes >= 0 and at most one -1, got {sections}"
        )
    known = sum(s for s in sections if s != -1)
    if -1 in sections:
        if known > length:
            raise InvalidArgumentError(
                f"argument 'num_or_sections' {sections} needs more than the {length} elements of axis {axis}"
            )
        sections[sections.index(-1)] = length - known
    elif known != length:
        raise InvalidArgumentError(
            f"argument 'num_or_sections' {sections} adds up to {known}, but axis {axis} has size {length}"
        )
    return sections


def split_infer_meta(x, num_or_sections, axis, out) -> None:
    dims = tuple(x.dims)
    a = normalize_axis("axis", axis, len(dims)) if dims else 0
    for size in split_sizes(dims, num_or_sections, axis):
        out.append(MetaTensor(dims[:a] + (size,) + dims[a + 1:], x.dtype, x.layout))


def unbind_infer_meta(x, axis, out) -> None:
    dims = tuple(x.dims)
    if not dims:
        raise InvalidArgumentError("argument 'x' is 0-d and cannot be unbound")
    a = normalize_axis("axis", axis, len(dims))
    for _ in range(dims[a]):
        out.append(MetaTensor(dims[:a] + dims[a + 1:], x.dtype, x.layout))
