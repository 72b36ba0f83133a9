"""Composite rules of the recurrent-network ops (see eager/composite/__init__.py).

Each rule is its kernel's gradient written with differentiable ops, reading the
same saved values (the activated ``gates``), so a gradient taken under
``create_graph`` flows on into the forward op's ``gates`` output and from there
to x, h and the weights: every order works.
"""
from __future__ import annotations

from ..generated import forward_api as _F


def _one_minus(x):
    return _F.scale(x, -1.0, 1.0, True)


def _sigmoid_slope(s):
    return _F.multiply(s, _one_minus(s))


def _tanh_slope(t):
    return _one_minus(_F.multiply(t, t))


def lstm_cell_grad(h, c, weight_hh, gates, h_out_grad, c_out_grad, gates_grad):
    i, f, g, o = _F.split(gates, 4, -1)
    tanh_c = _F.tanh(_F.add(_F.multiply(f, c), _F.multiply(i, g)))
    dc = _F.full_like(c, 0, None) if c_out_grad is None else c_out_grad
    if h_out_grad is None:
        do = _F.full_like(o, 0, None)
    else:
        do = _F.multiply(h_out_grad, tanh_c)
        dc = _F.add(dc, _F.multiply(_F.multiply(h_out_grad, o), _tanh_slope(tanh_c)))
    d_act = _F.concat([_F.multiply(dc, g), _F.multiply(dc, c), _F.multiply(dc, i), do], -1)
    if gates_grad is not None:
        d_act = _F.add(d_act, gates_grad)
    slope = _F.concat([_sigmoid_slope(i), _sigmoid_slope(f), _tanh_slope(g), _sigmoid_slope(o)], -1)
    dgates = _F.multiply(d_act, slope)
    return (dgates, _F.matmul(dgates, weight_hh, False, False), _F.multiply(dc, f),
            _F.matmul(dgates, h, True, False))


def gru_cell_grad(h, weight_hh, gates, h_out_grad, gates_grad):
    r, z, n, hn = _F.split(gates, 4, -1)
    if gates_grad is None:
        dr, dz, dn, dhn = (_F.full_like(r, 0, None) for _ in range(4))
    else:
        dr, dz, dn, dhn = _F.split(gates_grad, 4, -1)
    h_direct = None
    if h_out_grad is not None:
        # h_out = z h + (1 - z) n
        dz = _F.add(dz, _F.multiply(h_out_grad, _F.subtract(h, n)))
        dn = _F.add(dn, _F.multiply(h_out_grad, _one_minus(z)))
        h_direct = _F.multiply(h_out_grad, z)
    dn_pre = _F.multiply(dn, _tanh_slope(n))                 # n = tanh(x_c + r hn)
    dr = _F.add(dr, _F.multiply(dn_pre, hn))
    dhn = _F.add(dhn, _F.multiply(dn_pre, r))
    dr_pre = _F.multiply(dr, _sigmoid_slope(r))
    dz_pre = _F.multiply(dz, _sigmoid_slope(z))
    x_grad = _F.concat([dr_pre, dz_pre, dn_pre], -1)
    d_hp = _F.concat([dr_pre, dz_pre, dhn], -1)              # of h @ weight_hh^T + bias_hh
    h_grad = _F.matmul(d_hp, weight_hh, False, False)
    if h_direct is not None:
        h_grad = _F.add(h_grad, h_direct)
    return x_grad, h_grad, _F.matmul(d_hp, h, True, False), _F.sum(d_hp, [0], None, False)


def simple_rnn_cell_grad(h, weight_hh, h_out, h_out_grad, activation):
    if activation == "tanh":
        d_pre = _F.multiply(h_out_grad, _tanh_slope(h_out))
    else:
        positive = _F.greater_than(h_out, _F.full_like(h_out, 0, None))
        d_pre = _F.where(positive, h_out_grad, _F.full_like(h_out_grad, 0, None))
    return d_pre, _F.matmul(d_pre, weight_hh, False, False), _F.matmul(d_pre, h, True, False)


