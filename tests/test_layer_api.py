"""Paddle 2.x methods and arguments of Layer, Optimizer and LRScheduler that a
training script calls: state-dict hooks and order, Tensor attributes as buffers,
apply's order, Optimizer.backward / apply_gradients, LRScheduler.state_keys."""
import collections
import copy

import numpy as np
import pytest

import eager


class _Net(eager.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = eager.nn.Linear(3, 2)
        self.register_buffer("running", eager.ones([2]))
        self.register_buffer("scratch", eager.zeros([2]), persistable=False)
        self.bn = eager.nn.BatchNorm1D(2)

    def forward(self, x):
        return self.bn(self.fc(x)) * self.running


# -- state dicts ---------------------------------------------------------------------------

def test_state_dict_order_prefix_and_non_persistable():
    net = _Net()
    # Paddle's order: the layer's own parameters and buffers, then each sublayer's.
    assert list(net.state_dict()) == ["running", "fc.weight", "fc.bias", "bn.weight", "bn.bias",
                                      "bn._mean", "bn._variance"]
    # The prefix goes before each key as it is (Paddle passes "model.").
    assert list(net.state_dict(structured_name_prefix="model."))[:2] == ["model.running", "model.fc.weight"]
    assert list(net.state_dict(include_sublayers=False)) == ["running"]
    static = net.to_static_state_dict()
    assert list(static) == ["running", "scratch", "fc.weight", "fc.bias", "bn.weight", "bn.bias",
                            "bn._mean", "bn._variance"]
    assert static["scratch"] is net.scratch and static["fc.weight"] is net.fc.weight
    dest = collections.OrderedDict(first=1)
    assert net.state_dict(destination=dest) is dest and list(dest)[:2] == ["first", "running"]


def test_state_dict_hooks_run_post_order_and_can_replace_the_result():
    net = _Net()
    seen = []

    def drop_bias(sd):                       # a sublayer's hook changes the dict in place
        seen.append(("fc", sorted(sd)))
        del sd["fc.bias"]

    def rename(sd):                          # the root's hook returns a replacement
        seen.append(("root", sorted(sd)))
        return collections.OrderedDict((k.upper(), v) for k, v in sd.items())

    h1 = net.fc.register_state_dict_hook(drop_bias)
    h2 = net.register_state_dict_hook(rename)
    out = net.state_dict()
    assert list(out) == ["RUNNING", "FC.WEIGHT", "BN.WEIGHT", "BN.BIAS", "BN._MEAN", "BN._VARIANCE"]
    # fc's hook ran when fc's entries were in, before bn's; the root's ran last.
    assert seen[0] == ("fc", ["fc.bias", "fc.weight", "running"])
    assert seen[1] == ("root", sorted(["running", "fc.weight", "bn.weight", "bn.bias", "bn._mean",
                                       "bn._variance"]))
    assert "fc.bias" in net.state_dict(use_hook=False)
    # set_state_dict matches against the un-hooked names, so a hooked dict does not load back.
    with pytest.warns(UserWarning):
        missing, unexpected = net.set_state_dict(out)
    assert "fc.weight" in missing and "FC.WEIGHT" in unexpected
    h1.remove()
    h2.remove()
    assert list(net.state_dict())[:3] == ["running", "fc.weight", "fc.bias"]


def test_state_dict_bad_arguments():
    net = _Net()
    with pytest.raises(TypeError, match="state_dict: argument 'destination' expected None or a dict, got list"):
        net.state_dict(destination=[])
    with pytest.raises(TypeError, match="state_dict: argument 'use_hook' expected a bool, got 1"):
        net.state_dict(use_hook=1)
    with pytest.raises(TypeError, match="to_static_state_dict: argument 'structured_name_prefix' expected a str"):
        net.to_static_state_dict(structured_name_prefix=None)
    with pytest.raises(TypeError, match="register_state_dict_hook: argument 'hook' expected a callable, got int"):
        net.register_state_dict_hook(3)


# -- Tensor attributes are buffers (Paddle's __setattr__) ----------------------------------

class _Cache(eager.nn.Layer):
    mask = None                                                         # a class-level default

    def __init__(self):
        super().__init__()
        self.fc = eager.nn.Linear(2, 2)
        self.table = eager.to_tensor(np.arange(4, dtype="float32"))   # a plain Tensor attribute

    @property
    def doubled(self):
        return self.table * 2

    @doubled.setter
    def doubled(self, value):
        self.table = value / 2


def test_tensor_attribute_becomes_a_non_persistable_buffer():
    layer = _Cache()
    assert [n for n, _ in layer.named_buffers()] == ["table"]
    assert "table" not in layer.state_dict() and "table" in layer.to_static_state_dict()
    table = layer.table
    layer.to(dtype="float64")                          # converted with the parameters, in place
    assert layer.table is table and table.dtype == eager.float64
    np.testing.assert_array_equal(table.numpy(), [0, 1, 2, 3])
    layer.table = None                                 # None keeps the slot, as Paddle
    assert layer.table is None and layer.buffers() == []
    layer.table = eager.ones([2])                      # and a Tensor fills it again, still not persistable
    assert "table" not in layer.state_dict()
    # A persistable buffer stays persistable when a new Tensor is assigned to it.
    net = _Net()
    net.running = eager.full([2], 3.0)
    np.testing.assert_array_equal(net.state_dict()["running"].numpy(), [3.0, 3.0])
    # A property's setter still runs (not turned into a buffer of the property's name).
    layer.doubled = eager.full([2], 8.0)
    assert "doubled" not in dict(layer.named_buffers())
    np.testing.assert_array_equal(layer.table.numpy(), [4.0, 4.0])
    # A name the class defines stays an ordinary attribute (a buffer would be hidden by it).
    layer.mask = eager.ones([2])
    assert layer.mask is not None and "mask" not in dict(layer.named_buffers())
    # Parameters and sublayers are not buffers.
    assert [n for n, _ in layer.named_parameters()] == ["fc.weight", "fc.bias"]


# -- astype, apply, named_sublayers -------------------------------------------------------

def test_astype_requires_a_dtype():
    net = eager.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="Layer.astype: argument 'dtype' expected a floating, complex, integer "
                                         "or bool dtype"):
        net.astype()
    assert net.astype("float64").weight.dtype == eager.float64


