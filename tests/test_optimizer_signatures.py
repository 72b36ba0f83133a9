"""The phi optimizer ops (sgd_, momentum_, adam_, adamw_) remember the
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
    for cache in (phi_opt._sgd_seen, phi_opt._momentum_seen, phi_opt._adam_seen, phi_opt._adamw_seen):
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
