"""eager.load reads the pickles that Paddle's paddle.save writes (``.pdparams``,
``.pdopt``, a saved Tensor), through a restricted unpickler that runs nothing
from the file, and gives what paddle.load gives.

The files under tests/data/paddle_checkpoints/ were written by PaddlePaddle
2.6.2 (CPU, NumPy 2.4, Python 3.11) from a throwaway script outside the repo:

- ``linear_protocol{2,3,4}.pdparams``: ``paddle.save(Linear(3, 2).state_dict(), path, protocol=p)``
  (after ``paddle.seed(7)``); ``weight.pdtensor``, ``weight_protocol2.pdtensor``:
  ``paddle.save(linear.weight, ...)``; ``list.pdtensor``: ``[weight, bias, 5, "s"]``;
  ``bfloat16.pdtensor``: ``to_tensor([1.5, -2.0]).astype("bfloat16")``;
  ``lod_tensor.pdtensor``: ``linear.weight.value().get_tensor()`` (pickled as
  ``eval('data', {'data': array})``); ``numpy_scalar_protocol2.pkl``: ``np.float32(3.5)``
  (protocol 2); ``arrays_only.pkl``: ``{"x": np.arange(6).reshape(2, 3), "s": "a"}``;
  ``state_numbers.pkl``: ``{"n": 3}``; ``nested.pdparams``:
  ``OrderedDict(model=linear.state_dict(), epoch=100, n=np.arange(3), t=(linear.bias, 1.5))``.
- ``train_{adam,momentum}.pdparams/.pdopt/_scheduler.pdparams``: the network
  ``Sequential(Linear(4, 5), Tanh(), Linear(5, 2))`` (made under
  ``unique_name.guard()``), ``StepDecay(0.05, step_size=2, gamma=0.5)``,
  ``Adam(learning_rate=sched)`` or ``Momentum(learning_rate=sched, momentum=0.9)``,
  trained on the mean squared error with ``x = rng.standard_normal((5, 8, 4))``,
  ``y = rng.standard_normal((5, 8, 2))`` (``rng = np.random.default_rng(0)``, float32),
  one batch a step with ``sched.step()`` after each; saved after 2 steps.
  ``train_reference.pkl``: ``{"x", "y", "adam": {"losses", "final", "lr"}, "momentum": ...}``,
  Paddle's losses of all 5 steps, its state dict after them and its final rate.
- ``hapi/model.pdparams/.pdopt``: ``paddle.Model`` of the same network with
  ``Adam(0.01)`` and ``MSELoss``, after ``train_batch([x[0]], [y[0]])``, by
  ``model.save``; ``hapi/after_second_batch.pkl``: its state dict (NumPy) after
  ``train_batch([x[1]], [y[1]])``.
- ``static_fc.pdparams``, ``static_fc.pdopt``: ``paddle.static.save(main, prefix)`` of a
  static-graph program holding ``paddle.static.nn.fc(x, 2)`` (``x``: ``[None, 3]``), after
  running its startup program: parameter name -> array, and an empty optimizer state.
- ``sliced_protocol2.pdparams``: a state dict in the layout paddle.save gives an
  array too big for protocol 2 (``"UnpackBigParamInfor@@"``: ``w`` as two slices),
  made small by hand with ``pickle.dump(..., protocol=2)``; Paddle's load joins it.

The test reads the files' contents independently with ``pickle.load`` (the files
are trusted) to get the reference values.
"""
import collections
import io
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

import eager
from eager.utils import unique_name

DATA = Path(__file__).parent / "data" / "paddle_checkpoints"


def raw(name):
    """The file's pickled object, read by Python's own unpickler (the fixtures are trusted)."""
    with open(DATA / name, "rb") as f:
        return pickle.load(f, encoding="latin1")


def assert_tensor(value, array, name=None):
    assert isinstance(value, eager.Tensor) and value.stop_gradient
    assert value.numpy().dtype == array.dtype
    np.testing.assert_array_equal(value.numpy(), array)
    if name is not None:
        assert value.name == name


