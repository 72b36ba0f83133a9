"""Trains a 2-layer Transformer encoder to sort short sequences of digits.

Run from anywhere:  python examples/tiny_transformer.py [--steps 600] [--seed 0]

Each example is a sequence of random digits 0-9; the target at position i is
the i-th smallest digit. The model embeds the digits and their positions
(learned tables), runs a 2-layer TransformerEncoder and classifies each
position into 10 digits. Every batch is freshly generated (seeded), so the run
is reproducible and the held-out batch is unseen. It prints the loss every 50
steps, then the accuracy per digit and per whole sequence on held-out data,
and exits non-zero when the per-digit accuracy is below --threshold.

Written the way a Paddle user would (``import eager as paddle``).
"""
import argparse
import os
import sys
import time

# Works from any directory without installing: put the repository root first on the path.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import eager as paddle  # noqa: E402
import eager.nn as nn  # noqa: E402
import eager.nn.functional as F  # noqa: E402

DIGITS = 10


def make_batch(rng: np.random.Generator, batch_size: int, length: int):
    """Random digit sequences [batch, length] (int64) and their sorted versions."""
    x = rng.integers(0, DIGITS, size=(batch_size, length))
    return x.astype("int64"), np.sort(x, axis=1).astype("int64")


class SortingTransformer(nn.Layer):
    """digits -> token + position embeddings -> TransformerEncoder -> digit logits per position."""

    def __init__(self, length: int, d_model: int, nhead: int, dim_feedforward: int, num_layers: int,
                 dropout: float):
        super().__init__()
        small = paddle.ParamAttr(initializer=nn.initializer.Normal(0.0, 0.1))
        self.tokens = nn.Embedding(DIGITS, d_model, weight_attr=small)
        self.positions = nn.Embedding(length, d_model, weight_attr=small)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout=dropout,
                                           normalize_before=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers, norm=nn.LayerNorm(d_model))
        self.head = nn.Linear(d_model, DIGITS)
        self.register_buffer("position_ids", paddle.arange(length, dtype="int64").unsqueeze(0),
                             persistable=False)

    def forward(self, x):
        h = self.tokens(x) + self.positions(self.position_ids)
        return self.head(self.encoder(h))


def evaluate(model, x, y):
    """(per-digit accuracy, whole-sequence accuracy) on inputs x with targets y."""
    model.eval()
    with paddle.no_grad():
        predicted = model(paddle.to_tensor(x)).numpy().argmax(axis=-1)
    model.train()
    return float((predicted == y).mean()), float((predicted == y).all(axis=1).mean())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--length", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--d-model", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--threshold", type=float, default=0.95,
                        help="exit non-zero when the held-out per-digit accuracy is below this")
    args = parser.parse_args(argv)

    paddle.seed(args.seed)
    nn.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = SortingTransformer(args.length, args.d_model, nhead=4, dim_feedforward=2 * args.d_model,
                               num_layers=2, dropout=args.dropout)
    schedule = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=args.lr, T_max=args.steps)
    optimizer = paddle.optimizer.Adam(learning_rate=schedule, parameters=model.parameters())
    test_x, test_y = make_batch(np.random.default_rng(args.seed + 1), 1000, args.length)

    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        x, y = make_batch(rng, args.batch_size, args.length)
        logits = model(paddle.to_tensor(x))
        loss = F.cross_entropy(logits.reshape([-1, DIGITS]), paddle.to_tensor(y.reshape(-1)))
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        schedule.step()
        if step == 1 or step % 50 == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    elapsed = time.perf_counter() - start

    digit_acc, sequence_acc = evaluate(model, test_x, test_y)
    print(f"held-out accuracy: {digit_acc:.1%} per digit, {sequence_acc:.1%} per sequence "
          f"({args.steps} steps in {elapsed:.1f} s)")
    return digit_acc >= args.threshold


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
