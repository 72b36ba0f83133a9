"""Where the host's time goes in a GPU training step (issue #14's G3 target).

    python benchmarks/gpu_profile.py            # on a machine with a GPU (gpu_check.sh runs it)
    python benchmarks/gpu_profile.py --smoke    # tiny sizes, on whatever ``cupy`` imports

On the H200 the G3 step is host-bound: eager makes fewer CuPy calls than the
hand-written step (26 to 36) yet took 1.36-1.42x its time, so the gap is
host Python, not kernels. This prints what the G rows cannot say:

1. the time per step of the hand-written CuPy step, eager's step and its
   ``to_static`` replay, issued (host only) and synchronized;
2. a cProfile of each, sorted by own time, so the eager functions that cost
   most on real CuPy (whose calls and attributes cost differently from the
   CPU's NumPy and from tests/fake_cupy.py) can be named;
3. what one read of each CuPy array attribute eager's hot path reads costs
   (``shape``, ``dtype``, ``device``, ...), a fused update against the
   two ufunc calls it replaces, and the direct cuBLAS product and column sum
   (phi/backends/cublas.py) against CuPy's matmul and sum.

It checks nothing and has no target: the G rows of benchmarks/run.py do.
"""
from __future__ import annotations

import cProfile
import io
import os
import pstats
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import eager  # noqa: E402
import gpu  # noqa: E402  (benchmarks/gpu.py)
from mlp import LAYERS, HandWrittenMLP, init_weights, make_batch  # noqa: E402  (benchmarks/mlp.py)
from phi.backends import get_gpu_context  # noqa: E402
from phi.kernels.optimizer import sgd_step  # noqa: E402

SMOKE_LAYERS = (12, 8, 8, 3)


def step_times(steps: dict, sync, number: int) -> dict:
    """name -> (us per step issued, us per step synchronized), each the minimum of 3 rounds."""
    times = {}
    for name, step in steps.items():
        for _ in range(3):
            step()
        sync()
        best_issued = best_total = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for _ in range(number):
                step()
            issued = time.perf_counter() - start
            sync()
            total = time.perf_counter() - start
            best_issued, best_total = min(best_issued, issued), min(best_total, total)
        times[name] = (best_issued / number * 1e6, best_total / number * 1e6)
    return times


def profile_of(step, sync, number: int, top: int) -> str:
    """cProfile of ``number`` calls of step, the ``top`` functions by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(number):
        step()
    sync()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(top)
    return text.getvalue()


def attribute_costs(cupy, number: int) -> dict:
    """what -> ns per call: the CuPy reads and calls of eager's hot path, one by one."""
    array = cupy.asarray(np.ones((64, 256), np.float32))
    grad = cupy.asarray(np.ones((64, 256), np.float32))
    lr = cupy.asarray(np.full((1,), 0.01, np.float32))
    lr0 = lr.reshape(())
    weight = cupy.asarray(np.ones((256, 256), np.float32))
    scope = {"a": array, "g": grad, "lr": lr, "lr0": lr0, "cupy": cupy, "sgd_step": sgd_step,
             "ndarray": np.ndarray, "w": weight, "ctx": get_gpu_context()}
    statements = {
        "type(a) is ndarray": "type(a) is ndarray",
        "a.shape": "a.shape",
        "a.dtype": "a.dtype",
        "a.ndim": "a.ndim",
        "a.size": "a.size",
        "a.device": "a.device",
        "a.device.id": "a.device.id",
        "a.T": "a.T",
        "lr.reshape(())": "lr.reshape(())",
        "a @ w (CuPy's matmul)": "a @ w",
        "ctx.matmul(a, w) (direct sgemm)": "ctx.matmul(a, w)",
        "a.sum(axis=0) (CuPy's reduction)": "a.sum(axis=0)",
        "ctx.column_sums(a) (gemv)": "ctx.column_sums(a)",
        "sgd_step fused (1 kernel)": "sgd_step(cupy, a, None, g, lr0)",
        "multiply + subtract out= (2 kernels)": "cupy.subtract(a, cupy.multiply(g, lr), out=a)",
    }
    costs = {}
    for what, statement in statements.items():
        timer = timeit.Timer(statement, globals=scope)
        costs[what] = min(timer.repeat(repeat=5, number=number)) / number * 1e9
    return costs


def report(cupy, *, smoke: bool = False, out=print) -> None:
    """Prints the three parts (see the module doc) for the G3 network at batch 64
    (``smoke``: tiny sizes and few calls, to keep the code from rotting)."""
    layers, batch = (SMOKE_LAYERS, 4) if smoke else (LAYERS, 64)
    number, top = (2, 5) if smoke else (200, 40)
    params = init_weights(layers=layers)
    x_np, y_np = make_batch(batch, layers=layers)
    ref, ours, replayed = HandWrittenMLP(params, xp=cupy), gpu.EagerMLP(params), gpu.JitMLP(params)
    x, y = cupy.asarray(x_np), cupy.asarray(y_np)
    tx, ty = eager.to_tensor(x_np, place="gpu"), eager.to_tensor(y_np, place="gpu")
    steps = {"hand-written CuPy": lambda: ref.step(x, y), "eager": lambda: ours.step(tx, ty),
             "eager to_static replay": lambda: replayed.step(tx, ty)}
    sync = gpu._cupy_sync(cupy)
    out(f"== G3 step, batch {batch}: us per step (issued: host only / synchronized)")
    for name, (issued, total) in step_times(steps, sync, number).items():
        out(f"  {name:<28} {issued:9.1f} / {total:9.1f}")
    for name, step in steps.items():
        out(f"== cProfile of {number} steps: {name}")
        out(profile_of(step, sync, number, top))
    out("== one read or call on a float32 (64, 256) array: ns")
    for what, ns in attribute_costs(cupy, 20 if smoke else 20000).items():
        out(f"  {what:<40} {ns:10.0f}")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv not in ([], ["--smoke"]):
        print("usage: python benchmarks/gpu_profile.py [--smoke]")
        return 2
    cupy, why = gpu.gpu_status()
    if cupy is None:
        print(why)
        return 0
    report(cupy, smoke=argv == ["--smoke"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