class _Node(eager.nn.Layer):
    def __init__(self, tag, kids=()):
        super().__init__()
        self.tag = tag
        for i, kid in enumerate(kids):
            self.add_sublayer(str(i), kid)


def test_apply_runs_post_order_and_named_sublayers_fills_layers_set():
    d = _Node("D")
    tree = _Node("A", [_Node("B", [d]), _Node("C")])
    order = []
    assert tree.apply(lambda layer: order.append(layer.tag)) is tree
    assert order == ["D", "B", "C", "A"]               # children first, as Paddle's recursion
    with pytest.raises(TypeError, match="Layer.apply: argument 'fn' expected a callable, got str"):
        tree.apply("fn")
    seen = {d}                                         # layers already listed are skipped
    assert [n for n, _ in tree.named_sublayers(layers_set=seen)] == ["0", "1"]
    assert len(seen) == 3 and all(isinstance(x, eager.nn.Layer) for x in seen)
    assert [n for n, _ in tree.named_sublayers(prefix="m", include_self=True)] == ["m", "m.0", "m.0.0", "m.1"]
    with pytest.raises(TypeError, match="named_sublayers: argument 'layers_set' expected None or a set, got list"):
        list(tree.named_sublayers(layers_set=[]))


# -- Optimizer.backward / apply_gradients --------------------------------------------------

def _params():
    w = eager.nn.Parameter(np.array([[1.0, -2.0], [3.0, 0.5]], "float64"), name="w")
    b = eager.nn.Parameter(np.array([0.25, -1.0], "float64"), name="b")
    return w, b


