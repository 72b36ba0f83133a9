"""Fine-tuning a TranslatedLayer (eager.jit.load) and saving functions with
eager.jit.save: the loaded layer trains as the original eager Layer does,
step for step, and a second save/load keeps what it learned."""
import json

import numpy as np
import pytest

import eager
from eager import nn
from eager.errors import AutogradError
from eager.jit import InputSpec
from eager.jit.translated_layer import program_of
from eager.nn import functional as F

RNG = np.random.default_rng(5)
XS = [RNG.standard_normal((4, 6)) for _ in range(4)]
YS = [RNG.standard_normal((4, 3)) for _ in range(4)]


def _mlp(dtype="float64"):
    eager.seed(3)
    eager.set_default_dtype(dtype)
    try:
        return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
    finally:
        eager.set_default_dtype("float32")


def _steps(layer, n=3, dtype="float64", optimizer="sgd"):
    """n training steps; the losses, gradients after each step and final parameters."""
    params = layer.parameters()
    opt = (eager.optimizer.Adam(0.05, parameters=params) if optimizer == "adam"
           else eager.optimizer.SGD(0.1, parameters=params))
    losses, grads = [], []
    for x, y in zip(XS[:n], YS[:n]):
        loss = F.mse_loss(layer(eager.to_tensor(x.astype(dtype))), eager.to_tensor(y.astype(dtype)))
        loss.backward()
        losses.append(loss.numpy().copy())
        grads.append([p.grad.numpy().copy() for p in params])
        opt.step()
        opt.clear_grad()
    return losses, grads, [p.numpy().copy() for p in params]


def _same(a, b):
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x, y)
    for gx, gy in zip(a[1], b[1]):
        for x, y in zip(gx, gy):
            np.testing.assert_array_equal(x, y)
    for x, y in zip(a[2], b[2]):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_a_loaded_mlp_trains_as_the_original_and_saves_what_it_learned(tmp_path, optimizer):
    original = _mlp()
    eager.jit.save(original, str(tmp_path / "mlp"), input_spec=[InputSpec([None, 6], "float64")])
    layer = eager.jit.load(str(tmp_path / "mlp"))
    assert not layer.training  # eval mode after load, as Paddle's jit.load
    layer.train()
    assert layer.training and all(isinstance(p, eager.nn.Parameter) and not p.stop_gradient
                                  for p in layer.parameters())
    assert layer(eager.to_tensor(XS[0])).grad_node.backward_op == "to_static_grad"
    got = _steps(layer, optimizer=optimizer)
    want = _steps(original, optimizer=optimizer)
    _same(got, want)  # the same kernels in the same order: equal to the last bit
    # inputs without a gradient ran the program that computes none for them
    assert {key[2] for key in program_of(layer).compiled} == {"train/params"}
    assert not np.array_equal(got[2][0], _mlp().parameters()[0].numpy())  # it did train
    # a second round trip keeps the trained values, and trains on as the original
    eager.jit.save(layer, str(tmp_path / "again"), input_spec=[InputSpec([None, 6], "float64")])
    again = eager.jit.load(str(tmp_path / "again"))
    again.train()  # eval mode after load, as Paddle's
    assert list(again.state_dict()) == list(original.state_dict())
    for p, q in zip(again.parameters(), original.parameters()):
        np.testing.assert_array_equal(p.numpy(), q.numpy())
    _same(_steps(again, n=2), _steps(original, n=2))


