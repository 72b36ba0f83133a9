"""The recurrent sequence kernels (phi/kernels/rnn.py) called directly on NumPy.

The LSTM and GRU kernels fold the sigmoid's 1/2 pre-scale into a scaled copy of
W_hh^T (and bias_hh) and into x once, instead of scaling each step's
pre-activation; scaling by a power of two is exact, so the results must be the
same bits as the plain formulation (h @ W^T + x, then scaled), written here as a
loop of its own. The kernels also reuse buffers and update running gradients in
place: their inputs must come back unchanged and their outputs must not share
memory with the inputs or with each other (hs is a copy of out, not out).
Values against independent references, gradients and the GPU axis are in the
op table (tests/op_specs/rnn.py) and tests/test_nn_rnn.py.
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from phi.backends.cpu_context import CPU_CONTEXT
from phi.kernels import rnn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T, B, H = 6, 3, 5


def _data(gates, dtype, seed, masked):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, B, gates * H)).astype(dtype)
    h0 = (0.5 * rng.standard_normal((B, H))).astype(dtype)
    c0 = (0.5 * rng.standard_normal((B, H))).astype(dtype)
    w = rng.uniform(-0.6, 0.6, (gates * H, H)).astype(dtype)
    b = rng.uniform(-0.6, 0.6, gates * H).astype(dtype)
    mask = None
    if masked:
        lengths = np.array([T, 2, 4])
        mask = (np.arange(T)[:, None, None] < lengths[None, :, None]).astype(dtype)
    return x, h0, c0, w, b, mask


def _order(reverse):
    return range(T - 1, -1, -1) if reverse else range(T)


def _sigmoid_plain(a):
    """sigmoid(a) = (1 + tanh(a / 2)) / 2, the 1/2 applied to the pre-activation itself."""
    a = a * 0.5
    np.tanh(a, out=a)
    a += 1.0
    a *= 0.5
    return a


def _lstm_plain(x, h0, c0, w, mask, reverse):
    """The LSTM over the sequence with each step's pre-activation h @ W^T + x formed first."""
    w_t = np.ascontiguousarray(w.T)
    out, hs, cs = (np.empty((T, B, H), x.dtype) for _ in range(3))
    gates = np.empty((T, B, 4 * H), x.dtype)
    h, c = h0, c0
    for t in _order(reverse):
        pre = np.matmul(h, w_t)
        pre += x[t]
        scale = np.full(4 * H, 0.5, x.dtype)
        scale[2 * H:3 * H] = 1.0
        shift = np.where(scale == 0.5, 0.5, 0.0).astype(x.dtype)
        pre *= scale                      # one tanh for all four gates, as the kernel's
        np.tanh(pre, out=pre)
        pre *= scale
        pre += shift
        gates[t] = pre
        i, f, g, o = (pre[:, k * H:(k + 1) * H] for k in range(4))
        c_new = f * c + i * g
        h_new = np.tanh(c_new) * o
        out[t] = h_new
        if mask is not None:
            h_new = h + mask[t] * (h_new - h)
            c_new = c + mask[t] * (c_new - c)
        hs[t], cs[t] = h_new, c_new
        h, c = h_new, c_new
    return out, hs, cs, gates


def _gru_plain(x, h0, w, b, mask, reverse):
    """The GRU (Paddle's gates) with h @ W^T + b_hh, then x, added before the 1/2."""
    w_t = np.ascontiguousarray(w.T)
    out, hs = np.empty((T, B, H), x.dtype), np.empty((T, B, H), x.dtype)
    gates = np.empty((T, B, 4 * H), x.dtype)
    h = h0
    for t in _order(reverse):
        hp = np.matmul(h, w_t)
        hp += b
        rz = _sigmoid_plain(x[t, :, :2 * H] + hp[:, :2 * H])
        r, z = rz[:, :H], rz[:, H:]
        n = np.tanh(r * hp[:, 2 * H:] + x[t, :, 2 * H:])
        h_new = (h - n) * z + n
        gates[t] = np.concatenate([rz, n, hp[:, 2 * H:]], axis=1)
        out[t] = h_new
        if mask is not None:
            h_new = h + mask[t] * (h_new - h)
        hs[t] = h_new
        h = h_new
    return out, hs, gates


def _lstm_float64(x, h0, c0, w):
    """An independent float64 reference: sigmoid as 1 / (1 + exp(-a))."""
    x, h, c, w = (a.astype(np.float64) for a in (x, h0, c0, w))
    sig = lambda a: 1.0 / (1.0 + np.exp(-a))  # noqa: E731
    outs = []
    for t in range(T):
        pre = h @ w.T + x[t]
        i, f, g, o = (pre[:, k * H:(k + 1) * H] for k in range(4))
        c = sig(f) * c + sig(i) * np.tanh(g)
        h = sig(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs)


# (kernel's call, the plain loop's, the output names); each kernel gets the same data
# from _data (gate count, dtype, seed, masked) as its plain formulation.
_FOLDED = {
    "lstm": (lambda x, h0, c0, w, b, mask, reverse: rnn.lstm_sequence(CPU_CONTEXT, x, h0, c0, w, mask, reverse),
             lambda x, h0, c0, w, b, mask, reverse: _lstm_plain(x, h0, c0, w, mask, reverse),
             4, 1, ("out", "hs", "cs", "gates")),
    "gru": (lambda x, h0, c0, w, b, mask, reverse: rnn.gru_sequence(CPU_CONTEXT, x, h0, w, b, mask, reverse),
            lambda x, h0, c0, w, b, mask, reverse: _gru_plain(x, h0, w, b, mask, reverse),
            3, 3, ("out", "hs", "gates")),
}


