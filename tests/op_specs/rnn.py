"""The op table of the recurrent-network ops: one step of an LSTM, GRU or simple
RNN cell, and the step's gradient.

The forward references write the cells' equations (Paddle's documentation)
with NumPy: the gates from x + h @ W^T, one gate at a time. The gradient
references differentiate those equations by hand, gate by gate, from the
activated gates the backward ops take; ``prepare`` makes those gates valid
activations (sigmoids in (0, 1), tanh in (-1, 1)) of random pre-activations.
"""
from __future__ import annotations

import numpy as np

from eager.generated import forward_api as F

from .core import Case, OpSpec, ref_sigmoid


def _split(a, k):
    return np.split(a, k, axis=-1)


# -- forward references ----------------------------------------------------------------
def ref_lstm_cell(x, h, c, weight_hh):
    xi, xf, xg, xo = _split(x, 4)
    wi, wf, wg, wo = np.split(weight_hh, 4, axis=0)
    i = ref_sigmoid(xi + h @ wi.T)
    f = ref_sigmoid(xf + h @ wf.T)
    g = np.tanh(xg + h @ wg.T)
    o = ref_sigmoid(xo + h @ wo.T)
    c_new = f * c + i * g
    return (o * np.tanh(c_new)).astype(h.dtype), c_new.astype(h.dtype)


def ref_gru_cell(x, h, weight_hh, bias_hh):
    xr, xz, xc = _split(x, 3)
    wr, wz, wc = np.split(weight_hh, 3, axis=0)
    br, bz, bc = np.split(bias_hh, 3)
    r = ref_sigmoid(xr + h @ wr.T + br)
    z = ref_sigmoid(xz + h @ wz.T + bz)
    cand = np.tanh(xc + r * (h @ wc.T + bc))
    return (z * h + (1 - z) * cand).astype(h.dtype)


def ref_simple_rnn_cell(x, h, weight_hh, activation="tanh"):
    pre = x + h @ weight_hh.T
    return (np.tanh(pre) if activation == "tanh" else np.where(pre > 0, pre, 0)).astype(h.dtype)


# -- gradient references ---------------------------------------------------------------
def ref_lstm_cell_grad(h, c, weight_hh, gates, h_out_grad, c_out_grad, gates_grad):
    i, f, g, o = _split(gates, 4)
    c_new = f * c + i * g
    zero = np.zeros_like(c)
    dh = zero if h_out_grad is None else h_out_grad
    gi, gf, gg, go = _split(np.zeros_like(gates) if gates_grad is None else gates_grad, 4)
    # h_out = o tanh(c_new); c_new = f c + i g
    dc_new = (zero if c_out_grad is None else c_out_grad) + dh * o * (1 - np.tanh(c_new) ** 2)
    d_i = (dc_new * g + gi) * i * (1 - i)
    d_f = (dc_new * c + gf) * f * (1 - f)
    d_g = (dc_new * i + gg) * (1 - g ** 2)
    d_o = (dh * np.tanh(c_new) + go) * o * (1 - o)
    d_pre = np.concatenate([d_i, d_f, d_g, d_o], axis=-1)
    # pre = x + h @ W^T
    return d_pre, d_pre @ weight_hh, dc_new * f, d_pre.T @ h


def ref_gru_cell_grad(h, weight_hh, gates, h_out_grad, gates_grad):
    r, z, n, hn = _split(gates, 4)
    dh = np.zeros_like(h) if h_out_grad is None else h_out_grad
    gr, gz, gn, ghn = _split(np.zeros_like(gates) if gates_grad is None else gates_grad, 4)
    # h_out = z h + (1 - z) n; n = tanh(x_c + r hn); r, z = sigmoid(x_rz + h W_rz^T + b_rz)
    d_n_pre = (dh * (1 - z) + gn) * (1 - n ** 2)
    d_r_pre = (d_n_pre * hn + gr) * r * (1 - r)
    d_z_pre = (dh * (h - n) + gz) * z * (1 - z)
    d_hn = d_n_pre * r + ghn
    d_x = np.concatenate([d_r_pre, d_z_pre, d_n_pre], axis=-1)
    d_proj = np.concatenate([d_r_pre, d_z_pre, d_hn], axis=-1)   # of h @ W^T + b
    return d_x, dh * z + d_proj @ weight_hh, d_proj.T @ h, d_proj.sum(axis=0)


