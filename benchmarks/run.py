"""Benchmarks of eager against baselines measured in the same run; prints a table.

    python benchmarks/run.py            # full run (about a minute)
    python benchmarks/run.py --quick    # short run, noisier
    python benchmarks/run.py --no-torch # skip PyTorch even when installed
    python benchmarks/run.py --check    # exit 1 when a target of issue #14 is missed
    python benchmarks/run.py --only B1 --repeat 200  # one benchmark, more repeats
    python benchmarks/run.py --clock wall            # perf_counter instead of CPU time
    python benchmarks/run.py --only G --check        # the GPU rows (benchmarks/gpu.py)
    python benchmarks/run.py --only M                # the small models (benchmarks/models.py)

B1  forward time per op of ``a + b`` on float32 (16,) tensors, recording on
    (a requires a gradient) and off (under no_grad); vs np.add and PyTorch.
B2  forward + backward time per node over a 1,000-op elementwise chain
    (tanh, multiply by a scalar, add a tensor, repeating); vs PyTorch.
B3  one SGD step (forward, backward, update, clear_grad) of a 784-256-256-10
    ReLU MLP with mean-square loss at batch 64 and 512; vs a hand-written NumPy
    forward/backward/update of the same network, and vs PyTorch. "B3 ce" is the
    same step with softmax cross-entropy on integer class labels (the common
    classifier), against a hand-written fused NumPy softmax cross-entropy.
B3j the B3 step (mean-square loss, gradients cleared to zeros) under
    eager.jit.to_static: captured once, then replayed as a flat kernel list;
    vs the same hand-written NumPy step (and B3's eager step, run alongside).
    "B3f" (same rounds) is B3's eager step with only the model's forward under
    to_static (Paddle's common use): backward and update run outside the call,
    the replayed forward's grad node runs the recorded backward kernels.
B4  peak memory allocated during one B3 step (tracemalloc) vs the NumPy step.
B5  one SGD step of a LeNet-style CNN (two 5x5 convs, 2x2 max pools, three
    linear layers, softmax cross-entropy; 28x28 inputs, batch 64): vs a
    hand-written NumPy im2col step of the same network (benchmarks/lenet.py,
    checked to give the same losses), and PyTorch.
B6  one training step (forward, backward of the outputs' mean, clear_grad) of
    a 1-layer LSTM, input 64, hidden 128, batch 32, sequence 32, float32; vs
    PyTorch's nn.LSTM with the same weights.
B7  one epoch of a DataLoader over a dataset whose samples cost real NumPy work
    (benchmarks/dataloader.py), with 2 worker processes; its "numpy" baseline is
    the same epoch read in-process (num_workers=0), so below 1.0x the workers win.
M1-M4 small real training steps (benchmarks/models.py): a ResNet with Momentum, an
    Embedding+LSTM text classifier with Adam, a 2-layer TransformerEncoder with
    AdamW, B3's MLP with Adam; vs PyTorch with the same weights and data
    (checked to give the same first losses). Report-only: no target.
G1, G3, G3j, G5 and "G3 xfer" (issue #12) run on the GPU only where CuPy sees one
    (otherwise the GPU table says "skipped: no GPU" and --check ignores them):
    eager on CuPy against raw CuPy, hand-written CuPy steps and PyTorch CUDA,
    and the host<->device copies of a training step. benchmarks/gpu.py says how.

Every figure is measured with timeit-style repeats (min and median reported;
ratios use the minimum, the least noisy estimate of the cost): 60 short
repeats (30 ms each) per contestant, interleaved with its baselines', timed in
this process's CPU time (``--clock wall`` for perf_counter); B7 keeps wall time
and 7 repeats of whole epochs. BLAS and
OpenMP are pinned to one thread: the script sets OMP_NUM_THREADS etc. and
re-executes itself before numpy is imported, and calls torch.set_num_threads(1).
PyTorch is optional (``pip install torch`` or the ``bench`` extra).
"""
from __future__ import annotations

