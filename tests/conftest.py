"""Suite-wide settings and fixtures.

Every test runs with ``phi.api.FLAGS.check_infer_meta`` on, so each kernel call
also checks that the kernel's result has the shape and dtype its InferMeta
predicted: a disagreement between the two is a bug in one of them, and the
op tests would otherwise only notice it when the values happen to differ.

The device axis (as Chainer's backend axis): a test module that opts in with
``pytestmark = pytest.mark.usefixtures("device")`` runs each test twice, on
the CPU and with the GPU as the default place (``eager.set_device("gpu")``),
so ``to_tensor`` and every creation op put tensors on the GPU and ``.numpy()``
copies them back. The GPU is real CuPy when it is importable and sees a
device (``REAL_GPU``); otherwise tests/fake_cupy.py stands in for it, for the
whole session, as ``sys.modules["cupy"]``.
"""
from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

import eager
import eager.distributed as dist
import phi.api
from eager.distributed import env


def _real_gpu() -> bool:
    try:
        cupy = importlib.import_module("cupy")
        return bool(cupy.cuda.is_available()) and cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, or CuPy without a driver or device
        return False


REAL_GPU = _real_gpu()
FAKE_GPU_REASON = "real CuPy/GPU not available; the gpu axis ran on tests/fake_cupy.py"
if not REAL_GPU:
    import fake_cupy

    sys.modules["cupy"] = fake_cupy
    sys.modules["cupyx"] = fake_cupy.cupyx
    fake_cupy.install_backends(sys.modules)


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


@pytest.fixture(params=["cpu", "gpu"])
def device(request):
    """The device axis: 'cpu' or 'gpu', made the default place for the test
    (the CPU is restored afterwards)."""
    eager.set_device(request.param)
    try:
        yield request.param
    finally:
        eager.set_device("cpu")


@pytest.fixture
def lone():
    """A world of one without MPI, whatever this process had set up (the
    distributed tests' in-process world, where every collective is an identity)."""
    saved = env._import_mpi
    dist.destroy_process_group()
    env._import_mpi = lambda: None
    try:
        yield
    finally:
        env._import_mpi = saved
        dist.destroy_process_group()
