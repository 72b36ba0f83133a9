"""B5's network: one SGD step of a LeNet-style CNN, written three ways.

conv 1->6 (5x5, padding 2) - ReLU - max pool 2x2 - conv 6->16 (5x5) - ReLU -
max pool 2x2 - flatten (400) - linear 120 - ReLU - linear 84 - ReLU - linear 10,
softmax cross-entropy (mean), plain SGD. Inputs are [N, 1, 28, 28] float32.

``HandWrittenLeNet`` on NumPy is the baseline the issue asks for: a hand-written forward,
backward and update with im2col convolutions (a sliding-window view copied
into columns, one matmul), the column gradient added back one kernel position
at a time, and 2x2 pooling by reshaping. ``EagerLeNet`` builds the same network
from eager.nn and trains it with eager.optimizer.SGD; ``TorchLeNet`` does the
same with PyTorch. All three start from the same weights, so
:func:`check_same_training` can insist that they compute the same thing.
"""
from __future__ import annotations

import numpy as np

LR = 0.01
# (name, shape): conv filters [O, C, kh, kw]; linear weights [in, out] as Paddle stores them.
SHAPES = (("c1w", (6, 1, 5, 5)), ("c1b", (6,)), ("c2w", (16, 6, 5, 5)), ("c2b", (16,)),
          ("f1w", (400, 120)), ("f1b", (120,)), ("f2w", (120, 84)), ("f2b", (84,)),
          ("f3w", (84, 10)), ("f3b", (10,)))


