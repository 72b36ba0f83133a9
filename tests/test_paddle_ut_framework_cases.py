"""Paddle's framework-level unit tests (test_default_dtype, test_var_base's tensor_str
cases, test_get_set_flags, test_unique_name, test_lazy_init, test_is_tensor/is_complex/
is_integer/is_floating_point, test_batch, test_deprecated, test_try_import, places and
devices, ...) re-told against eager, each checked against the real Paddle 2.6.2.

What was found and fixed:

- Tensor printing: Paddle 2.6 takes the width of the printed items and whether a sign
  column is kept from the ``edgeitems`` at the edges of each axis only, even when the
  tensor is below ``threshold`` and prints whole; eager took them from every item, so
  e.g. ``[1., 2., 3., -4., 5., 6., 7.]`` printed padded where Paddle prints it as is.
- ``set_flags({'FLAGS_check_nan_inf': 1})`` (test_nan_inf, the docstring example of
  ``paddle.get_flags``) raised ValueError: the flag now runs the thread in anomaly mode, as
  ``eager.autograd.detect_anomaly`` (FLAGS_check_nan_inf_level is kept: eager always raises).
- ``LazyGuard`` made the parameters at once (a documented difference until now): test_lazy_init
  expects them empty, a forward to raise RuntimeError, and ``param.initialize()`` to draw
  them. They are now shape-only until ``initialize()`` (or ``set_value``/``set_state_dict``),
  ``paddle.create_parameter`` under the guard too (as Paddle 2.6.2); an op given one raises
  NoDataError (RuntimeError and the TypeError it was).
- ``utils.run_check()`` failed after ``set_grad_enabled(False)`` (no gradients in its backward
  stage); it now runs with gradients on, as Paddle's passes.
- ``paddle.framework.use_pir_api`` / ``in_pir_mode`` / ``in_dynamic_or_pir_mode`` (test_lazy_init
  calls the first) were missing.
- A sparse tensor's repr lacked the space Paddle's template puts before each newline.
- ``set_printoptions(sci_mode=1)`` and ``linewidth=0``, which Paddle 2.6.2 takes, were
  refused.
- ``paddle.create_parameter`` left ``do_model_average`` None (the ParamAttr's value, True by
  default, in Paddle) and refused ``attr=False``, for which Paddle returns None.
- ``base.dygraph.to_variable(zero_copy=True)`` discarded the argument silently; Paddle 2.6.2
  warns (test_imperative_numpy_bridge looks for its words).
- ``scale(x, 1j)`` of a real x returned zeros (the complex product cast back to x's dtype);
  now a TypeError as pow's for a complex exponent (Paddle 2.6.2 returns wrong complex values).

Deliberate differences met (already in the docs' tables): ``utils.deprecated`` warns and
raises where Paddle 2.6.2's is a no-op (docs/training.md), ``paddle.Tensor(ndarray)``
(docs/architecture.md), ``Tensor.numpy()`` shares the buffer (docs/architecture.md); newly
added (docs/nn.md): ``create_parameter`` of an integer or bool dtype without an initializer
gives zeros where Paddle raises TypeError.
Paddle quirks left: ``CPUPlace() == CPUPlace()`` is False in Paddle (eager: True);
``set_printoptions(precision=1.5)`` raises RuntimeError in Paddle (eager: TypeError);
``batch(reader, 2.5)`` truncates to 2 in Paddle (eager: TypeError).
"""
from __future__ import annotations

import numpy as np
import pytest

import eager


@pytest.fixture
def print_defaults():
    yield
    eager.set_printoptions(precision=8, threshold=1000, edgeitems=3, linewidth=80, sci_mode=False)


def _values(text: str) -> str:
    """The values part of a repr (after the header line)."""
    return text.split("\n", 1)[1]


