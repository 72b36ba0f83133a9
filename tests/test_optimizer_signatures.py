"""The phi optimizer ops (sgd_, momentum_, adam_, adamw_, adamax_, adagrad_,
adadelta_, rmsprop_, lamb_, lars_momentum_) remember the
signatures of calls that passed their checks and skip the checks on a
repeat: a call that differs in anything the checks read (on a GPU, a tensor's
device too) is checked in full (same errors, nothing written), SelectedRows
gradients are never remembered, and the updates are those of the checked path."""
import importlib

import numpy as np
import pytest

import eager
from phi import api as phi_api
from phi.api import optimizer as phi_opt
from phi.common import DataType
from phi.core import DenseTensor
from phi.core.errors import InvalidArgumentError, InvalidTypeError
from phi.core.selected_rows import SelectedRows
from phi.common.place import GPUPlace


def dense(values, dtype="float32"):
    return DenseTensor(np.array(values, dtype=dtype))


def adam_inputs(dtype="float32"):
    return [dense([1.0, 2.0], dtype), dense([0.5, -0.5], dtype), dense(0.1, dtype),
            dense([0.0, 0.0], dtype), dense([0.0, 0.0], dtype), dense([0.9], dtype), dense([0.999], dtype)]


@pytest.fixture(autouse=True)
def fresh_caches():
    for cache in (phi_opt._sgd_seen, phi_opt._momentum_seen, phi_opt._adam_seen, phi_opt._adamw_seen,
                  *phi_opt._FUSED_SEEN.values()):
        cache.clear()


def test_a_repeated_sgd_call_is_remembered_and_updates_the_same():
    p, lr, g = dense([1.0, 1.0]), dense(0.5), dense([1.0, -2.0])
    phi_api.sgd_(p, lr, g)
    assert len(phi_opt._sgd_seen) == 1
    phi_api.sgd_(p, lr, g)   # a hit
    np.testing.assert_array_equal(p.array, np.float32([0.0, 3.0]))
    assert p.version == 2 and g.version == 0
    assert len(phi_opt._sgd_seen) == 1


@pytest.mark.parametrize("change,error,message", [
    ({2: dense([1.0, 1.0, 1.0])}, InvalidArgumentError, r"sgd_: argument 'grad' expected paddle.float32\[2\]"),
    ({2: dense([1.0, 1.0], "float64")}, InvalidArgumentError, r"sgd_: argument 'grad' expected paddle.float32\[2\]"),
    ({1: dense([0.5, 0.5])}, InvalidArgumentError, r"sgd_: argument 'learning_rate' expected one paddle.float32"),
    ({4: 1}, InvalidTypeError, r"sgd_: argument 'multi_precision' expected a bool, got 1"),
])
def test_a_call_that_differs_from_a_remembered_one_is_checked_in_full(change, error, message):
    p, lr, g = dense([1.0, 1.0]), dense(0.5), dense([1.0, -2.0])
    phi_api.sgd_(p, lr, g)
    args = [p, lr, g, None, False]
    for index, value in change.items():
        args[index] = value
    with pytest.raises(error, match=message):
        phi_api.sgd_(*args)
    np.testing.assert_array_equal(p.array, np.float32([0.5, 2.0]))  # only the first call wrote
    assert p.version == 1


def test_adam_and_adamw_attributes_are_part_of_the_signature():
    t = adam_inputs()
    phi_api.adam_(*t, beta1=0.9)
    with pytest.raises(InvalidArgumentError, match=r"adam_: argument 'beta1' expected a float in \[0, 1\), got 1.0"):
        phi_api.adam_(*t, beta1=1.0)
    phi_api.adamw_(*t, lr_ratio=1.0)
    with pytest.raises(InvalidArgumentError, match="adamw_: argument 'lr_ratio' expected a positive finite float"):
        phi_api.adamw_(*t, lr_ratio=0.0)
    assert t[0].version == 2
    with pytest.raises(InvalidArgumentError, match="adam_: argument 'moment2' expected paddle.float32"):
        phi_api.adam_(*t[:4], dense([0.0, 0.0], "float64"), *t[5:])
    assert t[0].version == 2


