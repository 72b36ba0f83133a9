"""Cases found by the generic bad-argument sweep: every public callable (eager.*,
Tensor methods not in eager.*, nn.functional, linalg, fft, signal, sparse,
incubate, vision.ops, vision.transforms.functional, geometric, metric,
distribution, nn layer constructors) called once validly from its signature,
then with each argument in turn replaced by None, a str, a nested list of str,
a dict, a complex number, nan / a negative / a huge int / a bool for ints, a
Tensor of the wrong dtype or rank, an object ndarray, and a Tensor for a number
or a number for a Tensor. What it found (refused badly, or hung):

- a tensor of a dtype no kernel of the op takes raised the kernel registry's
  NotFoundError (a LookupError): now UnsupportedDtypeError, also a TypeError;
- a NumPy array (of objects) for a string or bool argument died in ``in`` or
  ``not`` ("truth value of an array ... is ambiguous"): loss reductions,
  kl_div, mse_loss's fast path, prelu/PReLU data_format, rrelu training,
  pairwise_distance keepdim, resize interpolation, lstsq driver, LKJCholesky
  sample_method, tril/triu_indices and unique_consecutive dtype, vander
  increasing, ConvNormActivation bias, Transformer normalize_before; a Tensor
  for maxout's axis the same way;
- sizes no array can hold reached NumPy ("array is too big", OverflowError,
  MemoryError) or looped for ever: diagonal/trace offset, histogram bins,
  combinations r, tril/triu_indices, vander n, multigammaln p (a loop over p),
  polygamma n (exact factorials), Auc num_thresholds, layer parameters
  (Conv*, Linear, Embedding, BatchNorm, RNN cells), conv stride or dilation
  (a huge one along an axis of one output is valid: Paddle takes it);
- errors named a function the user did not call or an argument name it does
  not have: eigvalsh (eigh), eigvals (eig), cholesky_solve (triangular_solve,
  with x and y swapped), LogNormal (Normal), where(cond) (nonzero), chunk
  ('num_or_sections' for 'chunks'), bernoulli_ (expand), ConvNormActivation
  (Conv2D), attention and Transformer dropouts ('p' for 'dropout_p'/'dropout');
- Distribution's batch/event shapes, slice_scatter's lists, ClipGradByValue's
  max and Parameter's learning_rate went through int()/float()/a dict lookup.
"""
import math

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.distribution import Distribution, LKJCholesky, LogNormal
from phi.core.errors import NotFoundError

HUGE = 2 ** 62


def _t(shape, dtype="float32", seed=0):
    return eager.to_tensor(np.random.default_rng(seed).uniform(0.1, 0.9, shape).astype(dtype))


def _objects():
    array = np.empty(2, dtype=object)
    array[0], array[1] = "a", None
    return array


