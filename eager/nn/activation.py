"""Activation layers (beyond ReLU, Tanh, Sigmoid and Softmax in layers.py) (Paddle's ``paddle.nn``)."""
from __future__ import annotations

__all__: list = []
