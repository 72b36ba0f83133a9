"""A/B of kernel implementations in one process: the kernels of a git revision
against the working tree's, interleaved round by round, minimum reported.

    python benchmarks/kernel_ab.py --base main                  # B2 chain, B3 steps
    python benchmarks/kernel_ab.py --base main --rounds 40 --only B2
    python benchmarks/kernel_ab.py --base main --clock wall   # perf_counter, not CPU time
    python benchmarks/kernel_ab.py --base main --only B5      # the LeNet CNN step
    python benchmarks/kernel_ab.py --base main --only RN,CV   # a small ResNet step, its convs alone
    python benchmarks/kernel_ab.py --base main --only CT      # M1's convs: fwd, dx, dw vs PyTorch, GEMM
    python benchmarks/kernel_ab.py --base main --only ACC     # their float32 error against float64

The kernel modules of ``--base`` are read with ``git show`` and executed with a
registration that collects their functions instead of registering them; each
round then installs one side's kernels into the dense CPU dispatch tables (and
empties the signature caches, which hold the kernels bound before), and times
the workload. A to_static step (B3j) replays the kernels it captured, so each
side has its own, captured with that side's kernels. Both sides share everything else (generated code, engine), so the
difference is the kernels' own work.
"""
from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import time
import types

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, _ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import eager  # noqa: E402
import phi.core.kernel_registry as registry  # noqa: E402
from phi.backends.cpu_context import CPU_CONTEXT  # noqa: E402
from phi.common.data_type import DataType  # noqa: E402
from phi.common.tensor_kind import TensorKind  # noqa: E402
from phi.core.kernel_registry import KERNELS, forwarded_xp_function  # noqa: E402

from mlp import init_weights, make_batch  # noqa: E402

MODULES = ("activation", "elementwise", "math_elementary", "reduction", "matmul", "fused", "loss", "conv")


def load_kernel_module(rev: str, module: str, register=None):
    """phi/kernels/<module>.py of revision ``rev`` as a module, executed with
    ``register_kernel`` replaced by ``register`` (default: one that registers
    nothing and returns the function), or None where ``rev`` has no such module."""
    try:
        source = subprocess.run(["git", "show", f"{rev}:phi/kernels/{module}.py"], cwd=_ROOT,
                                check=True, capture_output=True, text=True).stdout
    except subprocess.CalledProcessError:
        return None
    real = registry.register_kernel
    registry.register_kernel = register or (lambda *a, **k: (lambda fn: fn))
    try:
        mod = types.ModuleType(f"phi.kernels._ab_{module}")
        mod.__package__ = "phi.kernels"
        exec(compile(source, f"{rev}:{module}.py", "exec"), mod.__dict__)  # noqa: S102
    finally:
        registry.register_kernel = real
    return mod


def base_kernels(rev: str) -> dict:
    """(name, DataType) -> kernel function of revision ``rev``, CPU (or all-backend) keys only."""
    collected = {}

    def collect(name, backends, dtypes, layout=None, kind=None):
        def decorate(fn):
            if kind is None or kind is TensorKind.DENSE:
                for dtype in dtypes:
                    collected[(name, DataType(dtype) if not isinstance(dtype, DataType) else dtype)] = fn
            return fn
        return decorate

    for module in MODULES:
        load_kernel_module(rev, module, collect)
    return collected


def current_kernels(names) -> dict:
    out = {}
    for name in names:
        for key, kernel in KERNELS.kernels(name).items():
            if key.kind is TensorKind.DENSE:
                out[(name, key.dtype)] = kernel.fn
    return out


def install(kernels: dict) -> None:
    """Puts ``kernels`` into the dense CPU dispatch tables (float32 and float64) and
    forgets every remembered signature."""
    for (name, dtype), fn in kernels.items():
        if dtype not in (DataType.FLOAT32, DataType.FLOAT64):
            continue
        bound = functools.partial(fn, CPU_CONTEXT)
        direct = forwarded_xp_function(fn)
        if direct is not None:
            bound = getattr(np, direct)
        KERNELS.dispatch_table(name)[(np.ndarray, np.dtype(dtype.numpy_dtype))] = bound
    for cache in KERNELS.signature_caches():
        cache.clear()