import os
import sys

# Thread pools are sized when numpy/torch load, so the thread variables must be
# set before that: timing.pin_threads() sets them and restarts this script in a
# fresh interpreter (benchmarks/timing.py, beside this script).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402

if __name__ == "__main__":
    timing.pin_threads()

import argparse  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import tracemalloc  # noqa: E402

# Runs from any directory without installing.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import eager  # noqa: E402
import dataloader  # noqa: E402  (benchmarks/dataloader.py, beside this script)
import gpu  # noqa: E402  (benchmarks/gpu.py, beside this script)
import lenet  # noqa: E402  (benchmarks/lenet.py, beside this script)
import models  # noqa: E402  (benchmarks/models.py: the M rows)
from mlp import LR, HandWrittenMLP, init_weights, make_batch  # noqa: E402  (benchmarks/mlp.py)
from eager import nn  # noqa: E402
from eager.nn import functional as F  # noqa: E402

# Targets (issues #2 and #14), and the PyTorch 2.13 figures measured when #2 was written.
TARGETS = {
    "B1 on": ("torch", 1.0, "PyTorch 3.1 us"),
    "B1 off": ("torch", 1.0, "PyTorch 2.1 us"),
    "B2": ("torch", 0.8, "PyTorch 11.6 us/node"),
    "B3 b64": ("numpy", 1.15, "NumPy 1.17 ms"),
    "B3 b512": ("numpy", 1.05, "NumPy 7.8 ms"),
    "B3j b64": ("numpy", 1.15, ""),
    "B3j b512": ("numpy", 1.05, ""),
    "B3f b64": ("numpy", 1.15, ""),
    "B3f b512": ("numpy", 1.05, ""),
    "B3 ce b64": ("numpy", 1.15, ""),
    "B3 ce b512": ("numpy", 1.05, ""),
    "B4 b64": ("numpy", 1.5, ""),
    "B4 b512": ("numpy", 1.5, ""),
    "B5": ("numpy", 1.2, ""),
    "B6": ("torch", 1.5, ""),
    "B7": ("numpy", 1.0, ""),
}
# The targets `--check` enforces (issue #14); the others are printed for information.
# B3j is B3's step under eager.jit.to_static, the route (b) to B3's
# targets: it is held to them as the eager step is.
CHECKED = ("B1 on", "B1 off", "B2", "B3 b64", "B3 b512", "B3j b64", "B3j b512", "B4 b64", "B4 b512", "B5", "B6")



# -- timing (benchmarks/timing.py) -------------------------------------------------
# The clock of every host figure (B1-B6, M1-M4) is timing.CLOCK: this process's
# CPU time by default; main() sets it from --clock. B7 (worker processes) and
# the GPU rows keep wall time: their work is not this process's CPU time.
Timing, CLOCKS, measure_many, load_torch = timing.Timing, timing.CLOCKS, timing.measure_many, timing.load_torch


# -- the table -------------------------------------------------------------------
ROWS = []


def row(bench, what, timing_or_value, unit, baselines):
    """baselines: {"numpy": Timing|value|None, "torch": ...}."""
    ROWS.append((bench, what, timing_or_value, unit, baselines))


def fmt_value(v, unit):
    if isinstance(v, Timing):
        scale = {"us": 1e6, "ms": 1e3}[unit]
        return f"{v.min * scale:8.2f} / {v.median * scale:8.2f} {unit}"
    if unit == "MiB":
        return f"{v / 2 ** 20:8.2f} MiB"
    return str(v)


def scalar(v):
    return v.min if isinstance(v, Timing) else v


