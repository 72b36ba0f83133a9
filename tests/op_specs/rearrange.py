"""The op table of the rearrange ops.

The references pick elements by explicit index arithmetic (np.take with
computed index vectors, Python list slicing), not by the NumPy functions the
kernels call; the backward ops, all adjoints of linear maps, take theirs from
linear_vjp of the forward reference.
"""
from __future__ import annotations

import numpy as np

from eager.generated import forward_api as F

from .core import FLOATS, INTS, Case, OpSpec, linear_vjp

ALL = FLOATS + INTS + ("bool",)


def _take(x, index, axis):
    return np.take(x, np.asarray(index, dtype=np.int64), axis=axis)


def _tuple_result(op):
    def call(*tensors, **attrs):
        return tuple(op(*tensors, **attrs))
    return call


def _list_input(op):
    """broadcast_tensors takes its tensors as one list: the table passes them one by one."""
    def call(*tensors, **attrs):
        return tuple(op(list(tensors), **attrs))
    return call


def _grad_spec(name, fn, forward_ref, cases, *, saves_x, dtypes=FLOATS + INTS, in_x_dtype=False):
    """The row of a backward op of a linear forward op: (x, out_grad, attrs) when the
    backward saves x's shape, (out_grad, attrs) otherwise. ``in_x_dtype``: the
    forward reference reads its input in x's dtype (as_strided's byte offset)."""
    rows = []
    for case in cases:
        x = case.shapes[0]
        out = np.asarray(forward_ref(np.zeros(x), **case.attrs)).shape
        rows.append(Case((x, out) if saves_x else (out,), case.attrs))
    if saves_x:
        def reference(x, g, **attrs):
            cast = (lambda a: a.astype(x.dtype)) if in_x_dtype else (lambda a: a)
            return linear_vjp(lambda a: forward_ref(cast(a), **attrs), x.shape, g, g.dtype)
        return OpSpec(name, fn, reference, ("real", "real"), tuple(rows), dtypes=dtypes, wrt=(1,))

    def reference_from_shapes(g, **attrs):
        x_shape = next(c.shapes[0] for c, r in zip(cases, rows) if r.shapes[0] == g.shape and r.attrs == attrs)
        return linear_vjp(lambda a: forward_ref(a, **attrs), x_shape, g, g.dtype)
    return OpSpec(name, fn, reference_from_shapes, ("real",), tuple(rows), dtypes=dtypes)


def _as_lists(cases, name, **defaults):
    """Backward-op cases from forward ones: the attribute ``name`` as the list the
    generated forward op hands its grad node (an int n becomes [n]), and the
    defaults a backward op does not have."""
    return tuple(Case(c.shapes, {**defaults, **c.attrs,
                                 name: [c.attrs[name]] if isinstance(c.attrs[name], int) else c.attrs[name]})
                 for c in cases)


# -- tile ---------------------------------------------------------------------------------

def ref_tile(x, repeat_times):
    n = max(x.ndim, len(repeat_times))
    x = x.reshape((1,) * (n - x.ndim) + x.shape)
    reps = (1,) * (n - len(repeat_times)) + tuple(repeat_times)
    for axis, (d, r) in enumerate(zip(x.shape, reps)):
        x = _take(x, [i % d for i in range(d * r)], axis)  # out[i] = x[i mod d]
    return x


TILE_CASES = (
    Case(((2, 3),), {"repeat_times": [2, 3]}),
    Case(((2, 3),), {"repeat_times": [2]}),                # shorter: padded with 1s in front
    Case(((3,),), {"repeat_times": [2, 1, 2]}),            # longer: new leading axes
    Case(((),), {"repeat_times": [3]}),
    Case(((0, 2),), {"repeat_times": [3, 2]}),
    Case(((2, 1, 2),), {"repeat_times": [1, 1, 1]}),
)

# -- flip, roll, rot90, moveaxis, t -----------------------------------------------------------

def ref_flip(x, axis):
    axes = [axis] if isinstance(axis, int) else axis
    for a in axes:
        if x.ndim:
            a %= x.ndim
            x = _take(x, list(range(x.shape[a]))[::-1], a)
    return x


FLIP_CASES = (
    Case(((2, 3),), {"axis": [0]}),
    Case(((2, 3, 4),), {"axis": [-1, 0]}),
    Case(((2, 3),), {"axis": 1}),
    Case(((2, 3),), {"axis": []}),
    Case(((),), {"axis": [0]}),
    Case(((0, 3),), {"axis": [0, 1]}),
)


