"""eager.utils.unique_name: Paddle's counters per key, guards that count afresh."""
import pytest

import eager
from eager.utils import unique_name


def test_generate_counts_per_key_and_guard_restores_the_outer_counts():
    with unique_name.guard():
        assert [unique_name.generate("a"), unique_name.generate("b"), unique_name.generate("a")] == \
            ["a_0", "b_0", "a_1"]
        with unique_name.guard("inner/"):
            assert unique_name.generate("a") == "inner/a_0"
        assert unique_name.generate("a") == "a_2"


def test_layers_built_in_two_guards_get_the_same_parameter_names():
    def build():
        with unique_name.guard():
            net = eager.nn.Sequential(eager.nn.Linear(2, 3), eager.nn.Linear(3, 1))
            return [layer.full_name() for layer in net], [p.name for p in net.parameters()]
    assert build() == build()
    assert build()[0] == ["linear_0", "linear_1"]


def test_switch_returns_the_previous_generator():
    mine = unique_name.UniqueNameGenerator("x.")
    old = unique_name.switch(mine)
    try:
        assert unique_name.generate("w") == "x.w_0"
    finally:
        assert unique_name.switch(*old)[0] is mine


@pytest.mark.parametrize("call, message", [
    (lambda: unique_name.generate(3), "unique_name.generate: argument 'key' expected a str, got int"),
    (lambda: unique_name.switch("p"), "unique_name.switch: argument 'new_generator' expected"),
    (lambda: unique_name.guard(5).__enter__(), "unique_name.guard: argument 'new_generator' expected"),
    (lambda: unique_name.UniqueNameGenerator(1), "UniqueNameGenerator: argument 'prefix' expected"),
])
def test_bad_arguments_are_named(call, message):
    with pytest.raises(TypeError, match=message):
        call()
