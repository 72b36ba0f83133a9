"""Paddle's graph message passing (paddle.geometric.send_u_recv / send_ue_recv /
send_uv): node features gathered along edges (src_index -> dst_index), combined with
edge or destination features, and reduced into destination rows.

Built of differentiable ops (gather, the arithmetic ops, and eager.geometric's row
reduction), so every input that takes part gets its gradient. As Paddle: a 1-d x or
y is read as a column [N, 1]; 'sub' adds -y and 'div' multiplies by 1 / (y + 1e-12);
feature shapes (everything after dimension 0) broadcast right-aligned; out_size None
or <= 0 means x.shape[0] output rows; a row no edge reaches is 0.
"""
from __future__ import annotations

from ..composite import _paddle_api as _check
from ..generated import forward_api as _F
from . import _args
from ._reduce import _host_index, reduce_rows


def _column(t):
    return _F.reshape(t, [-1, 1]) if len(t.shape) == 1 else t


def _edges(op: str, x, src_index, dst_index, dst_rows: int | None):
    """The host src/dst indices, checked: src within x's rows, dst within dst_rows."""
    src = _args.index(op, "src_index", src_index, column=True)
    dst = _args.index(op, "dst_index", dst_index, column=True)
    _args.same_length(op, src, dst)
    _args.in_range(op, "src_index", src, x.shape[0], f"x of {x.shape[0]} rows")
    if dst_rows is not None:
        _args.in_range(op, "dst_index", dst, dst_rows, f"y of {dst_rows} rows")
    return src, dst


def _message(op: str, left, right, message_op: str):
    """left (op) right over [E, ...] tensors whose feature shapes broadcast right-aligned."""
    if left.dtype != right.dtype:
        raise TypeError(f"{op}: arguments 'x' and 'y' expected the same dtype, got {left.dtype} and {right.dtype}")
    lf, rf = list(left.shape[1:]), list(right.shape[1:])
    for a, b in zip(reversed(lf), reversed(rf)):
        if a != b and a != 1 and b != 1:
            raise ValueError(f"{op}: the feature shapes of 'x' {lf} and 'y' {rf} do not broadcast")
    width = max(len(lf), len(rf))
    left = _F.reshape(left, [left.shape[0]] + [1] * (width - len(lf)) + lf)
    right = _F.reshape(right, [right.shape[0]] + [1] * (width - len(rf)) + rf)
    if message_op in ("add", "sub"):
        return _F.add(left, right if message_op == "add" else _F.scale(right, -1.0))
    if message_op == "div":
        if not left.dtype.is_floating_point:
            raise TypeError(f"{op}: message_op 'div' expected floating-point 'x' and 'y', got {left.dtype}")
        right = _F.divide(_F.full([], 1.0, right.dtype, right.place), _F.scale(right, 1.0, 1e-12))
    return _F.multiply(left, right)


@_check.composed
def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """Gathers x's rows at src_index and reduces them ('sum', 'mean', 'max' or 'min')
    into the rows at dst_index: out[d] = reduce of x[src_index[e]] over the edges e with
    dst_index[e] == d. The result has out_size rows (x.shape[0] when out_size is None or
    <= 0); a row no edge reaches is 0. Differentiable in x.

    >>> x = eager.to_tensor([[0., 2., 3.], [1., 4., 5.], [2., 6., 7.]])
    >>> src, dst = eager.to_tensor([0, 1, 2, 0]), eager.to_tensor([1, 2, 1, 0])
    >>> eager.geometric.send_u_recv(x, src, dst, reduce_op="sum").numpy()
    array([[ 0.,  2.,  3.],
           [ 2.,  8., 10.],
           [ 1.,  4.,  5.]], dtype=float32)
    """
    op = "send_u_recv"
    x = _column(_args.values(op, "x", x))
    _check.choice(op, "reduce_op", reduce_op, _args.REDUCE_OPS)
    src, dst = _edges(op, x, src_index, dst_index, None)
    rows = _args.out_size(op, out_size, x.shape[0], dst)
    _args.in_range(op, "dst_index", dst, rows, f"an output of {rows} rows")
    return reduce_rows(_F.gather(x, _host_index(src, x), 0), dst, rows, reduce_op)


@_check.composed
def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum", out_size=None, name=None):
    """Like :func:`send_u_recv`, but each edge's message is x[src_index[e]] combined with
    the edge feature y[e] by message_op ('add', 'sub', 'mul' or 'div'; feature shapes
    broadcast) before the reduction. Differentiable in x and y.

    >>> x = eager.to_tensor([[0., 2., 3.], [1., 4., 5.], [2., 6., 7.]])
    >>> y = eager.to_tensor([1., 1., 1., 1.])
    >>> src, dst = eager.to_tensor([0, 1, 2, 0]), eager.to_tensor([1, 2, 1, 0])
    >>> eager.geometric.send_ue_recv(x, y, src, dst, "add", "sum").numpy()
    array([[ 1.,  3.,  4.],
           [ 4., 10., 12.],
           [ 2.,  5.,  6.]], dtype=float32)
    """
    op = "send_ue_recv"
    x = _column(_args.values(op, "x", x))
    y = _column(_args.values(op, "y", y))
    _check.choice(op, "message_op", message_op, _args.MESSAGE_OPS)
    _check.choice(op, "reduce_op", reduce_op, _args.REDUCE_OPS)
    src, dst = _edges(op, x, src_index, dst_index, None)
    if y.shape[0] != src.shape[0]:
        raise ValueError(f"{op}: argument 'y' expected one row per edge ({src.shape[0]}), got {y.shape[0]}")
    rows = _args.out_size(op, out_size, x.shape[0], dst)
    _args.in_range(op, "dst_index", dst, rows, f"an output of {rows} rows")
    messages = _message(op, _F.gather(x, _host_index(src, x), 0), y, message_op)
    return reduce_rows(messages, dst, rows, reduce_op)


@_check.composed
def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """Per edge e, x[src_index[e]] combined with y[dst_index[e]] by message_op ('add',
    'sub', 'mul' or 'div'; feature shapes broadcast): a tensor of one row per edge.
    Differentiable in x and y.

    >>> x = eager.to_tensor([[0., 2., 3.], [1., 4., 5.], [2., 6., 7.]])
    >>> y = eager.to_tensor([[0., 1., 2.], [2., 3., 4.], [4., 5., 6.]])
    >>> src, dst = eager.to_tensor([0, 1, 2, 0]), eager.to_tensor([1, 2, 1, 0])
    >>> eager.geometric.send_uv(x, y, src, dst, "add").numpy()
    array([[ 2.,  5.,  7.],
           [ 5.,  9., 11.],
           [ 4.,  9., 11.],
           [ 0.,  3.,  5.]], dtype=float32)
    """
    op = "send_uv"
    x = _column(_args.values(op, "x", x))
    y = _column(_args.values(op, "y", y))
    _check.choice(op, "message_op", message_op, _args.MESSAGE_OPS)
    src, dst = _edges(op, x, src_index, dst_index, y.shape[0])
    return _message(op, _F.gather(x, _host_index(src, x), 0), _F.gather(y, _host_index(dst, y), 0), message_op)
