"""Kernels of the recurrent-network ops: one fused step of an LSTM, GRU or
simple RNN cell, and its gradient.

Each op takes ``x``, the input's projection for this step (``input @
weight_ih^T + bias_ih``, for the LSTM and simple RNN with ``bias_hh`` added
too), so a layer projects a whole sequence with one matmul and runs only the
recurrent part step by step. A step is one matmul with ``weight_hh`` and a few
vectorised elementwise passes; its gradient computes every gate's gradient at
once and ``weight_hh``'s with one more matmul. Gate orders are Paddle's
(and cuDNN's): LSTM [i, f, g, o], GRU [r, z, c].

The LSTM and GRU keep their activated gates as an intermediate output
(``gates``), which the gradient reads instead of recomputing the matmul; a
gradient arriving for ``gates`` itself (a double backward through the
composite rules) is added in.

Sigmoid is computed as (1 + tanh(x / 2)) / 2: one transcendental, no overflow
for any x.
"""
from __future__ import annotations

from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS


def _sigmoid_(xp, a):
    """sigmoid(a), written into a (a view is fine)."""
    a *= 0.5
    xp.tanh(a, out=a)
    a += 1.0
    a *= 0.5
    return a


def _recurrent(xp, h, weight_hh):
    """h @ weight_hh^T as a fresh array [batch, gates * hidden]."""
    return xp.matmul(h, weight_hh.T)


# -- LSTM ------------------------------------------------------------------------
@register_kernel("lstm_cell", ALL_BACKENDS, FLOATS)
def lstm_cell(ctx, x, h, c, weight_hh):
    xp = ctx.xp
    hidden = h.shape[-1]
    gates = _recurrent(xp, h, weight_hh)
    gates += x
    _sigmoid_(xp, gates[:, :2 * hidden])
    xp.tanh(gates[:, 2 * hidden:3 * hidden], out=gates[:, 2 * hidden:3 * hidden])
    _sigmoid_(xp, gates[:, 3 * hidden:])
    i, f, g, o = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
    c_out = f * c
    c_out += i * g
    h_out = xp.tanh(c_out)
    h_out *= o
    return h_out, c_out, gates


@register_kernel("lstm_cell_grad", ALL_BACKENDS, FLOATS)
def lstm_cell_grad(ctx, h, c, weight_hh, gates, h_out_grad, c_out_grad, gates_grad, *, out_mask=None):
    xp = ctx.xp
    want_x, want_h, want_c, want_w = out_mask or (True, True, True, True)
    hidden = h.shape[-1]
    i, f, g, o = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
    c_out = f * c
    c_out += i * g
    tanh_c = xp.tanh(c_out)
    # dc: the gradient reaching the new cell state, directly and through h_out.
    dc = xp.zeros(c.shape, dtype=c.dtype) if c_out_grad is None else c_out_grad.astype(c.dtype, copy=True)
    d_act = xp.empty(gates.shape, dtype=gates.dtype)            # d loss / d activated gates
    if h_out_grad is None:
        d_act[:, 3 * hidden:] = 0
    else:
        d_act[:, 3 * hidden:] = h_out_grad * tanh_c
        dc += h_out_grad * o * (1.0 - tanh_c * tanh_c)
    xp.multiply(dc, g, out=d_act[:, :hidden])
    xp.multiply(dc, c, out=d_act[:, hidden:2 * hidden])
    xp.multiply(dc, i, out=d_act[:, 2 * hidden:3 * hidden])
    if gates_grad is not None:
        d_act += gates_grad
    # Through the activations: sigmoid' = s (1 - s), tanh' = 1 - t^2.
    dgates = d_act
    s = gates[:, :2 * hidden]
    dgates[:, :2 * hidden] *= s * (1.0 - s)
    dgates[:, 2 * hidden:3 * hidden] *= 1.0 - g * g
    dgates[:, 3 * hidden:] *= o * (1.0 - o)
    h_grad = xp.matmul(dgates, weight_hh) if want_h else None
    c_grad = dc * f if want_c else None
    w_grad = xp.matmul(dgates.T, h) if want_w else None
    return (dgates if want_x else None), h_grad, c_grad, w_grad