def test_backward_lists_pairs_and_apply_gradients_updates_with_them():
    w, b = _params()
    opt = eager.optimizer.SGD(learning_rate=0.1, parameters=[w, b])
    x = eager.to_tensor(np.array([[1.0, 2.0]], "float64"))
    loss = (eager.matmul(x, w) + b).sum()
    loss.backward()
    pairs = opt.backward(loss)
    assert [p.name for p, _ in pairs] == ["w", "b"] and pairs[0][1] is w.grad
    assert [p.name for p, _ in opt.backward(loss, no_grad_set=[b])] == ["w"]
    assert [p.name for p, _ in opt.backward(loss, no_grad_set={"w"})] == ["b"]     # names too
    assert [p.name for p, _ in opt.backward(loss, parameters=[b])] == ["b"]
    assert [p.name for p, _ in opt.backward(loss, parameters=["b", w])] == ["b", "w"]
    w0, b0 = w.numpy().copy(), b.numpy().copy()
    g = np.array([[2.0, 4.0], [-6.0, 8.0]])
    assert opt.apply_gradients([(w, eager.to_tensor(g)), (b, None)]) == []
    np.testing.assert_allclose(w.numpy(), w0 - 0.1 * g)     # the given gradient, not w.grad
    np.testing.assert_array_equal(b.numpy(), b0)           # None: skipped
    # minimize is backward + apply_gradients with the stored gradients.
    ops, pairs = opt.minimize(loss)
    assert ops == [] and [p.name for p, _ in pairs] == ["w", "b"]
    np.testing.assert_allclose(w.numpy(), w0 - 0.1 * g - 0.1 * np.array([[1.0, 1.0], [2.0, 2.0]]))
    np.testing.assert_allclose(b.numpy(), b0 - 0.1 * np.ones(2))


def test_apply_gradients_clips_with_the_optimizers_grad_clip():
    w, b = _params()
    opt = eager.optimizer.SGD(learning_rate=1.0, parameters=[w, b],
                              grad_clip=eager.nn.ClipGradByGlobalNorm(1.0))
    gw, gb = np.array([[3.0, 0.0], [0.0, 0.0]]), np.array([4.0, 0.0])    # global norm 5
    w0, b0 = w.numpy().copy(), b.numpy().copy()
    opt.apply_gradients([(w, eager.to_tensor(gw)), (b, eager.to_tensor(gb))])
    np.testing.assert_allclose(w.numpy(), w0 - gw / 5)
    np.testing.assert_allclose(b.numpy(), b0 - gb / 5)


def test_apply_gradients_bad_pairs_change_nothing():
    w, b = _params()
    other = eager.nn.Parameter(np.zeros(2, "float64"), name="other")
    opt = eager.optimizer.Adam(learning_rate=0.1, parameters=[w, b])
    w0 = w.numpy().copy()
    good = (w, eager.ones([2, 2], dtype="float64"))
    with pytest.raises(TypeError, match="Adam.apply_gradients: argument 'params_grads' expected a list"):
        opt.apply_gradients({"w": None})
    with pytest.raises(TypeError, match=r"Adam.apply_gradients: item 1 expected a \(parameter, gradient\) pair"):
        opt.apply_gradients([good, w])
    with pytest.raises(ValueError, match="Adam.apply_gradients: item 1: the parameter is not one this optimizer"):
        opt.apply_gradients([good, (other, eager.zeros([2], dtype="float64"))])
    with pytest.raises(ValueError, match=r"Adam.apply_gradients: item 1 \('b'\): the gradient expected shape \[2\], got \[3\]"):
        opt.apply_gradients([good, (b, eager.zeros([3], dtype="float64"))])
    with pytest.raises(TypeError, match=r"item 0 \('w'\): the gradient expected a Tensor or None, got ndarray"):
        opt.apply_gradients([(w, np.ones((2, 2)))])
    np.testing.assert_array_equal(w.numpy(), w0)
    assert opt.state_dict()["@step"] == 0 and not opt._accumulators


def test_backward_errors_and_lbfgs():
    w, b = _params()
    opt = eager.optimizer.SGD(learning_rate=0.1, parameters=[w])
    loss = (w * 2).sum()
    with pytest.raises(TypeError, match="SGD.backward: argument 'loss' expected a Tensor, got float"):
        opt.backward(1.0)
    with pytest.raises(ValueError, match="SGD.backward: parameter 'b' is not one this optimizer was given"):
        opt.backward(loss, parameters=[b])
    with pytest.raises(ValueError, match=r"SGD.backward: argument 'parameters' names \['b'\], which are not"):
        opt.backward(loss, parameters=["w", "b"])
    with pytest.raises(TypeError, match="SGD.backward: argument 'no_grad_set' expected None or a list/set"):
        opt.backward(loss, no_grad_set=w)
    with pytest.raises(TypeError, match="SGD.backward: argument 'no_grad_set' expected Tensors or names"):
        opt.backward(loss, no_grad_set=[1])
    lbfgs = eager.optimizer.LBFGS(parameters=[w])
    with pytest.raises(TypeError, match=r"LBFGS.apply_gradients: .*step\(closure\)"):
        lbfgs.apply_gradients([(w, eager.ones([2, 2], dtype="float64"))])


