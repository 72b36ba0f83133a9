"""Putting tensors, layers and random draws on the GPU, and moving them back.

These run on real CuPy when conftest found a GPU, else on tests/fake_cupy.py;
``test_real_gpu_smoke`` runs only on a real GPU (skipped, with the reason, otherwise).
"""
from __future__ import annotations

import numpy as np
import pytest

import eager
from eager import framework
from phi import api as phi_api
from phi.common import CPUPlace, GPUPlace
from phi.core import DenseTensor

from conftest import FAKE_GPU_REASON, REAL_GPU


@pytest.mark.skipif(not REAL_GPU, reason=FAKE_GPU_REASON)
def test_real_gpu_smoke():
    import cupy

    eager.set_device("gpu")
    try:
        net = eager.nn.Sequential(eager.nn.Linear(4, 8), eager.nn.ReLU(), eager.nn.Linear(8, 1))
        opt = eager.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
        x = eager.randn([16, 4])
        loss = eager.nn.functional.mse_loss(net(x), eager.zeros([16, 1]))
        loss.backward()
        opt.step()
        assert type(net[0].weight.impl.array) is cupy.ndarray and net[0].weight.place == GPUPlace(0)
        assert np.isfinite(loss.item())
    finally:
        eager.set_device("cpu")


def test_cuda_cpu_and_to_move_values_and_keep_stop_gradient():
    x = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    g = x.cuda()
    assert g.place == GPUPlace(0) and g.place.is_gpu_place() and not g.place.is_cpu_place()
    assert g.stop_gradient is False and g.is_leaf
    np.testing.assert_array_equal(g.numpy(), x.numpy())
    assert g.cuda() is g and x.cpu() is x and g.to("gpu:0") is g   # already there: no copy
    back = g.cpu()
    assert back.place == CPUPlace() and back is not x
    np.testing.assert_array_equal(back.numpy(), x.numpy())


def test_to_takes_a_device_a_dtype_both_or_a_tensor():
    x = eager.to_tensor([1, 2, 3])
    assert x.to("float64").dtype == eager.float64 and x.to("float64").place == CPUPlace()
    y = x.to("gpu", "float32")
    assert y.place == GPUPlace(0) and y.dtype == eager.float32
    assert x.to(y).place == GPUPlace(0) and x.to(y).dtype == eager.float32
    z = x.to(device="gpu:0", dtype="int32", blocking=False)
    assert z.place == GPUPlace(0) and z.dtype == eager.int32
    np.testing.assert_array_equal(z.numpy(), [1, 2, 3])


def test_private_to_takes_device_dtype_and_blocking_in_paddles_order():
    # Paddle's AMP guide calls the private Tensor._to(place) that Tensor.to wraps.
    x = eager.to_tensor([1, 2, 3])
    g = x._to(eager.CUDAPlace(0))
    assert g.place == GPUPlace(0) and g.dtype == eager.int64 and x.place == CPUPlace()
    y = x._to(None, "float32")
    assert y.place == CPUPlace() and y.dtype == eager.float32
    z = x._to("gpu:0", "float64", False)
    assert z.place == GPUPlace(0) and z.dtype == eager.float64
    np.testing.assert_array_equal(z.numpy(), [1.0, 2.0, 3.0])
    assert x._to() is x
    with pytest.raises(TypeError, match="to: argument 'blocking' expected a bool"):
        x._to("cpu", None, "yes")


def test_a_device_copy_is_a_leaf_and_a_cast_is_recorded():
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    (x.to("float64") * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    g = x.cuda()
    (g * 2).sum().backward()
    np.testing.assert_allclose(g.grad.numpy(), [2.0, 2.0])
    assert g.grad.place == GPUPlace(0)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.to("tpu"), ValueError, "to: argument 'tpu' is neither a device"),
    (lambda x: x.to("gpu:7"), ValueError, "to: device 'gpu:7' does not exist"),
    (lambda x: x.to(blocking="yes"), TypeError, "to: argument 'blocking' expected a bool"),
    (lambda x: x.to(place="gpu"), TypeError, "to: unexpected keyword argument"),
    (lambda x: x.cuda(-1), ValueError, "cuda: argument 'device_id' expected None or a non-negative int"),
    (lambda x: x.cuda(3), ValueError, "cuda: device Place\\(gpu:3\\) does not exist"),
])
def test_bad_moves_name_the_method_and_argument(call, error, message):
    with pytest.raises(error, match=message):
        call(eager.to_tensor([1.0]))


