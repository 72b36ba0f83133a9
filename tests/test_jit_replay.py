"""eager.jit's generated replay step (eager/jit/replay.py): the value a replay
returns is built as eager builds it, for every kind of result (a tensor the
call made, with its stop_gradient and in-place version; an input returned; a
constant; tuples, lists and dicts; one tensor returned twice), the effects
outside the kernels (version bumps of the state, the optimizer's step count)
are repeated, and an input that aliases the state makes the call run eagerly.
"""
import gc
import sys

import numpy as np
import pytest

import eager
from eager import nn
from eager.jit.backward import ReplayGradNode
from eager.jit.trace import ReplayDiverged
from eager.nn import functional as F

RNG = np.random.default_rng(2)
XS = [RNG.standard_normal((4, 6)).astype("float32") for _ in range(5)]


def _describe(value):
    """A comparable picture of a returned value: structure, tensor values and flags."""
    if isinstance(value, eager.Tensor):
        return ("tensor", value.numpy().tobytes(), value.shape, str(value.dtype), value.stop_gradient,
                value.inplace_version, value.grad_node is None)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [_describe(v) for v in value])
    if isinstance(value, dict):
        return ("dict", list(value), [_describe(v) for v in value.values()])
    return ("value", value)


def test_every_kind_of_result_is_rebuilt_as_eager_builds_it():
    def body(x, tag):
        made = x * 2.0
        bumped = x + 1.0
        bumped.scale_(3.0)  # an in-place write: version 1
        bumped.add_(x)  # version 2
        leaf = x - 1.0
        leaf.stop_gradient = False  # a leaf of its own
        return {"made": made, "pair": (bumped, [leaf, tag]), "input": x, "none": None, "twice": (made, made)}

    fn = eager.jit.to_static(body)
    for i in range(4):
        x = eager.to_tensor(XS[i])
        got, expected = fn(x, "t"), body(x, "t")
        assert _describe(got) == _describe(expected)
        assert got["input"] is x
        assert got["twice"][0] is got["twice"][1] is got["made"]
        assert got["pair"][1][0].is_leaf and not got["pair"][1][0].stop_gradient
    assert fn.replays == 3  # the first capture leaves the state as it found it


def test_state_versions_and_step_counts_move_as_eager():
    def run(static):
        eager.seed(4)
        model = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 2))
        opt = eager.optimizer.Momentum(0.1, momentum=0.9, parameters=model.parameters())

        def step(x):
            loss = F.relu(model(x)).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        fn = eager.jit.to_static(step) if static else step
        losses = [float(fn(eager.to_tensor(x))) for x in XS]
        versions = [p.inplace_version for p in model.parameters()]
        grad_versions = [p.grad.inplace_version for p in model.parameters()]
        return losses, versions, grad_versions, opt._step_count, fn

    eager_run, static_run = run(False), run(True)
    assert eager_run[:4] == static_run[:4]
    assert static_run[4].replays == 3


def test_an_input_aliasing_a_parameter_runs_eagerly_and_is_not_counted_as_a_replay():
    layer = nn.Linear(6, 6)
    fn = eager.jit.to_static(lambda x: layer(x))
    with eager.no_grad():
        for i in range(3):
            fn(eager.to_tensor(XS[i]))
        assert fn.replays == 2
        weight_as_input = layer.weight  # (6, 6): the same signature, but the buffer is state
        weight_as_input.stop_gradient = True
        out = fn(weight_as_input)
        np.testing.assert_array_equal(out.numpy(), layer(weight_as_input).numpy())
    assert fn.replays == 2


