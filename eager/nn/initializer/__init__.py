"""Parameter initializers (Paddle's ``paddle.nn.initializer``) and the global seed.

An initializer is a callable ``init(shape, dtype, generator=None) -> numpy array``.
All random ones draw from the CPU generator of phi (phi/core/generator.py), the
one the random ops (eager.rand, eager.randn, ...) draw from, unless given their
own; so ``eager.seed(n)`` makes model construction and every random op
reproducible, and ``eager.get_rng_state()`` / ``eager.set_rng_state()`` save and
restore all of it.

>>> eager.seed(0)
>>> w = eager.nn.initializer.XavierUniform()((3, 4), "float32")

Paddle's file-named paths (``paddle.nn.initializer.kaiming.KaimingNormal``,
``.constant``, ``.normal``, ``.xavier``, ...) are submodules here that re-export
this package's classes; they load on first use. (Paddle's ``Bilinear`` file is
left out: as a submodule it would shadow the ``Bilinear`` class here.)
"""
from __future__ import annotations

import importlib
import math
import numbers

import numpy as np

from phi import api as phi_api
from phi.common import CPUPlace, GPUPlace, convert_dtype
from phi.core import PhiError
from phi.core.errors import AssertedArgumentError, UnsupportedDtypeError
from phi.core.generator import Generator, GeneratorState, default_generator, generators, seed_all

from ...arguments import to_bool
from ...creation import to_tensor
from ...framework import default_dtype, gpu_count, parse_device
from ...tensor import Tensor


def seed(seed: int):
    """Seeds the random generator of every place (Paddle's ``paddle.seed(seed)``): the
    random ops and the initializers repeat their draws after the same seed.
    Returns the CPU generator."""
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or not 0 <= seed < 2 ** 64:
        raise TypeError(f"seed: argument 'seed' expected a non-negative int below 2**64, got {seed!r}")
    return seed_all(int(seed))


def get_generator() -> np.random.Generator:
    """The NumPy generator that initializers use when none is passed to them: the
    engine of phi's CPU generator, so it follows eager.seed and eager.set_rng_state."""
    return default_generator(CPUPlace()).engine


def get_rng_state(device=None) -> list:
    """The states of the random generators (Paddle's ``paddle.get_rng_state``).

    ``device`` 'cpu' gives the CPU generator's state and 'gpu' (or 'gpu:N', or a
    Place) those of every GPU, GPU 0 first, as Paddle; None gives every place's,
    the CPU's first (Paddle's None means the current device only; a superset
    restores the same streams). :func:`set_rng_state` takes the list back.
    """
    if device is None:
        return [generator.get_state() for generator in generators()]
    if _device_is_gpu("get_rng_state", device):
        return [default_generator(GPUPlace(device_id)).get_state() for device_id in range(gpu_count())]
    return [default_generator(CPUPlace()).get_state()]


def set_rng_state(state_list, device=None) -> None:
    """Restores states saved by :func:`get_rng_state`, each into the generator of its
    place; with ``device`` ('cpu', 'gpu', 'gpu:N' or a Place) only the states of
    that kind of place (Paddle's ``set_rng_state(states, device='gpu')``)."""
    on_gpu = None if device is None else _device_is_gpu("set_rng_state", device)
    if not isinstance(state_list, (list, tuple)) or not all(isinstance(s, GeneratorState) for s in state_list):
        raise TypeError(f"set_rng_state: argument 'state_list' expected the list that get_rng_state returns, "
                        f"got {type(state_list).__name__}")
    if on_gpu is not None:
        state_list = [state for state in state_list if state.place.is_gpu_place() == on_gpu]
        if not state_list:
            raise ValueError(f"set_rng_state: argument 'state_list' holds no state of a {device!r} generator")
    try:
        for state in state_list:
            default_generator(state.place).set_state(state)
    except PhiError as error:
        raise ValueError(f"set_rng_state: {error}") from None


