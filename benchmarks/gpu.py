"""GPU benchmarks (issue #12): eager on CuPy against raw CuPy and PyTorch CUDA.

    python benchmarks/run.py --only G            # the G rows of the table (needs a GPU)
    python benchmarks/gpu.py --smoke             # every G benchmark once, tiny sizes

G1  per-op ``a + b`` on float32 (16,) and (4096, 4096) GPU tensors (recording
    off), against CuPy's ``a + b`` on the same arrays. Target (large): at most
    1.2x raw CuPy; the small one is reported (it measures Python overhead).
G3  one SGD step of B3's 784-256-256-10 ReLU MLP (mean-square loss) at batch
    64 and 512 on the GPU, against the same step written by hand in CuPy
    (``mlp.HandWrittenMLP`` on CuPy) and PyTorch CUDA when installed. Target: at most 1.1x
    the hand-written CuPy step.
G3j the G3 step under ``eager.jit.to_static`` (captured once, then replayed as
    a flat list of CuPy kernel calls), timed in the same rounds as G3: the
    issue's route (b) to G3's target, as B3j is on the host, and held to it.
G5  one SGD step of B5's LeNet CNN (batch 64) on the GPU, against a
    hand-written CuPy im2col step (``lenet.HandWrittenLeNet`` on CuPy) and PyTorch CUDA.
Transfers: host<->device copies made during one eager training step (target
    0: the loss stays on the device unless the user asks for its value).

How it times: contestants are interleaved (a, b, c, a, b, c, ...), each repeat
runs a statement ``number`` times and then synchronises the device *inside*
the timed region (``cupy.cuda.Device().synchronize()``, or
``torch.cuda.synchronize()`` for PyTorch), and ratios use the minimum over the
repeats. Every hand-written step is checked against eager's (same losses and
weights) before it is timed, so the timings compare the same work.

How transfers are counted: on tests/fake_cupy.py with its own counters
(``transfers``: device-to-host, ``uploads``: host-to-device). On real CuPy,
uploads are counted by wrapping ``cupy.array``/``cupy.asarray`` on host data
(the calls eager's ``to_tensor`` and ``GPUContext.from_host`` make), and
downloads by running the step under ``cupyx.allow_synchronize(False)``: every
device-to-host copy (``get``, ``item``, ``float(a)``, ``asnumpy``) waits for
the device, and CuPy raises ``DeviceSynchronized`` when one does, which counts
one and stops the step. Where CuPy no longer has ``allow_synchronize`` (it was
deprecated in v10), downloads are counted by wrapping ``cupy.asnumpy`` only.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import eager  # noqa: E402
import lenet  # noqa: E402  (benchmarks/lenet.py)
from mlp import LAYERS, LR, HandWrittenMLP, init_weights, make_batch  # noqa: E402  (benchmarks/mlp.py)
from eager import nn  # noqa: E402
from eager.nn import functional as F  # noqa: E402

# name -> (against, limit): what `run.py --check` enforces on a GPU.
TARGETS = {"G1 large": ("cupy", 1.2), "G3 b64": ("cupy", 1.1), "G3 b512": ("cupy", 1.1),
           "G3j b64": ("cupy", 1.1), "G3j b512": ("cupy", 1.1), "G3 xfer": ("count", 0),
           "G3j xfer": ("count", 0)}


def bench_of(target: str) -> str:
    """The benchmark (G1, G3 or G5) whose run measures ``target``: G3j's rows
    come from G3's rounds."""
    return target.split()[0].removesuffix("j")


# -- the device ------------------------------------------------------------------
def gpu_status():
    """(cupy module, None) when a real GPU is usable, else (None, why not)."""
    try:
        cupy = importlib.import_module("cupy")
    except ImportError:
        return None, "skipped: no GPU (CuPy is not installed)"
    if getattr(cupy, "__fake__", False):
        return None, "skipped: no GPU (tests/fake_cupy.py stands in for CuPy)"
    try:
        if not cupy.cuda.is_available():
            return None, "skipped: no GPU (cupy.cuda.is_available() is False)"
    except Exception as error:  # noqa: BLE001  (a driver problem: say which)
        return None, f"skipped: no GPU ({type(error).__name__}: {error})"
    return cupy, None


def _cupy_sync(cupy):
    device = cupy.cuda.Device()
    return device.synchronize


