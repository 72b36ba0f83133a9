"""The op table of the recurrent-network ops: one step of an LSTM, GRU or simple
RNN cell, and the step's gradient.

The forward references write the cells' equations (Paddle's documentation)
with NumPy: the gates from x + h @ W^T, one gate at a time. The gradient
references differentiate those equations by hand, gate by gate, from the
activated gates the backward ops take; ``prepare`` makes those gates valid
activations (sigmoids in (0, 1), tanh in (-1, 1)) of random pre-activations.

The sequence ops' references run those step references over the time axis,
forwards or backwards, keeping the previous state where the mask is 0
(``prepare`` turns the drawn mask into zeros and ones); gradchecks leave the
mask out (it is not differentiable).
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


# -- whole sequences ----------------------------------------------------------------------
def _order(steps, is_reverse):
    return list(range(steps - 1, -1, -1) if is_reverse else range(steps))


def _keep(mask, t, new, old):
    if mask is None:
        return new
    return mask[t] * new + (1 - mask[t]) * old


def ref_lstm_sequence(x, h0, c0, weight_hh, mask, is_reverse=False):
    out, hs, cs = (np.zeros(x.shape[:2] + h0.shape[-1:], h0.dtype) for _ in range(3))
    h, c = h0, c0
    for t in _order(x.shape[0], is_reverse):
        h_new, c_new = ref_lstm_cell(x[t], h, c, weight_hh)
        out[t] = h_new
        h, c = _keep(mask, t, h_new, h), _keep(mask, t, c_new, c)
        hs[t], cs[t] = h, c
    return out, hs, cs


def ref_gru_sequence(x, h0, weight_hh, bias_hh, mask, is_reverse=False):
    out, hs = (np.zeros(x.shape[:2] + h0.shape[-1:], h0.dtype) for _ in range(2))
    h = h0
    for t in _order(x.shape[0], is_reverse):
        out[t] = ref_gru_cell(x[t], h, weight_hh, bias_hh)
        h = hs[t] = _keep(mask, t, out[t], h)
    return out, hs


def ref_simple_rnn_sequence(x, h0, weight_hh, mask, activation="tanh", is_reverse=False):
    out, hs = (np.zeros(x.shape[:2] + h0.shape[-1:], h0.dtype) for _ in range(2))
    h = h0
    for t in _order(x.shape[0], is_reverse):
        out[t] = ref_simple_rnn_cell(x[t], h, weight_hh, activation)
        h = hs[t] = _keep(mask, t, out[t], h)
    return out, hs


def _at(a, t):
    return None if a is None else a[t]


def _split_by_mask(mask, t, grad):
    """(the part of grad reaching the step's new state, the part reaching the previous one)."""
    if mask is None:
        return grad, 0.0
    return mask[t] * grad, (1 - mask[t]) * grad


def ref_lstm_sequence_grad(h0, c0, weight_hh, mask, gates, hs, cs, out_grad, hs_grad, cs_grad, gates_grad,
                           is_reverse=False):
    order = _order(gates.shape[0], is_reverse)
    x_grad = np.zeros(gates.shape, gates.dtype)
    w_grad = np.zeros(weight_hh.shape, gates.dtype)
    dh, dc = np.zeros_like(h0), np.zeros_like(c0)
    for k in reversed(range(len(order))):
        t = order[k]
        dh = dh + (0 if hs_grad is None else hs_grad[t])
        dc = dc + (0 if cs_grad is None else cs_grad[t])
        dh, keep_h = _split_by_mask(mask, t, dh)
        dc, keep_c = _split_by_mask(mask, t, dc)
        dh = dh + (0 if out_grad is None else out_grad[t])
        h_prev, c_prev = (h0, c0) if k == 0 else (hs[order[k - 1]], cs[order[k - 1]])
        x_grad[t], dh, dc, dw = ref_lstm_cell_grad(h_prev, c_prev, weight_hh, gates[t], dh, dc, _at(gates_grad, t))
        dh, dc, w_grad = dh + keep_h, dc + keep_c, w_grad + dw
    return x_grad, dh, dc, w_grad


def ref_gru_sequence_grad(h0, weight_hh, mask, gates, hs, out_grad, hs_grad, gates_grad, is_reverse=False):
    order = _order(gates.shape[0], is_reverse)
    hidden = h0.shape[-1]
    x_grad = np.zeros(gates.shape[:2] + (3 * hidden,), gates.dtype)
    w_grad = np.zeros(weight_hh.shape, gates.dtype)
    b_grad = np.zeros(3 * hidden, gates.dtype)
    dh = np.zeros_like(h0)
    for k in reversed(range(len(order))):
        t = order[k]
        dh, keep = _split_by_mask(mask, t, dh + (0 if hs_grad is None else hs_grad[t]))
        dh = dh + (0 if out_grad is None else out_grad[t])
        h_prev = h0 if k == 0 else hs[order[k - 1]]
        x_grad[t], dh, dw, db = ref_gru_cell_grad(h_prev, weight_hh, gates[t], dh, _at(gates_grad, t))
        dh, w_grad, b_grad = dh + keep, w_grad + dw, b_grad + db
    return x_grad, dh, w_grad, b_grad


def ref_simple_rnn_sequence_grad(h0, weight_hh, mask, out, hs, out_grad, hs_grad, activation="tanh",
                                 is_reverse=False):
    order = _order(out.shape[0], is_reverse)
    x_grad = np.zeros(out.shape, out.dtype)
    w_grad = np.zeros(weight_hh.shape, out.dtype)
    dh = np.zeros_like(h0)
    for k in reversed(range(len(order))):
        t = order[k]
        dh, keep = _split_by_mask(mask, t, dh + (0 if hs_grad is None else hs_grad[t]))
        dh = dh + (0 if out_grad is None else out_grad[t])
        h_prev = h0 if k == 0 else hs[order[k - 1]]
        x_grad[t], dh, dw = ref_simple_rnn_cell_grad(h_prev, weight_hh, out[t], dh, activation)
        dh, w_grad = dh + keep, w_grad + dw
    return x_grad, dh, w_grad


def _zero_one(mask):
    return None if mask is None else (mask > 0).astype(mask.dtype)


def _mask_at(position):
    def prepare(arrays, attrs):
        arrays = list(arrays)
        arrays[position] = _zero_one(arrays[position])
        return arrays
    return prepare


def _lstm_seq_grad_prepare(arrays, attrs):
    h0, c0, w, mask, gates, *rest = arrays
    hidden = h0.shape[-1]
    act = ref_sigmoid(gates)
    act[..., 2 * hidden:3 * hidden] = np.tanh(gates[..., 2 * hidden:3 * hidden])
    return [h0, c0, w, _zero_one(mask), act.astype(gates.dtype), *rest]


def _gru_seq_grad_prepare(arrays, attrs):
    h0, w, mask, gates, *rest = arrays
    hidden = h0.shape[-1]
    act = ref_sigmoid(gates)
    act[..., 2 * hidden:3 * hidden] = np.tanh(gates[..., 2 * hidden:3 * hidden])
    act[..., 3 * hidden:] = gates[..., 3 * hidden:]
    return [h0, w, _zero_one(mask), act.astype(gates.dtype), *rest]


def _simple_seq_grad_prepare(arrays, attrs):
    h0, w, mask, out, *rest = arrays
    if attrs.get("activation", "tanh") == "tanh":
        out = np.tanh(out)
    return [h0, w, _zero_one(mask), out.astype(h0.dtype), *rest]


# (time, batch, hidden, with a mask, is_reverse)
SEQUENCES = ((3, 2, 2, False, False), (3, 2, 2, True, True), (1, 1, 1, False, True), (4, 3, 2, True, False))
# The sequence backward ops' second-order checks (gradgradcheck, third derivatives of the
# recursion) take sequences of their own: each input element costs a finite difference of the
# whole recursion, so (3, 2, 2) cost 3-17 s a check and (4, 3, 2) minutes. Two steps already
# carry a state from one step into the next (as three do), hidden 2 keeps the weight's
# off-diagonal coupling, batch 2 the sum over the batch, and the pair keeps the mask, the
# reversed order and the gradients not given; the first-order checks keep SEQUENCES.
SECOND_ORDER_SEQUENCES = ((2, 2, 2, False, False), (2, 2, 2, True, True), (1, 1, 1, False, True))


def _seq_cases(gates, extra=(), activation=False):
    cases = []
    for k, (t, b, h, masked, reverse) in enumerate(SEQUENCES):
        attrs = {"is_reverse": reverse}
        if activation:
            attrs = {"activation": ("tanh", "relu")[k % 2], **attrs}
        states = ((b, h),) * (2 if gates == 4 else 1)
        cases.append(Case(((t, b, gates * h),) + states + ((gates * h, h),) + tuple(e(h) for e in extra)
                          + ((t, b, 1) if masked else None,), attrs))
    return tuple(cases)


def _seq_grad_cases(gates, lead, seq_in, grads, activation=False):
    """lead(h): the shapes before the mask; seq_in: how many [T, B, *] saved tensors follow it
    (their widths); grads: the gradient widths (None: not given, where the case is masked and
    reversed). Every sequence of SEQUENCES is a first-order case; those of SECOND_ORDER_SEQUENCES
    are also checked to second order."""
    cases = []
    for sequence in SEQUENCES + tuple(s for s in SECOND_ORDER_SEQUENCES if s not in SEQUENCES):
        t, b, h, masked, reverse = sequence
        attrs = {"is_reverse": reverse}
        if activation:
            attrs = {"activation": ("tanh", "relu")[masked], **attrs}
        saved = tuple((t, b, w * h) for w in seq_in)
        given = tuple(None if (masked and reverse and i > 0) else (t, b, w * h) for i, w in enumerate(grads))
        cases.append(Case(lead(b, h) + ((t, b, 1) if masked else None,) + saved + given, attrs,
                          gradgrad=sequence in SECOND_ORDER_SEQUENCES))
    return tuple(cases)


SPECS += [
    OpSpec("lstm_sequence", F.lstm_sequence, ref_lstm_sequence, ("real",) * 5, _seq_cases(4),
           prepare=_mask_at(4), wrt=(0, 1, 2, 3)),
    OpSpec("gru_sequence", F.gru_sequence, ref_gru_sequence, ("real",) * 5, _seq_cases(3, (lambda h: (3 * h,),)),
           prepare=_mask_at(4), wrt=(0, 1, 2, 3)),
    OpSpec("simple_rnn_sequence", F.simple_rnn_sequence, ref_simple_rnn_sequence, ("nonzero", "open", "open", "real"),
           _seq_cases(1, activation=True), prepare=_mask_at(3), wrt=(0, 1, 2)),
    OpSpec("lstm_sequence_grad", F.lstm_sequence_grad, ref_lstm_sequence_grad, ("real",) * 11,
           _seq_grad_cases(4, lambda b, h: ((b, h), (b, h), (4 * h, h)), (4, 1, 1), (1, 1, 1, 4)),
           prepare=_lstm_seq_grad_prepare, wrt=(0, 1, 2, 4, 5, 6, 7, 8, 9, 10)),
    OpSpec("gru_sequence_grad", F.gru_sequence_grad, ref_gru_sequence_grad, ("real",) * 8,
           _seq_grad_cases(3, lambda b, h: ((b, h), (3 * h, h)), (4, 1), (1, 1, 4)),
           prepare=_gru_seq_grad_prepare, wrt=(0, 1, 3, 4, 5, 6, 7)),
    OpSpec("simple_rnn_sequence_grad", F.simple_rnn_sequence_grad, ref_simple_rnn_sequence_grad,
           ("open", "open", "real", "nonzero", "real", "real", "real"),
           _seq_grad_cases(1, lambda b, h: ((b, h), (h, h)), (1, 1), (1, 1), activation=True),
           prepare=_simple_seq_grad_prepare, wrt=(0, 1, 3, 4, 5, 6)),
]
