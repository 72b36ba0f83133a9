"""How eager's costs scale: per node with the graph's size, and the MLP step with its width.

    python benchmarks/scale.py                 # the full study (a few minutes)
    python benchmarks/scale.py --rounds 3      # fewer rounds, noisier
    python benchmarks/scale.py --smallest      # one tiny configuration (what the test runs)

Chain: forward and backward time per node of an elementwise chain (tanh,
multiply by a scalar, add a tensor, repeating; benchmarks/run.py's B2) of
100 to 100,000 ops on (16,) float32, in three collector settings: the
default (gc on, with eager's gc policy, eager/autograd/gc_policy.py), gc on
without the policy, and gc off; and PyTorch's when it is installed.

MLP: one SGD step of a 784-W-W-10 ReLU MLP with mean-square loss (B3's
network with hidden width W, 64 to 2048) at batch 64 and 512, against the
hand-written NumPy step (benchmarks/mlp.py's HandWrittenMLP, checked to train the
same) and PyTorch.

Every contestant is timed interleaved with the others of its configuration
(a, b, c, a, b, c, ...) and the minimum over the rounds is kept, as in
benchmarks/run.py, but in the process's CPU time (``time.process_time``)
rather than wall time: every contestant runs on one thread, and on the busy
shared machine other processes' time slices stretched nearly every
wall-clock sample longer than a few milliseconds. Writes ``performance_scale.csv`` into ``--out`` (default
docs/) and, when matplotlib is installed (the ``bench`` extra), the plots
``performance_scale_chain.png`` and ``performance_scale_mlp.png`` beside it;
without matplotlib it writes the CSV alone and says so.
"""
from __future__ import annotations

import os
import sys

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

if __name__ == "__main__" and any(os.environ.get(v) != "1" for v in _THREAD_VARS):
    # BLAS thread pools are sized when numpy loads: pin them to one thread and restart.
    for _v in _THREAD_VARS:
        os.environ[_v] = "1"
    os.execv(sys.executable, [sys.executable] + sys.argv)

import argparse  # noqa: E402
import csv  # noqa: E402
import gc  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # runs from any directory without installing
sys.path.insert(1, HERE)  # benchmarks/run.py, beside this script

import numpy as np  # noqa: E402

import eager  # noqa: E402
import mlp  # noqa: E402  (benchmarks/mlp.py: B3's network and its hand-written step)
import run as bench  # noqa: E402  (benchmarks/run.py: the eager and torch steps, timing)
from eager.autograd import gc_policy  # noqa: E402

SIZES = (100, 1_000, 10_000, 100_000)
WIDTHS = (64, 128, 256, 512, 1024, 2048)
BATCHES = (64, 512)
TORCH = "torch"
# The process's CPU time: every contestant runs on one thread (BLAS and torch pinned),
# so on a quiet machine it equals the wall time, and on a busy one the time slices
# given to other processes do not count (with 6 processes on 2 cores, wall-clock
# samples longer than a few milliseconds were nearly all stretched by 4 ms slices).
CLOCK = time.process_time


class Collector:
    """One collector setting for the chain: eager's gc policy on or off, the
    collector on or off, generation 0's threshold scaled, or ``gc.freeze()`` of
    everything when a full collection starts with a large graph alive (the
    candidates docs/performance.md compares). ``enter`` sets it up and ``exit``
    restores what was there."""

    def __init__(self, policy=False, collector=True, gen0_scale=1, freeze=False):
        self.policy, self.collector, self.gen0_scale, self.freeze = policy, collector, gen0_scale, freeze
        self.saved = None
        self.froze = False

    def _freezer(self, phase, info):
        if phase == "start" and info["generation"] == 2 and not self.froze \
                and gc_policy.live_grad_nodes() >= gc_policy.min_nodes():
            gc.freeze()
            self.froze = True

    def enter(self):
        self.saved = gc.get_threshold(), gc_policy.is_enabled()
        (gc_policy.enable if self.policy else gc_policy.disable)()
        t0, t1, t2 = self.saved[0]
        gc.set_threshold(t0 * self.gen0_scale, t1, t2)
        if self.freeze:
            gc.callbacks.append(self._freezer)
        if not self.collector:
            gc.disable()

    def exit(self):
        gc.enable()
        if self.freeze:
            gc.callbacks.remove(self._freezer)
            if self.froze:
                gc.unfreeze()
                self.froze = False
        thresholds, policy = self.saved
        gc.set_threshold(*thresholds)
        (gc_policy.enable if policy else gc_policy.disable)()


# The chain study's collector settings, and the candidates of the gc study (--only gc).
CHAIN_MODES = {"eager, gc on (policy)": Collector(policy=True), "eager, gc on, no policy": Collector(),
               "eager, gc off": Collector(collector=False)}
