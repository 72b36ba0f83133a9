"""Small real training steps, eager against PyTorch (issue #14's "models" rows).

    python benchmarks/models.py                 # M1-M4, eager vs PyTorch, a table
    python benchmarks/models.py --only M2,M3 --repeat 40
    python benchmarks/models.py --smoke         # tiny sizes, two repeats (the test)
    python benchmarks/models.py --no-torch      # eager's times only

Each step is forward, loss, backward, optimizer step and clear_grad:

M1  a small ResNet: conv-BN-ReLU stem (16), three basic blocks 16-32-64 (the
    last two stride 2, with 1x1 conv-BN shortcuts), global average pool,
    linear 10; batch 32 of 3x32x32, cross-entropy, Momentum(0.1, 0.9).
M2  a text classifier: Embedding(5000, 64), a 1-layer LSTM 64->128, linear 4
    on the last hidden state; batch 32, sequence 32, cross-entropy, Adam.
M3  a 2-layer TransformerEncoder (d_model 128, 4 heads, feed-forward 256,
    dropout 0 so that it is deterministic) over Embedding(5000, 128), mean over
    the sequence, linear 4; batch 32, sequence 32, cross-entropy, AdamW.
M4  B3's 784-256-256-10 ReLU MLP at batch 64 with cross-entropy and Adam.

PyTorch (optional) builds the same networks with the same initial weights and
data; before timing, the first two steps' losses of the two must agree (the
second one checks that the optimizers agree too), so the timings compare the
same work. The two contestants are timed interleaved in this process, with
run.py's helpers (benchmarks/timing.py): CPU time, BLAS/OpenMP and PyTorch
pinned to one thread; ratios are on the minimum. benchmarks/run.py prints these
rows as M1..M4 (report-only: no target).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402  (benchmarks/timing.py, beside this script)

if __name__ == "__main__":
    timing.pin_threads()

import argparse  # noqa: E402
import platform  # noqa: E402

# Runs from any directory without installing.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import eager  # noqa: E402
from eager import nn  # noqa: E402

NAMES = ("M1", "M2", "M3", "M4")

# Full sizes, and the --smoke ones (a few milliseconds a step).
SIZES = {
    "full": {"resnet": dict(batch=32, image=32, widths=(16, 32, 64)),
             "lstm": dict(batch=32, seq=32, vocab=5000, embed=64, hidden=128, classes=4),
             "transformer": dict(batch=32, seq=32, vocab=5000, d_model=128, heads=4, ff=256, layers=2,
                                 classes=4),
             "mlp": dict(batch=64, layers=(784, 256, 256, 10))},
    "smoke": {"resnet": dict(batch=2, image=8, widths=(4, 8, 8)),
              "lstm": dict(batch=2, seq=4, vocab=50, embed=8, hidden=8, classes=4),
              "transformer": dict(batch=2, seq=4, vocab=50, d_model=8, heads=2, ff=16, layers=2, classes=4),
              "mlp": dict(batch=4, layers=(12, 8, 8, 3))},
}


def _np(t):
    return np.array(t.numpy())


def _set(torch, dest, value):
    """Copies a NumPy array into a PyTorch parameter (shapes must match)."""
    with torch.no_grad():
        dest.copy_(torch.from_numpy(np.ascontiguousarray(value)))


def _copy_linear(torch, dest, src):
    """eager's Linear keeps weight [in, out]; PyTorch's [out, in]."""
    _set(torch, dest.weight, _np(src.weight).T)
    _set(torch, dest.bias, _np(src.bias))


# -- M1: a small ResNet --------------------------------------------------------------
class BasicBlock(nn.Layer):
    """conv3x3-BN-ReLU-conv3x3-BN plus the input (or its 1x1 conv-BN projection), ReLU."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2D(cin, cout, 3, stride, 1, bias_attr=False)
        self.b1 = nn.BatchNorm2D(cout)
        self.c2 = nn.Conv2D(cout, cout, 3, 1, 1, bias_attr=False)
        self.b2 = nn.BatchNorm2D(cout)
        self.sc = None
        if stride != 1 or cin != cout:
            self.sc = nn.Sequential(nn.Conv2D(cin, cout, 1, stride, bias_attr=False), nn.BatchNorm2D(cout))
        self.relu = nn.ReLU()

    def forward(self, x):
        y = self.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return self.relu(y + (x if self.sc is None else self.sc(x)))


