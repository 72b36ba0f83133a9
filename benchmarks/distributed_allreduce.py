"""All-reduce throughput: eager.distributed.all_reduce on a Tensor against mpi4py
called directly on a NumPy array (``comm.Allreduce(MPI.IN_PLACE, array)``),
for 1 MB and 25 MB float32 buffers (25 MB is DataParallel's default bucket).

    mpiexec -n 2 python benchmarks/distributed_allreduce.py [--rounds N] [--calls K]

The two are interleaved round by round (so both see the same machine load),
each round times K calls in a row, and the minimum over the rounds is
reported, on rank 0: time per call, bus bandwidth (2 (n-1)/n x bytes / time,
as NCCL's tests define it) and the ratio eager / mpi4py of the minima (target:
<= 1.1); on a loaded machine the median of the rounds' paired ratios is the
steadier figure, so it is printed too.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

# Runs from any directory without installing.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import eager  # noqa: E402
import eager.distributed as dist  # noqa: E402

SIZES = {"1 MB": 1 << 20, "25 MB": 25 << 20}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=100, help="timed rounds per size and contender")
    parser.add_argument("--calls", type=int, default=0, help="calls per round (default: by size)")
    args = parser.parse_args()

    dist.init_parallel_env()
    from mpi4py import MPI  # after init: eager started MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    if size < 2:
        sys.exit("run under mpiexec with 2 or more ranks: mpiexec -n 2 python benchmarks/distributed_allreduce.py")
    if rank == 0:
        print(f"all_reduce (SUM, float32) on {size} ranks, {MPI.Get_library_version().splitlines()[0].strip()}")
        print(f"{'size':>6}  {'mpi4py':>10}  {'eager':>10}  {'busbw eager':>12}  {'ratio':>6}  "
              f"{'median ratio':>12}")
    for label, nbytes in SIZES.items():
        count = nbytes // 4
        calls = args.calls or (5 if nbytes <= 1 << 20 else 2)
        array = np.ones(count, np.float32)
        tensor = eager.ones([count], dtype="float32")

        def with_mpi4py():
            for _ in range(calls):
                comm.Allreduce(MPI.IN_PLACE, array, op=MPI.SUM)

        def with_eager():
            for _ in range(calls):
                dist.all_reduce(tensor)

        best = {"mpi4py": float("inf"), "eager": float("inf")}
        ratios = []
        contenders = (("mpi4py", with_mpi4py), ("eager", with_eager))
        for contender, run in contenders:  # warm up both
            run()
        for round_ in range(args.rounds):
            order = contenders if round_ % 2 == 0 else contenders[::-1]
            times = {}
            for contender, run in order:
                comm.Barrier()
                start = time.perf_counter()
                run()
                elapsed = (time.perf_counter() - start) / calls
                # the slowest rank decides a collective's time
                elapsed = comm.allreduce(elapsed, op=MPI.MAX)
                best[contender] = min(best[contender], elapsed)
                times[contender] = elapsed
            ratios.append(times["eager"] / times["mpi4py"])
        if rank == 0:
            busbw = 2 * (size - 1) / size * nbytes / best["eager"] / 1e9
            print(f"{label:>6}  {best['mpi4py'] * 1e3:8.3f}ms  {best['eager'] * 1e3:8.3f}ms  "
                  f"{busbw:9.2f}GB/s  {best['eager'] / best['mpi4py']:6.3f}  {np.median(ratios):12.3f}")


if __name__ == "__main__":
    main()