def test_cuda_without_a_gpu_says_so(monkeypatch):
    monkeypatch.setattr(framework, "gpu_count", lambda: 0)
    with pytest.raises(ValueError, match="cuda: device .* is a GPU, but no GPU is available"):
        eager.to_tensor([1.0]).cuda()


def test_copy_to_always_makes_a_new_buffer():
    host = DenseTensor(np.arange(3.0))
    same = phi_api.copy_to(host, "cpu")
    assert same.array is not host.array and same.place == CPUPlace()
    device = phi_api.copy_to(host, GPUPlace(0))
    assert device.place == GPUPlace(0)
    again = phi_api.copy_to(device, "gpu:0")
    assert again.array is not device.array
    np.testing.assert_array_equal(phi_api.copy_to(again, "cpu").array, [0.0, 1.0, 2.0])


def test_default_device_reaches_creation_and_random_ops(device):
    place = GPUPlace(0) if device == "gpu" else CPUPlace()
    for tensor in (eager.to_tensor([1.0]), eager.zeros([2]), eager.full([2], 3.0), eager.arange(3),
                   eager.rand([2]), eager.randn([2]), eager.randint(0, 5, [3]), eager.randperm(4),
                   eager.eye(2), eager.linspace(0, 1, 3)):
        assert tensor.place == place


def test_each_place_has_its_own_generator_seeded_by_eager_seed():
    eager.seed(11)
    gpu_first = eager.rand([5], ).cuda()  # a CPU draw moved: the CPU stream
    eager.seed(11)
    eager.set_device("gpu")
    try:
        on_gpu = eager.rand([5])
        eager.seed(11)
        again = eager.rand([5])
        assert on_gpu.place == GPUPlace(0)
        np.testing.assert_array_equal(on_gpu.numpy(), again.numpy())         # reproducible
        assert not np.array_equal(on_gpu.numpy(), gpu_first.numpy())        # its own stream
        state = eager.get_rng_state()
        a = eager.randn([3]).numpy()
        eager.set_rng_state(state)
        np.testing.assert_array_equal(eager.randn([3]).numpy(), a)
    finally:
        eager.set_device("cpu")


def test_random_draws_on_the_gpu_have_the_right_distribution():
    eager.seed(3)
    eager.set_device("gpu")
    try:
        u = eager.uniform([20000], min=-1.0, max=3.0).numpy()
        n = eager.normal(2.0, 0.5, [20000]).numpy()
        perm = eager.randperm(50).numpy()
        bern = eager.bernoulli(eager.full([20000], 0.25)).numpy()
    finally:
        eager.set_device("cpu")
    assert -1.0 <= u.min() and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.05
    assert abs(n.mean() - 2.0) < 0.02 and abs(n.std() - 0.5) < 0.02
    assert sorted(perm.tolist()) == list(range(50))
    assert abs(bern.mean() - 0.25) < 0.02


def test_layer_to_moves_parameters_and_an_optimizer_trains_there():
    eager.seed(0)
    net = eager.nn.Linear(3, 2)
    weight = net.weight
    assert net.to("gpu") is net and net.weight is weight and weight.place == GPUPlace(0)
    opt = eager.optimizer.Momentum(learning_rate=0.1, parameters=net.parameters())
    x = eager.to_tensor(np.ones((4, 3), np.float32)).cuda()
    before = weight.numpy().copy()
    net(x).sum().backward()
    opt.step()
    assert weight.grad.place == GPUPlace(0)
    np.testing.assert_allclose(weight.numpy(), before - 0.1 * 4.0, rtol=1e-6)
    net.to("cpu")
    assert weight.place == CPUPlace() and weight.grad.place == CPUPlace()


def test_mixing_places_in_one_op_names_the_op_and_both_places():
    cpu = eager.to_tensor([1.0, 2.0])
    gpu = cpu.cuda()
    with pytest.raises(ValueError, match=r"add: argument 'y' is on Place\(cpu\) but argument 'x' is on "
                                         r"Place\(gpu:0\); an op's tensor inputs must share a place"):
        eager.add(gpu, cpu)
    with pytest.raises(ValueError, match=r"matmul: argument 'x' is on Place\(cpu\) but argument 'y' is on "
                                         r"Place\(gpu:0\)"):
        eager.matmul(cpu, gpu)
    with pytest.raises(ValueError, match=r"concat: argument 'x\[2\]' is on Place\(cpu\) but argument 'x\[0\]'"):
        eager.concat([gpu, gpu, cpu])
    with pytest.raises(ValueError, match=r"where: argument 'y' is on Place\(cpu\)"):
        eager.where(gpu > 1, gpu, cpu)


