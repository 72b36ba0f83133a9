"""The cost of a DataParallel step: 2 ranks against one process at half the batch.

    mpiexec -n 2 python benchmarks/data_parallel.py [--batch 128] [--repeat 30]

The network is B3's 784-256-256-10 ReLU MLP (float32, mean-square loss, SGD).
Each rank does one step (forward, backward, update, clear_grad) on its half of
a global batch of ``--batch``; the baseline is the same step of the plain
network on that half-batch, measured on both ranks at once (so each process
has the same share of the machine), then the DataParallel step, whose extra
cost is averaging the gradients (1.03 MB) during backward. A third line
times ``Allreduce`` of that many floats with mpi4py alone. Rank 0 prints the
min and median of ``--repeat`` steps. BLAS is pinned to one thread.
"""
from __future__ import annotations

import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import eager  # noqa: E402
import eager.distributed as dist  # noqa: E402
from eager import nn  # noqa: E402
from eager.distributed.env import world_comm  # noqa: E402


def mlp():
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))


def timed(step, repeat: int, comm) -> list:
    """Seconds per call of step(), after two warm-up calls; ranks start each call together."""
    for _ in range(2):
        step()
    times = []
    for _ in range(repeat):
        comm.Barrier()
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return times


def sgd_step(network, optimizer, x, y):
    def step():
        loss = ((network(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
    return step


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=128, help="the global batch; each rank takes half")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    dist.init_parallel_env()
    comm, rank, world = world_comm(), dist.get_rank(), dist.get_world_size()
    if world != 2:
        sys.exit("run it on two ranks: mpiexec -n 2 python benchmarks/data_parallel.py")
    half = args.batch // 2
    rng = np.random.default_rng(rank)
    x = eager.to_tensor(rng.standard_normal((half, 784)).astype("float32"))
    y = eager.to_tensor(rng.standard_normal((half, 10)).astype("float32"))

    eager.seed(0)
    plain = mlp()
    alone = timed(sgd_step(plain, eager.optimizer.SGD(0.01, parameters=plain.parameters()), x, y),
                  args.repeat, comm)
    model = eager.DataParallel(mlp())
    parallel = timed(sgd_step(model, eager.optimizer.SGD(0.01, parameters=model.parameters()), x, y),
                     args.repeat, comm)
    from mpi4py import MPI
    grads = np.ones(sum(int(np.prod(p.shape)) for p in model.parameters()), np.float32)
    reduce_only = timed(lambda: comm.Allreduce(MPI.IN_PLACE, grads, op=MPI.SUM), args.repeat, comm)

    if rank == 0:
        print(f"784-256-256-10 MLP, float32, global batch {args.batch} ({half} per rank), "
              f"{grads.size:,} parameters ({grads.nbytes / 2**20:.2f} MB of gradients)")
        rows = [("one process, batch %d" % half, alone), ("DataParallel, 2 ranks x %d" % half, parallel),
                ("mpi4py Allreduce of the gradients", reduce_only)]
        for name, times in rows:
            print(f"  {name:<36} min {min(times) * 1e3:7.2f} ms   median {np.median(times) * 1e3:7.2f} ms")
        print(f"  DataParallel / one process (min): {min(parallel) / min(alone):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
