"""PyTorch as an optional reference for the tests that compare against it.

``torch`` is the module, or None where PyTorch is not installed (CI installs
none: it is the benchmarks' extra), and ``needs_torch`` marks the tests that
use it, so that a module's other tests (loop references, finite differences,
errors) still run without it; a module-level ``importorskip`` would skip them
all.
"""
import pytest

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch, the reference this test compares against, "
                                                       "is not installed")
