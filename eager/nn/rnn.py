"""Recurrent layers: cells, RNN/BiRNN wrappers, SimpleRNN, LSTM, GRU (Paddle's ``paddle.nn``).

The cells follow Paddle 2.x: weights ``weight_ih`` [gates * hidden, input] and
``weight_hh`` [gates * hidden, hidden], biases ``bias_ih`` and ``bias_hh``
[gates * hidden], all drawn from Uniform(-1/sqrt(hidden), 1/sqrt(hidden));
LSTM gates in the order i, f, g, o, GRU gates r, z, c with the reset gate
applied to ``h @ W_hc^T + b_hc`` (as cuDNN and PyTorch do).

A cell step is one fused op (``eager.lstm_cell``, ``eager.gru_cell``,
``eager.simple_rnn_cell``: the recurrent matmul, the gates and the new state,
with a backward kernel computing every gate's gradient at once). Over a
sequence, the input's projection ``x @ weight_ih^T`` is computed for every
time step with one matmul and split into steps, so only the recurrent part
runs step by step.

Sequence lengths: past a sequence's length a step keeps the previous state;
the multi-layer layers (SimpleRNN, LSTM, GRU) output zeros there, as Paddle's
``rnn`` op does, while the ``RNN``/``BiRNN`` wrappers return the cell's
output at every step, as Paddle's dynamic-graph ``RNN`` does.
"""
from __future__ import annotations

import math
import numbers

from phi.common.data_type import DataType

from ..arguments import to_bool
from ..framework import get_default_dtype
from ..generated import forward_api as _F
from ..tensor import Tensor
from . import initializer as _init
from . import functional as F
from .decode import _map
from .functional.checks import check_float, check_positive_int, check_tensor, dtype_mismatch
from .layer import Layer, ParamAttr, fixed_parameter
from .layers import LayerList

_DIRECTIONS = {"forward": 1, "bidirect": 2, "bidirectional": 2}


# -- argument checks -------------------------------------------------------------------

def _check_input(who: str, inputs, input_size: int, ndim: int) -> Tensor:
    check_float(who, "inputs", inputs)
    layout = "[batch, input_size]" if ndim == 2 else "[batch, time, input_size] (or [time, batch, input_size])"
    if len(inputs.shape) != ndim or inputs.shape[-1] != input_size:
        raise ValueError(f"{who}: argument 'inputs' expected a {ndim}-d tensor {layout} with input_size "
                         f"{input_size}, got shape {inputs.shape}")
    return inputs


def _check_state(who: str, arg: str, state, shape, dtype) -> Tensor:
    check_tensor(who, arg, state)
    if state.shape != list(shape):
        raise ValueError(f"{who}: argument '{arg}' expected shape {list(shape)}, got {state.shape}")
    if dtype_mismatch(state.dtype, dtype):
        raise TypeError(f"{who}: argument '{arg}' expected dtype {dtype} (the input's), got {state.dtype}")
    return state


def _check_params_dtype(who: str, cell, inputs) -> None:
    if dtype_mismatch(cell.weight_ih.dtype, inputs.dtype):  # float16 with float32: fine in auto_cast
        raise TypeError(f"{who}: argument 'inputs' expected dtype {cell.weight_ih.dtype} (the weights'), got "
                        f"{inputs.dtype}")


