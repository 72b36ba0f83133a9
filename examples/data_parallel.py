"""Data-parallel training of an MLP on scikit-learn's 8x8 handwritten digits.

Written as a Paddle user writes it (``import eager as paddle``):
``init_parallel_env``, ``paddle.DataParallel``, ``DistributedBatchSampler``
and ``SyncBatchNorm``. Every global batch of 64 images is split across the
ranks; gradients are averaged during backward, so N ranks train exactly the
model one process trains (float64, so the accuracy matches to the last digit).

    python examples/data_parallel.py                 # one process
    mpiexec -n 2 python examples/data_parallel.py    # two ranks, the same accuracy

Only rank 0 prints. Exits non-zero below 95% test accuracy.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

# Works from any directory without installing: put the repository root first on the path.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import eager as paddle  # noqa: E402
import eager.distributed as dist  # noqa: E402
import eager.nn as nn  # noqa: E402
import eager.nn.functional as F  # noqa: E402

try:
    from sklearn.datasets import load_digits
except ImportError:  # pragma: no cover - the message is the point
    sys.exit("data_parallel.py needs scikit-learn: pip install scikit-learn (or the 'examples' extra)")


def load(seed: int):
    """Digits as float64 vectors in [0, 1]: 1,436 for training (a multiple of 4,
    so every world size of 1, 2 or 4 splits each batch evenly) and 361 for testing."""
    digits = load_digits()
    images = (digits.images / 16.0).reshape(len(digits.images), 64)
    labels = digits.target.astype("int64")
    order = np.random.default_rng(seed).permutation(len(labels))
    train, test = order[:1436], order[1436:]
    return (images[train], labels[train]), (images[test], labels[test])


def accuracy(model, images, labels) -> float:
    model.eval()
    with paddle.no_grad():
        logits = model(paddle.to_tensor(images))
    model.train()
    return float((logits.numpy().argmax(axis=1) == labels).mean())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=64, help="the global batch, split across the ranks")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch_size % world:
        sys.exit(f"--batch-size {args.batch_size} must be a multiple of the {world} ranks")
    paddle.set_default_dtype("float64")
    paddle.seed(args.seed + rank)     # each rank draws its own weights; DataParallel broadcasts rank 0's
    (x_train, y_train), (x_test, y_test) = load(args.seed)

    net = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1D(128), nn.ReLU(), nn.Linear(128, 10))
    net = nn.SyncBatchNorm.convert_sync_batchnorm(net)   # statistics over the whole global batch
    model = paddle.DataParallel(net)
    opt = paddle.optimizer.Adam(learning_rate=2e-3, parameters=model.parameters())
    # Each rank reads batch_size / world of every global batch, in the same shuffled order.
    sampler = paddle.io.DistributedBatchSampler(range(len(y_train)), args.batch_size // world, shuffle=True)

    start = time.perf_counter()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for indices in sampler:
            loss = F.cross_entropy(model(paddle.to_tensor(x_train[indices])), paddle.to_tensor(y_train[indices]))
            loss.backward()
            opt.step()
            opt.clear_grad()
        if rank == 0:
            print(f"epoch {epoch + 1}  test accuracy {accuracy(model, x_test, y_test):.4f}", flush=True)
    test_acc = accuracy(model, x_test, y_test)
    if rank == 0:
        print(f"{world} rank(s): {time.perf_counter() - start:.1f} s")
        print(f"test accuracy {test_acc:.6f}", flush=True)
    if test_acc < 0.95:
        print("FAILED: expected at least 95% test accuracy", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
