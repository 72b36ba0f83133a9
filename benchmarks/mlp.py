"""B3's network written by hand: its weights, its batches and one SGD step.

The baseline of B3/B4 (on NumPy, in benchmarks/run.py) and of G3 (on CuPy, in
benchmarks/gpu.py): one step written once over an array module ``xp``, with
in-place operations wherever the module allows them, as Chainer writes a
kernel once for NumPy and CuPy.
"""
from __future__ import annotations

import numpy as np

LAYERS = (784, 256, 256, 10)
LR = 0.01


def init_weights(seed=0, layers=LAYERS):
    """Weights [in, out] and biases, float32 on the host, shared by every implementation."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(layers[:-1], layers[1:]):
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        params.append(rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32))
        params.append(np.zeros(fan_out, np.float32))
    return params


def make_batch(batch, seed=1, loss="mse", layers=LAYERS):
    """Inputs and targets on the host: one-hot float rows for "mse", int64 class labels for "ce"."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, layers[0])).astype(np.float32)
    labels = rng.integers(0, layers[-1], batch)
    if loss == "ce":
        return x, labels.astype(np.int64)
    return x, np.eye(layers[-1], dtype=np.float32)[labels]


def softmax_cross_entropy(z, labels):
    """Mean softmax cross-entropy of logits z [N, C] (overwritten) and its gradient
    (softmax - onehot) / N, written into z's buffer: a fused NumPy version."""
    n = len(z)
    rows = np.arange(n)
    z -= z.max(axis=1, keepdims=True)
    picked = z[rows, labels]
    np.exp(z, out=z)
    total = z.sum(axis=1, keepdims=True)
    loss = float(np.log(total).sum() - picked.sum()) / n
    z /= total
    z[rows, labels] -= 1.0
    z /= n
    return loss, z


class HandWrittenMLP:
    """A hand-written forward, backward and SGD update of B3's network on ``xp``
    (NumPy or CuPy). On NumPy the loss comes back as a Python float; on CuPy it
    stays on the device (a read would be a transfer the GPU step does not make).
    The cross-entropy loss is NumPy only."""

    def __init__(self, params, loss="mse", xp=np):
        if loss == "ce" and xp is not np:
            raise ValueError("HandWrittenMLP: the cross-entropy step is written for NumPy only")
        self.xp = xp
        self.params = [xp.array(p) for p in params]  # copies (onto the device for CuPy)
        self.loss = loss

    def step(self, x, y):
        xp = self.xp
        w1, b1, w2, b2, w3, b3 = self.params
        h1 = x @ w1
        h1 += b1
        xp.maximum(h1, 0, out=h1)
        h2 = h1 @ w2
        h2 += b2
        xp.maximum(h2, 0, out=h2)
        out = h2 @ w3
        out += b3
        if self.loss == "ce":
            loss, g3 = softmax_cross_entropy(out, y)
        else:
            # loss = mean((out - y)^2); d loss / d out = 2 (out - y) / size
            diff = out
            diff -= y
            loss = xp.vdot(diff, diff)
            loss = float(loss) / diff.size if xp is np else loss / diff.size
            g3 = diff
            g3 *= 2.0 / diff.size
        gw3 = h2.T @ g3
        gb3 = g3.sum(axis=0)
        g2 = g3 @ w3.T
        g2 *= h2 > 0
        gw2 = h1.T @ g2
        gb2 = g2.sum(axis=0)
        g1 = g2 @ w2.T
        g1 *= h1 > 0
        gw1 = x.T @ g1
        gb1 = g1.sum(axis=0)
        for p, g in zip(self.params, (gw1, gb1, gw2, gb2, gw3, gb3)):
            g *= LR
            p -= g
        return loss
