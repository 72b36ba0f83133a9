"""A/B of the normalization and pooling kernels (phi/kernels/norm.py, pooling.py):
a git revision's against the working tree's, in one process, interleaved round by
round (minimum reported), plus the float32 error of each side against a float64
run of the base kernels.

    python benchmarks/norm_pool_ab.py --base main
    python benchmarks/norm_pool_ab.py --base main --only accuracy --rounds 40

Times are wall clock of the kernel functions called directly (no eager layer),
one thread; the error is max |got - want| / max |want| per output, the worst over
the outputs and three seeds, with each channel's mean a multiple of its std.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, _ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import phi.kernels.norm as new_norm  # noqa: E402
import phi.kernels.pooling as new_pool  # noqa: E402
from kernel_ab import load_kernel_module  # noqa: E402  (benchmarks/kernel_ab.py)


class _Ctx:
    xp = np


CTX = _Ctx()


def load_base(rev: str, module: str):
    """phi/kernels/<module>.py of revision ``rev`` as a module whose kernels are not registered."""
    mod = load_kernel_module(rev, module)
    if mod is None:
        raise SystemExit(f"norm_pool_ab: revision {rev} has no phi/kernels/{module}.py")
    return mod


def bench(fns, rounds, number=3):
    """Minimum seconds per call of each function, rounds interleaved."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best[i] = min(best[i], (time.perf_counter() - start) / number)
    return best


def bn(m, x, mean, var, w, b, train):
    return m.batch_norm(CTX, x, mean, var, w, b, not train, 0.9, 1e-5, "NCHW", False, False)


def bn_grad(m, x, w, b, mean, var, dy, train):
    return m.batch_norm_grad(CTX, x, w, b, mean, var, dy, 0.9, 1e-5, "NCHW", not train, False, False)


