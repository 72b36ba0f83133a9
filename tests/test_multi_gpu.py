"""Two GPUs: tensors, layers, optimizers and random draws on gpu:1, and ops that
refuse to mix gpu:0 with gpu:1.

They run on tests/fake_cupy.py (two devices, and like CuPy it refuses an
operation on an array of a device that is not current, so a kernel that runs
on the wrong device fails here), or on real CuPy with at least two GPUs.
"""
from __future__ import annotations

import copy
import importlib

import numpy as np
import pytest

import eager
from phi.common import CPUPlace, GPUPlace

from conftest import REAL_GPU


def _gpu_count():
    try:
        return importlib.import_module("cupy").cuda.runtime.getDeviceCount()
    except Exception:  # no CuPy or no driver
        return 0


pytestmark = pytest.mark.skipif(_gpu_count() < 2, reason="needs two GPUs (the fake CuPy has two)")
GPU1 = GPUPlace(1)


@pytest.fixture
def on_gpu1():
    eager.set_device("gpu:1")
    try:
        yield GPU1
    finally:
        eager.set_device("cpu")


def _counters():
    fake = importlib.import_module("cupy")
    return fake.transfers[0], fake.uploads[0], fake.peer_copies[0]


def test_device_count_and_places_by_name():
    assert eager.device.cuda.device_count() == _gpu_count() >= 2
    assert eager.CUDAPlace(1) == GPU1 and str(eager.CUDAPlace(1)) == "Place(gpu:1)"
    assert eager.set_device("gpu:1") == GPU1 and eager.get_device() == "gpu:1"
    eager.set_device("cpu")
    with pytest.raises(ValueError, match=r"set_device: device 'gpu:5' does not exist: 2 GPU\(s\) visible"):
        eager.set_device("gpu:5")
    assert eager.get_device() == "cpu"   # unchanged by the failed call
    eager.device.cuda.synchronize(1)
    with pytest.raises(ValueError, match="synchronize: argument 'device' expected a GPU"):
        eager.device.cuda.synchronize("cpu")


def test_creation_and_random_ops_honour_the_default_device_and_place(on_gpu1):
    for tensor in (eager.to_tensor([1.0]), eager.zeros([2]), eager.full([2], 3.0), eager.arange(3),
                   eager.rand([2]), eager.randn([2]), eager.randint(0, 5, [3]), eager.randperm(4),
                   eager.eye(2), eager.linspace(0, 1, 3), eager.uniform([2]), eager.normal(0.0, 1.0, [2])):
        assert tensor.place == GPU1
    eager.set_device("cpu")
    for tensor in (eager.to_tensor([1.0], place="gpu:1"), eager.zeros([2]).cuda(1),
                   eager.full([2], 1.0).to("gpu:1"), eager.to_tensor([1.0], place=eager.CUDAPlace(1))):
        assert tensor.place == GPU1
    z = eager.to_tensor([1.0], place="gpu:0")
    assert z.place == GPUPlace(0)


def test_cuda_to_and_back_copy_values_across_devices():
    x = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    g0 = x.cuda(0)
    g1 = g0.cuda(1)
    assert g1.place == GPU1 and g1 is not g0 and g1.is_leaf and g1.stop_gradient is False
    assert g1.cuda(1) is g1 and g1.to("gpu:1") is g1 and g0.to(eager.CUDAPlace(1)).place == GPU1
    back = g1.to("gpu:0")
    assert back.place == GPUPlace(0)
    np.testing.assert_array_equal(back.numpy(), x.numpy())
    np.testing.assert_array_equal(g1.cpu().numpy(), x.numpy())
    assert g1.to(g0).place == GPUPlace(0)   # another tensor's place


def test_ops_and_their_gradients_on_gpu1_stay_there():
    x = eager.to_tensor(np.arange(6.0).reshape(2, 3), place="gpu:1", stop_gradient=False)
    w = eager.to_tensor(np.ones((3, 2)), place="gpu:1", stop_gradient=False)
    y = eager.nn.functional.softmax(eager.matmul(x, w) * 0.1, axis=-1)
    z = eager.concat([y, y ** 2], axis=0).sum()
    assert y.place == GPU1 and z.place == GPU1
    z.backward()
    assert x.grad.place == GPU1 and w.grad.place == GPU1
    # the same on the CPU
    xc = eager.to_tensor(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    wc = eager.to_tensor(np.ones((3, 2)), stop_gradient=False)
    yc = eager.nn.functional.softmax(eager.matmul(xc, wc) * 0.1, axis=-1)
    eager.concat([yc, yc ** 2], axis=0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xc.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), wc.grad.numpy(), rtol=1e-12)


