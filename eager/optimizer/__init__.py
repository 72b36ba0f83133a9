"""Optimizers (Paddle 2.x's ``paddle.optimizer``): update parameters in place from
their gradients; ``eager.optimizer.lr`` holds the learning-rate schedules."""
from . import lr
from .lbfgs import LBFGS
from .optimizer import (SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Lamb, Momentum, Optimizer,
                        RMSProp)

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Lamb", "Momentum",
           "Optimizer", "RMSProp", "SGD", "lr"]