# -- cells -----------------------------------------------------------------------------------
class RNNCellBase(Layer):
    """Base of the recurrent cells: ``forward(inputs, states)`` returns
    ``(outputs, new_states)``; subclasses define ``state_shape`` (a shape
    without the batch axis, or a tuple of them).

    >>> cell = eager.nn.GRUCell(4, 8)
    >>> cell.get_initial_states(eager.ones([3, 4])).shape
    [3, 8]
    """

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0, batch_dim_idx=0):
        """States filled with ``init_value``, shaped ``[batch] + shape`` for each
        shape in ``shape`` (default ``self.state_shape``; a leading -1 stands
        for the batch and may be left out), the batch size read
        from ``batch_ref`` (a tensor, or a nested list/tuple whose first tensor
        is used) at axis ``batch_dim_idx``. ``dtype`` (one dtype, or one per
        shape in the same nesting) defaults, as in Paddle, to the cell's
        ``state_dtype`` where it defines one, else to the default dtype (not
        batch_ref's: that may be integer token ids)."""
        who = f"{type(self).__name__}.get_initial_states"
        ref = batch_ref
        while isinstance(ref, (list, tuple)) and ref:
            ref = ref[0]
        check_tensor(who, "batch_ref", ref)
        if shape is None:
            shape = getattr(self, "state_shape", None)
            if shape is None:   # Paddle's RNNCellBase.state_shape raises NotImplementedError
                raise NotImplementedError(f"{who}: {type(self).__name__} defines no state_shape; pass argument "
                                          f"'shape'")
        if dtype is None:
            dtype = getattr(self, "state_dtype", None)
            if dtype is None:
                dtype = get_default_dtype()
        batch = ref.shape[batch_dim_idx]

        def nested(s) -> bool:
            return isinstance(s, (list, tuple)) and bool(s) and isinstance(s[0], (list, tuple))

        def build(s, d):
            if nested(s):
                parts = d if isinstance(d, (list, tuple)) else [d] * len(s)   # one dtype for every state
                if len(parts) != len(s):
                    raise ValueError(f"{who}: argument 'dtype' expected one dtype or one per state shape "
                                     f"({len(s)}), got {d!r}")
                return tuple(build(part, part_dtype) for part, part_dtype in zip(s, parts))
            if isinstance(d, (list, tuple)):
                if len(d) != 1:
                    raise ValueError(f"{who}: argument 'dtype' expected one dtype for state shape {s!r}, got {d!r}")
                d = d[0]
            dims = [int(dim) for dim in (s if isinstance(s, (list, tuple)) else [s])]
            dims = [batch] + (dims[1:] if dims and dims[0] == -1 else dims)   # a leading -1 is the batch
            return _F.full(dims, init_value, d, None)

        return build(shape, dtype)


class _BuiltInCell(RNNCellBase):
    """What the three built-in cells share: their parameters, the input
    projection, the fused step and sequence ops (see _run_cell);
    a subclass that overrides forward is run step by step through forward."""

    _n_states = 1

    def _setup(self, who: str, input_size: int, hidden_size: int, gates: int, weight_ih_attr, weight_hh_attr,
               bias_ih_attr, bias_hh_attr, recurrent_size: int | None = None) -> None:
        """The parameters; ``recurrent_size``: the width of the h fed back (the
        hidden size, or an LSTM's proj_size)."""
        self.hidden_size = _check_size(who, hidden_size)
        self.input_size = _check_size(who, input_size, "input_size")
        init = _init.Uniform(-1.0 / math.sqrt(self.hidden_size), 1.0 / math.sqrt(self.hidden_size))
        rows = gates * self.hidden_size

        def parameter(shape, attr, arg, is_bias):
            # an attr of False: a fixed (stop_gradient) weight of ones or bias of zeros, as Paddle 2.6's cells
            if attr is False:
                return fixed_parameter(self, shape, is_bias)
            return self.create_parameter(shape, ParamAttr.from_argument(attr, who, arg), is_bias=is_bias,
                                         default_initializer=init)

        self.weight_ih = parameter([rows, self.input_size], weight_ih_attr, "weight_ih_attr", False)
        self.weight_hh = parameter([rows, recurrent_size or self.hidden_size], weight_hh_attr, "weight_hh_attr", False)
        self.bias_ih = parameter([rows], bias_ih_attr, "bias_ih_attr", True)
        self.bias_hh = parameter([rows], bias_hh_attr, "bias_hh_attr", True)

    def _input_bias(self):
        """The bias added to the input's projection: both biases (they add to the
        same pre-activation), or for the GRU only bias_ih."""
        biases = [b for b in (self.bias_ih, self.bias_hh) if b is not None]
        if not biases:
            return None
        return biases[0] if len(biases) == 1 else _F.add(biases[0], biases[1])

    def _project(self, inputs: Tensor) -> Tensor:
        """inputs @ weight_ih^T + the input bias, over any leading axes (as one
        2-d matmul: one GEMM, and one for each gradient)."""
        lead = inputs.shape[:-1]
        if len(lead) > 1:
            inputs = _F.reshape(inputs, [-1, inputs.shape[-1]])
        out = _F.matmul(inputs, self.weight_ih, False, True)
        bias = self._input_bias()
        out = out if bias is None else _F.add(out, bias)
        return _F.reshape(out, lead + [out.shape[-1]]) if len(lead) > 1 else out

    def _state_sizes(self) -> tuple:
        """The width of each state (h, or h and c)."""
        return (self.hidden_size,) * self._n_states

    def _zero_states(self, inputs: Tensor, batch_axis: int = 0) -> tuple:
        batch = inputs.shape[batch_axis]
        return tuple(_F.full([batch, size], 0.0, inputs.dtype, None) for size in self._state_sizes())

    def _check_states(self, who: str, states, batch: int, dtype) -> tuple:
        """The states as a tuple of [batch, width] tensors."""
        sizes = self._state_sizes()
        if self._n_states == 1:
            return (_check_state(who, "states", states, (batch, sizes[0]), dtype),)
        if not isinstance(states, (list, tuple)) or len(states) != self._n_states:
            raise TypeError(f"{who}: argument 'states' expected a tuple (h, c) of two tensors, got "
                            f"{type(states).__name__}")
        return tuple(_check_state(who, f"states[{k}]", s, (batch, size), dtype)
                     for k, (s, size) in enumerate(zip(states, sizes)))

    def _pack(self, states: tuple):
        """Internal tuple -> the structure Paddle returns (a tensor, or (h, c))."""
        return states[0] if self._n_states == 1 else tuple(states)

    def _cell_forward(self, inputs, states):
        who = f"{type(self).__name__}({self._full_name})"
        _check_input(who, inputs, self.input_size, 2)
        _check_params_dtype(who, self, inputs)
        if states is None:
            state = self._zero_states(inputs)
        else:
            state = self._check_states(who, states, inputs.shape[0], inputs.dtype)
        out, new = self._step(self._project(inputs), state)
        return out, self._pack(new)


