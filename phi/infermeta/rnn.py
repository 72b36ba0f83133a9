"""InferMeta of the recurrent-network ops (one cell step and its gradient).

Shapes, with B the batch and H the hidden size: ``h`` and ``c`` [B, H];
``weight_hh`` [G*H, H]; ``x`` (the input's projection) [B, G*H], where G is
4 for the LSTM, 3 for the GRU and 1 for the simple RNN; the GRU's
``bias_hh`` [3*H]; the intermediate ``gates`` [B, 4*H]. The sequence ops
put a time axis T first: x [T, B, G*H], mask [T, B, 1], outputs [T, B, H],
gates [T, B, 4*H]; their initial states are h0 (and c0) [B, H].
"""
from __future__ import annotations

from ..core.errors import InvalidArgumentError
from .checks import same_dtype

__all__ = ["gru_cell_grad_infer_meta", "gru_cell_infer_meta", "gru_sequence_grad_infer_meta",
           "gru_sequence_infer_meta", "lstm_cell_grad_infer_meta", "lstm_cell_infer_meta",
           "lstm_sequence_grad_infer_meta", "lstm_sequence_infer_meta", "simple_rnn_cell_grad_infer_meta",
           "simple_rnn_cell_infer_meta", "simple_rnn_sequence_grad_infer_meta", "simple_rnn_sequence_infer_meta"]

_ACTIVATIONS = ("tanh", "relu")


def _set(meta, dims, like) -> None:
    if meta is not None:
        meta.dims, meta.dtype, meta.layout = tuple(dims), like.dtype, like.layout


def _expect(arg: str, meta, dims, what: str) -> None:
    if tuple(meta.dims) != tuple(dims):
        raise InvalidArgumentError(f"argument '{arg}' expected shape {list(dims)} ({what}), got "
                                   f"{list(meta.dims)}")


def _check_step(gates: int, x, h, weight_hh, more=(), h_name="h") -> tuple:
    """Checks h [B, H], weight_hh [gates*H, H] and x [B, gates*H] (and the
    dtypes of everything in ``more``); returns (B, H)."""
    if len(h.dims) != 2:
        raise InvalidArgumentError(f"argument '{h_name}' expected a 2-d tensor [batch, hidden], got shape "
                                   f"{list(h.dims)}")
    if not h.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument '{h_name}' expected a floating-point tensor, got {h.dtype}")
    batch, hidden = h.dims
    _expect("weight_hh", weight_hh, (gates * hidden, hidden), f"[{gates} * hidden, hidden], hidden = {hidden}")
    if x is not None:
        _expect("x", x, (batch, gates * hidden), f"[batch, {gates} * hidden], the input's projection")
    for name, meta in (("x", x), ("weight_hh", weight_hh)) + tuple(more):
        if meta is not None:
            same_dtype(h_name, h, name, meta)
    return batch, hidden


def lstm_cell_infer_meta(x, h, c, weight_hh, h_out, c_out, gates) -> None:
    """h_out, c_out [B, H]; gates [B, 4H] (activated i, f, g, o)."""
    batch, hidden = _check_step(4, x, h, weight_hh, (("c", c),))
    _expect("c", c, (batch, hidden), "the shape of h")
    _set(h_out, (batch, hidden), h)
    _set(c_out, (batch, hidden), h)
    _set(gates, (batch, 4 * hidden), h)


def lstm_cell_grad_infer_meta(h, c, weight_hh, gates, h_out_grad, c_out_grad, gates_grad,
                              x_grad, h_grad, c_grad, weight_hh_grad) -> None:
    batch, hidden = _check_step(4, None, h, weight_hh, (("c", c), ("gates", gates)))
    _expect("c", c, (batch, hidden), "the shape of h")
    _expect("gates", gates, (batch, 4 * hidden), "[batch, 4 * hidden]")
    for name, meta, dims in (("h_out_grad", h_out_grad, (batch, hidden)), ("c_out_grad", c_out_grad, (batch, hidden)),
                             ("gates_grad", gates_grad, (batch, 4 * hidden))):
        if meta is not None:
            _expect(name, meta, dims, "the forward output's shape")
    _set(x_grad, (batch, 4 * hidden), h)
    _set(h_grad, (batch, hidden), h)
    _set(c_grad, (batch, hidden), h)
    _set(weight_hh_grad, weight_hh.dims, h)