def test_positional_tensor_calls_are_told_apart_by_shape_dtype_gradient_and_mode():
    # All-tensor positional calls take a short signature path: each of these
    # differences must still make its own trace, replayed as eager computes it.
    fn = eager.jit.to_static(lambda a, b: a * 2.0 + b)
    a32, b32 = XS[0], XS[1]
    variants = [
        lambda: (eager.to_tensor(a32), eager.to_tensor(b32)),
        lambda: (eager.to_tensor(a32[:3]), eager.to_tensor(b32[:3])),  # shape
        lambda: (eager.to_tensor(a32.astype("float64")), eager.to_tensor(b32.astype("float64"))),  # dtype
        lambda: (eager.to_tensor(a32, stop_gradient=False), eager.to_tensor(b32)),  # requires a gradient
    ]
    for n, make in enumerate(variants, 1):
        for _ in range(3):
            a, b = make()
            out = fn(a, b)
            np.testing.assert_array_equal(out.numpy(), (a * 2.0 + b).numpy())
            assert out.stop_gradient == a.stop_gradient
        assert len(fn._cache) == n
    a, b = variants[3]()
    fn(a, b).sum().backward()  # the replay's grad node reaches the input
    np.testing.assert_array_equal(a.grad.numpy(), np.full_like(a32, 2.0))
    with eager.no_grad():  # the grad mode
        for _ in range(3):
            out = fn(*variants[3]())
            assert out.stop_gradient and out.grad_node is None
    assert len(fn._cache) == 5
    mixed = eager.jit.to_static(lambda a, k: a * k)  # a number among the tensors: the general signature
    for k in (2.0, 2.0, 3.0, 3.0):
        np.testing.assert_array_equal(mixed(eager.to_tensor(a32), k).numpy(), a32 * np.float32(k))
    assert len(mixed._cache) == 2 and mixed.replays == 2


def test_bincount_whose_length_follows_the_values_runs_eagerly():
    fn = eager.jit.to_static(lambda x: eager.bincount(x))
    with pytest.warns(RuntimeWarning, match="shape depends on the values"):
        for values in ([0, 1, 1, 3], [0, 1, 1, 3], [0, 1, 1, 3], [0, 5, 1, 1]):
            out = fn(eager.to_tensor(np.array(values, "int64")))
            np.testing.assert_array_equal(out.numpy(), np.bincount(values))
    assert fn.replays == 0


def _traced_times_two():
    fn = eager.jit.to_static(lambda x: x * 2.0)
    for i in range(3):
        fn(eager.to_tensor(XS[i]))
    assert fn.replays == 2
    (trace,) = fn._cache.values()
    return fn, trace.run.__globals__


@pytest.mark.parametrize("made, captured", [
    (lambda *a, **k: np.zeros((4, 6), "float64"), "float32"),
    (lambda *a, **k: np.zeros((4, 5), "float32"), r"\[4, 6\]"),
])
def test_a_replayed_kernel_leaving_the_captured_shape_or_dtype_raises(made, captured):
    fn, namespace = _traced_times_two()
    namespace["k0"] = made  # as a kernel whose result followed something the capture did not see
    with pytest.raises(ReplayDiverged, match=f"replay of kernel .*captured.*{captured}"):
        fn(eager.to_tensor(XS[3]))


def test_a_replayed_kernel_giving_a_numpy_scalar_gives_a_0d_tensor():
    fn = eager.jit.to_static(lambda x: x.sum())
    for i in range(3):
        fn(eager.to_tensor(XS[i]))
    (trace,) = fn._cache.values()
    trace.run.__globals__["k0"] = lambda *a, **k: np.float32(4.5)  # as NumPy reductions may give
    out = fn(eager.to_tensor(XS[3]))
    assert out.shape == [] and type(out.impl.array) is np.ndarray and float(out) == 4.5


def test_a_trace_holds_no_reference_to_the_grad_node_class():
    # gc_policy counts live grad nodes as their classes' reference counts above a
    # baseline: a trace referring to ReplayGradNode itself would count as a node.
    layer = nn.Linear(6, 3)
    fn = eager.jit.to_static(lambda x: layer(x))
    gc.collect()  # other tests' traces (a StaticFunction and its traces form cycles)
    baseline = sys.getrefcount(ReplayGradNode)  # before any trace exists
    for i in range(5):
        out = fn(eager.to_tensor(XS[i]))
        out.sum().backward()
    assert fn.replays == 3 and type(out.grad_node) is ReplayGradNode
    del out
    gc.collect()
    assert sys.getrefcount(ReplayGradNode) == baseline  # the trace alive, no node alive