def target_results():
    """(target, status, text) for every checked target: status "met", "missed",
    "skipped" (its baseline, PyTorch, is not installed) or "not run" (--only)."""
    measured = {}
    for bench, _what, value, _unit, baselines in ROWS:
        measured[bench] = (value, baselines)
    results = []
    for name in CHECKED:
        against, limit, _note = TARGETS[name]
        if name not in measured:
            results.append((name, "not run", f"<= {limit:.2f}x {against}"))
            continue
        value, baselines = measured[name]
        base = baselines.get(against)
        if base is None:
            results.append((name, "skipped", f"<= {limit:.2f}x {against}: {against} not installed"))
            continue
        ratio = scalar(value) / scalar(base)
        status = "met" if ratio <= limit else "missed"
        results.append((name, status, f"{ratio:.2f}x {against} (target <= {limit:.2f}x)"))
    return results


def exit_status(results, check: bool) -> int:
    """1 when ``check`` is asked and a measured target was missed, else 0."""
    return 1 if check and any(status == "missed" for _, status, _ in results) else 0


def print_targets(results) -> None:
    print("\ntargets of issue #14:")
    for name, status, text in results:
        print(f"  {name:<10} {status:<8} {text}")
    met = sum(status == "met" for _, status, _ in results)
    judged = sum(status in ("met", "missed") for _, status, _ in results)
    print(f"  {met} of {judged} measured targets met")


def print_table():
    header = (f"{'bench':<10} {'what':<34} {'eager min / median':>26}  {'vs numpy':>9}  "
              f"{'vs torch':>9}  {'target':>16}  ok")
    print(header)
    print("-" * len(header))
    for bench, what, value, unit, baselines in ROWS:
        ratios = {}
        for name in ("numpy", "torch"):
            base = baselines.get(name)
            ratios[name] = None if base is None else scalar(value) / scalar(base)
        target = TARGETS.get(bench)
        target_text, ok = "", ""
        if target:
            against, limit, _note = target
            target_text = f"<= {limit:.2f}x {against}"
            if ratios[against] is not None:
                ok = "yes" if ratios[against] <= limit else "NO"
            else:
                ok = "n/a"
        cells = [f"{r:8.2f}x" if r is not None else f"{'-':>9}" for r in (ratios["numpy"], ratios["torch"])]
        print(f"{bench:<10} {what:<34} {fmt_value(value, unit):>26}  {cells[0]}  {cells[1]}  "
              f"{target_text:>16}  {ok}")


def print_baselines(baselines_seen):
    print("\nbaselines measured in this run (min / median):")
    for name, (value, unit) in baselines_seen.items():
        print(f"  {name:<44} {fmt_value(value, unit)}")
    print("issue #2 reference figures: " + "; ".join(
        f"{k}: {v[2]}" for k, v in TARGETS.items() if v[2]))


# -- B1: per-op overhead ---------------------------------------------------------
def bench_b1(torch, budget, repeat, seen):
    a_np = np.arange(16, dtype=np.float32)
    b_np = np.ones(16, dtype=np.float32)
    for mode in ("on", "off"):
        a = eager.to_tensor(a_np, stop_gradient=(mode == "off"))
        b = eager.to_tensor(b_np)
        stmts = {"eager": ("a + b", {"a": a, "b": b}),
                 "numpy": ("np.add(x, y)", {"np": np, "x": a_np, "y": b_np})}
        if torch is not None:
            ta = torch.from_numpy(a_np.copy()).requires_grad_(mode == "on")
            stmts["torch"] = ("a + b", {"a": ta, "b": torch.from_numpy(b_np.copy())})
        # Recording off means under no_grad for both frameworks; the grad-mode
        # switches are thread state, so entering them around the timing suffices.
        with eager.set_grad_enabled(mode == "on"):
            if torch is not None:
                with torch.set_grad_enabled(mode == "on"):
                    t = measure_many(stmts, budget=budget, repeat=repeat)
            else:
                t = measure_many(stmts, budget=budget, repeat=repeat)
        seen[f"B1 numpy np.add ({mode} run)"] = (t["numpy"], "us")
        if torch is not None:
            seen[f"B1 torch a + b, recording {mode}"] = (t["torch"], "us")
        row(f"B1 {mode}", f"a + b, (16,) f32, recording {mode}", t["eager"], "us",
            {"numpy": t["numpy"], "torch": t.get("torch")})


