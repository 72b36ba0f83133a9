"""Optimizers (Paddle 2.x's ``paddle.optimizer``): update parameters in place from
their gradients; ``eager.optimizer.lr`` holds the learning-rate schedules."""
from . import lr
from .optimizer import SGD, Adam, AdamW, Momentum, Optimizer

__all__ = ["Adam", "AdamW", "Momentum", "Optimizer", "SGD", "lr"]