def measure(stmts: dict, syncs: dict, *, budget: float, repeat: int) -> dict:
    """name -> per-call seconds of each repeat. Each repeat calls the statement
    ``number`` times and then its device's synchronize, inside the timed
    region; the statements' repeats are interleaved."""
    numbers = {}
    for name, stmt in stmts.items():
        stmt()  # warm: kernels compiled, memory pools filled
        syncs[name]()
        number = 1
        while True:
            start = time.perf_counter()
            for _ in range(number):
                stmt()
            syncs[name]()
            elapsed = time.perf_counter() - start
            if elapsed >= budget / 10 or number >= 1 << 20:
                break
            number *= 10 if elapsed < budget / 100 else 2
        numbers[name] = max(1, round(number * budget / max(elapsed, 1e-9)))
    runs = {name: [] for name in stmts}
    for _ in range(repeat):
        for name, stmt in stmts.items():
            number, sync = numbers[name], syncs[name]
            start = time.perf_counter()
            for _ in range(number):
                stmt()
            sync()
            runs[name].append((time.perf_counter() - start) / number)
    return runs


# -- transfers ---------------------------------------------------------------------
def _is_host_data(value) -> bool:
    return isinstance(value, (np.ndarray, np.generic, list, tuple, int, float, complex, bool))


@contextlib.contextmanager
def count_transfers(cupy):
    """Counts host<->device copies inside the block: yields a dict whose
    "down" and "up" are filled in when the block ends (see the module doc)."""
    counts = {"down": 0, "up": 0}
    if getattr(cupy, "__fake__", False):
        down, up = cupy.transfers[0], cupy.uploads[0]
        try:
            yield counts
        finally:
            counts["down"], counts["up"] = cupy.transfers[0] - down, cupy.uploads[0] - up
        return
    saved = {name: getattr(cupy, name) for name in ("array", "asarray", "asnumpy")}

    def uploading(fn):
        def wrapper(obj, *args, **kwargs):
            if _is_host_data(obj):
                counts["up"] += 1
            return fn(obj, *args, **kwargs)
        return wrapper

    def downloading(fn):
        def wrapper(*args, **kwargs):
            counts["down"] += 1
            return fn(*args, **kwargs)
        return wrapper

    cupy.array, cupy.asarray = uploading(saved["array"]), uploading(saved["asarray"])
    cupy.asnumpy = downloading(saved["asnumpy"])
    cupyx = importlib.import_module("cupyx")
    guard = getattr(cupyx, "allow_synchronize", None)
    try:
        if guard is None:
            yield counts
        else:
            try:
                with guard(False):
                    yield counts
            except Exception as error:  # noqa: BLE001  (eager may wrap it: look down the chain)
                if not _synchronized(error, cupyx.DeviceSynchronized):
                    raise
                counts["down"] += 1
    finally:
        for name, fn in saved.items():
            setattr(cupy, name, fn)


def _synchronized(error, kind) -> bool:
    """Whether ``error`` is, or was raised from, a ``kind`` (DeviceSynchronized)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, kind):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


# -- G1: per-op overhead -----------------------------------------------------------
def bench_g1(cupy, budget, repeat, sizes=((16,), (4096, 4096))):
    """[(row name, what, eager runs, {"cupy": runs})] for ``a + b`` per size."""
    rows = []
    sync = _cupy_sync(cupy)
    rng = np.random.default_rng(0)
    for shape, tag in zip(sizes, ("small", "large")):
        a_np = rng.standard_normal(shape).astype(np.float32)
        b_np = rng.standard_normal(shape).astype(np.float32)
        a, b = eager.to_tensor(a_np, place="gpu"), eager.to_tensor(b_np, place="gpu")
        x, y = a.impl.array, b.impl.array
        np.testing.assert_array_equal((a + b).numpy(), cupy.asnumpy(x + y))
        with eager.no_grad():
            runs = measure({"eager": lambda: a + b, "cupy": lambda: x + y}, {"eager": sync, "cupy": sync},
                           budget=budget, repeat=repeat)
        rows.append((f"G1 {tag}", f"a + b, {shape} f32, no_grad", runs["eager"], {"cupy": runs["cupy"]}))
    return rows


# -- G3: the MLP step ----------------------------------------------------------------
class EagerMLP:
    """B3's network from eager.nn on the GPU, trained with eager.optimizer.SGD."""

    def __init__(self, params):
        layers = []
        for i in range(0, len(params), 2):
            fc = nn.Linear(params[i].shape[0], params[i].shape[1])
            fc.set_state_dict({"weight": params[i], "bias": params[i + 1]})
            layers.append(fc)
            if i + 2 < len(params):
                layers.append(nn.ReLU())
        self.model = nn.Sequential(*layers).to("gpu")
        self.opt = eager.optimizer.SGD(learning_rate=LR, parameters=self.model.parameters())

    def step(self, x, y):
        loss = F.mse_loss(self.model(x), y)
        loss.backward()
        self.opt.step()
        self.opt.clear_grad(set_to_zero=False)
        return loss