GC_CANDIDATES = {"no policy (CPython's default)": Collector(), "gc policy (landed)": Collector(policy=True),
                 "gen 0 threshold x10": Collector(gen0_scale=10),
                 "gc.freeze() at full collection": Collector(freeze=True),
                 "gc off": Collector(collector=False)}
# One sample of the chain study records at least this many nodes (small graphs repeat).
NODES_PER_SAMPLE = 1_000
# Seconds of timing one MLP configuration gets, within its bounds on rounds.
MLP_SECONDS = 4.0
FIELDS = ("study", "size", "batch", "contestant", "forward_us", "backward_us", "total_us", "unit", "ratio")


# -- chain: per-node cost against the graph's size --------------------------------------
def eager_chain(x, c, n):
    """Seconds to record and to run backward through an n-op chain."""
    start = CLOCK()
    y = x
    for i in range(n):
        k = i % 3
        if k == 0:
            y = eager.tanh(y)
        elif k == 1:
            y = y * 0.5
        else:
            y = y + c
    loss = y.sum()
    middle = CLOCK()
    loss.backward()
    end = CLOCK()
    x.clear_grad(set_to_zero=False)
    return middle - start, end - middle


def torch_chain(torch, x, c, n):
    start = CLOCK()
    y = x
    for i in range(n):
        k = i % 3
        if k == 0:
            y = torch.tanh(y)
        elif k == 1:
            y = y * 0.5
        else:
            y = y + c
    loss = y.sum()
    middle = CLOCK()
    loss.backward()
    end = CLOCK()
    x.grad = None
    return middle - start, end - middle