def get_cuda_rng_state() -> list:
    """The state of each GPU's generator, GPU 0 first (Paddle's
    ``paddle.get_cuda_rng_state``): an empty list on a machine without a GPU, as
    Paddle's. :func:`set_cuda_rng_state` restores them.

    >>> states = eager.get_cuda_rng_state()
    >>> eager.set_cuda_rng_state(states)
    """
    return [default_generator(GPUPlace(device_id)).get_state() for device_id in range(gpu_count())]


def set_cuda_rng_state(state_list) -> None:
    """Restores the GPU generators' states from :func:`get_cuda_rng_state`'s list,
    which must hold one state per visible GPU (ValueError otherwise, as Paddle)."""
    if not isinstance(state_list, (list, tuple)) or not all(isinstance(s, GeneratorState) for s in state_list):
        raise TypeError(f"set_cuda_rng_state: argument 'state_list' expected the list that get_cuda_rng_state "
                        f"returns, got {type(state_list).__name__}")
    count = gpu_count()
    if len(state_list) != count:
        raise ValueError(f"set_cuda_rng_state: argument 'state_list' expected one state per GPU ({count} "
                         f"visible), got {len(state_list)}")
    for device_id, state in enumerate(state_list):
        if state.place != GPUPlace(device_id):
            raise ValueError(f"set_cuda_rng_state: state {device_id} is the state of {state.place}, expected "
                             f"GPU {device_id}'s")
    for state in state_list:
        default_generator(state.place).set_state(state)


def _device_is_gpu(op: str, device) -> bool:
    """Whether ``device`` names a GPU ('gpu', 'gpu:N', a GPUPlace) rather than the CPU;
    ValueError naming ``op`` for anything else or a GPU that is not there."""
    place = parse_device(op, device)
    if place.is_cuda_pinned_place():
        raise ValueError(f"{op}: argument 'device' expected 'cpu', 'gpu' or 'gpu:N', got {device!r}")
    return place.is_gpu_place()


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

    # Random draws and interpolation kernels cast to an integer or bool dtype would
    # be garbage (all 0, all True): such initializers refuse them, as Paddle's kernels.
    _floating_only = False
    _seed = 0  # the legacy classes' own seed (0: the global generator)

    def __call__(self, shape, dtype=None, generator=None):
        """An array of ``shape`` and ``dtype`` (None: the default dtype, float32 unless
        eager.set_default_dtype changed it); or, given a Tensor (Paddle's
        ``init(param)``), its values redrawn in place (its buffer and identity
        kept, its version bumped), returning the tensor."""
        if isinstance(shape, Tensor):
            target = shape
            values = self(tuple(target.shape), target.dtype, generator)
            phi_api.assign_out_(to_tensor(values, place=target.place).impl, target.impl)
            return target
        shape = _check_shape(type(self).__name__, shape)
        dtype = default_dtype() if dtype is None else convert_dtype(dtype)
        if self._floating_only and not (dtype.is_floating_point or dtype.is_complex):
            raise UnsupportedDtypeError(f"{type(self).__name__}: expected a floating-point parameter, got "
                                        f"{dtype}: it draws real values (give an integer or bool parameter "
                                        f"Constant or Assign)")
        np_dtype = dtype.numpy_dtype
        if generator is None:
            # A legacy initializer's nonzero seed draws the same values at every call, as Paddle's op
            generator = get_generator() if not self._seed else np.random.default_rng(self._seed)
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

    def __init__(self, value: float = 0.0, name=None):
        # True/False too: the fill of a bool parameter (Paddle takes them as 1.0 / 0.0)
        self.value = float(value) if isinstance(value, (bool, np.bool_)) else _check_number("Constant", "value", value)

    def _sample(self, shape, generator):
        return np.full(shape, self.value)


class Uniform(Initializer):
    """Uniform on [low, high) (every value ``low`` when low == high, which Paddle allows)."""

    _floating_only = True

    def __init__(self, low: float = -1.0, high: float = 1.0, name=None):
        self.low = _check_number("Uniform", "low", low)
        self.high = _check_number("Uniform", "high", high)
        if not self.low <= self.high:
            raise AssertedArgumentError(f"Uniform: expected low <= high, got low={low}, high={high}")

    def _sample(self, shape, generator):
        return generator.uniform(self.low, self.high, shape)