def gru_cell_infer_meta(x, h, weight_hh, bias_hh, h_out, gates) -> None:
    """h_out [B, H]; gates [B, 4H] (r, z, c and the candidate's W_hc h + b_hc)."""
    batch, hidden = _check_step(3, x, h, weight_hh, (("bias_hh", bias_hh),))
    _expect("bias_hh", bias_hh, (3 * hidden,), f"[3 * hidden], hidden = {hidden}")
    _set(h_out, (batch, hidden), h)
    _set(gates, (batch, 4 * hidden), h)


def gru_cell_grad_infer_meta(h, weight_hh, gates, h_out_grad, gates_grad, x_grad, h_grad, weight_hh_grad,
                             bias_hh_grad) -> None:
    batch, hidden = _check_step(3, None, h, weight_hh, (("gates", gates),))
    _expect("gates", gates, (batch, 4 * hidden), "[batch, 4 * hidden]")
    for name, meta, dims in (("h_out_grad", h_out_grad, (batch, hidden)),
                             ("gates_grad", gates_grad, (batch, 4 * hidden))):
        if meta is not None:
            _expect(name, meta, dims, "the forward output's shape")
    _set(x_grad, (batch, 3 * hidden), h)
    _set(h_grad, (batch, hidden), h)
    _set(weight_hh_grad, weight_hh.dims, h)
    _set(bias_hh_grad, (3 * hidden,), h)


def _check_activation(activation) -> None:
    if activation not in _ACTIVATIONS:
        raise InvalidArgumentError(f"argument 'activation' expected 'tanh' or 'relu', got {activation!r}")


def simple_rnn_cell_infer_meta(x, h, weight_hh, activation, h_out) -> None:
    """h_out [B, H] = activation(x + h @ weight_hh^T)."""
    batch, hidden = _check_step(1, x, h, weight_hh)
    _check_activation(activation)
    _set(h_out, (batch, hidden), h)


def simple_rnn_cell_grad_infer_meta(h, weight_hh, h_out, h_out_grad, activation, x_grad, h_grad,
                                    weight_hh_grad) -> None:
    batch, hidden = _check_step(1, None, h, weight_hh, (("h_out", h_out), ("h_out_grad", h_out_grad)))
    _check_activation(activation)
    _expect("h_out", h_out, (batch, hidden), "the shape of h")
    _expect("h_out_grad", h_out_grad, (batch, hidden), "the shape of h")
    _set(x_grad, (batch, hidden), h)
    _set(h_grad, (batch, hidden), h)
    _set(weight_hh_grad, weight_hh.dims, h)


# -- whole sequences ---------------------------------------------------------------------------
def _check_sequence(gates: int, x, h0, weight_hh, mask, more=(), x_name="x") -> tuple:
    """Checks x [T, B, gates*H] (T >= 1), h0 [B, H], weight_hh and the optional
    mask [T, B, 1]; returns (T, B, H)."""
    if len(x.dims) != 3:
        raise InvalidArgumentError(f"argument '{x_name}' expected a 3-d tensor [time, batch, {gates} * hidden], "
                                   f"got shape {list(x.dims)}")
    if x.dims[0] < 1:
        raise InvalidArgumentError(f"argument '{x_name}' expected at least one time step, got shape "
                                   f"{list(x.dims)}")
    steps = x.dims[0]
    batch, hidden = _check_step(gates, None, h0, weight_hh, ((x_name, x),) + tuple(more), h_name="h0")
    _expect(x_name, x, (steps, batch, gates * hidden), f"[time, batch, {gates} * hidden]")
    if mask is not None:
        _expect("mask", mask, (steps, batch, 1), "[time, batch, 1]")
        same_dtype("h0", h0, "mask", mask)
    return steps, batch, hidden


def _expect_grads(pairs) -> None:
    for name, meta, dims in pairs:
        if meta is not None:
            _expect(name, meta, dims, "the forward output's shape")


def lstm_sequence_infer_meta(x, h0, c0, weight_hh, mask, is_reverse, out, hs, cs, gates) -> None:
    """out, hs, cs [T, B, H]; gates [T, B, 4H]."""
    steps, batch, hidden = _check_sequence(4, x, h0, weight_hh, mask, (("c0", c0),))
    _expect("c0", c0, (batch, hidden), "the shape of h0")
    for meta in (out, hs, cs):
        _set(meta, (steps, batch, hidden), h0)
    _set(gates, (steps, batch, 4 * hidden), h0)


