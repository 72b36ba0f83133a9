"""Neural-network building blocks (Paddle 2.x's ``paddle.nn``): Layer, Parameter,
common layers, initializers and ``eager.nn.functional``."""
from . import functional, initializer
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from .conv import Conv1D, Conv2D, Conv3D
from .initializer import seed
from .layer import Layer, ParamAttr, Parameter
from .layers import (
    CrossEntropyLoss, LayerList, Linear, MSELoss, ReLU, Sequential, Sigmoid, Softmax, Tanh,
)

__all__ = [
    "ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue", "Conv1D", "Conv2D", "Conv3D", "CrossEntropyLoss", "Layer", "LayerList", "Linear", "MSELoss", "ParamAttr", "Parameter",
    "ReLU", "Sequential", "Sigmoid", "Softmax", "Tanh", "functional", "initializer", "seed",
]