# -- B2: per-node forward + backward ----------------------------------------------
CHAIN = 1000


def eager_chain(x, c):
    y = x
    for i in range(CHAIN):
        k = i % 3
        if k == 0:
            y = eager.tanh(y)
        elif k == 1:
            y = y * 0.5
        else:
            y = y + c
    y.sum().backward()
    x.clear_grad(set_to_zero=False)


def torch_chain(torch, x, c):
    y = x
    for i in range(CHAIN):
        k = i % 3
        if k == 0:
            y = torch.tanh(y)
        elif k == 1:
            y = y * 0.5
        else:
            y = y + c
    y.sum().backward()
    x.grad = None


def bench_b2(torch, budget, repeat, seen):
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(16).astype(np.float32)
    c_np = rng.standard_normal(16).astype(np.float32)
    x = eager.to_tensor(x_np, stop_gradient=False)
    c = eager.to_tensor(c_np)
    stmts = {"eager": lambda: eager_chain(x, c)}
    if torch is not None:
        tx = torch.from_numpy(x_np.copy()).requires_grad_(True)
        tc = torch.from_numpy(c_np.copy())
        stmts["torch"] = lambda: torch_chain(torch, tx, tc)
    t = measure_many(stmts, budget=budget, repeat=repeat, per=CHAIN)
    if torch is not None:
        seen["B2 torch fwd+bwd per node"] = (t["torch"], "us")
    row("B2", f"fwd+bwd per node, {CHAIN}-op chain", t["eager"], "us", {"torch": t.get("torch")})


# -- B3 / B4: one training step ----------------------------------------------------
class EagerStep:
    """The same network built from eager.nn, trained with eager.optimizer.SGD."""

    def __init__(self, params, loss="mse"):
        layers = []
        for i in range(0, len(params), 2):
            fc = nn.Linear(params[i].shape[0], params[i].shape[1])
            fc.set_state_dict({"weight": params[i], "bias": params[i + 1]})
            layers.append(fc)
            if i + 2 < len(params):
                layers.append(nn.ReLU())
        self.model = nn.Sequential(*layers)
        self.opt = eager.optimizer.SGD(learning_rate=LR, parameters=self.model.parameters())
        self.loss_fn = F.cross_entropy if loss == "ce" else F.mse_loss

    def step(self, x, y):
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        self.opt.step()
        # set_to_zero=False: the next backward writes fresh gradients instead of
        # adding into zeros (PyTorch's zero_grad default does the same).
        self.opt.clear_grad(set_to_zero=False)
        return loss


class JitStep(EagerStep):
    """EagerStep's network and optimizer, its step under eager.jit.to_static
    (captured on the first calls, then replayed as a flat kernel list). The
    gradients are cleared to zeros (Paddle's default), which keeps the state a
    replay needs from step to step."""

    def __init__(self, params, loss="mse"):
        super().__init__(params, loss)
        self.step = eager.jit.to_static(self._step)

    def _step(self, x, y):
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        self.opt.step()
        self.opt.clear_grad(set_to_zero=False)
        return loss


class ForwardJitStep(EagerStep):
    """EagerStep with only the model's forward under eager.jit.to_static: the
    loss, backward, update and clear_grad run eagerly outside the call."""

    def __init__(self, params, loss="mse"):
        super().__init__(params, loss)
        eager.jit.to_static(self.model)


class TorchStep:
    def __init__(self, torch, params, loss="mse"):
        self.torch = torch
        layers = []
        for i in range(0, len(params), 2):
            fc = torch.nn.Linear(params[i].shape[0], params[i].shape[1])
            with torch.no_grad():
                fc.weight.copy_(torch.from_numpy(params[i].T.copy()))
                fc.bias.copy_(torch.from_numpy(params[i + 1]))
            layers.append(fc)
            if i + 2 < len(params):
                layers.append(torch.nn.ReLU())
        self.model = torch.nn.Sequential(*layers)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=LR)
        self.loss_fn = torch.nn.CrossEntropyLoss() if loss == "ce" else torch.nn.MSELoss()

    def step(self, x, y):
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)
        return loss