def timing(old, new, old_pool, rounds):
    rng = np.random.default_rng(0)
    print("| batch_norm NCHW float32 | train fwd | eval fwd | train bwd | eval bwd |")
    print("|---|---:|---:|---:|---:|")
    for shape in [(32, 16, 32, 32), (32, 32, 16, 16), (32, 64, 8, 8)]:
        c = shape[1]
        x, dy = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
        w, b = rng.uniform(0.5, 1.5, c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
        rm, rv = np.zeros(c, np.float32), np.ones(c, np.float32)
        _, _, _, sm, sv = bn(old, x, rm, rv, w, b, True)
        fns = [lambda m=m, t=t: bn(m, x, rm, rv, w, b, t) for t in (True, False) for m in (old, new)]
        fns += [lambda m=m, t=t: bn_grad(m, x, w, b, sm, sv, dy, t) for t in (True, False) for m in (old, new)]
        r = [v * 1e6 for v in bench(fns, rounds)]
        print(f"| {shape} | " + " | ".join(f"{r[i]:.0f} -> {r[i + 1]:.0f} us" for i in range(0, 8, 2)) + " |")
    print("\n| other norms, float32 | fwd | bwd |\n|---|---:|---:|")
    x, dy = (rng.standard_normal((32, 64, 128)).astype(np.float32) for _ in range(2))
    w, b = rng.uniform(0.5, 1.5, 128).astype(np.float32), rng.standard_normal(128).astype(np.float32)
    _, mu, va = old.layer_norm(CTX, x, w, b, 1e-5, 2)
    r = [v * 1e6 for v in bench([lambda m=m: m.layer_norm(CTX, x, w, b, 1e-5, 2) for m in (old, new)]
                                + [lambda m=m: m.layer_norm_grad(CTX, x, w, b, mu, va, dy, 1e-5, 2)
                                   for m in (old, new)], rounds)]
    print(f"| layer_norm (32, 64, 128), last axis | {r[0]:.0f} -> {r[1]:.0f} us | {r[2]:.0f} -> {r[3]:.0f} us |")
    x, dy = (rng.standard_normal((32, 32, 16, 16)).astype(np.float32) for _ in range(2))
    w, b = rng.uniform(0.5, 1.5, 32).astype(np.float32), rng.standard_normal(32).astype(np.float32)
    _, gm, gv = old.group_norm(CTX, x, w, b, 1e-5, 8, "NCHW")
    _, im, iv = old.instance_norm(CTX, x, w, b, 1e-5, "NCHW")
    r = [v * 1e6 for v in bench(
        [lambda m=m: m.group_norm(CTX, x, w, b, 1e-5, 8, "NCHW") for m in (old, new)]
        + [lambda m=m: m.group_norm_grad(CTX, x, w, b, gm, gv, dy, 1e-5, 8, "NCHW") for m in (old, new)]
        + [lambda m=m: m.instance_norm(CTX, x, w, b, 1e-5, "NCHW") for m in (old, new)]
        + [lambda m=m: m.instance_norm_grad(CTX, x, w, b, im, iv, dy, 1e-5, "NCHW") for m in (old, new)], rounds)]
    print(f"| group_norm (32, 32, 16, 16), 8 groups | {r[0]:.0f} -> {r[1]:.0f} us | {r[2]:.0f} -> {r[3]:.0f} us |")
    print(f"| instance_norm (32, 32, 16, 16) | {r[4]:.0f} -> {r[5]:.0f} us | {r[6]:.0f} -> {r[7]:.0f} us |")
    print("\n| pooling NCHW float32 | fwd | bwd |\n|---|---:|---:|")
    for shape in [(32, 16, 32, 32), (32, 64, 8, 8)]:
        n, c, h, wd = shape
        x = rng.standard_normal(shape).astype(np.float32)
        _, mask = old_pool.max_pool_nd(CTX, x, [2, 2], [2, 2], [0, 0], "EXPLICIT", False, False, "NCHW")
        half = rng.standard_normal((n, c, h // 2, wd // 2)).astype(np.float32)
        one = rng.standard_normal((n, c, 1, 1)).astype(np.float32)
        cases = [("max_pool2d 2x2 s2", lambda m: m.max_pool_nd(CTX, x, [2, 2], [2, 2], [0, 0], "EXPLICIT", False,
                                                               False, "NCHW"),
                  lambda m: m.max_pool_nd_grad(CTX, x, mask, half, [2, 2], [2, 2], [0, 0], "EXPLICIT", False,
                                               False, "NCHW")),
                 ("avg_pool2d 2x2 s2", lambda m: m.avg_pool_nd(CTX, x, [2, 2], [2, 2], [0, 0], "EXPLICIT", False,
                                                               True, False, "NCHW"),
                  lambda m: m.avg_pool_nd_grad(CTX, x, half, [2, 2], [2, 2], [0, 0], "EXPLICIT", False, True,
                                               False, "NCHW")),
                 ("adaptive_avg_pool2d 1", lambda m: m.avg_pool_nd(CTX, x, [1, 1], [1, 1], [0, 0], "EXPLICIT",
                                                                   False, True, True, "NCHW"),
                  lambda m: m.avg_pool_nd_grad(CTX, x, one, [1, 1], [1, 1], [0, 0], "EXPLICIT", False, True,
                                               True, "NCHW"))]
        for name, fwd, bwd in cases:
            r = [v * 1e6 for v in bench([lambda m=m: fwd(m) for m in (old_pool, new_pool)]
                                        + [lambda m=m: bwd(m) for m in (old_pool, new_pool)], rounds)]
            print(f"| {name} {shape} | {r[0]:.0f} -> {r[1]:.0f} us | {r[2]:.0f} -> {r[3]:.0f} us |")


def _error(got, want):
    return max(float(np.max(np.abs(g.astype(np.float64) - r)) / (np.max(np.abs(r)) or 1.0))
               for g, r in zip(got, want) if g is not None)


def accuracy(old, new):
    print("| mean/std | bn train fwd | bn train bwd | bn eval fwd | bn eval bwd | ln fwd | ln bwd |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    shape, c = (32, 16, 32, 32), 16
    for off in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 30.0, 100.0):
        err = np.zeros(12)
        for seed in range(3):
            r = np.random.default_rng(seed)
            std = r.uniform(0.1, 2, (1, c, 1, 1))
            x = (r.standard_normal(shape) * std + off * std * r.choice([-1, 1], (1, c, 1, 1))).astype(np.float32)
            dy = r.standard_normal(shape).astype(np.float32)
            w, b = r.uniform(0.5, 1.5, c).astype(np.float32), r.standard_normal(c).astype(np.float32)
            x64, dy64, w64, b64 = (a.astype(np.float64) for a in (x, dy, w, b))
            rm, rv = np.zeros(c, np.float32), np.ones(c, np.float32)
            ref = bn(old, x64, rm.astype(np.float64), rv.astype(np.float64), w64, b64, True)
            sm, sv = ref[3].astype(np.float32), ref[4].astype(np.float32)
            # eval: the running statistics are float32 inputs, so the reference takes them as they are
            ref_eval = bn(old, x64, sm.astype(np.float64), sv.astype(np.float64), w64, b64, False)
            ref_grad = bn_grad(old, x64, w64, b64, ref[3], ref[4], dy64, True)
            ref_grad_eval = bn_grad(old, x64, w64, b64, sm.astype(np.float64), sv.astype(np.float64), dy64, False)
            lx = (r.standard_normal((32, 64, 128)) + off * r.choice([-1, 1], (32, 64, 1))).astype(np.float32)
            ldy = r.standard_normal((32, 64, 128)).astype(np.float32)
            lw, lb = r.uniform(0.5, 1.5, 128).astype(np.float32), r.standard_normal(128).astype(np.float32)
            lref = old.layer_norm(CTX, *(a.astype(np.float64) for a in (lx, lw, lb)), 1e-5, 2)
            lref_grad = old.layer_norm_grad(CTX, *(a.astype(np.float64) for a in (lx, lw, lb)), lref[1], lref[2],
                                            ldy.astype(np.float64), 1e-5, 2)
            for i, m in enumerate((old, new)):
                out = bn(m, x, rm, rv, w, b, True)
                err[i] = max(err[i], _error(out[:1] + out[3:], [ref[0], ref[3], ref[4]]))
                err[2 + i] = max(err[2 + i], _error(bn_grad(m, x, w, b, sm, sv, dy, True), ref_grad))
                err[4 + i] = max(err[4 + i], _error(bn(m, x, sm, sv, w, b, False)[:1], ref_eval[:1]))
                err[6 + i] = max(err[6 + i], _error(bn_grad(m, x, w, b, sm, sv, dy, False), ref_grad_eval))
                err[8 + i] = max(err[8 + i], _error(m.layer_norm(CTX, lx, lw, lb, 1e-5, 2), lref))
                err[10 + i] = max(err[10 + i], _error(m.layer_norm_grad(
                    CTX, lx, lw, lb, lref[1].astype(np.float32), lref[2].astype(np.float32), ldy, 1e-5, 2), lref_grad))
        print(f"| {off:g} | " + " | ".join(f"{err[i]:.1e} -> {err[i + 1]:.1e}" for i in range(0, 12, 2)) + " |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="git revision of the 'before' kernels")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--only", choices=("timing", "accuracy", "both"), default="both")
    args = parser.parse_args(argv)
    old, old_pool = load_base(args.base, "norm"), load_base(args.base, "pooling")
    if args.only in ("timing", "both"):
        timing(old, new_norm, old_pool, args.rounds)
    if args.only in ("accuracy", "both"):
        print()
        accuracy(old, new_norm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
