"""Paddle's ``paddle.summary`` and ``paddle.flops``: one forward pass with a
forward post-hook on the sublayers, then a table.

``summary`` prints each called layer's input and output shapes and its
parameter count, the totals and Paddle's size estimates (4 bytes per value:
inputs, outputs twice for their gradients, parameters). ``flops`` counts the
floating-point operations of the leaf layers by Paddle's rules (a
convolution's output elements times its per-output multiply-adds, a Linear's
output elements times its input features, ...).

Both leave the network as they found it: the hooks are removed and every
layer's training flag restored even when the forward pass raises, and the
pass runs under ``no_grad`` in eval mode.

>>> net = eager.nn.Sequential(eager.nn.Linear(4, 8), eager.nn.ReLU(), eager.nn.Linear(8, 2))
>>> eager.summary(net, (1, 4))["total_params"]   # doctest: +ELLIPSIS
-----...
58
>>> eager.flops(net, [1, 4])                     # doctest: +ELLIPSIS
<class ...
48
"""
from __future__ import annotations

import numbers

import numpy as np

from phi.common import DataType
from phi.common.data_type import convert_dtype

from .. import nn as _nn
from ..autograd import no_grad
from ..generated import forward_api as _F
from ..jit import InputSpec
from ..nn import LayerList, Sequential
from ..nn.layer import Layer, post_order
from ..nn.norm import _BatchNormBase
from ..nn.rnn import RNNBase
from ..tensor import Tensor

__all__ = ["summary", "flops"]

_MB = 1024 ** 2.0


# -- shared: hooks and modes that are always undone -----------------------
class _Probe:
    """Registers forward post-hooks and puts the network in eval mode; ``close``
    removes the hooks and restores each layer's own training flag."""

    def __init__(self, net: Layer):
        self.net = net
        self.modes = [(layer, layer.training) for layer in net.sublayers(include_self=True)]
        self.handles = []

    def hook(self, layer: Layer, fn) -> None:
        self.handles.append(layer.register_forward_post_hook(fn))

    def close(self) -> None:
        for handle in self.handles:
            handle.remove()
        for layer, training in self.modes:
            object.__setattr__(layer, "training", training)


def _fused_units(net: Layer) -> set:
    """Layers inside a recurrent layer (its RNN wrappers and cells): Paddle runs
    LSTM/GRU/SimpleRNN as one fused op, so they are reported as one unit."""
    inside = set()
    for layer in net.sublayers(include_self=True):
        if isinstance(layer, RNNBase):
            inside.update(id(sub) for sub in layer.sublayers())
    return inside


def _own_parameters(layer: Layer) -> list:
    """The parameters a layer's row counts: its own, or for a recurrent layer
    (one fused unit) all of them."""
    if isinstance(layer, RNNBase):
        return layer.parameters()
    return list(layer._parameters.values())


def _untrainable_stats(layer: Layer) -> int:
    """Values a row counts beyond the layer's parameters: a batch norm's running
    mean and variance, which eager keeps as buffers and Paddle as parameters
    (trainable=False), so that the totals are Paddle's."""
    if isinstance(layer, _BatchNormBase):
        return sum(_numel(layer._buffers[name].shape) for name in ("_mean", "_variance")
                   if layer._buffers.get(name) is not None)
    return 0


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64)) if len(shape) else 1


# -- summary ----------------------------------------------------------------
def _check_shape(shape, where: str) -> tuple:
    if not isinstance(shape, (tuple, list)) or not shape:
        raise ValueError(f"summary: {where} expected a non-empty tuple of ints, got {shape!r}")
    out, unknown = [], 0
    for item in shape:
        if item is None or (isinstance(item, numbers.Integral) and not isinstance(item, bool)
                            and item == -1):
            unknown += 1
            if unknown > 1:
                raise ValueError(f"summary: {where} may have one unknown (None or -1) dimension, "
                                 f"the batch size; got {shape!r}")
            out.append(1)
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool) and item > 0:
            out.append(int(item))
        else:
            # Paddle: a dimension that is not a number (a str) is a TypeError, a
            # float, bool or one below 1 a ValueError
            error = ValueError if isinstance(item, numbers.Number) else TypeError
            raise error(f"summary: {where} expected positive ints (or None/-1 for the batch "
                             f"size), got {item!r} in {shape!r}")
    return tuple(out)


