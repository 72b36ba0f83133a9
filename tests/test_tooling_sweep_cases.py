"""Cases found by the tooling differential sweep (quantization, profiler,
jit.save/load with InputSpec, incubate.optimizer, incubate.autograd, hub).

The sweep compared fake quantization against a hand-written
round-half-away/clip formula over bit lengths, moving rates and dtypes, QAT and
PTQ models against that formula composed by hand, make_scheduler against
Paddle's rule written out (2000 draws), LookAhead and ModelAverage against
their update rules written out (200 runs each), vjp/jvp/Jacobian/Hessian
against torch.autograd.functional, jit.save/load round trips over batch sizes,
and hub.list/help/load on a temporary hubconf.py. What it found:

- a 0-D input came out of every fake quantization (the QAT quanter,
  FakeQuantAbsMax, FakeQuantMovingAverageAbsMax, fake_quant_dequant) with
  shape [1]: the scale was reshaped to [1] and broadcast the result;
- an empty input to an abs-max observer or quanter in training (and to
  FakeQuantAbsMax / FakeQuantChannelWiseAbsMax) failed inside ``max`` with
  max's own message; its max|x| is undefined (Paddle's kernels read past the
  end), so it is refused by the layer's name, statistics left as they were;
- weight_quantize of a weight with no rows failed the same way;
- InputSpec's error for a bad dtype named neither InputSpec nor 'dtype', and
  a stop_gradient of any kind was read with bool();
- LookAhead (alpha, k), ModelAverage (average_window_rate, the windows) and
  Profiler.export (path) raised ValueError for an argument of the wrong kind;
- InputSpec.from_tensor did not take the tensor's name (Paddle: ``name or
  tensor.name``), and ``==`` ignored stop_gradient (Paddle compares it);
- hub.list and hub.help refused a hubconf whose dependencies are missing
  (Paddle checks them in load only);
- Profiler.start marked itself started before asking the scheduler, so a
  scheduler returning a bad state left it 'already started' and idle;
- QuantConfig.add_name_config / add_type_config given a list with a bad item
  configured the items before it, then raised;
- Profiler(scheduler=(start, end)) refused a negative start, which Paddle
  reads as 0;
- Profiler.summary(sorted_by=CPUMin/GPUMin) put the largest minimum first;
  Paddle sorts those tables ascending;
- QAT/PTQ.convert had no ``remain_weight`` and raised on a layer already
  converted; Paddle's takes remain_weight and skips converted layers and
  layers without a weight quanter or its scales;
- incubate.autograd.forward_grad with a tangent of another dtype failed in
  grad's own check, naming neither forward_grad nor grad_inputs;
- ImperativeQuantAware's weight_bits/activation_bits/moving_rate errors named
  FakeQuanterWithAbsMaxObserver and 'bit_length', AbsmaxObserver's quant_bits
  errors named 'bit_length';
- per-channel scales that do not match x along quant_axis failed in maximum's
  broadcast (or with a raw IndexError for an axis past x's rank), and
  LinearQuanter read quant_axis with int().
"""
import numpy as np
import pytest

import eager
from eager import profiler
from eager.incubate.optimizer import LookAhead, ModelAverage
from eager.nn.quant import quant_layers, weight_quantize
from eager.nn.quant.fake_quant import fake_quant_dequant
from eager.quantization import QAT, QuantConfig
from eager.quantization.observers import AbsmaxObserver
from eager.quantization.quanters import FakeQuanterWithAbsMaxObserver
from eager.static import InputSpec


def _fake_quant(x, scale, bits):
    """round(clip(x, -s, s) / s * bnt) * s / bnt, halves away from zero, written out."""
    bnt = 2 ** (bits - 1) - 1
    v = np.clip(x, -scale, scale) / scale * bnt
    return np.sign(v) * np.floor(np.abs(v) + 0.5) * scale / bnt


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_d_input_keeps_its_shape_through_fake_quantization(dtype):
    rate, bits, value = 0.8, 4, 0.7
    quanter = FakeQuanterWithAbsMaxObserver(moving_rate=rate, bit_length=bits, dtype=dtype)._instance(None)
    x = eager.to_tensor(np.array(value, dtype), stop_gradient=False)
    out = quanter(x)
    scale = (rate * 1.0 + value) / (rate * 1.0 + 1.0)   # accum and state start at 1
    assert out.shape == [] and str(out.dtype) == f"paddle.{dtype}"
    np.testing.assert_allclose(out.numpy(), _fake_quant(value, scale, bits), rtol=1e-6)
    out.backward()
    assert x.grad.shape == [] and x.grad.numpy() == 1.0   # straight-through

    direct = fake_quant_dequant(eager.to_tensor(np.array(-0.3, dtype)), eager.to_tensor(np.array([0.5], dtype)), 3)
    assert direct.shape == []
    np.testing.assert_allclose(direct.numpy(), _fake_quant(-0.3, 0.5, 3), rtol=1e-6)
    assert quant_layers.FakeQuantAbsMax(quant_bits=2)(eager.to_tensor(np.array(value, dtype))).shape == []
    assert quant_layers.FakeQuantMovingAverageAbsMax()(eager.to_tensor(np.array(value, dtype))).shape == []


