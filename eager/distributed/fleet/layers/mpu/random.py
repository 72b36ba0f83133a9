"""Named random-number streams for model parallelism (Paddle's ``fleet.layers.mpu.random``).

Tensor-parallel training needs two kinds of randomness: draws every
model-parallel rank must share (dropout on a replicated activation) and draws
each rank must make on its own (dropout on its shard of a split activation).
:class:`RNGStatesTracker` keeps named generator states beside eager's global
one: ``add(name, seed)`` makes a state seeded with ``seed``, and
``with tracker.rng_state(name):`` swaps it in for the block, so the random ops
inside draw from it; afterwards the named state has advanced and the global
state is back as it was.

>>> tracker = get_rng_state_tracker()
>>> tracker.add("local_seed", 1234)
>>> with tracker.rng_state("local_seed"):
...     y = eager.nn.functional.dropout(x, 0.1)    # the named stream
>>> z = eager.nn.functional.dropout(x, 0.1)        # the global stream, untouched by the block

:func:`model_parallel_random_seed` seeds the global state with one seed shared
by the model-parallel group and adds the per-rank state ``"model_parallel_rng"``
(:data:`MODEL_PARALLEL_RNG`), as Paddle does. A state is the list that
``eager.get_rng_state()`` returns: the generator of every place used so far
and of the current device (a device first used later, inside a block, draws
from its global generator there).
"""
from __future__ import annotations

import contextlib
import numbers

import numpy as np

from ...base import topology
from .....nn import functional as F
from phi.core.generator import default_generator, generators

from .....framework import current_place
from .....nn.initializer import get_rng_state, seed as _seed_all, set_rng_state
from .....tensor import Tensor

MODEL_PARALLEL_RNG = "model_parallel_rng"


class RNGStatesTracker:
    """Named generator states, swapped in by :meth:`rng_state` (Paddle's ``RNGStatesTracker``).

    ``states_`` maps a name to its state (what ``eager.get_rng_state()``
    returns), ``seeds_`` holds the seeds used so far: neither a name nor a seed
    may be added twice, so two streams never repeat each other.
    """

    def __init__(self):
        self.states_ = {}
        self.seeds_ = set()

    def reset(self) -> None:
        """Forgets every state and seed."""
        self.states_ = {}
        self.seeds_ = set()

    def add(self, name, seed) -> None:
        """Adds the state ``name``, seeded with ``seed``; the global state is left as it was.

        ValueError when ``seed`` or ``name`` was added before (checked before
        anything is changed), TypeError when ``seed`` is not a non-negative int.
        """
        if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or not 0 <= seed < 2 ** 64:
            raise TypeError(f"RNGStatesTracker.add: argument 'seed' expected a non-negative int below 2**64, "
                            f"got {seed!r}")
        seed = int(seed)
        if seed in self.seeds_:
            raise ValueError(f"RNGStatesTracker.add: seed {seed} already exists (each state needs its own "
                             f"seed, or two streams would draw the same numbers)")
        if name in self.states_:
            raise ValueError(f"RNGStatesTracker.add: state {name!r} already exists; call reset() first to "
                             f"re-add it")
        default_generator(current_place())   # the current device's generator is in the state too
        state = [_seeded_state(generator, seed) for generator in generators()]
        self.seeds_.add(seed)
        self.states_[name] = state

    def get_states_tracker(self) -> dict:
        """A copy of the name -> state mapping (for :meth:`set_states_tracker`)."""
        return dict(self.states_)

    def set_states_tracker(self, states) -> None:
        """Replaces the name -> state mapping with ``states`` (a dict from :meth:`get_states_tracker`)."""
        if not isinstance(states, dict):
            raise TypeError(f"RNGStatesTracker.set_states_tracker: argument 'states' expected the dict that "
                            f"get_states_tracker returns, got {type(states).__name__}")
        self.states_ = dict(states)

    @contextlib.contextmanager
    def rng_state(self, name=MODEL_PARALLEL_RNG):
        """Runs the block with the state ``name`` as the global generator state.

        On leaving (also on an error) the named state keeps what the block
        drew, so the next block continues its stream, and the global state
        is restored. ValueError when no state has that name.
        """
        if name not in self.states_:
            raise ValueError(f"RNGStatesTracker.rng_state: state {name!r} does not exist; add it first with "
                             f"add(name, seed) (known: {sorted(map(str, self.states_))})")
        original = get_rng_state()
        set_rng_state(self.states_[name])
        try:
            yield
        finally:
            self.states_[name] = get_rng_state()
            set_rng_state(original)


def _seeded_state(generator, seed: int):
    """The state ``generator`` would have right after being seeded with ``seed``;
    the generator itself is left as it was (eager.seed is not called: it would
    also change the seed of generators made later)."""
    original = generator.get_state()
    try:
        return generator.manual_seed(seed).get_state()
    finally:
        generator.set_state(original)


RNG_STATE_TRACKER = RNGStatesTracker()


def get_rng_state_tracker() -> RNGStatesTracker:
    """The process's one :class:`RNGStatesTracker` (what recompute saves and restores too)."""
    return RNG_STATE_TRACKER


def model_parallel_random_seed(seed=None) -> None:
    """Seeds the random streams of tensor-parallel training (needs ``fleet.init``).

    The global state gets ``seed`` (one per data-parallel replica and the same
    on every model-parallel rank); the tracker is reset and gets the state
    ``"model_parallel_rng"`` seeded with ``seed + 1 + mp_rank * pp_size +
    pp_rank``, different on each model-parallel rank. Without ``seed``, a seed
    below 10000 is drawn from NumPy's global generator, as Paddle does.
    """
    if seed is not None and (not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or seed < 0):
        raise TypeError(f"model_parallel_random_seed: argument 'seed' expected a non-negative int or None, "
                        f"got {seed!r}")
    hcg = topology.hybrid_group("model_parallel_random_seed")
    mp_rank = hcg.get_model_parallel_rank()
    pp_rank, pp_size = hcg.get_stage_id(), hcg.get_pipe_parallel_world_size()
    global_seed = int(seed) if seed is not None else int(np.random.randint(0, 10000))
    local_seed = global_seed + 1 + mp_rank * pp_size + pp_rank
    RNG_STATE_TRACKER.reset()
    RNG_STATE_TRACKER.add(MODEL_PARALLEL_RNG, local_seed)
    _seed_all(global_seed)


def dropout(x, p=0.5, axis=None, rng_name=None, training=True, mode="upscale_in_train", name=None) -> Tensor:
    """Dropout for tensor-parallel layers (Paddle's ``mpu.random.dropout``).

    Without ``rng_name`` it is ``eager.nn.functional.dropout``. With one (the
    name of a tracker state, used by Paddle's static graph to pick a seed),
    ``axis`` must be None and, as in Paddle's dynamic mode, the mask is drawn
    from the current generator: wrap the call in
    ``get_rng_state_tracker().rng_state(rng_name)`` to draw from that stream.
    """
    if rng_name is not None:  # F.dropout checks p's range and mode, and returns x for p == 0
        if not isinstance(p, numbers.Real) or isinstance(p, bool):
            raise TypeError(f"dropout: argument 'p' expected a number, got {type(p).__name__}")
        if axis is not None:
            raise ValueError(f"dropout: argument 'axis' must be None when rng_name is given, got {axis!r}")
    return F.dropout(x, p, axis, training, mode, name)


__all__ = ["MODEL_PARALLEL_RNG", "RNGStatesTracker", "dropout", "get_rng_state_tracker",
           "model_parallel_random_seed"]