def check_same_training(params, loss="mse"):
    """The implementations must agree, or the timings compare different work."""
    x, y = make_batch(8, loss=loss)
    ref = HandWrittenMLP(params, loss)
    ours = EagerStep(params, loss)
    for _ in range(3):
        a = ref.step(x, y)
        b = ours.step(eager.to_tensor(x), eager.to_tensor(y)).item()
        if not np.isclose(a, b, rtol=1e-4):
            raise AssertionError(f"eager loss {b} differs from the NumPy baseline's {a}")
    for p, q in zip(ref.params, ours.model.parameters()):
        np.testing.assert_allclose(q.numpy(), p, rtol=1e-4, atol=1e-6)


def bench_b3j(budget, repeat, seen, batches):
    """B3j: the B3 step under eager.jit.to_static, against the NumPy step and the
    eager step (B3's contestants, run again in the same interleaved rounds)."""
    params = init_weights()
    x, y = make_batch(8)
    ref, jit, fwd = HandWrittenMLP(params), JitStep(params), ForwardJitStep(params)
    for _ in range(4):
        a = ref.step(x, y)
        for step, what in ((jit, "to_static"), (fwd, "forward-only to_static")):
            b = step.step(eager.to_tensor(x), eager.to_tensor(y)).item()
            if not np.isclose(a, b, rtol=1e-4):
                raise AssertionError(f"{what} loss {b} differs from the NumPy baseline's {a}")
    if fwd.model.forward.replays == 0:
        raise AssertionError(f"the forward-only to_static step never replayed: {fwd.model.forward.reasons}")
    for batch in batches:
        x_np, y_np = make_batch(batch)
        ref, ours, jit, fwd = HandWrittenMLP(params), EagerStep(params), JitStep(params), ForwardJitStep(params)
        x, y = eager.to_tensor(x_np), eager.to_tensor(y_np)
        stmts = {"numpy": lambda: ref.step(x_np, y_np), "eager": lambda: ours.step(x, y),
                 "jit": lambda: jit.step(x, y), "fwd": lambda: fwd.step(x, y)}
        t = measure_many(stmts, budget=budget, repeat=repeat)
        seen[f"B3j numpy step b{batch}"] = (t["numpy"], "ms")
        seen[f"B3j eager step b{batch}"] = (t["eager"], "ms")
        row(f"B3j b{batch}", f"MLP SGD step under jit.to_static, batch {batch}", t["jit"], "ms",
            {"numpy": t["numpy"], "torch": None})
        row(f"B3f b{batch}", f"MLP SGD step, forward under jit.to_static, batch {batch}", t["fwd"], "ms",
            {"numpy": t["numpy"], "torch": None})


def bench_b3(torch, budget, repeat, seen, batches, loss="mse"):
    """B3 with mean-square loss, or ("ce") softmax cross-entropy on class labels."""
    params = init_weights()
    check_same_training(params, loss)
    tag, what = ("B3 ce", "MLP SGD step, cross-entropy") if loss == "ce" else ("B3", "MLP SGD step")
    for batch in batches:
        x_np, y_np = make_batch(batch, loss=loss)
        ref = HandWrittenMLP(params, loss)
        ours = EagerStep(params, loss)
        x, y = eager.to_tensor(x_np), eager.to_tensor(y_np)
        stmts = {"numpy": lambda: ref.step(x_np, y_np), "eager": lambda: ours.step(x, y)}
        if torch is not None:
            theirs = TorchStep(torch, params, loss)
            tx, ty = torch.from_numpy(x_np), torch.from_numpy(y_np)
            stmts["torch"] = lambda: theirs.step(tx, ty)
        t = measure_many(stmts, budget=budget, repeat=repeat)
        seen[f"{tag} numpy step b{batch}"] = (t["numpy"], "ms")
        if torch is not None:
            seen[f"{tag} torch step b{batch}"] = (t["torch"], "ms")
        row(f"{tag} b{batch}", f"{what}, batch {batch}", t["eager"], "ms",
            {"numpy": t["numpy"], "torch": t.get("torch")})


