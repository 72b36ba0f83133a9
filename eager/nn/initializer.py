"""Parameter initializers (Paddle's ``paddle.nn.initializer``) and the global seed.

An initializer is a callable ``init(shape, dtype, generator=None) -> numpy array``.
All random ones draw from the CPU generator of phi (phi/core/generator.py), the
one the random ops (eager.rand, eager.randn, ...) draw from, unless given their
own; so ``eager.seed(n)`` makes model construction and every random op
reproducible, and ``eager.get_rng_state()`` / ``eager.set_rng_state()`` save and
restore all of it.

>>> eager.seed(0)
>>> w = eager.nn.initializer.XavierUniform()((3, 4), "float32")
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from phi.common import CPUPlace, convert_dtype
from phi.core import PhiError
from phi.core.generator import Generator, GeneratorState, default_generator, generators, seed_all


def seed(value: int):
    """Seeds the random generator of every place (Paddle's ``paddle.seed``): the
    random ops and the initializers repeat their draws after the same seed.
    Returns the CPU generator."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or not 0 <= value < 2 ** 64:
        raise TypeError(f"seed: argument 'value' expected a non-negative int below 2**64, got {value!r}")
    return seed_all(int(value))


def get_generator() -> np.random.Generator:
    """The NumPy generator that initializers use when none is passed to them: the
    engine of phi's CPU generator, so it follows eager.seed and eager.set_rng_state."""
    return default_generator(CPUPlace()).engine


def get_rng_state(device=None) -> list:
    """The state of every place's generator, the CPU's first (Paddle's
    ``paddle.get_rng_state``; ``device`` is accepted for Paddle's signature and
    must be None: the list covers every place)."""
    _check_device("get_rng_state", device)
    return [generator.get_state() for generator in generators()]


def set_rng_state(state_list, device=None) -> None:
    """Restores states saved by :func:`get_rng_state`, each into the generator of its place."""
    _check_device("set_rng_state", device)
    if not isinstance(state_list, (list, tuple)) or not all(isinstance(s, GeneratorState) for s in state_list):
        raise TypeError(f"set_rng_state: argument 'state_list' expected the list that get_rng_state returns, "
                        f"got {type(state_list).__name__}")
    try:
        for state in state_list:
            default_generator(state.place).set_state(state)
    except PhiError as error:
        raise ValueError(f"set_rng_state: {error}") from None


def _check_device(op: str, device) -> None:
    if device is not None:
        raise ValueError(f"{op}: argument 'device' must be None (the states of every place are saved and "
                         f"restored together), got {device!r}")


def compute_fans(shape) -> tuple:
    """(fan_in, fan_out) of a weight, with Paddle's conventions.

    A Linear weight is [in, out], so for 2-D the first axis is fan_in (the
    opposite of PyTorch). For conv filters [out, in, *kernel] the kernel size
    multiplies both.
    """
    shape = tuple(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """Base class: subclasses implement :meth:`_sample` on a float64 scale and
    the base casts to the requested dtype."""

    def __call__(self, shape, dtype="float32", generator=None) -> np.ndarray:
        shape = _check_shape(type(self).__name__, shape)
        np_dtype = convert_dtype(dtype).numpy_dtype
        if generator is None:
            generator = get_generator()
        elif isinstance(generator, Generator):
            generator = generator.engine
        elif not isinstance(generator, np.random.Generator):
            raise TypeError(
                f"{type(self).__name__}: argument 'generator' expected a numpy.random.Generator, "
                f"a phi Generator or None, got {type(generator).__name__}"
            )
        return np.asarray(self._sample(shape, generator), dtype=np_dtype)

    def _sample(self, shape, generator):
        raise NotImplementedError

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Constant(Initializer):
    """Every element equal to ``value`` (the default for biases: 0)."""

    def __init__(self, value: float = 0.0):
        self.value = _check_number("Constant", "value", value)

    def _sample(self, shape, generator):
        return np.full(shape, self.value)


class Uniform(Initializer):
    """Uniform on [low, high)."""

    def __init__(self, low: float = -1.0, high: float = 1.0):
        self.low = _check_number("Uniform", "low", low)
        self.high = _check_number("Uniform", "high", high)
        if not self.low < self.high:
            raise ValueError(f"Uniform: expected low < high, got low={low}, high={high}")

    def _sample(self, shape, generator):
        return generator.uniform(self.low, self.high, shape)


class Normal(Initializer):
    """Normal with the given mean and standard deviation."""

    def __init__(self, mean: float = 0.0, std: float = 1.0):
        self.mean = _check_number("Normal", "mean", mean)
        self.std = _check_number("Normal", "std", std)
        if self.std < 0:
            raise ValueError(f"Normal: argument 'std' expected >= 0, got {std}")

    def _sample(self, shape, generator):
        return generator.normal(self.mean, self.std, shape)


class XavierUniform(Initializer):
    """Glorot uniform: U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)). Paddle's
    default for Linear weights."""

    def __init__(self, fan_in=None, fan_out=None, gain: float = 1.0):
        self.fan_in, self.fan_out = fan_in, fan_out
        self.gain = _check_number("XavierUniform", "gain", gain)

    def _sample(self, shape, generator):
        fan_in, fan_out = _fans(shape, self.fan_in, self.fan_out)
        limit = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return generator.uniform(-limit, limit, shape)


class XavierNormal(Initializer):
    """Glorot normal: N(0, gain^2 * 2 / (fan_in + fan_out))."""

    def __init__(self, fan_in=None, fan_out=None, gain: float = 1.0):
        self.fan_in, self.fan_out = fan_in, fan_out
        self.gain = _check_number("XavierNormal", "gain", gain)

    def _sample(self, shape, generator):
        fan_in, fan_out = _fans(shape, self.fan_in, self.fan_out)
        return generator.normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


class KaimingUniform(Initializer):
    """He uniform: U(-a, a), a = gain * sqrt(3 / fan_in), gain = sqrt(2) for ReLU."""

    def __init__(self, fan_in=None, negative_slope: float = 0.0, nonlinearity: str = "relu"):
        self.fan_in = fan_in
        self.negative_slope = _check_number("KaimingUniform", "negative_slope", negative_slope)
        self.nonlinearity = nonlinearity
        self._gain = calculate_gain(nonlinearity, negative_slope)

    def _sample(self, shape, generator):
        fan_in = _fans(shape, self.fan_in, None)[0]
        limit = self._gain * math.sqrt(3.0 / fan_in)
        return generator.uniform(-limit, limit, shape)


class KaimingNormal(Initializer):
    """He normal: N(0, gain^2 / fan_in)."""

    def __init__(self, fan_in=None, negative_slope: float = 0.0, nonlinearity: str = "relu"):
        self.fan_in = fan_in
        self.negative_slope = _check_number("KaimingNormal", "negative_slope", negative_slope)
        self.nonlinearity = nonlinearity
        self._gain = calculate_gain(nonlinearity, negative_slope)

    def _sample(self, shape, generator):
        fan_in = _fans(shape, self.fan_in, None)[0]
        return generator.normal(0.0, self._gain / math.sqrt(fan_in), shape)


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity (as in Paddle and PyTorch)."""
    gains = {"linear": 1.0, "sigmoid": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
             "tanh": 5.0 / 3.0, "relu": math.sqrt(2.0), "selu": 3.0 / 4.0}
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1.0 + slope ** 2))
    if nonlinearity not in gains:
        raise ValueError(
            f"calculate_gain: argument 'nonlinearity' expected one of "
            f"{sorted(gains) + ['leaky_relu']}, got {nonlinearity!r}"
        )
    return gains[nonlinearity]


def _fans(shape, fan_in, fan_out):
    computed_in, computed_out = compute_fans(shape)
    fan_in = computed_in if fan_in is None else fan_in
    fan_out = computed_out if fan_out is None else fan_out
    if fan_in <= 0 or fan_out <= 0:
        # A zero-size weight would divide by zero below; say why instead.
        raise ValueError(f"initializer: fan_in and fan_out must be positive, got {fan_in}, "
                         f"{fan_out} for shape {list(shape)}")
    return fan_in, fan_out


def _check_shape(who: str, shape) -> tuple:
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise TypeError(f"{who}: argument 'shape' expected a list of non-negative ints, got {shape!r}")
    return tuple(int(d) for d in shape)


def _check_number(who: str, arg: str, value) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{who}: argument '{arg}' expected a real number, got {value!r}")
    return float(value)


__all__ = [
    "Constant", "Initializer", "KaimingNormal", "KaimingUniform", "Normal", "Uniform",
    "XavierNormal", "XavierUniform", "calculate_gain", "compute_fans", "get_generator", "get_rng_state",
    "seed", "set_rng_state",
]