def init_weights(seed=0) -> dict:
    """Uniform weights scaled by fan-in, zero biases (float32), shared by the three."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in SHAPES:
        if name.endswith("b"):
            params[name] = np.zeros(shape, np.float32)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
            limit = np.sqrt(3.0 / fan_in)
            params[name] = rng.uniform(-limit, limit, shape).astype(np.float32)
    return params


def make_batch(batch, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, batch).astype(np.int64)
    return x, labels


# -- the hand-written NumPy step ---------------------------------------------

def _conv_forward(xp, x, w, b, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    padded = xp.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x
    ho, wo = padded.shape[2] - kh + 1, padded.shape[3] - kw + 1
    windows = xp.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(2, 3))  # [N, C, Ho, Wo, kh, kw]
    cols = windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * ho * wo, c * kh * kw)
    out = cols @ w.reshape(o, -1).T
    out += b
    return out.reshape(n, ho, wo, o).transpose(0, 3, 1, 2), (cols, padded.shape, pad)


def _conv_backward(xp, dout, w, cache, need_dx):
    cols, padded_shape, pad = cache
    o, c, kh, kw = w.shape
    n, _, ho, wo = dout.shape
    d2 = dout.transpose(0, 2, 3, 1).reshape(-1, o)
    dw = (d2.T @ cols).reshape(w.shape)
    db = d2.sum(axis=0)
    if not need_dx:
        return None, dw, db
    dcols = (d2 @ w.reshape(o, -1)).reshape(n, ho, wo, c, kh, kw)
    dxp = xp.zeros(padded_shape, xp.float32)
    for i in range(kh):
        for j in range(kw):
            dxp[:, :, i:i + ho, j:j + wo] += dcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    h, wd = padded_shape[2] - 2 * pad, padded_shape[3] - 2 * pad
    return dxp[:, :, pad:pad + h, pad:pad + wd], dw, db


def _pool_forward(x):
    n, c, h, w = x.shape
    r = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = r.max(axis=(3, 5))
    return out, (r, out)


def _pool_backward(dout, cache):
    r, out = cache
    # Ties inside a window happen only among ReLU zeros, whose gradient the
    # ReLU's mask removes next, so an equality mask routes the gradient exactly.
    mask = r == out[:, :, :, None, :, None]
    return (mask * dout[:, :, :, None, :, None]).reshape(r.shape[0], r.shape[1], r.shape[2] * 2, r.shape[4] * 2)


class HandWrittenLeNet:
    """The baseline: forward, backward and SGD update written by hand over ``xp``
    (NumPy for B5, CuPy for G5). On NumPy the loss comes back as a Python float;
    on CuPy it stays on the device."""

    def __init__(self, params, xp=np):
        self.xp = xp
        self.p = {k: xp.array(v) for k, v in params.items()}  # copies (onto the device for CuPy)

    def step(self, x, labels):
        xp, p = self.xp, self.p
        n = len(x)
        rows = xp.arange(n)
        a1, conv1 = _conv_forward(xp, x, p["c1w"], p["c1b"], 2)
        xp.maximum(a1, 0, out=a1)
        s1, pool1 = _pool_forward(a1)
        a2, conv2 = _conv_forward(xp, s1, p["c2w"], p["c2b"], 0)
        xp.maximum(a2, 0, out=a2)
        s2, pool2 = _pool_forward(a2)
        flat = s2.reshape(n, -1)
        h1 = flat @ p["f1w"]
        h1 += p["f1b"]
        xp.maximum(h1, 0, out=h1)
        h2 = h1 @ p["f2w"]
        h2 += p["f2b"]
        xp.maximum(h2, 0, out=h2)
        z = h2 @ p["f3w"]
        z += p["f3b"]
        z -= z.max(axis=1, keepdims=True)
        e = xp.exp(z)
        prob = e / e.sum(axis=1, keepdims=True)
        loss = -xp.log(prob[rows, labels]).mean()
        if xp is np:
            loss = float(loss)
        dz = prob
        dz[rows, labels] -= 1.0
        dz /= n
        g = {"f3w": h2.T @ dz, "f3b": dz.sum(axis=0)}
        dh2 = dz @ p["f3w"].T
        dh2 *= h2 > 0
        g["f2w"], g["f2b"] = h1.T @ dh2, dh2.sum(axis=0)
        dh1 = dh2 @ p["f2w"].T
        dh1 *= h1 > 0
        g["f1w"], g["f1b"] = flat.T @ dh1, dh1.sum(axis=0)
        dflat = dh1 @ p["f1w"].T
        da2 = _pool_backward(dflat.reshape(s2.shape), pool2)
        da2 *= a2 > 0
        ds1, g["c2w"], g["c2b"] = _conv_backward(xp, da2, p["c2w"], conv2, need_dx=True)
        da1 = _pool_backward(ds1, pool1)
        da1 *= a1 > 0
        _, g["c1w"], g["c1b"] = _conv_backward(xp, da1, p["c1w"], conv1, need_dx=False)
        for name, grad in g.items():
            grad *= LR
            p[name] -= grad
        return loss


# -- eager and PyTorch --------------------------------------------------------

class EagerLeNet:
    """The same network from eager.nn layers, trained with eager.optimizer.SGD."""

    def __init__(self, params):
        import eager
        from eager import nn
        self.F = nn.functional
        self.model = nn.Sequential(
            nn.Conv2D(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5), nn.ReLU(), nn.MaxPool2D(2, 2), nn.Flatten(),
            nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
        names = [name for name, _ in SHAPES]
        self.model.set_state_dict(dict(zip(self.model.state_dict().keys(), (params[k] for k in names))))
        self.opt = eager.optimizer.SGD(learning_rate=LR, parameters=self.model.parameters())

    def step(self, x, labels):
        loss = self.F.cross_entropy(self.model(x), labels)
        loss.backward()
        self.opt.step()
        self.opt.clear_grad(set_to_zero=False)
        return loss


class TorchLeNet:
    def __init__(self, torch, params):
        nn = torch.nn
        self.model = nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
            nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
        with torch.no_grad():
            for (name, _), tensor in zip(SHAPES, self.model.parameters()):
                value = params[name].T if name.startswith("f") and name.endswith("w") else params[name]
                tensor.copy_(torch.from_numpy(np.ascontiguousarray(value)))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=LR)
        self.loss_fn = nn.CrossEntropyLoss()

    def step(self, x, labels):
        loss = self.loss_fn(self.model(x), labels)
        loss.backward()
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)
        return loss


def check_same_training(params, torch=None):
    """The implementations must agree, or the timings compare different work."""
    import eager
    x, labels = make_batch(8)
    ref = HandWrittenLeNet(params)
    ours = EagerLeNet(params)
    theirs = TorchLeNet(torch, params) if torch is not None else None
    for _ in range(3):
        a = ref.step(x, labels)
        b = ours.step(eager.to_tensor(x), eager.to_tensor(labels)).item()
        if not np.isclose(a, b, rtol=1e-4):
            raise AssertionError(f"B5: eager loss {b} differs from the NumPy baseline's {a}")
        if theirs is not None:
            c = theirs.step(torch.from_numpy(x), torch.from_numpy(labels)).item()
            if not np.isclose(a, c, rtol=1e-4):
                raise AssertionError(f"B5: PyTorch loss {c} differs from the NumPy baseline's {a}")