class SimpleRNNCell(_BuiltInCell):
    r"""An Elman RNN cell: h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh), act
    'tanh' or 'relu'. ``forward(inputs, states=None)`` takes inputs [batch,
    input_size] and h [batch, hidden_size] (zeros when None) and returns
    ``(h_t, h_t)``.

    >>> cell = eager.nn.SimpleRNNCell(4, 8)
    >>> out, h = cell(eager.ones([2, 4]))
    >>> out.shape
    [2, 8]
    """

    _n_states = 1

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._name = name
        if not isinstance(activation, str) or activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNNCell: argument 'activation' expected 'tanh' or 'relu', got {activation!r}")
        self.activation = activation
        self._setup("SimpleRNNCell", input_size, hidden_size, 1, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                    bias_hh_attr)

    @property
    def state_shape(self):
        """(hidden_size,): the shape of h without the batch axis."""
        return (self.hidden_size,)

    def _step(self, x, state):
        h = _F.simple_rnn_cell(x, state[0], self.weight_hh, self.activation)
        return h, (h,)

    def _sequence(self, x, state, mask, reverse):
        out, hs = _F.simple_rnn_sequence(x, state[0], self.weight_hh, mask, self.activation, reverse)
        return out, (_last(hs, reverse),)

    def forward(self, inputs, states=None):
        """One step: ``(h_t, h_t)`` for inputs [batch, input_size] and states h."""
        return self._cell_forward(inputs, states)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        text = f"{self.input_size}, {self.hidden_size}"
        return text if self.activation == "tanh" else text + f", activation={self.activation}"


class LSTMCell(_BuiltInCell):
    r"""A long short-term memory cell (gates in the order i, f, g, o):
    i, f, o = sigmoid(W_i* x + b_i* + W_h* h + b_h*), g = tanh(...),
    c_t = f c_{t-1} + i g, h_t = o tanh(c_t). ``forward(inputs, states=None)``
    takes states (h, c), each [batch, hidden_size] (zeros when None), and
    returns ``(h_t, (h_t, c_t))``.

    ``proj_size`` > 0 (smaller than hidden_size) projects h: h_t = (o tanh(c_t))
    @ weight_ho, weight_ho [hidden_size, proj_size] (made with weight_hh_attr,
    as Paddle's), so h is [batch, proj_size] and weight_hh [4 * hidden_size,
    proj_size]; c stays [batch, hidden_size]. Such a cell runs step by step.

    >>> cell = eager.nn.LSTMCell(4, 8)
    >>> out, (h, c) = cell(eager.ones([2, 4]))
    >>> c.shape
    [2, 8]
    """

    _n_states = 2

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        self._name = name
        self.proj_size = _check_proj_size("LSTMCell", proj_size, hidden_size)
        self._setup("LSTMCell", input_size, hidden_size, 4, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                    bias_hh_attr, self.proj_size)
        if self.proj_size:
            self.weight_ho = self.create_parameter(
                [self.hidden_size, self.proj_size], ParamAttr.from_argument(weight_hh_attr, "LSTMCell", "weight_hh_attr"),
                default_initializer=_init.Uniform(-1.0 / math.sqrt(self.hidden_size), 1.0 / math.sqrt(self.hidden_size)))

    @property
    def state_shape(self):
        """((proj_size or hidden_size,), (hidden_size,)): the shapes of h and c
        without the batch axis."""
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def _state_sizes(self) -> tuple:
        return (self.proj_size or self.hidden_size, self.hidden_size)

    def _step(self, x, state):
        if not self.proj_size:
            h, c = _F.lstm_cell(x, state[0], state[1], self.weight_hh)
            return h, (h, c)
        gates = _F.add(x, _F.matmul(state[0], self.weight_hh, False, True))
        i, f, g, o = _F.split(gates, 4, -1)
        c = _F.add(_F.multiply(_F.sigmoid(f), state[1]), _F.multiply(_F.sigmoid(i), _F.tanh(g)))
        h = _F.matmul(_F.multiply(_F.sigmoid(o), _F.tanh(c)), self.weight_ho, False, False)
        return h, (h, c)

    def _sequence(self, x, state, mask, reverse):
        if self.proj_size:     # no fused op projects h: one step at a time
            return _steps(self, x, state, mask, reverse)
        out, hs, cs = _F.lstm_sequence(x, state[0], state[1], self.weight_hh, mask, reverse)
        return out, (_last(hs, reverse), _last(cs, reverse))

    def forward(self, inputs, states=None):
        """One step: ``(h_t, (h_t, c_t))`` for inputs [batch, input_size] and states (h, c)."""
        return self._cell_forward(inputs, states)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        text = f"{self.input_size}, {self.hidden_size}"
        return text + f", proj_size={self.proj_size}" if self.proj_size else text


