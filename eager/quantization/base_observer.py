"""BaseObserver: the base of the layers that only watch values (PTQ)."""
from __future__ import annotations

import abc

from .base_quanter import BaseQuanter


class BaseObserver(BaseQuanter, metaclass=abc.ABCMeta):
    """A quanter that returns its input unchanged and records statistics from
    which ``cal_thresholds`` computes the quantization parameters."""

    def __init__(self):
        super().__init__()

    @abc.abstractmethod
    def cal_thresholds(self):
        """Computes the thresholds from the statistics recorded so far."""
