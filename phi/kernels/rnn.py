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


def _recurrent(ctx, h, weight_hh):
    """h @ weight_hh^T as a fresh array [batch, gates * hidden]."""
    return ctx.matmul(h, weight_hh.T)


# -- LSTM ------------------------------------------------------------------------
@register_kernel("lstm_cell", ALL_BACKENDS, FLOATS)
def lstm_cell(ctx, x, h, c, weight_hh):
    xp = ctx.xp
    hidden = h.shape[-1]
    gates = _recurrent(ctx, h, weight_hh)
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
    h_grad = ctx.matmul(dgates, weight_hh) if want_h else None
    c_grad = dc * f if want_c else None
    w_grad = ctx.matmul(dgates.T, h) if want_w else None
    return (dgates if want_x else None), h_grad, c_grad, w_grad


# -- GRU -------------------------------------------------------------------------
@register_kernel("gru_cell", ALL_BACKENDS, FLOATS)
def gru_cell(ctx, x, h, weight_hh, bias_hh):
    xp = ctx.xp
    hidden = h.shape[-1]
    hp = _recurrent(ctx, h, weight_hh)
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
        h_grad = ctx.matmul(d_hp, weight_hh)
        if h_out_grad is not None:
            h_grad += h_out_grad * z
    w_grad = ctx.matmul(d_hp.T, h) if want_w else None
    b_grad = d_hp.sum(axis=0) if want_b else None
    if x_grad is not None:
        x_grad = xp.ascontiguousarray(x_grad)
    return x_grad, h_grad, w_grad, b_grad


# -- simple RNN ------------------------------------------------------------------
@register_kernel("simple_rnn_cell", ALL_BACKENDS, FLOATS)
def simple_rnn_cell(ctx, x, h, weight_hh, activation):
    xp = ctx.xp
    out = _recurrent(ctx, h, weight_hh)
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
    h_grad = ctx.matmul(d_pre, weight_hh) if want_h else None
    w_grad = ctx.matmul(d_pre.T, h) if want_w else None
    return (d_pre if want_x else None), h_grad, w_grad


# -- whole sequences ---------------------------------------------------------------------
# x [T, B, G*H] time-major (the input's projection for every step); an optional
# mask [T, B, 1] (1 where the step is within the sequence's length, else 0)
# keeps the previous state where it is 0. Outputs: out [T, B, H] (each step's
# new h, unmasked), hs [T, B, H] (the state h after each step; cs for the
# LSTM's c) and the intermediate gates. is_reverse processes t = T-1 .. 0.
# The gradients run the steps backwards with the per-step elementwise factors
# precomputed for all steps at once, and form weight_hh's gradient with one
# matmul over every step.
#
# A step is a GEMM and one tanh over all gates, plus a few elementwise passes;
# on the host each pass costs a NumPy call, so the kernels keep them few: the
# sigmoid's pre-scale folded once into W^T (and x, bias_hh) instead of once per
# step, products into reused buffers, one copy of out as hs at the end when
# unmasked (docs/performance.md, "Recurrent kernels: fewer passes per step").
# Every such change keeps the results bit for bit (tests/test_rnn_sequence_kernels.py).

def _order(steps: int, is_reverse: bool):
    return range(steps - 1, -1, -1) if is_reverse else range(steps)


def _previous(xp, states, initial, is_reverse: bool):
    """[T, B, H]: the state each step starts from (the initial one, or the state
    after the step processed before it)."""
    if is_reverse:
        return xp.concatenate([states[1:], initial[None]], axis=0)
    return xp.concatenate([initial[None], states[:-1]], axis=0)


def _times_previous(xp, a, states, initial, is_reverse: bool, out=None):
    """a [T, B, H] times the state each step starts from (_previous's, without
    building it), into out (a fresh array when None)."""
    if out is None:
        out = xp.empty(a.shape, dtype=xp.result_type(a, states))
    first, rest = (-1, slice(None, -1)) if is_reverse else (0, slice(1, None))
    before = slice(1, None) if is_reverse else slice(None, -1)
    xp.multiply(a[rest], states[before], out=out[rest])
    xp.multiply(a[first], initial, out=out[first])
    return out