def peak_bytes(step):
    """Peak bytes allocated (and tracked by tracemalloc) during one call, above
    what was allocated before it. NumPy reports its buffers to tracemalloc."""
    step()  # warm caches (kernel selection, accumulators) outside the measurement
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        step()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak - before


def bench_b4(seen, batches):
    params = init_weights()
    for batch in batches:
        x_np, y_np = make_batch(batch)
        ref = HandWrittenMLP(params)
        base = peak_bytes(lambda: ref.step(x_np, y_np))
        seen[f"B4 numpy peak b{batch}"] = (base, "MiB")
        ours = EagerStep(params)
        x, y = eager.to_tensor(x_np), eager.to_tensor(y_np)
        value = peak_bytes(lambda: ours.step(x, y))
        row(f"B4 b{batch}", f"peak memory of one step, batch {batch}", value, "MiB",
            {"numpy": base})


# -- B5: a LeNet-style CNN training step -------------------------------------------------
def bench_b5(torch, budget, repeat, seen, batch=64):
    params = lenet.init_weights()
    lenet.check_same_training(params, torch)
    x_np, labels_np = lenet.make_batch(batch)
    ref = lenet.HandWrittenLeNet(params)
    ours = lenet.EagerLeNet(params)
    x, labels = eager.to_tensor(x_np), eager.to_tensor(labels_np)
    stmts = {"numpy": lambda: ref.step(x_np, labels_np), "eager": lambda: ours.step(x, labels)}
    if torch is not None:
        theirs = lenet.TorchLeNet(torch, params)
        tx, tl = torch.from_numpy(x_np), torch.from_numpy(labels_np)
        stmts["torch"] = lambda: theirs.step(tx, tl)
    t = measure_many(stmts, budget=budget, repeat=repeat)
    seen[f"B5 numpy LeNet step b{batch}"] = (t["numpy"], "ms")
    if torch is not None:
        seen[f"B5 torch LeNet step b{batch}"] = (t["torch"], "ms")
    row("B5", f"LeNet CNN SGD step, batch {batch}", t["eager"], "ms",
        {"numpy": t["numpy"], "torch": t.get("torch")})


# -- B6: an LSTM training step --------------------------------------------------------
def bench_b6(torch, budget, repeat, seen):
    seq, batch, inputs, hidden = 32, 32, 64, 128
    rng = np.random.default_rng(6)
    x_np = rng.standard_normal((batch, seq, inputs)).astype(np.float32)
    eager.seed(6)
    lstm = nn.LSTM(inputs, hidden)
    x = eager.to_tensor(x_np)

    def eager_step():
        out, _ = lstm(x)
        out.mean().backward()
        for p in lstm.parameters():
            p.clear_grad(set_to_zero=False)
        return out

    stmts = {"eager": eager_step}
    if torch is not None:
        theirs = torch.nn.LSTM(inputs, hidden, batch_first=True)
        with torch.no_grad():
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                getattr(theirs, f"{name}_l0").copy_(torch.from_numpy(getattr(lstm[0].cell, name).numpy()))
        tx = torch.from_numpy(x_np)

        def torch_step():
            out, _ = theirs(tx)
            out.mean().backward()
            theirs.zero_grad(set_to_none=True)
            return out

        # Same weights, same outputs: the timings compare the same work.
        np.testing.assert_allclose(eager_step().numpy(), torch_step().detach().numpy(), rtol=1e-4, atol=1e-5)
        stmts["torch"] = torch_step
    t = measure_many(stmts, budget=budget, repeat=repeat)
    if torch is not None:
        seen["B6 torch LSTM step"] = (t["torch"], "ms")
    row("B6", f"LSTM fwd+bwd, T{seq} B{batch} I{inputs} H{hidden}", t["eager"], "ms", {"torch": t.get("torch")})


