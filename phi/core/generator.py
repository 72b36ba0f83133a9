"""Random generators: one per place, the source of every random kernel.

A :class:`Generator` owns a bit generator and draws the few primitives the
random kernels are written with (uniform [0, 1) floats, standard normals,
integers, permutations, Poisson counts). Kernels find the generator of their
context's place with :func:`default_generator`, so seeding it makes every
random op on that place reproducible (Paddle's ``paddle.seed``).

The CPU generator wraps ``numpy.random.Generator`` (PCG64). A GPU place's
generator is a :class:`CupyGenerator`, the same methods over ``cupy.random``;
CuPy is imported at its first draw, so this module loads without CuPy.
:func:`register_generator_type` lets another backend bring its own.

>>> from phi.common import CPUPlace
>>> gen = default_generator(CPUPlace()).manual_seed(7)
>>> state = gen.get_state()
>>> a = gen.random((2,))
>>> _ = gen.set_state(state)
>>> bool((gen.random((2,)) == a).all())
True
"""
from __future__ import annotations

import copy
import numbers
import secrets
import threading

import numpy as np

from ..backends.gpu_context import import_cupy
from ..common.backend import Backend
from ..common.place import CPUPlace, Place
from .errors import InvalidArgumentError, InvalidTypeError

# The seed of a generator nobody seeded: drawn from the OS, as NumPy does.
_SEED_BITS = 63