def _is_shape(value) -> bool:
    return isinstance(value, (tuple, list)) and all(not isinstance(v, (tuple, list)) for v in value)


def _normalize_sizes(input_size) -> list:
    """Paddle's reading of input_size, as one entry per argument of forward: an
    int or a shape tuple is one argument; a list, or a tuple of tuples, holds one
    entry per argument (an int in a list is a 1-d shape; an entry that is itself
    a tuple of shapes is an argument that is a list of tensors). None or -1 in
    a shape becomes 1. An InputSpec stands for its shape, as in Paddle."""
    if isinstance(input_size, numbers.Integral) and not isinstance(input_size, bool):
        input_size = (input_size,)
    if isinstance(input_size, InputSpec):
        input_size = tuple(input_size.shape)
    if not isinstance(input_size, (tuple, list)):
        raise TypeError(f"summary: argument 'input_size' expected a tuple or InputSpec (one input), a "
                        f"list of them (several inputs) or an int, got {type(input_size).__name__}")
    if not input_size:
        raise ValueError(f"summary: argument 'input_size' expected at least one input's shape, got "
                         f"{input_size!r}")
    if isinstance(input_size, tuple) and _is_shape(input_size):
        entries = [input_size]
    else:
        entries = []
        for item in input_size:
            if isinstance(item, numbers.Integral) and not isinstance(item, bool) \
                    and isinstance(input_size, list):
                item = (item,)
            if isinstance(item, InputSpec):
                item = tuple(item.shape)
            if not isinstance(item, (tuple, list)):
                raise ValueError(f"summary: argument 'input_size' holds several inputs, so each "
                                 f"entry is an input's shape (a tuple); got {item!r}")
            entries.append(item)

    def walk(value, where):
        if _is_shape(value):
            return _check_shape(value, where)
        return [walk(v, f"{where}[{i}]") for i, v in enumerate(value)]

    return [walk(entry, "argument 'input_size'") for entry in entries]


def _dtypes_per_argument(sizes: list, dtypes) -> list:
    """One dtype per argument of forward (float32 by default)."""
    if dtypes is None or isinstance(dtypes, (str, DataType)):
        dtypes = [dtypes or "float32"] * len(sizes)
    elif not isinstance(dtypes, (list, tuple)):
        raise TypeError(f"summary: argument 'dtypes' expected a str or a list of str, "
                        f"got {type(dtypes).__name__}")
    elif len(dtypes) < len(sizes):
        raise ValueError(f"summary: argument 'dtypes' expected one dtype per input "
                         f"({len(sizes)}), got {len(dtypes)}: {list(dtypes)!r}")
    for dtype in dtypes:
        for one in (dtype if isinstance(dtype, (list, tuple)) else [dtype]):
            try:
                convert_dtype(one)
            except (TypeError, ValueError) as error:
                raise TypeError(f"summary: argument 'dtypes': {error}") from None
    return list(dtypes)[:len(sizes)]  # Paddle pairs them with zip: extra dtypes are ignored


def _build_inputs(sizes: list, dtypes: list) -> list:
    """Random uniform [0, 1) inputs cast to their dtypes, nested as the sizes are."""
    def build(size, dtype):
        if isinstance(dtype, (list, tuple)):
            dtype = dtype[0]
        if _is_shape(size):
            return _F.cast(_F.rand(list(size)), dtype)
        return [build(s, dtype) for s in size]

    return [build(size, dtype) for size, dtype in zip(sizes, dtypes)]