class ResNet(nn.Layer):
    """Stem conv-BN-ReLU, one basic block per width (stride 1, 2, 2), pool, linear 10."""

    def __init__(self, widths):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2D(3, widths[0], 3, 1, 1, bias_attr=False),
                                  nn.BatchNorm2D(widths[0]), nn.ReLU())
        blocks, cin = [], widths[0]
        for i, w in enumerate(widths):
            blocks.append(BasicBlock(cin, w, 1 if i == 0 else 2))
            cin = w
        self.layers = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(widths[-1], 10)

    def forward(self, x):
        return self.fc(eager.flatten(self.pool(self.layers(self.stem(x))), 1))


def torch_resnet(torch, net):
    """The same ResNet in PyTorch, with ``net``'s weights."""
    tnn = torch.nn

    def conv_bn(conv, bn):
        c = tnn.Conv2d(conv._in_channels, conv._out_channels, conv._kernel_size, conv._stride,
                       conv._padding, bias=False)
        _set(torch, c.weight, _np(conv.weight))
        b = tnn.BatchNorm2d(bn.weight.shape[0], eps=1e-5, momentum=0.1)
        _set(torch, b.weight, _np(bn.weight))
        _set(torch, b.bias, _np(bn.bias))
        return c, b

    class TBlock(tnn.Module):
        def __init__(self, block):
            super().__init__()
            self.c1, self.b1 = conv_bn(block.c1, block.b1)
            self.c2, self.b2 = conv_bn(block.c2, block.b2)
            self.sc = None if block.sc is None else tnn.Sequential(*conv_bn(block.sc[0], block.sc[1]))

        def forward(self, x):
            y = torch.relu(self.b1(self.c1(x)))
            y = self.b2(self.c2(y))
            return torch.relu(y + (x if self.sc is None else self.sc(x)))

    class TNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.stem = tnn.Sequential(*conv_bn(net.stem[0], net.stem[1]), tnn.ReLU())
            self.layers = tnn.Sequential(*[TBlock(b) for b in net.layers])
            self.pool = tnn.AdaptiveAvgPool2d(1)
            self.fc = tnn.Linear(net.fc.weight.shape[0], net.fc.weight.shape[1])
            _copy_linear(torch, self.fc, net.fc)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))

    return TNet()


def build_resnet(torch, batch, image, widths):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((batch, 3, image, image)).astype(np.float32)
    labels = rng.integers(0, 10, batch).astype(np.int64)
    eager.seed(11)
    net = ResNet(widths)
    opt = eager.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=net.parameters())
    theirs = None
    if torch is not None:
        tnet = torch_resnet(torch, net)
        theirs = (tnet, torch.optim.SGD(tnet.parameters(), lr=0.1, momentum=0.9))
    what = f"ResNet {'-'.join(map(str, widths))} Momentum b{batch} {image}px"
    return what, (net, opt), theirs, x, labels


# -- M2: Embedding + LSTM text classifier ---------------------------------------------
class TextLSTM(nn.Layer):
    """Embedding, a 1-layer LSTM, a linear head on the last hidden state."""

    def __init__(self, vocab, embed, hidden, classes):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, ids):
        _, (h, _) = self.lstm(self.embed(ids))
        return self.fc(h[-1])


def torch_text_lstm(torch, net):
    tnn = torch.nn
    cell = net.lstm[0].cell

    class TNet(tnn.Module):
        def __init__(self):
            super().__init__()
            vocab, embed = net.embed.weight.shape
            self.embed = tnn.Embedding(vocab, embed)
            _set(torch, self.embed.weight, _np(net.embed.weight))
            self.lstm = tnn.LSTM(embed, cell.weight_hh.shape[1], batch_first=True)
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                _set(torch, getattr(self.lstm, f"{name}_l0"), _np(getattr(cell, name)))
            self.fc = tnn.Linear(*net.fc.weight.shape)
            _copy_linear(torch, self.fc, net.fc)

        def forward(self, ids):
            _, (h, _) = self.lstm(self.embed(ids))
            return self.fc(h[-1])

    return TNet()


def _tokens(batch, seq, vocab, classes, seed):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, vocab, (batch, seq)).astype(np.int64),
            rng.integers(0, classes, batch).astype(np.int64))


def build_lstm(torch, batch, seq, vocab, embed, hidden, classes):
    ids, labels = _tokens(batch, seq, vocab, classes, 12)
    eager.seed(12)
    net = TextLSTM(vocab, embed, hidden, classes)
    opt = eager.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
    theirs = None
    if torch is not None:
        tnet = torch_text_lstm(torch, net)
        theirs = (tnet, torch.optim.Adam(tnet.parameters(), lr=1e-3))
    what = f"Emb+LSTM {embed}-{hidden} Adam b{batch} T{seq}"
    return what, (net, opt), theirs, ids, labels


