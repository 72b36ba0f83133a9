"""The fused optimizer kernels update a large host parameter block by block
(phi.kernels.optimizer._update_blockwise) without a parameter-sized temporary:
the result must be bit for bit the whole-array update's, written out here in
NumPy as the kernels computed it before blocks, for every rule, dtype case
(float32, float16 with a float32 master weight, float16 without one) and for
arrays the blocks cannot view (non-contiguous: the whole-array path runs)."""
import tracemalloc

import numpy as np
import pytest

import eager
from eager.optimizer import SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Momentum, RMSProp
from phi import api as phi_api
from phi.core import DenseTensor
from phi.kernels import optimizer as kernels

SIZE = (7, 151)  # 1057 elements: 16 blocks of 64 and a partial one


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 64 elements, so that SIZE spans many blocks and a partial last one."""
    monkeypatch.setattr(kernels, "_BLOCK", 64)


def arrays(seed, dtype="float32", n=3):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(SIZE).astype(dtype) for _ in range(n)]


def dense(value, dtype="float32"):
    return DenseTensor(np.asarray(value, dtype=dtype))


def test_sgd_matches_the_whole_array_update_bit_for_bit(small_blocks):
    p, g, _ = arrays(1)
    lr = np.float32(0.037)
    expected = p - g * lr
    param = DenseTensor(p.copy())
    phi_api.sgd_(param, dense(lr), DenseTensor(g))
    np.testing.assert_array_equal(param.array, expected)


def test_sgd_float16_with_and_without_master_weight(small_blocks):
    p16, g16, _ = arrays(2, "float16")
    lr = np.float32(0.25)
    master = p16.astype(np.float32) + np.float32(1e-3)
    want_master = master - g16.astype(np.float32) * lr
    param, m = DenseTensor(p16.copy()), DenseTensor(master.copy())
    phi_api.sgd_(param, dense(lr), DenseTensor(g16), m, True)
    np.testing.assert_array_equal(m.array, want_master)
    np.testing.assert_array_equal(param.array, want_master.astype(np.float16))
    # no master weight: computed on a float32 copy, rounded back
    param = DenseTensor(p16.copy())
    phi_api.sgd_(param, dense(lr), DenseTensor(g16))
    np.testing.assert_array_equal(param.array, (p16.astype(np.float32) - g16.astype(np.float32) * lr)
                                  .astype(np.float16))


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("rescale", [1.0, 0.5])
@pytest.mark.parametrize("coeff", [0.0, 0.01])
def test_momentum_matches_the_whole_array_update(small_blocks, nesterov, rescale, coeff):
    p, g, v = arrays(3)
    lr, mu = np.float32(0.05), 0.9
    g_eff = g if rescale == 1.0 else g * rescale
    if coeff:
        g_eff = p * coeff + g_eff
    want_v = v * mu + g_eff
    step = (want_v * mu + g_eff) * lr if nesterov else want_v * lr
    want_p = p - step
    param, velocity = DenseTensor(p.copy()), DenseTensor(v.copy())
    phi_api.momentum_(param, DenseTensor(g), velocity, dense(lr), None, mu, nesterov,
                      "l2_decay" if coeff else "", coeff, False, rescale)
    np.testing.assert_array_equal(velocity.array, want_v)
    np.testing.assert_array_equal(param.array, want_p)


@pytest.mark.parametrize("op", ["adam_", "adamw_"])
def test_adam_matches_the_whole_array_update(small_blocks, op):
    p, g, m1 = arrays(4)
    m2 = arrays(5)[0] ** 2
    lr, b1, b2, eps = np.float32(0.01), 0.9, 0.999, 1e-8
    b1p, b2p = np.float32(0.9 ** 3), np.float32(0.999 ** 3)
    want_p = p.copy()
    if op == "adamw_":
        want_p = want_p * (1.0 - lr * 0.5 * 0.1)
        lr_used = lr * 0.5
    else:
        lr_used = lr
    # 1 - beta in float32, as Paddle's kernel (and its bias correction) computes it
    want_m1 = m1 * b1 + g * (np.float32(1) - np.float32(b1))
    want_m2 = m2 * b2 + (g * g) * (np.float32(1) - np.float32(b2))
    c2 = np.sqrt(1.0 - b2p)
    want_p = want_p - (want_m1 / (np.sqrt(want_m2) + eps * c2)) * (lr_used * c2 / (1.0 - b1p))
    t = dict(param=DenseTensor(p.copy()), grad=DenseTensor(g), learning_rate=dense(lr),
             moment1=DenseTensor(m1.copy()), moment2=DenseTensor(m2.copy()),
             beta1_pow=dense([b1p]), beta2_pow=dense([b2p]))
    extra = dict(lr_ratio=0.5, coeff=0.1, with_decay=True) if op == "adamw_" else {}
    getattr(phi_api, op)(**t, beta1=b1, beta2=b2, epsilon=eps, **extra)
    np.testing.assert_array_equal(t["moment1"].array, want_m1)
    np.testing.assert_array_equal(t["moment2"].array, want_m2)
    np.testing.assert_array_equal(t["param"].array, want_p)
    np.testing.assert_array_equal(t["beta1_pow"].array, [b1p * np.float32(b1)])


def train(make_opt, params, grads):
    """Each step sets every gradient and steps; returns the parameters and state dict."""
    tensors = [eager.nn.Parameter(p.copy()) for p in params]
    opt = make_opt(tensors)
    for step_grads in grads:
        for t, g in zip(tensors, step_grads):
            t.grad = eager.to_tensor(g)
        opt.step()
    return [t.numpy() for t in tensors], {k: np.array(v.numpy()) for k, v in opt.state_dict().items()
                                          if hasattr(v, "numpy")}


OPTIMIZERS = {
    "sgd": lambda ps: SGD(0.1, parameters=ps),
    "sgd_decay": lambda ps: SGD(0.1, parameters=ps, weight_decay=0.01),
    "momentum": lambda ps: Momentum(0.05, momentum=0.9, parameters=ps),
    "nesterov_decay": lambda ps: Momentum(0.05, momentum=0.9, use_nesterov=True, weight_decay=0.01,
                                          parameters=ps),
    "adam": lambda ps: Adam(0.01, parameters=ps),
    "adamw": lambda ps: AdamW(0.01, parameters=ps, weight_decay=0.1),
    "adamax": lambda ps: Adamax(0.01, parameters=ps),
    "adagrad": lambda ps: Adagrad(0.01, parameters=ps),
    "adadelta": lambda ps: Adadelta(0.5, parameters=ps),
    "rmsprop": lambda ps: RMSProp(0.01, parameters=ps),
    "rmsprop_centered": lambda ps: RMSProp(0.01, momentum=0.5, centered=True, parameters=ps),
    "clip": lambda ps: Adam(0.01, parameters=ps, grad_clip=eager.nn.ClipGradByGlobalNorm(1.0)),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_training_is_the_same_in_blocks_and_whole(monkeypatch, name):
    rng = np.random.default_rng(6)
    params = [rng.standard_normal(SIZE).astype("float32"), rng.standard_normal(40).astype("float32"),
              # a non-contiguous parameter: the whole-array path, inside a blocked step
              np.asfortranarray(rng.standard_normal((30, 40)).astype("float32"))]
    grads = [[rng.standard_normal(p.shape).astype("float32") for p in params] for _ in range(3)]
    monkeypatch.setattr(kernels, "_BLOCK", 10 ** 9)
    whole = train(OPTIMIZERS[name], params, grads)
    monkeypatch.setattr(kernels, "_BLOCK", 64)
    blocked = train(OPTIMIZERS[name], params, grads)
    for a, b in zip(whole[0], blocked[0]):
        np.testing.assert_array_equal(a, b)
    assert whole[1].keys() == blocked[1].keys()
    for key in whole[1]:
        np.testing.assert_array_equal(whole[1][key], blocked[1][key], err_msg=key)


def test_multi_precision_adam_is_the_same_in_blocks_and_whole(monkeypatch):
    rng = np.random.default_rng(7)
    params = [rng.standard_normal(SIZE).astype("float16")]
    grads = [[rng.standard_normal(SIZE).astype("float16")] for _ in range(3)]

    def make(ps):
        return Adam(0.01, parameters=ps, multi_precision=True)

    monkeypatch.setattr(kernels, "_BLOCK", 10 ** 9)
    whole = train(make, params, grads)
    monkeypatch.setattr(kernels, "_BLOCK", 64)
    blocked = train(make, params, grads)
    np.testing.assert_array_equal(whole[0][0], blocked[0][0])
    for key in whole[1]:
        np.testing.assert_array_equal(whole[1][key], blocked[1][key], err_msg=key)


def test_a_large_update_allocates_no_parameter_sized_temporary():
    n = 16 * kernels._BLOCK  # SGD splits parameters of more than 4 blocks
    p = DenseTensor(np.ones(n, np.float32))
    g, lr = DenseTensor(np.full(n, 2.0, np.float32)), dense(0.5)
    moments = [DenseTensor(np.zeros(n, np.float32)) for _ in range(2)]
    pows = [dense([0.9]), dense([0.999])]
    phi_api.adam_(p, g, lr, *moments, *pows)  # warm: signature checks, kernel selection
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        phi_api.adam_(p, g, lr, *moments, *pows)
        phi_api.sgd_(p, lr, g)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert peak < n * 4 // 2, peak  # a block or four of scratch, not a parameter's worth


@pytest.mark.parametrize("decay", ["l2", "l1"])
def test_weight_decay_is_added_into_its_own_term_bit_for_bit(decay):
    rng = np.random.default_rng(8)
    p0, g0 = rng.standard_normal((5, 6)).astype("float32"), rng.standard_normal((5, 6)).astype("float32")
    w = eager.nn.Parameter(p0.copy())
    w.grad = eager.to_tensor(g0.copy())
    grad_array = w.grad.impl.array
    reg = eager.regularizer.L2Decay(0.01) if decay == "l2" else eager.regularizer.L1Decay(0.01)
    SGD(0.1, parameters=[w], weight_decay=reg).step()
    term = p0 * np.float32(0.01) if decay == "l2" else np.sign(p0) * np.float32(0.01)
    np.testing.assert_array_equal(w.numpy(), p0 - (g0 + term) * np.float32(0.1))
    assert w.grad.impl.array is grad_array
    np.testing.assert_array_equal(w.grad.numpy(), g0)  # the gradient itself is never changed


def test_a_custom_regularizers_term_is_not_written_into():
    kept = []

    class Keep(eager.regularizer.WeightDecayRegularizer):
        def __init__(self):
            self.coeff = 1.0

        def __call__(self, param, grad):
            term = eager.to_tensor(np.full(param.shape, 0.5, "float32"))
            kept.append(term)
            return term

    w = eager.nn.Parameter(np.ones(3, "float32"))
    w.grad = eager.to_tensor(np.ones(3, "float32"))
    SGD(1.0, parameters=[w], weight_decay=Keep()).step()
    np.testing.assert_array_equal(w.numpy(), [-0.5, -0.5, -0.5])
    np.testing.assert_array_equal(kept[0].numpy(), [0.5, 0.5, 0.5])


def step_peak(opt):
    """Peak bytes above the start during opt.step() (the step warmed first)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        opt.step()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("clip", [lambda: eager.nn.ClipGradByGlobalNorm(0.5),
                                  lambda: eager.nn.ClipGradByNorm(0.5),
                                  lambda: eager.nn.ClipGradByValue(0.01)])
