"""Paddle's paddle.quantization: quantization-aware training (QAT) and
post-training quantization (PTQ) of dynamic-graph models.

>>> from eager.quantization import QAT, QuantConfig
>>> from eager.quantization.quanters import FakeQuanterWithAbsMaxObserver
>>> quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
>>> qat = QAT(QuantConfig(activation=quanter, weight=quanter))
>>> quant_model = qat.quantize(model)
"""
from . import observers, quanters
from .base_observer import BaseObserver
from .base_quanter import BaseQuanter
from .config import QuantConfig
from .factory import ObserverFactory, QuanterFactory, quanter
from .imperative import ImperativeQuantAware
# Paddle's older dygraph PTQ, importable from paddle.quantization though not in its __all__
from .imperative_ptq import (SUPPORT_ACT_QUANTIZERS, SUPPORT_WT_QUANTIZERS, AbsmaxQuantizer, BaseQuantizer,
                             HistQuantizer, ImperativePTQ, KLQuantizer, PerChannelAbsmaxQuantizer, PTQConfig,
                             PTQRegistry, default_ptq_config)
from .ptq import PTQ
from .qat import QAT
from .wrapper import ObserveWrapper

__all__ = ["QuantConfig", "BaseQuanter", "BaseObserver", "quanter", "QAT", "PTQ", "ImperativeQuantAware"]