def _sample(run_once, n):
    """Per-node forward and backward seconds of one sample (a small chain is
    repeated, each graph freed before the next); every sample starts from a
    collected heap."""
    repeats = max(1, NODES_PER_SAMPLE // n)
    forward = backward = 0.0
    gc.collect()
    for _ in range(repeats):
        f, b = run_once()
        forward += f
        backward += b
    return forward / (repeats * n), backward / (repeats * n)


def rounds_for(n, rounds):
    """Rounds for a chain of n ops: small graphs' samples are short (NODES_PER_SAMPLE
    nodes, a few milliseconds), so they get up to ten times the rounds: on a busy
    machine, the more short samples, the likelier some ran undisturbed."""
    return max(rounds, min(10 * rounds, 300_000 // max(n, NODES_PER_SAMPLE)))


def chain_study(torch, sizes, rounds, modes=None, study="chain"):
    """Rows of the chain study (or, with the candidates as ``modes``, the gc study):
    per contestant and size, the per-node forward and backward minimum."""
    modes = CHAIN_MODES if modes is None else modes
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(16).astype(np.float32)
    c_np = rng.standard_normal(16).astype(np.float32)
    x = eager.to_tensor(x_np, stop_gradient=False)
    c = eager.to_tensor(c_np)
    contestants = {label: (lambda n: eager_chain(x, c, n)) for label in modes}
    if torch is not None:
        tx = torch.from_numpy(x_np.copy()).requires_grad_(True)
        tc = torch.from_numpy(c_np.copy())
        contestants[TORCH] = lambda n: torch_chain(torch, tx, tc, n)
    plain = Collector(policy=gc_policy.is_enabled())  # torch runs under the user's settings
    rows = []
    for n in sizes:
        eager_chain(x, c, min(n, 300))  # loads what the chain uses
        best = {label: [float("inf"), float("inf")] for label in contestants}
        for _ in range(rounds_for(n, rounds)):
            for label, run_once in contestants.items():
                mode = modes.get(label, plain)
                mode.enter()
                try:
                    f, b = _sample(lambda: run_once(n), n)
                finally:
                    mode.exit()
                best[label] = [min(best[label][0], f), min(best[label][1], b)]
        reference = best.get(TORCH)
        for label, (f, b) in best.items():
            ratio = "" if reference is None else f"{(f + b) / sum(reference):.3f}"
            rows.append({"study": study, "size": n, "batch": "", "contestant": label,
                         "forward_us": f"{f * 1e6:.3f}", "backward_us": f"{b * 1e6:.3f}",
                         "total_us": f"{(f + b) * 1e6:.3f}", "unit": "us/node", "ratio": ratio})
        print_rows(rows[-len(best):])
    return rows


# -- MLP: the step's ratio to hand-written NumPy against the width --------------------------
def init_weights(layers, seed=0):
    """Glorot-uniform weights [in, out] and zero biases, float32 (run.py's, any layers)."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(layers[:-1], layers[1:]):
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        params.append(rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32))
        params.append(np.zeros(fan_out, np.float32))
    return params


def mlp_rounds(stmts, budget, rounds):
    """Rounds for one MLP configuration: as many as fit in MLP_SECONDS (each round
    times every contestant for about ``budget`` seconds, or one step when a step
    takes longer), at least ``rounds`` and at most ten times that."""
    longest = 0.0
    for stmt in stmts.values():
        stmt()  # warm: kernel selection, accumulators, BLAS buffers
        start = CLOCK()
        stmt()
        longest = max(longest, CLOCK() - start)
    per_round = len(stmts) * max(budget, longest)
    return max(rounds, min(10 * rounds, int(MLP_SECONDS / per_round)))


def measure_interleaved(stmts, budget, rounds):
    """name -> Timing (benchmarks/run.py's) of CPU seconds per call: each round
    times every statement once for about ``budget`` seconds, interleaved."""
    numbers = {}
    for name, stmt in stmts.items():
        number = 1
        while True:  # how many calls make a sample of about budget seconds
            start = CLOCK()
            for _ in range(number):
                stmt()
            elapsed = CLOCK() - start
            if elapsed >= budget or number >= 10_000:
                break
            number = max(number * 2, int(number * budget / max(elapsed, 1e-6)))
        numbers[name] = number
    samples = {name: [] for name in stmts}
    for _ in range(rounds):
        for name, stmt in stmts.items():
            number = numbers[name]
            start = CLOCK()
            for _ in range(number):
                stmt()
            samples[name].append((CLOCK() - start) / number)
    return {name: bench.Timing(values) for name, values in samples.items()}


def mlp_study(torch, widths, batches, rounds, budget):
    rows = []
    for width in widths:
        layers = (mlp.LAYERS[0], width, width, mlp.LAYERS[-1])
        params = init_weights(layers)
        bench.check_same_training(params)  # the contestants do the same work
        for batch in batches:
            x_np, y_np = mlp.make_batch(batch)
            ref = mlp.HandWrittenMLP(params)
            ours = bench.EagerStep(params)
            x, y = eager.to_tensor(x_np), eager.to_tensor(y_np)
            stmts = {"numpy": lambda: ref.step(x_np, y_np), "eager": lambda: ours.step(x, y)}
            if torch is not None:
                theirs = bench.TorchStep(torch, params)
                tx, ty = torch.from_numpy(x_np), torch.from_numpy(y_np)
                stmts[TORCH] = lambda: theirs.step(tx, ty)
            t = measure_interleaved(stmts, budget, mlp_rounds(stmts, budget, rounds))
            base = t["numpy"].min
            for label, timing in t.items():
                rows.append({"study": "mlp", "size": width, "batch": batch, "contestant": label,
                             "forward_us": "", "backward_us": "", "total_us": f"{timing.min * 1e6:.1f}",
                             "unit": "us/step", "ratio": f"{timing.min / base:.3f}"})
            print_rows(rows[-len(t):])
    return rows


# -- output ------------------------------------------------------------------------------
def print_rows(rows):
    for r in rows:
        extra = f" (fwd {r['forward_us']}, bwd {r['backward_us']})" if r["forward_us"] else ""
        ratio = f"  {r['ratio']}x {'numpy' if r['study'] == 'mlp' else 'torch'}" if r["ratio"] else ""
        batch = f" batch {r['batch']}" if r["batch"] != "" else ""
        print(f"{r['study']:<5} {r['size']:>7}{batch:<10} {r['contestant']:<26} "
              f"{r['total_us']:>10} {r['unit']}{extra}{ratio}", flush=True)


def _chain_table(chain):
    """Rows: chain length; cells: total us per node (forward), and the ratio to torch."""
    if not chain:
        return []
    lines = []
    labels = list(dict.fromkeys(r["contestant"] for r in chain))
    lines.append("| ops | " + " | ".join(labels) + " |")
    lines.append("|---:|" + "---:|" * len(labels))
    for n in dict.fromkeys(r["size"] for r in chain):
        cells = {r["contestant"]: r for r in chain if r["size"] == n}
        lines.append(f"| {n:,} | " + " | ".join(
            f"{float(cells[label]['total_us']):.2f} ({float(cells[label]['forward_us']):.2f})"
            + (f" {float(cells[label]['ratio']):.2f}x" if cells[label]["ratio"] and label != TORCH else "")
            for label in labels) + " |")
    lines.append("")
    return lines


def markdown_tables(rows):
    """The study's tables in Markdown (what docs/performance.md shows)."""
    lines = []
    for study in ("chain", "gc"):
        lines += _chain_table([r for r in rows if r["study"] == study])
    mlp = [r for r in rows if r["study"] == "mlp"]
    if mlp:
        has_torch = any(r["contestant"] == TORCH for r in mlp)
        lines.append("| width | batch | NumPy ms | eager ms | eager / NumPy | eager - NumPy ms |"
                     + (" torch / NumPy |" if has_torch else ""))
        lines.append("|---:|---:|---:|---:|---:|---:|" + ("---:|" if has_torch else ""))
        for key in dict.fromkeys((r["size"], r["batch"]) for r in mlp):
            cells = {r["contestant"]: r for r in mlp if (r["size"], r["batch"]) == key}
            numpy_ms, eager_ms = (float(cells[c]["total_us"]) / 1e3 for c in ("numpy", "eager"))
            line = (f"| {key[0]} | {key[1]} | {numpy_ms:.3f} | {eager_ms:.3f} | "
                    f"{float(cells['eager']['ratio']):.2f}x | {eager_ms - numpy_ms:+.3f} |")
            if has_torch:
                line += f" {float(cells[TORCH]['ratio']):.2f}x |"
            lines.append(line)
    return "\n".join(lines)


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)


def plot(rows, out):
    """Writes the two plots into ``out``; returns their paths, or None without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    chain = [r for r in rows if r["study"] in ("chain", "gc")]
    if chain:
        fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=80)
        for label in dict.fromkeys(r["contestant"] for r in chain):
            points = [(r["size"], float(r["total_us"])) for r in chain if r["contestant"] == label]
            ax.plot(*zip(*points), marker="o", label=label)
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("ops in the graph")
        ax.set_ylabel("forward + backward, us per op")
        ax.set_title("Per-op cost of an elementwise chain against its length")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
        fig.tight_layout()
        paths.append(os.path.join(out, "performance_scale_chain.png"))
        fig.savefig(paths[-1])
        plt.close(fig)
    mlp = [r for r in rows if r["study"] == "mlp"]
    if mlp:
        fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=80)
        for batch in dict.fromkeys(r["batch"] for r in mlp):
            for label, style in (("eager", "-"), (TORCH, ":")):
                points = [(r["size"], float(r["ratio"])) for r in mlp
                          if r["batch"] == batch and r["contestant"] == label]
                if points:
                    ax.plot(*zip(*points), style, marker="o", label=f"{label}, batch {batch}")
        ax.axhline(1.0, color="gray", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("hidden width W (784-W-W-10 MLP)")
        ax.set_ylabel("step time / hand-written NumPy")
        ax.set_title("One SGD step against the hand-written NumPy step")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
        fig.tight_layout()
        paths.append(os.path.join(out, "performance_scale_mlp.png"))
        fig.savefig(paths[-1])
        plt.close(fig)
    return paths


def _positive_ints(text):
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        values = ()
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive ints separated by commas, got {text!r}")
    return values


def main(argv=None):
    parser = argparse.ArgumentParser(description="eager's per-node cost against graph size, "
                                                 "and the MLP step's ratio to NumPy against width")
    parser.add_argument("--sizes", type=_positive_ints, default=SIZES, help="chain lengths (default 100..100000)")
    parser.add_argument("--widths", type=_positive_ints, default=WIDTHS, help="MLP hidden widths (default 64..2048)")
    parser.add_argument("--batches", type=_positive_ints, default=BATCHES, help="MLP batch sizes (default 64,512)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="interleaved rounds per configuration (default 5; chains under 30,000 ops get "
                             "up to 10x more)")
    parser.add_argument("--budget", type=float, default=0.005,
                        help="seconds per MLP timing sample (default 0.005: short samples, many rounds)")
    parser.add_argument("--only", choices=("chain", "mlp", "gc"),
                        help="run one study; gc (only when asked) compares the garbage-collector "
                             "candidates of docs/performance.md on the chain")
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even when installed")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "docs"),
                        help="folder for performance_scale.csv and the plots (default docs/)")
    parser.add_argument("--smallest", action="store_true",
                        help="the smallest configuration: 100 nodes, width 64, batch 64, one round")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds expected a positive int, got {args.rounds}")
    if args.smallest:
        args.sizes, args.widths, args.batches, args.rounds, args.budget = (100,), (64,), (64,), 1, 0.01
    torch = bench.load_torch(args.no_torch)
    print(f"threads: {os.environ.get('OMP_NUM_THREADS')}, torch {torch.__version__ if torch else 'not used'}, "
          f"{args.rounds} rounds; minimum over rounds")
    rows = []
    if args.only in (None, "chain"):
        rows += chain_study(torch, args.sizes, args.rounds)
    if args.only in (None, "mlp"):
        rows += mlp_study(torch, args.widths, args.batches, args.rounds, args.budget)
    if args.only == "gc":
        rows += chain_study(torch, args.sizes, args.rounds, GC_CANDIDATES, "gc")
    print("\n" + markdown_tables(rows) + "\n")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "performance_scale.csv")
    write_csv(rows, path)
    print(f"wrote {path}")
    plots = plot(rows, args.out)
    if plots is None:
        print("matplotlib is not installed (pip install 'eager-phi[bench]'): wrote the CSV only, no plots")
    else:
        for p in plots:
            print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
