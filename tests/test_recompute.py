"""Activation recomputation (fleet.utils.recompute, recompute_sequential), both
implementations (use_reentrant True: the PyLayer that re-runs the block and
backpropagates inside its backward; False: saved-tensor hooks).

Gradients are compared with the same block run without recompute (parameters
and inputs, float64), and with finite differences; dropout inside the block
must draw the same mask on the re-run (preserve_rng_state), and without it must
not; the forward keeps fewer bytes alive and the peak of forward+backward is
lower (tracemalloc on a deep MLP).
"""
from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest

import eager
from eager.autograd import gradcheck
from eager.distributed import fleet
from eager.distributed.fleet import meta_parallel
from eager.distributed.fleet.recompute import recompute_sequential
from eager.distributed.fleet.utils import recompute

pytestmark = pytest.mark.usefixtures("device")

MODES = [pytest.param(True, id="reentrant"), pytest.param(False, id="hooks")]


@pytest.fixture(autouse=True)
def float64():
    previous = eager.get_default_dtype()
    eager.set_default_dtype("float64")
    yield
    eager.set_default_dtype(previous)


@pytest.fixture
def tracker():
    """The global RNG-state tracker, emptied for the test and restored after it."""
    t = meta_parallel.get_rng_state_tracker()
    states, seeds = t.get_states_tracker(), set(t.seeds_)
    t.reset()
    yield t
    t.states_, t.seeds_ = states, seeds


def make_block(seed=3, dropout=0.5):
    eager.seed(seed)
    return eager.nn.Sequential(eager.nn.Linear(4, 6), eager.nn.Dropout(dropout), eager.nn.Tanh(),
                               eager.nn.Linear(6, 3))


def run(block, x_np, how, draw_between=True, **kwargs):
    """Outputs, input gradient and parameter gradients of (block(x)**2).sum(),
    the block called directly (how=None) or through recompute."""
    for p in block.parameters():
        p.clear_gradient()
    x = eager.to_tensor(x_np, stop_gradient=False)
    eager.seed(7)
    y = block(x) if how is None else recompute(block, x, use_reentrant=how, **kwargs)
    if draw_between:
        eager.rand([5])   # the generator moves on between forward and backward
    (y * y).sum().backward()
    after = eager.rand([3]).numpy()   # what the generator gives once backward is done
    # copies: numpy() shares the buffer, and clear_gradient zeroes a .grad in place
    return y.numpy().copy(), x.grad.numpy().copy(), [p.grad.numpy().copy() for p in block.parameters()], after


@pytest.mark.parametrize("use_reentrant", MODES)
def test_gradients_equal_those_without_recompute_dropout_included(rng, use_reentrant):
    block, x_np = make_block(), rng.normal(size=(5, 4))
    ref = run(block, x_np, None)
    got = run(block, x_np, use_reentrant)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-12)
    assert len(got[2]) == 4
    for g, r in zip(got[2], ref[2]):
        np.testing.assert_allclose(g, r, rtol=1e-12)
    # the re-run restored the generator afterwards: the draws after backward are the plain run's
    np.testing.assert_array_equal(got[3], ref[3])
    assert (got[0] == 0).sum() < got[0].size      # dropout did not zero everything


@pytest.mark.parametrize("use_reentrant", MODES)
def test_without_preserve_rng_state_the_rerun_draws_another_mask(rng, use_reentrant):
    block, x_np = make_block(dropout=0.5), rng.normal(size=(8, 4))
    ref = run(block, x_np, None)
    got = run(block, x_np, use_reentrant, preserve_rng_state=False)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-12)         # the forward is the same
    assert not np.allclose(got[2][0], ref[2][0])                   # the backward saw another mask


@pytest.mark.parametrize("use_reentrant", MODES)
def test_tracker_states_are_restored_for_the_rerun(rng, tracker, use_reentrant):
    tracker.add("local", 1234)
    w_np = rng.normal(size=(6, 6))

    def block(x, w):
        with tracker.rng_state("local"):
            h = eager.nn.functional.dropout(eager.matmul(x, w), 0.5)
        return eager.tanh(h)

    def grads(how):
        x = eager.to_tensor(rng_x, stop_gradient=False)
        w = eager.to_tensor(w_np, stop_gradient=False)
        y = block(x, w) if how is None else recompute(block, x, w, use_reentrant=how)
        with tracker.rng_state("local"):
            eager.rand([4])    # the named stream moves on before backward
        y.sum().backward()
        return x.grad.numpy(), w.grad.numpy()

    rng_x = rng.normal(size=(4, 6))
    states = tracker.get_states_tracker()
    ref = grads(None)
    tracker.set_states_tracker(states)
    got = grads(use_reentrant)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-12)


