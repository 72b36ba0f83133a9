"""Regression cases found by the differential sweep of the nn.Layer API and its
containers (eager against torch.nn.Module and Paddle's rules, on random trees of
Sequential / LayerList / LayerDict / custom layers with shared layers and
parameters, random container edit sequences, and wrong-typed arguments).

The trees, edits and hooks agreed with PyTorch (and with Paddle's rules where
the two differ); the bugs were in bad input:

- include_sublayers / include_self / persistable / set_to_zero / is_bias took
  any object (a string, a list) as a flag, and an array died in NumPy's
  truth-value error; now a TypeError naming the method and the argument.
- named_parameters / named_buffers / named_sublayers took a non-str prefix and
  wrote it into the names ("2.5.weight"), and checked nothing until iterated.
- Layer.create_parameter: a bad shape was reported by the initializer
  ("XavierUniform: argument 'shape'"), a non-callable default_initializer died
  calling it, a bad dtype named no method; Layer(dtype=...) likewise.
- LayerList / ParameterList: a non-int index died in list indexing ("list
  indices must be integers"); extend of a non-iterable died in list();
  LayerList(array) died in the array's truth value.
- LayerDict: an unhashable key died in the dict; a bad new key was reported as
  add_sublayer's; Sequential's (name, layer) pairs likewise.

One semantic difference from Paddle, found reading its named_sublayers beside the
sweep: a layer already in ``layers_set`` hid its sublayers too (include_self with
the root in the set listed nothing); Paddle skips only the layer itself.
"""
import numpy as np
import pytest

import eager
from eager import nn


def _net():
    """Linear -> (Tanh, Linear) with the inner Linear shared: three layers, one shared."""
    shared = nn.Linear(2, 2)
    return nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Tanh(), shared), shared)


def _values(layer):
    return {k: v.numpy().copy() for k, v in layer.state_dict().items()}


# -- flags ----------------------------------------------------------------------

@pytest.mark.parametrize("call, who, arg", [
    (lambda l, v: l.parameters(v), "parameters", "include_sublayers"),
    (lambda l, v: l.named_parameters(include_sublayers=v), "named_parameters", "include_sublayers"),
    (lambda l, v: l.buffers(v), "buffers", "include_sublayers"),
    (lambda l, v: l.named_buffers(include_sublayers=v), "named_buffers", "include_sublayers"),
    (lambda l, v: l.sublayers(v), "sublayers", "include_self"),
    (lambda l, v: l.named_sublayers(include_self=v), "named_sublayers", "include_self"),
    (lambda l, v: l.clear_gradients(v), "clear_gradients", "set_to_zero"),
    (lambda l, v: l.register_buffer("b", eager.zeros([1]), persistable=v), "register_buffer", "persistable"),
    (lambda l, v: l.create_parameter([2], is_bias=v), "create_parameter", "is_bias"),
])
@pytest.mark.parametrize("value", ["no", [1], np.zeros(2), None])
def test_flags_are_bools(call, who, arg, value):
    net = _net()
    before = _values(net)
    with pytest.raises(TypeError, match=rf"{who}: argument '{arg}' expected a bool"):
        call(net, value)  # raised on the call itself, not when a generator is first read
    assert "b" not in net._buffers
    after = _values(net)
    assert list(after) == list(before) and all(np.array_equal(after[k], before[k]) for k in after)


def test_flags_still_take_numpy_bools():
    net = _net()
    assert len(net.parameters(np.bool_(False))) == 0
    assert len(net.parameters(np.bool_(True))) == 4  # the shared Linear's two counted once


@pytest.mark.parametrize("method", ["named_parameters", "named_buffers", "named_sublayers"])
@pytest.mark.parametrize("prefix", [None, 2.5, ["m"], b"m"])
def test_prefix_must_be_a_str(method, prefix):
    with pytest.raises(TypeError, match=rf"{method}: argument 'prefix' expected a str"):
        getattr(_net(), method)(prefix=prefix)


