"""Optimizers (Paddle 2.x's ``paddle.optimizer``): update parameters in place from
their gradients; ``eager.optimizer.lr`` holds the learning-rate schedules.

Paddle's file-named paths (``paddle.optimizer.adam.Adam``, ``.sgd``, ``.momentum``,
...) are modules here too, each re-exporting its class; they load on first use."""
import importlib

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

# Paddle's one-class files (see the docstring); lr, optimizer, lbfgs and rprop are modules already.
_PADDLE_FILES = frozenset({"adadelta", "adagrad", "adam", "adamax", "adamw", "lamb", "momentum", "rmsprop", "sgd"})


def __getattr__(name):
    if name in _PADDLE_FILES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'eager.optimizer' has no attribute {name!r}")
