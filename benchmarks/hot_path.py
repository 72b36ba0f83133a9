"""What the hot path of ``a + b`` on (16,) float32 costs, piece by piece, in nanoseconds.

    python benchmarks/hot_path.py            # about 20 seconds
    python benchmarks/hot_path.py --rounds 60

Every piece is timed with timeit, the pieces interleaved round by round, and
the minimum over the rounds reported (the least noisy estimate of the cost on
a shared machine). The phi call is timed twice: with its remembered signature
(a hit: no InferMeta) and with signature caches at capacity 0 (every call
runs InferMeta and selects the kernel through the dispatch table), which is
what each call cost before phi remembered signatures. docs/performance.md
shows the table.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import eager  # noqa: E402
from eager.autograd import engine  # noqa: E402
from eager.autograd.meta import AutogradMeta  # noqa: E402
from eager.autograd.node import GradNodeBase  # noqa: E402
from eager.autograd.tensor_wrapper import SavedOutput  # noqa: E402
from eager.autograd.thread_state import THREAD  # noqa: E402
from eager.generated import ops_elementwise  # noqa: E402
from phi import infermeta  # noqa: E402
from phi.api import generated_api  # noqa: E402
from phi.core import DenseTensor, MetaTensor  # noqa: E402
from phi.core.kernel_registry import KERNELS, set_signature_cache_capacity  # noqa: E402


def pieces():
    """name -> (statement, globals, capacity): what each row times."""
    xa = np.arange(16, dtype=np.float32)
    ya = np.ones(16, dtype=np.float32)
    x, y = DenseTensor(xa), DenseTensor(ya)
    on = eager.to_tensor(xa, stop_gradient=False)
    off, b = eager.to_tensor(xa), eager.to_tensor(ya)
    seen = generated_api._add_seen
    recorded = eager.tanh(on)
    # B2's kernels as the grad nodes and phi call them (bound to their context)
    tanh_grad = KERNELS.dispatch_table("tanh_grad")[np.ndarray, xa.dtype]
    scale = KERNELS.dispatch_table("scale")[np.ndarray, xa.dtype]
    scale_grad = KERNELS.dispatch_table("scale_grad")[np.ndarray, xa.dtype]
    out, buf = np.tanh(xa), ya.copy()
    # a tanh grad node of tanh(0) (slope 1: its gradient keeps its value round after round)
    # and an owned gradient for its apply_into
    zero_node = eager.tanh(eager.to_tensor(np.zeros(16, np.float32), stop_gradient=False)).grad_node
    owned = [eager.Tensor(DenseTensor(np.ones(16, np.float32)))]
    g = dict(G=generated_api, im=infermeta, tanh_grad=tanh_grad, scale=scale, scale_grad=scale_grad,
             out=out, buf=buf, MetaTensor=MetaTensor, DenseTensor=DenseTensor, np=np,
             x=x, y=y, xa=xa, ya=ya, on=on, off=off, b=b, seen=seen, eager=eager,
             new=object.__new__, AddGradNode=ops_elementwise.AddGradNode, THREAD=THREAD, ts=THREAD.__dict__,
             AutogradMeta=AutogradMeta, SavedOutput=SavedOutput, recorded=recorded, ndarray=np.ndarray,
             zero_node=zero_node, owned=owned)
    return {
        "np.add(xa, ya) (the kernel)": "np.add(xa, ya)",
        "DenseTensor(result) (wrapping)": "DenseTensor(xa)",
        "InferMeta: MetaTensor() + elementwise_infer_meta": "m = MetaTensor(); im.elementwise_infer_meta(x, y, m)",
        "signature tuple + cache lookup": (
            "seen.get((type(x.array), x.array.dtype, x.array.shape, "
            "type(y.array), y.array.dtype, y.array.shape))"),
        "phi add, remembered signature (hit)": "G.add(x, y)",
        "phi add, every check (capacity 0)": "G.add(x, y)",
        "eager a + b, recording off (no_grad)": "off + b",
        "eager a + b, recording on": "on + b",
        # a Python float operand: scale, run in the operator's own frame (B2's y * 0.5)
        "eager a * 0.5, recording on": "on * 0.5",
        "eager 0.5 * a, recording on (reflected)": "0.5 * on",
        # what recording adds, piece by piece, as the generated code writes it
        # grad mode, name scope and pack hooks: one thread-local read, then its dict
        "thread state (THREAD.__dict__, 3 keys)": (
            "t = THREAD.__dict__; t['enabled']; t['current']; t['pack_hooks']"),
        "grad node (object.__new__, edges, scope)": (
            "n = new(AddGradNode); n.next_edges, n.scope = ((None,), (None,)), ts['current']"),
        "AutogradMeta of the output": "m = new(AutogradMeta); m.node, m.slot, m.stop_gradient = None, 0, False",
        "shape-only save (spec tuple)": (
            "s = ((a := x.array).shape, a.dtype, 'cpu' if type(a) is ndarray else a.device)"),
        # B2's kernels (their own work: ufunc calls and constants)
        "tanh_grad kernel, into the gradient (B2's backward)": "tanh_grad(out, buf, into=buf)",
        "scale kernel, y * 0.5 (B2's forward)": "scale(xa, 0.5, 0.0, True)",
        "scale_grad kernel, into the gradient": "scale_grad(buf, 0.5, into=buf)",
        "tanh grad node apply_into (checks + kernel)": "zero_node.apply_into(owned)",
        "saved output (SavedOutput in line)": (
            "s = new(SavedOutput); s._impl = i = recorded.impl; "
            "s.slot, s.version = 0, 0 if (c := i.version_counter) is None else c.value"),
    }, g


def backward_per_node(rounds: int, length: int = 1000) -> float:
    """Seconds per node of backward() over B2's chain (tanh, * 0.5, + c repeated):
    the engine's walk, the grad nodes and their kernels; minimum over the rounds."""
    rng = np.random.default_rng(0)
    x = eager.to_tensor(rng.standard_normal(16).astype(np.float32), stop_gradient=False)
    c = eager.to_tensor(rng.standard_normal(16).astype(np.float32))
    best = float("inf")
    for _ in range(rounds):
        y = x
        for i in range(length):
            y = eager.tanh(y) if i % 3 == 0 else y * 0.5 if i % 3 == 1 else y + c
        loss = y.sum()
        del y
        start = time.perf_counter()
        loss.backward()
        best = min(best, (time.perf_counter() - start) / length)
        x.clear_grad(set_to_zero=False)
    return best