# -- whole sequences: the step rules above, run backwards over the steps -------------------------
def _add(a, b):
    if a is None:
        return b
    return a if b is None else _F.add(a, b)


def _steps(x):
    return None if x is None else _F.unbind(x, 0)


def _at(parts, t):
    return None if parts is None else parts[t]


def _order(steps, is_reverse):
    return list(range(steps - 1, -1, -1) if is_reverse else range(steps))


def _through_mask(masks, t, grad):
    """(the part of grad reaching the step's new state, the part kept for the previous state)."""
    if masks is None or grad is None:
        return grad, None
    through = _F.multiply(grad, masks[t])
    return through, _F.subtract(grad, through)


def lstm_sequence_grad(h0, c0, weight_hh, mask, gates, hs, cs, out_grad, hs_grad, cs_grad, gates_grad, is_reverse):
    order = _order(gates.shape[0], is_reverse)
    g, h_seq, c_seq, masks = _steps(gates), _steps(hs), _steps(cs), _steps(mask)
    og, hg, cg, gg = _steps(out_grad), _steps(hs_grad), _steps(cs_grad), _steps(gates_grad)
    x_grads = [None] * len(order)
    dh = dc = w_grad = None
    for k in range(len(order) - 1, -1, -1):
        t = order[k]
        dh, keep_h = _through_mask(masks, t, _add(dh, _at(hg, t)))
        dc, keep_c = _through_mask(masks, t, _add(dc, _at(cg, t)))
        h_prev, c_prev = (h0, c0) if k == 0 else (h_seq[order[k - 1]], c_seq[order[k - 1]])
        x_grads[t], dh, dc, dw = lstm_cell_grad(h_prev, c_prev, weight_hh, g[t], _add(dh, _at(og, t)), dc,
                                                _at(gg, t))
        dh, dc, w_grad = _add(dh, keep_h), _add(dc, keep_c), _add(w_grad, dw)
    return _F.stack(x_grads, 0), dh, dc, w_grad


def gru_sequence_grad(h0, weight_hh, mask, gates, hs, out_grad, hs_grad, gates_grad, is_reverse):
    order = _order(gates.shape[0], is_reverse)
    g, h_seq, masks = _steps(gates), _steps(hs), _steps(mask)
    og, hg, gg = _steps(out_grad), _steps(hs_grad), _steps(gates_grad)
    x_grads = [None] * len(order)
    dh = w_grad = b_grad = None
    for k in range(len(order) - 1, -1, -1):
        t = order[k]
        dh, keep = _through_mask(masks, t, _add(dh, _at(hg, t)))
        h_prev = h0 if k == 0 else h_seq[order[k - 1]]
        x_grads[t], dh, dw, db = gru_cell_grad(h_prev, weight_hh, g[t], _add(dh, _at(og, t)), _at(gg, t))
        dh, w_grad, b_grad = _add(dh, keep), _add(w_grad, dw), _add(b_grad, db)
    return _F.stack(x_grads, 0), dh, w_grad, b_grad


def simple_rnn_sequence_grad(h0, weight_hh, mask, out, hs, out_grad, hs_grad, activation, is_reverse):
    order = _order(out.shape[0], is_reverse)
    o, h_seq, masks = _steps(out), _steps(hs), _steps(mask)
    og, hg = _steps(out_grad), _steps(hs_grad)
    x_grads = [None] * len(order)
    dh = w_grad = None
    for k in range(len(order) - 1, -1, -1):
        t = order[k]
        dh, keep = _through_mask(masks, t, _add(dh, _at(hg, t)))
        dh = _add(dh, _at(og, t))
        if dh is None:
            dh = _F.full_like(o[t], 0, None)
        h_prev = h0 if k == 0 else h_seq[order[k - 1]]
        x_grads[t], dh, dw = simple_rnn_cell_grad(h_prev, weight_hh, o[t], dh, activation)
        dh, w_grad = _add(dh, keep), _add(w_grad, dw)
    return _F.stack(x_grads, 0), dh, w_grad