# (id, inputs factory -> (function, args, kwargs), error type, message regex)
CASES = [
    ("exp-int16", lambda: (eager.exp, (eager.to_tensor([1, 2], dtype="int16"),), {}),
     TypeError, r"^exp: no kernel .*exp takes .*float32.*got paddle\.int16"),
    ("eigvalsh-name", lambda: (eager.linalg.eigvalsh, ("abc",), {}), TypeError, r"^eigvalsh: argument 'x'"),
    ("eigvalsh-int", lambda: (eager.linalg.eigvalsh, (eager.ones([3, 3], "int32"),), {}),
     ValueError, r"^eigvalsh: argument 'x' expected a float32"),
    ("eigvals-name", lambda: (eager.linalg.eigvals, (None,), {}), TypeError, r"^eigvals: argument 'x'"),
    ("cholesky_solve-rows", lambda: (eager.linalg.cholesky_solve, (_t([2, 2, 2]), _t([3, 3])), {}),
     ValueError, r"^cholesky_solve: argument 'x' expected 3 rows"),
    ("cholesky_solve-dtype", lambda: (eager.linalg.cholesky_solve, (_t([3, 1]), _t([3, 3], "float64")), {}),
     TypeError, r"^cholesky_solve: argument 'y' expected the dtype of x"),
    ("lstsq-driver", lambda: (eager.linalg.lstsq, (_t([3, 2]), _t([3, 1])), {"driver": _objects()}),
     ValueError, r"^lstsq: argument 'driver'"),
    ("multigammaln-p", lambda: (eager.multigammaln, (_t([3]), HUGE), {}),
     ValueError, r"^multigammaln: argument 'p' gives a result of shape \[3, 4611686018427387904\]"),
    ("histogram-bins", lambda: (eager.histogram, (_t([4]),), {"bins": HUGE}),
     ValueError, r"^histogram: argument 'bins' gives a result"),
    ("combinations-r", lambda: (eager.combinations, (_t([3]), HUGE), {}),
     ValueError, r"^combinations: argument 'r' gives a result"),
    ("combinations-r-replacement", lambda: (eager.combinations, (_t([3]), HUGE, True), {}),
     ValueError, r"^combinations: argument 'r' gives a result"),
    ("tril_indices-size", lambda: (eager.tril_indices, (2 ** 40, 2 ** 40), {}),
     ValueError, r"^tril_indices: argument 'row' gives a result"),
    ("triu_indices-dtype", lambda: (eager.triu_indices, (3, 3), {"dtype": _objects()}),
     TypeError, r"^triu_indices: argument 'dtype'"),
    ("unique_consecutive-dtype", lambda: (eager.unique_consecutive, (_t([4]),), {"dtype": _objects()}),
     TypeError, r"^unique_consecutive: argument 'dtype'"),
    ("vander-n", lambda: (eager.vander, (_t([3]), HUGE), {}), ValueError, r"^vander: argument 'n' gives"),
    ("vander-increasing", lambda: (eager.vander, (_t([3]),), {"increasing": _objects()}),
     TypeError, r"^vander: argument 'increasing' expected a bool"),
    ("Auc-num_thresholds", lambda: (eager.metric.Auc, (), {"num_thresholds": HUGE}),
     ValueError, r"^Auc: argument 'num_thresholds' gives"),
    ("l1_loss-reduction", lambda: (F.l1_loss, (_t([3]), _t([3], seed=1)), {"reduction": _objects()}),
     ValueError, r"^l1_loss: argument 'reduction'"),
    ("mse_loss-reduction", lambda: (F.mse_loss, (_t([3]), _t([3], seed=1)), {"reduction": _objects()}),
     ValueError, r"^mse_loss: argument 'reduction'"),
    ("kl_div-reduction", lambda: (F.kl_div, (_t([3]), _t([3], seed=1)), {"reduction": _objects()}),
     ValueError, r"^kl_div: argument 'reduction'"),
    ("KLDivLoss-reduction", lambda: (eager.nn.KLDivLoss, (), {"reduction": _objects()}),
     ValueError, r"^KLDivLoss: argument 'reduction'"),
    ("prelu-data_format", lambda: (F.prelu, (_t([2, 3, 4]), _t([1])), {"data_format": _objects()}),
     ValueError, r"^prelu: argument 'data_format'"),
    ("PReLU-data_format", lambda: (eager.nn.PReLU, (), {"data_format": _objects()}),
     ValueError, r"^PReLU: argument 'data_format'"),
    ("rrelu-training", lambda: (F.rrelu, (_t([2, 3]),), {"training": _objects()}),
     TypeError, r"^rrelu: argument 'training' expected a bool"),
    ("pairwise_distance-keepdim", lambda: (F.pairwise_distance, (_t([2, 3]), _t([2, 3], seed=1)),
                                           {"keepdim": _objects()}),
     TypeError, r"^pairwise_distance: argument 'keepdim' expected a bool"),
    ("maxout-axis", lambda: (F.maxout, (_t([2, 4, 3, 3]), 2), {"axis": _t([2])}),
     ValueError, r"^maxout: argument 'axis' expected 1, 3 or -1"),
    ("Maxout-axis", lambda: (eager.nn.Maxout, (2,), {"axis": _t([2])}),
     ValueError, r"^Maxout: argument 'axis' expected 1, 3 or -1"),
    ("resize-interpolation", lambda: (eager.vision.transforms.functional.resize, (_t([3, 4, 4]), 2),
                                      {"interpolation": _objects()}),
     ValueError, r"^resize: argument 'interpolation'"),
    ("LKJCholesky-sample_method", lambda: (LKJCholesky, (3,), {"sample_method": _objects()}),
     ValueError, r"^LKJCholesky: argument 'sample_method'"),
    ("ConvNormActivation-kernel_size", lambda: (eager.vision.ops.ConvNormActivation, (3, 2), {"kernel_size": None}),
     TypeError, r"^ConvNormActivation: argument 'kernel_size' expected an int when padding is None"),
    ("ConvNormActivation-norm_layer", lambda: (eager.vision.ops.ConvNormActivation, (3, 2), {"norm_layer": "abc"}),
     TypeError, r"^ConvNormActivation: argument 'norm_layer' expected a layer class"),
    ("ConvNormActivation-bias", lambda: (eager.vision.ops.ConvNormActivation, (3, 2), {"bias": _objects()}),
     TypeError, r"^ConvNormActivation: argument 'bias' expected a bool"),
    ("Transformer-normalize_before", lambda: (eager.nn.TransformerEncoderLayer, (4, 2, 4),
                                              {"normalize_before": _objects()}),
     TypeError, r"^TransformerEncoderLayer: argument 'normalize_before' expected a bool"),
    ("Conv2D-size", lambda: (eager.nn.Conv2D, (3, HUGE, 1), {}),
     ValueError, r"^Conv2D: its arguments give a parameter of shape \[4611686018427387904, 3, 1, 1\]"),
    ("Embedding-size", lambda: (eager.nn.Embedding, (HUGE, 3), {}),
     ValueError, r"^Embedding: its arguments give a parameter of shape"),
    ("BatchNorm2D-size", lambda: (eager.nn.BatchNorm2D, (HUGE,), {}),
     ValueError, r"^BatchNorm2D: its arguments give a parameter of shape"),
    ("ConvNormActivation-sublayer", lambda: (eager.vision.ops.ConvNormActivation, (None, 2), {}),
     TypeError, r"^ConvNormActivation: Conv2D: argument 'in_channels'"),
    ("TransformerEncoderLayer-dropout", lambda: (eager.nn.TransformerEncoderLayer, (4, 2, 4), {"dropout": "x"}),
     TypeError, r"^TransformerEncoderLayer: argument 'dropout' expected a float"),
    ("scaled_dot_product_attention-dropout_p", lambda: (F.scaled_dot_product_attention,
                                                        (_t([1, 2, 2, 4]),) * 3, {"dropout_p": None}),
     TypeError, r"^scaled_dot_product_attention: argument 'dropout_p'"),
    ("chunk-chunks", lambda: (eager.chunk, (_t([2, 3]), -7), {}),
     ValueError, r"^chunk: argument 'chunks' = -7 must divide"),
    ("where-condition", lambda: (eager.where, (None,), {}), TypeError, r"^where: argument 'condition'"),
    ("LogNormal-loc", lambda: (LogNormal, ("abc", 1.0), {}), TypeError, r"^LogNormal: argument 'loc'"),
    ("Distribution-batch_shape", lambda: (Distribution, (None,), {}),
     TypeError, r"^Distribution: argument 'batch_shape' expected a list or tuple of ints"),
    ("Distribution-event_shape", lambda: (Distribution, ((), (2, -1)), {}),
     ValueError, r"^Distribution: argument 'event_shape' expected non-negative sizes"),
    ("slice_scatter-axes", lambda: (eager.slice_scatter, (_t([2, 4]), _t([2, 2])),
                                    {"axes": None, "starts": [0], "ends": [4], "strides": [2]}),
     TypeError, r"^slice_scatter: argument 'axes' expected a list of ints"),
    ("ClipGradByValue-max", lambda: (eager.nn.ClipGradByValue, (None,), {}),
     TypeError, r"^ClipGradByValue: argument 'max'"),
    ("Parameter-learning_rate", lambda: (eager.nn.Parameter, (np.ones(2, "float32"),), {"learning_rate": "abc"}),
     TypeError, r"^Parameter: argument 'learning_rate' expected a float"),
    ("bernoulli_-p", lambda: (eager.bernoulli_, (_t([2, 3]),), {"p": _t([2])}),
     ValueError, r"^bernoulli_: argument 'p' of shape \[2\] does not broadcast"),
    ("Tensor.bernoulli_-p", lambda: (eager.Tensor.bernoulli_, (_t([2, 3]), _t([3, 1])), {}),
     ValueError, r"^bernoulli_: argument 'p' of shape \[3, 1\] does not broadcast"),
]