class _PassGradNode(GradNodeBase):
    """A grad node that passes its one gradient on unchanged (no kernel, nothing
    saved): a chain of them times the engine alone."""

    __slots__ = ()
    fresh_grads = True
    tracks_ownership = True

    def apply(self, grads, create_graph):
        return ((grads[0],),)


def engine_per_node(rounds: int, length: int = 1000) -> dict:
    """Seconds per node of the engine alone: a retained backward over a chain of
    pass-through nodes (dependency count, walk, ownership, one apply call each),
    and the dependency count by itself over B2's chain; minima over the rounds."""
    x = eager.to_tensor(np.ones(16, np.float32), stop_gradient=False)
    c = eager.to_tensor(np.ones(16, np.float32))
    y = x * 1.0
    for _ in range(length):
        y = eager.Tensor(y.impl, AutogradMeta(_PassGradNode((((y.grad_node, 0),),)), 0))
    seed = eager.to_tensor(np.ones(16, np.float32))
    chain = x
    for i in range(length):
        chain = eager.tanh(chain) if i % 3 == 0 else chain * 0.5 if i % 3 == 1 else chain + c
    roots = [chain.grad_node]
    walk = count = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        y.backward(seed, retain_graph=True)
        walk = min(walk, (time.perf_counter() - start) / length)
        x.clear_grad(set_to_zero=False)
        start = time.perf_counter()
        engine._count_dependencies(roots)
        count = min(count, (time.perf_counter() - start) / length)
    return {"engine per node: pass-through chain, retained": walk,
            "dependency count per node (B2's chain)": count}


def measure(rounds: int, number: int) -> dict:
    stmts, g = pieces()
    best = {name: float("inf") for name in stmts}
    for _ in range(rounds):
        for name, stmt in stmts.items():
            capacity = 0 if "capacity 0" in name else None
            previous = set_signature_cache_capacity(capacity) if capacity is not None else None
            grad = not name.endswith("recording off (no_grad)")
            try:
                with eager.set_grad_enabled(grad):
                    timer = timeit.Timer(stmt, globals=g)
                    timer.timeit(10)  # warm (and, at full capacity, remember the signature)
                    best[name] = min(best[name], timer.timeit(number) / number)
            finally:
                if previous is not None:
                    set_signature_cache_capacity(previous)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="interleaved rounds (minimum reported)")
    parser.add_argument("--number", type=int, default=20000, help="calls per timing")
    args = parser.parse_args(argv)
    best = measure(args.rounds, args.number)
    best["backward per node, 1,000-op chain (B2's)"] = backward_per_node(args.rounds)
    best.update(engine_per_node(args.rounds))
    print(f"{'piece':<52} {'ns':>8}")
    for name, seconds in best.items():
        print(f"{name:<52} {seconds * 1e9:8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