class Normal(Initializer):
    """Normal with the given mean and standard deviation."""

    _floating_only = True

    def __init__(self, mean: float = 0.0, std: float = 1.0, name=None):
        self.mean = _check_number("Normal", "mean", mean)
        self.std = _check_number("Normal", "std", std)
        if self.std < 0:
            raise ValueError(f"Normal: argument 'std' expected >= 0, got {std}")

    def _sample(self, shape, generator):
        return generator.normal(self.mean, self.std, shape)


class XavierUniform(Initializer):
    """Glorot uniform: U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)). Paddle's
    default for Linear weights."""

    _floating_only = True

    def __init__(self, fan_in=None, fan_out=None, gain: float = 1.0, name=None):
        self.fan_in, self.fan_out = _check_fan("XavierUniform", fan_in, fan_out)
        self.gain = _check_number("XavierUniform", "gain", gain)

    def _sample(self, shape, generator):
        fan_in, fan_out = _fans(shape, self.fan_in, self.fan_out)
        limit = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return generator.uniform(-limit, limit, shape)


class XavierNormal(Initializer):
    """Glorot normal: N(0, gain^2 * 2 / (fan_in + fan_out))."""

    _floating_only = True

    def __init__(self, fan_in=None, fan_out=None, gain: float = 1.0, name=None):
        self.fan_in, self.fan_out = _check_fan("XavierNormal", fan_in, fan_out)
        self.gain = _check_number("XavierNormal", "gain", gain)

    def _sample(self, shape, generator):
        fan_in, fan_out = _fans(shape, self.fan_in, self.fan_out)
        return generator.normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


class KaimingUniform(Initializer):
    """He uniform: U(-a, a), a = gain * sqrt(3 / fan_in), gain = sqrt(2) for ReLU."""

    _floating_only = True

    def __init__(self, fan_in=None, negative_slope: float = 0.0, nonlinearity: str = "relu"):
        self.fan_in = _check_fan("KaimingUniform", fan_in, None)[0]
        self.negative_slope = _check_number("KaimingUniform", "negative_slope", negative_slope)
        self.nonlinearity = nonlinearity
        self._gain = calculate_gain(nonlinearity, negative_slope)

    def _sample(self, shape, generator):
        fan_in = _fans(shape, self.fan_in, None)[0]
        limit = self._gain * math.sqrt(3.0 / fan_in)
        return generator.uniform(-limit, limit, shape)


class KaimingNormal(Initializer):
    """He normal: N(0, gain^2 / fan_in)."""

    _floating_only = True

    def __init__(self, fan_in=None, negative_slope: float = 0.0, nonlinearity: str = "relu"):
        self.fan_in = _check_fan("KaimingNormal", fan_in, None)[0]
        self.negative_slope = _check_number("KaimingNormal", "negative_slope", negative_slope)
        self.nonlinearity = nonlinearity
        self._gain = calculate_gain(nonlinearity, negative_slope)

    def _sample(self, shape, generator):
        fan_in = _fans(shape, self.fan_in, None)[0]
        return generator.normal(0.0, self._gain / math.sqrt(fan_in), shape)