def _input_shapes(inputs):
    """Paddle's Input Shape column: each positional input's shape, nested as given."""
    if isinstance(inputs, Tensor):
        return list(inputs.shape)
    if isinstance(inputs, (list, tuple)):
        return [_input_shapes(x) for x in inputs]
    return None


def _output_shapes(output):
    if isinstance(output, (list, tuple)):
        return [_output_shapes(o) for o in output]
    if isinstance(output, Tensor):
        return list(output.shape)
    return []


def _output_elements(shape) -> int:
    if all(isinstance(s, numbers.Integral) for s in shape):
        return _numel(shape)
    return sum(_output_elements(s) for s in shape)


def _sizes_of_input(input):
    if isinstance(input, Tensor):
        return tuple(input.shape)
    if isinstance(input, (list, tuple)):
        return [tuple(x.shape) if isinstance(x, Tensor) else _sizes_of_input(x) for x in input]
    if isinstance(input, dict):
        return [tuple(x.shape) if isinstance(x, Tensor) else _sizes_of_input(x)
                for x in input.values()]
    raise ValueError(f"summary: argument 'input' expected a Tensor, or a list, tuple or dict of "
                     f"Tensors, got {type(input).__name__}")


def summary(net, input_size=None, dtypes=None, input=None):
    """Prints a table of the network's layers (Paddle's ``paddle.summary``) and
    returns ``{'total_params': ..., 'trainable_params': ...}``.

    One forward pass runs on random inputs of ``input_size`` (a tuple or InputSpec for one
    input, a list of them for several; a None or -1 batch dimension becomes
    1) cast to ``dtypes`` (one str for all, or one per input; float32 by
    default), or on ``input`` itself when given (a Tensor, or a list, tuple or
    dict of Tensors, passed to the network as one argument). Every called
    sublayer but the containers (Sequential, LayerList) gets a row:
    ``Layer (type)`` (the class and the number in its ``full_name``, plus one),
    the shapes of its inputs and outputs and the parameters it holds itself
    (with a batch norm's running mean and variance, non-trainable parameters
    in Paddle)
    (a recurrent layer, one fused unit as in Paddle, holds its cells').

    >>> class LeNet(eager.nn.Layer):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.features = eager.nn.Sequential(
    ...             eager.nn.Conv2D(1, 6, 3, stride=1, padding=1), eager.nn.ReLU(),
    ...             eager.nn.MaxPool2D(2, 2), eager.nn.Conv2D(6, 16, 5), eager.nn.ReLU(),
    ...             eager.nn.MaxPool2D(2, 2))
    ...         self.fc = eager.nn.Linear(400, 10)
    ...     def forward(self, x):
    ...         return self.fc(eager.flatten(self.features(x), 1))
    >>> info = eager.summary(LeNet(), (None, 1, 28, 28))   # doctest: +ELLIPSIS
    ---------------------------------------------------------------------------
     Layer (type)       Input Shape          Output Shape         Param #
    ===========================================================================
    ...
    Total params: 6,486
    Trainable params: 6,486
    Non-trainable params: 0
    ...
    >>> info
    {'total_params': np.int64(6486), 'trainable_params': np.int64(6486)}
    """
    if not isinstance(net, Layer):
        raise TypeError(f"summary: argument 'net' expected an eager.nn.Layer, "
                        f"got {type(net).__name__}")
    if input_size is None and input is None:
        raise ValueError("summary: arguments 'input_size' and 'input' cannot both be None")
    if input_size is None:
        input_size = _sizes_of_input(input)
    sizes = _normalize_sizes(input_size)
    if input is None:
        dtypes = _dtypes_per_argument(sizes, dtypes)
    text, info = _summary_string(net, sizes, dtypes, input)
    print(text)
    return info