def _check_size(who: str, value, arg: str = "hidden_size") -> int:
    # Paddle's cells refuse a non-positive hidden_size with a ValueError (their unit tests build
    # SimpleRNNCell(-1, 0)); input_size and num_layers alike (Paddle fails later for those); a wrong
    # kind stays a TypeError.
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value <= 0:
        raise ValueError(f"{who}: argument '{arg}' expected a positive int, got {value!r}")
    return check_positive_int(who, arg, value)


def _check_proj_size(who: str, proj_size, hidden_size) -> int:
    if isinstance(proj_size, bool) or not isinstance(proj_size, numbers.Integral):
        raise TypeError(f"{who}: argument 'proj_size' expected an int, got {proj_size!r}")
    if isinstance(hidden_size, numbers.Integral) and hidden_size > 0 and not 0 <= proj_size < hidden_size:
        raise ValueError(f"{who}: argument 'proj_size' expected an int in [0, hidden_size = {hidden_size}) "
                         f"(0: no projection), got {proj_size}")
    return int(proj_size)


def _steps(cell, x, state, mask, reverse):
    """A cell's sequence op written as its steps: x [T, B, gates] (the input
    projections), mask [T, B, 1] (1 where the step is valid) or None; (each
    step's output [T, B, out], the final states), the state kept where masked."""
    steps = x.shape[0]
    xs = _F.unbind(x, 0)
    masks = None if mask is None else _F.unbind(_F.cast(mask, DataType.BOOL), 0)
    outputs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        out, new = cell._step(xs[t], state)
        state = new if masks is None else tuple(_F.where(masks[t], n, o) for n, o in zip(new, state))
        outputs[t] = out
    return _F.stack(outputs, 0), state


class GRUCell(_BuiltInCell):
    r"""A gated recurrent unit cell, as Paddle (gates r, z, c):
    r, z = sigmoid(W_i* x + b_i* + W_h* h + b_h*),
    c = tanh(W_ic x + b_ic + r * (W_hc h + b_hc)), h_t = z h_{t-1} + (1 - z) c.
    ``forward(inputs, states=None)`` returns ``(h_t, h_t)``.

    >>> cell = eager.nn.GRUCell(4, 8)
    >>> out, h = cell(eager.ones([2, 4]), eager.zeros([2, 8]))
    >>> h.shape
    [2, 8]
    """

    _n_states = 1

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None):
        super().__init__()
        self._name = name
        self._setup("GRUCell", input_size, hidden_size, 3, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                    bias_hh_attr)

    @property
    def state_shape(self):
        """(hidden_size,): the shape of h without the batch axis."""
        return (self.hidden_size,)

    def _input_bias(self):
        return self.bias_ih   # bias_hh's candidate part sits inside r * (...): the step op adds it

    def _bias_hh(self, dtype):
        if self.bias_hh is None:
            return _F.full([3 * self.hidden_size], 0.0, dtype, None)
        return self.bias_hh

    def _step(self, x, state):
        h = _F.gru_cell(x, state[0], self.weight_hh, self._bias_hh(x.dtype))
        return h, (h,)

    def _sequence(self, x, state, mask, reverse):
        out, hs = _F.gru_sequence(x, state[0], self.weight_hh, self._bias_hh(x.dtype), mask, reverse)
        return out, (_last(hs, reverse),)

    def forward(self, inputs, states=None):
        """One step: ``(h_t, h_t)`` for inputs [batch, input_size] and states h."""
        return self._cell_forward(inputs, states)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        return f"{self.input_size}, {self.hidden_size}"