# -- LRScheduler.state_keys ----------------------------------------------------------------

class _Counting(eager.optimizer.lr.LRScheduler):
    def __init__(self, learning_rate):
        self.calls = 0
        super().__init__(learning_rate)

    def get_lr(self):
        self.calls += 1
        return self.base_lr / self.calls

    def state_keys(self):
        self.keys = ["last_epoch", "last_lr", "calls"]


def test_state_keys_lets_a_subclass_save_more():
    sched = _Counting(1.0)
    sched.step()
    sched.step()
    state = sched.state_dict()
    assert state == {"last_epoch": 2, "last_lr": 1.0 / 3, "calls": 3}
    fresh = _Counting(1.0)
    fresh.set_state_dict(state)
    assert (fresh.calls, fresh.last_epoch, fresh()) == (3, 2, 1.0 / 3)
    fresh.step()
    assert fresh() == 0.25                              # continues from the restored count
    with pytest.raises(TypeError, match="_Counting.set_state_dict: argument 'calls' expected a finite int"):
        fresh.set_state_dict({"last_epoch": 2, "last_lr": 0.25, "calls": 1.5})
    assert fresh.calls == 4
    base = eager.optimizer.lr.StepDecay(0.1, step_size=2)
    base.state_keys()
    assert list(base.keys) == ["last_epoch", "last_lr"]
    plateau = eager.optimizer.lr.ReduceOnPlateau(0.1)
    assert list(plateau.state_dict()) == ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]


def test_learning_rate_attribute_is_the_scheduler_or_the_float():
    w, _ = _params()
    sched = eager.optimizer.lr.StepDecay(0.5, step_size=1, gamma=0.1)
    opt = eager.optimizer.SGD(learning_rate=sched, parameters=[w])
    assert opt._learning_rate is sched                 # scripts step it through the optimizer
    opt._learning_rate.step()
    assert opt.get_lr() == pytest.approx(0.05)
    w0 = w.numpy().copy()
    opt.apply_gradients([(w, eager.ones([2, 2], dtype="float64"))])
    np.testing.assert_allclose(w.numpy(), w0 - 0.05)
    opt._learning_rate = 0.25                          # a float replaces the scheduler
    assert opt._learning_rate == 0.25 and opt.get_lr() == 0.25
    opt.set_lr(0.125)
    assert opt._learning_rate == 0.125
    with pytest.raises(ValueError, match="SGD._learning_rate: argument 'learning_rate' expected a finite float >= 0"):
        opt._learning_rate = -1.0
    assert opt.get_lr() == 0.125


# -- replacing members keeps their position; Sequential items ------------------------------

def test_replacing_a_member_keeps_its_position():
    net = eager.nn.Sequential(("body", eager.nn.Linear(2, 3)), ("act", eager.nn.ReLU()),
                              ("head", eager.nn.Linear(3, 1)))
    net.body = eager.nn.Linear(2, 3, bias_attr=False)          # fine-tuning: a new layer in place
    assert [n for n, _ in net.named_children()] == ["body", "act", "head"]
    assert list(net.state_dict()) == ["body.weight", "head.weight", "head.bias"]
    x = eager.ones([1, 2])
    expected = net.head(eager.nn.functional.relu(net.body(x)))
    np.testing.assert_allclose(net(x).numpy(), expected.numpy())
    layer = _Net()
    layer.add_parameter("w", eager.nn.Parameter(np.zeros(2, "float32")))
    layer.add_parameter("v", eager.nn.Parameter(np.zeros(2, "float32")))
    layer.w = eager.nn.Parameter(np.ones(2, "float32"))
    assert [n for n, _ in layer.named_parameters(include_sublayers=False)] == ["w", "v"]
    layer.register_buffer("running", eager.zeros([2]), persistable=False)   # re-registered: not saved now
    assert "running" not in layer.state_dict() and list(layer._buffers)[0] == "running"
    layer.register_buffer("running", eager.zeros([2]))
    assert "running" in layer.state_dict()


