"""Suite-wide settings and fixtures.

Every test runs with ``phi.api.FLAGS.check_infer_meta`` on, so each kernel call
also checks that the kernel's result has the shape and dtype its InferMeta
predicted: a disagreement between the two is a bug in one of them, and the
op tests would otherwise only notice it when the values happen to differ.
"""
from __future__ import annotations

import numpy as np
import pytest

import phi.api


@pytest.fixture(autouse=True, scope="session")
def check_infer_meta():
    previous = phi.api.FLAGS.check_infer_meta
    phi.api.FLAGS.check_infer_meta = True
    yield
    phi.api.FLAGS.check_infer_meta = previous


@pytest.fixture
def rng():
    """A NumPy generator with a fixed seed, so a failure reproduces."""
    return np.random.default_rng(20240611)