def ref_roll(x, shifts, axis=None):
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    if not axis:
        flat = x.reshape(-1)
        n = flat.size
        return _take(flat, [(i - shifts[0]) % n for i in range(n)], 0).reshape(x.shape) if n else x.copy()
    axis = [axis] if isinstance(axis, int) else axis
    for s, a in zip(shifts, axis):
        d = x.shape[a]
        x = _take(x, [(i - s) % d for i in range(d)], a % x.ndim)  # out[i] = x[i - s]
    return x


ROLL_CASES = (
    Case(((2, 3),), {"shifts": 1}),
    Case(((2, 3),), {"shifts": [-4], "axis": None}),
    Case(((2, 3),), {"shifts": [1, 5], "axis": [0, -1]}),
    Case(((2, 3, 2),), {"shifts": 2, "axis": 1}),
    Case(((2, 3),), {"shifts": [1, 1], "axis": [1, 1]}),    # a repeated axis rolls twice
    Case(((),), {"shifts": 3}),
    Case(((0, 3),), {"shifts": [2], "axis": [1]}),
)


def ref_rot90(x, k=1, axes=(0, 1)):
    a, b = (axis % x.ndim for axis in axes)
    for _ in range(k % 4):
        # One quarter turn from a towards b: out[.., i, .., j, ..] = x[.., j, .., n_b - 1 - i, ..].
        x = np.swapaxes(x, a, b)
        x = _take(x, list(range(x.shape[a]))[::-1], a)
    return x


ROT90_CASES = (
    Case(((2, 3),), {}),
    Case(((2, 3),), {"k": 2}),
    Case(((2, 3, 4),), {"k": -1, "axes": [2, 0]}),
    Case(((2, 3, 4),), {"k": 7, "axes": [-1, 1]}),
    Case(((2, 3),), {"k": 0}),
    Case(((0, 3),), {"k": 1}),
)


def ref_moveaxis(x, source, destination):
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [s % x.ndim for s in src]
    dst = [d % x.ndim for d in dst]
    # Result axis dst[i] is x's axis src[i]; the other result axes take x's others in order.
    order = [None] * x.ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(a for a in range(x.ndim) if a not in src)
    return np.transpose(x, [o if o is not None else next(rest) for o in order])


MOVEAXIS_CASES = (
    Case(((2, 3, 4),), {"source": 0, "destination": -1}),
    Case(((2, 3, 4),), {"source": [0, 2], "destination": [2, 0]}),
    Case(((2, 3, 4, 1),), {"source": [-1, 1], "destination": [0, 1]}),
    Case(((0, 3),), {"source": 1, "destination": 0}),
    Case(((3,),), {"source": [], "destination": []}),
)


def ref_t(input):
    return np.transpose(input) if input.ndim == 2 else input.copy()


T_CASES = (Case(((2, 3),)), Case(((3,),)), Case(((),)), Case(((0, 2),)))

# -- slice, strided_slice -----------------------------------------------------------------

def ref_slice(input, axes, starts, ends):
    for axis, start, end in zip(axes, starts, ends):
        d = input.shape[axis]
        # Paddle: count negatives from the end, then clamp into [0, d].
        lo = min(max(start + d if start < 0 else start, 0), d)
        hi = min(max(end + d if end < 0 else end, 0), d)
        input = _take(input, list(range(lo, hi)), axis % input.ndim)
    return input


SLICE_CASES = (
    Case(((4, 5),), {"axes": [0, 1], "starts": [1, 0], "ends": [3, 2]}),
    Case(((4, 5),), {"axes": [1], "starts": [-3], "ends": [100]}),         # an end past the size: to the end
    Case(((4, 5),), {"axes": [-1, 0], "starts": [-100, 2], "ends": [-1, 2]}),  # empty along axis 0
    Case(((4, 5),), {"axes": [0], "starts": [3], "ends": [1]}),            # end before start: empty
    Case(((2, 3, 4),), {"axes": [2], "starts": [1], "ends": [-1]}),
    Case(((0, 3),), {"axes": [1], "starts": [1], "ends": [3]}),
    Case(((),), {"axes": [], "starts": [], "ends": []}),
)


def ref_strided_slice(x, axes, starts, ends, strides):
    for axis, start, end, stride in zip(axes, starts, ends, strides):
        # Python's list slicing clamps exactly as Paddle's strided_slice does.
        x = _take(x, list(range(x.shape[axis]))[start:end:stride], axis % x.ndim)
    return x


