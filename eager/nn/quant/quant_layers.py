"""Paddle's ``paddle.nn.quant.quant_layers``: the fake-quantization layers of
Paddle's older dynamic-graph quantization (ImperativeQuantAware's layers), on
the quantize-dequantize arithmetic of :mod:`eager.nn.quant.fake_quant`.

- :class:`FakeQuantAbsMax`: per-tensor, the scale is the input's ``max|x|``;
- :class:`FakeQuantMovingAverageAbsMax`: per-tensor, the scale a moving
  average of ``max|x|`` in training (``state = rate*state + 1``, ``accum =
  rate*accum + max|x|``, ``scale = accum/state``), the stored one in eval mode;
- :class:`FakeQuantChannelWiseAbsMax`: for weights, one ``max|x|`` scale per
  channel along ``quant_axis``;
- :class:`MovingAverageAbsMaxScale` (also ``QuantStub``): the input unchanged,
  with the moving-average scale recorded in training;
- :class:`QuantizedConv2D`, :class:`QuantizedConv2DTranspose`,
  :class:`QuantizedLinear`, :class:`QuantizedMatmul`: the layer's computation
  on fake-quantized inputs and weights;
- :class:`MAOutputScaleLayer`, :class:`FakeQuantMAOutputScaleLayer`: a layer
  followed by a moving-average scale or fake quantization of its output.

Quantize-dequantize is ``round(clip(x, -s, s) / s * bnt) * s / bnt`` with
``bnt = 2**(bits-1) - 1``; its gradient is the straight-through estimator (the
incoming gradient unchanged), as Paddle's kernels. The LSQ+ types ('lsq_weight',
'channel_wise_lsq_weight', 'lsq_act') learn their step (nn.quant.lsq). Paddle's
``reduce_type="max"`` (an all-reduce of the scale across data-parallel ranks) is
not offered (ValueError).

>>> layer = QuantizedLinear(eager.nn.Linear(4, 3), weight_quantize_type="channel_wise_abs_max")
>>> layer(eager.ones([2, 4])).shape
[2, 3]
"""
from __future__ import annotations

import numbers

from ...autograd import no_grad
from ...generated import forward_api as _F
from ..conv import Conv2D, Conv2DTranspose, convolve, convolve_transpose
from ..functional.checks import check_tensor
from ..functional.common import linear
from ..initializer import Constant
from ..layer import Layer, ParamAttr
from ..layers import Linear
from ...utils import unique_name
from . import fake_quant
from .lsq import FakeQuantActLSQPlus, FakeQuantWeightLSQPlus

_WEIGHT_TYPES = ("abs_max", "channel_wise_abs_max", "moving_average_abs_max", "lsq_weight",
                 "channel_wise_lsq_weight")
_ACTIVATION_TYPES = ("abs_max", "moving_average_abs_max", "lsq_act")
_LSQ_TYPES = ("lsq_weight", "channel_wise_lsq_weight", "lsq_act")
_FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")


def _bits(who: str, quant_bits) -> int:
    return fake_quant.check_bit_length(who, quant_bits, "quant_bits")


def _dtype(who: str, dtype) -> str:
    name = str(dtype).split(".")[-1]
    if name not in _FLOAT_DTYPES:
        raise ValueError(f"{who}: argument 'dtype' expected a floating-point dtype, got {dtype!r}")
    return name


def _reduce(who: str, reduce_type) -> None:
    if reduce_type is not None:
        raise ValueError(f"{who}: argument 'reduce_type' {reduce_type!r} is not offered here (only None: the scale "
                         f"is not all-reduced across ranks)")


def _scale_parameter(layer: Layer, name, suffix: str, default: str, value: float, shape, dtype):
    """A non-trainable parameter (saved in state_dict) of ``shape`` filled with ``value``."""
    prefix = f"{name}.{suffix}" if name else f"{default}.{suffix}"
    attr = ParamAttr(name=unique_name.generate(prefix), initializer=Constant(value), trainable=False)
    param = layer.create_parameter(list(shape), attr=attr, dtype=dtype)
    param.stop_gradient = True
    return param


def _abs_max(x):
    with no_grad():
        return _F.max(_F.abs(x.detach())).reshape([1])


