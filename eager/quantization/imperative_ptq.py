"""Paddle's older dynamic-graph post-training quantization (paddle.quantization's
ImperativePTQ, PTQConfig, the quantizers and PTQRegistry).

``ImperativePTQ(config).quantize(model)`` hooks every supported leaf layer
(Conv2D, Linear, BatchNorm2D, the pools, ReLU, ReLU6, Hardswish, Swish, Sigmoid,
Softmax, Tanh, nn.quant.add) so that calibration batches run through it feed the statistics of
its inputs (Conv2D and Linear) and outputs to the config's quantizers;
``save_quantized_model`` (or ``_convert``) turns the statistics into thresholds,
replaces each Conv2D/Linear by ``nn.quant.quant_layers.QuantizedConv2D`` /
``QuantizedLinear`` whose input fake quantization holds the input threshold,
records the output thresholds on the layers, and saves the model with
:func:`eager.jit.save`.

>>> ptq = ImperativePTQ(PTQConfig(AbsmaxQuantizer(), AbsmaxQuantizer()))
>>> quant_model = ptq.quantize(model)                  # doctest: +SKIP
>>> for x in calibration_data: quant_model(x)          # doctest: +SKIP
>>> ptq.save_quantized_model(quant_model, "out/model", input_spec=[...])   # doctest: +SKIP
"""
from __future__ import annotations

import abc
import copy
import math
import numbers

import numpy as np

from .. import jit, nn
from ..nn.layer import Layer
from ..nn.quant import fake_quant, functional_layers, quant_layers

__all__ = ["AbsmaxQuantizer", "BaseQuantizer", "HistQuantizer", "ImperativePTQ", "KLQuantizer",
           "PerChannelAbsmaxQuantizer", "PTQConfig", "PTQRegistry", "SUPPORT_ACT_QUANTIZERS",
           "SUPPORT_WT_QUANTIZERS", "cal_kl_threshold", "default_ptq_config"]


def _abs_max(tensor) -> float:
    return float(np.max(np.abs(tensor.numpy()))) if tensor.size else 0.0


def _merge_max(old: list, new: list) -> list:
    """``new`` with each element the larger of itself and ``old``'s (nested lists too)."""
    if not old:
        return new
    if len(old) != len(new):
        raise ValueError(f"PTQ quantizer: a layer gave {len(new)} tensors (or channels), earlier {len(old)}")
    return [_merge_max(o, n) if isinstance(o, list) else max(o, n) for o, n in zip(old, new)]


def _histogram(values: np.ndarray, top: float, bins: int) -> np.ndarray:
    return np.histogram(values, range=(0.0, top), bins=bins)[0].astype(np.float32)


def _merge_hist(tensor, old_max: float, old_hist, bins: int, upsample_bins: int):
    """The abs-max and histogram of |x| over everything seen, with ``tensor`` added:
    a larger maximum widens the range, the old histogram re-binned onto it (each old
    bin split into ``upsample_bins`` and summed back in groups), as Paddle's."""
    values = np.abs(tensor.numpy()).ravel()
    new_max = float(values.max()) if values.size else 0.0
    if new_max == 0.0:
        return old_max, old_hist
    if old_max == 0.0:
        return new_max, _histogram(values, new_max, bins)
    if new_max <= old_max:
        return old_max, _histogram(values, old_max, bins) + old_hist
    fine_width = old_max / (bins * upsample_bins)
    factor = int(math.ceil(new_max / (bins * fine_width)))
    widened = bins * fine_width * factor
    fine = np.zeros(bins * factor, dtype=np.float32)
    fine[:bins * upsample_bins] = np.repeat(old_hist, upsample_bins)
    totals = np.cumsum(fine, dtype=np.float64)[factor - 1::factor]
    coarse = (np.diff(totals, prepend=0.0) / upsample_bins).astype(np.float32)
    return widened, _histogram(values, widened, bins) + coarse


def _kl_divergence(p: np.ndarray, p_sum: float, q: np.ndarray, q_sum: float) -> float:
    """KL(P || Q) of two unnormalized distributions, summed where P is positive."""
    mask = p != 0
    p, q = p[mask], q[mask]
    with np.errstate(divide="ignore"):
        return float(np.sum(p * np.log(q_sum * p)) - np.sum(p * np.log(p_sum * q))) / p_sum