STRIDED_SLICE_CASES = (
    Case(((6, 5),), {"axes": [0], "starts": [0], "ends": [6], "strides": [2]}),
    Case(((6, 5),), {"axes": [0, 1], "starts": [-1, 4], "ends": [-100, -6], "strides": [-2, -1]}),  # to the start
    Case(((6, 5),), {"axes": [1], "starts": [10], "ends": [-10], "strides": [-3]}),
    Case(((6, 5),), {"axes": [-1], "starts": [1], "ends": [100], "strides": [3]}),
    Case(((6, 5),), {"axes": [0], "starts": [2], "ends": [2], "strides": [1]}),       # empty
    Case(((6, 5),), {"axes": [0], "starts": [1], "ends": [4], "strides": [-1]}),      # empty: wrong direction
    Case(((2, 0, 3),), {"axes": [1, 2], "starts": [0, 2], "ends": [5, -100], "strides": [2, -1]}),
)

# -- expand_as, broadcast_tensors ------------------------------------------------------------

def ref_expand_as(x, y):
    lead = y.ndim - x.ndim
    out = x.reshape((1,) * lead + x.shape)
    for axis, size in enumerate(y.shape):
        if out.shape[axis] != size:
            out = _take(out, [0] * size, axis)  # a size-1 axis repeated
    return out


EXPAND_AS_CASES = (
    Case(((3, 1), (3, 4))),
    Case(((4,), (2, 3, 4))),
    Case(((), (2, 2))),
    Case(((1, 3), (0, 3))),
    Case(((2, 3), (2, 3))),
)


def ref_broadcast_tensors(*xs):
    shape = np.broadcast_shapes(*[x.shape for x in xs])
    return tuple(ref_expand_as(x, np.zeros(shape)) for x in xs)


BROADCAST_TENSORS_CASES = (
    Case(((2, 1, 3), (4, 1))),
    Case(((3,), ())),
    Case(((0, 3), (3,))),
    Case(((2, 3), (2, 3))),
)

# -- unstack, repeat_interleave ---------------------------------------------------------------

def ref_unstack(x, axis=0, num=None):
    axis %= x.ndim
    return tuple(_take(x, [i], axis).squeeze(axis) for i in range(x.shape[axis]))


UNSTACK_CASES = (
    Case(((3, 2),), {"axis": 0}),
    Case(((2, 3, 2),), {"axis": -2, "num": 3}),
    Case(((2,),), {}),
)


def _counts(repeats, n):
    if isinstance(repeats, int):
        return [repeats] * n
    repeats = [int(r) for r in np.asarray(repeats).reshape(-1)]
    return repeats * n if len(repeats) == 1 else repeats


def ref_repeat_interleave(x, repeats, axis=None):
    if axis is None or x.ndim == 0:
        x, axis = x.reshape(-1), 0
    axis %= x.ndim
    counts = _counts(repeats, x.shape[axis])
    return _take(x, [i for i, r in enumerate(counts) for _ in range(r)], axis)


REPEAT_INTERLEAVE_CASES = (
    Case(((2, 3),), {"repeats": 2}),                          # axis None: flattened
    Case(((2, 3),), {"repeats": 3, "axis": -1}),
    Case(((2, 3),), {"repeats": [1, 0, 2], "axis": 1}),       # one count per element
    Case(((3, 2),), {"repeats": [2], "axis": 0}),             # one count for all
    Case(((),), {"repeats": 2}),
    Case(((0, 2),), {"repeats": [3, 1], "axis": 1}),
    Case(((2, 2),), {"repeats": 0, "axis": 0}),
)

# -- tensor_split -----------------------------------------------------------------------------