class TorchMLP:
    def __init__(self, torch, params):
        layers = []
        for i in range(0, len(params), 2):
            fc = torch.nn.Linear(params[i].shape[0], params[i].shape[1])
            with torch.no_grad():
                fc.weight.copy_(torch.from_numpy(params[i].T.copy()))
                fc.bias.copy_(torch.from_numpy(params[i + 1]))
            layers.append(fc)
            if i + 2 < len(params):
                layers.append(torch.nn.ReLU())
        self.model = torch.nn.Sequential(*layers).cuda()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=LR)
        self.loss_fn = torch.nn.MSELoss()

    def step(self, x, y):
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)
        return loss


class JitMLP(EagerMLP):
    """EagerMLP with its step under eager.jit.to_static: captured on the first
    calls, then replayed while shapes and dtypes repeat."""

    def __init__(self, params):
        super().__init__(params)
        self.step = eager.jit.to_static(super().step)


def check_same_mlp(cupy, params, batch=8, layers=LAYERS):
    """eager on the GPU, its to_static replay and the hand-written CuPy step must
    agree (losses, weights; the replay bit for bit with eager)."""
    x_np, y_np = make_batch(batch, layers=layers)
    ref, ours, replayed = HandWrittenMLP(params, xp=cupy), EagerMLP(params), JitMLP(params)
    x, y = cupy.asarray(x_np), cupy.asarray(y_np)
    tx, ty = eager.to_tensor(x_np, place="gpu"), eager.to_tensor(y_np, place="gpu")
    for _ in range(4):  # the replay's first calls capture; the last ones replay
        a, b, c = float(ref.step(x, y)), ours.step(tx, ty).item(), replayed.step(tx, ty).item()
        if not np.isclose(a, b, rtol=1e-4):
            raise AssertionError(f"G3: eager loss {b} differs from the hand-written CuPy step's {a}")
        if b != c:
            raise AssertionError(f"G3j: the to_static step's loss {c} differs from eager's {b}")
    if not replayed.step.replays:
        raise AssertionError(f"G3j: the to_static step never replayed (why: {replayed.step.reasons})")
    for p, q, r in zip(ref.params, ours.model.parameters(), replayed.model.parameters()):
        np.testing.assert_allclose(q.numpy(), cupy.asnumpy(p), rtol=1e-4, atol=1e-6)
        np.testing.assert_array_equal(r.numpy(), q.numpy())


def step_transfers(cupy, step, steps=2):
    """Host<->device copies of the last of ``steps`` calls of ``step`` (the first
    ones make accumulators and caches): (down, up)."""
    for _ in range(steps - 1):
        step()
    with count_transfers(cupy) as counts:
        step()
    return counts["down"], counts["up"]


def bench_g3(cupy, torch, budget, repeat, batches=(64, 512), layers=LAYERS):
    """G3 and G3j rows, and the transfers rows of the eager and replayed steps."""
    params = init_weights(layers=layers)
    check_same_mlp(cupy, params, layers=layers)
    sync = _cupy_sync(cupy)
    rows = []
    for batch in batches:
        x_np, y_np = make_batch(batch, layers=layers)
        ref, ours, replayed = HandWrittenMLP(params, xp=cupy), EagerMLP(params), JitMLP(params)
        x, y = cupy.asarray(x_np), cupy.asarray(y_np)
        tx, ty = eager.to_tensor(x_np, place="gpu"), eager.to_tensor(y_np, place="gpu")
        stmts = {"eager": lambda: ours.step(tx, ty), "cupy": lambda: ref.step(x, y),
                 "jit": lambda: replayed.step(tx, ty)}
        syncs = {"eager": sync, "cupy": sync, "jit": sync}
        if torch is not None:
            theirs = TorchMLP(torch, params)
            gx, gy = torch.from_numpy(x_np).cuda(), torch.from_numpy(y_np).cuda()
            stmts["torch"], syncs["torch"] = (lambda: theirs.step(gx, gy)), torch.cuda.synchronize
        runs = measure(stmts, syncs, budget=budget, repeat=repeat)
        rows.append((f"G3 b{batch}", f"MLP SGD step, batch {batch}", runs["eager"],
                     {"cupy": runs["cupy"], "torch": runs.get("torch")}))
        rows.append((f"G3j b{batch}", f"MLP SGD step under jit.to_static, batch {batch}", runs["jit"],
                     {"cupy": runs["cupy"], "torch": runs.get("torch")}))
        if batch == batches[0]:
            for name, step in (("G3 xfer", ours.step), ("G3j xfer", replayed.step)):
                down, up = step_transfers(cupy, lambda: step(tx, ty))
                rows.append((name, f"host<->device copies per step (b{batch})", down + up,
                             {"down": down, "up": up}))
    return rows