# -- M3: a TransformerEncoder classifier ----------------------------------------------
class TextTransformer(nn.Layer):
    """Embedding, a post-norm TransformerEncoder (ReLU, dropout 0), mean over the sequence, linear."""

    def __init__(self, vocab, d_model, heads, ff, layers, classes):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.fc = nn.Linear(d_model, classes)

    def forward(self, ids):
        return self.fc(self.encoder(self.embed(ids)).mean(axis=1))


def torch_text_transformer(torch, net, heads):
    tnn = torch.nn

    class TNet(tnn.Module):
        def __init__(self):
            super().__init__()
            vocab, d_model = net.embed.weight.shape
            self.embed = tnn.Embedding(vocab, d_model)
            _set(torch, self.embed.weight, _np(net.embed.weight))
            ff = net.encoder.layers[0].linear1.weight.shape[1]
            layer = tnn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.0, batch_first=True)
            self.encoder = tnn.TransformerEncoder(layer, len(net.encoder.layers), enable_nested_tensor=False)
            for theirs, ours in zip(self.encoder.layers, net.encoder.layers):
                att = ours.self_attn
                _set(torch, theirs.self_attn.in_proj_weight, np.concatenate(
                    [_np(p.weight).T for p in (att.q_proj, att.k_proj, att.v_proj)]))
                _set(torch, theirs.self_attn.in_proj_bias, np.concatenate(
                    [_np(p.bias) for p in (att.q_proj, att.k_proj, att.v_proj)]))
                _copy_linear(torch, theirs.self_attn.out_proj, att.out_proj)
                for name in ("linear1", "linear2"):
                    _copy_linear(torch, getattr(theirs, name), getattr(ours, name))
                for name in ("norm1", "norm2"):
                    _set(torch, getattr(theirs, name).weight, _np(getattr(ours, name).weight))
                    _set(torch, getattr(theirs, name).bias, _np(getattr(ours, name).bias))
            self.fc = tnn.Linear(*net.fc.weight.shape)
            _copy_linear(torch, self.fc, net.fc)

        def forward(self, ids):
            return self.fc(self.encoder(self.embed(ids)).mean(dim=1))

    return TNet()


def build_transformer(torch, batch, seq, vocab, d_model, heads, ff, layers, classes):
    ids, labels = _tokens(batch, seq, vocab, classes, 13)
    eager.seed(13)
    net = TextTransformer(vocab, d_model, heads, ff, layers, classes)
    opt = eager.optimizer.AdamW(learning_rate=1e-3, parameters=net.parameters())  # weight_decay 0.01
    theirs = None
    if torch is not None:
        tnet = torch_text_transformer(torch, net, heads)
        theirs = (tnet, torch.optim.AdamW(tnet.parameters(), lr=1e-3, weight_decay=0.01))
    what = f"Transformer {layers}x d{d_model} AdamW b{batch} T{seq}"
    return what, (net, opt), theirs, ids, labels


# -- M4: B3's MLP with Adam -----------------------------------------------------------
def build_mlp(torch, batch, layers):
    rng = np.random.default_rng(14)
    x = rng.standard_normal((batch, layers[0])).astype(np.float32)
    labels = rng.integers(0, layers[-1], batch).astype(np.int64)
    eager.seed(14)
    parts = []
    for i in range(len(layers) - 1):
        parts.append(nn.Linear(layers[i], layers[i + 1]))
        if i + 2 < len(layers):
            parts.append(nn.ReLU())
    net = nn.Sequential(*parts)
    opt = eager.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
    theirs = None
    if torch is not None:
        tparts = []
        for part in parts:
            if isinstance(part, nn.Linear):
                lin = torch.nn.Linear(*part.weight.shape)
                _copy_linear(torch, lin, part)
                tparts.append(lin)
            else:
                tparts.append(torch.nn.ReLU())
        tnet = torch.nn.Sequential(*tparts)
        theirs = (tnet, torch.optim.Adam(tnet.parameters(), lr=1e-3))
    what = f"MLP {'-'.join(map(str, layers))} Adam b{batch}"
    return what, (net, opt), theirs, x, labels


BUILDERS = {"M1": ("resnet", build_resnet), "M2": ("lstm", build_lstm),
            "M3": ("transformer", build_transformer), "M4": ("mlp", build_mlp)}


# -- the steps, the check, the timing ---------------------------------------------------
def eager_step_fn(net, opt, x, labels):
    """One training step of an eager model: forward, loss, backward, update, clear_grad."""
    loss_fn = nn.CrossEntropyLoss()

    def step():
        loss = loss_fn(net(x), labels)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return step


