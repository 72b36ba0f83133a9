"""``python -m eager.distributed.launch``: runs a training script on several ranks.

A thin wrapper over MPI's own launcher, for Paddle users who type
``python -m paddle.distributed.launch``::

    python -m eager.distributed.launch --nproc_per_node 4 train.py --epochs 3

runs ``mpiexec -n 4 <this python> train.py --epochs 3`` and exits with its
exit code. ``--ips host1,host2`` spreads ``--nproc_per_node`` ranks on each
host (MPICH's ``-hosts``/``-ppn`` or Open MPI's ``--host h:n``; the hosts need
the same Python environment and passwordless ssh, as MPI itself does). The
``mpiexec`` used is ``--mpiexec``, else the one beside this Python (the mpich
wheel installs it there), else the first on PATH. ``--devices 0,1`` (or
Paddle's other spelling ``--gpus``) starts one rank per listed GPU, unless
``--nproc_per_node`` says how many, and shows the ranks only those GPUs
(``CUDA_VISIBLE_DEVICES``), which they share out by local rank.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

from .env import find_mpiexec

_INSTALL_HINT = ("install MPI with `pip install eager-phi[distributed]` (mpi4py and the MPICH wheel, "
                 "which puts mpiexec beside python), or name one with --mpiexec")


def mpi_flavor(mpiexec: str) -> str:
    """"openmpi" or "mpich" (MPICH and its kin, whose hydra launcher takes -hosts/-ppn)."""
    try:
        banner = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "mpich"
    text = (banner.stdout + banner.stderr).lower()
    return "openmpi" if "open mpi" in text or "openrte" in text or "open-mpi" in text else "mpich"


def build_command(mpiexec: str, nproc_per_node: int, ips, script: str, script_args, flavor: str) -> list:
    """The mpiexec command line that runs ``script`` on every rank with this Python."""
    hosts = [host.strip() for host in ips.split(",") if host.strip()] if ips else []
    command = [mpiexec, "-n", str(nproc_per_node * max(len(hosts), 1))]
    if hosts:
        if flavor == "openmpi":
            command += ["--host", ",".join(f"{host}:{nproc_per_node}" for host in hosts)]
        else:
            command += ["-hosts", ",".join(hosts), "-ppn", str(nproc_per_node)]
    return [*command, sys.executable, "-u", script, *script_args]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m eager.distributed.launch",
        description="Run a training script on several ranks with MPI (mpiexec). Each rank runs "
                    "the script; eager.distributed.init_parallel_env() joins them.")
    parser.add_argument("--nproc_per_node", type=int, default=None,
                        help="ranks to start on each host (default: one per --devices id, else 1)")
    parser.add_argument("--devices", "--gpus", dest="devices", default=None,
                        help="comma-separated GPU ids the ranks share out, e.g. 0,1 (one rank per id "
                             "unless --nproc_per_node is given)")
    parser.add_argument("--ips", default=None,
                        help="comma-separated hosts to run on (default: this machine only)")
    parser.add_argument("--mpiexec", default=None,
                        help="the mpiexec to use (default: the one beside this python, else on PATH)")
    parser.add_argument("training_script", help="the script each rank runs")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER,
                        help="arguments passed on to the script")
    return parser


def main(argv=None) -> int:
    """Parses ``argv`` (``sys.argv[1:]`` when None), runs mpiexec, returns its exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    devices = None
    if args.devices is not None:
        devices = [part.strip() for part in args.devices.split(",")]
        if not all(part.isdigit() for part in devices):
            parser.error(f"--devices expected comma-separated GPU ids such as 0,1, got {args.devices!r}")
    if args.nproc_per_node is None:
        args.nproc_per_node = len(devices) if devices else 1
    if args.nproc_per_node < 1:
        parser.error(f"--nproc_per_node expected a positive number of ranks, got {args.nproc_per_node}")
    if not Path(args.training_script).is_file():
        parser.error(f"training script {args.training_script!r} is not a file")
    mpiexec = args.mpiexec or find_mpiexec()
    if mpiexec is None or (args.mpiexec and shutil.which(mpiexec) is None):
        where = f"--mpiexec {args.mpiexec!r} is not an executable" if args.mpiexec else \
            f"no mpiexec beside {sys.executable} nor on PATH"
        parser.error(f"{where}; {_INSTALL_HINT}")
    flavor = mpi_flavor(mpiexec) if args.ips else "mpich"
    command = build_command(mpiexec, args.nproc_per_node, args.ips, args.training_script,
                            args.training_script_args, flavor)
    environment = None
    if devices is not None:
        environment = dict(os.environ, CUDA_VISIBLE_DEVICES=",".join(devices))
    try:
        code = subprocess.call(command, env=environment)
    except KeyboardInterrupt:  # mpiexec got the same Ctrl-C and stops its ranks
        code = 130
    return 128 - code if code < 0 else code  # killed by a signal: the shell's 128 + signal


def launch() -> None:
    """Runs the command line in ``sys.argv`` as ``python -m eager.distributed.launch``
    does, then exits with its exit code (Paddle's ``paddle.distributed.launch()``).
    The module itself can be called the same way: ``eager.distributed.launch()``."""
    sys.exit(main())


class _CallableModule(types.ModuleType):
    """``eager.distributed.launch`` is this module, callable as Paddle's
    ``paddle.distributed.launch`` function is."""

    def __call__(self) -> None:
        launch()


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    sys.exit(main())
