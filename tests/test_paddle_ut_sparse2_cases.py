"""Regression cases from a second pass over Paddle's sparse unit tests.

Paddle's test/legacy_test/test_sparse_*_op.py files were re-told with eager a
second time, deeper than the first pass (tests/test_paddle_ut_sparse_cases.py):
every unary, binary, matmul-family and shape op with COO and CSR inputs, 2-d and
batched 3-d CSR, float32/float64 and integer values, gradients against the dense
op's gradient masked to the pattern, and the sparse nn layers. The reference is
eager's dense op on the same values; Paddle 2.6.2 was run (each call in a forked
child) to learn result kinds and shapes where its CPU kernels run. Found:

- ``sparse.sum`` of a CSR x over every axis gave a COO ``[1]`` (``[1, 1]`` with
  keepdim), though a CSR input gives CSR wherever the result can be one; Paddle
  2.6.2 gives a CSR ``[1, 1]`` (``[1] * ndim`` with keepdim) (eager/sparse/manipulation.py);
- ``sparse.nn.functional.relu`` (and the dense relu under it) kept a nan value;
  Paddle's relu is ``x > 0 ? x : 0``, so nan gives 0, dense and sparse (phi/kernels/activation.py);
- ``sparse.nn.SyncBatchNorm`` dropped its data_format (and convert_sync_batchnorm the converted
  BatchNorm's), so its repr left out Paddle's ``data_format=NDHWC`` (eager/sparse/nn/norm.py).
"""
import numpy as np
import pytest

import eager
from eager import sparse as S

pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize("shape", [[2, 3], [3, 2, 3]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_csr_sum_over_every_axis_stays_csr(shape, keepdim):
    rng = np.random.default_rng(0)
    d = rng.random(shape) * (rng.random(shape) < 0.6)
    x = eager.to_tensor(d, stop_gradient=False).to_sparse_csr()
    out = S.sum(x, keepdim=keepdim)
    # from Paddle 2.6.2: a CSR result, [1, 1] without keepdim, [1] * ndim with it
    assert out.is_sparse_csr()
    assert out.shape == ([1] * len(shape) if keepdim else [1, 1])
    np.testing.assert_allclose(out.to_dense().numpy().ravel(), [d.sum()], rtol=1e-12)
    out.backward()
    np.testing.assert_array_equal(x.grad.to_dense().numpy(), (d != 0).astype(float))


@pytest.mark.parametrize("fmt", ["dense", "coo", "csr"])
def test_relu_of_nan_is_zero(fmt):
    a = np.array([[np.nan, 1.0, 0.0], [-2.0, 0.0, np.inf]])
    x = eager.to_tensor(a)
    if fmt == "dense":
        x.stop_gradient = False
        out = eager.nn.functional.relu(x)
    else:
        x = x.to_sparse_coo(2) if fmt == "coo" else x.to_sparse_csr()
        x.stop_gradient = False
        out = S.nn.functional.relu(x)
    dense_out = out if fmt == "dense" else out.to_dense()
    # from Paddle 2.6.2 (dense and sparse relu alike): x > 0 ? x : 0
    np.testing.assert_array_equal(dense_out.numpy(), [[0.0, 1.0, 0.0], [0.0, 0.0, np.inf]])
    out.sum().backward() if fmt == "dense" else out.backward()
    grad = x.grad.numpy() if fmt == "dense" else x.grad.to_dense().numpy()
    np.testing.assert_array_equal(grad, [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def test_sparse_sync_batch_norm_keeps_its_data_format():
    nn = S.nn
    # from Paddle 2.6.2: the format shown unless it is the default NCHW
    assert repr(nn.SyncBatchNorm(5)) == "SyncBatchNorm(num_features=5, momentum=0.9, epsilon=1e-05)"
    assert repr(nn.SyncBatchNorm(5, data_format="NDHWC")).endswith("epsilon=1e-05, data_format=NDHWC)")
    net = eager.nn.Sequential(nn.Conv3D(3, 5, 3), nn.BatchNorm(5), nn.BatchNorm(5, data_format="NHWC"))
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert repr(converted[1]).endswith("data_format=NDHWC)") and repr(converted[2]).endswith("data_format=NHWC)")