# -- what paddle.load gives back ------------------------------------------------

@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_a_layer_state_dict_loads_as_named_tensors(protocol):
    name = f"linear_protocol{protocol}.pdparams"
    saved = raw(name)
    assert saved["StructuredToParameterName@@"] == {"weight": "linear_0.w_0", "bias": "linear_0.b_0"}
    state = eager.load(DATA / name)
    assert type(state) is dict and list(state) == ["weight", "bias"]
    assert_tensor(state["weight"], saved["weight"], "linear_0.w_0")
    assert_tensor(state["bias"], saved["bias"], "linear_0.b_0")
    assert state["weight"].shape == [3, 2] and state["weight"].dtype == eager.float32
    arrays = eager.load(str(DATA / name), return_numpy=True)
    assert list(arrays) == ["weight", "bias"] and all(type(v) is np.ndarray for v in arrays.values())
    np.testing.assert_array_equal(arrays["weight"], saved["weight"])
    with_table = eager.load(DATA / name, keep_name_table=True)
    assert with_table["StructuredToParameterName@@"] == {"weight": "linear_0.w_0", "bias": "linear_0.b_0"}


def test_the_same_state_dict_in_every_protocol_and_from_a_file_object():
    reference = raw("linear_protocol4.pdparams")["weight"]
    for protocol in (2, 3):
        np.testing.assert_array_equal(eager.load(DATA / f"linear_protocol{protocol}.pdparams")["weight"].numpy(),
                                      reference)
    with open(DATA / "linear_protocol2.pdparams", "rb") as f:
        assert_tensor(eager.load(f)["weight"], reference, "linear_0.w_0")
    buffer = io.BytesIO((DATA / "weight.pdtensor").read_bytes() + (DATA / "list.pdtensor").read_bytes())
    # paddle.save writes one object after another into a buffer; each load reads the next (Paddle's example 5)
    assert_tensor(eager.load(buffer), reference, "linear_0.w_0")
    assert isinstance(eager.load(buffer), list)


@pytest.mark.parametrize("name", ["weight.pdtensor", "weight_protocol2.pdtensor"])
def test_a_saved_tensor_loads_as_a_tensor_with_its_name(name):
    saved = raw(name)
    assert type(saved) is tuple and saved[0] == "linear_0.w_0"  # how paddle.save writes a Tensor
    assert_tensor(eager.load(DATA / name), saved[1], "linear_0.w_0")
    array = eager.load(DATA / name, return_numpy=True)
    assert type(array) is np.ndarray
    np.testing.assert_array_equal(array, saved[1])


def test_a_list_and_nested_containers_keep_their_structure():
    saved = raw("list.pdtensor")
    got = eager.load(DATA / "list.pdtensor")
    assert type(got) is list and got[2:] == [5, "s"]
    assert_tensor(got[0], saved[0][1], "linear_0.w_0")
    assert_tensor(got[1], saved[1][1], "linear_0.b_0")

    saved = raw("nested.pdparams")
    got = eager.load(DATA / "nested.pdparams")
    assert type(got) is collections.OrderedDict and list(got) == ["model", "epoch", "n", "t"]
    assert type(got["model"]) is collections.OrderedDict and got["epoch"] == 100
    assert_tensor(got["model"]["weight"], saved["model"]["weight"][1], "linear_0.w_0")
    # With (name, array) tuples in the file, paddle.load makes only those Tensors: a NumPy array stays one.
    assert type(got["n"]) is np.ndarray and got["n"].tolist() == [0, 1, 2]
    assert type(got["t"]) is tuple and got["t"][1] == 1.5
    assert_tensor(got["t"][0], saved["t"][0][1], "linear_0.b_0")
    as_numpy = eager.load(DATA / "nested.pdparams", return_numpy=True)
    assert type(as_numpy["model"]["weight"]) is np.ndarray and type(as_numpy["t"][0]) is np.ndarray


