"""Regression cases from the eager.amp / eager.sparse differential sweep.

Each test pins a discrepancy the sweep found against Paddle 2.6's rules (and
PyTorch where the two agree): GradScaler's scale schedule (no floor at 1.0),
a fixed-scale scaler stepping without update(), a disabled scaler loading a
state dict, the bfloat16 auto_cast lists, and dense -> COO conversion of a
tensor with a zero-length sparse axis. References are hand loops in float64.
"""
import numpy as np
import pytest

import eager
from eager import amp
from eager.amp import amp_lists
from eager.autograd import gradcheck
from torch_reference import needs_torch, torch


def _paddle_schedule(init, incr, decr, incr_every, decr_every, bad_steps):
    """The loss scale after each step under Paddle 2.6's dygraph rule, written out."""
    scale, good_run, bad_run, out = init, 0, 0, []
    for bad in bad_steps:
        if bad:
            good_run, bad_run = 0, bad_run + 1
            if bad_run == decr_every:
                scale, bad_run = scale * decr, 0
        else:
            bad_run, good_run = 0, good_run + 1
            if good_run == incr_every:
                scale, good_run = scale * incr, 0
        out.append(scale)
    return out


def _train(scaler, bad_steps, *, update=True):
    """One float32 weight trained by SGD through ``scaler``; returns the weight after each step."""
    w = eager.create_parameter([2], "float32")
    w.set_value(np.array([1.0, -2.0], dtype="float32"))
    opt = eager.optimizer.SGD(0.25, parameters=[w])
    weights, scales = [], []
    for bad in bad_steps:
        data = np.array([np.inf if bad else 1.0, 3.0], dtype="float32")
        loss = (w * eager.to_tensor(data)).sum()
        scaler.scale(loss).backward()
        scaler.step(opt)
        if update:
            scaler.update()
        opt.clear_grad()
        weights.append(w.numpy().astype(np.float64))
        scales.append(scaler._scale)
    return weights, scales


def test_loss_scale_goes_below_one_as_in_paddle():
    bad_steps = [True, True, False, True, True, True, False, False, False]
    scaler = amp.GradScaler(init_loss_scaling=2.0, incr_ratio=3.0, decr_ratio=0.5, incr_every_n_steps=3,
                            decr_every_n_nan_or_inf=1)
    _, scales = _train(scaler, bad_steps)
    assert scales == _paddle_schedule(2.0, 3.0, 0.5, 3, 1, bad_steps)
    assert min(scales) == 2.0 * 0.5 ** 5  # was held at 1.0
    state = scaler.state_dict()
    assert (state["incr_count"], state["decr_count"]) == (0, 0)


def test_loss_scale_schedule_with_counts_above_one():
    rng = np.random.default_rng(7)
    bad_steps = list(rng.random(40) < 0.4)
    scaler = amp.GradScaler(init_loss_scaling=4.0, incr_ratio=2.0, decr_ratio=0.25, incr_every_n_steps=2,
                            decr_every_n_nan_or_inf=2)
    _, scales = _train(scaler, bad_steps)
    assert scales == _paddle_schedule(4.0, 2.0, 0.25, 2, 2, bad_steps)


def test_loss_scale_never_underflows_to_zero():
    scaler = amp.GradScaler(init_loss_scaling=1.0, decr_ratio=1e-200, decr_every_n_nan_or_inf=1)
    _, scales = _train(scaler, [True] * 4)
    assert scales[0] == 1e-200 and scales[-1] == scales[1] > 0.0


def test_fixed_scale_steps_without_update():
    # Paddle: with use_dynamic_loss_scaling=False, step() alone starts the next round
    bad_steps = [False, True, False, False]
    scaler = amp.GradScaler(init_loss_scaling=8.0, use_dynamic_loss_scaling=False)
    weights, scales = _train(scaler, bad_steps, update=False)
    assert scales == [8.0] * 4
    w, expected = np.array([1.0, -2.0]), []
    for bad in bad_steps:
        if not bad:
            w = w - 0.25 * np.array([1.0, 3.0])  # the unscaled gradient
        expected.append(w.copy())
    np.testing.assert_allclose(weights, expected)


def test_dynamic_scale_step_twice_without_update_is_refused():
    scaler = amp.GradScaler(init_loss_scaling=8.0)
    w = eager.create_parameter([1], "float32")
    opt = eager.optimizer.SGD(0.1, parameters=[w])
    scaler.scale(w.sum()).backward()
    scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"GradScaler.step: step\(\) was already called"):
        scaler.step(opt)


