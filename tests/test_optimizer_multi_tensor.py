"""use_multi_tensor=True (eager/optimizer/multi_tensor.py): parameters sharing a
dtype, device, learning rate and hyperparameters are updated by one fused call
on flat buffers once their .grad buffers stay from step to step. Training must
be bit for bit the one-by-one update's, and the parameters must stay ordinary
tensors: state dicts, set_state_dict, save/load, Layer.to. Runs on the CPU and
on the (fake) GPU."""
from __future__ import annotations

import numpy as np
import pytest

import eager
from eager import nn

pytestmark = pytest.mark.usefixtures("device")

OPTIMIZERS = {
    "SGD": dict(learning_rate=0.1),
    "Momentum": dict(learning_rate=0.05, momentum=0.8, use_nesterov=True, weight_decay=0.01),
    "Adam": dict(learning_rate=0.01),
    "AdamW": dict(learning_rate=0.01, weight_decay=0.05,
                  apply_decay_param_fun=lambda name: "bias" not in name),
}


def _net():
    eager.seed(11)
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))


def _batch(i):
    rng = np.random.default_rng(i)
    return (eager.to_tensor(rng.standard_normal((5, 6)).astype(np.float32)),
            eager.to_tensor(rng.standard_normal((5, 3)).astype(np.float32)))


def _optimizer(name, net, multi):
    return getattr(eager.optimizer, name)(parameters=net.parameters(), use_multi_tensor=multi,
                                          **OPTIMIZERS[name])


def _train(net, opt, steps, set_to_zero=True, first=0):
    for i in range(first, first + steps):
        x, y = _batch(i)
        nn.functional.mse_loss(net(x), y).backward()
        opt.step()
        opt.clear_grad(set_to_zero)


def _same(a, b):
    return all(p.numpy().tobytes() == q.numpy().tobytes() for p, q in zip(a, b))


def _renamed(state: dict, net_from, net_to) -> dict:
    """An optimizer state dict of net_from's parameters, keyed by net_to's names."""
    rename = {p.name: q.name for p, q in zip(net_from.parameters(), net_to.parameters())}

    def key_of(key):
        for old in sorted(rename, key=len, reverse=True):
            if key.startswith(old + "_"):
                return rename[old] + key[len(old):]
        return key

    return {key_of(k): v for k, v in state.items()}


def _same_state(a: dict, b: dict, net_a, net_b):
    """The optimizer state dicts hold the same values for corresponding parameters."""
    b = _renamed(b, net_b, net_a)
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert a[key].tobytes() == b[key].tobytes(), key
        else:
            assert a[key] == b[key], key


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("set_to_zero", [True, False])
def test_training_is_bitwise_the_one_by_one_update(name, set_to_zero):
    nets = [_net(), _net()]
    opts = [_optimizer(name, nets[0], False), _optimizer(name, nets[1], True)]
    for net, opt in zip(nets, opts):
        _train(net, opt, 5, set_to_zero)
    assert _same(nets[0].parameters(), nets[1].parameters())
    _same_state(opts[0].state_dict(), opts[1].state_dict(), *nets)
    # Groups form only over .grad buffers that stay (clear_grad() zeroes them in place).
    assert bool(opts[1]._flat_groups) is set_to_zero


def test_a_group_updates_in_one_call_and_parameters_view_its_buffer():
    net = _net()
    opt = _optimizer("Adam", net, True)
    _train(net, opt, 3)
    (group,) = opt._flat_groups.values()
    flat = group.param_buffer.flat.array
    for p in net.parameters():
        assert p.impl.array.base is flat and p.grad.impl.array.base is group.grad_buffer.flat.array
    versions = [p.impl.version for p in net.parameters()]
    _train(net, opt, 1, first=3)
    assert [p.impl.version for p in net.parameters()] == [v + 1 for v in versions]
    assert opt._flat_groups[next(iter(opt._flat_groups))] is group


def test_state_dicts_save_load_and_set_state_dict(tmp_path):
    ref_net, net = _net(), _net()
    ref_opt, opt = _optimizer("Adam", ref_net, False), _optimizer("Adam", net, True)
    _train(ref_net, ref_opt, 4)
    _train(net, opt, 4)
    _same_state(ref_opt.state_dict(), opt.state_dict(), ref_net, net)
    eager.save(net.state_dict(), str(tmp_path / "net.pdparams"))
    eager.save(opt.state_dict(), str(tmp_path / "opt.pdopt"))

    # A fresh model and multi-tensor optimizer restored from the files trains on as the original.
    net2 = _net()
    opt2 = _optimizer("Adam", net2, True)
    net2.set_state_dict(eager.load(str(tmp_path / "net.pdparams")))
    opt2.set_state_dict(_renamed(eager.load(str(tmp_path / "opt.pdopt")), net, net2))
    _train(ref_net, ref_opt, 3, first=4)
    _train(net2, opt2, 3, first=4)
    assert _same(ref_net.parameters(), net2.parameters())

    # set_state_dict into a running group, with beta powers that differ per parameter.
    state = ref_opt.state_dict()
    state[f"{ref_net.parameters()[0].name}_beta1_pow_acc_0"] = np.array([0.5], np.float32)
    ref_opt.set_state_dict(state)
    opt2.set_state_dict(_renamed(state, ref_net, net2))
    ref_net.set_state_dict(net2.state_dict())
    _train(ref_net, ref_opt, 3, first=7)
    _train(net2, opt2, 3, first=7)
    assert _same(ref_net.parameters(), net2.parameters())
    _same_state(ref_opt.state_dict(), opt2.state_dict(), ref_net, net2)