# -- B7: DataLoader worker processes ---------------------------------------------------------
def bench_b7(budget, repeat, seen):
    times = dataloader.bench_dataloader(budget, repeat)
    in_process = Timing([times["workers0"]])
    seen["B7 DataLoader epoch, num_workers=0"] = (in_process, "ms")
    row("B7", "DataLoader epoch, 2 workers vs 0", Timing([times["workers2"]]), "ms", {"numpy": in_process})


# -- M1-M4: small real models (benchmarks/models.py) ------------------------------------
def bench_models(torch, budget, repeat, seen, only):
    """The asked M rows: report-only (no target), eager vs PyTorch."""
    for name, what, ours, theirs, _diff in models.run_models(torch, budget=budget, repeat=repeat, only=only):
        if theirs is not None:
            seen[f"{name} torch step"] = (theirs, "ms")
        row(name, what, ours, "ms", {"torch": theirs})


# -- G rows: the GPU (benchmarks/gpu.py) ----------------------------------------------
GPU_ROWS = []  # (name, what, value, baselines) as benchmarks/gpu.py makes them
GPU_SKIPPED = []  # why the G rows did not run, when they did not


def bench_gpu(torch, budget, repeat, only):
    """Runs the asked G benchmarks where a GPU is usable, else notes why not."""
    cupy, why = gpu.gpu_status()
    if cupy is None:
        GPU_SKIPPED.append(why)
        return
    GPU_ROWS.extend(gpu.run(cupy, torch, budget=budget, repeat=repeat, only=only))


def gpu_target_results(asked):
    """(target, status, text) for the G targets: "met", "missed", "skipped"
    (no GPU, or PyTorch missing) or "not run" (not asked with --only)."""
    measured = {name: (value, baselines) for name, _what, value, baselines in GPU_ROWS}
    results = []
    for name, (against, limit) in gpu.TARGETS.items():
        if gpu.bench_of(name) not in asked:
            results.append((name, "not run", ""))
        elif GPU_SKIPPED:
            results.append((name, "skipped", GPU_SKIPPED[0]))
        elif against == "count":
            value = measured[name][0]
            results.append((name, "met" if value <= limit else "missed",
                            f"{value} copies (target <= {limit})"))
        else:
            value, baselines = measured[name]
            ratio = min(value) / min(baselines[against])
            results.append((name, "met" if ratio <= limit else "missed",
                            f"{ratio:.2f}x {against} (target <= {limit:.2f}x)"))
    return results