@pytest.mark.usefixtures("device")
def test_empty_input_refused_by_abs_max_statistics():
    quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)._instance(None)
    before = [p.numpy().copy() for p in (quanter._scale, quanter._state, quanter._accum)]
    with pytest.raises(ValueError, match=r"FakeQuanterWithAbsMaxObserverLayer: argument 'input' is empty "
                                         r"\(shape \[2, 0\]\)"):
        quanter(eager.zeros([2, 0]))
    for p, old in zip((quanter._scale, quanter._state, quanter._accum), before):
        np.testing.assert_array_equal(p.numpy(), old)
    quanter.eval()   # in eval the stored scale is used: an empty input is fine
    assert quanter(eager.zeros([2, 0])).shape == [2, 0]

    observer = AbsmaxObserver()._instance(None)
    with pytest.raises(ValueError, match=r"AbsmaxObserverLayer: argument 'input' is empty"):
        observer(eager.zeros([0]))
    np.testing.assert_allclose(observer.abs_max_val.numpy(), 1e-7)

    moving = quant_layers.FakeQuantMovingAverageAbsMax()
    with pytest.raises(ValueError, match=r"FakeQuantMovingAverageAbsMax: argument 'input' is empty"):
        moving(eager.zeros([0, 3]))
    np.testing.assert_allclose(moving._scale.numpy(), [0.001])
    with pytest.raises(ValueError, match=r"FakeQuantAbsMax: argument 'input' is empty"):
        quant_layers.FakeQuantAbsMax()(eager.zeros([0, 3]))
    with pytest.raises(ValueError, match=r"MovingAverageAbsMaxScale: argument 'input' is empty"):
        quant_layers.MovingAverageAbsMaxScale()(eager.zeros([3, 0]))
    channel = quant_layers.FakeQuantChannelWiseAbsMax(channel_num=3, quant_on_weight=True)
    with pytest.raises(ValueError, match=r"FakeQuantChannelWiseAbsMax: argument 'input' is empty"):
        channel(eager.zeros([3, 0]))


def test_weight_quantize_refuses_a_weight_without_rows():
    with pytest.raises(ValueError, match=r"weight_quantize: argument 'x' expected at least one row .*"
                                         r"got shape \[0, 3\]"):
        weight_quantize(eager.zeros([0, 3]))
    out, scale = weight_quantize(eager.zeros([2, 0]))   # no columns: nothing to scale, still fine
    assert out.shape == [0, 2] and scale.shape == [0]


def test_input_spec_names_a_bad_dtype():
    with pytest.raises(TypeError, match=r"InputSpec: argument 'dtype': unknown dtype string 'bogus'"):
        InputSpec([None, 3], "bogus")
    with pytest.raises(TypeError, match=r"InputSpec: argument 'dtype' expected a dtype"):
        InputSpec([None, 3], None)
    assert InputSpec([-1, 3], "int64").dtype == eager.int64
    with pytest.raises(TypeError, match=r"InputSpec: argument 'stop_gradient' expected a bool, got str 'no'"):
        InputSpec([None, 3], stop_gradient="no")   # bool('no') read it as True


def test_wrong_kinds_raise_type_error():
    linear = eager.nn.Linear(2, 1)
    weight = linear.weight.numpy().copy()
    sgd = eager.optimizer.SGD(0.1, parameters=linear.parameters())
    with pytest.raises(TypeError, match=r"LookAhead: argument 'alpha' expected a float in \[0, 1\], got str"):
        LookAhead(sgd, alpha="0.5")
    with pytest.raises(TypeError, match=r"LookAhead: argument 'k' expected a positive int, got float"):
        LookAhead(sgd, k=2.0)
    with pytest.raises(TypeError, match=r"ModelAverage: argument 'average_window_rate' expected a positive "
                                        r"float, got str"):
        ModelAverage("0.15", parameters=linear.parameters())
    with pytest.raises(TypeError, match=r"ModelAverage: argument 'max_average_window' expected a positive int, "
                                        r"got float"):
        ModelAverage(0.15, parameters=linear.parameters(), min_average_window=2, max_average_window=10.0)
    np.testing.assert_array_equal(linear.weight.numpy(), weight)
    with pytest.raises(ValueError, match=r"LookAhead: argument 'k' expected a positive int, got 0"):
        LookAhead(sgd, k=0)

    prof = profiler.Profiler(on_trace_ready=lambda p: None)
    with prof:
        eager.ones([2]).sum()
    with pytest.raises(TypeError, match=r"Profiler.export: argument 'path' expected a file path, got int"):
        prof.export(5)
    with pytest.raises(ValueError, match=r"Profiler.export: argument 'path' expected a file path, got ''"):
        prof.export("")