def cal_kl_threshold(hist, bin_width: float, bits: int) -> float:
    """The clipping threshold of a ``bits``-bit quantization of the values a
    histogram of |x| (bins of ``bin_width``) describes, chosen, as Paddle's (and
    TensorRT's entropy calibration), to minimize the KL divergence between the
    histogram clipped at the threshold and its quantized counterpart."""
    hist = np.asarray(hist, dtype=np.float64)
    if hist.ndim != 1:
        raise ValueError(f"cal_kl_threshold: argument 'hist' expected a 1-D histogram, got shape {list(hist.shape)}")
    n = hist.shape[0]
    start = int((n - 1) * 0.5)
    levels = int(fake_quant.bin_count(bits))
    p_sum = float(hist.sum())
    best, best_index = None, 0
    for i in range(start, n):
        if hist[i - 1] == 0:
            continue
        reference = hist[:i].copy()
        reference[i - 1] += hist[i:].sum()
        merged = i // levels
        # levels buckets of `merged` bins, the last one running to i; each bucket's sum spread
        # evenly over the bins where the reference is non-zero
        quantized = np.zeros(i)
        for j in range(levels):
            lo, hi = j * merged, (j + 1) * merged if j < levels - 1 else i
            nonzero = np.count_nonzero(reference[lo:hi])
            if nonzero:
                quantized[lo:hi] = np.where(reference[lo:hi] != 0, hist[lo:hi].sum() / nonzero, 0.0)
        divergence = _kl_divergence(reference, p_sum, quantized, float(quantized.sum()))
        if best is None or divergence < best:
            best, best_index = divergence, i
    if best_index == 0:
        while start > 0 and hist[start] == 0:
            start -= 1
        best_index = start
    return (best_index + 0.5) * bin_width


class BaseQuantizer(metaclass=abc.ABCMeta):
    """Collects statistics of tensors (``sample_data``) and turns them into
    quantization thresholds (``cal_thresholds``, then ``thresholds``)."""

    def __init__(self, quant_bits=8):
        if isinstance(quant_bits, bool) or not isinstance(quant_bits, numbers.Integral) \
                or not 0 < quant_bits <= 16:
            raise ValueError(f"{type(self).__name__}: argument 'quant_bits' expected an int in [1, 16], "
                             f"got {quant_bits!r}")
        self.quant_bits = int(quant_bits)
        self.abs_max_vals = []
        self.thresholds = []

    @abc.abstractmethod
    def sample_data(self, layer, tensors):
        """Records the statistics of ``tensors`` (a tuple) of ``layer``."""

    @abc.abstractmethod
    def cal_thresholds(self):
        """Sets ``thresholds`` from the statistics recorded."""


def _check_tensors(who: str, tensors) -> tuple:
    if not isinstance(tensors, tuple):
        raise TypeError(f"{who}.sample_data: argument 'tensors' expected a tuple of Tensors, "
                        f"got {type(tensors).__name__}")
    return tensors


class AbsmaxQuantizer(BaseQuantizer):
    """Per-tensor threshold: the largest |x| seen."""

    def sample_data(self, layer, tensors):
        """Keeps the largest |x| of each tensor."""
        tensors = _check_tensors(type(self).__name__, tensors)
        self.abs_max_vals = _merge_max(self.abs_max_vals, [_abs_max(t) for t in tensors])

    def cal_thresholds(self):
        """The abs max of each tensor."""
        self.thresholds = self.abs_max_vals


# Layers whose weight's output channels lie along axis 1 (Paddle's spec_channel_axis_layers)
_CHANNEL_AXIS_1 = (nn.Linear, nn.Conv2DTranspose)


class PerChannelAbsmaxQuantizer(BaseQuantizer):
    """Per-channel thresholds (weights): the largest |x| of each output channel
    (axis 1 of a Linear or Conv2DTranspose weight, axis 0 otherwise)."""

    def sample_data(self, layer, tensors):
        """Keeps the largest |x| of each channel of each tensor."""
        if not isinstance(layer, Layer):
            raise TypeError(f"PerChannelAbsmaxQuantizer.sample_data: argument 'layer' expected an eager.nn.Layer, "
                            f"got {type(layer).__name__}")
        tensors = _check_tensors(type(self).__name__, tensors)
        axis = 1 if isinstance(layer, _CHANNEL_AXIS_1) else 0
        per_tensor = []
        for tensor in tensors:
            values = np.abs(np.moveaxis(tensor.numpy(), axis, 0))
            per_tensor.append([float(v.max()) if v.size else 0.0 for v in values])
        self.abs_max_vals = _merge_max(self.abs_max_vals, per_tensor)

    def cal_thresholds(self):
        """The per-channel abs max of each tensor."""
        self.thresholds = self.abs_max_vals