def _summary_string(net, sizes, dtypes, input):
    rows = {}                                   # id(layer) -> row, in first-call order
    fused = _fused_units(net)
    has_children = bool(net.sublayers())

    def record(layer, inputs, outputs):
        row = rows.get(id(layer))
        if row is None:
            try:
                index = int(layer.full_name().rsplit("_", 1)[-1])
            except ValueError:
                index = len(rows)
            params = _own_parameters(layer)
            row = rows[id(layer)] = {
                "key": f"{type(layer).__name__}-{index + 1}",
                "nb_params": sum(_numel(p.shape) for p in params) + _untrainable_stats(layer),
                "trainable_params": sum(_numel(p.shape) for p in params
                                        if getattr(p, "trainable", True) and not p.stop_gradient),
            }
        row["input_shape"] = _input_shapes(inputs)
        row["output_shape"] = _output_shapes(outputs)

    probe = _Probe(net)
    try:
        for layer in net.sublayers(include_self=True):
            if id(layer) in fused:
                continue
            if layer is net:
                # The network itself: a row when it is all there is, or when it
                # holds parameters of its own that no other row would count.
                if has_children and not net._parameters and not isinstance(net, RNNBase):
                    continue
            elif isinstance(layer, (Sequential, LayerList)) and not isinstance(layer, RNNBase):
                continue
            probe.hook(layer, record)
        net.eval()
        with no_grad():
            if input is not None:
                net(input)
            else:
                net(*_build_inputs(sizes, dtypes))
    finally:
        probe.close()
    return _render_summary(list(rows.values()), sizes)


def _render_summary(rows, sizes) -> tuple:
    widths = {"layer": 15, "input": 20, "output": 20, "params": 15}
    for row in rows:
        widths["layer"] = max(widths["layer"], len(row["key"]))
        widths["input"] = max(widths["input"], len(str(row["input_shape"])))
        widths["output"] = max(widths["output"], len(str(row["output_shape"])))
        widths["params"] = max(widths["params"], len(str(row["nb_params"])))
    table_width = max(75, sum(widths.values()) + 5)

    def line(a, b, c, d):
        return (f"{a:^{widths['layer']}} {b:^{widths['input']}} "
                f"{c:^{widths['output']}} {d:^{widths['params']}}")

    out = ["-" * table_width, line("Layer (type)", "Input Shape", "Output Shape", "Param #"),
           "=" * table_width]
    total_params = trainable_params = total_output = 0
    for row in rows:
        out.append(line(row["key"], str(row["input_shape"]), str(row["output_shape"]),
                        f"{row['nb_params']:,}"))
        total_params += row["nb_params"]
        trainable_params += row["trainable_params"]
        total_output += _output_elements(row["output_shape"])

    def input_bytes(size):
        if _is_shape(size):
            return _numel(size) * 4.0
        return sum(input_bytes(s) for s in size)

    input_mb = input_bytes(sizes) / _MB
    output_mb = 2.0 * total_output * 4.0 / _MB    # x2 for the gradients
    params_mb = total_params * 4.0 / _MB
    out += ["=" * table_width,
            f"Total params: {total_params:,}",
            f"Trainable params: {trainable_params:,}",
            f"Non-trainable params: {total_params - trainable_params:,}",
            "-" * table_width,
            f"Input size (MB): {input_mb:0.2f}",
            f"Forward/backward pass size (MB): {output_mb:0.2f}",
            f"Params size (MB): {params_mb:0.2f}",
            f"Estimated Total Size (MB): {input_mb + output_mb + params_mb:0.2f}",
            "-" * table_width]
    # Paddle sums np.prod(shape) per parameter: NumPy int64 counts once any parameter
    # was counted, a Python 0 otherwise.
    return "\n".join(out) + "\n", {"total_params": np.int64(total_params) if total_params else 0,
                                   "trainable_params": np.int64(trainable_params) if trainable_params else 0}


