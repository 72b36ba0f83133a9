"""The bad-input sweep: every op of the YAML, called with one argument replaced
by a bad value for its type, either works or raises a TypeError, ValueError or
IndexError whose message names the op, never an error from deep inside NumPy.

The calls are made from the op table (tests/op_specs/): its first case gives
a valid call, and each argument in turn gets the bad values of its YAML type.
A new op in the YAML is swept without a line written here.
"""
import numpy as np
import pytest

import eager
from eager.api_gen.model import NO_DEFAULT
from eager.api_gen.render import load_specs

from op_specs import SPECS_BY_NAME, draw

_NOT_A_TENSOR = ("text", 3.5, np.ones(2))
BAD_VALUES = {
    "Tensor": _NOT_A_TENSOR,
    "Tensor[]": ("text", [1.0, 2.0], 7),
    "int": ("text", 1.5, 2 ** 70, None, [1]),
    "float": ("text", None, [1.0]),
    "bool": ("text", None, 2),
    "int[]": ("text", [1.5], [2 ** 70], 1.5),
    "IntArray": ("text", [1.5], [2 ** 70], [None], 1.5),
    "IntOrIntArray": ("text", [1.5], [2 ** 70], 2 ** 70, 1.5, None),
    "float[]": ("text", [None], 1),
    "Scalar": ("text", None, [1, 2], 10 ** 400),
    "DataType": ("nonsense", 5, None),
    "str": (5, None),
    "Place": ("mars", 5),
    "Index": (object(), "text"),
}
ALLOWED = (TypeError, ValueError, IndexError)


def _sweep_params():
    forward_ops, backward_ops = load_specs()
    for op in forward_ops + backward_ops:
        spec = SPECS_BY_NAME.get(op.name)
        fn = getattr(eager.ops, op.name, None)
        if spec is None or fn is None or spec.fn is not fn or not spec.cases:
            continue  # called through a wrapper in the table: no plain valid call to start from
        for position, arg in enumerate(op.args):
            type_name = str(arg.type.strip_optional())
            for index, bad in enumerate(BAD_VALUES[type_name]):
                if bad is None and arg.optional:
                    continue
                yield pytest.param(op, spec, position, bad, id=f"{op.name}-{arg.name}-{type_name}{index}")


def _valid_call(op, spec):
    case = spec.cases[0]
    rng = np.random.default_rng(0)
    dtype = spec.dtypes[0]
    arrays = [None if shape is None else draw(domain, shape, dtype, rng)
              for domain, shape in zip(spec.domains, case.shapes)]
    if spec.prepare is not None:
        arrays = spec.prepare(arrays, case.attrs)
    tensors = iter(None if a is None else eager.to_tensor(a) for a in arrays)
    args = []
    for arg in op.args:
        if arg.is_tensor:
            args.append(next(tensors))
        elif arg.name in case.attrs:
            args.append(case.attrs[arg.name])
        elif arg.default is not NO_DEFAULT:
            args.append(_default(arg.default))
        else:
            raise AssertionError(f"{op.name}: the table's first case gives no value for {arg.name}")
    return args


def _default(value):
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "DataType":
        return value[1]
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "Place":
        return None
    return list(value) if isinstance(value, tuple) else value


@pytest.mark.parametrize("op, spec, position, bad", list(_sweep_params()))
def test_a_bad_argument_gets_a_clear_error_naming_the_op(op, spec, position, bad):
    args = _valid_call(op, spec)
    args[position] = bad
    try:
        getattr(eager.ops, op.name)(*args)
    except ALLOWED as error:
        assert op.name in str(error), f"{type(error).__name__} does not name {op.name}: {error}"
    except Exception as error:  # noqa: BLE001  the point: nothing else may escape
        pytest.fail(f"{op.name}({op.args[position].name}={bad!r}) raised {type(error).__name__}: {error}")


def test_the_sweep_covers_most_ops():
    swept = {p.values[0].name for p in _sweep_params()}
    forward_ops, backward_ops = load_specs()
    assert len(swept) >= 0.6 * len(forward_ops + backward_ops), sorted(swept)


@pytest.mark.parametrize("call, message", [
    (lambda: eager.zeros([2 ** 40, 2 ** 40]), r"zeros: argument 'shape' gives a result of shape .* more bytes than"),
    (lambda: eager.zeros([1] * 65), "zeros: argument 'shape' gives a result of 65 dimensions; at most 64"),
    (lambda: eager.reshape(eager.ones([2]), [1] * 70 + [2]), "reshape: argument 'shape' gives a result of 71"),
    (lambda: eager.expand(eager.ones([1]), [2 ** 40, 2 ** 40]), "expand: argument 'shape' gives a result"),
    (lambda: eager.unsqueeze(eager.ones([2]), list(range(100_000))), "unsqueeze: argument 'axis' inserts 100000"),
])
def test_impossible_shapes_fail_before_any_allocation(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("call, message", [
    (lambda: eager.ops.add_grad(eager.ones([3, 4]), eager.ones([4]), eager.ones([5])),
     r"add_grad: argument 'out_grad' expected paddle.float32\[3, 4\] \(the forward op's result\), got paddle.float32\[5\]"),
    (lambda: eager.ops.multiply_grad(eager.ones([2]), eager.ones([2]), eager.ones([2], "float64")),
     r"multiply_grad: argument 'out_grad' expected paddle.float32\[2\]"),
    (lambda: eager.ops.matmul_grad(eager.ones([2, 3]), eager.ones([3, 4]), eager.ones([2, 5]), False, False),
     r"matmul_grad: argument 'out_grad' expected paddle.float32\[2, 4\]"),
    (lambda: eager.ops.tanh_grad(eager.ones([3]), eager.ones([1])),
     r"tanh_grad: argument 'out_grad' expected paddle.float32\[3\] \(the forward op's result\), got paddle.float32\[1\]"),
    (lambda: eager.ops.log_grad(eager.ones([2]), eager.ones([2], "float64")),
     r"log_grad: argument 'out_grad' expected paddle.float32\[2\]"),
    (lambda: eager.ops.softmax_grad(eager.ones([2, 3]), eager.ones([3]), -1),
     r"softmax_grad: argument 'out_grad' expected paddle.float32\[2, 3\]"),
    (lambda: eager.ops.sum_grad(eager.ones([2, 3]), eager.ones([3]), [1], False),
     r"sum_grad: argument 'out_grad' expected shape \[2\] \(x of shape \[2, 3\] reduced over axis=\[1\]"),
    (lambda: eager.ops.mean_grad(eager.ones([2, 3]), eager.ones([2]), [1], True),
     r"mean_grad: argument 'out_grad' expected shape \[2, 1\]"),
    (lambda: eager.ops.reshape_grad(eager.ones([2, 3]), eager.ones([5])),
     r"reshape_grad: argument 'out_grad' expected paddle.float32 with 6 elements"),
    (lambda: eager.ops.expand_grad(eager.ones([1, 3]), eager.ones([4, 2]), [4, 3]),
     r"expand_grad: argument 'out_grad' expected paddle.float32\[4, 3\]"),
    (lambda: eager.ops.getitem_grad(eager.ones([4, 3]), eager.ones([3]), (slice(0, 2),)),
     r"getitem_grad: argument 'out_grad' expected paddle.float32\[2, 3\]"),
])
def test_a_backward_op_called_directly_checks_out_grad(call, message):
    with pytest.raises(ValueError, match=message):
        call()