def print_gpu_table():
    print("\nGPU (issue #12): eager on CuPy; times include a device synchronize")
    if GPU_SKIPPED:
        print(f"  G1, G3, G5: {GPU_SKIPPED[0]}")
        return
    header = f"{'bench':<10} {'what':<42} {'eager min / median':>24}  {'vs cupy':>8}  {'vs torch':>8}"
    print(header)
    print("-" * len(header))
    for name, what, value, baselines in GPU_ROWS:
        if not isinstance(value, list):
            print(f"{name:<10} {what:<42} {value:>24}  "
                  f"(device-to-host {baselines['down']}, host-to-device {baselines['up']})")
            continue
        cells = []
        for key in ("cupy", "torch"):
            base = baselines.get(key)
            cells.append(f"{min(value) / min(base):7.2f}x" if base else f"{'-':>8}")
        scale, unit = (1e6, "us") if min(value) < 1e-3 else (1e3, "ms")
        text = f"{min(value) * scale:8.2f} / {statistics.median(value) * scale:8.2f} {unit}"
        print(f"{name:<10} {what:<42} {text:>24}  {cells[0]}  {cells[1]}")


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="eager benchmarks (B1-B4 of issue #2, B5-B6 of the nn issue, B7 of the training-stack issue)")
    parser.add_argument("--quick", action="store_true", help="short run: fewer, shorter repeats")
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch baselines")
    parser.add_argument("--only", default="", metavar="B3,B5",
                        help="run only these benchmarks (comma-separated B1..B7, M (M1..M4, small "
                             "models), M1..M4, G (all GPU rows), G1, G3, G5; default: all)")
    parser.add_argument("--repeat", type=int, default=None, help="repeats per figure (default 60, quick 10)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: this process's CPU time (default; steadier on a shared machine); "
                             "wall: perf_counter. B7 and the GPU rows always use wall time")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 1 when a measured target of issue #14 is missed")
    args = parser.parse_args(argv)
    # Many short interleaved repeats: a burst of load then spoils one short
    # repeat of each contestant, not a long one, and the minimum skips it.
    budget, repeat = (0.01, 10) if args.quick else (0.03, 60)
    if args.repeat is not None:
        if args.repeat < 1:
            parser.error(f"--repeat expected a positive int, got {args.repeat}")
        repeat = args.repeat
    gpu_rows = {"G1", "G3", "G5"}
    model_rows = set(models.NAMES)
    known = {f"B{i}" for i in range(1, 8)} | gpu_rows | model_rows
    only = {b.strip().upper() for b in args.only.split(",") if b.strip()}
    if "G" in only:
        only = (only - {"G"}) | gpu_rows
    if "M" in only:
        only = (only - {"M"}) | model_rows
    only = only or known
    if only - known:
        parser.error(f"--only expected names among {sorted(known | {'G', 'M'})}, got {sorted(only - known)}")

    timing.CLOCK = CLOCKS[args.clock]
    torch = load_torch(args.no_torch)
    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"torch {torch.__version__ if torch else 'not installed'}, "
          f"threads: {os.environ.get('OMP_NUM_THREADS')}, {platform.machine()}, "
          f"{'quick' if args.quick else 'full'} run, clock: {args.clock} "
          f"({budget * 1e3:.0f} ms x {repeat} interleaved repeats per figure)")
    print("times are per call; ratios are eager / baseline on the minimum "
          "(below 1.0x: eager is faster)\n")
    seen = {}
    if "B1" in only:
        bench_b1(torch, budget, repeat, seen)
    if "B2" in only:
        bench_b2(torch, budget, repeat, seen)
    if "B3" in only:
        bench_b3(torch, budget, repeat, seen, (64, 512))
        bench_b3(torch, budget, repeat, seen, (64, 512), loss="ce")
        bench_b3j(budget, repeat, seen, (64, 512))
    if "B4" in only:
        bench_b4(seen, (64, 512))
    if "B5" in only:
        bench_b5(torch, budget, repeat, seen)
    if "B6" in only:
        bench_b6(torch, budget, repeat, seen)
    if "B7" in only:
        # B7's budget sizes its dataset (an in-process epoch of about that long),
        # and each repeat is two whole epochs with the workers' start-up: it keeps
        # long repeats, or start-up would be all it measures.
        b7_budget, b7_repeat = (0.05, 3) if args.quick else (0.3, 7)
        bench_b7(b7_budget, b7_repeat if args.repeat is None else repeat, seen)
    if only & model_rows:
        bench_models(torch, budget, repeat, seen, only & model_rows)
    asked_gpu = tuple(sorted(only & gpu_rows))
    if asked_gpu:
        bench_gpu(torch, budget, repeat, asked_gpu)
    print_table()
    print_baselines(seen)
    if asked_gpu:
        print_gpu_table()
    results = target_results() + gpu_target_results(asked_gpu)
    print_targets(results)
    return exit_status(results, args.check)


if __name__ == "__main__":
    sys.exit(main())