class FakeQuantAbsMax(Layer):
    """Per-tensor fake quantization with the input's own ``max|x|`` as scale (in
    every mode). With ``quant_on_weight`` the scale is kept in ``_scale`` (a
    [1] parameter, not trained); otherwise ``_scale`` is None.

    >>> FakeQuantAbsMax(quant_bits=2)(eager.to_tensor([0.3, -2.0]))
    Tensor([0., -2.])
    """

    def __init__(self, name=None, quant_bits=8, dtype="float32", quant_on_weight=False, reduce_type=None):
        super().__init__()
        who = "FakeQuantAbsMax"
        self._quant_bits = _bits(who, quant_bits)
        self._name = name
        _reduce(who, reduce_type)
        self._reduce_type = reduce_type
        self._scale = (_scale_parameter(self, name, "scale", "quant_dequant", 0.001, [1], _dtype(who, dtype))
                       if quant_on_weight else None)

    def forward(self, input):
        """input quantized to ``quant_bits`` with scale ``max|input|`` and dequantized."""
        fake_quant.check_observable(type(self).__name__, "input",
                                    fake_quant.check_float_tensor(type(self).__name__, "input", input))
        scale = _abs_max(input)
        if self._scale is not None:
            with no_grad():
                self._scale.set_value(scale.astype(self._scale.dtype))
        return fake_quant.fake_quant_dequant(input, scale, self._quant_bits)


class FakeQuantMovingAverageAbsMax(Layer):
    """Per-tensor fake quantization with a moving-average scale: in training
    each input first moves ``_state``, ``_accum`` and ``_scale`` (start 1, 1,
    0.001) by ``state = moving_rate*state + 1``, ``accum = moving_rate*accum +
    max|x|``, ``scale = accum/state`` and is quantized with the new scale; in
    eval mode the stored scale is used.

    >>> fq = FakeQuantMovingAverageAbsMax(moving_rate=0.9)
    >>> out = fq(eager.to_tensor([0.5, -1.0]))
    """

    def __init__(self, name=None, moving_rate=0.9, quant_bits=8, dtype="float32", reduce_type=None):
        super().__init__()
        who = "FakeQuantMovingAverageAbsMax"
        self._moving_rate = fake_quant.check_moving_rate(who, moving_rate)
        self._quant_bits = _bits(who, quant_bits)
        _reduce(who, reduce_type)
        self._reduce_type = reduce_type
        dtype = _dtype(who, dtype)
        self._scale = _scale_parameter(self, name, "scale", "quant_dequant", 0.001, [1], dtype)
        self._state = _scale_parameter(self, name, "state", "quant_dequant", 1.0, [1], dtype)
        self._accum = _scale_parameter(self, name, "accum", "quant_dequant", 1.0, [1], dtype)

    def forward(self, input):
        """input fake-quantized; in training the moving-average scale moves first."""
        fake_quant.check_float_tensor(type(self).__name__, "input", input)
        if self.training:
            fake_quant.check_observable(type(self).__name__, "input", input)
            scale = fake_quant.moving_abs_max(input, self._state, self._accum, self._scale, self._moving_rate)
        else:
            scale = self._scale
        return fake_quant.fake_quant_dequant(input, scale, self._quant_bits)


class FakeQuantChannelWiseAbsMax(Layer):
    """Per-channel fake quantization of a weight: one scale per index along
    ``quant_axis`` (0 or 1), the ``max|x|`` of that channel, kept in ``_scale``
    (``[channel_num]``). As in Paddle it is for weights only:
    ``quant_on_weight`` must be True (ValueError otherwise).

    >>> fq = FakeQuantChannelWiseAbsMax(channel_num=3, quant_on_weight=True)
    >>> out = fq(eager.ones([3, 4]))
    """

    def __init__(self, name=None, channel_num=None, quant_bits=8, quant_axis=0, dtype="float32",
                 quant_on_weight=False, reduce_type=None):
        who = "FakeQuantChannelWiseAbsMax"
        if quant_on_weight is not True:
            raise ValueError(f"{who}: channel-wise quantization is for weights only: argument 'quant_on_weight' "
                             f"must be True, got {quant_on_weight!r}")
        if not isinstance(channel_num, numbers.Integral) or isinstance(channel_num, bool) or channel_num < 1:
            raise ValueError(f"{who}: argument 'channel_num' expected a positive int (the size of the weight "
                             f"along quant_axis), got {channel_num!r}")
        if quant_axis not in (0, 1) or isinstance(quant_axis, bool):
            raise ValueError(f"{who}: argument 'quant_axis' expected 0 or 1, got {quant_axis!r}")
        super().__init__()
        self._quant_bits = _bits(who, quant_bits)
        self._quant_axis = int(quant_axis)
        self._channel_num = int(channel_num)
        self._name = name
        _reduce(who, reduce_type)
        self._reduce_type = reduce_type
        self._scale = _scale_parameter(self, name, "scale", "quant_dequant", 0.0, [self._channel_num],
                                       _dtype(who, dtype))

    def forward(self, input):
        """input fake-quantized with one ``max|x|`` scale per channel along ``quant_axis``."""
        who = type(self).__name__
        fake_quant.check_float_tensor(who, "input", input)
        axis = self._quant_axis
        if len(input.shape) <= axis or input.shape[axis] != self._channel_num:
            raise ValueError(f"{who}: argument 'input' expected {self._channel_num} channels along axis {axis}, "
                             f"got shape {list(input.shape)}")
        fake_quant.check_observable(who, "input", input)
        with no_grad():
            others = [d for d in range(len(input.shape)) if d != axis]
            scale = _F.max(_F.abs(input.detach()), axis=others) if others else _F.abs(input.detach())
            self._scale.set_value(scale.astype(self._scale.dtype))
        return fake_quant.fake_quant_dequant(input, scale, self._quant_bits, axis)