def check_seed(value, what: str = "seed") -> int:
    """``value`` as a seed: a non-negative int below 2**64."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or not 0 <= value < 2 ** 64:
        raise InvalidTypeError(f"{what}: expected a non-negative int below 2**64, got {value!r}")
    return int(value)


class GeneratorState:
    """A snapshot of one generator (Paddle's ``GeneratorState``): its place, the
    seed it started from and its bit generator's state. Restoring it with
    :meth:`Generator.set_state` makes the generator repeat what it drew after
    the snapshot."""

    __slots__ = ("place", "seed", "bit_state")

    def __init__(self, place: Place, seed: int, bit_state):
        self.place = place
        self.seed = seed
        self.bit_state = bit_state

    def __repr__(self):
        return f"GeneratorState(place={self.place}, seed={self.seed})"


class Generator:
    """The random generator of one place.

    Kernels call the drawing methods; users call :meth:`manual_seed`,
    :meth:`seed`, :meth:`initial_seed`, :meth:`get_state` and :meth:`set_state`
    (Paddle's ``paddle.framework.core.Generator``). Draws are serialized by a
    lock, so threads sharing a generator never draw the same numbers.
    """

    def __init__(self, place: Place | None = None, seed: int | None = None):
        self.place = CPUPlace() if place is None else place
        self._lock = threading.Lock()
        self._seed = secrets.randbits(_SEED_BITS) if seed is None else check_seed(seed)
        self._engine = self._make_engine(self._seed)

    # -- what a device implements ----------------------------------------------
    def _make_engine(self, seed: int):
        return np.random.Generator(np.random.PCG64(seed))

    def _engine_state(self):
        return copy.deepcopy(self._engine.bit_generator.state)

    def _set_engine_state(self, bit_state) -> None:
        self._engine.bit_generator.state = copy.deepcopy(bit_state)

    def _seeded_state(self, seed: int):
        """The engine state that seeding with ``seed`` starts from."""
        return self._make_engine(seed).bit_generator.state

    # -- seeding and state ------------------------------------------------------
    def manual_seed(self, seed: int) -> "Generator":
        """Restarts the generator from ``seed``; returns it."""
        seed = check_seed(seed)
        with self._lock:
            self._seed = seed
            # In place, so anyone holding the engine (an initializer) sees the new seed.
            self._set_engine_state(self._seeded_state(seed))
        return self

    def seed(self) -> int:
        """Restarts the generator from a fresh seed drawn from the OS; returns that seed."""
        value = secrets.randbits(_SEED_BITS)
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        """The seed the generator last started from."""
        return self._seed

    def get_state(self) -> GeneratorState:
        """A snapshot of the generator (see :class:`GeneratorState`)."""
        with self._lock:
            return GeneratorState(self.place, self._seed, self._engine_state())

    def set_state(self, state: GeneratorState) -> "Generator":
        """Restores a snapshot taken by :meth:`get_state` on a generator of the same place."""
        if not isinstance(state, GeneratorState):
            raise InvalidTypeError(f"set_state: expected a GeneratorState, got {type(state).__name__}")
        if state.place != self.place:
            raise InvalidArgumentError(
                f"set_state: the state is of a generator on {state.place}, this generator is on {self.place}")
        with self._lock:
            self._set_engine_state(state.bit_state)
            self._seed = state.seed
        return self

    @property
    def engine(self):
        """The underlying NumPy (or CuPy) generator, for code that draws with its
        own methods (the parameter initializers); it shares this generator's state."""
        return self._engine

    # -- the primitives kernels draw with ------------------------------------------
    def random(self, shape=None):
        """float64 uniform on [0, 1) of ``shape``; with no shape, one random unsigned
        64-bit Python int (what Paddle's ``Generator.random()`` returns)."""
        with self._lock:
            if shape is None:
                return int(self._engine.integers(0, 2 ** 64, dtype=np.uint64))
            return self._engine.random(tuple(shape))

    def standard_normal(self, shape):
        """float64 standard normal."""
        with self._lock:
            return self._engine.standard_normal(tuple(shape))

    def integers(self, low: int, high: int, shape):
        """int64 uniform on [low, high)."""
        with self._lock:
            return self._engine.integers(low, high, tuple(shape), dtype=np.int64)

    def permutation(self, n: int):
        """A random permutation of 0..n-1 (int64)."""
        with self._lock:
            return self._engine.permutation(n).astype(np.int64, copy=False)

    def poisson(self, lam):
        """Poisson counts (int64) with the rates of the array ``lam``."""
        with self._lock:
            return np.asarray(self._engine.poisson(lam))  # a 0-d rate gives a Python int

    def binomial(self, n, p):
        """Binomial counts (int64): successes in ``n`` trials of probability ``p`` (arrays
        of one shape)."""
        with self._lock:
            return np.asarray(self._engine.binomial(n, p)).astype(np.int64, copy=False)

    def __repr__(self):
        return f"{type(self).__name__}(place={self.place}, initial_seed={self._seed})"


class CupyGenerator(Generator):
    """A GPU place's generator: draws on the device with ``cupy.random``.

    Its state is Paddle's GPU generator state, (seed, offset): every draw
    re-seeds one Philox ``cupy.random.RandomState`` from the pair and then
    advances the offset, so a saved state repeats exactly what followed it,
    and nothing is copied between host and device.
    """

    def _make_engine(self, seed: int):
        return _CupyEngine(seed, self.place.device_id)

    def _engine_state(self):
        return self._engine.state

    def _set_engine_state(self, bit_state) -> None:
        self._engine.state = bit_state

    def _seeded_state(self, seed: int):
        return (seed, 0)

    def random(self, shape=None):
        with self._lock:
            if shape is None:  # drawn on the host from the (seed, offset) stream: no device round trip
                value = _mix(self._engine.seed, self._engine.offset)
                self._engine.offset += 1
                return value
            return self._engine.draw("random_sample", tuple(shape), np.float64)

    def standard_normal(self, shape):
        with self._lock:
            return self._engine.draw("standard_normal", tuple(shape), np.float64)

    def integers(self, low, high, shape):
        with self._lock:
            return self._engine.draw("randint", low, high, tuple(shape), np.int64)

    def permutation(self, n):
        with self._lock:
            return self._engine.draw("permutation", int(n)).astype(np.int64, copy=False)

    def poisson(self, lam):
        with self._lock:
            return self._engine.draw("poisson", lam, None, np.int64)

    def binomial(self, n, p):
        with self._lock:
            return self._engine.draw("binomial", n, p, None, np.int64)


def _mix(seed: int, offset: int) -> int:
    """A 63-bit seed for draw number ``offset`` of a generator seeded with ``seed``
    (SplitMix64's finalizer, so neighbouring pairs give unrelated streams)."""
    z = (seed * 0x9E3779B97F4A7C15 + offset + 1) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return (z ^ (z >> 31)) >> 1


class _CupyEngine:
    """(seed, offset) over one cupy.random.RandomState, re-seeded per draw."""

    def __init__(self, seed: int, device_id: int):
        self.seed, self.offset, self.device_id = seed, 0, device_id
        self._random_state = None

    @property
    def state(self):
        return (self.seed, self.offset)

    @state.setter
    def state(self, value):
        self.seed, self.offset = value

    def draw(self, method: str, *args):
        cupy = import_cupy()
        with cupy.cuda.Device(self.device_id):
            if self._random_state is None:
                self._random_state = cupy.random.RandomState(
                    _mix(self.seed, self.offset), method=cupy.cuda.curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)
            else:
                self._random_state.seed(_mix(self.seed, self.offset))
            self.offset += 1
            return getattr(self._random_state, method)(*args)


# -- one generator per place ------------------------------------------------------

_GENERATOR_TYPES: dict = {Backend.CPU: Generator, Backend.GPU: CupyGenerator}
_GENERATORS: dict = {}
_REGISTRY_LOCK = threading.Lock()
# The seed of the last seed_all(), so a generator made afterwards (a GPU first
# used after eager.seed(n)) starts from it too.
_GLOBAL_SEED: list = [None]


def register_generator_type(backend: Backend, generator_type) -> None:
    """Makes ``generator_type(place, seed)`` the generator of places of ``backend``
    (the GPU context registers its CuPy generator)."""
    _GENERATOR_TYPES[backend] = generator_type


def default_generator(place: Place | None = None) -> Generator:
    """The generator of ``place`` (the CPU when None), made on first use."""
    place = CPUPlace() if place is None else place
    generator = _GENERATORS.get(place)
    if generator is not None:
        return generator
    with _REGISTRY_LOCK:
        generator = _GENERATORS.get(place)
        if generator is None:
            generator_type = _GENERATOR_TYPES.get(place.backend)
            if generator_type is None:
                raise InvalidArgumentError(f"no random generator is registered for {place}")
            generator = generator_type(place, _GLOBAL_SEED[0])
            _GENERATORS[place] = generator
    return generator


def generators() -> list:
    """Every generator made so far, the CPU's first (Paddle's per-device state list)."""
    default_generator(CPUPlace())
    return sorted(_GENERATORS.values(), key=lambda g: (g.place.backend is not Backend.CPU,
                                                      getattr(g.place, "device_id", -1)))


def seed_all(seed: int) -> Generator:
    """Seeds every place's generator (and those made later) with ``seed``; returns the CPU's."""
    seed = check_seed(seed)
    _GLOBAL_SEED[0] = seed
    for generator in list(_GENERATORS.values()):
        generator.manual_seed(seed)
    return default_generator(CPUPlace())


def generator_for_call(place: Place, seed: int) -> Generator:
    """The generator a kernel draws from: the place's, or a fresh one when the op
    was given its own non-zero ``seed`` (Paddle's per-op seed attribute)."""
    if seed == 0:
        return default_generator(place)
    generator_type = _GENERATOR_TYPES.get(place.backend, Generator)
    return generator_type(place, seed)


__all__ = ["Generator", "GeneratorState", "CupyGenerator", "check_seed", "default_generator", "generator_for_call",
           "generators", "register_generator_type", "seed_all"]