def test_without_tensors_every_array_becomes_a_tensor_and_plain_data_stays():
    got = eager.load(DATA / "arrays_only.pkl")
    assert list(got) == ["x", "s"] and got["s"] == "a"
    assert_tensor(got["x"], np.arange(6, dtype=np.int64).reshape(2, 3))
    assert type(eager.load(DATA / "arrays_only.pkl", return_numpy=True)["x"]) is np.ndarray
    assert eager.load(DATA / "state_numbers.pkl") == {"n": 3}
    scalar = eager.load(DATA / "numpy_scalar_protocol2.pkl")
    assert type(scalar) is np.float32 and scalar == 3.5


def test_bfloat16_lod_tensor_and_sliced_arrays():
    pytest.importorskip("ml_dtypes")
    got = eager.load(DATA / "bfloat16.pdtensor")  # Paddle writes a bfloat16 Tensor's bits as uint16
    assert got.dtype == eager.bfloat16 and got.astype("float32").numpy().tolist() == [1.5, -2.0]
    bits = eager.load(DATA / "bfloat16.pdtensor", return_numpy=True)
    assert bits.dtype == np.uint16 and bits.tolist() == [0x3FC0, 0xC000]  # as Paddle's return_numpy

    assert_tensor(eager.load(DATA / "lod_tensor.pdtensor"), raw("weight.pdtensor")[1])

    got = eager.load(DATA / "sliced_protocol2.pdparams")
    assert list(got) == ["b", "w"]  # the slices and the record are gone; the joined array comes last
    assert_tensor(got["w"], np.arange(6, dtype=np.float32).reshape(2, 3), "linear_9.w_0")
    assert_tensor(got["b"], np.ones(2, np.float32), "linear_9.b_0")


def test_a_static_graph_save_loads_by_parameter_name():
    saved = raw("static_fc.pdparams")
    loaded = eager.load(DATA / "static_fc.pdparams")
    assert list(loaded) == ["fc_0.w_0", "fc_0.b_0"]  # no structured names: Paddle's names are the keys
    assert_tensor(loaded["fc_0.w_0"], saved["fc_0.w_0"])
    assert eager.load(DATA / "static_fc.pdopt") == {}  # a 5-byte file: a whole pickle, not a cut safetensors
    net = eager.nn.Linear(3, 2, weight_attr=eager.ParamAttr(name="fc_0.w_0"),
                          bias_attr=eager.ParamAttr(name="fc_0.b_0"))
    missing, unexpected = net.set_state_dict(loaded, use_structured_name=False)
    assert missing == [] and unexpected == []
    np.testing.assert_array_equal(net.weight.numpy(), saved["fc_0.w_0"])
    np.testing.assert_array_equal(net.bias.numpy(), saved["fc_0.b_0"])


# -- training goes on where Paddle stopped ----------------------------------------

def make_net():
    with unique_name.guard():  # a fresh process's parameter names: linear_0.w_0, ...
        return eager.nn.Sequential(eager.nn.Linear(4, 5), eager.nn.Tanh(), eager.nn.Linear(5, 2))


