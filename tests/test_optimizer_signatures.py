"""The phi optimizer ops (sgd_, momentum_, adam_, adamw_, adamax_, adagrad_,
adadelta_, rmsprop_, lamb_) remember the
signatures of host calls that passed their checks and skip the checks on a
repeat: a call that differs in anything the checks read is checked in full
(same errors, nothing written), GPU calls and SelectedRows gradients are never
remembered, and the updates are those of the checked path."""
import numpy as np
import pytest

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
    ({2: dense([1.0, 1.0, 1.0])}, InvalidArgumentError, r"sgd_: argument 'grad' expected float32\[2\]"),
    ({2: dense([1.0, 1.0], "float64")}, InvalidArgumentError, r"sgd_: argument 'grad' expected float32\[2\]"),
    ({1: dense([0.5, 0.5])}, InvalidArgumentError, r"sgd_: argument 'learning_rate' expected one float32"),
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
    with pytest.raises(InvalidArgumentError, match="adam_: argument 'moment2' expected float32"):
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


def test_gpu_calls_and_selected_rows_are_not_remembered():
    lr = dense(0.5)
    p = phi_api.full([2], 1.0, DataType.FLOAT32, GPUPlace(0))
    phi_api.sgd_(p, phi_api.full([], 0.5, DataType.FLOAT32, GPUPlace(0)),
                 phi_api.full([2], 1.0, DataType.FLOAT32, GPUPlace(0)))
    assert len(phi_opt._sgd_seen) == 0
    with pytest.raises(InvalidArgumentError, match="sgd_: argument 'learning_rate' expected a tensor on"):
        phi_api.sgd_(p, lr, phi_api.full([2], 1.0, DataType.FLOAT32, GPUPlace(0)))
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
    """(op, its tensors) for the five ops of _run_fused, on fresh host tensors."""
    p, g = dense([1.0, 2.0], dtype), dense([0.5, -0.5], dtype)
    lr, state = dense(0.1, dtype), (lambda: dense([0.25, 0.5], dtype))
    return {
        "adamax_": (p, g, lr, state(), state(), dense([0.9], dtype)),
        "adagrad_": (p, g, state(), lr),
        "adadelta_": (p, g, state(), state(), lr),
        "rmsprop_": (p, state(), g, state(), lr, state()),
        "lamb_": (p, g, lr, state(), state(), dense([0.9], dtype), dense([0.999], dtype)),
    }


@pytest.mark.parametrize("op", ["adamax_", "adagrad_", "adadelta_", "rmsprop_", "lamb_"])
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


@pytest.mark.parametrize("op", ["adamax_", "adagrad_", "adadelta_", "rmsprop_", "lamb_"])
def test_the_other_ops_check_a_changed_call_in_full(op):
    tensors = _others()[op]
    fn = getattr(phi_opt, op)
    fn(*tensors)
    before = [t.array.copy() for t in tensors]
    with pytest.raises(InvalidArgumentError, match=rf"{op}: argument 'grad' expected float32\[2\]"):
        grad_at = 2 if op == "rmsprop_" else 1
        fn(*tensors[:grad_at], dense([1.0, 1.0, 1.0]), *tensors[grad_at + 1:])
    with pytest.raises(InvalidArgumentError, match=rf"{op}: argument 'epsilon' expected a finite float >= 0"):
        fn(*tensors, epsilon=-1.0)
    for t, b in zip(tensors, before):  # the failed calls wrote nothing
        np.testing.assert_array_equal(t.array, b)
    assert tensors[0].version == 1