# -- G5: the LeNet step ---------------------------------------------------------------
def check_same_lenet(cupy, params, batch=8):
    """The CuPy step equals benchmarks/lenet.py's NumPy step (the same code on
    NumPy) and eager's LeNet on the GPU, over three steps."""
    x_np, labels_np = lenet.make_batch(batch)
    host, ref = lenet.HandWrittenLeNet(params), lenet.HandWrittenLeNet(params, xp=cupy)
    ours = lenet.EagerLeNet(params)
    ours.model.to("gpu")  # in place: the optimizer keeps the same parameters
    x, labels = cupy.asarray(x_np), cupy.asarray(labels_np)
    tx, tl = eager.to_tensor(x_np, place="gpu"), eager.to_tensor(labels_np, place="gpu")
    for _ in range(3):
        a, b, c = host.step(x_np, labels_np), float(ref.step(x, labels)), ours.step(tx, tl).item()
        if not (np.isclose(a, b, rtol=1e-4) and np.isclose(a, c, rtol=1e-4)):
            raise AssertionError(f"G5: losses differ: NumPy {a}, hand-written CuPy {b}, eager on the GPU {c}")
    return ours


def bench_g5(cupy, torch, budget, repeat, batch=64):
    params = lenet.init_weights()
    check_same_lenet(cupy, params)
    sync = _cupy_sync(cupy)
    x_np, labels_np = lenet.make_batch(batch)
    ref = lenet.HandWrittenLeNet(params, xp=cupy)
    ours = lenet.EagerLeNet(params)
    ours.model.to("gpu")  # in place: the optimizer keeps the same parameters
    x, labels = cupy.asarray(x_np), cupy.asarray(labels_np)
    tx, tl = eager.to_tensor(x_np, place="gpu"), eager.to_tensor(labels_np, place="gpu")
    stmts = {"eager": lambda: ours.step(tx, tl), "cupy": lambda: ref.step(x, labels)}
    syncs = {"eager": sync, "cupy": sync}
    if torch is not None:
        theirs = lenet.TorchLeNet(torch, params)
        theirs.model.cuda()  # in place: the optimizer keeps the same parameters
        gx, gl = torch.from_numpy(x_np).cuda(), torch.from_numpy(labels_np).cuda()
        stmts["torch"], syncs["torch"] = (lambda: theirs.step(gx, gl)), torch.cuda.synchronize
    runs = measure(stmts, syncs, budget=budget, repeat=repeat)
    return [("G5", f"LeNet CNN SGD step, batch {batch}", runs["eager"],
             {"cupy": runs["cupy"], "torch": runs.get("torch")})]


def cuda_torch(torch):
    """PyTorch when it sees a CUDA device, else None."""
    if torch is None:
        return None
    try:
        return torch if torch.cuda.is_available() else None
    except Exception:  # noqa: BLE001
        return None


def run(cupy, torch=None, *, budget=0.3, repeat=7, only=("G1", "G3", "G5"), smoke=False):
    """Every asked G benchmark on ``cupy``'s device: a list of rows
    (name, what, eager per-call runs or a count, {baseline: runs or count}).
    ``smoke``: tiny sizes, one short repeat (the test on tests/fake_cupy.py)."""
    torch = cuda_torch(torch)
    if smoke:
        budget, repeat = 1e-4, 1
    rows = []
    if "G1" in only:
        rows += bench_g1(cupy, budget, repeat, sizes=((16,), (64, 64)) if smoke else ((16,), (4096, 4096)))
    if "G3" in only:
        rows += bench_g3(cupy, torch, budget, repeat, batches=(4,) if smoke else (64, 512),
                         layers=(12, 8, 8, 3) if smoke else LAYERS)
    if "G5" in only:
        rows += bench_g5(cupy, torch, budget, repeat, batch=4 if smoke else 64)
    return rows


def main(argv=None):
    """``--smoke``: run every G benchmark once at tiny sizes and print the rows."""
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["--smoke"]:
        print("usage: python benchmarks/gpu.py --smoke   (the timed G rows: benchmarks/run.py --only G)")
        return 2
    cupy, why = gpu_status()
    if cupy is None:
        print(why)
        return 0
    for name, what, value, baselines in run(cupy, smoke=True):
        print(name, what, value, {k: v for k, v in baselines.items() if v is not None})
    return 0


if __name__ == "__main__":
    sys.exit(main())