def test_the_recorded_backward_matches_numpy_from_the_maths(tmp_path):
    original = _mlp()
    eager.jit.save(original, str(tmp_path / "mlp"), input_spec=[InputSpec([None, 6], "float64")])
    layer = eager.jit.load(str(tmp_path / "mlp"))
    layer.train()  # eval mode after load, as Paddle's
    w1, b1, w2, b2 = (p.numpy() for p in layer.parameters())
    x, y = XS[0], YS[0]
    xt = eager.to_tensor(x, stop_gradient=False)
    loss = F.mse_loss(layer(xt), eager.to_tensor(y))
    loss.backward()
    assert {key[2] for key in program_of(layer).compiled} == {"train"}  # the program with the input's gradient
    h = np.tanh(x @ w1 + b1)
    d_out = 2 * (h @ w2 + b2 - y) / y.size
    d_h = d_out @ w2.T * (1 - h ** 2)
    for got, want in zip([p.grad.numpy() for p in layer.parameters()] + [xt.grad.numpy()],
                         [x.T @ d_h, d_h.sum(0), h.T @ d_out, d_out.sum(0), d_h @ w1.T]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def _convnet():
    eager.seed(9)
    return nn.Sequential(nn.Conv2D(1, 3, 3), nn.BatchNorm2D(3), nn.ReLU(), nn.Flatten(),
                         nn.Linear(3 * 4 * 4, 5), nn.Dropout(0.4))


def test_train_mode_runs_dropout_and_batch_norm_as_eager_and_save_leaves_the_model_as_it_was(tmp_path):
    original = _convnet()
    before = {k: v.numpy().copy() for k, v in original.state_dict().items()}
    versions = [t.inplace_version for t in original.state_dict().values()]
    state = eager.get_rng_state()
    draws = eager.rand([3]).numpy()
    eager.set_rng_state(state)
    eager.jit.save(original, str(tmp_path / "cnn"), input_spec=[InputSpec([None, 1, 6, 6])])
    np.testing.assert_array_equal(eager.rand([3]).numpy(), draws)  # the traces drew nothing
    for (k, v), version in zip(original.state_dict().items(), versions):
        np.testing.assert_array_equal(v.numpy(), before[k])
        assert v.inplace_version == version
    layer = eager.jit.load(str(tmp_path / "cnn"))
    layer.train()  # eval mode after load, as Paddle's
    images = [RNG.standard_normal((2, 1, 6, 6)).astype("float32") for _ in range(3)]
    runs = []
    for model in (layer, original):
        opt = eager.optimizer.SGD(0.1, parameters=model.parameters())
        eager.seed(21)
        outs = []
        for image in images:
            out = model(eager.to_tensor(image))
            (out * out).sum().backward()
            opt.step()
            opt.clear_grad()
            outs.append(out.numpy().copy())
        model.eval()
        with eager.no_grad():
            outs.append(model(eager.to_tensor(images[0])).numpy())
        runs.append((outs, {k: v.numpy().copy() for k, v in model.state_dict().items()}))
    for x, y in zip(runs[0][0], runs[1][0]):
        np.testing.assert_array_equal(x, y)
    assert runs[0][1].keys() == runs[1][1].keys()
    for k in runs[0][1]:
        np.testing.assert_array_equal(runs[0][1][k], runs[1][1][k])  # running statistics moved alike
    assert not np.array_equal(runs[0][1]["1._mean"], before["1._mean"])


def test_two_outputs_deliver_the_gradients_of_the_ones_used(tmp_path):
    class TwoHeads(nn.Layer):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(4, 5)
            self.a = nn.Linear(5, 2)
            self.b = nn.Linear(5, 3)

        def forward(self, x):
            h = F.relu(self.body(x))
            return self.a(h), {"b": self.b(h)}

    eager.seed(2)
    net = TwoHeads()
    eager.jit.save(net, str(tmp_path / "heads"), input_spec=[InputSpec([None, 4])])
    layer = eager.jit.load(str(tmp_path / "heads"))
    x = RNG.standard_normal((3, 4)).astype("float32")
    for use in ("a", "b", "both"):
        grads = []
        for model in (layer, net):
            xt = eager.to_tensor(x, stop_gradient=False)
            a, rest = model(xt)
            loss = {"a": a.sum(), "b": rest["b"].mean(), "both": a.sum() + rest["b"].mean()}[use]
            loss.backward()
            grads.append([xt.grad.numpy()] + [None if p.grad is None else p.grad.numpy() for p in model.parameters()])
            model.clear_gradients()
        for g, h in zip(*grads):
            assert (g is None) == (h is None), use  # a head the loss does not use gets no gradient
            if g is not None:
                np.testing.assert_array_equal(g, h)
        assert (grads[0][-1] is None) == (use == "a")


def test_fine_tuning_errors_name_the_cause_and_leave_gradients_alone(tmp_path):
    original = _mlp("float32")
    original[0].weight.stop_gradient = True  # frozen when saved
    eager.jit.save(original, str(tmp_path / "m"), input_spec=[InputSpec([None, 6], stop_gradient=True)])
    layer = eager.jit.load(str(tmp_path / "m"))
    x = eager.to_tensor(XS[0].astype("float32"))
    weight = dict(layer.named_parameters())["0.weight"]
    assert weight.stop_gradient  # saved frozen, loaded frozen
    weight.stop_gradient = False
    with pytest.raises(ValueError, match=r"parameter '0.weight' requires a gradient, but was saved frozen"):
        layer(x)
    weight.stop_gradient = True
    with pytest.raises(ValueError, match=r"input 0 requires a gradient, but was saved with "
                                         r"InputSpec\(stop_gradient=True\)"):
        layer(eager.to_tensor(XS[0].astype("float32"), stop_gradient=False))
    out = layer(x)
    with pytest.raises(AutogradError, match="create_graph=True through the output of a TranslatedLayer"):
        eager.grad(out.sum(), [dict(layer.named_parameters())["0.bias"]], create_graph=True)
    assert all(p.grad is None for p in layer.parameters())
    loss = layer(x).sum()
    params = dict(layer.named_parameters())
    with eager.no_grad():
        params["2.weight"].scale_(0.5)  # a parameter the backward reads, written in place
    with pytest.raises(AutogradError, match="modified by an inplace operation"):
        loss.backward()
    assert all(p.grad is None for p in layer.parameters())


def test_an_older_inference_only_program_still_loads(tmp_path):
    original = _mlp("float32")
    prefix = str(tmp_path / "old")
    eager.jit.save(original, prefix, input_spec=[InputSpec([None, 6])])
    with open(prefix + ".pdmodel", encoding="utf-8") as stream:
        document = json.load(stream)
    document["version"] = 1
    del document["grad"]
    with open(prefix + ".pdmodel", "w", encoding="utf-8") as stream:
        json.dump(document, stream)
    layer = eager.jit.load(prefix)
    x = eager.to_tensor(XS[0].astype("float32"))
    out = layer(x)
    assert out.grad_node is None  # version 1 holds no backward
    with eager.no_grad():
        np.testing.assert_array_equal(out.numpy(), original(x).numpy())


def test_to_static_replays_a_training_step_of_a_loaded_layer(tmp_path):
    original = _mlp("float32")
    eager.jit.save(original, str(tmp_path / "m"), input_spec=[InputSpec([None, 6])])
    runs = []
    for static in (False, True):
        layer = eager.jit.load(str(tmp_path / "m"))
        opt = eager.optimizer.SGD(0.1, parameters=layer.parameters())

        def step(x, y):
            loss = F.mse_loss(layer(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        fn = eager.jit.to_static(step) if static else step
        losses = [fn(eager.to_tensor(x.astype("float32")), eager.to_tensor(y.astype("float32"))).numpy()
                  for x, y in zip(XS, YS)]
        runs.append((losses, [p.numpy() for p in layer.parameters()], fn))
    for x, y in zip(runs[0][0] + runs[0][1], runs[1][0] + runs[1][1]):
        np.testing.assert_array_equal(x, y)
    assert runs[1][2].replays >= 1 and not runs[1][2].reasons


def test_a_function_saves_and_loads_with_its_input_spec(tmp_path):
    @eager.jit.to_static(input_spec=[InputSpec([None, 3], "float32"), InputSpec([3], "float32")])
    def scaled_tanh(x, w):
        return eager.tanh(x * w) + 1.0

    eager.jit.save(scaled_tanh, str(tmp_path / "fn"))  # the input_spec of to_static
    loaded = eager.jit.load(str(tmp_path / "fn"))
    assert loaded.parameters() == []
    x = RNG.standard_normal((5, 3)).astype("float32")
    w = RNG.standard_normal(3).astype("float32")
    xt, wt = eager.to_tensor(x, stop_gradient=False), eager.to_tensor(w, stop_gradient=False)
    out = loaded(xt, wt)
    np.testing.assert_array_equal(out.numpy(), np.tanh(x * w) + np.float32(1.0))
    out.sum().backward()
    d = 1 - np.tanh(x * w) ** 2
    np.testing.assert_allclose(xt.grad.numpy(), d * w, rtol=1e-6)
    np.testing.assert_allclose(wt.grad.numpy(), (d * x).sum(0), rtol=1e-5)

    def plain(x):
        return x * 2.0

    eager.jit.save(plain, str(tmp_path / "plain"), input_spec=[InputSpec([2, 2])])
    np.testing.assert_array_equal(eager.jit.load(str(tmp_path / "plain"))(eager.ones([2, 2])).numpy(),
                                  np.full((2, 2), 2.0, "float32"))


def test_saving_a_function_needs_an_input_spec_and_no_parameters(tmp_path):
    def plain(x):
        return x * 2.0

    with pytest.raises(ValueError, match="argument 'input_spec' is needed.*traces the function"):
        eager.jit.save(plain, str(tmp_path / "f"))
    with pytest.raises(ValueError, match="argument 'input_spec' is needed"):
        eager.jit.save(eager.jit.to_static(plain), str(tmp_path / "f"))
    net = nn.Linear(2, 2)

    def uses_a_layer(x):
        return net(x)

    with pytest.raises(ValueError, match=r"cannot save function .*uses_a_layer.*cannot locate.*wrap it and "
                                         r"the Layers it uses in a Layer"):
        eager.jit.save(uses_a_layer, str(tmp_path / "g"), input_spec=[InputSpec([1, 2])])


@pytest.mark.usefixtures("device")
def test_fine_tuning_on_the_device_axis(tmp_path, device):
    original = _mlp("float32")  # made on the device: save traces there (copies of the state included)
    eager.jit.save(original, str(tmp_path / "m"), input_spec=[InputSpec([None, 6])])
    layer = eager.jit.load(str(tmp_path / "m")).to(device)
    _same(_steps(layer, dtype="float32"), _steps(original, dtype="float32"))


def test_a_forward_whose_backward_was_not_recorded_runs_and_its_backward_raises(tmp_path):
    class FourOut(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 4)

        def forward(self, x):
            h = self.fc(x)
            return h * 1.0, h * 2.0, h * 3.0, h * 4.0  # more than three outputs carry a gradient

    eager.seed(0)
    net = FourOut()
    eager.jit.save(net, str(tmp_path / "four"), input_spec=[InputSpec([None, 2])])
    layer = eager.jit.load(str(tmp_path / "four"))
    x = eager.to_tensor(RNG.standard_normal((3, 2)).astype("float32"))
    outs = layer(x)  # train mode with trainable parameters: the forward runs all the same
    for got, want in zip(outs, net(x)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(AutogradError, match="no backward.*4 tensors with a graph"):
        outs[0].sum().backward()
    assert all(p.grad is None for p in layer.parameters())
