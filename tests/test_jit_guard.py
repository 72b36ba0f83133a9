"""eager.jit's guard: every change of the state a trace depends on makes the next
call capture again, and a change that leaves the state as it was does not.

The guard is written in cheap forms (identity first, literals, subscripts of
plain dicts, `not c` for an empty container); these tests pin that each form
still sees what it must: a number by value and type, a new or deleted
attribute, a container's new item, a replaced parameter, gradient or buffer,
a flipped flag; and that reading the state changes nothing (a defaultdict is
not filled by the guard's reads).
"""
import collections
import math
import warnings

import numpy as np
import pytest

import eager
from eager import nn
from eager.nn import functional as F

RNG = np.random.default_rng(1)
XS = [RNG.standard_normal((8, 12)).astype("float32") for _ in range(6)]
YS = [RNG.standard_normal((8, 3)).astype("float32") for _ in range(6)]


def _setup():
    eager.seed(7)
    model = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = eager.optimizer.SGD(0.05, parameters=model.parameters())

    def body(x, y):
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    return model, opt, body


def _new_parameter(model):
    model[0].weight = model[0].create_parameter([12, 16])


def _set_attr(value):
    def change(model):
        model[0].flag = value
    return change


# (what changes, the change, whether the state is still the captured one)
CHANGES = [
    ("a new learning rate", lambda m, o: o.set_lr(0.01), False),
    ("the same learning rate, another float object", lambda m, o: o.set_lr(float("0.05")), True),
    ("a parameter reassigned", lambda m, o: _new_parameter(m), False),
    ("stop_gradient flipped", lambda m, o: setattr(m[2].bias, "stop_gradient", True), False),
    ("a gradient hook added", lambda m, o: m[2].weight.register_hook(lambda g: g), False),
    ("a forward pre-hook added", lambda m, o: m[1].register_forward_pre_hook(lambda layer, inputs: None), False),
    ("eval mode", lambda m, o: m.eval(), False),
    ("train mode again", lambda m, o: m.train(), True),
    ("a new Layer attribute", lambda m, o: _set_attr(3)(m), False),
    ("a sublayer replaced", lambda m, o: setattr(m, "1", nn.Tanh()), False),
    ("a parameter dropped from the optimizer", lambda m, o: o._parameter_list.pop(), False),
    ("a buffer registered", lambda m, o: m[0].register_buffer("extra", eager.zeros([2])), False),
    ("an attribute deleted", lambda m, o: delattr(m[0], "flag"), False),
    ("an int attribute changed", lambda m, o: setattr(m[0], "flag", 2), False),
    ("an int attribute set to an equal float", lambda m, o: setattr(m[0], "flag", 1.0), False),
    ("an int attribute set to an equal int", lambda m, o: setattr(m[0], "flag", int("1")), True),
    ("an int attribute set to an equal bool", lambda m, o: setattr(m[0], "flag", True), False),
    ("a string attribute set to an equal string", lambda m, o: setattr(m[0], "_full_name", "".join(["line", "ar_x"])),
     True),
]


@pytest.mark.parametrize("what, change, same", CHANGES, ids=[c[0] for c in CHANGES])
def test_a_state_change_captures_again_and_an_equal_state_replays(what, change, same):
    model, opt, body = _setup()
    model[0].flag = 1  # an int attribute (for the bool case: 1 == True, but not the same state)
    model[0]._full_name = "linear_x"
    step = eager.jit.to_static(body)
    for i in range(3):
        step(eager.to_tensor(XS[i]), eager.to_tensor(YS[i]))
    assert (step.captures, step.replays) == (2, 1)
    change(model, opt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a hook makes the capture unreplayable
        loss = step(eager.to_tensor(XS[3]), eager.to_tensor(YS[3]))
    assert np.isfinite(float(loss))
    if same:
        assert (step.captures, step.replays) == (2, 2), what
    else:
        assert (step.captures, step.replays) == (3, 1), what


def test_a_nan_attribute_replays_while_it_is_the_same_object():
    # A float compared by value alone would never equal itself when NaN; the
    # guard compares by identity first, so an unchanged NaN keeps the trace.
    model, opt, body = _setup()
    model[0].threshold = math.nan
    step = eager.jit.to_static(body)
    for i in range(4):
        step(eager.to_tensor(XS[i]), eager.to_tensor(YS[i]))
    assert (step.captures, step.replays) == (2, 2)
    model[0].threshold = float("nan")  # another NaN: not provably the same state
    step(eager.to_tensor(XS[4]), eager.to_tensor(YS[4]))
    assert step.captures == 3


def test_the_guard_does_not_fill_a_defaultdict_and_sees_its_new_keys():
    model, opt, body = _setup()
    table = collections.defaultdict(list)
    table["seen"] = []
    model[0].table = table
    step = eager.jit.to_static(body)
    for i in range(3):
        step(eager.to_tensor(XS[i]), eager.to_tensor(YS[i]))
    assert step.replays == 1 and list(table) == ["seen"]
    del table["seen"]
    table["other"] = []  # same length, another key
    step(eager.to_tensor(XS[3]), eager.to_tensor(YS[3]))
    assert step.captures == 3 and list(table) == ["other"]


def test_a_dict_attribute_with_non_string_keys_is_compared_item_by_item():
    model, opt, body = _setup()
    marker_a, marker_b = object(), object()
    model[0].by_id = {1: marker_a, (2, 3): marker_b}
    step = eager.jit.to_static(body)
    for i in range(3):
        step(eager.to_tensor(XS[i]), eager.to_tensor(YS[i]))
    assert step.replays == 1
    model[0].by_id[(2, 3)] = object()
    step(eager.to_tensor(XS[3]), eager.to_tensor(YS[3]))
    assert step.captures == 3


def test_a_global_none_or_bool_the_function_reads_is_compared_by_identity():
    global MODE
    MODE = None
    fn = eager.jit.to_static(lambda x: x * 2.0 if MODE is None else x * 3.0)
    x = eager.to_tensor(XS[0])
    for _ in range(3):
        np.testing.assert_array_equal(fn(x).numpy(), XS[0] * np.float32(2.0))
    MODE = 0  # falsy, and == None is False: another state
    np.testing.assert_array_equal(fn(x).numpy(), XS[0] * np.float32(3.0))
    MODE = False
    np.testing.assert_array_equal(fn(x).numpy(), XS[0] * np.float32(3.0))
    assert fn.captures == 3 and fn.replays == 2
    MODE = None


MODE = None