def test_a_cpu_scalar_tensor_joins_gpu1_tensors_there():
    g = eager.to_tensor([1.0, 2.0], place="gpu:1", stop_gradient=False)
    two = eager.to_tensor(2.0)
    out = g * two
    assert out.place == GPU1 and (two * g).place == GPU1
    out.sum().backward()
    np.testing.assert_array_equal(g.grad.numpy(), [2.0, 2.0])


@pytest.mark.parametrize("call, op, first, second", [
    (lambda a, b: a + b, "add", "x", "y"),
    (lambda a, b: eager.matmul(b.reshape([1, 2]), a.reshape([2, 1])), "matmul", "x", "y"),
    (lambda a, b: eager.concat([a, a, b]), "concat", "x[0]", "x[2]"),
    (lambda a, b: eager.where(a > 1, a, b), "where", "condition", "y"),
])
def test_mixing_gpu0_and_gpu1_names_the_op_and_both_places(call, op, first, second):
    a = eager.to_tensor([1.0, 2.0], place="gpu:0")
    b = eager.to_tensor([3.0, 4.0], place="gpu:1")
    call(a, a)   # passes, so its signature (array types, dtypes, shapes) is remembered:
    for _ in range(2):   # the mixed calls take the remembered path, where only the kernel sees devices
        with pytest.raises(ValueError) as error:
            call(a, b)
        message = str(error.value)
        assert message.startswith(f"{op}: argument '{second}' is on ") and f"argument '{first}' is on " in message
        assert "Place(gpu:0)" in message and "Place(gpu:1)" in message


def test_a_mixed_call_leaves_gradients_as_they_were():
    a = eager.to_tensor([1.0, 2.0], place="gpu:0", stop_gradient=False)
    (a * 3).sum().backward()
    b = eager.to_tensor([3.0, 4.0], place="gpu:1")
    with pytest.raises(ValueError, match="add: argument"):
        (a + b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 3.0])
    assert a.grad.place == GPUPlace(0)


def _mlp():
    return eager.nn.Sequential(eager.nn.Linear(5, 16), eager.nn.Tanh(), eager.nn.Linear(16, 3))


@pytest.mark.parametrize("make_opt", [
    lambda ps: eager.optimizer.SGD(0.1, parameters=ps),
    lambda ps: eager.optimizer.Adam(0.01, parameters=ps),
    lambda ps: eager.optimizer.Momentum(0.05, parameters=ps, grad_clip=eager.nn.ClipGradByGlobalNorm(1.0)),
])
def test_an_mlp_trains_on_gpu1_as_on_the_cpu(make_opt):
    eager.set_default_dtype("float64")
    try:
        eager.seed(4)
        cpu_net = _mlp()
        gpu_net = copy.deepcopy(cpu_net).to("gpu:1")
    finally:
        eager.set_default_dtype("float32")
    assert all(p.place == GPU1 for p in gpu_net.parameters())
    cpu_opt, gpu_opt = make_opt(cpu_net.parameters()), make_opt(gpu_net.parameters())
    rng = np.random.default_rng(0)
    xs, ys = rng.standard_normal((20, 5)), rng.integers(0, 3, 20)
    x_cpu, y_cpu = eager.to_tensor(xs), eager.to_tensor(ys)
    x_gpu, y_gpu = eager.to_tensor(xs, place="gpu:1"), eager.to_tensor(ys, place="gpu:1")
    for step in range(4):
        for net, opt, x, y in ((cpu_net, cpu_opt, x_cpu, y_cpu), (gpu_net, gpu_opt, x_gpu, y_gpu)):
            loss = eager.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
        assert loss.place == GPU1
    for p_cpu, p_gpu in zip(cpu_net.parameters(), gpu_net.parameters()):
        assert p_gpu.place == GPU1
        np.testing.assert_allclose(p_gpu.numpy(), p_cpu.numpy(), rtol=0, atol=1e-10)
    state = list(gpu_opt._accumulators.values())   # (name, id(param)) -> Tensor (state_dict copies to NumPy)
    assert all(v.place == GPU1 for v in state)   # optimizer state lives where the parameters live
    assert state or isinstance(gpu_opt, eager.optimizer.SGD)