def torch_step_fn(torch, net, opt, x, labels):
    """The same step in PyTorch (gradients set to None, its default)."""
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        loss = loss_fn(net(x), labels)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss
    return step


def build(name, torch, size="full"):
    """(what, eager step, PyTorch step or None) of benchmark ``name`` (M1..M4)."""
    key, builder = BUILDERS[name]
    what, (net, opt), theirs, x_np, labels_np = builder(torch, **SIZES[size][key])
    ours = eager_step_fn(net, opt, eager.to_tensor(x_np), eager.to_tensor(labels_np))
    if theirs is None:
        return what, ours, None
    return what, ours, torch_step_fn(torch, *theirs, torch.from_numpy(x_np), torch.from_numpy(labels_np))


def check_same_losses(name, ours, theirs, steps=2, rtol=2e-4):
    """The first ``steps`` losses of the two must agree: the first checks the
    networks and their weights, the later ones the optimizers' updates. Returns
    the largest relative difference."""
    worst = 0.0
    for i in range(steps):
        a, b = float(ours().item()), float(theirs().item())
        diff = abs(a - b) / max(abs(b), 1e-12)
        if not diff <= rtol:
            raise AssertionError(f"{name}: eager's loss {a} differs from PyTorch's {b} at step {i + 1} "
                                 f"(relative {diff:.2e} > {rtol:.0e}); the timings would compare different work")
        worst = max(worst, diff)
    return worst


def run_models(torch, *, budget, repeat, only=NAMES, size="full"):
    """Times the asked models; a list of (name, what, eager Timing, PyTorch Timing
    or None, largest relative loss difference or None)."""
    rows = []
    for name in NAMES:
        if name not in only:
            continue
        what, ours, theirs = build(name, torch, size)
        stmts = {"eager": ours}
        diff = None
        if theirs is not None:
            diff = check_same_losses(name, ours, theirs)
            stmts["torch"] = theirs
        else:
            ours()  # one warm step, as the check gives the other case
        t = timing.measure_many(stmts, budget=budget, repeat=repeat)
        rows.append((name, what, t["eager"], t.get("torch"), diff))
    return rows


def print_rows(rows):
    header = f"{'bench':<6} {'what':<36} {'eager min / median':>22}  {'torch min':>10}  {'ratio':>7}  loss diff"
    print(header)
    print("-" * len(header))
    for name, what, ours, theirs, diff in rows:
        eager_text = f"{ours.min * 1e3:8.2f} / {ours.median * 1e3:8.2f} ms"
        torch_text = f"{theirs.min * 1e3:7.2f} ms" if theirs is not None else f"{'-':>10}"
        ratio = f"{ours.min / theirs.min:6.2f}x" if theirs is not None else f"{'-':>7}"
        diff_text = f"{diff:.1e}" if diff is not None else "-"
        print(f"{name:<6} {what:<36} {eager_text:>22}  {torch_text:>10}  {ratio:>7}  {diff_text}")


def main(argv=None):
    parser = argparse.ArgumentParser(description="small real training steps, eager vs PyTorch (M1-M4)")
    parser.add_argument("--only", default="", metavar="M1,M3", help="run only these (comma-separated M1..M4)")
    parser.add_argument("--repeat", type=int, default=None, help="interleaved repeats per figure (default 30)")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, two short repeats (the test)")
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch: eager's times only")
    parser.add_argument("--clock", choices=sorted(timing.CLOCKS), default="cpu",
                        help="cpu: this process's CPU time (default); wall: perf_counter")
    args = parser.parse_args(argv)
    only = {b.strip().upper() for b in args.only.split(",") if b.strip()} or set(NAMES)
    if only - set(NAMES):
        parser.error(f"--only expected names among {list(NAMES)}, got {sorted(only - set(NAMES))}")
    budget, repeat = (1e-4, 2) if args.smoke else (0.05, 30)
    if args.repeat is not None:
        if args.repeat < 1:
            parser.error(f"--repeat expected a positive int, got {args.repeat}")
        repeat = args.repeat
    timing.CLOCK = timing.CLOCKS[args.clock]
    torch = timing.load_torch(args.no_torch)
    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"torch {torch.__version__ if torch else ('skipped' if args.no_torch else 'not installed')}, "
          f"threads: {os.environ.get('OMP_NUM_THREADS')}, {'smoke' if args.smoke else 'full'} sizes, "
          f"clock: {args.clock} ({budget * 1e3:.1f} ms x {repeat} interleaved repeats)")
    rows = run_models(torch, budget=budget, repeat=repeat, only=only, size="smoke" if args.smoke else "full")
    print_rows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
