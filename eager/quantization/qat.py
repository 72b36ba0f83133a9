"""QAT: prepares a model for quantization-aware training."""
from __future__ import annotations

import copy

from .quantize import Quantization, _check_model


class QAT(Quantization):
    """Quantization-aware training with a QuantConfig: ``quantize`` returns a model
    whose Linear/Conv2D layers fake-quantize their inputs and weights (the
    straight-through estimator carries the gradient) and whose configured leaves
    (ReLU, AvgPool2D, ...) fake-quantize their inputs; ``convert`` gives the
    inference model.

    >>> quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    >>> qat = QAT(QuantConfig(activation=quanter, weight=quanter))
    >>> quant_model = qat.quantize(model)          # train it as usual
    >>> infer_model = qat.convert(quant_model.eval())
    """

    def __init__(self, config):
        super().__init__(config)

    def quantize(self, model, inplace=False):
        """The model (a deep copy unless ``inplace``) with quantized layers swapped in;
        the model must be in training mode."""
        _check_model("QAT.quantize", model, inplace)
        if not model.training:
            raise ValueError("QAT.quantize: quantization-aware training needs a model in training mode; "
                             "call model.train() first")
        out = model if inplace else copy.deepcopy(model)
        self._config._specify(out)
        self._convert_to_quant_layers(out, self._config)
        self._insert_activation_observers(out, self._config)
        return out