def test_print_width_and_sign_from_edge_items_only(print_defaults):
    # strings from Paddle 2.6.2: the middle item (-4., 400) is not looked at for the width/sign
    assert _values(str(eager.to_tensor([1., 2., 3., -4., 5., 6., 7.]))) == \
        "       [1., 2., 3., -4., 5., 6., 7.])"
    assert _values(str(eager.to_tensor([[1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 400, 5, 6, 7]]))) == \
        "       [[1, 2, 3, 4, 5, 6, 7],\n        [1, 2, 3, 400, 5, 6, 7]])"


def test_print_edgeitems_below_threshold(print_defaults):
    # strings from Paddle 2.6.2 under threshold=5, edgeitems=1: three items print whole,
    # padded to the edges' width only
    eager.set_printoptions(threshold=5, edgeitems=1)
    assert _values(str(eager.to_tensor([True, False, True]))) == "       [True, False, True])"
    assert _values(str(eager.to_tensor([0, 255, 7], dtype="uint8"))) == "       [0, 255, 7])"
    nan_inf = eager.to_tensor(np.array([np.nan, np.inf, -np.inf, 1.5], "float32"))
    assert _values(str(nan_inf)) == "       [nan       , inf.      , -inf.     , 1.50000000])"


def test_print_aligned_when_edges_are_widest(print_defaults):
    # the usual case stays aligned (Paddle 2.6.2's string)
    assert _values(str(eager.to_tensor([[-1.5111111, 1.0], [0, -0.5]]))) == \
        "       [[-1.51111114,  1.        ],\n        [ 0.        , -0.50000000]])"


def test_set_printoptions_takes_sci_mode_0_1_and_linewidth_0(print_defaults):
    eager.set_printoptions(sci_mode=1)
    assert "1.25000000e+00" in str(eager.to_tensor([1.25]))
    eager.set_printoptions(sci_mode=0, linewidth=0)
    # Paddle 2.6.2: a line holds at least one item
    assert _values(str(eager.to_tensor([1.25, -2.5]))) == "       [ 1.25000000,\n        -2.50000000])"
    with pytest.raises(TypeError, match="sci_mode"):
        eager.set_printoptions(sci_mode=2)
    with pytest.raises(TypeError, match="linewidth"):
        eager.set_printoptions(linewidth=-1)


def test_create_parameter_keeps_do_model_average():
    # Paddle 2.6.2: True by default, the ParamAttr's value otherwise (as Layer.create_parameter)
    assert eager.create_parameter([2], "float32").do_model_average is True
    attr = eager.ParamAttr(do_model_average=False)
    assert eager.create_parameter([2], "float32", attr=attr).do_model_average is False


def test_create_parameter_attr_false_gives_none():
    # Paddle 2.6.2 returns None, as Layer.create_parameter(attr=False) does
    assert eager.create_parameter([2], "float32", attr=False) is None
    assert eager.nn.Layer().create_parameter([2], attr=False) is None


def test_to_variable_warns_on_zero_copy_and_copies():
    # test_imperative_numpy_bridge: Paddle 2.6.2 warns that zero_copy is discarded
    data = np.array([[2, 3, 1]], "float32")
    with pytest.warns(UserWarning, match="zero_copy is not supported"):
        var = eager.base.dygraph.to_variable(data, zero_copy=True)
    data[0, 0] = -1
    assert var.numpy()[0, 0] == 2


@pytest.mark.usefixtures("device")
def test_scale_of_a_real_tensor_refuses_a_complex_factor():
    # scale keeps x's dtype: a complex factor lost its imaginary part (scale(x, 1j) gave zeros)
    x = eager.to_tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="argument 'scale' is the complex number 1j"):
        eager.scale(x, 1j)
    with pytest.raises(TypeError, match="argument 'bias' is the complex number"):
        x.scale_(1.0, 2j)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(eager.scale(x.astype("complex64"), 1j).numpy(), [1j, 2j])


def test_sparse_repr_lines_end_as_paddles():
    # Paddle 2.6.2's string: each line but the last ends with ", " before the newline
    coo = eager.sparse.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.5, -2.0, 3.0], [3, 3])
    assert str(coo) == ("Tensor(shape=[3, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True, \n"
                        "       indices=[[0, 1, 2],\n                [1, 2, 0]], \n"
                        "       values=[1.50000000, -2.       ,  3.       ])")


