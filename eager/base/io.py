"""Paddle's ``paddle.base.io``: the legacy ``DataLoader`` (``from_generator``) and
``PyReader`` of :mod:`eager.base.reader`.

>>> loader = eager.base.io.DataLoader.from_generator(capacity=4, return_list=True)
"""
from . import reader
from .reader import DataLoader, PyReader

__all__ = ["DataLoader", "PyReader", "reader"]