@pytest.mark.parametrize("use_reentrant", MODES)
def test_gradcheck_through_recompute(rng, use_reentrant):
    x = eager.to_tensor(rng.normal(size=(3, 4)), stop_gradient=False)
    w = eager.to_tensor(rng.normal(size=(4, 2)), stop_gradient=False)
    b = eager.to_tensor(rng.normal(size=(2,)), stop_gradient=False)

    def block(x, w, b):
        return eager.tanh(eager.matmul(x, w) + b) * eager.sin(x).sum()

    assert gradcheck(lambda x, w, b: recompute(block, x, w, b, use_reentrant=use_reentrant), (x, w, b))


@pytest.mark.parametrize("use_reentrant", MODES)
def test_eager_grad_through_recompute_matches_the_closed_form(rng, use_reentrant):
    x_np = rng.normal(size=(6,))
    x = eager.to_tensor(x_np, stop_gradient=False)
    y = recompute(lambda t: eager.exp(t) * t, x, use_reentrant=use_reentrant)
    (dx,) = eager.grad(y.sum(), x)
    np.testing.assert_allclose(dx.numpy(), np.exp(x_np) * (1 + x_np), rtol=1e-12)
    assert x.grad is None


@pytest.mark.parametrize("use_reentrant", MODES)
def test_inputs_without_gradient_and_non_tensor_arguments(rng, use_reentrant):
    x_np, m_np = rng.normal(size=(3, 4)), (rng.random(size=(3, 4)) > 0.5).astype(np.float64)
    x = eager.to_tensor(x_np, stop_gradient=False)
    mask = eager.to_tensor(m_np)                                   # stop_gradient=True

    def block(x, mask, power, name):
        assert name == "cube"
        return (x ** power) * mask

    y = recompute(block, x, mask, 3, "cube", use_reentrant=use_reentrant)
    y.sum().backward()
    np.testing.assert_allclose(y.numpy(), x_np ** 3 * m_np)
    np.testing.assert_allclose(x.grad.numpy(), 3 * x_np ** 2 * m_np, rtol=1e-12)
    assert mask.grad is None


@pytest.mark.parametrize("use_reentrant", MODES)
def test_multiple_outputs_and_an_unused_one(rng, use_reentrant):
    x_np = rng.normal(size=(4,))
    x = eager.to_tensor(x_np, stop_gradient=False)
    a, b, label = recompute(lambda t: (t * t, eager.sin(t), "tag"), x, use_reentrant=use_reentrant)
    assert label == "tag"
    (a.sum() + 2 * b.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x_np + 2 * np.cos(x_np), rtol=1e-12)
    x.clear_gradient()
    a, b, _ = recompute(lambda t: (t * t, eager.sin(t), "tag"), x, use_reentrant=use_reentrant)
    b.sum().backward()                                               # a gets no gradient
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x_np), rtol=1e-12)


def test_a_tuple_of_tensors_and_an_input_the_output_ignores(rng):
    x_np, y_np = rng.normal(size=(3,)), rng.normal(size=(3,))
    x, y = eager.to_tensor(x_np, stop_gradient=False), eager.to_tensor(y_np, stop_gradient=False)
    z = eager.to_tensor(y_np, stop_gradient=False)
    out = recompute(lambda pair, unused: pair[0] * pair[1], (x, y), z)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y_np)
    np.testing.assert_allclose(y.grad.numpy(), x_np)
    np.testing.assert_array_equal(z.grad.numpy(), np.zeros(3))     # reached, but no dependence


def test_an_input_returned_as_it_is_keeps_its_gradient(rng):
    x_np = rng.normal(size=(3,))
    x = eager.to_tensor(x_np, stop_gradient=False)
    same, doubled = recompute(lambda t: (t, 2 * t), x)
    (same.sum() + doubled.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))