def lstm_sequence_grad_infer_meta(h0, c0, weight_hh, mask, gates, hs, cs, out_grad, hs_grad, cs_grad, gates_grad,
                                  is_reverse, x_grad, h0_grad, c0_grad, weight_hh_grad) -> None:
    steps, batch, hidden = _check_sequence(4, gates, h0, weight_hh, mask, (("c0", c0),), x_name="gates")
    _expect("c0", c0, (batch, hidden), "the shape of h0")
    seq = (steps, batch, hidden)
    _expect("hs", hs, seq, "[time, batch, hidden]")
    _expect("cs", cs, seq, "[time, batch, hidden]")
    _expect_grads((("out_grad", out_grad, seq), ("hs_grad", hs_grad, seq), ("cs_grad", cs_grad, seq),
                   ("gates_grad", gates_grad, (steps, batch, 4 * hidden))))
    _set(x_grad, (steps, batch, 4 * hidden), h0)
    _set(h0_grad, (batch, hidden), h0)
    _set(c0_grad, (batch, hidden), h0)
    _set(weight_hh_grad, weight_hh.dims, h0)


def gru_sequence_infer_meta(x, h0, weight_hh, bias_hh, mask, is_reverse, out, hs, gates) -> None:
    """out, hs [T, B, H]; gates [T, B, 4H]."""
    steps, batch, hidden = _check_sequence(3, x, h0, weight_hh, mask, (("bias_hh", bias_hh),))
    _expect("bias_hh", bias_hh, (3 * hidden,), f"[3 * hidden], hidden = {hidden}")
    _set(out, (steps, batch, hidden), h0)
    _set(hs, (steps, batch, hidden), h0)
    _set(gates, (steps, batch, 4 * hidden), h0)


def gru_sequence_grad_infer_meta(h0, weight_hh, mask, gates, hs, out_grad, hs_grad, gates_grad, is_reverse,
                                 x_grad, h0_grad, weight_hh_grad, bias_hh_grad) -> None:
    batch, hidden = _check_step(3, None, h0, weight_hh, (("gates", gates), ("hs", hs)), h_name="h0")
    if len(hs.dims) != 3 or hs.dims[0] < 1:
        raise InvalidArgumentError(f"argument 'hs' expected a 3-d tensor [time, batch, hidden] with at least one "
                                   f"time step, got shape {list(hs.dims)}")
    steps = hs.dims[0]
    seq = (steps, batch, hidden)
    _expect("hs", hs, seq, "[time, batch, hidden]")
    _expect("gates", gates, (steps, batch, 4 * hidden), "[time, batch, 4 * hidden]")
    if mask is not None:
        _expect("mask", mask, (steps, batch, 1), "[time, batch, 1]")
        same_dtype("h0", h0, "mask", mask)
    _expect_grads((("out_grad", out_grad, seq), ("hs_grad", hs_grad, seq),
                   ("gates_grad", gates_grad, (steps, batch, 4 * hidden))))
    _set(x_grad, (steps, batch, 3 * hidden), h0)
    _set(h0_grad, (batch, hidden), h0)
    _set(weight_hh_grad, weight_hh.dims, h0)
    _set(bias_hh_grad, (3 * hidden,), h0)


def simple_rnn_sequence_infer_meta(x, h0, weight_hh, mask, activation, is_reverse, out, hs) -> None:
    """out, hs [T, B, H]."""
    steps, batch, hidden = _check_sequence(1, x, h0, weight_hh, mask)
    _check_activation(activation)
    _set(out, (steps, batch, hidden), h0)
    _set(hs, (steps, batch, hidden), h0)


def simple_rnn_sequence_grad_infer_meta(h0, weight_hh, mask, out, hs, out_grad, hs_grad, activation, is_reverse,
                                        x_grad, h0_grad, weight_hh_grad) -> None:
    steps, batch, hidden = _check_sequence(1, out, h0, weight_hh, mask, (("hs", hs),), x_name="out")
    _check_activation(activation)
    seq = (steps, batch, hidden)
    _expect("hs", hs, seq, "[time, batch, hidden]")
    _expect_grads((("out_grad", out_grad, seq), ("hs_grad", hs_grad, seq)))
    _set(x_grad, seq, h0)
    _set(h0_grad, (batch, hidden), h0)
    _set(weight_hh_grad, weight_hh.dims, h0)
