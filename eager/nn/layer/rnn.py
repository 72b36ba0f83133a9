"""Paddle's ``paddle.nn.layer.rnn`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..rnn import RNNCellBase, SimpleRNNCell, LSTMCell, GRUCell, RNN, BiRNN, SimpleRNN, LSTM, GRU

__all__ = ['RNNCellBase', 'SimpleRNNCell', 'LSTMCell', 'GRUCell', 'RNN', 'BiRNN', 'SimpleRNN', 'LSTM', 'GRU']