def test_momentum_attributes_are_part_of_the_signature():
    p, g, v, lr = dense([1.0, 1.0]), dense([1.0, -2.0]), dense([0.0, 0.0]), dense(0.5)
    phi_api.momentum_(p, g, v, lr, regularization_method="l2_decay", regularization_coeff=0.1)
    with pytest.raises(InvalidArgumentError, match="momentum_: argument 'regularization_method' expected"):
        phi_api.momentum_(p, g, v, lr, regularization_method="l1_decay", regularization_coeff=0.1)
    with pytest.raises(InvalidArgumentError, match="momentum_: argument 'mu' expected a finite float >= 0"):
        phi_api.momentum_(p, g, v, lr, mu=-0.5)
    assert p.version == 1 and v.version == 1


def _gpu_count():
    try:
        return importlib.import_module("cupy").cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001  (no CuPy or no driver)
        return 0


two_gpus = pytest.mark.skipif(_gpu_count() < 2, reason="needs two GPUs (the fake CuPy has two)")


def on_host(tensor):
    return eager.Tensor(tensor).numpy()


def gpu_full(shape, value, device=0):
    return phi_api.full(shape, value, DataType.FLOAT32, GPUPlace(device))


@two_gpus
def test_gpu_calls_are_remembered_with_their_devices():
    p, lr, g = gpu_full([2], 1.0), gpu_full([], 0.5), gpu_full([2], 1.0)
    phi_api.sgd_(p, lr, g)
    phi_api.sgd_(p, lr, g)  # a hit
    assert len(phi_opt._sgd_seen) == 1 and p.version == 2
    np.testing.assert_array_equal(on_host(p), np.float32([0.0, 0.0]))
    with pytest.raises(InvalidArgumentError, match="sgd_: argument 'learning_rate' expected a tensor on"):
        phi_api.sgd_(p, dense(0.5), g)  # on the host: another signature, checked in full
    # The same types, dtypes and shapes with the gradient on another GPU: the device
    # is part of a GPU call's signature, so the remembered call does not cover it.
    with pytest.raises(InvalidArgumentError, match=r"sgd_: argument 'grad' expected a tensor on Place\(gpu:0\)"):
        phi_api.sgd_(p, lr, gpu_full([2], 1.0, device=1))
    assert p.version == 2 and len(phi_opt._sgd_seen) == 1
    np.testing.assert_array_equal(on_host(p), np.float32([0.0, 0.0]))


@two_gpus
@pytest.mark.parametrize("op", ["momentum_", "adam_", "adamw_", "adamax_", "adagrad_", "adadelta_", "rmsprop_",
                                "lamb_", "lars_momentum_"])
def test_every_optimizer_op_remembers_a_gpu_call_and_refuses_a_tensor_on_another_gpu(op):
    def tensors(odd=None):
        host = {"momentum_": (dense([1.0, 2.0]), dense([0.5, -0.5]), dense([0.0, 0.0]), dense(0.1)),
                "adam_": tuple(adam_inputs()), "adamw_": tuple(adam_inputs())}.get(op) or _others()[op]
        return [eager.to_tensor(t.array, place=f"gpu:{1 if i == odd else 0}").impl for i, t in enumerate(host)]

    caches = {"momentum_": phi_opt._momentum_seen, "adam_": phi_opt._adam_seen, "adamw_": phi_opt._adamw_seen}
    fn, cache = getattr(phi_opt, op), caches[op] if op in caches else phi_opt._FUSED_SEEN[op]
    checked, remembered = tensors(), tensors()
    fn(*remembered)
    fn(*remembered)  # a hit
    assert len(cache) == 1
    cache.clear()
    for _ in range(2):
        cache.clear()  # the checked path both times
        fn(*checked)
    for a, b in zip(checked, remembered):
        np.testing.assert_array_equal(on_host(a), on_host(b))
        assert a.version == b.version
    fn(*remembered)
    elsewhere = tensors(odd=1)
    with pytest.raises(InvalidArgumentError, match=f"{op}: argument '.*' expected a tensor on Place\\(gpu:0\\)"):
        fn(*elsewhere)
    assert all(t.version == 0 for t in elsewhere)


