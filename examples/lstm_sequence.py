"""Trains an LSTM to tell whether a binary sequence holds more ones than zeros.

Run from anywhere:  python examples/lstm_sequence.py [--steps 300] [--seed 0]

Written as Paddle 2.x code (``import eager as paddle``). The sequences have
random lengths between 5 and 24 (odd, so there is never a tie), padded to 24
and passed with ``sequence_length``, so the LSTM's final state is its state
after each sequence's last real element. A linear layer reads the final
hidden state. Prints the loss and accuracy every 25 steps and the held-out
accuracy at the end; exits with status 1 below --target (default 0.95).
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

MAX_LEN = 24


def make_batch(n: int, rng: np.random.Generator):
    """n padded binary sequences [n, MAX_LEN, 1], their lengths and labels
    (1 where ones outnumber zeros)."""
    lengths = rng.choice(np.arange(5, MAX_LEN + 1, 2), size=n)
    bits = rng.integers(0, 2, size=(n, MAX_LEN))
    bits[np.arange(MAX_LEN)[None, :] >= lengths[:, None]] = 0
    labels = (2 * bits.sum(axis=1) > lengths).astype("int64")
    # Inputs +1 / -1 for one / zero (0 for padding, which the mask skips anyway).
    x = np.where(bits == 1, 1.0, -1.0) * (np.arange(MAX_LEN)[None, :] < lengths[:, None])
    return x[:, :, None].astype("float32"), lengths.astype("int64"), labels


class MajorityClassifier(nn.Layer):
    def __init__(self, hidden_size: int):
        super().__init__()
        self.lstm = nn.LSTM(input_size=1, hidden_size=hidden_size)
        self.head = nn.Linear(hidden_size, 2)

    def forward(self, x, lengths):
        _, (h, _) = self.lstm(x, sequence_length=lengths)
        return self.head(h[-1])            # the last layer's final hidden state


def accuracy(model, x, lengths, labels) -> float:
    with paddle.no_grad():
        logits = model(paddle.to_tensor(x), paddle.to_tensor(lengths)).numpy()
    return float((logits.argmax(axis=1) == labels).mean())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--target", type=float, default=0.95)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    paddle.seed(args.seed)
    model = MajorityClassifier(args.hidden)
    optimizer = paddle.optimizer.Adam(learning_rate=args.lr, parameters=model.parameters())
    test_x, test_len, test_y = make_batch(1000, np.random.default_rng(args.seed + 1))

    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        x, lengths, labels = make_batch(args.batch, rng)
        logits = model(paddle.to_tensor(x), paddle.to_tensor(lengths))
        loss = F.cross_entropy(logits, paddle.to_tensor(labels))
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        if step == 1 or step % 25 == 0:
            batch_acc = float((logits.numpy().argmax(axis=1) == labels).mean())
            print(f"step {step:4d}  loss {loss.item():.4f}  batch accuracy {batch_acc:.3f}")

    held_out = accuracy(model, test_x, test_len, test_y)
    print(f"held-out accuracy {held_out:.3f} ({time.perf_counter() - start:.1f} s)")
    if held_out < args.target:
        print(f"below the target accuracy {args.target}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
