"""Buffer donation in eager.jit replays (eager/jit/trace.py) and SGD's donated
gradient (phi/kernels/optimizer.py): a replay hands a kernel that takes
``donated`` the arguments it never reads again, and only when nothing else
holds them; the kernel's results are the same bits, and a gradient anyone can
still see is never written.
"""
import functools

import numpy as np
import pytest

import eager
from eager import nn
from eager.jit.recorder import KernelCall
from eager.jit.trace import build
from eager.nn import functional as F
from phi.backends import CPU_CONTEXT
from phi.kernels import optimizer as optimizer_kernels

RNG = np.random.default_rng(7)


# -- the kernel --------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(), (7,), (300, 1000)])  # (300, 1000): SGD's blockwise path when not donated
def test_sgd_with_a_donated_grad_gives_the_same_bits_and_scales_the_grad_in_place(dtype, shape):
    param = RNG.standard_normal(shape).astype(dtype)
    grad = RNG.standard_normal(shape).astype(dtype)
    lr = np.asarray(0.01, dtype)
    kept_param, kept_grad, original = param.copy(), grad.copy(), grad.copy()
    optimizer_kernels.sgd_(CPU_CONTEXT, kept_param, lr, kept_grad, None, False)
    optimizer_kernels.sgd_(CPU_CONTEXT, param, lr, grad, None, False, donated=("grad",))
    assert param.tobytes() == kept_param.tobytes()
    assert kept_grad.tobytes() == original.tobytes()  # not donated: untouched
    assert grad.tobytes() == np.multiply(original, lr).tobytes()


def test_sgd_without_donation_never_writes_the_grad():
    param, grad = RNG.standard_normal(50).astype("float32"), RNG.standard_normal(50).astype("float32")
    before = grad.copy()
    optimizer_kernels.sgd_(CPU_CONTEXT, param, np.asarray(0.5, "float32"), grad, None, False)
    assert grad.tobytes() == before.tobytes()


# -- the replay ----------------------------------------------------------------------
def _mlp(seed=3):
    eager.seed(seed)
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))


def _sgd_spies(static_fn):
    """Wraps the sgd_ kernels of ``static_fn``'s trace; returns the list of the
    ``donated`` values they are called with."""
    (trace,) = [t for t in static_fn._cache.values() if hasattr(t, "run")]
    namespace = trace.run.__globals__
    seen = []
    for name in [n for n in namespace if n[0] == "k" and n[1:].isdigit()]:
        if namespace["n" + name[1:]] == "sgd_":
            namespace[name] = functools.partial(_spy, namespace[name], seen)
    return seen


def _spy(kernel, seen, *args, **kwargs):
    seen.append(kwargs.get("donated"))
    return kernel(*args, **kwargs)


def _xy(i):
    rng = np.random.default_rng(i)
    return (eager.to_tensor(rng.standard_normal((5, 6)).astype("float32")),
            eager.to_tensor(rng.standard_normal((5, 3)).astype("float32")))


def _training(clear_inside: bool):
    """(model, optimizer, step): an MSE SGD step that clears its gradients to
    None inside (they die with the step) or leaves them in .grad."""
    model = _mlp()
    opt = eager.optimizer.SGD(0.1, parameters=model.parameters())

    def step(x, y):
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if clear_inside:
            opt.clear_grad(set_to_zero=False)
        return loss
    return model, opt, step


def test_a_step_whose_gradients_die_donates_them_and_trains_bit_for_bit_as_eager():
    model, _, step = _training(clear_inside=True)
    twin, _, eager_step = _training(clear_inside=True)
    static = eager.jit.to_static(step)
    for i in range(3):
        static(*_xy(i)), eager_step(*_xy(i))
    seen = _sgd_spies(static)
    for i in range(3, 7):
        a, b = static(*_xy(i)), eager_step(*_xy(i))
        assert a.numpy().tobytes() == b.numpy().tobytes()
    assert static.replays >= 4
    assert seen == [("grad",)] * 4 * 4  # four parameters, four replays
    for p, q in zip(model.parameters(), twin.parameters()):
        assert p.numpy().tobytes() == q.numpy().tobytes()