def ref_simple_rnn_cell_grad(h, weight_hh, h_out, h_out_grad, activation="tanh"):
    slope = 1 - h_out ** 2 if activation == "tanh" else (h_out > 0).astype(h_out.dtype)
    d_pre = h_out_grad * slope
    return d_pre, d_pre @ weight_hh, d_pre.T @ h


# -- the saved gates: activations of random pre-activations ----------------------------------
def _lstm_gates(arrays, attrs):
    h, c, w, gates, *grads = arrays
    hidden = h.shape[-1]
    act = ref_sigmoid(gates)
    act[:, 2 * hidden:3 * hidden] = np.tanh(gates[:, 2 * hidden:3 * hidden])
    return [h, c, w, act.astype(gates.dtype), *grads]


def _gru_gates(arrays, attrs):
    h, w, gates, *grads = arrays
    hidden = h.shape[-1]
    act = ref_sigmoid(gates)
    act[:, 2 * hidden:3 * hidden] = np.tanh(gates[:, 2 * hidden:3 * hidden])
    act[:, 3 * hidden:] = gates[:, 3 * hidden:]
    return [h, w, act.astype(gates.dtype), *grads]


def _simple_out(arrays, attrs):
    h, w, h_out, g = arrays
    if attrs.get("activation", "tanh") == "tanh":
        h_out = np.tanh(h_out)
    return [h, w, h_out.astype(h.dtype), g]


# -- cases: (batch, hidden) ------------------------------------------------------------------
SIZES = ((2, 3), (1, 1), (3, 2))


def _lstm_cases():
    cases = [Case(((b, 4 * k), (b, k), (b, k), (4 * k, k))) for b, k in SIZES]
    return tuple(cases) + (Case(((0, 8), (0, 2), (0, 2), (8, 2)), grad=False),)   # an empty batch


def _lstm_grad_cases():
    cases = [Case(((b, k), (b, k), (4 * k, k), (b, 4 * k), (b, k), (b, k), (b, 4 * k))) for b, k in SIZES]
    cases.append(Case(((2, 3), (2, 3), (12, 3), (2, 12), (2, 3), None, None)))       # only h_out's gradient
    cases.append(Case(((2, 2), (2, 2), (8, 2), (2, 8), None, (2, 2), None)))         # only c_out's gradient
    return tuple(cases)


def _gru_cases():
    cases = [Case(((b, 3 * k), (b, k), (3 * k, k), (3 * k,))) for b, k in SIZES]
    return tuple(cases) + (Case(((0, 6), (0, 2), (6, 2), (6,)), grad=False),)


def _gru_grad_cases():
    cases = [Case(((b, k), (3 * k, k), (b, 4 * k), (b, k), (b, 4 * k))) for b, k in SIZES]
    cases.append(Case(((2, 3), (9, 3), (2, 12), (2, 3), None)))
    return tuple(cases)


def _simple_cases():
    return tuple(Case(((b, k), (b, k), (k, k)), {"activation": act})
                 for (b, k), act in zip(SIZES + ((0, 2),), ("tanh", "relu", "tanh", "relu")))


def _simple_grad_cases():
    return tuple(Case(((b, k), (k, k), (b, k), (b, k)), {"activation": act})
                 for (b, k), act in zip(SIZES, ("tanh", "relu", "tanh")))


SPECS = [
    OpSpec("lstm_cell", F.lstm_cell, ref_lstm_cell, ("real",) * 4, _lstm_cases()),
    OpSpec("gru_cell", F.gru_cell, ref_gru_cell, ("real",) * 4, _gru_cases()),
    # relu's kink: keep pre-activations away from 0 with "nonzero" x and small h, W.
    OpSpec("simple_rnn_cell", F.simple_rnn_cell, ref_simple_rnn_cell, ("nonzero", "open", "open"),
           _simple_cases()),
    OpSpec("lstm_cell_grad", F.lstm_cell_grad, ref_lstm_cell_grad, ("real",) * 7, _lstm_grad_cases(),
           prepare=_lstm_gates),
    OpSpec("gru_cell_grad", F.gru_cell_grad, ref_gru_cell_grad, ("real",) * 5, _gru_grad_cases(),
           prepare=_gru_gates),
    OpSpec("simple_rnn_cell_grad", F.simple_rnn_cell_grad, ref_simple_rnn_cell_grad, ("open", "open", "nonzero", "real"),
           _simple_grad_cases(), prepare=_simple_out),
]