def _gate_affine(xp, hidden: int, dtype):
    """LSTM activations in place by one tanh: sigmoid(a) = s tanh(s a) + s with
    s = 1/2 (i, f, o); tanh for g (s = 1, no shift)."""
    scale = xp.full(4 * hidden, 0.5, dtype=dtype)
    scale[2 * hidden:3 * hidden] = 1.0
    shift = xp.full(4 * hidden, 0.5, dtype=dtype)
    shift[2 * hidden:3 * hidden] = 0.0
    return scale, shift


def _keep_masked(state_t, new, prev, m):
    """state_t = prev + m (new - prev), written into state_t."""
    state_t[...] = new
    state_t -= prev
    state_t *= m
    state_t += prev


def _split_masked(dh, m):
    """(the part of dh reaching the new state, the part reaching the previous one)."""
    through = dh * m
    dh -= through
    return through, dh


@register_kernel("lstm_sequence", ALL_BACKENDS, FLOATS)
def lstm_sequence(ctx, x, h0, c0, weight_hh, mask, is_reverse):
    xp = ctx.xp
    steps, batch = x.shape[:2]
    hidden = h0.shape[-1]
    dtype = h0.dtype
    scale, shift = _gate_affine(xp, hidden, dtype)
    # The activations' pre-scale (1/2 on the sigmoid gates) applied once: to a
    # copy of W^T (contiguous, which also makes the per-step GEMM faster) and to
    # every step's x in one pass, which becomes the gates buffer each step's
    # recurrent part is added to. A power of two scales exactly, so
    # (x + h W^T) s = x s + h (W^T s) bit for bit (barring subnormals).
    w_t = xp.empty((hidden, 4 * hidden), dtype=dtype)
    xp.multiply(weight_hh.T, scale, out=w_t)
    gates = xp.empty((steps, batch, 4 * hidden), dtype=dtype)
    xp.multiply(x, scale, out=gates)
    out = xp.empty((steps, batch, hidden), dtype=dtype)
    cs = xp.empty_like(out)
    hs = None if mask is None else xp.empty_like(out)
    rec = xp.empty((batch, 4 * hidden), dtype=dtype)            # per-step buffers, reused
    ig = xp.empty((batch, hidden), dtype=dtype)
    c_new = None if mask is None else xp.empty((batch, hidden), dtype=dtype)
    h, c = h0, c0
    for t in _order(steps, is_reverse):
        g = gates[t]
        ctx.matmul(h, w_t, out=rec)
        g += rec
        xp.tanh(g, out=g)
        g *= scale
        g += shift
        if mask is None:
            c_new = cs[t]
        xp.multiply(g[:, hidden:2 * hidden], c, out=c_new)
        xp.multiply(g[:, :hidden], g[:, 2 * hidden:3 * hidden], out=ig)
        c_new += ig
        h_new = out[t]
        xp.tanh(c_new, out=h_new)
        h_new *= g[:, 3 * hidden:]
        if mask is None:
            h, c = h_new, c_new
        else:
            _keep_masked(hs[t], h_new, h, mask[t])
            _keep_masked(cs[t], c_new, c, mask[t])
            h, c = hs[t], cs[t]
    if hs is None:
        hs = out.copy()     # unmasked, the states are the outputs: one copy, not one per step
    return out, hs, cs, gates


