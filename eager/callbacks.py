"""Paddle's ``paddle.callbacks``: the callbacks of ``eager.Model`` (defined in
``eager.hapi.callbacks``).

>>> import eager as paddle
>>> stop = paddle.callbacks.EarlyStopping(monitor="acc", mode="max", patience=2)
"""
from .hapi.callbacks import (Callback, EarlyStopping, LRScheduler, ModelCheckpoint, ProgBarLogger,
                             ReduceLROnPlateau)
from .hapi.tracker_callbacks import VisualDL, WandbCallback

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "EarlyStopping", "LRScheduler", "ReduceLROnPlateau",
           "VisualDL", "WandbCallback"]