def test_disabled_scaler_ignores_load_state_dict():
    off = amp.GradScaler(enable=False)
    off.load_state_dict({})  # what a disabled scaler saved
    full = amp.GradScaler(init_loss_scaling=16.0).state_dict()
    off.load_state_dict(full)
    assert off.state_dict() == {} and off.is_enable() is False
    with pytest.raises(TypeError, match="GradScaler.load_state_dict: argument 'state_dict' expected a dict"):
        off.load_state_dict([("scale", 1.0)])
    with pytest.raises(RuntimeError, match="GradScaler.load_state_dict: the state dict is empty"):
        amp.GradScaler().load_state_dict({})


def test_bfloat16_lists_are_paddle_26s_float16_lists():
    white, black = amp.white_list(), amp.black_list()
    for level in ("OD", "O1", "O2"):
        assert white["bfloat16"][level] == white["float16"][level]
        assert black["bfloat16"][level] == black["float16"][level]
    assert {"exp", "softmax", "mean", "sum", "log"} <= black["bfloat16"]["O1"]
    assert "max_pool2d_with_index" in amp_lists.BF16_WHITE_LIST


@pytest.mark.skipif(not amp.is_bfloat16_supported(), reason="bfloat16 needs ml_dtypes")
def test_bfloat16_auto_cast_runs_the_black_list_in_float32():
    x = eager.to_tensor(np.array([[0.5, -1.0], [2.0, 0.25]], dtype="float32")).astype("bfloat16")
    w = eager.to_tensor(np.eye(2, dtype="float32"))
    with amp.auto_cast(dtype="bfloat16"):
        y = eager.matmul(x, w)                 # white: bfloat16
        e = eager.exp(y)                       # black: float32
        s = eager.nn.functional.softmax(y)     # black: float32
        r = eager.nn.functional.relu(y)        # neither: follows its bfloat16 input
    assert y.dtype == eager.bfloat16 and r.dtype == eager.bfloat16
    assert e.dtype == eager.float32 and s.dtype == eager.float32
    yv = y.numpy().astype(np.float64)
    want = np.empty_like(yv)
    for i in range(2):  # softmax by hand, row by row
        row = [np.exp(v) for v in yv[i]]
        want[i] = [v / sum(row) for v in row]
    np.testing.assert_allclose(s.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(e.numpy(), np.exp(yv), rtol=1e-6)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("shape,sparse_dim", [([0, 3], 1), ([2, 0, 3], 2), ([0, 2, 2], 1), ([3, 0], 1)])
def test_to_sparse_coo_of_a_tensor_with_a_zero_length_axis(shape, sparse_dim):
    x = eager.zeros(shape, dtype="float64")
    y = x.to_sparse_coo(sparse_dim)
    assert y.shape == shape and y.nnz() == 0
    assert y.indices().shape == [sparse_dim, 0] and y.values().shape == [0] + shape[sparse_dim:]
    np.testing.assert_array_equal(y.to_dense().numpy(), np.zeros(shape))


@pytest.mark.usefixtures("device")
def test_to_sparse_coo_hybrid_values_and_gradient():
    rng = np.random.default_rng(3)
    dense = rng.standard_normal((3, 2, 2))
    dense[1] = 0.0
    y = eager.to_tensor(dense).to_sparse_coo(1)
    expected_rows = [i for i in range(3) if np.any(dense[i] != 0)]  # a block counts when any entry is nonzero
    assert y.indices().numpy().tolist() == [expected_rows]
    np.testing.assert_array_equal(y.values().numpy(), dense[expected_rows])
    # every block nonzero, so a finite-difference step keeps the pattern
    x = eager.to_tensor(rng.standard_normal((3, 2, 2)), stop_gradient=False)
    assert gradcheck(lambda t: t.to_sparse_coo(1).values() * 2.0, [x])


def _norm_net():
    return eager.nn.Sequential(eager.nn.Linear(2, 3), eager.nn.LayerNorm(3), eager.nn.BatchNorm1D(3),
                               eager.nn.InstanceNorm1D(3), eager.nn.GroupNorm(1, 3))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_decorate_o2_keeps_the_norms_paddle_26_keeps(dtype):
    if dtype == "bfloat16" and not amp.is_bfloat16_supported():
        pytest.skip("bfloat16 needs ml_dtypes")
    net = amp.decorate(_norm_net(), level="O2", dtype=dtype)
    low = getattr(eager, dtype)
    kept = {"float16": {1, 2, 3}, "bfloat16": {2}}[dtype]  # need_keep_fp32: batch norm always, layer/instance with float16
    for index, layer in enumerate(net):
        want = eager.float32 if index in kept else low
        assert all(p.dtype == want for p in layer.parameters()), (index, type(layer).__name__)
    assert net[2]._mean.dtype == eager.float32


def test_decorate_o1_ignores_save_dtype_and_master_weight():
    net = eager.nn.Linear(2, 2)
    opt = eager.optimizer.Adam(0.1, parameters=net.parameters())
    out_net, out_opt = amp.decorate(net, opt, level="O1", save_dtype="float16", master_weight=False)
    assert out_net is net and out_opt is opt
    assert all(v.dtype == eager.float32 for v in net.state_dict().values())  # O2 would give float16
    net2 = amp.decorate(eager.nn.Linear(2, 2), level="O2", save_dtype="float64")
    assert all(v.dtype == eager.float64 for v in net2.state_dict().values())
    with pytest.raises(ValueError, match="decorate: argument 'save_dtype' expected None"):
        amp.decorate(net, level="O1", save_dtype="int8")


def test_auto_cast_takes_level_and_dtype_in_any_case():
    a = eager.to_tensor(np.array([[1.0, 2.0], [3.0, 4.0]], dtype="float32"))
    with amp.auto_cast(level="o1", dtype="FLOAT16"):  # Paddle upper-cases the level, lower-cases the dtype
        y = eager.matmul(a, a)
        assert amp.amp_state().level == "O1"
    assert y.dtype == eager.float16
    np.testing.assert_array_equal(y.numpy(), np.array([[7.0, 10.0], [15.0, 22.0]]))
    with pytest.raises(ValueError, match="auto_cast: argument 'level' expected one of 'O0', 'OD', 'O1', 'O2', got 'o3'"):
        amp.auto_cast(level="o3")
    with pytest.raises(ValueError, match="decorate: argument 'level' expected 'O1'"):
        amp.decorate(eager.nn.Linear(2, 2), level="o2")  # Paddle's decorate compares as given


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("call", [
    lambda x, d: eager.sparse.matmul(x, d),
    lambda x, d: eager.sparse.matmul(x.to_sparse_csr(), d),
    lambda x, d: eager.sparse.mv(x, d[0]),
    lambda x, d: eager.sparse.addmm(d, x, d),
], ids=["matmul", "matmul_csr", "mv", "addmm"])
def test_integer_sparse_times_dense_is_a_type_error_naming_the_op(call):
    x = eager.sparse.sparse_coo_tensor([[0, 1], [1, 0]], np.array([1, 2]), [2, 2])
    d = eager.ones([2, 2], dtype="int64")
    with pytest.raises(TypeError, match=r"sparse\.(matmul|mv|addmm): argument 'x' expected a floating-point or "
                                        r"complex sparse tensor when the other operand is dense, got paddle.int64"):
        call(x, d)


@pytest.mark.usefixtures("device")
def test_float_sparse_times_dense_matches_a_hand_loop_and_gradcheck():
    rng = np.random.default_rng(5)
    idx = np.array([[0, 2, 1, 2], [1, 0, 2, 2]])
    vals, y = rng.standard_normal(4), rng.standard_normal((3, 2))
    want = np.zeros((3, 2))
    for k in range(4):  # out[i] += v * y[j]
        want[idx[0, k]] += vals[k] * y[idx[1, k]]
    v = eager.to_tensor(vals, stop_gradient=False)
    x = eager.sparse.sparse_coo_tensor(idx, v, [3, 3], stop_gradient=False)
    np.testing.assert_allclose(eager.sparse.matmul(x, eager.to_tensor(y)).numpy(), want, rtol=1e-12)
    yt = eager.to_tensor(y, stop_gradient=False)
    assert gradcheck(lambda a, b: eager.sparse.matmul(
        eager.sparse.sparse_coo_tensor(idx, a, [3, 3], stop_gradient=False), b), [v, yt])


@needs_torch
def test_scale_schedule_and_skipped_steps_match_torch_where_they_agree():
    # decr_every_n_nan_or_inf=1 is torch's rule; both shrink below 1.0 and skip the same steps
    bad_steps = [False, True, True, False, False, True, True, True, False, False, False]
    scaler = amp.GradScaler(init_loss_scaling=4.0, incr_ratio=2.0, decr_ratio=0.25, incr_every_n_steps=2)
    weights, scales = _train(scaler, bad_steps)
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = torch.optim.SGD([w], lr=0.25)
    ref = torch.amp.GradScaler("cpu", init_scale=4.0, growth_factor=2.0, backoff_factor=0.25, growth_interval=2)
    for index, bad in enumerate(bad_steps):
        data = torch.tensor([float("inf") if bad else 1.0, 3.0])
        ref.scale((w * data).sum()).backward()
        ref.step(opt)
        ref.update()
        opt.zero_grad()
        assert scales[index] == ref.get_scale()
        np.testing.assert_allclose(weights[index], w.detach().numpy())