def _tensors(args, kwargs):
    found = []
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, eager.Tensor):
            found.append((value, value.numpy().copy(), list(value.shape)))
    return found


@pytest.mark.parametrize("make, error, pattern", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_argument_is_refused_by_name_and_inputs_stay(make, error, pattern):
    function, args, kwargs = make()
    before = _tensors(args, kwargs)
    with pytest.raises(error, match=pattern):
        function(*args, **kwargs)
    for tensor, values, shape in before:
        assert list(tensor.shape) == shape
        np.testing.assert_array_equal(tensor.numpy(), values)


def test_unsupported_dtype_is_still_a_not_found_error():
    # Code that caught the registry's NotFoundError keeps catching it.
    with pytest.raises(NotFoundError):
        eager.exp(eager.to_tensor([1, 2], dtype="int16"))


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("offset", [HUGE, -HUGE, 2 ** 31, 3, -2])
def test_diagonal_and_trace_of_an_offset_past_the_plane(offset):
    x = eager.to_tensor(np.arange(6.0).reshape(2, 3))
    diagonal, trace = eager.diagonal(x, offset=offset), eager.trace(x, offset=offset)
    assert diagonal.shape == [0]
    assert float(trace) == 0.0


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_multigammaln_values_and_gradient(p):
    values = np.array([2.5, 3.5, 7.25])
    x = eager.to_tensor(values, stop_gradient=False)
    out = eager.multigammaln(x, p)
    expected = [sum(math.lgamma(v - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)
                for v in values]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    out.sum().backward()
    h = 1e-6
    numeric = [(sum(math.lgamma(v + h - j / 2) for j in range(p)) - sum(math.lgamma(v - h - j / 2) for j in range(p)))
               / (2 * h) for v in values]
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-6)
    assert eager.multigammaln(eager.to_tensor(3.0), p).shape == []


def _polygamma_by_series(n, x, terms=4000):
    """psi^(n)(x) = (-1)^(n+1) n! sum_k (x + k)^-(n+1) for n >= 2, summed with fsum relative
    to the largest term (the nearest |x + k|), so that neither the terms nor n! leave float64
    on the way; the tail past 4,000 terms is below 1e-16 of the sum at these orders."""
    nearest = min(abs(x + k) for k in range(terms))
    total = math.fsum((nearest / abs(x + k)) ** (n + 1) * (1 if x + k > 0 or n % 2 else -1)
                      for k in range(terms))
    magnitude = math.exp(math.lgamma(n + 1) - (n + 1) * math.log(nearest) + math.log(abs(total)))
    return (-1) ** (n + 1) * math.copysign(magnitude, total)


@pytest.mark.parametrize("n, x", [(20, 20.0), (100, 20.0), (50, 64.5), (170, 64.5), (160, 140.0), (170, 140.0),
                                  (20, -2.5), (100, -2.5), (50, -3.3), (100, -0.7), (21, -7.5)])
def test_polygamma_of_a_high_order_is_precise(n, x):
    # The asymptotic series began at 15 whatever the order, where its terms grow for
    # n >~ 2 pi 15: psi^(20)(20) was off by 1e-12 and psi^(100)(20) by 1e-2; from
    # n = 155 n! as a float overflowed (OverflowError), and at the half-integers the
    # reflection read 1 / tan(pi / 2) = 6e-17 as cot and multiplied it by huge terms.
    expected = _polygamma_by_series(n, x)
    got = eager.polygamma(eager.to_tensor([x], dtype="float64"), n).numpy()[0]
    assert math.isclose(got, expected, rel_tol=1e-12), (got, expected)


@pytest.mark.usefixtures("device")
def test_polygamma_of_an_order_past_float64_factorials_is_paddles_infinity():
    x = eager.to_tensor([0.5, 3.0, float("nan"), -1.5], dtype="float64")
    np.testing.assert_array_equal(eager.polygamma(x, 171).numpy(), [np.inf, np.inf, np.nan, np.inf])
    np.testing.assert_array_equal(eager.polygamma(x, HUGE).numpy(), [-np.inf, -np.inf, np.nan, -np.inf])


@pytest.mark.usefixtures("device")
def test_combinations_past_the_length_are_empty_and_the_rest_unchanged():
    x = eager.to_tensor([1.0, 2.0, 3.0])
    assert eager.combinations(x, 4).shape == [0, 4]
    np.testing.assert_array_equal(eager.combinations(x, 2, True).numpy(),
                                  [[1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]])


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("stride, dilation, kernel, padding", [
    (HUGE, 1, 2, 0), (2 ** 40, 3, 2, 2), (1, HUGE, 1, 0), (HUGE, 1, 3, 1)])
def test_conv_with_a_stride_or_dilation_never_stepped(stride, dilation, kernel, padding):
    """One output (or one kernel tap) along each axis: the huge stride (dilation)
    gives what any stride past the padded input (dilation 1) gives, values and
    gradients; 9 and 1 are such, and small enough to run."""
    rng = np.random.default_rng(3)
    x_values, w_values = rng.normal(size=(2, 3, 4, 4)), rng.normal(size=(2, 3, kernel, kernel))
    results = []
    for s, d in ((stride, dilation), (9 if stride > 1 else 1, dilation if kernel > 1 else 1)):
        x = eager.to_tensor(x_values, stop_gradient=False)
        w = eager.to_tensor(w_values, stop_gradient=False)
        out = F.conv2d(x, w, stride=s, dilation=d, padding=padding)
        (out * out).sum().backward()
        results.append((out.numpy(), x.grad.numpy(), w.grad.numpy()))
    for huge, small in zip(*results):
        np.testing.assert_allclose(huge, small, rtol=1e-12)