@pytest.mark.skipif(REAL_GPU, reason="counts transfers with tests/fake_cupy.py's counters")
def test_a_training_step_on_gpu1_moves_nothing_between_devices(on_gpu1):
    net = eager.nn.Sequential(eager.nn.Linear(8, 16), eager.nn.ReLU(), eager.nn.Linear(16, 4))
    opt = eager.optimizer.AdamW(0.01, parameters=net.parameters(), grad_clip=eager.nn.ClipGradByGlobalNorm(1.0))
    x, y = eager.randn([32, 8]), eager.randint(0, 4, [32])
    for step in range(2):  # the second step: accumulators and caches exist
        before = _counters()
        loss = eager.nn.functional.cross_entropy(net(x) * 0.5 + 1.0, y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    assert tuple(a - b for a, b in zip(_counters(), before)) == (0, 0, 0)
    assert all(p.place == GPU1 for p in net.parameters())


def test_layer_to_moves_a_model_between_gpus_in_place():
    net = _mlp()
    weight = net[0].weight
    assert net.to("gpu:1") is net and net[0].weight is weight and weight.place == GPU1
    net(eager.randn([2, 5]).cuda(1)).sum().backward()
    assert weight.grad.place == GPU1
    net.to(eager.CUDAPlace(0))
    assert weight.place == GPUPlace(0) and weight.grad.place == GPUPlace(0)
    net.to("cpu")
    assert weight.place == CPUPlace()


def test_each_gpu_has_its_own_reproducible_generator():
    eager.seed(21)
    first1 = _on(1, lambda: eager.randn([6]))
    assert first1.place == GPU1
    eager.seed(21)
    on0 = _on(0, lambda: eager.randn([6]))       # device 0 draws from its own stream ...
    again1 = _on(1, lambda: eager.randn([6]))    # ... which leaves device 1's where the seed put it
    np.testing.assert_array_equal(again1.numpy(), first1.numpy())
    assert on0.place == GPUPlace(0)
    eager.seed(22)
    assert not np.array_equal(_on(1, lambda: eager.randn([6])).numpy(), first1.numpy())
    state = eager.get_rng_state()
    a = _on(1, lambda: eager.rand([4])).numpy()
    eager.set_rng_state(state)
    np.testing.assert_array_equal(_on(1, lambda: eager.rand([4])).numpy(), a)


def _on(device_id, make):
    eager.set_device(f"gpu:{device_id}")
    try:
        return make()
    finally:
        eager.set_device("cpu")


def test_one_gpu_binds_a_plain_partial_and_several_follow_the_arguments(monkeypatch):
    import functools

    import phi.backends as backends
    from phi.core import KERNELS

    cupy = importlib.import_module("cupy")
    monkeypatch.setattr(backends, "_device_count", [1])
    single = backends.bind_kernel(KERNELS, "add", cupy.ndarray, np.dtype(np.float64))
    assert type(single) is functools.partial and single.args == (backends.get_gpu_context(0),)
    monkeypatch.setattr(backends, "_device_count", [2])
    several = backends.bind_kernel(KERNELS, "add", cupy.ndarray, np.dtype(np.float64))
    with cupy.cuda.Device(1):
        a = cupy.arange(3.0)
    out = several(a, a)   # device 0 is current: the kernel switches to its arguments' device
    assert out.device.id == 1 and out.tolist() == [0.0, 2.0, 4.0] and cupy.cuda.runtime.getDevice() == 0
    with pytest.raises(backends.PlaceMismatchError, match="add: arguments on GPU 1 and GPU 0"):
        several(a, cupy.ones(3))
    assert backends.get_gpu_context(1).place == GPU1 and backends.get_gpu_context(1).device_id == 1