def test_a_cpu_scalar_tensor_may_join_gpu_tensors():
    gpu = eager.to_tensor([1.0, 2.0], stop_gradient=False).cuda()
    two = eager.to_tensor(2.0)
    for out in (gpu * two, two * gpu, eager.maximum(two, gpu)):
        assert out.place == GPUPlace(0)
    (gpu * two).sum().backward()
    np.testing.assert_array_equal(gpu.grad.numpy(), [2.0, 2.0])


@pytest.mark.skipif(REAL_GPU, reason="counts transfers with tests/fake_cupy.py's counters")
@pytest.mark.parametrize("make_opt", [
    lambda ps: eager.optimizer.SGD(0.01, parameters=ps),
    lambda ps: eager.optimizer.Momentum(0.01, parameters=ps),
    lambda ps: eager.optimizer.AdamW(0.01, parameters=ps, grad_clip=eager.nn.ClipGradByGlobalNorm(1.0)),
])
def test_a_training_step_on_the_gpu_moves_nothing_between_host_and_device(make_opt):
    import fake_cupy

    eager.set_device("gpu")
    try:
        net = eager.nn.Sequential(eager.nn.Linear(8, 16), eager.nn.ReLU(), eager.nn.Linear(16, 4))
        opt = make_opt(net.parameters())
        x, y = eager.randn([32, 8]), eager.randint(0, 4, [32])
        for step in range(2):  # the second step: accumulators and caches exist
            down, up = fake_cupy.transfers[0], fake_cupy.uploads[0]
            loss = eager.nn.functional.cross_entropy(net(x) * 0.5 + 1.0, y)
            loss.backward()
            opt.step()
            opt.clear_grad()
        assert (fake_cupy.transfers[0] - down, fake_cupy.uploads[0] - up) == (0, 0)
    finally:
        eager.set_device("cpu")


def test_gpu_kernels_check_values_only_in_anomaly_mode():
    from phi.backends import CPU_CONTEXT, get_gpu_context

    gpu = get_gpu_context()
    assert CPU_CONTEXT.check_values and not gpu.check_values
    with eager.autograd.detect_anomaly():
        assert gpu.check_values
    assert not gpu.check_values


@pytest.mark.skipif(REAL_GPU, reason="counts transfers with tests/fake_cupy.py's counters")
@pytest.mark.parametrize("name, call, want", [
    # bincount's length is its largest value: one read of (min, max), which also checks for negatives
    ("bincount", lambda: eager.bincount(eager.to_tensor([0, 2, 2, 5], place="gpu")), [1, 0, 2, 0, 0, 1]),
    ("bincount_weighted", lambda: eager.bincount(eager.to_tensor([1, 1, 3], place="gpu"),
                                                 eager.to_tensor([0.5, 0.25, 2.0], place="gpu")),
     [0.0, 0.75, 0.0, 2.0]),
    # masked_select's result is as long as the mask has True values
    ("masked_select", lambda: eager.masked_select(eager.to_tensor([1.0, 2.0, 3.0], place="gpu"),
                                                  eager.to_tensor([True, False, True], place="gpu")),
     [1.0, 3.0]),
])
def test_ops_whose_result_needs_a_device_value_read_exactly_once(name, call, want):
    import fake_cupy

    call()  # caches
    down = fake_cupy.transfers[0]
    out = call()
    assert fake_cupy.transfers[0] - down == 1, f"{name}: {fake_cupy.transfers[0] - down} device reads"
    assert out.place == GPUPlace(0)
    np.testing.assert_array_equal(out.numpy(), want)


def test_bincount_on_the_gpu_checks_for_negative_values_with_the_read_it_makes():
    with pytest.raises(ValueError, match="bincount: argument 'x' expected non-negative values, got -2"):
        eager.bincount(eager.to_tensor([3, -2, 1], place="gpu"))
    empty = eager.bincount(eager.to_tensor(np.zeros(0, np.int64), place="gpu"), minlength=3)
    np.testing.assert_array_equal(empty.numpy(), [0, 0, 0])
    ints = eager.bincount(eager.to_tensor([0, 0, 2], place="gpu"), eager.to_tensor([2**40, 3, 5], place="gpu"))
    assert ints.dtype == eager.float64  # Paddle 2.6.2: integer weights give float64
    np.testing.assert_array_equal(ints.numpy(), [2**40 + 3, 0, 5])   # summed exactly in int64
