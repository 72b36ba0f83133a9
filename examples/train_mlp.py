"""Trains a 2-layer MLP (ReLU) to classify points of three interleaved spirals.

Run from anywhere:  python examples/train_mlp.py [--steps 300] [--seed 0]

The data are generated here (seeded), so the run is reproducible; it prints
the loss every 25 steps and the final training and held-out accuracy.
"""
import argparse
import os
import sys
import time

# Works from any directory without installing: put the repository root first on the path.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import eager  # noqa: E402
from eager import nn  # noqa: E402
from eager.nn import functional as F  # noqa: E402


def make_spirals(n_per_class: int, classes: int, rng: np.random.Generator):
    """Points on `classes` noisy spiral arms in 2-D and their class labels."""
    xs, ys = [], []
    for c in range(classes):
        r = np.linspace(0.05, 1.0, n_per_class)
        theta = np.linspace(c * 2 * np.pi / classes, c * 2 * np.pi / classes + 3.0, n_per_class)
        theta = theta + rng.normal(0.0, 0.3, n_per_class)
        xs.append(np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1))
        ys.append(np.full(n_per_class, c))
    x = np.concatenate(xs).astype("float32")
    y = np.concatenate(ys).astype("int64")
    order = rng.permutation(len(y))
    return x[order], y[order]


class MLP(nn.Layer):
    """in -> hidden (ReLU) -> classes."""

    def __init__(self, in_features: int, hidden: int, classes: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def accuracy(model, x, y) -> float:
    with eager.no_grad():
        logits = model(eager.to_tensor(x)).numpy()
    return float((logits.argmax(axis=1) == y).mean())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.02)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    nn.seed(args.seed)
    x, y = make_spirals(400, 3, rng)
    split = int(0.8 * len(y))
    x_train, y_train, x_test, y_test = x[:split], y[:split], x[split:], y[split:]

    model = MLP(2, args.hidden, 3)
    optimizer = eager.optimizer.Adam(learning_rate=args.lr, parameters=model.parameters())
    inputs, labels = eager.to_tensor(x_train), eager.to_tensor(y_train)

    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        loss = F.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        if step == 1 or step % 25 == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    elapsed = time.perf_counter() - start

    train_acc, test_acc = accuracy(model, x_train, y_train), accuracy(model, x_test, y_test)
    print(f"train accuracy {train_acc:.1%}  test accuracy {test_acc:.1%}  "
          f"({args.steps} steps in {elapsed:.2f} s)")
    return test_acc


if __name__ == "__main__":
    sys.exit(0 if main() > 0.9 else 1)
