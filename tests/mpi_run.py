"""Running a script on several MPI ranks from a test: ``mpiexec -n N python script``.

Every distributed test goes through :func:`run_ranks`, so each runs under a
timeout (a hang fails the test instead of stalling CI) and skips, with the
reason shown, where mpi4py or ``mpiexec`` is missing.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def mpiexec() -> str | None:
    """The ``mpiexec`` next to this Python (the mpich wheel puts it there), else on PATH."""
    beside = Path(sys.executable).parent / "mpiexec"
    if beside.exists():
        return str(beside)
    return shutil.which("mpiexec")


def require_mpi() -> str:
    """``mpiexec``'s path, or skip the calling test with the reason."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        pytest.skip("mpi4py is not installed (pip install -e '.[distributed]')")
    path = mpiexec()
    if path is None:
        pytest.skip("no mpiexec found (pip install mpich)")
    return path


def run_ranks(n: int, source: str, tmp_path, timeout: float = 120, args=(), check: bool = True):
    """Runs ``source`` (dedented Python) on ``n`` ranks; returns the CompletedProcess
    (stdout/stderr text). Fails the test if it takes longer than ``timeout`` s,
    or (``check``) if it exits non-zero, showing what the ranks printed."""
    launcher = require_mpi()
    script = Path(tmp_path) / "rank_script.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    command = [launcher, "-n", str(n), sys.executable, str(script), *map(str, args)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                                cwd=str(tmp_path))
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{n} ranks did not finish within {timeout} s\nstdout:\n{error.stdout}\n"
                    f"stderr:\n{error.stderr}")
    if check and result.returncode != 0:
        pytest.fail(f"{n} ranks exited with {result.returncode}\nstdout:\n{result.stdout}\n"
                    f"stderr:\n{result.stderr}")
    return result