class MovingAverageAbsMaxScale(Layer):
    """The input unchanged (a copy; its gradient passes unchanged), with its
    moving-average abs-max scale recorded in training: ``state =
    moving_rate*state + 1``, ``accum = moving_rate*accum + max|x|``, ``scale =
    accum/state`` (all three start at 0). Paddle names it ``QuantStub`` too.

    >>> stub = MovingAverageAbsMaxScale()
    >>> out = stub(eager.to_tensor([0.5, -1.0]))   # stub._scale is now [1.0]
    """

    def __init__(self, name=None, moving_rate=0.9, dtype="float32", reduce_type=None):
        super().__init__()
        who = "MovingAverageAbsMaxScale"
        self._moving_rate = fake_quant.check_moving_rate(who, moving_rate)
        _reduce(who, reduce_type)
        self._reduce_type = reduce_type
        dtype = _dtype(who, dtype)
        self._scale = _scale_parameter(self, name, "scale", "outscale", 0.0, [1], dtype)
        self._state = _scale_parameter(self, name, "state", "outscale", 0.0, [1], dtype)
        self._accum = _scale_parameter(self, name, "accum", "outscale", 0.0, [1], dtype)

    def forward(self, input):
        """A copy of input; in training the scale moves by its ``max|x|``."""
        fake_quant.check_float_tensor(type(self).__name__, "input", input)
        if self.training:
            fake_quant.check_observable(type(self).__name__, "input", input)
            fake_quant.moving_abs_max(input, self._state, self._accum, self._scale, self._moving_rate)
        return input.clone()


QuantStub = MovingAverageAbsMaxScale


def _fake_quant(who, arg, quant_type, allowed, name=None, moving_rate=0.9, quant_bits=8, dtype="float32",
                quant_on_weight=False, channel_num=None, quant_axis=0):
    """The fake-quant layer of ``quant_type`` (Paddle's _get_fake_quant_type)."""
    if quant_type in _LSQ_TYPES and quant_type not in allowed:
        raise ValueError(f"{who}: argument '{arg}' {quant_type!r} (LSQ+) is not offered here; use one of "
                         f"{list(allowed)}")
    if quant_type not in allowed:
        raise ValueError(f"{who}: argument '{arg}' expected one of {list(allowed)}, got {quant_type!r}")
    if quant_type == "abs_max":
        return FakeQuantAbsMax(name, quant_bits, dtype, quant_on_weight)
    if quant_type == "moving_average_abs_max":
        return FakeQuantMovingAverageAbsMax(name, moving_rate, quant_bits, dtype)
    if quant_type == "lsq_act":
        return FakeQuantActLSQPlus(quant_bits, symmetric=True, dtype=dtype, name=name)
    if quant_type in ("lsq_weight", "channel_wise_lsq_weight"):
        per_channel = quant_type == "channel_wise_lsq_weight"
        return FakeQuantWeightLSQPlus(quant_bits, per_channel=per_channel, channel_num=channel_num if per_channel
                                      else 1, quant_linear=quant_axis == 1, dtype=dtype, name=name)
    return FakeQuantChannelWiseAbsMax(name, channel_num, quant_bits, quant_axis, dtype, quant_on_weight)