def _last(states, reverse: bool):
    """The state after the last step processed: [B, H] of [T, B, H]."""
    return _F.getitem(states, 0 if reverse else -1)


_BUILT_IN_FORWARD = {SimpleRNNCell: SimpleRNNCell.forward, LSTMCell: LSTMCell.forward, GRUCell: GRUCell.forward}


def _fused(cell) -> bool:
    """Whether the cell can run through its fused step op: a built-in cell whose
    forward is not overridden and that has no forward hooks."""
    for base, forward in _BUILT_IN_FORWARD.items():
        if isinstance(cell, base):
            return type(cell).forward is forward and not cell._forward_pre_hooks and not cell._forward_post_hooks
    return False


# -- running a cell over a sequence ------------------------------------------------------------
def _valid_steps(sequence_length, steps: int):
    """bool [time, batch, 1]: whether step t of sequence b is within its length
    (t < sequence_length[b])."""
    times = _F.unsqueeze(_F.arange(0, steps, 1, sequence_length.dtype, None), [1])         # [T, 1]
    valid = _F.less_than(times, _F.unsqueeze(sequence_length, [0]))                      # [T, B]
    return _F.unsqueeze(valid, [2])


def _where_valid(mask, new, old):
    """new where the step is valid, else old; states are a tensor or a (nested)
    list/tuple of tensors."""
    if isinstance(new, (list, tuple)):
        return type(new)(_where_valid(mask, n, o) for n, o in zip(new, old))
    return _F.where(mask, new, old)


def _run_cell(cell, inputs, state, valid, time_axis: int, reverse: bool, time_major_out: bool = False,
              cell_kwargs=None):
    """Runs ``cell`` over inputs (time on ``time_axis``) from ``state`` (for a
    built-in cell a tuple of tensors, else the cell's own structure); valid:
    the bool mask [time, batch, 1] of steps within each length, or None.
    Returns (outputs stacked on time_axis, or on axis 0 with time_major_out,
    final state).

    A built-in cell runs as one sequence op on the input projected for every
    step at once (time-major); any other cell is called step by step, with
    ``cell_kwargs`` as keyword arguments."""
    if _fused(cell) and not cell_kwargs:
        x = cell._project(inputs)
        if time_axis == 1:
            x = _F.transpose(x, [1, 0, 2])
        mask = None if valid is None else _F.cast(valid, x.dtype)
        out, final = cell._sequence(x, state, mask, reverse)
        return (out if time_axis == 0 or time_major_out else _F.transpose(out, [1, 0, 2])), final
    steps = inputs.shape[time_axis]
    masks = None if valid is None else _F.unbind(valid, 0)
    outputs = [None] * steps
    xs = _F.unbind(inputs, time_axis)
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        out, new = cell(xs[t], state, **(cell_kwargs or {}))
        state = new if masks is None else _where_valid(masks[t], new, state)
        outputs[t] = out
    axis = 0 if time_major_out else time_axis
    # a cell's outputs may be a nested structure (as Paddle's map_structure takes): stacked leaf by leaf
    return _map(lambda *steps: _F.stack(list(steps), axis), *outputs), state


def _as_state_tuple(states) -> tuple:
    return tuple(states) if isinstance(states, (list, tuple)) else (states,)


class RNN(Layer):
    """Runs a cell over a sequence (Paddle's ``paddle.nn.RNN``).

    ``forward(inputs, initial_states=None, sequence_length=None)`` takes inputs
    [batch, time, input_size] ([time, batch, input_size] with
    ``time_major=True``) and returns ``(outputs, final_states)``: the cell's
    outputs (a Tensor, or a nested tuple/list/dict of them) stacked on the time
    axis and its last states. ``is_reverse`` runs
    from the last step to the first. With ``sequence_length`` (int [batch]), a
    step past a sequence's length keeps the previous states (its output is
    still the cell's, as in Paddle). Other keyword arguments go to every call
    of the cell.

    >>> rnn = eager.nn.RNN(eager.nn.LSTMCell(4, 8))
    >>> out, (h, c) = rnn(eager.ones([2, 5, 4]))
    >>> out.shape, h.shape
    ([2, 5, 8], [2, 8])
    """

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        if not isinstance(cell, Layer):
            raise TypeError(f"RNN: argument 'cell' expected a cell Layer, got {type(cell).__name__}")
        self.cell = cell
        self.is_reverse = to_bool(is_reverse, "RNN", "is_reverse")
        self.time_major = to_bool(time_major, "RNN", "time_major")

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        """``(outputs, final_states)`` of the cell run over inputs."""
        who = f"RNN({self._full_name})"
        outputs, final = _run_direction(who, self.cell, inputs, initial_states, sequence_length, self.time_major,
                                        self.is_reverse, kwargs)
        return outputs, final