class BaseHistQuantizer(BaseQuantizer, metaclass=abc.ABCMeta):
    """Keeps a ``bins``-bin histogram of |x| of each tensor over everything seen
    (re-binned with ``upsample_bins`` sub-bins when a larger value widens it)."""

    def __init__(self, quant_bits=8, bins=1024, upsample_bins=64):
        super().__init__(quant_bits)
        for arg, value in (("bins", bins), ("upsample_bins", upsample_bins)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
                raise ValueError(f"{type(self).__name__}: argument '{arg}' expected a positive int, got {value!r}")
        self.bins = int(bins)
        self.upsample_bins = int(upsample_bins)
        self.hists = []

    def sample_data(self, layer, tensors):
        """Adds ``tensors`` to their histograms."""
        tensors = _check_tensors(type(self).__name__, tensors)
        if not self.abs_max_vals:
            self.abs_max_vals = [_abs_max(t) for t in tensors]
            self.hists = [None if top == 0.0 else _histogram(np.abs(t.numpy()).ravel(), top, self.bins)
                          for t, top in zip(tensors, self.abs_max_vals)]
            return
        if len(tensors) != len(self.hists):
            raise ValueError(f"{type(self).__name__}.sample_data: {len(tensors)} tensors, earlier {len(self.hists)}")
        for index, tensor in enumerate(tensors):
            self.abs_max_vals[index], self.hists[index] = _merge_hist(
                tensor, self.abs_max_vals[index], self.hists[index], self.bins, self.upsample_bins)


class HistQuantizer(BaseHistQuantizer):
    """Threshold: the |x| below which ``hist_percent`` of the values fall (from the
    histogram: the first bin reaching the percentile, minus half a bin)."""

    def __init__(self, quant_bits=8, bins=1024, upsample_bins=64, hist_percent=0.99999):
        super().__init__(quant_bits, bins, upsample_bins)
        if not isinstance(hist_percent, numbers.Real) or not 0.0 < hist_percent < 1.0:
            raise ValueError(f"HistQuantizer: argument 'hist_percent' expected a number in (0, 1), "
                             f"got {hist_percent!r}")
        self.hist_percent = float(hist_percent)

    def cal_thresholds(self):
        """Appends the percentile threshold of each tensor (its abs max when all zero)."""
        for top, hist in zip(self.abs_max_vals, self.hists):
            if hist is None:
                self.thresholds.append(top)
                continue
            cumulative = np.cumsum(hist / np.sum(hist, dtype=np.float64))
            index = int(np.argmax(cumulative >= self.hist_percent))
            self.thresholds.append(float((index - 0.5) * (top / hist.shape[0])))


class KLQuantizer(BaseHistQuantizer):
    """Threshold: the one minimizing the KL divergence between the histogram and
    its ``quant_bits``-bit quantization (:func:`cal_kl_threshold`)."""

    def cal_thresholds(self):
        """Appends the KL threshold of each tensor (its abs max when all zero)."""
        for top, hist in zip(self.abs_max_vals, self.hists):
            if hist is None:
                self.thresholds.append(top)
            else:
                self.thresholds.append(cal_kl_threshold(hist, top / hist.shape[0], self.quant_bits))


SUPPORT_ACT_QUANTIZERS = [AbsmaxQuantizer, HistQuantizer, KLQuantizer]
SUPPORT_WT_QUANTIZERS = [AbsmaxQuantizer, PerChannelAbsmaxQuantizer]


class PTQConfig:
    """The quantizers of one layer: copies of ``activation_quantizer`` for its
    inputs and outputs, of ``weight_quantizer`` for its weight."""

    def __init__(self, activation_quantizer, weight_quantizer):
        if not isinstance(activation_quantizer, tuple(SUPPORT_ACT_QUANTIZERS)):
            raise TypeError(f"PTQConfig: argument 'activation_quantizer' expected one of "
                            f"{[c.__name__ for c in SUPPORT_ACT_QUANTIZERS]}, "
                            f"got {type(activation_quantizer).__name__}")
        if not isinstance(weight_quantizer, tuple(SUPPORT_WT_QUANTIZERS)):
            raise TypeError(f"PTQConfig: argument 'weight_quantizer' expected one of "
                            f"{[c.__name__ for c in SUPPORT_WT_QUANTIZERS]}, got {type(weight_quantizer).__name__}")
        self.in_act_quantizer = copy.deepcopy(activation_quantizer)
        self.out_act_quantizer = copy.deepcopy(activation_quantizer)
        self.wt_quantizer = copy.deepcopy(weight_quantizer)
        self.quant_hook_handle = None
        # Conv2D and Linear also sample their inputs: the threshold their quantized layer gets.
        self.enable_in_act_quantizer = False


default_ptq_config = PTQConfig(KLQuantizer(), PerChannelAbsmaxQuantizer())


class LayerInfo:
    """The argument names of a layer's op: inputs, weights, outputs."""

    def __init__(self, layer, input_names, weight_names, output_names):
        self.layer = layer
        self.input_names = input_names
        self.weight_names = weight_names
        self.output_names = output_names


_PTQ_LAYERS_INFO = [
    LayerInfo(nn.Conv2D, ["Input"], ["Filter"], ["Output"]),
    LayerInfo(nn.Linear, ["X"], ["Y"], ["Out"]),
    LayerInfo(nn.BatchNorm2D, ["X"], [], ["Y"]),
    LayerInfo(nn.AdaptiveMaxPool2D, ["X"], [], ["Out"]),
    LayerInfo(nn.AdaptiveAvgPool2D, ["X"], [], ["Out"]),
    LayerInfo(nn.AvgPool2D, ["X"], [], ["Out"]),
    LayerInfo(nn.MaxPool2D, ["X"], [], ["Out"]),
    LayerInfo(nn.ReLU, ["X"], [], ["Out"]),
    LayerInfo(nn.ReLU6, ["X"], [], ["Out"]),
    LayerInfo(nn.Hardswish, ["X"], [], ["Out"]),
    LayerInfo(nn.Swish, ["X"], [], ["Out"]),
    LayerInfo(nn.Sigmoid, ["X"], [], ["Out"]),
    LayerInfo(nn.Softmax, ["X"], [], ["Out"]),
    LayerInfo(nn.Tanh, ["X"], [], ["Out"]),
    LayerInfo(functional_layers.add, ["X", "Y"], [], ["Out"]),
]
_QUANT_LAYERS_INFO = [
    LayerInfo(quant_layers.QuantizedConv2D, ["Input"], ["Filter"], ["Output"]),
    LayerInfo(quant_layers.QuantizedLinear, ["X"], ["Y"], ["Out"]),
]
_SIMULATED_LAYERS = (nn.Conv2D, nn.Linear)
_QUANTIZED_OF = ((nn.Conv2D, quant_layers.QuantizedConv2D), (nn.Linear, quant_layers.QuantizedLinear))


def _lookup(infos, layer):
    for info in infos:
        if layer is info.layer or isinstance(layer, info.layer):
            return info
    return None


class PTQRegistry:
    """Which layers post-training quantization observes (``is_supported_layer``),
    which it replaces by simulated-quantization layers (``is_simulated_quant_layer``:
    Conv2D, Linear), and their op argument names (``layer_info``). Each query takes
    a layer class or instance."""

    @classmethod
    def is_supported_layer(cls, layer) -> bool:
        """Whether PTQ observes ``layer``."""
        return _lookup(_PTQ_LAYERS_INFO, layer) is not None

    @classmethod
    def is_registered_layer(cls, layer) -> bool:
        """Whether ``layer`` (also a quantized layer) has a LayerInfo."""
        return _lookup(_PTQ_LAYERS_INFO + _QUANT_LAYERS_INFO, layer) is not None

    @classmethod
    def is_simulated_quant_layer(cls, layer) -> bool:
        """Whether ``layer`` becomes a QuantizedConv2D/QuantizedLinear on conversion."""
        return layer in _SIMULATED_LAYERS or isinstance(layer, _SIMULATED_LAYERS)

    @classmethod
    def layer_info(cls, layer) -> LayerInfo:
        """The LayerInfo of ``layer`` (a ValueError for one not registered)."""
        info = _lookup(_PTQ_LAYERS_INFO + _QUANT_LAYERS_INFO, layer)
        if info is None:
            raise ValueError(f"PTQRegistry.layer_info: {getattr(layer, '__name__', type(layer).__name__)} is not "
                             f"a registered layer")
        return info


def _ptq_hook(layer, inputs, outputs):
    """Feeds a hooked layer's inputs (Conv2D, Linear) and output to its quantizers."""
    config = layer._quant_config
    if config.enable_in_act_quantizer:
        config.in_act_quantizer.sample_data(layer, tuple(inputs))
    config.out_act_quantizer.sample_data(layer, (outputs,))


def _parent_and_name(model, dotted: str):
    parent, _, name = dotted.rpartition(".")
    holder = model
    for part in parent.split(".") if parent else []:
        if part not in holder._sub_layers:
            raise ValueError(f"ImperativePTQ: the model has no sublayer {dotted!r}")
        holder = holder._sub_layers[part]
    if name not in holder._sub_layers:
        raise ValueError(f"ImperativePTQ: the model has no sublayer {dotted!r}")
    return holder, name


class Identity(Layer):
    """What a fused BatchNorm becomes."""

    def forward(self, input):
        return input


def _fused(layer, bn):
    """``layer`` (Conv2D or Linear) with the eval-mode BatchNorm ``bn`` folded in."""
    if layer.training or bn.training:
        raise ValueError("ImperativePTQ.quantize: fusing needs the layers in eval mode")
    fused = copy.deepcopy(layer)
    rsqrt = 1.0 / np.sqrt(bn._variance.numpy() + bn._epsilon)
    gamma = bn.weight.numpy() if bn.weight is not None else np.ones_like(rsqrt)
    beta = bn.bias.numpy() if bn.bias is not None else np.zeros_like(rsqrt)
    factor = gamma * rsqrt
    weight = fused.weight.numpy()
    if isinstance(layer, nn.Linear):
        weight = weight * factor.reshape(1, -1)
    else:
        weight = weight * factor.reshape([-1] + [1] * (weight.ndim - 1))
    bias = fused.bias.numpy() if fused.bias is not None else np.zeros_like(rsqrt)
    fused.weight.set_value(weight.astype(fused.weight.numpy().dtype))
    if fused.bias is None:
        dtype = str(fused.weight.dtype).split(".")[-1]
        fused.bias = fused.create_parameter([factor.shape[0]], is_bias=True, dtype=dtype)
    fused.bias.set_value(((bias - bn._mean.numpy()) * factor + beta).astype(fused.weight.numpy().dtype))
    return fused


def _fuse_layers(model, fuse_list):
    for names in fuse_list:
        if not isinstance(names, (list, tuple)) or len(names) != 2:
            raise ValueError(f"ImperativePTQ.quantize: each item of 'fuse_list' expected a pair of sublayer names "
                             f"[conv_or_linear, batch_norm], got {names!r}")
        (p1, n1), (p2, n2) = (_parent_and_name(model, n) for n in names)
        first, second = p1._sub_layers[n1], p2._sub_layers[n2]
        ok = (isinstance(first, nn.Conv2D) and isinstance(second, nn.BatchNorm2D)) or \
             (isinstance(first, nn.Linear) and isinstance(second, nn.BatchNorm1D))
        if not ok:
            raise ValueError(f"ImperativePTQ.quantize: cannot fuse {type(first).__name__} with "
                             f"{type(second).__name__} (Conv2D + BatchNorm2D or Linear + BatchNorm1D)")
        fused = _fused(first, second)
        for hook in first._forward_pre_hooks.values():
            fused.register_forward_pre_hook(hook)
        for hook in second._forward_post_hooks.values():
            fused.register_forward_post_hook(hook)
        identity = Identity()
        identity.training = first.training
        p1._sub_layers[n1] = fused
        p2._sub_layers[n2] = identity


def _set_op_attrs(layer, attrs: dict) -> None:
    layer.__dict__.setdefault("_op_attrs", {}).update(attrs)


class ImperativePTQ:
    """Post-training quantization of a dynamic-graph model by forward hooks (see the
    module docstring). ``quant_config`` (a PTQConfig; default KL activations,
    per-channel abs-max weights) is copied for each layer."""

    def __init__(self, quant_config=default_ptq_config):
        if not isinstance(quant_config, PTQConfig):
            raise TypeError(f"ImperativePTQ: argument 'quant_config' expected a PTQConfig, "
                            f"got {type(quant_config).__name__}")
        self._quant_config = quant_config

    def quantize(self, model, inplace=False, fuse=False, fuse_list=None):
        """``model`` (a copy unless ``inplace``) with its supported leaf layers hooked
        to collect statistics; with ``fuse``, the ``fuse_list`` pairs of sublayer names
        ([conv, bn] or [linear, bn]) are folded first, in eval mode."""
        if not isinstance(model, Layer):
            raise TypeError(f"ImperativePTQ.quantize: argument 'model' expected an eager.nn.Layer, "
                            f"got {type(model).__name__}")
        if not inplace:
            model = copy.deepcopy(model)
        if fuse:
            if fuse_list is None:
                raise TypeError("ImperativePTQ.quantize: fuse=True needs 'fuse_list', the pairs of sublayer names "
                                "to fuse")
            model.eval()
            _fuse_layers(model, fuse_list)
        for _, layer in model.named_sublayers():
            if (PTQRegistry.is_supported_layer(layer) and not layer._sub_layers
                    and getattr(layer, "skip_quant", False) is not True):
                config = copy.deepcopy(self._quant_config)
                config.enable_in_act_quantizer = PTQRegistry.is_simulated_quant_layer(layer)
                layer._quant_config = config
                config.quant_hook_handle = layer.register_forward_post_hook(_ptq_hook)
                # first, so it sees the layer's own output before other hooks replace it
                hooks = layer._forward_post_hooks
                ours = hooks.pop(config.quant_hook_handle.id)
                rest = list(hooks.items())
                hooks.clear()
                hooks[config.quant_hook_handle.id] = ours
                hooks.update(rest)
        return model

    def save_quantized_model(self, model, path, input_spec=None, **config):
        """Converts ``model`` in place (:meth:`_convert`) and saves it with
        :func:`eager.jit.save`. Paddle then rewrites the saved static program
        (thresholds as op attributes); eager's saved model is the converted layer."""
        if not isinstance(model, Layer):
            raise TypeError(f"ImperativePTQ.save_quantized_model: argument 'model' expected an eager.nn.Layer, "
                            f"got {type(model).__name__}")
        self._convert(model)
        jit.save(model, path, input_spec=input_spec, **config)

    def _convert(self, model):
        """Removes the hooks, computes the thresholds and swaps in the quantized layers."""
        quantized = [layer for _, layer in model.named_sublayers() if hasattr(layer, "_quant_config")]
        for layer in quantized:
            layer._quant_config.quant_hook_handle.remove()
        for layer in quantized:
            config = layer._quant_config
            if config.enable_in_act_quantizer:
                config.in_act_quantizer.cal_thresholds()
            config.out_act_quantizer.cal_thresholds()
            if PTQRegistry.is_simulated_quant_layer(layer):
                config.wt_quantizer.sample_data(layer, (layer.weight,))
                config.wt_quantizer.cal_thresholds()
        for layer in quantized:
            self._save_output_thresholds(layer, layer._quant_config)
        self._wrap_simulated_layers(model)

    @staticmethod
    def _save_output_thresholds(layer, config):
        output_name = PTQRegistry.layer_info(layer).output_names[0]
        thresholds = config.out_act_quantizer.thresholds
        if len(thresholds) == 1:
            _set_op_attrs(layer, {f"{output_name}0_threshold": thresholds[0], "out_threshold": thresholds[0]})

    def _wrap_simulated_layers(self, model):
        for name, layer in list(model.named_sublayers()):
            if not (hasattr(layer, "_quant_config") and PTQRegistry.is_simulated_quant_layer(layer)):
                continue
            config = layer._quant_config
            weights, inputs = config.wt_quantizer, config.in_act_quantizer
            kind = next(q for base, q in _QUANTIZED_OF if isinstance(layer, base))
            quantized = kind(layer, weight_bits=weights.quant_bits, activation_bits=inputs.quant_bits,
                             weight_quantize_type="abs_max" if isinstance(weights, AbsmaxQuantizer)
                             else "channel_wise_abs_max",
                             activation_quantize_type="moving_average_abs_max")
            if len(inputs.thresholds) == 1:
                quantized._fake_quant_input._scale.set_value(np.array([inputs.thresholds[0]], np.float32))
            threshold = weights.thresholds[0]
            quantized._fake_quant_weight._scale.set_value(
                np.asarray(threshold if isinstance(threshold, list) else [threshold], np.float32))
            self._save_output_thresholds(quantized, config)
            parent, child = _parent_and_name(model, name)
            parent._sub_layers[child] = quantized
