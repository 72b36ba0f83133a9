"""A/B of the recurrent sequence kernels (phi/kernels/rnn.py): a git revision's
against the working tree's, called directly (no autograd), interleaved round
by round in one process, minimum and median reported, and whether the two
give the same bits.

    python benchmarks/rnn_ab.py --base main
    python benchmarks/rnn_ab.py --base main --only lstm --rounds 40
    python benchmarks/rnn_ab.py --base main --sizes 32,32,128 --dtype float64

Sizes are T, B, H (default M2's and B6's: 32, 32, 128). The cases: each
cell's forward, and its gradient with the gradient arriving at the last state
only (M2: a classifier on the final h) or at every output (B6: a loss on the
outputs); the LSTM also with a mask (sequence lengths).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from kernel_ab import load_kernel_module  # noqa: E402  (benchmarks/kernel_ab.py)
from phi.backends.cpu_context import CPU_CONTEXT  # noqa: E402
from phi.kernels import rnn as current  # noqa: E402


def _inputs(steps, batch, hidden, gates, dtype, seed=0):
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(hidden)
    return dict(
        x=rng.standard_normal((steps, batch, gates * hidden)).astype(dtype),
        h0=(0.5 * rng.standard_normal((batch, hidden))).astype(dtype),
        c0=(0.5 * rng.standard_normal((batch, hidden))).astype(dtype),
        w=rng.uniform(-scale, scale, (gates * hidden, hidden)).astype(dtype),
        b=rng.uniform(-scale, scale, gates * hidden).astype(dtype),
        mask=(np.arange(steps)[:, None, None] < rng.integers(steps // 2, steps + 1, batch)[None, :, None])
        .astype(dtype),
        grad=rng.standard_normal((steps, batch, hidden)).astype(dtype),
    )


def _last_only(grad, reverse=False):
    """A gradient reaching only the final state (the others zero), as M2's."""
    out = np.zeros_like(grad)
    k = 0 if reverse else -1
    out[k] = grad[k]
    return out


def cases(mod, sizes, dtype, only):
    """name -> a zero-argument callable running ``mod``'s kernel on fixed inputs."""
    steps, batch, hidden = sizes
    ctx = CPU_CONTEXT
    out = {}
    if "lstm" in only:
        a = _inputs(steps, batch, hidden, 4, dtype)
        fwd = mod.lstm_sequence(ctx, a["x"], a["h0"], a["c0"], a["w"], None, False)
        fwd_m = mod.lstm_sequence(ctx, a["x"], a["h0"], a["c0"], a["w"], a["mask"], False)
        last = _last_only(a["grad"])
        out["lstm fwd"] = lambda: mod.lstm_sequence(ctx, a["x"], a["h0"], a["c0"], a["w"], None, False)
        out["lstm fwd mask"] = lambda: mod.lstm_sequence(ctx, a["x"], a["h0"], a["c0"], a["w"], a["mask"], False)
        out["lstm bwd last h (M2)"] = lambda: mod.lstm_sequence_grad(
            ctx, a["h0"], a["c0"], a["w"], None, fwd[3], fwd[1], fwd[2], None, last, None, None, False)
        out["lstm bwd outputs (B6)"] = lambda: mod.lstm_sequence_grad(
            ctx, a["h0"], a["c0"], a["w"], None, fwd[3], fwd[1], fwd[2], a["grad"], None, None, None, False)
        out["lstm bwd mask"] = lambda: mod.lstm_sequence_grad(
            ctx, a["h0"], a["c0"], a["w"], a["mask"], fwd_m[3], fwd_m[1], fwd_m[2], a["grad"], None, None, None,
            False)
    if "gru" in only:
        g = _inputs(steps, batch, hidden, 3, dtype, seed=1)
        gf = mod.gru_sequence(ctx, g["x"], g["h0"], g["w"], g["b"], None, False)
        out["gru fwd"] = lambda: mod.gru_sequence(ctx, g["x"], g["h0"], g["w"], g["b"], None, False)
        out["gru bwd outputs"] = lambda: mod.gru_sequence_grad(
            ctx, g["h0"], g["w"], None, gf[2], gf[1], g["grad"], None, None, False)
    if "rnn" in only:
        s = _inputs(steps, batch, hidden, 1, dtype, seed=2)
        sf = mod.simple_rnn_sequence(ctx, s["x"], s["h0"], s["w"], None, "tanh", False)
        out["rnn fwd"] = lambda: mod.simple_rnn_sequence(ctx, s["x"], s["h0"], s["w"], None, "tanh", False)
        out["rnn bwd outputs"] = lambda: mod.simple_rnn_sequence_grad(
            ctx, s["h0"], s["w"], None, sf[0], sf[1], s["grad"], None, "tanh", False)
    return out


def _same(a, b) -> str:
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    worst = 0.0
    for u, v in zip(a, b):
        if u is None or v is None:
            if (u is None) != (v is None):
                return "differ (None)"
            continue
        if u.shape != v.shape:
            return f"differ (shape {u.shape} vs {v.shape})"
        if not np.array_equal(u, v):
            scale = max(float(np.abs(v).max()), 1e-30)
            worst = max(worst, float(np.abs(u.astype(np.float64) - v).max()) / scale)
    return "same bits" if worst == 0.0 else f"differ (max rel {worst:.1e})"


def _time(fn, number):
    start = time.process_time()
    for _ in range(number):
        fn()
    return (time.process_time() - start) / number


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="git revision of the 'before' kernels")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--number", type=int, default=10, help="calls per round")
    parser.add_argument("--only", default="lstm,gru,rnn")
    parser.add_argument("--sizes", default="32,32,128", help="T,B,H")
    parser.add_argument("--dtype", default="float32")
    args = parser.parse_args(argv)
    sizes = tuple(int(v) for v in args.sizes.split(","))
    only = set(args.only.split(","))
    base = load_kernel_module(args.base, "rnn")
    sides = {"base": cases(base, sizes, args.dtype, only), "new": cases(current, sizes, args.dtype, only)}
    print(f"rnn kernels: {args.base} vs working tree, T,B,H = {sizes}, {args.dtype}, {args.rounds} rounds x "
          f"{args.number} calls, CPU time")
    print(f"{'case':<24} {'base min/med ms':>17} {'new min/med ms':>17} {'new/base':>9}  bits")
    for name in sides["base"]:
        fns = {side: sides[side][name] for side in sides}
        bits = _same(fns["new"](), fns["base"]())
        runs = {side: [] for side in fns}
        for _ in range(args.rounds):
            for side, fn in fns.items():
                runs[side].append(_time(fn, args.number))
        lo = {side: min(v) * 1e3 for side, v in runs.items()}
        med = {side: statistics.median(v) * 1e3 for side, v in runs.items()}
        print(f"{name:<24} {lo['base']:7.3f}/{med['base']:7.3f}   {lo['new']:7.3f}/{med['new']:7.3f}   "
              f"{lo['new'] / lo['base']:7.2f}x  {bits}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