def _prepare_sequence(who, cell, inputs, sequence_length, time_major):
    if isinstance(getattr(cell, "input_size", None), int):
        _check_input(who, inputs, cell.input_size, 3)
    else:
        check_float(who, "inputs", inputs)
    time_axis = 0 if time_major else 1
    if inputs.shape[time_axis] < 1:
        raise ValueError(f"{who}: argument 'inputs' expected at least one time step, got shape {inputs.shape}")
    valid = None
    if sequence_length is not None:
        check_tensor(who, "sequence_length", sequence_length)
        batch = inputs.shape[1 - time_axis]
        if sequence_length.shape != [batch] or sequence_length.dtype.is_floating_point:
            raise ValueError(f"{who}: argument 'sequence_length' expected an int tensor of shape [{batch}] (the "
                             f"batch), got {sequence_length.dtype}{sequence_length.shape}")
        valid = _valid_steps(sequence_length, inputs.shape[time_axis])
    return time_axis, valid


def _initial_state(who, cell, inputs, initial_states, batch_axis):
    """A built-in cell's states as a tuple of tensors (zeros when None)."""
    if initial_states is None:
        return cell._zero_states(inputs, batch_axis)
    return cell._check_states(who, initial_states, inputs.shape[batch_axis], inputs.dtype)


def _run_direction(who, cell, inputs, initial_states, sequence_length, time_major, reverse, cell_kwargs):
    time_axis, valid = _prepare_sequence(who, cell, inputs, sequence_length, time_major)
    fused = _fused(cell) and not cell_kwargs
    if fused:
        _check_params_dtype(who, cell, inputs)
        state = _initial_state(who, cell, inputs, initial_states, 1 - time_axis)
    elif initial_states is None:
        # the inputs' dtype unless the cell says (state_dtype): Paddle's default dtype here fails in the cell
        # for float64 inputs under a float32 default
        dtype = None if getattr(cell, "state_dtype", None) is not None else inputs.dtype
        state = cell.get_initial_states(inputs, dtype=dtype, batch_dim_idx=1 - time_axis)
    else:
        state = initial_states
    outputs, final = _run_cell(cell, inputs, state, valid, time_axis, reverse, cell_kwargs=cell_kwargs)
    return outputs, (cell._pack(final) if fused else final)


class BiRNN(Layer):
    """Runs two cells over a sequence, one forward and one backward, and
    concatenates their outputs on the last axis (Paddle's ``paddle.nn.BiRNN``).

    ``forward(inputs, initial_states=None, sequence_length=None)``:
    ``initial_states`` is ``(states_fw, states_bw)``; returns ``(outputs,
    (final_fw, final_bw))``, outputs [batch, time, hidden_fw + hidden_bw].

    >>> birnn = eager.nn.BiRNN(eager.nn.GRUCell(4, 8), eager.nn.GRUCell(4, 8))
    >>> out, (h_fw, h_bw) = birnn(eager.ones([2, 5, 4]))
    >>> out.shape
    [2, 5, 16]
    """

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        for arg, cell in (("cell_fw", cell_fw), ("cell_bw", cell_bw)):
            if not isinstance(cell, Layer):
                raise TypeError(f"BiRNN: argument '{arg}' expected a cell Layer, got {type(cell).__name__}")
        if getattr(cell_fw, "input_size", None) != getattr(cell_bw, "input_size", None):
            raise ValueError(f"BiRNN: cell_fw and cell_bw expected the same input_size, got "
                             f"{cell_fw.input_size} and {cell_bw.input_size}")
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        self.time_major = to_bool(time_major, "BiRNN", "time_major")

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        """``(outputs, (final_fw, final_bw))`` of both cells run over inputs."""
        who = f"BiRNN({self._full_name})"
        if initial_states is None:
            initial_states = (None, None)
        elif not isinstance(initial_states, (list, tuple)) or len(initial_states) != 2:
            raise TypeError(f"{who}: argument 'initial_states' expected (states_fw, states_bw), got "
                            f"{type(initial_states).__name__}")
        out_fw, final_fw = _run_direction(who, self.cell_fw, inputs, initial_states[0], sequence_length,
                                          self.time_major, False, kwargs)
        out_bw, final_bw = _run_direction(who, self.cell_bw, inputs, initial_states[1], sequence_length,
                                          self.time_major, True, kwargs)
        return _map(lambda fw, bw: _F.concat([fw, bw], -1), out_fw, out_bw), (final_fw, final_bw)