def test_flags_check_nan_inf_turns_anomaly_mode_on_and_off():
    # test_nan_inf sets {"FLAGS_check_nan_inf": 1, "FLAGS_check_nan_inf_level": 0}; Paddle 2.6.2
    # then raises on an op that makes Inf, here log(0)
    x = eager.to_tensor([0.0, 1.0])
    assert eager.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": False}
    eager.set_flags({"FLAGS_check_nan_inf": 1, "FLAGS_check_nan_inf_level": 0})
    try:
        assert eager.get_flags(["FLAGS_check_nan_inf", "FLAGS_check_nan_inf_level"]) == \
            {"FLAGS_check_nan_inf": True, "FLAGS_check_nan_inf_level": 0}
        with pytest.raises(FloatingPointError, match="log: output 0 .* contains Inf"):
            eager.log(x)
    finally:
        eager.set_flags({"FLAGS_check_nan_inf": False})
    assert not eager.autograd.is_anomaly_enabled()
    np.testing.assert_array_equal(eager.log(x).numpy(), [-np.inf, 0.0])


def _lazy_linear():
    init = eager.nn.initializer
    with eager.LazyGuard():
        return eager.nn.Linear(10, 10, weight_attr=eager.ParamAttr(initializer=init.Constant(0.6)),
                               bias_attr=eager.ParamAttr(initializer=init.Constant(0.3)))


def test_lazy_guard_parameters_hold_no_data_until_initialize():
    # test_lazy_init (Paddle 2.6.2): no memory before initialize(), a forward raises RuntimeError
    fc = _lazy_linear()
    x = eager.randn([2, 10])
    assert fc.weight.shape == [10, 10] and not fc.weight._is_initialized()
    with pytest.raises(RuntimeError, match="holds no data"):
        fc(x)
    for param in fc.parameters():
        param.initialize()
    assert fc(x).shape == [2, 10]
    np.testing.assert_allclose(fc.weight.numpy(), np.full([10, 10], 0.6, np.float32))
    np.testing.assert_allclose(fc.bias.numpy(), np.full([10], 0.3, np.float32))
    with eager.LazyGuard():
        p = eager.create_parameter([2], "float32")
    assert not p._is_initialized()


def test_lazy_guard_model_loads_a_state_dict_without_initializing():
    fc = _lazy_linear()
    source = eager.nn.Linear(10, 10)
    fc.set_state_dict(source.state_dict())
    for param in fc.parameters():
        param.initialize()  # keeps the loaded values
    np.testing.assert_array_equal(fc.weight.numpy(), source.weight.numpy())
    np.testing.assert_array_equal(fc.bias.numpy(), source.bias.numpy())


def test_lazy_embedding_zeroes_its_padding_row_when_initialized():
    with eager.LazyGuard():
        emb = eager.nn.Embedding(5, 3, padding_idx=1)
    emb.weight.initialize()
    np.testing.assert_array_equal(emb.weight.numpy()[1], np.zeros(3, np.float32))
    assert np.all(emb.weight.numpy()[[0, 2, 3, 4]] != 0)


def test_run_check_works_with_gradients_turned_off(capsys):
    # Paddle 2.6.2's run_check passes after set_grad_enabled(False) (its docstring example
    # leaves the mode off); eager's backward stage found no gradient
    eager.set_grad_enabled(False)
    try:
        eager.utils.run_check()
        assert not eager.is_grad_enabled()
    finally:
        eager.set_grad_enabled(True)
    assert "eager works well on 1 CPU." in capsys.readouterr().out


def test_framework_pir_mode_queries():
    # paddle.framework's (test_lazy_init calls use_pir_api); Paddle 2.6.2 in dynamic mode
    assert eager.framework.use_pir_api() is False
    assert eager.framework.in_pir_mode() is False
    assert eager.framework.in_dynamic_or_pir_mode() is True