def ref_tensor_split(x, num_or_indices, axis=0):
    size = x.shape[axis]
    if isinstance(num_or_indices, int):
        # n pieces whose sizes differ by at most one, the longer ones first.
        n = num_or_indices
        sizes = [size // n + (1 if i < size % n else 0) for i in range(n)]
        starts = [sum(sizes[:i]) for i in range(n)]
        return tuple(_take(x, list(range(s, s + k)), axis) for s, k in zip(starts, sizes))
    cuts = [0] + list(num_or_indices) + [size]
    # Each piece is the Python slice from one cut to the next.
    return tuple(_take(x, list(range(size))[lo:hi], axis) for lo, hi in zip(cuts[:-1], cuts[1:]))


TENSOR_SPLIT_CASES = (
    Case(((8, 2),), {"num_or_indices": 3}),
    Case(((2, 6),), {"num_or_indices": [2, 3], "axis": -1}),
    Case(((7,),), {"num_or_indices": [5, 2]}),                 # decreasing: an empty and an overlapping piece
    Case(((5, 2),), {"num_or_indices": [-2, 100]}),             # negative and out-of-range indices
    Case(((2, 3),), {"num_or_indices": [3], "axis": 0}),        # a one-index list cuts there
    Case(((0, 3),), {"num_or_indices": 2}),
    Case(((4,),), {"num_or_indices": 1}),
)


def ref_tensor_split_grad(x, g0, g1, g2, num_or_indices, axis=0):
    def joined(a):
        return np.concatenate([p.reshape(-1) for p in ref_tensor_split(a, num_or_indices, axis)])
    flat = np.concatenate([g.reshape(-1) for g in (g0, g1, g2)])
    return linear_vjp(joined, x.shape, flat, flat.dtype)


# The backward op's rows: the cases of three pieces, whose gradients the table passes one by one.
TENSOR_SPLIT_GRAD_CASES = tuple(
    Case((c.shapes[0],) + tuple(p.shape for p in ref_tensor_split(np.zeros(c.shapes[0]), **c.attrs)),
         {"axis": 0, **c.attrs})
    for c in TENSOR_SPLIT_CASES if len(ref_tensor_split(np.zeros(c.shapes[0]), **c.attrs)) == 3)


# -- as_strided -------------------------------------------------------------------------------

def ref_as_strided(x, shape, stride, offset=0):
    """Element i reads x.ravel()[offset / itemsize + sum(i_k * stride[k])] (offset
    counts bytes, as in Paddle), by explicit loops."""
    flat = np.asarray(x).reshape(-1)
    start = offset // flat.itemsize
    out = np.empty(tuple(shape), dtype=flat.dtype)
    for index in np.ndindex(*shape):
        out[index] = flat[start + sum(i * s for i, s in zip(index, stride))]
    return out


# Offsets of 16 bytes: a whole number of elements of every dtype (16 of int8, 1 of complex128).
# The first case has none: test_bfloat16 compares it with the reference run in float32.
AS_STRIDED_CASES = (
    Case(((2, 4),), {"shape": [4, 2], "stride": [1, 4]}),                 # the transpose
    Case(((24,),), {"shape": [3, 2], "stride": [1, 1], "offset": 16}),    # overlapping windows
    Case(((3, 3),), {"shape": [3], "stride": [4]}),                       # the diagonal
    Case(((20,),), {"shape": [2, 2], "stride": [0, 2], "offset": 16}),   # a repeated row
    Case(((20,),), {"shape": [], "stride": [], "offset": 16}),
    Case(((0,),), {"shape": [0, 3], "stride": [1, 1]}),
)


def ref_view_dtype(x, dtype):
    """x's bytes, row-major, read back as dtype (through a bytes object)."""
    x = np.asarray(x)
    target = np.dtype(dtype)
    shape = x.shape[:-1] + (x.shape[-1] * x.dtype.itemsize // target.itemsize,) if x.ndim else x.shape
    return np.frombuffer(x.tobytes(), dtype=target).reshape(shape)


VIEW_DTYPE_CASES = (
    Case(((2, 3),), {"dtype": "uint8"}),
    Case(((2, 8),), {"dtype": "float64"}),       # 8 elements divide into float64s for every dtype
    Case(((0, 8),), {"dtype": "int16"}),
)


SPECS: list = [
    OpSpec("tile", F.tile, ref_tile, ("real",), TILE_CASES, dtypes=ALL),
    _grad_spec("tile_grad", F.tile_grad, ref_tile, TILE_CASES, saves_x=True),
    OpSpec("flip", F.flip, ref_flip, ("real",), FLIP_CASES, dtypes=ALL),
    _grad_spec("flip_grad", F.flip_grad, ref_flip, FLIP_CASES, saves_x=False),
    OpSpec("slice", F.slice, ref_slice, ("real",), SLICE_CASES, dtypes=ALL),
    _grad_spec("slice_grad", F.slice_grad, ref_slice, SLICE_CASES, saves_x=True),
    OpSpec("chunk", _tuple_result(F.chunk),
           lambda x, chunks, axis=0: tuple(_take(x, list(range(i * x.shape[axis] // chunks,
                                                               (i + 1) * x.shape[axis] // chunks)), axis)
                                           for i in range(chunks)),
           ("real",),
           (Case(((6, 2),), {"chunks": 3}), Case(((2, 4),), {"chunks": 2, "axis": -1}),
            Case(((0, 3),), {"chunks": 3, "axis": 1})),
           dtypes=ALL),
    OpSpec("roll", F.roll, ref_roll, ("real",), ROLL_CASES, dtypes=ALL),
    _grad_spec("roll_grad", F.roll_grad, ref_roll, _as_lists(ROLL_CASES, "shifts", axis=None),
               saves_x=False),
    OpSpec("expand_as", F.expand_as, ref_expand_as, ("real", "real"), EXPAND_AS_CASES, dtypes=ALL, wrt=(0,)),
    OpSpec("expand_as_grad", F.expand_as_grad,
           lambda x, y, g: linear_vjp(lambda a: ref_expand_as(a, y), x.shape, g, g.dtype), ("real", "real", "real"),
           tuple(Case(c.shapes + (c.shapes[1],)) for c in EXPAND_AS_CASES), dtypes=FLOATS + INTS, wrt=(2,)),
    OpSpec("broadcast_tensors", _list_input(F.broadcast_tensors), ref_broadcast_tensors, ("real", "real"),
           BROADCAST_TENSORS_CASES, dtypes=ALL),
    OpSpec("broadcast_tensors_grad",
           lambda x0, x1, g0, g1: tuple(F.broadcast_tensors_grad([x0, x1], [g0, g1])),
           lambda x0, x1, g0, g1: tuple(linear_vjp(lambda a: ref_expand_as(a, g), x.shape, g, g.dtype)
                                        for x, g in ((x0, g0), (x1, g1))),
           ("real",) * 4,
           tuple(Case(c.shapes + (np.broadcast_shapes(*c.shapes),) * 2) for c in BROADCAST_TENSORS_CASES),
           dtypes=FLOATS + INTS, wrt=(2, 3)),
    OpSpec("moveaxis", F.moveaxis, ref_moveaxis, ("real",), MOVEAXIS_CASES, dtypes=ALL),
    _grad_spec("moveaxis_grad", F.moveaxis_grad, ref_moveaxis, MOVEAXIS_CASES, saves_x=False),
    OpSpec("t", F.t, ref_t, ("real",), T_CASES, dtypes=ALL),
    _grad_spec("t_grad", F.t_grad, ref_t, T_CASES, saves_x=False),
    OpSpec("unstack", _tuple_result(F.unstack), ref_unstack, ("real",), UNSTACK_CASES, dtypes=ALL),
    OpSpec("unstack_grad", lambda g0, g1, axis: F.unstack_grad([g0, g1], axis),
           lambda g0, g1, axis: np.stack([g0, g1], axis=axis), ("real", "real"),
           (Case(((2, 3), (2, 3)), {"axis": 0}), Case(((3,), (3,)), {"axis": -1}), Case(((), ()), {"axis": 0})),
           dtypes=FLOATS + INTS),
    OpSpec("repeat_interleave", F.repeat_interleave, ref_repeat_interleave, ("real",), REPEAT_INTERLEAVE_CASES,
           dtypes=ALL),
    _grad_spec("repeat_interleave_grad", F.repeat_interleave_grad,
               lambda x, repeats, axis=None: ref_repeat_interleave(x, repeats, axis),
               _as_lists(REPEAT_INTERLEAVE_CASES, "repeats", axis=None), saves_x=True),
    OpSpec("strided_slice", F.strided_slice, ref_strided_slice, ("real",), STRIDED_SLICE_CASES, dtypes=ALL),
    _grad_spec("strided_slice_grad", F.strided_slice_grad, ref_strided_slice, STRIDED_SLICE_CASES, saves_x=True),
    OpSpec("tensor_split", _tuple_result(F.tensor_split), ref_tensor_split, ("real",), TENSOR_SPLIT_CASES,
           dtypes=ALL),
    OpSpec("tensor_split_grad",
           lambda x, g0, g1, g2, num_or_indices, axis: F.tensor_split_grad(x, [g0, g1, g2], num_or_indices, axis),
           ref_tensor_split_grad, ("real",) * 4, TENSOR_SPLIT_GRAD_CASES, dtypes=FLOATS + INTS, wrt=(1, 2, 3)),
    OpSpec("as_strided", F.as_strided, ref_as_strided, ("real",), AS_STRIDED_CASES, dtypes=ALL),
    _grad_spec("as_strided_grad", F.as_strided_grad, ref_as_strided,
               tuple(Case(c.shapes, {"offset": 0, **c.attrs}) for c in AS_STRIDED_CASES), saves_x=True,
               in_x_dtype=True),
    OpSpec("view_dtype", F.view_dtype, ref_view_dtype, ("real",), VIEW_DTYPE_CASES, dtypes=ALL, grad=False),
    OpSpec("rot90", F.rot90, ref_rot90, ("real",), ROT90_CASES, dtypes=ALL),
    _grad_spec("rot90_grad", F.rot90_grad, ref_rot90,
               tuple(Case(c.shapes, {"k": 1, "axes": [0, 1], **c.attrs}) for c in ROT90_CASES), saves_x=False),
]
