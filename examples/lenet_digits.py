"""Train a LeNet-style CNN on scikit-learn's bundled 8x8 handwritten digits.

Written as a Paddle user writes it (``import eager as paddle``): Conv2D,
BatchNorm2D, MaxPool2D and Dropout layers, cross-entropy, Adam, train/eval
modes. 1,797 images, 80% for training; reaches about 98-99% test accuracy in
well under a minute on two cores and exits non-zero below 97%. ``--amp O1`` or
``--amp O2`` trains in mixed precision (``paddle.amp.auto_cast``, a
``GradScaler``, and ``paddle.amp.decorate`` for O2), float16 on NumPy too.

    python examples/lenet_digits.py [--epochs 15] [--seed 0] [--amp O1]
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import eager as paddle
import eager.nn as nn
import eager.nn.functional as F

try:
    from sklearn.datasets import load_digits
except ImportError:  # pragma: no cover - the message is the point
    sys.exit("lenet_digits.py needs scikit-learn: pip install scikit-learn (or the 'examples' extra)")


class LeNet(nn.Layer):
    """Two conv blocks (conv, batch norm, ReLU, 2x2 max pool) and a classifier."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 16, kernel_size=3, padding=1), nn.BatchNorm2D(16), nn.ReLU(),
            nn.MaxPool2D(kernel_size=2, stride=2),                      # 8x8 -> 4x4
            nn.Conv2D(16, 32, kernel_size=3, padding=1), nn.BatchNorm2D(32), nn.ReLU(),
            nn.MaxPool2D(kernel_size=2, stride=2),                      # 4x4 -> 2x2
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.25), nn.Linear(32 * 2 * 2, 64), nn.ReLU(),
            nn.Linear(64, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def load(seed: int):
    digits = load_digits()
    images = (digits.images / 16.0).astype("float32")[:, None, :, :]   # [N, 1, 8, 8] in [0, 1]
    images = (images - images.mean()) / images.std()
    labels = digits.target.astype("int64")
    order = np.random.default_rng(seed).permutation(len(labels))
    split = int(0.8 * len(labels))
    train, test = order[:split], order[split:]
    return (images[train], labels[train]), (images[test], labels[test])


def accuracy(model, images, labels, amp_level: str = "O0") -> float:
    model.eval()
    with paddle.no_grad(), paddle.amp.auto_cast(enable=amp_level != "O0", level=amp_level):
        logits = model(paddle.to_tensor(images))
    model.train()
    return float((logits.numpy().argmax(axis=1) == labels).mean())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--amp", choices=("O0", "O1", "O2"), default="O0",
                        help="mixed precision level (O0: float32 throughout)")
    args = parser.parse_args(argv)
    use_amp = args.amp != "O0"

    paddle.seed(args.seed)
    (x_train, y_train), (x_test, y_test) = load(args.seed)
    model = LeNet()
    opt = paddle.optimizer.Adam(learning_rate=2e-3, parameters=model.parameters())
    if args.amp == "O2":  # float16 parameters (norm layers kept float32), float32 master weights
        model, opt = paddle.amp.decorate(models=model, optimizers=opt, level="O2")
    scaler = paddle.amp.GradScaler(enable=use_amp, init_loss_scaling=1024)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(y_train))
        total = 0.0
        for i in range(0, len(order), args.batch_size):
            idx = order[i:i + args.batch_size]
            with paddle.amp.auto_cast(enable=use_amp, level=args.amp):
                logits = model(paddle.to_tensor(x_train[idx]))
                loss = F.cross_entropy(logits, paddle.to_tensor(y_train[idx]))
            scaler.scale(loss).backward()  # the identity when amp is off
            scaler.step(opt)
            scaler.update()
            opt.clear_grad()
            total += loss.item() * len(idx)
        print(f"epoch {epoch:2d}  loss {total / len(order):.4f}  "
              f"test accuracy {accuracy(model, x_test, y_test, args.amp):.4f}")
    test_acc = accuracy(model, x_test, y_test, args.amp)
    print(f"test accuracy {test_acc:.4f} after {args.epochs} epochs in {time.perf_counter() - start:.1f} s")
    if test_acc < 0.97:
        print("FAILED: expected at least 97% test accuracy", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