@pytest.mark.parametrize("masked", [False, True], ids=["unmasked", "masked"])
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", sorted(_FOLDED))
def test_sequence_fold_gives_the_plain_formulations_bits(kind, dtype, reverse, masked):
    kernel, plain, gates, seed, names = _FOLDED[kind]
    data = _data(gates, dtype, seed, masked)
    got, want = kernel(*data, reverse), plain(*data, reverse)
    for name, g, e in zip(names, got, want):
        assert g.dtype == dtype, name
        np.testing.assert_array_equal(g, e, err_msg=name)


def test_lstm_sequence_agrees_with_a_float64_reference():
    x, h0, c0, w, _, _ = _data(4, np.float32, 2, False)
    out = rnn.lstm_sequence(CPU_CONTEXT, x, h0, c0, w, None, False)[0]
    np.testing.assert_allclose(out, _lstm_float64(x, h0, c0, w), rtol=0, atol=2e-6)


def _calls(masked, reverse):
    """(name, kernel, args) of every sequence kernel and its gradient, with every
    optional gradient given."""
    ctx = CPU_CONTEXT
    x4, h0, c0, w4, _, mask = _data(4, np.float64, 4, masked)
    x3, _, _, w3, b3, _ = _data(3, np.float64, 5, masked)
    x1, _, _, w1, _, _ = _data(1, np.float64, 6, masked)
    rng = np.random.default_rng(7)
    seq = lambda: rng.standard_normal((T, B, H))  # noqa: E731
    _, hs4, cs4, gates4 = rnn.lstm_sequence(ctx, x4, h0, c0, w4, mask, reverse)
    _, hs3, gates3 = rnn.gru_sequence(ctx, x3, h0, w3, b3, mask, reverse)
    out1, hs1 = rnn.simple_rnn_sequence(ctx, x1, h0, w1, mask, "tanh", reverse)
    return [
        ("lstm_sequence", rnn.lstm_sequence, (x4, h0, c0, w4, mask, reverse)),
        ("lstm_sequence_grad", rnn.lstm_sequence_grad,
         (h0, c0, w4, mask, gates4, hs4, cs4, seq(), seq(), seq(), rng.standard_normal(gates4.shape), reverse)),
        ("gru_sequence", rnn.gru_sequence, (x3, h0, w3, b3, mask, reverse)),
        ("gru_sequence_grad", rnn.gru_sequence_grad,
         (h0, w3, mask, gates3, hs3, seq(), seq(), rng.standard_normal(gates3.shape), reverse)),
        ("simple_rnn_sequence", rnn.simple_rnn_sequence, (x1, h0, w1, mask, "tanh", reverse)),
        ("simple_rnn_sequence_grad", rnn.simple_rnn_sequence_grad,
         (h0, w1, mask, out1, hs1, seq(), seq(), "tanh", reverse)),
    ]


@pytest.mark.parametrize("masked", [False, True], ids=["unmasked", "masked"])
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_sequence_kernels_leave_inputs_alone_and_return_separate_arrays(reverse, masked):
    for name, kernel, args in _calls(masked, reverse):
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        before = [a.copy() for a in arrays]
        outs = [o for o in kernel(CPU_CONTEXT, *args) if o is not None]
        for a, saved in zip(arrays, before):
            np.testing.assert_array_equal(a, saved, err_msg=f"{name} changed an input")
        for k, o in enumerate(outs):
            assert not any(np.shares_memory(o, a) for a in arrays), f"{name}: output {k} is an input's memory"
            for j in range(k):
                assert not np.shares_memory(o, outs[j]), f"{name}: outputs {j} and {k} share memory"


@pytest.mark.skipif(shutil.which("git") is None or not os.path.isdir(os.path.join(ROOT, ".git"))
                    and not os.path.isfile(os.path.join(ROOT, ".git")), reason="needs a git checkout")
def test_rnn_ab_script_runs_and_compares_every_case():
    # benchmarks/rnn_ab.py at tiny sizes: every case gets a row with both sides'
    # times and the bits verdict.
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "rnn_ab.py"), "--base", "HEAD",
                           "--sizes", "3,2,4", "--rounds", "1", "--number", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith(("lstm ", "gru ", "rnn fwd", "rnn bwd"))]
    assert len(rows) == 9, proc.stdout
    for line in rows:
        assert line.rstrip().endswith("same bits") or "differ" in line, line


def test_lstm_sequence_grad_reads_non_contiguous_gates_and_states_as_contiguous_ones():
    # The gradient writes its per-gate factors through views of one buffer: the
    # inputs' layout (here time-major views of batch-major arrays) must not matter.
    x, h0, c0, w, _, mask = _data(4, np.float64, 8, True)
    _, hs, cs, gates = rnn.lstm_sequence(CPU_CONTEXT, x, h0, c0, w, mask, False)
    rng = np.random.default_rng(9)
    out_grad = rng.standard_normal((T, B, H))
    strided = [np.ascontiguousarray(a.transpose(1, 0, 2)).transpose(1, 0, 2) for a in (gates, hs, cs, out_grad)]
    assert not any(a.flags.c_contiguous for a in strided)
    want = rnn.lstm_sequence_grad(CPU_CONTEXT, h0, c0, w, mask, gates, hs, cs, out_grad, None, None, None, False)
    got = rnn.lstm_sequence_grad(CPU_CONTEXT, h0, c0, w, mask, strided[0], strided[1], strided[2], strided[3],
                                 None, None, None, False)
    for g, e in zip(got, want):
        np.testing.assert_array_equal(g, e)