def _made(who, arg, factory):
    """``factory()`` (a Layer class or another callable making a Layer), or None."""
    if factory is None:
        return None
    if isinstance(factory, Layer) or not callable(factory):
        raise TypeError(f"{who}: argument '{arg}' expected a Layer class (called with no arguments), got "
                        f"{'a Layer instance' if isinstance(factory, Layer) else type(factory).__name__}")
    made = factory()
    if not isinstance(made, Layer):
        raise TypeError(f"{who}: argument '{arg}' expected a Layer class, but calling it gave a "
                        f"{type(made).__name__}")
    return made


class _QuantizedWeightLayer(Layer):
    """The part QuantizedConv2D(Transpose) and QuantizedLinear share: the weight and bias of
    ``layer`` (the same Parameters), a fake-quant layer for the weight (channels
    along ``quant_axis``) and one for the input, and optional preprocess layers."""

    def __init__(self, who, layer, quant_axis, weight_bits, activation_bits, moving_rate, weight_quantize_type,
                 activation_quantize_type, weight_pre_layer, act_pre_layer, weight_quant_layer, act_quant_layer):
        super().__init__()
        self.weight = layer.weight
        self.bias = layer.bias
        dtype = self.weight.dtype
        self._fake_quant_weight = _made(who, "weight_quant_layer", weight_quant_layer)
        if self._fake_quant_weight is None:
            self._fake_quant_weight = _fake_quant(
                who, "weight_quantize_type", weight_quantize_type, _WEIGHT_TYPES, name=self.weight.name,
                moving_rate=moving_rate, quant_bits=weight_bits, dtype=dtype, quant_on_weight=True,
                channel_num=self.weight.shape[quant_axis], quant_axis=quant_axis)
        self._fake_quant_input = _made(who, "act_quant_layer", act_quant_layer)
        if self._fake_quant_input is None:
            self._fake_quant_input = _fake_quant(
                who, "activation_quantize_type", activation_quantize_type, _ACTIVATION_TYPES,
                name=layer.full_name(), moving_rate=moving_rate, quant_bits=activation_bits, dtype=dtype)
        self._act_preprocess = _made(who, "act_pre_layer", act_pre_layer)
        self._weight_preprocess = _made(who, "weight_pre_layer", weight_pre_layer)

    def _quantized(self, input):
        """(the fake-quantized input, the fake-quantized weight), each after its preprocess layer."""
        if self._act_preprocess is not None:
            input = self._act_preprocess(input)
        weight = self.weight if self._weight_preprocess is None else self._weight_preprocess(self.weight)
        return self._fake_quant_input(input), self._fake_quant_weight(weight)


class QuantizedConv2D(_QuantizedWeightLayer):
    """Computes as the Conv2D ``layer`` (its weight and bias, the same
    Parameters, its stride, padding, padding mode, dilation, groups and layout)
    on the fake-quantized input and weight: the weight by
    ``weight_quantize_type`` ('abs_max', 'channel_wise_abs_max' along the
    output channels, 'moving_average_abs_max') to ``weight_bits``, the input by
    ``activation_quantize_type`` ('abs_max', 'moving_average_abs_max') to
    ``activation_bits``. ``*_pre_layer`` and ``*_quant_layer`` are Layer
    classes: a preprocess applied first, a fake-quant layer used instead.

    >>> q = QuantizedConv2D(eager.nn.Conv2D(1, 2, 3))
    """

    def __init__(self, layer, weight_bits=8, activation_bits=8, moving_rate=0.9, weight_quantize_type="abs_max",
                 activation_quantize_type="abs_max", weight_pre_layer=None, act_pre_layer=None,
                 weight_quant_layer=None, act_quant_layer=None):
        who = "QuantizedConv2D"
        if not isinstance(layer, Conv2D):
            raise TypeError(f"{who}: argument 'layer' expected an eager.nn.Conv2D, got {type(layer).__name__}")
        super().__init__(who, layer, 0, weight_bits, activation_bits, moving_rate, weight_quantize_type,
                         activation_quantize_type, weight_pre_layer, act_pre_layer, weight_quant_layer,
                         act_quant_layer)
        self._k, self._groups, self._stride = layer._k, layer._groups, layer._stride
        self._padding, self._paddings, self._padding_mode = layer._padding, layer._paddings, layer._padding_mode
        self._dilation, self._data_format = layer._dilation, layer._data_format

    def forward(self, input):
        """conv2d(fake-quantized input, fake-quantized weight) + bias."""
        who = f"QuantizedConv2D({self._full_name})"
        check_tensor(who, "input", input)
        quant_input, quant_weight = self._quantized(input)
        return convolve(who, self, quant_input, quant_weight)


