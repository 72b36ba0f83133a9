"""InferMeta of the activation ops beyond the spine's relu/sigmoid/tanh/softmax (issue #10)."""
from __future__ import annotations

__all__: list = []