def test_clipped_gradients_are_made_one_at_a_time_with_the_same_values(clip):
    rng = np.random.default_rng(9)
    inits = [rng.standard_normal((256, 256)).astype("float32") for _ in range(4)]
    grads = [rng.standard_normal((256, 256)).astype("float32") for _ in range(4)]
    base = type(clip())

    class AllAtOnce(base):  # overrides _dygraph_clip: the optimizer must call it, list and all
        def _dygraph_clip(self, params_grads):
            return super()._dygraph_clip(params_grads)

    results, peaks = [], []
    for make in (clip, lambda: AllAtOnce(*((0.5,) if base is not eager.nn.ClipGradByValue else (0.01,)))):
        ps = [eager.nn.Parameter(p.copy()) for p in inits]
        opt = SGD(0.1, parameters=ps, grad_clip=make())
        for _ in range(2):  # the second step is measured, warm
            for p, g in zip(ps, grads):
                p.grad = eager.to_tensor(g)
            peaks.append(step_peak(opt))
        results.append([p.numpy() for p in ps])
        for p, g in zip(ps, grads):
            np.testing.assert_array_equal(p.grad.numpy(), g)  # never written
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    one = inits[0].nbytes
    assert peaks[1] < peaks[3] - 2 * one, peaks  # all four clipped gradients at once vs one or two


def test_a_failing_global_norm_leaves_the_optimizer_as_it_was():
    w = eager.nn.Parameter(np.ones(3, "float32"))
    w.grad = eager.to_tensor(np.ones(3, "float32"))

    class Broken(eager.nn.ClipGradByGlobalNorm):
        def _each(self, params_grads):
            raise RuntimeError("norm failed")
            yield

    opt = SGD(0.1, parameters=[w], grad_clip=Broken(1.0))
    with pytest.raises(RuntimeError, match="norm failed"):
        opt.step()
    assert opt.state_dict()["@step"] == 0
    np.testing.assert_array_equal(w.numpy(), [1.0, 1.0, 1.0])
