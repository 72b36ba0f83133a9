"""PTQ: prepares a model for post-training quantization (calibration)."""
from __future__ import annotations

import copy

from .quantize import Quantization, _check_model


class PTQ(Quantization):
    """Post-training quantization with a QuantConfig of observers: ``quantize``
    returns a model whose layers record statistics (e.g. AbsmaxObserver) while
    calibration data runs through it; ``convert`` then gives the quantized model.

    >>> observer = AbsmaxObserver()
    >>> ptq = PTQ(QuantConfig(activation=observer, weight=observer))
    >>> observed = ptq.quantize(model.eval())
    >>> for x in calibration_data: observed(x)
    >>> infer_model = ptq.convert(observed)
    """

    def __init__(self, config):
        super().__init__(config)

    def quantize(self, model, inplace=False):
        """The model (a deep copy unless ``inplace``) with observers inserted; the
        model must be in evaluation mode (``model.eval()``)."""
        _check_model("PTQ.quantize", model, inplace)
        if model.training:
            raise ValueError("PTQ.quantize: post-training quantization needs a model in evaluation mode; "
                             "call model.eval() first")
        out = model
        if not inplace:
            out = copy.deepcopy(model)
            out.eval()
        self._config._specify(out)
        self._convert_to_quant_layers(out, self._config)
        self._insert_activation_observers(out, self._config)
        return out