def test_gradients_that_outlive_the_step_are_never_written():
    """.grad kept (cleared outside the call), and gradients read by kernels after
    the update: each is the gradient, not learning_rate times it. (A gradient
    returned is a result: tests below.)"""
    model, opt, step = _training(clear_inside=False)
    twin, twin_opt, eager_step = _training(clear_inside=False)
    static = eager.jit.to_static(step)
    seen = None
    for i in range(6):
        static(*_xy(i)), eager_step(*_xy(i))
        for p, q in zip(model.parameters(), twin.parameters()):
            assert p.grad.numpy().tobytes() == q.grad.numpy().tobytes()
            assert p.numpy().tobytes() == q.numpy().tobytes()
        opt.clear_grad(), twin_opt.clear_grad()
        if i == 2:
            seen = _sgd_spies(static)
    assert static.replays >= 3 and seen and all(d in (None, ()) for d in seen)

    model2 = _mlp()
    opt2 = eager.optimizer.SGD(0.1, parameters=model2.parameters())
    first = model2[0]

    def reads_grads_later(x, y):
        F.mse_loss(model2(x), y).backward()
        weight_grad = first.weight.grad
        opt2.step()
        with eager.no_grad():  # (a gradient is a leaf that requires one: no graph to return)
            doubled = first.bias.grad * 2.0  # read by kernels after the update
            total = weight_grad.sum()
        opt2.clear_grad(set_to_zero=False)
        return total, doubled

    twin2 = _mlp()
    twin_opt2 = eager.optimizer.SGD(0.1, parameters=twin2.parameters())

    def eager_returns(x, y):
        F.mse_loss(twin2(x), y).backward()
        weight_grad = twin2[0].weight.grad
        twin_opt2.step()
        with eager.no_grad():
            doubled = twin2[0].bias.grad * 2.0
            total = weight_grad.sum()
        twin_opt2.clear_grad(set_to_zero=False)
        return total, doubled

    static2 = eager.jit.to_static(reads_grads_later)
    seen = None
    for i in range(6):
        got, expected = static2(*_xy(i)), eager_returns(*_xy(i))
        for g, e in zip(got, expected):
            assert g.numpy().tobytes() == e.numpy().tobytes()
        if i == 2:
            seen = _sgd_spies(static2)
    assert static2.replays >= 3
    # the first layer's gradients are read after the update; the second layer's die with it
    assert seen == [None, None, ("grad",), ("grad",)] * 3  # None: no candidate, no keyword


# -- the run-time check: nothing else may hold the buffer ---------------------------
def _take(ctx, x, *, donated=()):
    """A kernel that records what it was donated and returns x's sum."""
    _take.donations.append(donated)
    return np.add.reduce(x, None, None, np.empty((), x.dtype))


def test_an_argument_held_elsewhere_at_run_time_is_not_donated():
    kept = np.ones(4, np.float32)

    def fresh(ctx, x):
        return x + 1.0

    def cached(ctx, x):
        return kept  # the same buffer on every call: someone else holds it

    for producer, expected in ((fresh, ("x",)), (cached, ())):
        _take.donations = []
        shape, dtype = (4,), np.dtype(np.float32)
        calls = [KernelCall(functools.partial(producer, CPU_CONTEXT), "producer", [("a", 0)], {},
                            ("a", 1, shape, dtype)),
                 KernelCall(functools.partial(_take, CPU_CONTEXT), "take", [("a", 1)], {},
                            ("a", 2, (), dtype))]
        run = build(calls, 1, [], [2], {1: np.ndarray, 2: np.ndarray})
        assert "donated=" in run.source
        run([np.zeros(4, np.float32)])
        assert _take.donations == [expected]


def test_an_input_a_returned_result_or_a_later_read_is_never_donated():
    shape, dtype = (4,), np.dtype(np.float32)

    def fresh(ctx, x):
        return x + 1.0

    produce = KernelCall(functools.partial(fresh, CPU_CONTEXT), "producer", [("a", 0)], {}, ("a", 1, shape, dtype))
    take = functools.partial(_take, CPU_CONTEXT)
    cases = {
        "input": ([KernelCall(take, "take", [("a", 0)], {}, ("a", 2, (), dtype))], [2]),
        "returned": ([produce, KernelCall(take, "take", [("a", 1)], {}, ("a", 2, (), dtype))], [2, 1]),
        "read later": ([produce, KernelCall(take, "take", [("a", 1)], {}, ("a", 2, (), dtype)),
                        KernelCall(take, "take", [("a", 1)], {}, ("a", 3, (), dtype))], [2, 3]),
    }
    for what, (calls, results) in cases.items():
        run = build(calls, 1, [], results, {s: np.ndarray for s in (1, 2, 3)})
        _take.donations = []
        run([np.zeros(4, np.float32)])
        assert _take.donations[0] == (), what