@register_kernel("lstm_sequence_grad", ALL_BACKENDS, FLOATS)
def lstm_sequence_grad(ctx, h0, c0, weight_hh, mask, gates, hs, cs, out_grad, hs_grad, cs_grad, gates_grad,
                       is_reverse, *, out_mask=None):
    xp = ctx.xp
    want_x, want_h, want_c, want_w = out_mask or (True, True, True, True)
    steps, batch = gates.shape[:2]
    hidden = h0.shape[-1]
    i, f, cand, o = (gates[..., k * hidden:(k + 1) * hidden] for k in range(4))
    # Precomputed for every step at once, with few temporaries (large fresh arrays
    # cost page faults): tanh(c_new), d c_new / d h_new = o (1 - tanh(c_new)^2), and
    # the factors turning d c_new (i, f, g) and d h_new (o) into pre-activation
    # gradients: c_new = f c_prev + i g, h_new = o tanh(c_new); sigmoid' = s (1 - s),
    # tanh' = 1 - t^2. (The new cells are recomputed, not read from cs: cs holds
    # the masked states, and the op is defined for any gates and cs.)
    tanh_c = _times_previous(xp, f, cs, c0, is_reverse)
    tanh_c += i * cand
    xp.tanh(tanh_c, out=tanh_c)
    dc_from_h = tanh_c * tanh_c
    xp.subtract(1.0, dc_from_h, out=dc_from_h)
    dc_from_h *= o
    factor = xp.empty(gates.shape, dtype=gates.dtype)                 # C order: factor4 is its view
    xp.subtract(1.0, gates, out=factor)
    factor *= gates
    factor4 = factor.reshape(steps, batch, 4, hidden)
    factor4[:, :, 0] *= cand
    _times_previous(xp, factor4[:, :, 1], cs, c0, is_reverse, out=factor4[:, :, 1])
    xp.multiply(cand, cand, out=factor4[:, :, 2])
    xp.subtract(1.0, factor4[:, :, 2], out=factor4[:, :, 2])
    factor4[:, :, 2] *= i
    factor4[:, :, 3] *= tanh_c
    grads = xp.empty(gates.shape, dtype=gates.dtype)
    if gates_grad is not None:
        base = xp.subtract(1.0, gates)
        base *= gates
        base[..., 2 * hidden:3 * hidden] = 1.0 - cand * cand
        base *= gates_grad
    # The running gradients, updated in place, and a per-step row [dcn, dcn, dcn,
    # dh] that turns the step's four gate gradients into one contiguous product
    # with factor (a broadcast [B, 3, H] product and a strided one cost more).
    dh = xp.zeros(h0.shape, dtype=h0.dtype)
    dc = xp.zeros(c0.shape, dtype=c0.dtype)
    spread = xp.empty((batch, 4, hidden), dtype=gates.dtype)
    spread_rows = spread.reshape(batch, 4 * hidden)
    dcn = spread[:, 0]
    for t in reversed(_order(steps, is_reverse)):
        if hs_grad is not None:
            dh += hs_grad[t]
        if cs_grad is not None:
            dc += cs_grad[t]
        keep_h = keep_c = None
        if mask is not None:
            dh, keep_h = _split_masked(dh, mask[t])
            dc, keep_c = _split_masked(dc, mask[t])
        if out_grad is not None:
            dh += out_grad[t]
        xp.multiply(dh, dc_from_h[t], out=dcn)
        dcn += dc
        spread[:, 1:3] = dcn[:, None]
        spread[:, 3] = dh
        d = grads[t]
        xp.multiply(spread_rows, factor[t], out=d)
        if gates_grad is not None:
            d += base[t]
        ctx.matmul(d, weight_hh, out=dh)
        xp.multiply(dcn, f[t], out=dc)
        if keep_h is not None:
            dh += keep_h
            dc += keep_c
    w_grad = None
    if want_w:
        h_prev = _previous(xp, hs, h0, is_reverse)
        w_grad = ctx.matmul(grads.reshape(steps * batch, 4 * hidden).T, h_prev.reshape(steps * batch, hidden))
    return (grads if want_x else None), (dh if want_h else None), (dc if want_c else None), w_grad


