"""Paddle's ``paddle.incubate.optimizer``: LookAhead and ModelAverage.

>>> sorted(n for n in dir(eager.incubate.optimizer) if n[0].isupper())
['LookAhead', 'ModelAverage']
"""
from .lookahead import LookAhead
from .modelaverage import ModelAverage

__all__ = ["LookAhead", "ModelAverage"]