# -- flops ------------------------------------------------------------------
def _count_convNd(m, x, y):
    kernel_ops = _numel(m.weight.shape[2:])
    bias_ops = 1 if m.bias is not None else 0
    m.total_ops += abs(int(y.numel() * (x[0].shape[1] / m._groups * kernel_ops + bias_ops)))


def _count_leaky_relu(m, x, y):
    m.total_ops += int(x[0].numel())


def _count_bn(m, x, y):
    m.total_ops += 2 * int(x[0].numel())         # the pass runs in eval mode: scale and shift


def _count_linear(m, x, y):
    m.total_ops += abs(int(m.weight.shape[0] * y.numel()))


def _count_avgpool(m, x, y):
    m.total_ops += int(y.numel())


def _count_adaptive_avgpool(m, x, y):
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    m.total_ops += abs(int((_numel(kernel) + 1) * y.numel()))


def _count_zero_ops(m, x, y):
    m.total_ops += 0


_RULES = {
    **{cls: _count_convNd for cls in (_nn.Conv1D, _nn.Conv2D, _nn.Conv3D, _nn.Conv1DTranspose,
                                      _nn.Conv2DTranspose, _nn.Conv3DTranspose)},
    **{cls: _count_bn for cls in (_nn.BatchNorm, _nn.BatchNorm1D, _nn.BatchNorm2D, _nn.BatchNorm3D)},
    _nn.ReLU: _count_zero_ops,
    _nn.ReLU6: _count_zero_ops,
    _nn.LeakyReLU: _count_leaky_relu,
    _nn.Linear: _count_linear,
    _nn.Dropout: _count_zero_ops,
    **{cls: _count_avgpool for cls in (_nn.AvgPool1D, _nn.AvgPool2D, _nn.AvgPool3D)},
    **{cls: _count_adaptive_avgpool
       for cls in (_nn.AdaptiveAvgPool1D, _nn.AdaptiveAvgPool2D, _nn.AdaptiveAvgPool3D)},
}

_COUNTERS = ("total_ops", "total_params")


def flops(net, input_size, custom_ops=None, print_detail=False):
    """Counts the network's FLOPs (Paddle's ``paddle.flops`` for a Layer): one
    forward pass on a random normal input of ``input_size``, with a counting
    hook on every leaf layer (and on each recurrent layer, one fused unit).
    Returns the total as an int and prints it with the parameter count; with
    ``print_detail`` also the per-layer table.

    The rules, as Paddle's: ConvNd/ConvNdTranspose count output elements x
    (input channels / groups x kernel elements + 1 with a bias); Linear output
    elements x input features; BatchNorm 2 x input elements; LeakyReLU input
    elements; AvgPool output elements; AdaptiveAvgPool output elements x
    (kernel elements + 1); ReLU, ReLU6 and Dropout zero. Other layers count
    zero unless ``custom_ops`` maps their class to ``fn(layer, inputs, output)``
    that adds to ``layer.total_ops``.

    >>> net = eager.nn.Sequential(eager.nn.Conv2D(1, 6, 3, padding=1), eager.nn.LeakyReLU())
    >>> eager.flops(net, [1, 1, 28, 28])                # doctest: +ELLIPSIS
    <class 'eager.nn.conv.Conv2D'>'s flops has been counted
    <class 'eager.nn.activation.LeakyReLU'>'s flops has been counted
    Total Flops: 51744     Total Params: 60
    51744
    >>> def count_relu(layer, inputs, output):
    ...     layer.total_ops += output.numel()
    >>> eager.flops(eager.nn.ReLU(), [2, 3], custom_ops={eager.nn.ReLU: count_relu})
    Customize Function has been applied to <class 'eager.nn.layers.ReLU'>
    Total Flops: 6     Total Params: 0
    6
    """
    if not isinstance(net, Layer):
        raise TypeError(f"flops: argument 'net' expected an eager.nn.Layer, got {type(net).__name__}")
    if (not isinstance(input_size, (list, tuple)) or not input_size
            or not all(isinstance(d, numbers.Integral) and not isinstance(d, bool) and d > 0
                       for d in input_size)):
        raise ValueError(f"flops: argument 'input_size' expected the input's shape, a list of "
                         f"positive ints, got {input_size!r}")
    if custom_ops is None:
        custom_ops = {}
    if not isinstance(custom_ops, dict) or not all(
            isinstance(k, type) and issubclass(k, Layer) and callable(v) for k, v in custom_ops.items()):
        raise TypeError(f"flops: argument 'custom_ops' expected a dict from Layer classes to "
                        f"functions fn(layer, inputs, output), got {custom_ops!r}")
    if not isinstance(print_detail, bool):
        raise TypeError(f"flops: argument 'print_detail' expected a bool, got {print_detail!r}")
    x = _F.randn([int(d) for d in input_size])
    return _dynamic_flops(net, x, custom_ops, print_detail)