def test_keyword_arguments_need_use_reentrant_false(rng):
    x_np, s_np = rng.normal(size=(3,)), rng.normal(size=(3,))
    x, scale = eager.to_tensor(x_np, stop_gradient=False), eager.to_tensor(s_np, stop_gradient=False)

    def block(x, scale=None, shift=0.0):
        return x * x * scale + shift

    y = recompute(block, x, scale=scale, shift=1.5, use_reentrant=False)
    y.sum().backward()
    np.testing.assert_allclose(y.numpy(), x_np ** 2 * s_np + 1.5)
    np.testing.assert_allclose(x.grad.numpy(), 2 * x_np * s_np, rtol=1e-12)
    np.testing.assert_allclose(scale.grad.numpy(), x_np ** 2, rtol=1e-12)
    with pytest.raises(ValueError, match=r"recompute: keyword arguments for the function \(scale\) need "
                                         r"use_reentrant=False"):
        recompute(block, x, scale=scale)


def test_no_input_needing_a_gradient_warns_and_gives_no_backward(rng):
    block = make_block(dropout=0.0)
    x = eager.to_tensor(rng.normal(size=(2, 4)))
    with pytest.warns(UserWarning, match="none of the inputs of this recompute block needs a gradient"):
        y = recompute(block, x)
    assert y.stop_gradient                                         # as Paddle: the block is cut off
    np.testing.assert_allclose(y.numpy(), block(x).numpy())


@pytest.mark.parametrize("use_reentrant", MODES)
def test_under_no_grad_it_is_the_plain_call(rng, use_reentrant):
    block = make_block(dropout=0.0)
    x = eager.to_tensor(rng.normal(size=(2, 4)), stop_gradient=False)
    with eager.no_grad():
        y = recompute(block, x, use_reentrant=use_reentrant)
    assert y.stop_gradient
    np.testing.assert_allclose(y.numpy(), block(x).numpy())


def test_errors_name_recompute_and_the_argument():
    x = eager.to_tensor(np.ones(3), stop_gradient=False)
    with pytest.raises(TypeError, match="recompute: argument 'function' expected a callable.*got int"):
        recompute(3, x)
    with pytest.raises(TypeError, match="recompute: argument 'preserve_rng_state' expected a bool, got str"):
        recompute(eager.tanh, x, preserve_rng_state="yes")
    with pytest.raises(TypeError, match="recompute: argument 'use_reentrant' expected a bool, got int"):
        recompute(eager.tanh, x, use_reentrant=1)
    with pytest.raises(ValueError, match="recompute: argument 1 is a tuple holding Tensors and other values"):
        recompute(lambda a, b: a, x, (x, 2.0))
    with pytest.raises(TypeError, match="recompute: argument 0 is a list holding a Tensor with "
                                        "stop_gradient=False.*use_reentrant=False"):
        recompute(lambda xs: xs[0] * 2, [x])
    with pytest.raises(TypeError, match="recompute: .* returned float; the function must return a Tensor"):
        recompute(lambda t: 1.0, x)


@pytest.mark.parametrize("use_reentrant", MODES)
def test_a_retained_graph_recomputes_again_on_the_second_backward(rng, use_reentrant):
    x_np = rng.normal(size=(4,))
    x = eager.to_tensor(x_np, stop_gradient=False)
    loss = recompute(lambda t: eager.tanh(t * t), x, use_reentrant=use_reentrant).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 2 * x_np * (1 - np.tanh(x_np ** 2) ** 2), rtol=1e-12)


def test_a_rerun_that_records_other_ops_is_an_error(rng):
    calls = []

    def changing(t):
        calls.append(1)
        return eager.sin(t) if len(calls) == 1 else t * 2.0

    x = eager.to_tensor(rng.normal(size=(3,)), stop_gradient=False)
    y = recompute(changing, x, use_reentrant=False)
    with pytest.raises(eager.autograd.AutogradError, match="recompute\\(use_reentrant=False\\): the re-run of "
                                                          ".*changing did not make the tensor"):
        y.sum().backward()