@register_kernel("gru_sequence", ALL_BACKENDS, FLOATS)
def gru_sequence(ctx, x, h0, weight_hh, bias_hh, mask, is_reverse):
    xp = ctx.xp
    steps, batch = x.shape[:2]
    hidden = h0.shape[-1]
    dtype = h0.dtype
    # As the LSTM's: r and z's 1/2 pre-scale folded once into copies of W^T and
    # bias_hh (their columns) and into x's r, z part, written where the gates go;
    # W_hc h + b_hc (unscaled) stays as it is.
    scale = xp.ones(3 * hidden, dtype=dtype)
    scale[:2 * hidden] = 0.5
    w_t = xp.empty((hidden, 3 * hidden), dtype=dtype)
    xp.multiply(weight_hh.T, scale, out=w_t)
    b = xp.multiply(bias_hh, scale)
    gates = xp.empty((steps, batch, 4 * hidden), dtype=dtype)       # r, z, c, W_hc h + b_hc
    xp.multiply(x[..., :2 * hidden], 0.5, out=gates[..., :2 * hidden])
    out = xp.empty((steps, batch, hidden), dtype=dtype)
    hs = None if mask is None else xp.empty_like(out)
    hp = xp.empty((batch, 3 * hidden), dtype=dtype)                  # per-step buffer, reused
    h = h0
    for t in _order(steps, is_reverse):
        g = gates[t]
        ctx.matmul(h, w_t, out=hp)
        hp += b
        rz = g[:, :2 * hidden]
        rz += hp[:, :2 * hidden]
        xp.tanh(rz, out=rz)
        rz += 1.0
        rz *= 0.5
        g[:, 3 * hidden:] = hp[:, 2 * hidden:]
        r, z, n = g[:, :hidden], g[:, hidden:2 * hidden], g[:, 2 * hidden:3 * hidden]
        xp.multiply(r, hp[:, 2 * hidden:], out=n)
        n += x[t, :, 2 * hidden:]
        xp.tanh(n, out=n)
        h_new = out[t]
        xp.subtract(h, n, out=h_new)
        h_new *= z
        h_new += n
        if mask is None:
            h = h_new
        else:
            _keep_masked(hs[t], h_new, h, mask[t])
            h = hs[t]
    if hs is None:
        hs = out.copy()     # unmasked, the states are the outputs: one copy, not one per step
    return out, hs, gates


@register_kernel("gru_sequence_grad", ALL_BACKENDS, FLOATS)
def gru_sequence_grad(ctx, h0, weight_hh, mask, gates, hs, out_grad, hs_grad, gates_grad, is_reverse, *,
                      out_mask=None):
    xp = ctx.xp
    want_x, want_h, want_w, want_b = out_mask or (True, True, True, True)
    steps, batch = gates.shape[:2]
    hidden = h0.shape[-1]
    r, z, n, hn = (gates[..., k * hidden:(k + 1) * hidden] for k in range(4))
    h_prev = _previous(xp, hs, h0, is_reverse)
    dz_factor = h_prev - n                                            # d h_new / d z
    dn_factor = 1.0 - z                                               # d h_new / d n
    tanh_slope = 1.0 - n * n
    r_slope = r * (1.0 - r)
    z_slope = z * (1.0 - z)
    # Per step: the pre-activation gradients [r, z, hn (of W_hc h + b_hc), c].
    pre = xp.empty(gates.shape, dtype=gates.dtype)
    dh = xp.zeros(h0.shape, dtype=h0.dtype)
    new_dh = xp.empty(h0.shape, dtype=h0.dtype)                       # swapped with dh each step
    for t in reversed(_order(steps, is_reverse)):
        if hs_grad is not None:
            dh += hs_grad[t]
        keep = None
        if mask is not None:
            dh, keep = _split_masked(dh, mask[t])
        if out_grad is not None:
            dh += out_grad[t]
        p = pre[t]
        dr, dz, dhn, dn = (p[:, k * hidden:(k + 1) * hidden] for k in range(4))
        xp.multiply(dh, dz_factor[t], out=dz)
        xp.multiply(dh, dn_factor[t], out=dn)
        if gates_grad is not None:
            dr[...] = gates_grad[t, :, :hidden]
            dz += gates_grad[t, :, hidden:2 * hidden]
            dn += gates_grad[t, :, 2 * hidden:3 * hidden]
        dn *= tanh_slope[t]
        if gates_grad is None:
            xp.multiply(dn, hn[t], out=dr)
            xp.multiply(dn, r[t], out=dhn)
        else:
            dr += dn * hn[t]
            xp.multiply(dn, r[t], out=dhn)
            dhn += gates_grad[t, :, 3 * hidden:]
        dr *= r_slope[t]
        dz *= z_slope[t]
        if keep is not None:
            new_dh = xp.empty(h0.shape, dtype=h0.dtype)               # dh is mask-split: fresh arrays
        ctx.matmul(p[:, :3 * hidden], weight_hh, out=new_dh)
        dh *= z[t]
        new_dh += dh
        if keep is not None:
            new_dh += keep
        dh, new_dh = new_dh, dh
    d_proj = pre[..., :3 * hidden]
    w_grad = b_grad = x_grad = None
    if want_w:      # rows 4H apart: a strided operand BLAS reads as it is
        w_grad = ctx.matmul(d_proj.reshape(steps * batch, 3 * hidden).T, h_prev.reshape(steps * batch, hidden))
    if want_b:
        b_grad = d_proj.sum(axis=(0, 1))
    if want_x:
        x_grad = xp.concatenate([pre[..., :2 * hidden], pre[..., 3 * hidden:]], axis=-1)
    return x_grad, (dh if want_h else None), w_grad, b_grad


