"""Fresh interpreters for the tests that check a program's first import, sharing one
bytecode cache.

Such a test starts one interpreter per module or program, and each spends its time
importing eager. Where bytecode is not written (``PYTHONDONTWRITEBYTECODE``, set on
the CI machine) and the checkout has no ``__pycache__``, every one of them compiled
all of eager and phi again (1.4 MB of generated phi API alone: half a second), about
three times the import itself. Here they share a bytecode cache of their own
(``PYTHONPYCACHEPREFIX``, a temporary directory of this test process, removed at its
exit; nothing is written into the source tree): the first interpreter compiles, the
others load what it wrote. Bytecode does not change what an import statement runs
or in which order, so a first import checked this way is the program's first import.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_cache = None  # the TemporaryDirectory, made at the first call (it removes itself at exit)
_warm = False
_lock = threading.Lock()  # the tests start interpreters from several threads


def environment() -> dict:
    """os.environ for a child interpreter: bytecode written to and read from this
    process's cache directory."""
    global _cache
    with _lock:
        if _cache is None:
            _cache = tempfile.TemporaryDirectory(prefix="eager-pycache-")
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = _cache.name
    return env


def run(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -c code`` in a fresh interpreter at the repository root (text output captured)."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=environment())


def start(code: str) -> subprocess.Popen:
    """``python -c code`` started in a fresh interpreter at the repository root, stdout and
    stderr together in one text pipe."""
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=environment())


def warm_cache() -> None:
    """Fills the cache with what ``import eager`` and its whole API load, once per test
    process, so that interpreters started together afterwards do not each compile it."""
    global _warm
    if not _warm:
        result = run("import eager.api", timeout=300)
        assert result.returncode == 0, result.stderr
        _warm = True
