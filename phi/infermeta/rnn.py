"""InferMeta of the recurrent-network ops (one cell step and its gradient).

Shapes, with B the batch and H the hidden size: ``h`` and ``c`` [B, H];
``weight_hh`` [G*H, H]; ``x`` (the input's projection) [B, G*H], where G is
4 for the LSTM, 3 for the GRU and 1 for the simple RNN; the GRU's
``bias_hh`` [3*H]; the intermediate ``gates`` [B, 4*H].
"""
from __future__ import annotations

from ..core.errors import InvalidArgumentError
from .checks import same_dtype

__all__ = ["gru_cell_grad_infer_meta", "gru_cell_infer_meta", "lstm_cell_grad_infer_meta",
           "lstm_cell_infer_meta", "simple_rnn_cell_grad_infer_meta", "simple_rnn_cell_infer_meta"]

_ACTIVATIONS = ("tanh", "relu")


def _set(meta, dims, like) -> None:
    if meta is not None:
        meta.dims, meta.dtype, meta.layout = tuple(dims), like.dtype, like.layout


def _expect(arg: str, meta, dims, what: str) -> None:
    if tuple(meta.dims) != tuple(dims):
        raise InvalidArgumentError(f"argument '{arg}' expected shape {list(dims)} ({what}), got "
                                   f"{list(meta.dims)}")


def _check_step(gates: int, x, h, weight_hh, more=()) -> tuple:
    """Checks h [B, H], weight_hh [gates*H, H] and x [B, gates*H] (and the
    dtypes of everything in ``more``); returns (B, H)."""
    if len(h.dims) != 2:
        raise InvalidArgumentError(f"argument 'h' expected a 2-d tensor [batch, hidden], got shape "
                                   f"{list(h.dims)}")
    if not h.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument 'h' expected a floating-point tensor, got {h.dtype}")
    batch, hidden = h.dims
    _expect("weight_hh", weight_hh, (gates * hidden, hidden), f"[{gates} * hidden, hidden], hidden = {hidden}")
    if x is not None:
        _expect("x", x, (batch, gates * hidden), f"[batch, {gates} * hidden], the input's projection")
    for name, meta in (("x", x), ("weight_hh", weight_hh)) + tuple(more):
        if meta is not None:
            same_dtype("h", h, name, meta)
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