# -- GRU -------------------------------------------------------------------------
@register_kernel("gru_cell", ALL_BACKENDS, FLOATS)
def gru_cell(ctx, x, h, weight_hh, bias_hh):
    xp = ctx.xp
    hidden = h.shape[-1]
    hp = _recurrent(xp, h, weight_hh)
    hp += bias_hh
    gates = xp.empty(h.shape[:-1] + (4 * hidden,), dtype=h.dtype)   # r, z, c, W_hc h + b_hc
    xp.add(x[:, :2 * hidden], hp[:, :2 * hidden], out=gates[:, :2 * hidden])
    _sigmoid_(xp, gates[:, :2 * hidden])
    gates[:, 3 * hidden:] = hp[:, 2 * hidden:]
    r, z = gates[:, :hidden], gates[:, hidden:2 * hidden]
    n = gates[:, 2 * hidden:3 * hidden]
    xp.multiply(r, hp[:, 2 * hidden:], out=n)
    n += x[:, 2 * hidden:]
    xp.tanh(n, out=n)
    # h_out = z h + (1 - z) n = n + z (h - n)
    h_out = h - n
    h_out *= z
    h_out += n
    return h_out, gates


@register_kernel("gru_cell_grad", ALL_BACKENDS, FLOATS)
def gru_cell_grad(ctx, h, weight_hh, gates, h_out_grad, gates_grad, *, out_mask=None):
    xp = ctx.xp
    want_x, want_h, want_w, want_b = out_mask or (True, True, True, True)
    hidden = h.shape[-1]
    r, z, n, hn = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
    d_act = xp.zeros(gates.shape, dtype=gates.dtype) if gates_grad is None else \
        gates_grad.astype(gates.dtype, copy=True)                # d loss / d (r, z, n, hn)
    if h_out_grad is not None:
        d_act[:, hidden:2 * hidden] += h_out_grad * (h - n)
        d_act[:, 2 * hidden:3 * hidden] += h_out_grad * (1.0 - z)
    dn_pre = d_act[:, 2 * hidden:3 * hidden]
    dn_pre *= 1.0 - n * n
    d_act[:, :hidden] += dn_pre * hn
    d_act[:, 3 * hidden:] += dn_pre * r
    d_act[:, :hidden] *= r * (1.0 - r)
    d_act[:, hidden:2 * hidden] *= z * (1.0 - z)
    x_grad = d_act[:, :3 * hidden] if want_x else None
    # The recurrent projection's gradient: r and z pre-activations, then hn.
    d_hp = xp.concatenate([d_act[:, :2 * hidden], d_act[:, 3 * hidden:]], axis=1)
    h_grad = None
    if want_h:
        h_grad = xp.matmul(d_hp, weight_hh)
        if h_out_grad is not None:
            h_grad += h_out_grad * z
    w_grad = xp.matmul(d_hp.T, h) if want_w else None
    b_grad = d_hp.sum(axis=0) if want_b else None
    if x_grad is not None:
        x_grad = xp.ascontiguousarray(x_grad)
    return x_grad, h_grad, w_grad, b_grad


# -- simple RNN ------------------------------------------------------------------
@register_kernel("simple_rnn_cell", ALL_BACKENDS, FLOATS)
def simple_rnn_cell(ctx, x, h, weight_hh, activation):
    xp = ctx.xp
    out = _recurrent(xp, h, weight_hh)
    out += x
    if activation == "tanh":
        xp.tanh(out, out=out)
    else:
        xp.maximum(out, 0, out=out)
    return out


@register_kernel("simple_rnn_cell_grad", ALL_BACKENDS, FLOATS)
def simple_rnn_cell_grad(ctx, h, weight_hh, h_out, h_out_grad, activation, *, out_mask=None):
    xp = ctx.xp
    want_x, want_h, want_w = out_mask or (True, True, True)
    if activation == "tanh":
        d_pre = h_out_grad * (1.0 - h_out * h_out)
    else:
        d_pre = h_out_grad * (h_out > 0)
    d_pre = d_pre.astype(h_out.dtype, copy=False)
    h_grad = xp.matmul(d_pre, weight_hh) if want_h else None
    w_grad = xp.matmul(d_pre.T, h) if want_w else None
    return (d_pre if want_x else None), h_grad, w_grad