def test_prefixed_names_follow_the_dotted_rule():
    net = _net()
    net[1].register_buffer("stat", eager.zeros([2]))
    assert [n for n, _ in net.named_parameters(prefix="m")] == ["m.0.weight", "m.0.bias", "m.1.1.weight",
                                                                "m.1.1.bias"]
    assert [n for n, _ in net.named_buffers(prefix="m")] == ["m.1.stat"]
    assert [n for n, _ in net.named_sublayers(prefix="m")] == ["m.0", "m.1", "m.1.0", "m.1.1"]


# -- create_parameter -------------------------------------------------------------

@pytest.mark.parametrize("shape, error, text", [
    (2, TypeError, "a list or tuple of ints"),
    ("x", TypeError, "a list or tuple of ints"),
    ([2, 1.5], TypeError, "a list or tuple of ints"),
    ([True], TypeError, "a list or tuple of ints"),
    (None, TypeError, "a list or tuple of ints"),
    ([2, -1], ValueError, "non-negative"),
])
def test_create_parameter_shape(shape, error, text):
    with pytest.raises(error, match=rf"create_parameter: argument 'shape' expected {text}"):
        nn.Layer().create_parameter(shape)


def test_create_parameter_shape_forms_kept():
    layer = nn.Layer()
    assert layer.create_parameter((2, np.int64(3))).shape == [2, 3]
    assert layer.create_parameter([0, 2], is_bias=True).shape == [0, 2]  # (Xavier refuses a zero fan)
    assert layer.create_parameter(None, attr=False) is None  # no parameter: nothing else read (Paddle's order)


def test_create_parameter_initializer_and_dtype():
    layer = nn.Layer()
    with pytest.raises(TypeError, match="create_parameter: argument 'default_initializer' expected None or an "
                                        "initializer, got int"):
        layer.create_parameter([2], default_initializer=3)
    with pytest.raises(TypeError, match="create_parameter: argument 'dtype' expected a dtype"):
        layer.create_parameter([2], dtype="floaty")
    with pytest.raises(TypeError, match="Layer: argument 'dtype' expected a dtype"):
        nn.Layer(dtype=[1])
    p = layer.create_parameter([3], default_initializer=nn.initializer.Constant(1.5), dtype="float64")
    np.testing.assert_array_equal(p.numpy(), np.full(3, 1.5))


# -- LayerList ----------------------------------------------------------------------

def _three():
    return [nn.Linear(1, 1) for _ in range(3)]


@pytest.mark.parametrize("index", ["0", 1.0, None, (0,), [0]])
def test_layerlist_index_types(index):
    layers = _three()
    ll = nn.LayerList(layers)
    with pytest.raises(TypeError, match=r"LayerList.__getitem__: argument 'index' expected an int or a slice"):
        ll[index]
    with pytest.raises(TypeError, match=r"LayerList.__setitem__: argument 'index' expected an int"):
        ll[index] = nn.Tanh()
    with pytest.raises(TypeError, match=r"LayerList.__delitem__: argument 'index' expected an int or a slice"):
        del ll[index]
    with pytest.raises(TypeError, match=r"LayerList.insert: argument 'index' expected an int"):
        ll.insert(index, nn.Tanh())
    assert list(ll) == layers


def test_layerlist_positions():
    layers = _three()
    ll = nn.LayerList(layers)
    with pytest.raises(IndexError, match=r"LayerList.__setitem__: index 3 is out of range \[-3, 3\)"):
        ll[3] = nn.Tanh()
    with pytest.raises(IndexError, match=r"LayerList.__getitem__: index -4 is out of range"):
        ll[-4]
    assert ll[-1] is layers[2] and list(ll[::-2]) == [layers[2], layers[0]]
    del ll[-3]
    assert list(ll) == layers[1:] and list(ll._sub_layers) == ["0", "1"]
    ll.insert(-1, layers[0])  # before the last, as list.insert
    assert list(ll) == [layers[1], layers[0], layers[2]]
    del ll[::2]
    assert list(ll) == [layers[0]] and list(ll._sub_layers) == ["0"]