class TruncatedNormal(Initializer):
    """Normal(mean, std) restricted to [a, b]: values outside are drawn again.
    Without ``a``/``b`` the bounds are mean -/+ 2 std (Paddle 2.x's kernel); given
    ``a``/``b`` (Paddle 3.x's arguments) are absolute bounds.

    >>> w = eager.nn.initializer.TruncatedNormal(std=0.02)((256, 256))
    >>> bool(abs(w).max() <= 0.04)
    True
    """

    _floating_only = True

    def __init__(self, mean: float = 0.0, std: float = 1.0, a=None, b=None, name=None):
        self.mean = _check_number("TruncatedNormal", "mean", mean)
        self.std = _check_number("TruncatedNormal", "std", std)
        if self.std < 0:
            raise ValueError(f"TruncatedNormal: argument 'std' expected >= 0, got {std}")
        self.a = self.mean - 2.0 * self.std if a is None else _check_number("TruncatedNormal", "a", a)
        self.b = self.mean + 2.0 * self.std if b is None else _check_number("TruncatedNormal", "b", b)
        if not self.a < self.b and not (a is None and b is None):
            raise ValueError(f"TruncatedNormal: expected a < b, got a={a}, b={b}")
        # Bounds many standard deviations away would take forever to hit by drawing again.
        low, high = (self.a - self.mean), (self.b - self.mean)
        if self.std > 0 and (low > 6 * self.std or high < -6 * self.std):
            raise ValueError(f"TruncatedNormal: [a, b] = [{a}, {b}] lies more than 6 std from the mean "
                             f"{mean}; expected an interval the normal distribution reaches")
        if self.std == 0 and not self.a <= self.mean <= self.b:
            raise ValueError(f"TruncatedNormal: with std=0 the mean {mean} must lie in [a, b] = [{a}, {b}]")

    def _sample(self, shape, generator):
        out = generator.normal(self.mean, self.std, shape)
        bad = (out < self.a) | (out > self.b)
        while bad.any():  # each round redraws every value still outside, at once
            out[bad] = generator.normal(self.mean, self.std, int(bad.sum()))
            bad = (out < self.a) | (out > self.b)
        return out


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``: the weight viewed as
    [shape[0], prod(shape[1:])] has orthonormal rows (or columns, whichever are
    fewer), from the QR decomposition of a standard normal matrix with the signs
    of R's diagonal folded in, so the result is uniform over orthogonal matrices.

    >>> q = eager.nn.initializer.Orthogonal()((4, 4), "float64")
    >>> bool(np.allclose(q @ q.T, np.eye(4)))
    True
    """

    _floating_only = True

    def __init__(self, gain: float = 1.0, name=None):
        self.gain = _check_number("Orthogonal", "gain", gain)

    def _sample(self, shape, generator):
        if len(shape) < 2:
            raise AssertedArgumentError(f"Orthogonal: expected a weight of at least 2 dimensions, got shape "
                                        f"{list(shape)}")
        rows, cols = shape[0], int(np.prod(shape[1:]))
        flat = generator.normal(0.0, 1.0, (max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(flat)
        q = q * np.where(np.diag(r) < 0, -1.0, 1.0)
        if rows < cols:
            q = q.T
        return (self.gain * q).reshape(shape)


class Assign(Initializer):
    """The given values (a NumPy array, a list, a number or a Tensor), which must
    have the weight's shape.

    >>> eager.nn.initializer.Assign([[1.0, 2.0]])((1, 2))
    array([[1., 2.]], dtype=float32)
    """

    def __init__(self, value, name=None):
        if isinstance(value, Tensor):
            value = value.numpy()  # a conversion point: the values are copied out
        try:
            self.value = np.array(value, dtype=np.float64 if not np.iscomplexobj(value) else np.complex128)
        except (TypeError, ValueError):
            raise TypeError(f"Assign: argument 'value' expected an array, list, number or Tensor, got "
                            f"{type(value).__name__}") from None

    def _sample(self, shape, generator):
        if self.value.shape != tuple(shape):
            raise ValueError(f"Assign: the value has shape {list(self.value.shape)}, expected the weight's "
                             f"shape {list(shape)}")
        return self.value.copy()

    def __repr__(self):
        return f"Assign(shape={list(self.value.shape)})"


class Dirac(Initializer):
    """The identity of a convolution: a filter [out, in/groups, *kernel] that
    passes input channel i (of each group) to output channel i at the kernel's
    centre, zeros elsewhere; channels beyond the smaller count stay zero.
    A stride-1, "same"-padded conv with it returns its input (Paddle's Dirac).

    >>> w = eager.nn.initializer.Dirac()((2, 2, 3, 3))
    >>> w[:, :, 1, 1]
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """

    def __init__(self, groups: int = 1, name=None):
        if not isinstance(groups, numbers.Integral) or isinstance(groups, bool) or groups < 1:
            raise AssertedArgumentError(f"Dirac: argument 'groups' expected a positive int, got {groups!r}")
        self.groups = int(groups)

    def _sample(self, shape, generator):
        if len(shape) not in (3, 4, 5):
            raise AssertedArgumentError(f"Dirac: expected a 3-D, 4-D or 5-D conv filter, got shape {list(shape)}")
        if shape[0] % self.groups:
            raise AssertedArgumentError(f"Dirac: the filter's {shape[0]} output channels do not split into "
                             f"groups={self.groups}")
        out = np.zeros(shape)
        per_group = shape[0] // self.groups
        n = min(per_group, shape[1])
        centre = tuple(k // 2 for k in shape[2:])
        inputs = np.arange(n)
        for g in range(self.groups):  # one vectorised write per group
            out[(g * per_group + inputs, inputs) + centre] = 1.0
        return out


class Bilinear(Initializer):
    """Bilinear-interpolation kernels for an upsampling transposed convolution
    (Paddle's Bilinear): a filter [C_out, C_in, K, K] whose every [K, K] slice is
    (1 - |x / f - c|) * (1 - |y / f - c|) with f = ceil(K / 2), c = (2f - 1 - f % 2) / (2f).

    >>> eager.nn.initializer.Bilinear()((1, 1, 4, 4))[0, 0, 0]
    array([0.0625, 0.1875, 0.1875, 0.0625], dtype=float32)
    """

    _floating_only = True

    def __init__(self, name=None):
        pass

    def _sample(self, shape, generator):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError(f"Bilinear: expected a 4-D filter with square kernels [C_out, C_in, K, K], got "
                             f"shape {list(shape)}")
        size = shape[3]
        f = math.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        taps = 1 - np.abs(np.arange(size) / f - c)
        return np.broadcast_to(np.outer(taps, taps), shape).copy()

    def __repr__(self):
        return "Bilinear()"


# -- the fluid-era classes Paddle 2.6 still keeps in paddle.nn.initializer (not in its __all__) --

def _check_seed(who: str, seed) -> int:
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or seed < 0:
        raise TypeError(f"{who}: argument 'seed' expected a non-negative int (0: the global generator), "
                        f"got {seed!r}")
    return int(seed)


class ConstantInitializer(Constant):
    """Paddle's legacy ``ConstantInitializer(value=0.0, force_cpu=False)``: :class:`Constant`."""

    def __init__(self, value: float = 0.0, force_cpu: bool = False):
        super().__init__(value)


class UniformInitializer(Uniform):
    """Paddle's legacy ``UniformInitializer(low, high, seed, diag_num, diag_step, diag_val)``:
    :class:`Uniform` with its own ``seed`` (nonzero: the same draw at every call), and
    ``diag_num`` elements at flat positions ``i * (diag_step + 1)`` set to ``diag_val``."""

    def __init__(self, low: float = -1.0, high: float = 1.0, seed: int = 0, diag_num: int = 0,
                 diag_step: int = 0, diag_val: float = 1.0, name=None):
        super().__init__(low, high)
        self._seed = _check_seed("UniformInitializer", seed)
        for arg, value in (("diag_num", diag_num), ("diag_step", diag_step)):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 0:
                raise ValueError(f"UniformInitializer: argument '{arg}' expected an int >= 0, got {value!r}")
        self.diag_num, self.diag_step = int(diag_num), int(diag_step)
        self.diag_val = _check_number("UniformInitializer", "diag_val", diag_val)

    def _sample(self, shape, generator):
        out = super()._sample(shape, generator)
        if self.diag_num:
            flat = out.reshape(-1)
            last = (self.diag_num - 1) * (self.diag_step + 1)
            if last >= flat.size:
                raise ValueError(f"UniformInitializer: diag_num={self.diag_num} with diag_step="
                                 f"{self.diag_step} reaches element {last} of a weight of {flat.size}")
            flat[np.arange(self.diag_num) * (self.diag_step + 1)] = self.diag_val
        return out


class NormalInitializer(Normal):
    """Paddle's legacy ``NormalInitializer(loc=0.0, scale=1.0, seed=0)``: :class:`Normal`
    with its own ``seed``."""

    def __init__(self, loc: float = 0.0, scale: float = 1.0, seed: int = 0):
        super().__init__(loc, scale)
        self._seed = _check_seed("NormalInitializer", seed)


class TruncatedNormalInitializer(TruncatedNormal):
    """Paddle's legacy ``TruncatedNormalInitializer(loc=0.0, scale=1.0, seed=0)``:
    :class:`TruncatedNormal` (mean -/+ 2 std) with its own ``seed``."""

    def __init__(self, loc: float = 0.0, scale: float = 1.0, seed: int = 0):
        super().__init__(loc, scale)
        self._seed = _check_seed("TruncatedNormalInitializer", seed)


class XavierInitializer(Initializer):
    """Paddle's legacy ``XavierInitializer(uniform=True, fan_in=None, fan_out=None, seed=0)``:
    :class:`XavierUniform` or :class:`XavierNormal`, with its own ``seed``."""

    _floating_only = True

    def __init__(self, uniform: bool = True, fan_in=None, fan_out=None, seed: int = 0):
        self.uniform = to_bool(uniform, "XavierInitializer", "uniform")
        self._draw = (XavierUniform if self.uniform else XavierNormal)(fan_in, fan_out)
        self._seed = _check_seed("XavierInitializer", seed)

    def _sample(self, shape, generator):
        return self._draw._sample(shape, generator)


class MSRAInitializer(Initializer):
    """Paddle's legacy ``MSRAInitializer(uniform=True, fan_in=None, seed=0,
    negative_slope=0, nonlinearity='relu')``: :class:`KaimingUniform` or
    :class:`KaimingNormal`, with its own ``seed``."""

    _floating_only = True

    def __init__(self, uniform: bool = True, fan_in=None, seed: int = 0, negative_slope: float = 0,
                 nonlinearity: str = "relu"):
        self.uniform = to_bool(uniform, "MSRAInitializer", "uniform")
        self._draw = (KaimingUniform if self.uniform else KaimingNormal)(fan_in, negative_slope, nonlinearity)
        self._seed = _check_seed("MSRAInitializer", seed)

    def _sample(self, shape, generator):
        return self._draw._sample(shape, generator)


class NumpyArrayInitializer(Assign):
    """Paddle's legacy ``NumpyArrayInitializer(value)``: :class:`Assign`."""

    def __init__(self, value):
        super().__init__(value)


def calculate_gain(nonlinearity: str, param=None):
    """The recommended gain for a nonlinearity (Paddle's ``calculate_gain``): 1 for
    linear, sigmoid and the convolutions, 5/3 for tanh, sqrt(2) for relu,
    sqrt(2 / (1 + slope^2)) for leaky_relu (slope ``param``, default 0.01), 3/4 for selu.

    >>> round(eager.nn.initializer.calculate_gain("leaky_relu", 1.0), 6)
    1.0
    """
    # the int 1, as Paddle's table (print(calculate_gain("linear")) shows 1)
    gains = {"linear": 1, "sigmoid": 1, "conv1d": 1, "conv2d": 1, "conv3d": 1,
             "conv1d_transpose": 1, "conv2d_transpose": 1, "conv3d_transpose": 1,
             "tanh": 5.0 / 3.0, "relu": math.sqrt(2.0), "selu": 3.0 / 4.0}
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else _check_number("calculate_gain", "param", param)
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
    # Only an empty weight has a zero fan, and nothing is drawn for it (Paddle's [0, n]
    # XavierUniform is empty too): any positive fan spares the division by zero.
    return max(fan_in, 1), max(fan_out, 1)


def _check_fan(who: str, fan_in, fan_out) -> tuple:
    for arg, value in (("fan_in", fan_in), ("fan_out", fan_out)):
        if value is not None and (not isinstance(value, numbers.Real) or isinstance(value, bool) or value <= 0):
            raise ValueError(f"{who}: argument '{arg}' expected None or a positive number, got {value!r}")
    return fan_in, fan_out


# -- what a layer uses when it names no initializer of its own -------------------------------

_GLOBAL_INITIALIZERS = {"weight": None, "bias": None}


def set_global_initializer(weight_init, bias_init=None) -> None:
    """Makes ``weight_init`` (and ``bias_init``) the initializer of every weight (bias)
    created afterwards whose ParamAttr names none, in place of the layer's own
    default (Paddle's ``paddle.nn.initializer.set_global_initializer``): an
    initializer given in ``weight_attr``/``bias_attr`` still wins. ``None`` takes
    the global one away.

    >>> eager.nn.initializer.set_global_initializer(eager.nn.initializer.Constant(0.5))
    >>> float(eager.nn.Linear(2, 2).weight.numpy()[0, 0])
    0.5
    >>> eager.nn.initializer.set_global_initializer(None)
    """
    for arg, value in (("weight_init", weight_init), ("bias_init", bias_init)):
        if value is not None and not isinstance(value, Initializer):
            raise TypeError(f"set_global_initializer: argument '{arg}' expected an Initializer or None, got "
                            f"{type(value).__name__}")
    _GLOBAL_INITIALIZERS["weight"], _GLOBAL_INITIALIZERS["bias"] = weight_init, bias_init


def global_initializer(is_bias: bool):
    """The initializer :func:`set_global_initializer` set for biases (``is_bias``) or
    weights, or None: what Layer.create_parameter uses before its own default."""
    return _GLOBAL_INITIALIZERS["bias" if is_bias else "weight"]


def default_initializer(dtype, is_bias: bool):
    """What a parameter gets when nothing else is asked for, as in Paddle:
    zeros for a bias and for an integer or bool parameter, XavierUniform for a
    floating-point weight."""
    dtype = convert_dtype(dtype)
    if is_bias or not (dtype.is_floating_point or dtype.is_complex):
        return Constant(0.0)
    return XavierUniform()


_lazy_depth = [0]  # how many LazyGuards are open (Paddle's lazy state is process-wide too)


class LazyGuard:
    """Paddle's ``paddle.LazyGuard``: ``with LazyGuard(): model = Net()`` makes the
    parameters that layers create with ``create_parameter`` without their values
    (shape, dtype and attributes only: no memory), each keeping its initializer;
    ``param.initialize()`` draws them then, or ``set_value`` /
    ``set_state_dict`` fills them (a model too large to initialize twice loads
    its checkpoint directly). An op given a parameter that is still empty raises
    RuntimeError, as Paddle's.

    >>> with eager.LazyGuard():
    ...     layer = eager.nn.Linear(2, 3)
    >>> layer.weight.shape, layer.weight._is_initialized()
    ([2, 3], False)
    >>> for p in layer.parameters():
    ...     p.initialize()
    >>> layer.weight._is_initialized()
    True
    """

    def __enter__(self):
        _lazy_depth[0] += 1
        return self

    def __exit__(self, *exc_info):
        _lazy_depth[0] -= 1
        return False


def lazy_init_active() -> bool:
    """Whether a LazyGuard is open (read by Layer.create_parameter)."""
    return _lazy_depth[0] > 0


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
    "Assign", "Bilinear", "Constant", "Dirac", "Initializer", "KaimingNormal", "KaimingUniform", "Normal",
    "Orthogonal", "TruncatedNormal", "Uniform", "XavierNormal", "XavierUniform", "calculate_gain", "compute_fans", "get_generator", "get_rng_state",
    "seed", "set_rng_state", "set_global_initializer",
]


# Paddle's file-named modules of this package (see the docstring).
_PADDLE_FILES = frozenset({"assign", "constant", "dirac", "initializer", "kaiming", "lazy_init", "normal",
                           "orthogonal", "uniform", "xavier"})


def __getattr__(name):
    if name in _PADDLE_FILES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'eager.nn.initializer' has no attribute {name!r}")