def train(net, opt, sched, x, y, steps):
    losses = []
    for step in steps:
        loss = ((net(eager.to_tensor(x[step])) - eager.to_tensor(y[step])) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        sched.step()
        losses.append(float(loss))
    return losses


@pytest.mark.parametrize("kind", ["adam", "momentum"])
@pytest.mark.parametrize("structured", [True, False])
def test_training_continues_from_paddles_checkpoint_as_in_paddle(kind, structured):
    reference = raw("train_reference.pkl")
    x, y, expected = reference["x"], reference["y"], reference[kind]
    net = make_net()
    params = eager.load(DATA / f"train_{kind}.pdparams")
    if structured:
        missing, unexpected = net.set_state_dict(params)
    else:  # keyed by Paddle's parameter names, as a static-graph save gives them
        missing, unexpected = net.set_state_dict({v.name: v for v in params.values()}, use_structured_name=False)
    assert missing == [] and unexpected == []
    sched = eager.optimizer.lr.StepDecay(0.05, step_size=2, gamma=0.5)
    if kind == "adam":
        opt = eager.optimizer.Adam(learning_rate=sched, parameters=net.parameters())
    else:
        opt = eager.optimizer.Momentum(learning_rate=sched, momentum=0.9, parameters=net.parameters())
    opt.set_state_dict(eager.load(DATA / f"train_{kind}.pdopt"))  # its "LR_Scheduler" restores sched too
    assert sched.last_epoch == 2 and opt.get_lr() == 0.025
    losses = train(net, opt, sched, x, y, range(2, 5))
    np.testing.assert_allclose(losses, expected["losses"][2:], rtol=1e-5)
    for key, value in net.state_dict().items():
        np.testing.assert_allclose(value.numpy(), expected["final"][key], rtol=1e-5, atol=1e-6)
    assert opt.get_lr() == expected["lr"]


def test_without_the_optimizer_state_training_differs():
    # The accumulators matter: a fresh Adam does not reproduce Paddle's continuation.
    reference = raw("train_reference.pkl")
    net = make_net()
    net.set_state_dict(eager.load(DATA / "train_adam.pdparams"))
    sched = eager.optimizer.lr.StepDecay(0.05, step_size=2, gamma=0.5)
    sched.set_state_dict(eager.load(DATA / "train_adam_scheduler.pdparams"))
    assert sched.last_epoch == 2 and sched() == 0.025
    opt = eager.optimizer.Adam(learning_rate=sched, parameters=net.parameters())
    losses = train(net, opt, sched, reference["x"], reference["y"], range(2, 5))
    assert losses[0] == pytest.approx(reference["adam"]["losses"][2], rel=1e-5)  # same weights
    assert not np.allclose(losses[1:], reference["adam"]["losses"][3:], rtol=1e-3)


def test_hapi_model_load_of_paddles_model_save():
    reference = raw("train_reference.pkl")
    expected = raw("hapi/after_second_batch.pkl")
    # made outside the guard: our parameters' names differ from the file's, which Model.load maps
    net = eager.nn.Sequential(eager.nn.Linear(4, 5), eager.nn.Tanh(), eager.nn.Linear(5, 2))
    model = eager.Model(net)
    model.prepare(eager.optimizer.Adam(learning_rate=0.01, parameters=net.parameters()), eager.nn.MSELoss())
    model.load(str(DATA / "hapi" / "model"))
    model.train_batch([reference["x"][1]], [reference["y"][1]])
    for key, value in net.state_dict().items():
        np.testing.assert_allclose(value.numpy(), expected[key], rtol=1e-5, atol=1e-6)


# -- nothing in a file runs ---------------------------------------------------------

class _Reduces:
    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


def _malicious(marker):
    command = f"touch {marker}"
    return {
        "os.system": _Reduces(os.system, command),
        "builtins.eval": _Reduces(eval, f"open({str(marker)!r}, 'w')"),
        "builtins.exec": _Reduces(exec, f"open({str(marker)!r}, 'w')"),
        "builtins.getattr": _Reduces(getattr, _Reduces(__import__, "os"), "system"),
        "object array": np.array([1, "x"], dtype=object),
        "object field": np.zeros(2, dtype=[("a", object)]),
    }


@pytest.mark.parametrize("what", list(_malicious("m")))
@pytest.mark.parametrize("protocol", [2, 4])
def test_a_crafted_pickle_is_refused_without_running_anything(tmp_path, what, protocol):
    marker = tmp_path / "ran"
    payload = {"weight": np.ones(2, np.float32), "evil": [_malicious(marker)[what]]}
    path = tmp_path / "evil.pdparams"
    path.write_bytes(pickle.dumps(payload, protocol=protocol))
    with pytest.raises(ValueError) as info:
        eager.load(path)
    message = str(info.value)
    assert message.startswith(f"eager.load: {str(path)!r} is a pickle that refers to ")
    assert "which Paddle's paddle.save does not write; refusing to unpickle it" in message
    refused = {"os.system": ("posix.system", "nt.system"), "builtins.eval": ("builtins.eval",),
               "builtins.exec": ("builtins.exec",), "builtins.getattr": ("builtins.getattr",),
               "object array": ("object",), "object field": ("numpy.dtype",)}[what]
    assert any(name in message for name in refused), message
    assert not marker.exists()


def test_a_persistent_id_and_a_numpy_subclass_are_refused(tmp_path):
    class WithIds(pickle.Pickler):
        def persistent_id(self, obj):
            return "storage" if isinstance(obj, str) and obj == "x" else None
    buffer = io.BytesIO()
    WithIds(buffer, protocol=2).dump({"w": "x"})
    with pytest.raises(ValueError, match="persistent id 'storage'"):
        eager.load(io.BytesIO(buffer.getvalue()))
    path = tmp_path / "matrix.pkl"
    path.write_bytes(pickle.dumps(np.ma.masked_array([1.0, 2.0]), protocol=4))
    with pytest.raises(ValueError, match="refers to numpy.ma.core"):
        eager.load(path)


def test_broken_pickles_raise_clear_errors(tmp_path):
    data = (DATA / "linear_protocol4.pdparams").read_bytes()
    path = tmp_path / "cut.pdparams"
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(ValueError, match=r"is a pickle that cannot be read, truncated or corrupted\?"):
        eager.load(path)
    path.write_bytes(data + b"more")
    with pytest.raises(ValueError, match="holds more data after its pickle"):
        eager.load(path)
    table = raw("linear_protocol2.pdparams")
    table["StructuredToParameterName@@"]["gone"] = "linear_0.x"
    path.write_bytes(pickle.dumps(table, protocol=2))
    with pytest.raises(ValueError, match="'StructuredToParameterName@@' names 'gone', which it does not hold"):
        eager.load(path)
    sliced = raw("sliced_protocol2.pdparams")
    sliced["UnpackBigParamInfor@@"]["w"]["OriginShape"] = (4, 3)
    path.write_bytes(pickle.dumps(sliced, protocol=2))
    with pytest.raises(ValueError, match=r"joins 6 elements for 'w', whose shape is \[4, 3\]"):
        eager.load(path)
    cycle = []
    cycle.append(cycle)
    path.write_bytes(pickle.dumps(cycle, protocol=4))
    with pytest.raises(ValueError, match="nested too deeply"):
        eager.load(path)


def test_master_weights_of_a_multi_precision_optimizer():
    # Paddle's CPU build has no float16 optimizer kernels, so this file is made by hand in the
    # layout paddle.save gives an optimizer state with master weights: its "master_weights" dict
    # holds Tensors, so the state is no flat state dict and every Tensor is a (name, array) tuple.
    velocity = np.full((2, 3), 0.5, np.float32)  # kept in float32 beside the float32 master weight
    master = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    state = {"w_velocity_0": ("w_velocity_0", velocity),
             "master_weights": {"w": ("w_fp32_master_0", master)},
             "LR_Scheduler": {"last_epoch": 0, "last_lr": 0.1}}
    loaded = eager.load(io.BytesIO(pickle.dumps(state, protocol=4)))
    assert_tensor(loaded["w_velocity_0"], velocity, "w_velocity_0")
    assert_tensor(loaded["master_weights"]["w"], master, "w_fp32_master_0")
    assert loaded["LR_Scheduler"] == {"last_epoch": 0, "last_lr": 0.1}
    param = eager.create_parameter([2, 3], "float16", name="w")
    opt = eager.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=[param], multi_precision=True)
    opt.set_state_dict(loaded)
    restored = opt.state_dict()
    np.testing.assert_array_equal(restored["master_weights"]["w"], master)
    np.testing.assert_array_equal(restored["w_velocity_0"], velocity)


class _CallsNdarray:
    def __reduce__(self):
        return np.ndarray, ((2,), "O")


def test_numpy_ndarray_is_admitted_only_as_numpys_pickles_use_it(tmp_path):
    path = tmp_path / "direct.pkl"
    path.write_bytes(pickle.dumps({"w": _CallsNdarray()}, protocol=2))
    with pytest.raises(ValueError, match=r"refers to numpy.ndarray\(...\) called directly"):
        eager.load(path)
