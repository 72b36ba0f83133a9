"""Recurrent layers: cells, RNN/BiRNN wrappers, SimpleRNN, LSTM, GRU (Paddle's ``paddle.nn``)."""
from __future__ import annotations

__all__: list = []
