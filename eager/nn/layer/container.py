"""Paddle's ``paddle.nn.layer.container`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..container import LayerDict, ParameterList
from ..layers import LayerList, Sequential

__all__ = ['LayerDict', 'ParameterList', 'LayerList', 'Sequential']