@register_kernel("simple_rnn_sequence", ALL_BACKENDS, FLOATS)
def simple_rnn_sequence(ctx, x, h0, weight_hh, mask, activation, is_reverse):
    xp = ctx.xp
    steps, batch = x.shape[:2]
    out = xp.empty((steps, batch, h0.shape[-1]), dtype=h0.dtype)
    hs = None if mask is None else xp.empty_like(out)
    w_t = xp.ascontiguousarray(weight_hh.T)      # a contiguous W^T makes the per-step GEMM faster
    h = h0
    for t in _order(steps, is_reverse):
        h_new = out[t]
        ctx.matmul(h, w_t, out=h_new)
        h_new += x[t]
        if activation == "tanh":
            xp.tanh(h_new, out=h_new)
        else:
            xp.maximum(h_new, 0, out=h_new)
        if mask is None:
            h = h_new
        else:
            _keep_masked(hs[t], h_new, h, mask[t])
            h = hs[t]
    if hs is None:
        hs = out.copy()     # unmasked, the states are the outputs: one copy, not one per step
    return out, hs


@register_kernel("simple_rnn_sequence_grad", ALL_BACKENDS, FLOATS)
def simple_rnn_sequence_grad(ctx, h0, weight_hh, mask, out, hs, out_grad, hs_grad, activation, is_reverse, *,
                             out_mask=None):
    xp = ctx.xp
    want_x, want_h, want_w = out_mask or (True, True, True)
    steps, batch, hidden = out.shape
    slope = 1.0 - out * out if activation == "tanh" else (out > 0).astype(out.dtype)
    pre = xp.empty(out.shape, dtype=out.dtype)
    dh = xp.zeros(h0.shape, dtype=h0.dtype)
    for t in reversed(_order(steps, is_reverse)):
        if hs_grad is not None:
            dh += hs_grad[t]
        keep = None
        if mask is not None:
            dh, keep = _split_masked(dh, mask[t])
        if out_grad is not None:
            dh += out_grad[t]
        xp.multiply(dh, slope[t], out=pre[t])
        ctx.matmul(pre[t], weight_hh, out=dh)
        if keep is not None:
            dh += keep
    w_grad = None
    if want_w:
        h_prev = _previous(xp, hs, h0, is_reverse)
        w_grad = ctx.matmul(pre.reshape(steps * batch, hidden).T, h_prev.reshape(steps * batch, hidden))
    return (pre if want_x else None), (dh if want_h else None), w_grad
