"""Regressions found by re-telling the dygraph parts of Paddle's own RNN unit
tests (test/rnn: test_rnn_nets, test_rnn_cells, test_wrappers, test_rnn_api;
test_rnn_decode_api; sequence_mask, gather_tree, Transformer's
generate_square_subsequent_mask) under ``import eager as paddle`` and checking
each disagreement against the real Paddle 2.6.2, weights copied across.

Agreed with Paddle 2.6.2 (no change needed): SimpleRNN (tanh/relu), LSTM and
GRU over time_major, 'forward'/'bidirect'/'bidirectional', 1-2 layers, initial
states given or None, sequence_length masks -- outputs, final states, the
gradients of every parameter, the input and the initial states (2,760
comparisons); the cells with bias_ih_attr/bias_hh_attr False; RNN (is_reverse)
and BiRNN over built-in and user RNNCellBase cells (state_shape tuples);
get_initial_states; BeamSearchDecoder + dynamic_decode over beam_size,
max_step_num, output_time_major, impute_finished, is_test, return_length with
GRU and LSTM cells (288 configurations); gather_tree; sequence_mask dtypes and
maxlen (negative, Tensor).

Found:
- sequence_mask(maxlen=0) returned an empty mask; Paddle's op raises
  ValueError (maxlen must be negative -- the largest length -- or at least 1).
- Transformer.generate_square_subsequent_mask refused length 0 (Paddle: a
  [0, 0] mask) and an integer Tensor length (Paddle's full takes it).
- sequence_mask of int8/uint8/int16 lengths failed inside arange with its
  error; Paddle has no kernel for them: a TypeError naming sequence_mask's x.
- SimpleRNN/LSTM/GRU(num_layers=0) and a non-positive input_size (cells and
  nets) were TypeErrors; a non-positive size is a ValueError, as hidden_size's,
  and hidden_size is checked first: test_rnn_cells' Cell(-1, 0) expects a
  ValueError (Paddle builds the 0-layer net and fails in forward; an input_size
  of 0 fails its create_parameter with an AssertionError).
- RNN/BiRNN over a user cell whose outputs are a nested structure (a tuple)
  failed in stack; Paddle stacks (BiRNN: concatenates) them leaf by leaf.
- RNNCellBase.get_initial_states made its states in batch_ref's dtype
  (int64 from token ids); Paddle takes the cell's state_dtype (ignored
  before), else the default dtype. Without a state_shape it raises
  NotImplementedError (was TypeError). RNN/BiRNN keep the inputs' dtype for
  cells without state_dtype (docs/nn.md: Paddle fails there for float64).

Paddle 2.6.2 quirks met and left (eager keeps its behaviour): the CPU rnn
kernel's gradients of the reverse direction with both initial states and
sequence_length (already noted in test_paddle_ut_nn2_cases); BiRNN requires an
``input_size`` attribute on user cells (AttributeError) and fails in a matmul
for cells of different hidden sizes; sequence_mask with an int64 Tensor maxlen
dies in C++ (int32 only); dynamic_decode with BeamSearchDecoder fails under
NumPy 2 (float() of a [1] start token) -- patched in the throwaway script only;
get_initial_states with a list of shapes ([[1], [2]]) or of a user cell whose
state_shape nests two layers of LSTM shapes fails (a -1 batch in full); BiRNN
builds the backward states with cell_fw. Documented differences added
(docs/nn.md): RNN/BiRNN initial states in the inputs' dtype; dynamic_decode with a user Decoder -- Paddle 2.6.2's dygraph loop
assigns the new finished flags into the old tensor in place, so lengths are one
less and impute_finished drops the finishing step's state; eager agrees with
Paddle's static graph (checked by removing the alias in Paddle: then the
re-told test_rnn_decode_api models, outputs and gradients, agree).
"""
import numpy as np
import pytest

import eager
import eager.nn.functional as F

pytestmark = pytest.mark.usefixtures("device")


def test_sequence_mask_maxlen_zero_is_refused():
    with pytest.raises(ValueError, match="maxlen"):
        F.sequence_mask(eager.to_tensor([2, 4]), maxlen=0)
    # a negative maxlen still means the largest length, as in Paddle 2.6.2
    out = F.sequence_mask(eager.to_tensor([2, 4]), maxlen=-1).numpy()
    np.testing.assert_array_equal(out, (np.arange(4)[None, :] < np.array([2, 4])[:, None]).astype("int64"))


def test_generate_square_subsequent_mask_of_length_zero():
    mask = eager.nn.Transformer(8, 2, 1, 1, 16).generate_square_subsequent_mask(0)
    assert mask.shape == [0, 0]   # shape [0, 0] from Paddle 2.6.2


@pytest.mark.parametrize("length", [lambda: eager.to_tensor(3), lambda: eager.to_tensor([3], dtype="int32")])
def test_generate_square_subsequent_mask_of_a_tensor_length(length):
    mask = eager.nn.Transformer(8, 2, 1, 1, 16).generate_square_subsequent_mask(length()).numpy()
    expected = np.where(np.arange(3)[None, :] > np.arange(3)[:, None], -np.inf, 0.0).astype("float32")
    np.testing.assert_array_equal(mask, expected)
    with pytest.raises(ValueError, match="length"):
        eager.nn.Transformer.generate_square_subsequent_mask(None, -1)


