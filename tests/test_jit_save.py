"""eager.jit.save / eager.jit.load: a trained model saved as a JSON kernel program
plus safetensors parameters, loaded in a fresh process, gives the same outputs."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import eager
from eager import nn
from eager.jit import InputSpec, TranslatedLayer
from eager.jit.translated_layer import _INTERNALS
from eager.nn import functional as F
from eager.nn.quant.quant_layers import FakeQuantMovingAverageAbsMax

RNG = np.random.default_rng(2)
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _lenet():
    eager.seed(4)
    return nn.Sequential(nn.Conv2D(1, 4, 3), nn.BatchNorm2D(4), nn.ReLU(), nn.MaxPool2D(2), nn.Flatten(),
                         nn.Linear(4 * 5 * 5, 10), nn.Dropout(0.3), nn.LayerNorm(10))


def _trained_mlp():
    eager.seed(8)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    opt = eager.optimizer.Adam(0.05, parameters=model.parameters())
    for _ in range(5):
        x = eager.to_tensor(RNG.standard_normal((8, 6)).astype("float32"))
        loss = F.mse_loss(model(x), eager.to_tensor(np.ones((8, 3), "float32")))
        loss.backward()
        opt.step()
        opt.clear_grad()
    return model


@pytest.mark.parametrize("kind", ["mlp", "lenet"])
def test_a_trained_model_loads_in_a_fresh_process_with_equal_outputs(tmp_path, kind):
    if kind == "mlp":
        model, spec = _trained_mlp(), InputSpec([None, 6], "float32", name="x")
        x = RNG.standard_normal((5, 6)).astype("float32")
    else:
        model, spec = _lenet(), InputSpec([None, 1, 12, 12], "float32")
        x = RNG.standard_normal((5, 1, 12, 12)).astype("float32")
        model(eager.to_tensor(x))  # a training-mode call: the running statistics move
    prefix = str(tmp_path / "saved" / kind)
    eager.jit.save(model, prefix, input_spec=[spec])
    assert model.training  # save traced in eval mode and put the modes back
    model.eval()
    expected = model(eager.to_tensor(x)).numpy()
    np.save(tmp_path / "x.npy", x)
    script = textwrap.dedent(f"""
        import numpy as np, eager
        layer = eager.jit.load({prefix!r}).eval()  # as in Paddle, train mode would run dropout
        x = np.load({str(tmp_path / "x.npy")!r})
        np.save({str(tmp_path / "got.npy")!r}, layer(eager.to_tensor(x)).numpy())
        np.save({str(tmp_path / "two.npy")!r}, layer(eager.to_tensor(x[:2])).numpy())
        print(type(layer).__name__, sorted(layer.state_dict()))
    """)
    env = dict(os.environ, PYTHONPATH=REPO)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("TranslatedLayer")
    assert str(sorted(model.state_dict())) in done.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "got.npy"), expected)
    np.testing.assert_array_equal(np.load(tmp_path / "two.npy"), model(eager.to_tensor(x[:2])).numpy())
    with open(prefix + ".pdmodel", encoding="utf-8") as stream:
        program = json.load(stream)  # plain JSON, never a pickle
    assert program["format"] == "eager.jit.program" and program["calls"][0]["kernel"] in ("linear", "conv2d")


def test_translated_layer_is_a_layer_with_the_saved_state(tmp_path):
    model = _trained_mlp()
    prefix = str(tmp_path / "mlp")
    eager.jit.save(model, prefix, input_spec=[InputSpec([None, 6])])
    layer = eager.jit.load(prefix)
    assert isinstance(layer, TranslatedLayer) and isinstance(layer, nn.Layer)
    assert list(layer.state_dict()) == list(model.state_dict())
    assert len(layer.parameters()) == len(model.parameters())
    for (name, p), q in zip(layer.named_parameters(), model.parameters()):
        np.testing.assert_array_equal(p.numpy(), q.numpy())
        assert not p.stop_gradient
    assert layer.eval() is layer and not layer.training
    assert layer.train() is layer and layer.training
    x = eager.to_tensor(RNG.standard_normal((3, 6)).astype("float32"))
    with eager.no_grad():
        out = layer(x)
    assert out.stop_gradient and out.grad_node is None
    layer.eval()
    for p in layer.parameters():
        p.stop_gradient = True
    out = layer(x)  # eval mode, nothing requires a gradient: the inference program
    assert out.stop_gradient and out.grad_node is None
    for p in layer.parameters():
        p.stop_gradient = False
    assert layer(x).grad_node.backward_op == "to_static_grad"  # a graph for fine-tuning
    # set_state_dict writes into the parameters the program reads
    layer.set_state_dict({k: v.numpy() * 0 for k, v in layer.state_dict().items()})
    np.testing.assert_array_equal(layer(x).numpy(), np.zeros((3, 3), "float32"))


def test_structured_outputs_and_inputs_returned_as_they_are(tmp_path):
    class TwoHeads(nn.Layer):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(4, 5)
            self.head = nn.Linear(5, 2)

        def forward(self, x, mask):
            h = F.relu(self.body(x))
            return {"logits": self.head(h) * mask, "hidden": (h, x), "scale": 2}

    eager.seed(1)
    net = TwoHeads()
    prefix = str(tmp_path / "heads")
    eager.jit.save(net, prefix, input_spec=[InputSpec([None, 4]), InputSpec([None, 2])])
    layer = eager.jit.load(prefix)
    x = eager.to_tensor(RNG.standard_normal((3, 4)).astype("float32"))
    m = eager.to_tensor(np.ones((3, 2), "float32"))
    got, want = layer(x, m), net(x, m)
    np.testing.assert_array_equal(got["logits"].numpy(), want["logits"].numpy())
    np.testing.assert_array_equal(got["hidden"][0].numpy(), want["hidden"][0].numpy())
    assert got["hidden"][1] is x and got["scale"] == 2


def test_wrong_inputs_and_unsaveable_forwards_raise_clear_errors(tmp_path):
    model = _trained_mlp()
    prefix = str(tmp_path / "mlp")
    eager.jit.save(model, prefix, input_spec=[InputSpec([None, 6], "float32")])
    layer = eager.jit.load(prefix)
    with pytest.raises(ValueError, match=r"input 0 expected float32\[None, 6\].*got float32\[2, 5\]"):
        layer(eager.ones([2, 5]))
    with pytest.raises(ValueError, match="input 0 expected float32"):
        layer(eager.ones([2, 6], dtype="float64"))
    with pytest.raises(TypeError, match="takes 1 input"):
        layer(eager.ones([2, 6]), eager.ones([2, 6]))
    with pytest.raises(ValueError, match="'input_spec' is needed"):
        eager.jit.save(model, prefix)

    class HostRead(nn.Layer):
        def forward(self, x):
            return x * float(x.sum())

    with pytest.raises(ValueError, match="cannot save HostRead.forward.*reads tensor values on the host"):
        eager.jit.save(HostRead(), str(tmp_path / "h"), input_spec=[InputSpec([2])])

    class BatchScaled(nn.Layer):
        def forward(self, x):
            return x * float(x.shape[0])

    with pytest.raises(ValueError, match="depends on the size of a None dimension"):
        eager.jit.save(BatchScaled(), str(tmp_path / "b"), input_spec=[InputSpec([None, 3])])
    eager.jit.save(BatchScaled(), str(tmp_path / "b"), input_spec=[InputSpec([4, 3])])  # fixed: fine
    np.testing.assert_array_equal(eager.jit.load(str(tmp_path / "b"))(eager.ones([4, 3])).numpy(),
                                  np.full((4, 3), 4.0, "float32"))
    with pytest.raises(TypeError, match="expected an eager.nn.Layer or a function, got int"):
        eager.jit.save(3, str(tmp_path / "f"), input_spec=[InputSpec([2])])
    with pytest.raises(FileNotFoundError, match="no program at"):
        eager.jit.load(str(tmp_path / "missing"))


def _edit(prefix, change):
    with open(prefix + ".pdmodel", encoding="utf-8") as stream:
        program = json.load(stream)
    change(program)
    with open(prefix + ".pdmodel", "w", encoding="utf-8") as stream:
        json.dump(program, stream)


def test_a_program_naming_an_unknown_kernel_or_a_wrong_shape_does_not_load(tmp_path):
    model = _trained_mlp()
    prefix = str(tmp_path / "mlp")
    eager.jit.save(model, prefix, input_spec=[InputSpec([None, 6])])
    _edit(prefix, lambda p: p["calls"][0].update(kernel="no_such_kernel"))
    with pytest.raises(ValueError, match="names kernel 'no_such_kernel', which this version of phi does not have"):
        eager.jit.load(prefix)
    eager.jit.save(model, prefix, input_spec=[InputSpec([None, 6])])
    _edit(prefix, lambda p: p["state"][0].update(shape=[6, 17]))
    with pytest.raises(ValueError, match=r"'0.weight' is float32\[6, 16\].*expects float32\[6, 17\]"):
        eager.jit.load(prefix)
    eager.jit.save(model, prefix, input_spec=[InputSpec([None, 6])])
    _edit(prefix, lambda p: p["calls"][0]["args"].append({"enum": "os:system", "name": "x"}))
    with pytest.raises(ValueError, match="only phi's enums"):
        eager.jit.load(prefix)
    eager.jit.save(model, prefix, input_spec=[InputSpec([None, 6])])
    _edit(prefix, lambda p: p["calls"][1].pop("args"))
    with pytest.raises(ValueError, match="not a well-formed program"):
        eager.jit.load(prefix)
    eager.jit.save(model, prefix, input_spec=[InputSpec([None, 6])])
    _edit(prefix, lambda p: p.update(version=99))
    with pytest.raises(ValueError, match="program version 99"):
        eager.jit.load(prefix)


def test_input_spec_checks_its_arguments():
    spec = InputSpec([-1, 3], "float64", name="x")
    assert spec.shape == (None, 3) and spec.dtype == eager.float64
    assert InputSpec.from_tensor(eager.ones([2, 3])).shape == (2, 3)
    with pytest.raises(ValueError, match="sizes >= 0"):
        InputSpec([-2, 3])
    with pytest.raises(TypeError, match="'shape' expected a list or tuple"):
        InputSpec("3")


def test_save_takes_the_input_spec_given_to_to_static(tmp_path):
    model = _trained_mlp()
    eager.jit.to_static(model, input_spec=[InputSpec([None, 6], "float32")])
    x = eager.to_tensor(RNG.standard_normal((4, 6)).astype("float32"))
    for _ in range(3):
        model(x)  # captured and replayed: save traces anew all the same
    eager.jit.save(model, str(tmp_path / "m"))
    np.testing.assert_array_equal(eager.jit.load(str(tmp_path / "m"))(x).numpy(), model(x).numpy())


@pytest.mark.usefixtures("device")
def test_a_model_saved_from_the_device_axis_loads_on_the_cpu(tmp_path, device):
    model = _trained_mlp()
    x = eager.to_tensor(RNG.standard_normal((4, 6)).astype("float32"))
    expected = model(x).numpy()
    eager.jit.save(model, str(tmp_path / "m"), input_spec=[InputSpec([None, 6])])
    eager.set_device("cpu")
    layer = eager.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(layer(eager.to_tensor(x.numpy())).numpy(), expected, rtol=1e-6, atol=1e-6)


def test_static_input_spec_is_jit_input_spec():
    # Paddle scripts write paddle.static.InputSpec for to_static and jit.save.
    import eager.static
    spec = eager.static.InputSpec([None, 3], "float64", name="x")
    assert eager.static.InputSpec is eager.jit.InputSpec
    assert spec.shape == (None, 3) and spec.dtype == eager.float64 and spec.name == "x"


class _InternalNames(nn.Layer):
    """A standalone layer whose own members have the names TranslatedLayer once
    kept its internals under (and its former private methods' names)."""

    def __init__(self):
        super().__init__()
        self._state = self.create_parameter([3], dtype="float64")
        self._document = self.create_parameter([3], dtype="float64", is_bias=True)
        self._compiled = self.create_parameter([3], dtype="float64")
        self._mode = self.create_parameter([3], dtype="float64")
        self.register_buffer("_state_index", eager.to_tensor([1.0, 2.0, 3.0], dtype="float64"))
        self.register_buffer("_program", eager.to_tensor([0.5, 0.25, 0.125], dtype="float64"))

    def forward(self, x):
        return (x * self._state + self._document) * self._compiled * self._mode + self._state_index * self._program


def test_standalone_layers_with_members_named_like_internals_round_trip(tmp_path):
    """jit.load of a layer whose parameters and buffers sit on the layer itself
    under names such as _state: each stays reachable under its own name on the
    loaded layer (no clash with TranslatedLayer's internals), and the program
    runs, trains and saves again."""
    eager.seed(4)
    original = _InternalNames()
    x = np.random.default_rng(0).standard_normal((2, 3))
    eager.jit.save(original, str(tmp_path / "names"), input_spec=[InputSpec([None, 3], "float64")])
    loaded = eager.jit.load(str(tmp_path / "names"))
    assert list(loaded.state_dict()) == list(original.state_dict())
    for name in ("_state", "_document", "_compiled", "_mode", "_state_index", "_program"):
        mine, theirs = getattr(loaded, name), getattr(original, name)
        assert isinstance(mine, eager.Tensor), name
        np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    assert isinstance(loaded._state, nn.Parameter) and not isinstance(loaded._program, nn.Parameter)
    want = (x * original._state.numpy() + original._document.numpy()) * original._compiled.numpy() \
        * original._mode.numpy() + np.array([1.0, 2.0, 3.0]) * np.array([0.5, 0.25, 0.125])
    loaded.eval()
    np.testing.assert_allclose(loaded(eager.to_tensor(x)).numpy(), want, rtol=1e-12)
    loaded.train()
    loaded(eager.to_tensor(x)).sum().backward()      # the gradient reaches the parameter named _state
    np.testing.assert_allclose(loaded._state.grad.numpy(),
                               (x * original._compiled.numpy() * original._mode.numpy()).sum(0), rtol=1e-12)
    eager.jit.save(loaded, str(tmp_path / "again"), input_spec=[InputSpec([None, 3], "float64")])
    again = eager.jit.load(str(tmp_path / "again")).eval()
    np.testing.assert_allclose(again(eager.to_tensor(x)).numpy(), want, rtol=1e-12)


def test_standalone_fake_quant_moving_average_layer_round_trips(tmp_path):
    """The reported case: FakeQuantMovingAverageAbsMax on its own (its scale,
    state and accum parameters on the layer itself) saves, loads and gives the
    original's fake-quantized output."""
    layer = FakeQuantMovingAverageAbsMax(name="fq")
    x = eager.to_tensor(np.linspace(-2.0, 3.0, 12, dtype="float32").reshape(3, 4))
    layer(x)                                            # train mode: the moving scale takes a value
    layer.eval()
    eager.jit.save(layer, str(tmp_path / "fq"), input_spec=[InputSpec([None, 4], "float32")])
    loaded = eager.jit.load(str(tmp_path / "fq")).eval()
    assert list(loaded.state_dict()) == ["_scale", "_state", "_accum"]
    for name in ("_scale", "_state", "_accum"):
        assert isinstance(getattr(loaded, name), nn.Parameter)
        np.testing.assert_array_equal(getattr(loaded, name).numpy(), getattr(layer, name).numpy())
    np.testing.assert_array_equal(loaded(x).numpy(), layer(x).numpy())


def test_translated_layer_internals_cannot_be_a_member_name():
    """TranslatedLayer keeps its internals under a key with a '.', which Layer
    refuses as a member name: no saved layer can collide with it."""
    assert "." in _INTERNALS
    with pytest.raises(ValueError, match="without '.'"):
        nn.Layer().add_parameter(_INTERNALS, None)