# -- multi-layer networks -----------------------------------------------------------------
class RNNBase(LayerList):
    """The multi-layer, optionally bidirectional network of SimpleRNN, LSTM and
    GRU: a LayerList of ``RNN`` (forward) or ``BiRNN`` (bidirectional) layers, so
    parameter names are Paddle's (``0.cell.weight_ih``, ``0.cell_fw.weight_ih``)."""

    _cell_type = None
    _mode = ""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None,
                 **cell_kwargs):
        super().__init__()
        who = type(self).__name__
        self.hidden_size = _check_size(who, hidden_size)
        self.input_size = _check_size(who, input_size, "input_size")
        self.num_layers = _check_size(who, num_layers, "num_layers")
        if not isinstance(direction, str) or direction not in _DIRECTIONS:
            raise ValueError(f"{who}: argument 'direction' expected 'forward', 'bidirect' or 'bidirectional', got "
                             f"{direction!r}")
        if not isinstance(dropout, numbers.Real) or isinstance(dropout, bool) or not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{who}: argument 'dropout' expected a float in [0, 1], got {dropout!r}")
        self.direction = direction
        self.num_directions = _DIRECTIONS[direction]
        self.time_major = to_bool(time_major, who, "time_major")
        self.dropout = float(dropout)
        self.mode = self._mode
        self.state_components = 2 if self._cell_type is LSTMCell else 1
        self.proj_size = cell_kwargs.get("proj_size", 0)
        # The width of each state, h first: an LSTM's projected h is proj_size wide.
        self._state_sizes = ((self.proj_size or self.hidden_size, self.hidden_size)[:self.state_components])
        attrs = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr, bias_ih_attr=bias_ih_attr,
                     bias_hh_attr=bias_hh_attr, **cell_kwargs)
        for layer in range(self.num_layers):
            size = self.input_size if layer == 0 else self._state_sizes[0] * self.num_directions
            if self.num_directions == 1:
                self.append(RNN(self._cell_type(size, self.hidden_size, **attrs), False, self.time_major))
            else:
                self.append(BiRNN(self._cell_type(size, self.hidden_size, **attrs),
                                  self._cell_type(size, self.hidden_size, **attrs), self.time_major))
        # Paddle also registers every cell's parameters on the network under flat names (weight_ih_l0,
        # bias_hh_l1_reverse, ...), listed first: its state_dict holds both spellings and named_parameters
        # the flat ones, so checkpoints saved by Paddle load without unmatched keys and name filters work.
        # A bias given as False (a fixed zero bias in the cell) has no flat name, as in Paddle.
        kinds = ["weight_ih", "weight_hh"] + [kind for kind, attr in (("bias_ih", bias_ih_attr),
                                                                     ("bias_hh", bias_hh_attr)) if attr is not False]
        for layer in range(self.num_layers):
            for direction, cell in enumerate(self._cells(layer)):
                for kind in kinds:
                    setattr(self, f"{kind}_l{layer}{'_reverse' if direction else ''}", getattr(cell, kind))

    def _cells(self, layer: int) -> list:
        sub = self[layer]
        return [sub.cell] if self.num_directions == 1 else [sub.cell_fw, sub.cell_bw]

    def _initial_states(self, who, inputs, initial_states) -> list:
        """One state tuple per (layer, direction), in Paddle's order."""
        count = self.num_layers * self.num_directions
        batch = inputs.shape[1 if self.time_major else 0]
        if initial_states is None:
            zeros = tuple(_F.full([batch, size], 0.0, inputs.dtype, None) for size in self._state_sizes)
            return [zeros] * count
        shapes = [[count, batch, size] for size in self._state_sizes]
        if self.state_components == 1:
            parts = (_check_state(who, "initial_states", initial_states, shapes[0], inputs.dtype),)
        else:
            if not isinstance(initial_states, (list, tuple)) or len(initial_states) != 2:
                raise TypeError(f"{who}: argument 'initial_states' expected a tuple (h, c) of two tensors, got "
                                f"{type(initial_states).__name__}")
            parts = tuple(_check_state(who, f"initial_states[{k}]", s, shape, inputs.dtype)
                          for k, (s, shape) in enumerate(zip(initial_states, shapes)))
        per_part = [_F.unbind(p, 0) for p in parts]
        return [tuple(p[k] for p in per_part) for k in range(count)]

    def forward(self, inputs, initial_states=None, sequence_length=None):
        """``(outputs, final_states)``: outputs [batch, time, num_directions *
        hidden_size] (time first with time_major), final states [num_layers *
        num_directions, batch, hidden_size] (for LSTM a tuple (h, c))."""
        who = f"{type(self).__name__}({self._full_name})"
        _check_input(who, inputs, self.input_size, 3)
        _check_params_dtype(who, self._cells(0)[0], inputs)
        states = self._initial_states(who, inputs, initial_states)
        _, valid = _prepare_sequence(who, self._cells(0)[0], inputs, sequence_length, self.time_major)
        # Time-major after the first layer's projection; back to batch-major at the end.
        x, time_axis = inputs, (0 if self.time_major else 1)
        zero_padding = None if valid is None else _F.cast(valid, x.dtype)
        finals = []
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0.0 and self.training:
                x = F.dropout(x, self.dropout, training=True)
            outs = []
            for direction, cell in enumerate(self._cells(layer)):
                state = states[layer * self.num_directions + direction]
                fused = _fused(cell)   # else (hooks, an overridden forward) through cell.__call__
                out, final = _run_cell(cell, x, state if fused else cell._pack(state), valid, time_axis,
                                       reverse=direction == 1, time_major_out=True)
                outs.append(out)
                finals.append(final if fused else _as_state_tuple(final))
            x, time_axis = (outs[0] if len(outs) == 1 else _F.concat(outs, -1)), 0
            if zero_padding is not None:
                x = _F.multiply(x, zero_padding)      # outputs past each length are zeros, as Paddle's
        if not self.time_major:
            x = _F.transpose(x, [1, 0, 2])
        final_states = tuple(_F.stack([f[k] for f in finals], 0) for k in range(self.state_components))
        return x, (final_states[0] if self.state_components == 1 else final_states)

    def extra_repr(self) -> str:
        """The sizes and options, shown by repr."""
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.time_major:
            text += ", time_major=True"
        if self.dropout:
            text += f", dropout={self.dropout}"
        if self.proj_size:
            text += f", proj_size={self.proj_size}"
        return text