def _dynamic_flops(net, x, custom_ops, print_detail):
    fused = _fused_units(net)
    units = [layer for layer in net.sublayers(include_self=True)
             if id(layer) not in fused and (isinstance(layer, RNNBase) or not layer.sublayers())]
    unit_ids = {id(layer) for layer in units}
    records = {}                                     # id(layer) -> (input shape, output shape)
    saved = {}                                       # the counters' previous attribute values
    seen_types = set()

    def record(layer, inputs, output):
        first = inputs[0] if inputs else None
        out = output[0] if isinstance(output, (list, tuple)) and output else output
        records[id(layer)] = (list(first.shape) if isinstance(first, Tensor) else [],
                              list(out.shape) if isinstance(out, Tensor) else [])
        layer.total_params = sum(p.numel() for p in layer.parameters()) + _untrainable_stats(layer)

    def add_hooks(layer):
        if id(layer) not in unit_ids:
            return
        saved[id(layer)] = (layer, {name: layer.__dict__[name] for name in _COUNTERS
                                    if name in layer.__dict__})
        layer.total_ops = 0
        layer.total_params = 0
        kind = type(layer)
        if kind in custom_ops:
            fn = custom_ops[kind]
            message = f"Customize Function has been applied to {kind}"
        elif kind in _RULES:
            fn = _RULES[kind]
            message = f"{kind}'s flops has been counted"
        else:
            fn = None
            message = f"Cannot find suitable count function for {kind}. Treat it as zero FLOPs."
        if kind not in seen_types:
            print(message)
            seen_types.add(kind)
        if fn is not None:
            probe.hook(layer, fn)
        probe.hook(layer, record)

    probe = _Probe(net)
    rows = []
    try:
        for layer in post_order(net):
            add_hooks(layer)
        net.eval()
        with no_grad():
            net(x)
        for name, layer in net.named_sublayers(include_self=True):
            if id(layer) in unit_ids and id(layer) in records:
                rows.append([layer.full_name(), *records[id(layer)], int(layer.total_params),
                             int(layer.total_ops)])
    finally:
        probe.close()
        for layer, previous in saved.values():
            for name in _COUNTERS:
                layer.__dict__.pop(name, None)
            layer.__dict__.update(previous)
    total_ops = sum(row[4] for row in rows)
    total_params = sum(row[3] for row in rows)
    if print_detail:
        print(_render_flops_table(rows))
    print(f"Total Flops: {total_ops}     Total Params: {total_params}")
    return int(total_ops)


def _render_flops_table(rows) -> str:
    heads = ["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"]
    widths = [max([len(h)] + [len(str(row[i])) for row in rows]) for i, h in enumerate(heads)]
    shelf = "".join("+" + "-" * (w + 2) for w in widths) + "+"

    def line(cells):
        return "".join("|" + str(c).center(w + 2) for c, w in zip(cells, widths)) + "|"

    return "\n".join([shelf, line(heads), shelf, *(line(row) for row in rows), shelf])