def test_input_spec_from_tensor_and_equality_follow_paddle():
    t = eager.ones([2, 3], "int32")
    t.name = "ids"
    spec = InputSpec.from_tensor(t)   # Paddle: name or tensor.name
    assert (spec.shape, spec.dtype, spec.name) == ((2, 3), eager.int32, "ids")
    assert InputSpec.from_tensor(t, name="other").name == "other"
    # Paddle's __eq__ compares stop_gradient too; its hash leaves the name out.
    assert InputSpec([None, 3]) != InputSpec([None, 3], stop_gradient=True)
    assert InputSpec([None, 3], name="a") != InputSpec([None, 3], name="b")
    assert hash(InputSpec([-1, 3], name="a")) == hash(InputSpec([None, 3], name="b"))


def test_hub_list_and_help_do_not_check_dependencies(tmp_path):
    # Paddle's hub.list and hub.help import hubconf.py without checking `dependencies`; only load does.
    (tmp_path / "hubconf.py").write_text("dependencies = ['no_such_module_xyz']\n"
                                         "def model(width=2):\n"
                                         "    '''A model needing a missing package.'''\n"
                                         "    return width\n")
    assert eager.hub.list(str(tmp_path), source="local") == ["model"]
    assert eager.hub.help(str(tmp_path), "model", source="local") == "A model needing a missing package."
    with pytest.raises(RuntimeError, match="hub.load: Missing dependencies: no_such_module_xyz"):
        eager.hub.load(str(tmp_path), "model", source="local")


def test_profiler_start_refused_by_its_scheduler_leaves_it_unstarted():
    states = iter([1, profiler.ProfilerState.RECORD])   # a bad state first, a good one on the retry
    prof = profiler.Profiler(scheduler=lambda step: next(states), on_trace_ready=lambda p: None)
    with pytest.raises(TypeError, match=r"Profiler: the scheduler returned 1 for step 0, expected a ProfilerState"):
        prof.start()
    with pytest.raises(RuntimeError, match="Profiler.stop: the profiler is not started"):
        prof.stop()
    prof.start()   # was refused before: 'the profiler is already started'
    eager.ones([2]).sum()
    prof.stop()
    assert prof.profiler_result is not None


def test_quant_config_list_refused_part_way_configures_nothing():
    model = eager.nn.Sequential(eager.nn.Linear(2, 2))
    config = QuantConfig(activation=None, weight=None)
    quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.5)
    with pytest.raises(TypeError, match=r"QuantConfig.add_name_config: argument 'layer_name' expected a str or "
                                        r"a list of str, got int"):
        config.add_name_config([model[0].full_name(), 5], activation=quanter, weight=quanter)
    with pytest.raises(TypeError, match=r"QuantConfig.add_type_config: argument 'layer_type' expected a subclass "
                                        r"of eager.nn.Layer, got <class 'int'>"):
        config.add_type_config([eager.nn.Linear, int], activation=quanter, weight=quanter)
    # Nothing was configured, so QAT leaves the Linear as it is (it became a QuantedLinear before).
    quantized = QAT(config).quantize(model, inplace=False)
    assert type(quantized[0]) is eager.nn.Linear


def test_profiler_tuple_scheduler_reads_a_negative_start_as_zero():
    # Paddle: assert end > start, then start = max(start, 0): (-2, 2) records steps 0 and 1.
    prof = profiler.Profiler(scheduler=(-2, 2), on_trace_ready=lambda p: None)
    names = [prof.scheduler(step).name for step in range(4)]
    assert names == ["RECORD", "RECORD_AND_RETURN", "CLOSED", "CLOSED"]
    for bad in [(-3, -1), (2, 2), (3, 1)]:
        with pytest.raises(ValueError, match=r"Profiler: argument 'scheduler' expected start_step < end_step"):
            profiler.Profiler(scheduler=bad)


