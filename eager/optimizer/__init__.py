"""Optimizers (Paddle 2.x's ``paddle.optimizer``): update parameters in place from
their gradients; ``eager.optimizer.lr`` holds the learning-rate schedules."""
from . import lr
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import (SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Lamb, Momentum, Optimizer,
                        RMSProp)
from .radam import RAdam
from .rprop import Rprop

__all__ = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Lamb", "Momentum", "NAdam",
           "Optimizer", "RAdam", "RMSProp", "Rprop", "SGD", "lr"]