def test_recompute_sequential_equals_the_plain_model(rng, tracker):
    eager.seed(5)
    model = eager.nn.Sequential(eager.nn.Linear(4, 8), eager.nn.ReLU(), eager.nn.Linear(8, 8), eager.nn.Tanh(),
                                eager.nn.Linear(8, 2))
    x_np = rng.normal(size=(3, 4))
    results = []
    for how in (None, 1, 2, 3):
        model.clear_gradients()
        x = eager.to_tensor(x_np, stop_gradient=False)
        y = model(x) if how is None else recompute_sequential({"segments": how}, model, x)
        y.sum().backward()
        results.append([y.numpy().copy(), x.grad.numpy().copy()] + [p.grad.numpy().copy()
                                                                      for p in model.parameters()])
    for got in results[1:]:
        for g, r in zip(got, results[0]):
            np.testing.assert_allclose(g, r, rtol=1e-12)
    with pytest.raises(ValueError, match=r"recompute_sequential: ctx\['segments'\] expected an int from 1 to "
                                         r"the number of layers \(5\), got 6"):
        recompute_sequential({"segments": 6}, model, x)
    with pytest.raises(TypeError, match="recompute_sequential: argument 'ctx' expected a dict"):
        recompute_sequential(2, model, x)
    with pytest.raises(TypeError, match="recompute_sequential: argument 'functions' expected an "
                                        "eager.nn.Sequential"):
        recompute_sequential({}, model.parameters()[0], x)


def test_reachable_under_paddles_names():
    import eager.incubate.distributed.fleet as incubate_fleet

    assert fleet.recompute.recompute is recompute
    assert fleet.utils.recompute is recompute
    assert incubate_fleet.recompute_sequential is recompute_sequential
    assert eager.incubate.distributed.fleet is incubate_fleet


def _mlp(depth, width, seed=0):
    eager.seed(seed)
    layers = []
    for _ in range(depth):
        layers += [eager.nn.Linear(width, width), eager.nn.Tanh()]
    return eager.nn.Sequential(*layers)


def _memory(blocks, x_np, how):
    """(bytes held after forward, peak bytes over forward+backward), traced by tracemalloc."""
    for block in blocks:
        block.clear_gradients()
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        h = eager.to_tensor(x_np, stop_gradient=False)
        for block in blocks:
            h = block(h) if how is None else recompute(block, h, use_reentrant=how)
        loss = h.sum()
        held = tracemalloc.get_traced_memory()[0] - base
        loss.backward()
        del h, loss
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return held, peak


@pytest.mark.parametrize("use_reentrant", MODES)
def test_the_forward_keeps_fewer_activations_and_the_peak_is_lower(rng, device, use_reentrant):
    if device != "cpu":
        pytest.skip("tracemalloc sees host memory only")
    blocks = [_mlp(4, 128, seed=i) for i in range(4)]     # 16 Linear+Tanh, activations of 256x128 float64
    x_np = rng.normal(size=(256, 128))
    activation = x_np.nbytes
    held_plain, peak_plain = _memory(blocks, x_np, None)
    held_rc, peak_rc = _memory(blocks, x_np, use_reentrant)
    # plain: an activation per layer (a Tanh's output is the next Linear's saved input)
    assert held_plain > 14 * activation
    # recompute: the blocks' inputs and the output
    assert held_rc < 8 * activation
    assert peak_rc < 0.75 * peak_plain


@pytest.mark.parametrize("use_reentrant", MODES)
def test_the_rerun_uses_the_forwards_auto_cast(rng, use_reentrant):
    x_np, w_np = rng.normal(size=(4, 8)).astype("float32"), rng.normal(size=(8, 3)).astype("float32")

    def block(x, w):
        return eager.tanh(eager.matmul(x, w))          # matmul runs in float16 under auto_cast

    def grads(how):
        x = eager.to_tensor(x_np, stop_gradient=False)
        w = eager.to_tensor(w_np, stop_gradient=False)
        with eager.amp.auto_cast(level="O1", dtype="float16"):
            y = block(x, w) if how is None else recompute(block, x, w, use_reentrant=how)
        y.astype("float32").sum().backward()          # backward outside the auto_cast block
        return y.numpy(), x.grad.numpy(), w.grad.numpy()

    ref, got = grads(None), grads(use_reentrant)
    assert ref[0].dtype == np.float16
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(g, r)