def test_summary_sorted_by_min_puts_the_smallest_first(capsys):
    # Paddle sorts the CPUMin/GPUMin tables ascending (sorted(..., key=min_cpu_time)), the others descending.
    op = profiler.TracerEventType.Operator
    spans = {"a": [(0, 10), (20, 50)], "b": [(100, 102), (200, 300)], "c": [(400, 405)]}   # min 10, 2, 5
    events = [profiler.HostEvent(name, op, start, end, 1) for name, pairs in spans.items() for start, end in pairs]
    prof = profiler.Profiler(on_trace_ready=lambda p: None)
    prof.profiler_result = profiler.ProfilerResult(events)

    def order(key):
        prof.summary(sorted_by=key, op_detail=False, time_unit="ns", views=profiler.SummaryView.OperatorView)
        return [line.split()[0] for line in capsys.readouterr().out.splitlines() if line[:1] in ("a", "b", "c")]

    assert order(profiler.SortedKeys.CPUMin) == ["b", "c", "a"]
    assert order(profiler.SortedKeys.GPUMin) == ["b", "c", "a"]
    assert order(profiler.SortedKeys.CPUMax) == ["b", "a", "c"]     # max 100, 30, 5
    assert order(profiler.SortedKeys.CPUTotal) == ["b", "a", "c"]   # total 102, 40, 5


def test_convert_takes_remain_weight_and_skips_converted_layers():
    model = eager.nn.Sequential(eager.nn.Linear(3, 2))
    quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    qat = QAT(QuantConfig(activation=quanter, weight=quanter))
    quantized = qat.quantize(model, inplace=False)
    x = eager.to_tensor(np.random.default_rng(0).standard_normal((4, 3)).astype("float32"))
    quantized(x)
    quantized.eval()
    expected = quantized(x).numpy()

    kept = qat.convert(quantized, inplace=False, remain_weight=True)
    np.testing.assert_array_equal(kept[0].weight.numpy(), quantized[0].weight.numpy())   # floats kept
    np.testing.assert_allclose(kept(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    converted = qat.convert(quantized, inplace=False)
    levels = converted[0].weight.numpy()
    np.testing.assert_array_equal(levels, np.round(levels))   # integer levels
    again = qat.convert(converted, inplace=False)   # Paddle skips a converted layer
    np.testing.assert_allclose(again(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match=r"QAT.convert: argument 'remain_weight' expected a bool, got 1"):
        qat.convert(quantized, remain_weight=1)


def test_forward_grad_names_a_tangent_of_the_wrong_dtype():
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * x
    with pytest.raises(TypeError, match=r"incubate.autograd.forward_grad: argument 'grad_inputs' expected the "
                                        r"dtypes of inputs \['paddle.float32'\], got \['paddle.int64'\]"):
        eager.incubate.autograd.forward_grad(y, x, eager.ones([2], "int64"))
    tangent = eager.to_tensor([0.5, -1.0])
    np.testing.assert_allclose(eager.incubate.autograd.forward_grad(y, x, tangent).numpy(), [1.0, -4.0])   # 2x*v


def test_bit_and_rate_errors_name_the_callers_argument():
    imperative = eager.quantization.ImperativeQuantAware
    with pytest.raises(ValueError, match=r"ImperativeQuantAware: argument 'weight_bits' expected an int in "
                                         r"\[2, 16\], got 1"):
        imperative(weight_bits=1)
    with pytest.raises(TypeError, match=r"ImperativeQuantAware: argument 'activation_bits' expected an int, "
                                        r"got '8'"):
        imperative(activation_bits="8")
    with pytest.raises(ValueError, match=r"ImperativeQuantAware: argument 'moving_rate' expected a number in "
                                         r"\[0, 1\), got 1.5"):
        imperative(moving_rate=1.5)
    with pytest.raises(ValueError, match=r"AbsmaxObserver: argument 'quant_bits' expected an int in \[2, 16\], "
                                         r"got 0"):
        AbsmaxObserver(quant_bits=0)
    assert imperative(weight_bits=4, activation_bits=6, moving_rate=0.5) is not None


@pytest.mark.usefixtures("device")
def test_per_channel_scales_are_checked_against_quant_axis():
    x = np.arange(-6, 6, dtype="float32").reshape(3, 4) / 4
    scales = np.array([1.0, 1.5, 2.0], "float32")   # one per row: quant_axis 0
    out = fake_quant_dequant(eager.to_tensor(x), eager.to_tensor(scales), 4, 0)
    np.testing.assert_allclose(out.numpy(), _fake_quant(x.astype(np.float64), scales[:, None].astype(np.float64), 4),
                               rtol=1e-6)
    with pytest.raises(ValueError, match=r"fake_quant_dequant: 3 per-channel scales do not match x's 4 channels "
                                         r"along quant_axis 1"):
        fake_quant_dequant(eager.to_tensor(x), eager.to_tensor(scales), 4, 1)
    with pytest.raises(ValueError, match=r"fake_quant_dequant: argument 'quant_axis' expected an axis of x "
                                         r"\(rank 2\) for per-channel scales, got 2"):
        fake_quant_dequant(eager.to_tensor(x), eager.to_tensor(scales), 4, 2)   # was a raw IndexError
    with pytest.raises(TypeError, match=r"LinearQuanter: argument 'quant_axis' expected an int, got str 'a'"):
        eager.nn.quant.format.LinearQuanter(eager.to_tensor([1.0]), quant_axis="a")