class QuantizedConv2DTranspose(_QuantizedWeightLayer):
    """Computes as the Conv2DTranspose ``layer`` (its weight and bias, the same
    Parameters, its stride, padding, output padding, dilation, groups and
    layout) on the fake-quantized input and weight; 'channel_wise_abs_max'
    takes one scale per index of the weight's axis 1 (its [in_channels,
    out_channels / groups, kh, kw] output channels), as Paddle. The other
    arguments are those of :class:`QuantizedConv2D`; ``forward(input,
    output_size=None)`` as Conv2DTranspose's.

    >>> q = QuantizedConv2DTranspose(eager.nn.Conv2DTranspose(4, 6, 3))
    >>> q(eager.ones([2, 4, 8, 8])).shape
    [2, 6, 10, 10]
    """

    def __init__(self, layer, weight_bits=8, activation_bits=8, moving_rate=0.9, weight_quantize_type="abs_max",
                 activation_quantize_type="abs_max", weight_pre_layer=None, act_pre_layer=None,
                 weight_quant_layer=None, act_quant_layer=None):
        who = "QuantizedConv2DTranspose"
        if not isinstance(layer, Conv2DTranspose):
            raise TypeError(f"{who}: argument 'layer' expected an eager.nn.Conv2DTranspose, got "
                            f"{type(layer).__name__}")
        super().__init__(who, layer, 1, weight_bits, activation_bits, moving_rate, weight_quantize_type,
                         activation_quantize_type, weight_pre_layer, act_pre_layer, weight_quant_layer,
                         act_quant_layer)
        self._k, self._groups, self._stride = layer._k, layer._groups, layer._stride
        self._padding, self._output_padding = layer._padding, layer._output_padding
        self._dilation, self._data_format = layer._dilation, layer._data_format

    def forward(self, input, output_size=None):
        """conv2d_transpose(fake-quantized input, fake-quantized weight) + bias;
        ``output_size`` replaces the layer's output padding, as in Conv2DTranspose."""
        who = f"QuantizedConv2DTranspose({self._full_name})"
        check_tensor(who, "input", input)
        channels = self.weight.shape[0]
        axis = 3 if self._data_format == "NHWC" else 1
        if len(input.shape) != 4 or input.shape[axis] != channels:  # before a moving-average scale moves
            raise ValueError(f"{who}: argument 'input' expected a 4-d {self._data_format} tensor with {channels} "
                             f"channels, got shape {list(input.shape)}")
        quant_input, quant_weight = self._quantized(input)
        return convolve_transpose(who, self, quant_input, quant_weight, output_size)


class QuantizedLinear(_QuantizedWeightLayer):
    """Computes as the Linear ``layer`` (its weight and bias, the same
    Parameters) on the fake-quantized input and weight (channel-wise: one scale
    per output feature, the weight's axis 1); the arguments are those of
    :class:`QuantizedConv2D`.

    >>> q = QuantizedLinear(eager.nn.Linear(4, 3), activation_quantize_type="moving_average_abs_max")
    """

    def __init__(self, layer, weight_bits=8, activation_bits=8, moving_rate=0.9, weight_quantize_type="abs_max",
                 activation_quantize_type="abs_max", weight_pre_layer=None, act_pre_layer=None,
                 weight_quant_layer=None, act_quant_layer=None):
        who = "QuantizedLinear"
        if not isinstance(layer, Linear):
            raise TypeError(f"{who}: argument 'layer' expected an eager.nn.Linear, got {type(layer).__name__}")
        super().__init__(who, layer, 1, weight_bits, activation_bits, moving_rate, weight_quantize_type,
                         activation_quantize_type, weight_pre_layer, act_pre_layer, weight_quant_layer,
                         act_quant_layer)
        self.name = getattr(layer, "name", None)

    def forward(self, input):
        """linear(fake-quantized input, fake-quantized weight, bias)."""
        quant_input, quant_weight = self._quantized(input)
        return linear(quant_input, quant_weight, self.bias, name=self.name)