@pytest.mark.parametrize("layer", ["SimpleRNN", "LSTM", "GRU"])
def test_rnn_num_layers_zero_is_a_value_error(layer):
    with pytest.raises(ValueError, match="num_layers"):
        getattr(eager.nn, layer)(3, 4, num_layers=0)
    with pytest.raises(TypeError, match="num_layers"):
        getattr(eager.nn, layer)(3, 4, num_layers=1.5)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
def test_sequence_mask_refuses_lengths_without_a_kernel(dtype):
    # Paddle 2.6.2 has no sequence_mask kernel for these; eager failed inside arange (int8) instead
    with pytest.raises(TypeError, match="sequence_mask: argument 'x'"):
        F.sequence_mask(eager.to_tensor([2, 3], dtype=dtype))


@pytest.mark.parametrize("layer", ["SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU"])
def test_non_positive_sizes_are_value_errors(layer):
    # test_rnn_cells: Cell(-1, 0) raises ValueError (Paddle checks hidden_size first); eager raised a
    # TypeError for the input_size
    with pytest.raises(ValueError, match="hidden_size"):
        getattr(eager.nn, layer)(-1, 0)
    with pytest.raises(ValueError, match="input_size"):
        getattr(eager.nn, layer)(0, 3)
    with pytest.raises(TypeError, match="input_size"):
        getattr(eager.nn, layer)(2.5, 3)


class _TwoOutputCell(eager.nn.RNNCellBase):
    """A user cell whose outputs are a tuple (h, 2h) and whose states are (h, count)."""

    def __init__(self):
        super().__init__()
        self.input_size = 3

    def forward(self, x, states):
        h, count = states
        new_h = eager.tanh(x.sum(-1, keepdim=True) + h)
        return (new_h, new_h * 2), (new_h, count + 1)

    @property
    def state_shape(self):
        return ((1,), (2,))


def _two_output_reference(x, reverse):
    """NumPy: x [B, T, 3] -> each step's h [B, T, 1] and the last h."""
    h = np.zeros((x.shape[0], 1))
    steps = [None] * x.shape[1]
    for t in (range(x.shape[1] - 1, -1, -1) if reverse else range(x.shape[1])):
        h = np.tanh(x[:, t].sum(-1, keepdims=True) + h)
        steps[t] = h
    return np.stack(steps, 1), h


def test_rnn_and_birnn_stack_nested_cell_outputs():
    # Paddle stacks (and BiRNN concatenates) a cell's outputs leaf by leaf; eager's stack refused the tuples
    x = np.random.RandomState(0).randn(2, 5, 3)
    (y1, y2), (h, count) = eager.nn.RNN(_TwoOutputCell(), is_reverse=True)(eager.to_tensor(x))
    want, want_h = _two_output_reference(x, reverse=True)
    np.testing.assert_allclose(y1.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(y2.numpy(), 2 * want, rtol=1e-6)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-6)
    np.testing.assert_array_equal(count.numpy(), np.full((2, 2), 5.0))
    (b1, b2), _ = eager.nn.BiRNN(_TwoOutputCell(), _TwoOutputCell())(eager.to_tensor(x))
    forward, _ = _two_output_reference(x, reverse=False)
    np.testing.assert_allclose(b1.numpy(), np.concatenate([forward, want], -1), rtol=1e-6)
    np.testing.assert_allclose(b2.numpy(), 2 * np.concatenate([forward, want], -1), rtol=1e-6)


class _TypedStatesCell(eager.nn.RNNCellBase):
    @property
    def state_shape(self):
        return ((3,), (2, 4))

    @property
    def state_dtype(self):
        return ("float64", "int32")


def test_get_initial_states_dtype_is_state_dtype_or_the_default():
    # Paddle 2.6.2: dtype defaults to the cell's state_dtype, else the default dtype -- not batch_ref's,
    # which was eager's (int64 states from token ids)
    h = eager.nn.GRUCell(3, 4).get_initial_states(eager.to_tensor([[1, 2], [3, 4]]))
    assert h.dtype == eager.float32 and h.shape == [2, 4]
    h, c = _TypedStatesCell().get_initial_states(eager.ones([7, 5, 3]), init_value=2.5, batch_dim_idx=1)
    assert (h.dtype, h.shape, c.dtype, c.shape) == (eager.float64, [5, 3], eager.int32, [5, 2, 4])
    np.testing.assert_array_equal(h.numpy(), np.full((5, 3), 2.5))
    np.testing.assert_array_equal(c.numpy(), np.full((5, 2, 4), 2))   # 2.5 filled into int32, as Paddle's full
    assert _TypedStatesCell().get_initial_states(eager.ones([2, 3]), dtype="float16")[1].dtype == eager.float16


def test_get_initial_states_without_state_shape_is_not_implemented():
    with pytest.raises(NotImplementedError, match="state_shape"):
        eager.nn.RNNCellBase().get_initial_states(eager.ones([2, 3]))