def test_sequential_setitem_delitem_and_slices():
    a, b, c = eager.nn.Linear(2, 2), eager.nn.ReLU(), eager.nn.Linear(2, 1)
    seq = eager.nn.Sequential(a, b, c)
    tanh = eager.nn.Tanh()
    seq[1] = tanh
    assert list(seq) == [a, tanh, c] and seq[1] is tanh
    seq[-1] = b
    assert list(seq) == [a, tanh, b]
    x = eager.to_tensor(np.array([[0.5, -2.0]], "float32"))
    np.testing.assert_allclose(seq(x).numpy(), np.maximum(np.tanh(a(x).numpy()), 0), rtol=1e-6)
    del seq[0]
    assert [n for n, _ in seq.named_children()] == ["1", "2"]   # the others keep their names
    part = eager.nn.Sequential(a, tanh, c)[1:]
    assert [n for n, _ in part.named_children()] == ["0", "1"] and list(part) == [tanh, c]
    named = eager.nn.Sequential(("enc", a), ("act", b))
    named["act"] = tanh
    assert named["act"] is tanh and [n for n, _ in named.named_children()] == ["enc", "act"]
    with pytest.raises(IndexError, match=r"Sequential: index expected an int in \[-2, 2\) or a layer's name, got 2"):
        named[2] = b
    with pytest.raises(KeyError, match="Sequential: no layer named 'dec'"):
        del named["dec"]
    with pytest.raises(TypeError, match="Sequential.__setitem__: expected a Layer, got str"):
        named[0] = "relu"
    assert list(named) == [a, tanh]


# -- io.ConcatDataset ----------------------------------------------------------------------

def test_concat_dataset_indexes_each_dataset_in_turn():
    a = eager.io.TensorDataset([np.arange(3, dtype="float32")])
    empty = eager.io.Subset(a, [])
    b = [10.0, 11.0]
    both = eager.io.ConcatDataset([a, empty, b])
    assert len(both) == 5 and both.cumulative_sizes == [3, 3, 5]
    got = [float(both[i][0]) if i < 3 else both[i] for i in range(5)]
    assert got == [0.0, 1.0, 2.0, 10.0, 11.0]
    assert both[-1] == 11.0 and float(both[-5][0]) == 0.0 and both[np.int64(3)] == 10.0
    batches = [batch.numpy().tolist() for batch in eager.io.DataLoader(eager.io.ConcatDataset([b, b]), batch_size=2)]
    assert batches == [[10.0, 11.0], [10.0, 11.0]]
    with pytest.raises(IndexError, match="ConcatDataset: index 5 out of range for 5 samples"):
        both[5]
    with pytest.raises(IndexError, match="ConcatDataset: index -6 out of range"):
        both[-6]
    with pytest.raises(TypeError, match="ConcatDataset: index expected an int, got float"):
        both[1.0]
    with pytest.raises(ValueError, match="ConcatDataset: argument 'datasets' expected at least one dataset"):
        eager.io.ConcatDataset([])
    with pytest.raises(TypeError, match="ConcatDataset: argument 'datasets' expected map-style datasets, item 1 is"):
        eager.io.ConcatDataset([a, eager.io.ChainDataset([])])
    with pytest.raises(TypeError, match="ConcatDataset: argument 'datasets' expected a list of datasets, got TensorDataset"):
        eager.io.ConcatDataset(a)


def test_parameter_carries_is_distributed_and_do_model_average():
    fc = eager.nn.Linear(2, 2, weight_attr=eager.ParamAttr(do_model_average=False))
    assert fc.weight.is_distributed is False and fc.weight.do_model_average is False
    assert fc.bias.do_model_average is True                    # ParamAttr's default
    fc.weight.is_distributed = True                           # settable, as Paddle's
    assert copy.deepcopy(fc).weight.is_distributed is True


def test_bfloat16_casts_the_floating_tensors_except_excluded_layers():
    pytest.importorskip("ml_dtypes")
    net = _Net()
    assert net.bfloat16(excluded_layers=[eager.nn.BatchNorm1D]) is net
    dtypes = {name: t.dtype for name, t in net.state_dict().items()}
    assert dtypes["fc.weight"] == dtypes["running"] == eager.bfloat16
    assert dtypes["bn.weight"] == dtypes["bn._mean"] == eager.float32
    with pytest.raises(TypeError, match="Layer.bfloat16: argument 'excluded_layers' expected Layers or Layer classes, got str"):
        net.bfloat16(excluded_layers=["fc"])