class QuantizedMatmul(Layer):
    """``matmul(x, y, transpose_x, transpose_y)`` of the fake-quantized x and y,
    each by its own ``activation_quantize_type`` layer ('abs_max',
    'moving_average_abs_max') to ``activation_bits`` (``act_quant_layer``: a
    Layer class used instead; ``act_pre_layer``: one applied first). ``layer``
    and the weight arguments are accepted, as in Paddle, and unused.

    >>> QuantizedMatmul()(eager.ones([2, 3]), eager.ones([3, 4])).shape
    [2, 4]
    """

    def __init__(self, layer=None, weight_bits=8, activation_bits=8, moving_rate=0.9, weight_quantize_type="abs_max",
                 activation_quantize_type="abs_max", weight_pre_layer=None, act_pre_layer=None,
                 weight_quant_layer=None, act_quant_layer=None):
        super().__init__()
        who = "QuantizedMatmul"
        self._fake_quant_x = _made(who, "act_quant_layer", act_quant_layer)
        self._fake_quant_y = _made(who, "act_quant_layer", act_quant_layer)
        if self._fake_quant_x is None:
            self._fake_quant_x, self._fake_quant_y = (
                _fake_quant(who, "activation_quantize_type", activation_quantize_type, _ACTIVATION_TYPES,
                            moving_rate=moving_rate, quant_bits=activation_bits) for _ in range(2))
        self._act_preprocess_x = _made(who, "act_pre_layer", act_pre_layer)
        self._act_preprocess_y = _made(who, "act_pre_layer", act_pre_layer)

    def forward(self, x, y, transpose_x=False, transpose_y=False, name=None):
        """matmul of the fake-quantized x and y."""
        if self._act_preprocess_x is not None:
            x = self._act_preprocess_x(x)
        if self._act_preprocess_y is not None:
            y = self._act_preprocess_y(y)
        return _F.matmul(self._fake_quant_x(x), self._fake_quant_y(y), transpose_x, transpose_y)


class MAOutputScaleLayer(Layer):
    """``layer`` followed by a :class:`MovingAverageAbsMaxScale` of its output
    (which is returned unchanged); a list, tuple or dict output is returned as
    it is, with no scale recorded.

    >>> wrapped = MAOutputScaleLayer(eager.nn.ReLU())
    """

    def __init__(self, layer=None, moving_rate=0.9, name=None, dtype="float32", reduce_type=None):
        super().__init__()
        if not isinstance(layer, Layer):
            raise TypeError(f"MAOutputScaleLayer: argument 'layer' expected an eager.nn.Layer, got "
                            f"{type(layer).__name__}")
        self._layer = layer
        self._ma_output_scale = MovingAverageAbsMaxScale(layer.full_name() if name is None else name, moving_rate,
                                                         dtype, reduce_type)

    def forward(self, *inputs, **kwargs):
        """layer's output, its scale recorded in training."""
        out = self._layer(*inputs, **kwargs)
        if isinstance(out, (list, tuple, dict)):
            return out
        return self._ma_output_scale(out)


class FakeQuantMAOutputScaleLayer(Layer):
    """``layer`` followed by a :class:`FakeQuantMovingAverageAbsMax` of its
    output to ``activation_bits``; a list or tuple of several outputs is
    returned as it is. ``weight_bits`` and extra arguments are accepted, as in
    Paddle, and unused.

    >>> wrapped = FakeQuantMAOutputScaleLayer(eager.nn.ReLU())
    """

    def __init__(self, layer, weight_bits=8, activation_bits=8, moving_rate=0.9, name=None, reduce_type=None,
                 *args, **kwargs):
        super().__init__()
        if not isinstance(layer, Layer):
            raise TypeError(f"FakeQuantMAOutputScaleLayer: argument 'layer' expected an eager.nn.Layer, got "
                            f"{type(layer).__name__}")
        self._layer = layer
        self._fake_quant_output = FakeQuantMovingAverageAbsMax(layer.full_name() if name is None else name,
                                                               moving_rate, activation_bits, reduce_type=reduce_type)

    def forward(self, *inputs, **kwargs):
        """layer's output, fake-quantized."""
        out = self._layer(*inputs, **kwargs)
        if isinstance(out, (list, tuple)) and len(out) > 1:
            return out
        return self._fake_quant_output(out)


__all__ = ["FakeQuantAbsMax", "FakeQuantChannelWiseAbsMax", "FakeQuantMAOutputScaleLayer", "FakeQuantMovingAverageAbsMax",
           "MAOutputScaleLayer", "MovingAverageAbsMaxScale", "QuantStub", "QuantizedConv2D", "QuantizedConv2DTranspose",
           "QuantizedLinear", "QuantizedMatmul"]