def test_selected_rows_are_not_remembered():
    lr = dense(0.5)
    table = dense(np.ones((4, 2)))
    rows = SelectedRows(np.array([1, 1]), dense(np.ones((2, 2))), height=4)
    phi_api.sgd_(table, lr, rows)
    phi_api.sgd_(table, lr, rows)
    assert len(phi_opt._sgd_seen) == 0
    np.testing.assert_array_equal(table.array[1], [-1.0, -1.0])
    np.testing.assert_array_equal(table.array[0], [1.0, 1.0])


def test_an_unhashable_attribute_is_checked_every_time():
    p, lr, g = dense([1.0, 1.0]), dense(0.5), dense([1.0, -2.0])
    for _ in range(2):
        with pytest.raises(InvalidTypeError, match="sgd_: argument 'multi_precision' expected a bool"):
            phi_api.sgd_(p, lr, g, None, [True])
    assert len(phi_opt._sgd_seen) == 0 and p.version == 0


def _others(dtype="float32"):
    """(op, its tensors) for six ops of _run_fused, on fresh host tensors."""
    p, g = dense([1.0, 2.0], dtype), dense([0.5, -0.5], dtype)
    lr, state = dense(0.1, dtype), (lambda: dense([0.25, 0.5], dtype))
    return {
        "adamax_": (p, g, lr, state(), state(), dense([0.9], dtype)),
        "adagrad_": (p, g, state(), lr),
        "adadelta_": (p, g, state(), state(), lr),
        "rmsprop_": (p, state(), g, state(), lr, state()),
        "lamb_": (p, g, lr, state(), state(), dense([0.9], dtype), dense([0.999], dtype)),
        "lars_momentum_": (p, g, state(), lr),
    }


@pytest.mark.parametrize("op", ["adamax_", "adagrad_", "adadelta_", "rmsprop_", "lamb_", "lars_momentum_"])
def test_the_other_ops_remember_a_repeat_and_update_as_the_checked_path(op):
    checked, remembered = _others()[op], _others()[op]
    fn = getattr(phi_opt, op)
    fn(*remembered)
    assert len(phi_opt._FUSED_SEEN[op]) == 1
    fn(*remembered)  # a hit
    assert len(phi_opt._FUSED_SEEN[op]) == 1
    for _ in range(2):
        phi_opt._FUSED_SEEN[op].clear()  # the checked path both times
        fn(*checked)
    for a, b in zip(checked, remembered):
        assert a.array.tobytes() == b.array.tobytes() and a.version == b.version
    assert remembered[0].version == 2


@pytest.mark.parametrize("op", ["adamax_", "adagrad_", "adadelta_", "rmsprop_", "lamb_", "lars_momentum_"])
def test_the_other_ops_check_a_changed_call_in_full(op):
    tensors = _others()[op]
    fn = getattr(phi_opt, op)
    fn(*tensors)
    before = [t.array.copy() for t in tensors]
    with pytest.raises(InvalidArgumentError, match=rf"{op}: argument 'grad' expected paddle.float32\[2\]"):
        grad_at = 2 if op == "rmsprop_" else 1
        fn(*tensors[:grad_at], dense([1.0, 1.0, 1.0]), *tensors[grad_at + 1:])
    with pytest.raises(InvalidArgumentError, match=rf"{op}: argument 'epsilon' expected a finite float >= 0"):
        fn(*tensors, epsilon=-1.0)
    for t, b in zip(tensors, before):  # the failed calls wrote nothing
        np.testing.assert_array_equal(t.array, b)
    assert tensors[0].version == 1