class SimpleRNN(RNNBase):
    """A multi-layer Elman RNN (Paddle's ``paddle.nn.SimpleRNN``):
    ``forward(inputs, initial_states=None, sequence_length=None)`` returns
    ``(outputs, final_states)``, outputs [batch, time, num_directions *
    hidden_size], final_states [num_layers * num_directions, batch,
    hidden_size]. ``direction`` is 'forward', 'bidirect' or 'bidirectional';
    ``dropout`` applies between layers in training mode; past a sequence's
    length outputs are zeros and states stay.

    >>> rnn = eager.nn.SimpleRNN(4, 8, num_layers=2)
    >>> out, h = rnn(eager.ones([3, 5, 4]))
    >>> out.shape, h.shape
    ([3, 5, 8], [2, 3, 8])
    """

    _cell_type = SimpleRNNCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 activation="tanh", weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name=None):
        if not isinstance(activation, str) or activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNN: argument 'activation' expected 'tanh' or 'relu', got {activation!r}")
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr, name, activation=activation)
        self.activation = activation
        self.mode = "RNN_TANH" if activation == "tanh" else "RNN_RELU"


class LSTM(RNNBase):
    """A multi-layer LSTM (Paddle's ``paddle.nn.LSTM``):
    ``forward(inputs, initial_states=None, sequence_length=None)`` with
    initial_states ``(h0, c0)`` returns ``(outputs, (h, c))``, outputs [batch,
    time, num_directions * hidden_size], h and c [num_layers * num_directions,
    batch, hidden_size]. With ``proj_size`` > 0 each cell projects its h (see
    LSTMCell): outputs and h are proj_size wide instead, c stays hidden_size.

    >>> lstm = eager.nn.LSTM(4, 8, direction="bidirect")
    >>> out, (h, c) = lstm(eager.ones([3, 5, 4]))
    >>> out.shape, c.shape
    ([3, 5, 16], [2, 3, 8])
    """

    _cell_type = LSTMCell
    _mode = "LSTM"

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, proj_size=0,
                 name=None):
        _check_proj_size("LSTM", proj_size, hidden_size)
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr, name, proj_size=proj_size)


class GRU(RNNBase):
    """A multi-layer GRU with Paddle's gates (Paddle's ``paddle.nn.GRU``):
    ``forward(inputs, initial_states=None, sequence_length=None)`` returns
    ``(outputs, final_states)``, final_states [num_layers * num_directions,
    batch, hidden_size].

    >>> gru = eager.nn.GRU(4, 8, num_layers=2, time_major=True)
    >>> out, h = gru(eager.ones([5, 3, 4]))
    >>> out.shape, h.shape
    ([5, 3, 8], [2, 3, 8])
    """

    _cell_type = GRUCell
    _mode = "GRU"

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr, name)


__all__ = ["BiRNN", "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNCellBase", "SimpleRNN", "SimpleRNNCell"]