class _BasicBlock(eager.nn.Layer):
    """conv-BN-ReLU-conv-BN plus the shortcut (a 1x1 strided conv and BN when the shape changes), ReLU."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        nn = eager.nn
        self.c1, self.b1 = nn.Conv2D(cin, cout, 3, stride, 1, bias_attr=False), nn.BatchNorm2D(cout)
        self.c2, self.b2 = nn.Conv2D(cout, cout, 3, 1, 1, bias_attr=False), nn.BatchNorm2D(cout)
        self.sc = None if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2D(cin, cout, 1, stride, bias_attr=False), nn.BatchNorm2D(cout))

    def forward(self, x):
        y = self.b2(self.c2(eager.nn.functional.relu(self.b1(self.c1(x)))))
        return eager.nn.functional.relu(y + (x if self.sc is None else self.sc(x)))


def resnet_step(batch: int = 32):
    """The training step of issue #14's small ResNet (a 3 -> 16 stem and basic blocks
    16, 32, 64 with batch norm, 32x32 inputs, Momentum): a function of no arguments."""
    nn = eager.nn
    eager.seed(0)
    net = nn.Sequential(nn.Conv2D(3, 16, 3, 1, 1, bias_attr=False), nn.BatchNorm2D(16), nn.ReLU(),
                        _BasicBlock(16, 16, 1), _BasicBlock(16, 32, 2), _BasicBlock(32, 64, 2),
                        nn.AdaptiveAvgPool2D(1), nn.Flatten(), nn.Linear(64, 10))
    opt = eager.optimizer.Momentum(0.1, parameters=net.parameters())
    rng = np.random.default_rng(0)
    x = eager.to_tensor(rng.random((batch, 3, 32, 32), dtype=np.float32))
    y = eager.to_tensor(rng.integers(0, 10, (batch, 1)))
    loss_fn = nn.CrossEntropyLoss()

    def step():
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step


# (x shape, filter shape, stride, padding): the ResNet step's convolutions, LeNet's (B5), a 1x1
CONV_CASES = (
    ((32, 3, 32, 32), (16, 3, 3, 3), 1, 1), ((32, 16, 32, 32), (16, 16, 3, 3), 1, 1),
    ((32, 16, 32, 32), (32, 16, 3, 3), 2, 1), ((32, 32, 16, 16), (32, 32, 3, 3), 1, 1),
    ((32, 16, 32, 32), (32, 16, 1, 1), 2, 0), ((32, 32, 16, 16), (64, 32, 3, 3), 2, 1),
    ((32, 64, 8, 8), (64, 64, 3, 3), 1, 1), ((32, 32, 16, 16), (64, 32, 1, 1), 2, 0),
    ((64, 1, 28, 28), (6, 1, 5, 5), 1, 2), ((64, 6, 14, 14), (16, 6, 5, 5), 1, 0),
    ((32, 64, 16, 16), (64, 64, 1, 1), 1, 0),     # a bottleneck block's 1x1: x is its own columns
)


def conv_case(x_shape, w_shape, stride, padding):
    """conv2d forward and backward (both gradients) of float32 arrays through the
    dispatch tables: a function of no arguments."""
    rng = np.random.default_rng(0)
    x = eager.to_tensor(rng.standard_normal(x_shape, dtype=np.float32), stop_gradient=False)
    w = eager.to_tensor(rng.standard_normal(w_shape, dtype=np.float32), stop_gradient=False)

    def run():
        out = eager.nn.functional.conv2d(x, w, stride=stride, padding=padding)
        out.backward(out)
        x.clear_gradient(False)
        w.clear_gradient(False)
    return run


# M1's convolutions (issue #14's ResNet, batch 32): (name, x shape, filter shape, stride, padding)
M1_CONVS = (
    ("stem 3->16 32px s1", (32, 3, 32, 32), (16, 3, 3, 3), 1, 1),
    ("16->16 32px s1", (32, 16, 32, 32), (16, 16, 3, 3), 1, 1),
    ("16->32 32px s2", (32, 16, 32, 32), (32, 16, 3, 3), 2, 1),
    ("32->32 16px s1", (32, 32, 16, 16), (32, 32, 3, 3), 1, 1),
    ("32->64 16px s2", (32, 32, 16, 16), (64, 32, 3, 3), 2, 1),
    ("64->64 8px s1", (32, 64, 8, 8), (64, 64, 3, 3), 1, 1),
    ("16->32 1x1 s2", (32, 16, 32, 32), (32, 16, 1, 1), 2, 0),
    ("32->64 1x1 s2", (32, 32, 16, 16), (64, 32, 1, 1), 2, 0),
)


def steady_malloc() -> None:
    """Fixes glibc's mmap threshold at 64 MiB (and trimming at 256 MiB): a kernel timed
    alone otherwise gets its multi-MiB scratch from fresh mmaps and pays a page fault per
    4 KiB on first touch (1225 per 16->16 forward, about half its time), where inside a
    training step the dynamic threshold has long risen (0 faults per ResNet step measured)."""
    import ctypes
    libc = ctypes.CDLL("libc.so.6")
    libc.mallopt(-3, 64 << 20)   # M_MMAP_THRESHOLD
    libc.mallopt(-1, 256 << 20)  # M_TRIM_THRESHOLD


def torch_table(sides, rounds, clock) -> None:
    """Per M1 convolution: forward, input gradient and filter gradient of each side's
    conv2d kernels (called directly, float32) against PyTorch's (conv2d; autograd.grad
    of the input and of the weight alone, on a retained graph) and against one matmul
    of the same M, N, K (the pure GEMM time: [O, C*k*k] @ [C*k*k, N*P]). Minimum over
    ``rounds`` interleaved rounds, in ms."""
    import torch
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    times = {}

    def timed(key, fn):
        fn()
        start = clock()
        fn()
        times[key] = min(times.get(key, float("inf")), (clock() - start) * 1e3)

    cases = []
    for name, x_shape, w_shape, stride, padding in M1_CONVS:
        x = rng.standard_normal(x_shape, dtype=np.float32)
        w = rng.standard_normal(w_shape, dtype=np.float32)
        args = ([stride] * 2, [padding] * 2, "EXPLICIT", [1, 1], 1, "NCHW")
        out_shape = (x_shape[0], w_shape[0]) + tuple((m + 2 * padding - w_shape[2]) // stride + 1
                                                     for m in x_shape[2:])
        g = rng.standard_normal(out_shape, dtype=np.float32)
        tx, tw, tg = (torch.from_numpy(a) for a in (x, w, g))
        tx.requires_grad_(True)
        tw.requires_grad_(True)
        f = torch.nn.functional.conv2d
        dx_graph = f(tx, tw.detach(), stride=stride, padding=padding)
        dw_graph = f(tx.detach(), tw, stride=stride, padding=padding)
        depth = w_shape[1] * w_shape[2] * w_shape[3]
        a = rng.standard_normal((w_shape[0], depth), dtype=np.float32)
        b = rng.standard_normal((depth, out_shape[0] * out_shape[2] * out_shape[3]), dtype=np.float32)
        cases.append((name, x, w, g, args, tx, tw, tg, dx_graph, dw_graph, a, b))
    for _ in range(rounds):
        for name, x, w, g, args, tx, tw, tg, dx_graph, dw_graph, a, b in cases:
            for side, kernels in sides.items():
                fwd, grad = kernels[("conv2d", DataType.FLOAT32)], kernels[("conv2d_grad", DataType.FLOAT32)]
                timed((name, side, "fwd"), lambda: fwd(CPU_CONTEXT, x, w, *args))
                timed((name, side, "dx"), lambda: grad(CPU_CONTEXT, x, w, g, *args, out_mask=(True, False)))
                timed((name, side, "dw"), lambda: grad(CPU_CONTEXT, x, w, g, *args, out_mask=(False, True)))
            stride, padding = args[0][0], args[1][0]
            timed((name, "torch", "fwd"), lambda: torch.nn.functional.conv2d(
                tx.detach(), tw.detach(), stride=stride, padding=padding))
            timed((name, "torch", "dx"), lambda: torch.autograd.grad(dx_graph, tx, tg, retain_graph=True))
            timed((name, "torch", "dw"), lambda: torch.autograd.grad(dw_graph, tw, tg, retain_graph=True))
            timed((name, "gemm", "all"), lambda: a @ b)
    print(f"{'conv (ms; before/after/torch)':<20} {'forward':>20} {'input grad':>20} {'filter grad':>20}"
          f" {'GEMM':>6}   after/torch fwd dx dw   after/GEMM fwd dx dw")
    for name, *_ in cases:
        cells, vs_torch, vs_gemm = [], [], []
        gemm = times[name, "gemm", "all"]
        for op in ("fwd", "dx", "dw"):
            before, after, theirs = (times[name, side, op] for side in ("before", "after", "torch"))
            cells.append(f"{before:6.2f}/{after:5.2f}/{theirs:5.2f}")
            vs_torch.append(f"{after / theirs:4.2f}")
            vs_gemm.append(f"{after / gemm:4.2f}")
        print(f"{name:<20} {cells[0]:>20} {cells[1]:>20} {cells[2]:>20} {gemm:6.2f}   "
              f"{' '.join(vs_torch):>18}   {' '.join(vs_gemm):>18}")


def accuracy_table(sides) -> None:
    """Per M1 convolution (and LeNet's two): each side's float32 forward, input and
    filter gradients against the base side's float64 ones, max |f32 - f64| / max |f64|."""
    rng = np.random.default_rng(0)
    cases = M1_CONVS + (("LeNet 1->6 28px 5x5", (64, 1, 28, 28), (6, 1, 5, 5), 1, 2),
                        ("LeNet 6->16 14px 5x5", (64, 6, 14, 14), (16, 6, 5, 5), 1, 0))
    print(f"{'conv (float32 error: before / after)':<24} {'forward':>19} {'input grad':>19} {'filter grad':>19}")
    for name, x_shape, w_shape, stride, padding in cases:
        x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
        args = ([stride] * 2, [padding] * 2, "EXPLICIT", [1, 1], 1, "NCHW")
        out_shape = (x_shape[0], w_shape[0]) + tuple((m + 2 * padding - w_shape[2]) // stride + 1
                                                     for m in x_shape[2:])
        g = rng.standard_normal(out_shape)
        base = sides["before"]
        exact = (base[("conv2d", DataType.FLOAT64)](CPU_CONTEXT, x, w, *args),
                 *base[("conv2d_grad", DataType.FLOAT64)](CPU_CONTEXT, x, w, g, *args))
        errors = {}
        for side, kernels in sides.items():
            x32, w32, g32 = (a.astype(np.float32) for a in (x, w, g))
            got = (kernels[("conv2d", DataType.FLOAT32)](CPU_CONTEXT, x32, w32, *args),
                   *kernels[("conv2d_grad", DataType.FLOAT32)](CPU_CONTEXT, x32, w32, g32, *args))
            errors[side] = [float(np.abs(a - e).max() / np.abs(e).max()) for a, e in zip(got, exact)]
        print(f"{name:<24} " + " ".join(f"{errors['before'][i]:8.2e} / {errors['after'][i]:8.2e}" for i in range(3)))


def workloads(only, sides):
    """(workload, side) -> (fn, unit, calls per timing). A to_static step replays the
    kernels it captured, so each side gets its own, captured with its kernels installed."""
    import lenet  # benchmarks/lenet.py: the B5 step
    import run as R  # benchmarks/run.py: the B2 chain and the B3 steps
    out = {}
    params = init_weights()
    for side, kernels in sides.items():
        install(kernels)
        if "B2" in only:
            rng = np.random.default_rng(0)
            x = eager.to_tensor(rng.standard_normal(16).astype(np.float32), stop_gradient=False)
            c = eager.to_tensor(rng.standard_normal(16).astype(np.float32))
            out["B2 fwd+bwd per node (us)", side] = (functools.partial(R.eager_chain, x, c), 1e6 / R.CHAIN, 3)
        if "B5" in only:
            x_np, labels_np = lenet.make_batch(64)
            step = lenet.EagerLeNet(lenet.init_weights()).step
            out["B5 LeNet step b64 (ms)", side] = (
                functools.partial(step, eager.to_tensor(x_np), eager.to_tensor(labels_np)), 1e3, 2)
        if "RN" in only:
            out["RN ResNet step b32 (ms)", side] = (resnet_step(), 1e3, 1)
        if "CV" in only:
            for x_shape, w_shape, stride, padding in CONV_CASES:
                name = f"CV {x_shape[1]}->{w_shape[0]} {x_shape[2]}px k{w_shape[2]} s{stride} (ms)"
                out[name, side] = (conv_case(x_shape, w_shape, stride, padding), 1e3, 1)
        for batch in (64, 512):
            x_np, y_np = make_batch(batch)
            x, y = eager.to_tensor(x_np), eager.to_tensor(y_np)
            number = 5 if batch == 64 else 2
            if "B3" in only:
                out[f"B3 b{batch} step (ms)", side] = (functools.partial(R.EagerStep(params).step, x, y), 1e3, number)
            if "B3j" in only:
                jit = R.JitStep(params)
                for _ in range(3):
                    jit.step(x, y)
                out[f"B3j b{batch} step (ms)", side] = (functools.partial(jit.step, x, y), 1e3, number)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="git revision of the 'before' kernels")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--only", default="B2,B3,B3j")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="cpu: this process's CPU time (steadier on a shared machine); wall: perf_counter")
    parser.add_argument("--steady-malloc", action="store_true",
                        help="fix glibc's mmap threshold (see steady_malloc; always on for CT)")
    args = parser.parse_args(argv)
    only = set(args.only.split(","))
    if args.steady_malloc or "CT" in only:
        steady_malloc()
    before = base_kernels(args.base)
    after = current_kernels(sorted({name for name, _ in before}))
    sides = {"before": {k: v for k, v in before.items() if k in after}, "after": after}
    if not sides["before"]:
        raise SystemExit("kernel_ab: no kernel of the base revision matches a registered one")
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    if "ACC" in only:
        accuracy_table(sides)
    if "CT" in only:
        torch_table(sides, args.rounds, clock)
    only -= {"ACC", "CT"}
    if not only:
        return 0
    loads = workloads(only, sides)
    names = list(dict.fromkeys(w for w, _ in loads))
    best = dict.fromkeys(loads, float("inf"))
    for _ in range(args.rounds):
        for side, kernels in sides.items():
            install(kernels)
            for w in names:
                fn, unit, number = loads[w, side]
                fn()  # warm: remember the signatures again
                start = clock()
                for _ in range(number):
                    fn()
                best[w, side] = min(best[w, side], (clock() - start) / number * unit)
    width = max(28, *(len(w) for w in names))
    print(f"{'workload':<{width}} {'before':>9} {'after':>9} {'after/before':>13}")
    for w in names:
        b, a = best[w, "before"], best[w, "after"]
        print(f"{w:<{width}} {b:9.3f} {a:9.3f} {a / b:12.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