@pytest.mark.parametrize("bad", [None, 3, nn.Tanh()])
def test_layerlist_extend_and_init_need_iterables(bad):
    ll = nn.LayerList([nn.Tanh()])
    with pytest.raises(TypeError, match="LayerList.extend: argument 'sublayers' expected an iterable of Layers"):
        ll.extend(bad)
    assert len(ll) == 1


def test_layerlist_of_an_array_names_the_element():
    with pytest.raises(TypeError, match="LayerList.append: argument 'sublayer' expected a Layer, got"):
        nn.LayerList(np.zeros(2))
    assert len(nn.LayerList(nn.LayerList(_three()))) == 3  # a LayerList is an iterable of Layers


# -- ParameterList -------------------------------------------------------------------

def test_parameterlist_indexes():
    params = [eager.create_parameter([1], "float32") for _ in range(2)]
    pl = nn.ParameterList(params)
    with pytest.raises(TypeError, match=r"ParameterList.__getitem__: argument 'index' expected an int or a slice, "
                                        r"got str"):
        pl["0"]
    with pytest.raises(TypeError, match=r"ParameterList.__setitem__: argument 'index' expected an int, got tuple"):
        pl[(0,)] = params[0]
    with pytest.raises(IndexError, match=r"ParameterList.__setitem__: index 2 is out of range \[-2, 2\)"):
        pl[2] = params[0]
    with pytest.raises(TypeError, match="ParameterList.extend: argument 'parameters' expected an iterable"):
        pl.extend(None)
    assert pl[-1] is params[1] and list(pl[:1]) == params[:1] and list(pl) == params


# -- LayerDict and Sequential names --------------------------------------------------

@pytest.mark.parametrize("key", [1, None, (1,), np.zeros(2), eager.zeros([2])])
def test_layerdict_keys_are_strs(key):
    ld = nn.LayerDict({"a": nn.Tanh()})
    for who, call in [("__getitem__", lambda: ld[key]), ("__setitem__", lambda: ld.__setitem__(key, nn.Tanh())),
                      ("__delitem__", lambda: ld.__delitem__(key)), ("pop", lambda: ld.pop(key))]:
        with pytest.raises(TypeError, match=rf"LayerDict.{who}: argument 'key' expected a str"):
            call()
    assert list(ld.keys()) == ["a"]


@pytest.mark.parametrize("key", ["", "a.b"])
def test_layerdict_and_sequential_names(key):
    ld = nn.LayerDict()
    with pytest.raises(ValueError, match=r"LayerDict.__setitem__: argument 'key' expected a non-empty str "
                                         r"without '\.'"):
        ld[key] = nn.Tanh()
    assert len(ld) == 0
    with pytest.raises(ValueError, match=r"Sequential: argument 1 names a layer"):
        nn.Sequential(("a", nn.Tanh()), (key, nn.ReLU()))
    with pytest.raises(KeyError, match="no sublayer named"):
        ld[key]


def test_named_sublayers_layers_set_walks_below_a_listed_layer():
    """Paddle's rule: a layer already in layers_set is not listed again, but its
    sublayers are (unless the set holds them too); a shared layer is listed once."""
    inner = nn.Tanh()
    block = nn.Sequential(inner, nn.ReLU())
    net = nn.Sequential(block, nn.Linear(1, 1), block)
    seen = {block}
    assert [n for n, _ in net.named_sublayers(layers_set=seen)] == ["0.0", "0.1", "1"]
    assert seen == {block, inner, net[0][1], net[1]}
    root_seen = {net}
    assert [n for n, _ in net.named_sublayers(include_self=True, layers_set=root_seen)] == ["0", "0.0", "0.1", "1"]
    assert [n for n, _ in net.named_sublayers(layers_set={block, inner, net[0][1]})] == ["1"]
