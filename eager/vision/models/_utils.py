"""What the model builders share."""
from __future__ import annotations


def check_pretrained(fn: str, pretrained) -> None:
    """``pretrained=True`` cannot be honoured: eager downloads no weights."""
    if pretrained:
        raise ValueError(f"{fn}: pretrained=True is not available: eager does not download weights. Build the "
                         f"model with pretrained=False and load a state dict you have with "
                         f"model.set_state_dict(...)")


def check_num_classes(fn: str, num_classes) -> int:
    if isinstance(num_classes, bool) or not isinstance(num_classes, int):
        raise TypeError(f"{fn}: argument 'num_classes' expected an int, got {num_classes!r}")
    return num_classes
