"""Train an MLP on scikit-learn's 8x8 digits with the high-level API.

Written as a Paddle user writes it (``import eager as paddle``): a Dataset, a
DataLoader, ``paddle.Model`` with Adam under a cosine learning-rate schedule
(stepped once per epoch by the LRScheduler callback), EarlyStopping on the
test accuracy, ModelCheckpoint, a progress bar, then ``model.save`` and a
reload into a fresh Model that must score the same. Runs in a few seconds;
exits non-zero below 95% test accuracy.

    python examples/fit_digits.py [--epochs 40] [--seed 0] [--save-dir DIR] [--verbose 1]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

import eager as paddle
import eager.nn as nn

try:
    from sklearn.datasets import load_digits
except ImportError:  # pragma: no cover - the message is the point
    sys.exit("fit_digits.py needs scikit-learn: pip install scikit-learn (or the 'examples' extra)")


class DigitsDataset(paddle.io.Dataset):
    """(64 pixel features in float32, class id in int64) per image."""

    def __init__(self, images, labels):
        super().__init__()
        self.images, self.labels = images, labels

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx]

    def __len__(self):
        return len(self.labels)


def make_datasets(seed: int):
    digits = load_digits()
    images = (digits.data / 16.0).astype("float32")
    labels = digits.target.astype("int64")
    order = np.random.default_rng(seed).permutation(len(labels))
    split = int(0.8 * len(labels))
    train, test = order[:split], order[split:]
    return DigitsDataset(images[train], labels[train]), DigitsDataset(images[test], labels[test])


def build_model(epochs: int):
    net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 10))
    model = paddle.Model(net)
    scheduler = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=0.005, T_max=epochs)
    optimizer = paddle.optimizer.Adam(learning_rate=scheduler, parameters=model.parameters())
    model.prepare(optimizer, nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    return model


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save-dir", default=None, help="where checkpoints go (default: a temporary directory)")
    parser.add_argument("--verbose", type=int, default=1, choices=(0, 1, 2))
    args = parser.parse_args(argv)

    paddle.seed(args.seed)
    np.random.seed(args.seed)  # the loader's shuffle draws from NumPy's global state, as Paddle's does
    train_set, test_set = make_datasets(args.seed)
    train_loader = paddle.io.DataLoader(train_set, batch_size=64, shuffle=True)
    test_loader = paddle.io.DataLoader(test_set, batch_size=256)

    with tempfile.TemporaryDirectory() as scratch:
        save_dir = args.save_dir or scratch
        model = build_model(args.epochs)
        callbacks = [
            paddle.callbacks.LRScheduler(by_step=False, by_epoch=True),
            paddle.callbacks.EarlyStopping(monitor="acc", mode="max", patience=5, verbose=1),
            paddle.callbacks.ModelCheckpoint(save_freq=10, save_dir=save_dir),
        ]
        start = time.time()
        model.fit(train_loader, test_loader, epochs=args.epochs, save_dir=save_dir, verbose=args.verbose,
                  callbacks=callbacks)
        seconds = time.time() - start
        result = model.evaluate(test_loader, verbose=0)

        path = os.path.join(save_dir, "digits_mlp")
        model.save(path)                          # digits_mlp.pdparams and digits_mlp.pdopt
        paddle.seed(args.seed + 1)                # different initial weights
        reloaded = build_model(args.epochs)
        reloaded.load(path)
        again = reloaded.evaluate(test_loader, verbose=0)
        saved = sorted(name for name in os.listdir(save_dir) if name.endswith(".pdparams"))

    print(f"checkpoints: {', '.join(saved)}")
    print(f"trained in {seconds:.1f}s; reloaded model: loss {again['loss'][0]:.4f}, acc {again['acc']:.4f}")
    assert again["acc"] == result["acc"] and abs(again["loss"][0] - result["loss"][0]) < 1e-6, (result, again)
    print(f"test accuracy {result['acc']:.4f}")
    return 0 if result["acc"] >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