def test_set_value_and_layer_to_keep_training_right(device):
    ref_net, net = _net(), _net()
    ref_opt, opt = _optimizer("SGD", ref_net, False), _optimizer("SGD", net, True)
    _train(ref_net, ref_opt, 3)
    _train(net, opt, 3)
    assert opt._flat_groups
    for a, b in zip(ref_net.parameters(), net.parameters()):
        values = np.full(a.shape, 0.25, np.float32)
        a.set_value(values)
        b.set_value(values)  # written into its slice of the group's buffer
    _train(ref_net, ref_opt, 2, first=3)
    _train(net, opt, 2, first=3)
    assert _same(ref_net.parameters(), net.parameters())

    other = "cpu" if device == "gpu" else "gpu"
    for n in (ref_net, net):
        n.to(other)  # new buffers: the group no longer holds and is made again
    for i in range(5, 9):
        x, y = _batch(i)
        for n, o in ((ref_net, ref_opt), (net, opt)):
            nn.functional.mse_loss(n(x.to(other)), y.to(other)).backward()
            o.step()
            o.clear_grad()
    assert _same(ref_net.parameters(), net.parameters())
    assert all(str(p.place) == str(q.place) for p, q in zip(ref_net.parameters(), net.parameters()))


def test_parameters_without_gradients_or_other_rates_update_on_their_own():
    ref_net, net = _net(), _net()
    for n in (ref_net, net):
        n[2].weight.optimize_attr["learning_rate"] = 0.5  # another learning rate: another group
    ref_opt, opt = _optimizer("Momentum", ref_net, False), _optimizer("Momentum", net, True)
    for i in range(6):
        x, y = _batch(i)
        for n, o in ((ref_net, ref_opt), (net, opt)):
            out = n(x)
            if i % 3 == 2:  # the last layer's bias gets no gradient on these steps
                out = out - n[2].bias.detach()
            nn.functional.mse_loss(out, y).backward()
            if i % 3 == 2:
                n[2].bias.clear_grad(set_to_zero=False)
            o.step()
            o.clear_grad()
    assert _same(ref_net.parameters(), net.parameters())
    _same_state(ref_opt.state_dict(), opt.state_dict(), ref_net, net)


def test_use_multi_tensor_is_checked():
    with pytest.raises(TypeError, match="use_multi_tensor"):
        eager.optimizer.SGD(parameters=_net().parameters(), use_multi_tensor="yes")


@pytest.mark.parametrize("name", ["Momentum", "Adam"])
def test_a_scheduled_learning_rate_keeps_the_group(name):
    nets = [_net(), _net()]
    opts = []
    for net, multi in zip(nets, (False, True)):
        kwargs = dict(OPTIMIZERS[name], learning_rate=eager.optimizer.lr.ExponentialDecay(0.05, gamma=0.8))
        opts.append(getattr(eager.optimizer, name)(parameters=net.parameters(), use_multi_tensor=multi, **kwargs))
    for i in range(6):
        x, y = _batch(i)
        for net, opt in zip(nets, opts):
            nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            opt.clear_grad()
            opt._lr_scheduler.step()  # a new rate, so a new learning-rate tensor, every step
        if i >= 1:
            assert len(opts[1]._flat_groups) == 1 and len(opts[1]._flat_seen) == 0
    (group,) = opts[1]._flat_groups.values()
    assert group.param_buffer.intact([p.impl for p in nets[1].parameters()])
    assert _same(nets[0].parameters(), nets[1].parameters())
    _same_state(opts[0].state_dict(), opts[1].state_dict(), *nets)


def test_the_multi_tensor_key_is_kept_in_the_plans(monkeypatch):
    """The hyperparameter part of the key is worked out once per parameter plan,
    and again for every parameter when a setting changes (plans dropped)."""
    net = _net()
    opt = _optimizer("Momentum", net, True)
    asked = []
    hyper_key = type(opt)._hyper_key
    monkeypatch.setattr(type(opt), "_hyper_key", lambda self, p: asked.append(p.name) or hyper_key(self, p))
    _train(net, opt, 3)
    names = [p.name for p in net.parameters()]
    assert sorted(asked) == sorted(names)
    ref_net = _net()
    ref = _optimizer("Momentum", ref_net, False)
    _train(ref_net, ref, 3)
    opt._momentum = ref._momentum = 0.5  # a setting the plans rest on
    _train(net, opt, 2, first=3)
    _train(ref_net, ref, 2, first=3)
    assert sorted(asked) == sorted(names * 2)
    assert _same(ref_net.parameters(), net.parameters()) and opt._flat_groups


def test_adamw_callables_are_asked_at_every_multi_tensor_step():
    """AdamW's lr_ratio is read per parameter at every step: a ratio that changes
    between steps moves parameters between groups, bit for bit the one-by-one update."""
    def make(multi):
        net = _net()
        step = [0]
        ratio = (lambda p: 1.0 if step[0] < 3 or "bias" in p.name else 0.5)
        opt = eager.optimizer.AdamW(learning_rate=0.01, parameters=net.parameters(), weight_decay=0.05,
                                    lr_ratio=ratio, use_multi_tensor=multi)
        return net, opt, step
    runs = [make(False), make(True)]
    for net, opt, step in runs:
        for i in range(6):
            step[0] = i
            _train(net, opt, 1, first=i)
    assert _same(runs[0][0].parameters(), runs[1][0].parameters())
    _same_state(runs[0][1].state_dict(), runs[1][1].state_dict(), runs[0][0], runs[1][0])
