"""fleet.meta_parallel's RNG-state tracker (Paddle's fleet.layers.mpu.random):
named states seeded like eager.seed, swapped in by rng_state(name) and advanced
by what the block draws, the global state restored afterwards; the errors;
model_parallel_random_seed in a world of one; mpu's dropout."""
from __future__ import annotations

import numpy as np
import pytest

import eager
from eager.distributed import fleet
from eager.distributed.fleet import meta_parallel
from eager.distributed.fleet.base import topology
from eager.distributed.fleet.layers import mpu
from eager.distributed.fleet.layers.mpu.random import MODEL_PARALLEL_RNG, RNGStatesTracker

pytestmark = pytest.mark.usefixtures("device")


@pytest.fixture
def tracker():
    """The global tracker, emptied for the test and restored after it."""
    t = meta_parallel.get_rng_state_tracker()
    states, seeds = t.get_states_tracker(), set(t.seeds_)
    t.reset()
    yield t
    t.states_, t.seeds_ = states, seeds


def draws_after_seed(seed, n=2, size=6):
    """What eager.rand gives right after eager.seed(seed): the reference stream."""
    saved = eager.get_rng_state()
    eager.seed(seed)
    out = [eager.rand([size]).numpy() for _ in range(n)]
    eager.set_rng_state(saved)
    return out


def test_a_name_draws_its_seeds_stream_and_continues_it(tracker):
    tracker.add("a", 11)
    tracker.add("b", 12)
    with tracker.rng_state("a"):
        a1 = eager.rand([6]).numpy()
    with tracker.rng_state("b"):
        b1 = eager.rand([6]).numpy()
    with tracker.rng_state("a"):
        a2 = eager.rand([6]).numpy()     # the stream goes on where the first block left it
    ref_a, ref_b = draws_after_seed(11), draws_after_seed(12)
    np.testing.assert_array_equal(a1, ref_a[0])
    np.testing.assert_array_equal(a2, ref_a[1])
    np.testing.assert_array_equal(b1, ref_b[0])
    assert not np.allclose(a1, b1)


def test_the_same_name_and_seed_repeat_the_draws(tracker):
    tracker.add("x", 5)
    with tracker.rng_state("x"):
        first = eager.rand([8]).numpy()
    tracker.reset()
    tracker.add("x", 5)
    with tracker.rng_state("x"):
        again = eager.rand([8]).numpy()
    np.testing.assert_array_equal(first, again)


def test_the_global_state_is_restored_after_the_block_and_after_add(tracker):
    eager.seed(99)
    tracker.add("local", 3)                  # add does not move the global stream
    with tracker.rng_state("local"):
        eager.rand([100])
    after = eager.rand([6]).numpy()
    np.testing.assert_array_equal(after, draws_after_seed(99, n=1)[0])


def test_the_block_restores_on_an_error_and_keeps_its_draws(tracker):
    eager.seed(21)
    tracker.add("s", 4)
    with pytest.raises(RuntimeError, match="boom"):
        with tracker.rng_state("s"):
            inside = eager.rand([6]).numpy()
            raise RuntimeError("boom")
    np.testing.assert_array_equal(eager.rand([6]).numpy(), draws_after_seed(21, n=1)[0])
    np.testing.assert_array_equal(inside, draws_after_seed(4)[0])
    with tracker.rng_state("s"):
        np.testing.assert_array_equal(eager.rand([6]).numpy(), draws_after_seed(4)[1])


def test_get_and_set_states_tracker_replay_a_stream(tracker):
    tracker.add("d", 8)
    snapshot = tracker.get_states_tracker()
    with tracker.rng_state("d"):
        first = eager.nn.functional.dropout(eager.ones([32]), 0.5).numpy()
    tracker.set_states_tracker(snapshot)
    with tracker.rng_state("d"):
        replay = eager.nn.functional.dropout(eager.ones([32]), 0.5).numpy()
    np.testing.assert_array_equal(first, replay)
    assert snapshot is not tracker.states_


def test_errors_are_clear_and_change_nothing(tracker):
    tracker.add("a", 1)
    with pytest.raises(ValueError, match="RNGStatesTracker.add: seed 1 already exists"):
        tracker.add("b", 1)
    with pytest.raises(ValueError, match="RNGStatesTracker.add: state 'a' already exists"):
        tracker.add("a", 2)
    assert tracker.seeds_ == {1} and list(tracker.states_) == ["a"]   # the failed adds left no trace
    tracker.add("b", 2)                                                # seed 2 is still free
    with pytest.raises(TypeError, match="RNGStatesTracker.add: argument 'seed' expected a non-negative int"):
        tracker.add("c", 1.5)
    with pytest.raises(TypeError, match="argument 'seed' expected a non-negative int.*got -3"):
        tracker.add("c", -3)
    with pytest.raises(ValueError, match="RNGStatesTracker.rng_state: state 'missing' does not exist"):
        with tracker.rng_state("missing"):
            pass
    with pytest.raises(ValueError, match=f"state '{MODEL_PARALLEL_RNG}' does not exist"):
        with tracker.rng_state():
            pass
    with pytest.raises(TypeError, match="set_states_tracker: argument 'states' expected the dict"):
        tracker.set_states_tracker([1, 2])


def test_model_parallel_random_seed_in_a_world_of_one(tracker):
    fleet.init(is_collective=True)
    meta_parallel.model_parallel_random_seed(100)
    assert list(tracker.states_) == [MODEL_PARALLEL_RNG] and tracker.seeds_ == {101}   # 100 + 1 + 0*1 + 0
    global_draw = eager.rand([6]).numpy()
    with tracker.rng_state():
        local_draw = eager.rand([6]).numpy()
    np.testing.assert_array_equal(global_draw, draws_after_seed(100, n=1)[0])
    np.testing.assert_array_equal(local_draw, draws_after_seed(101, n=1)[0])
    meta_parallel.model_parallel_random_seed(100)            # resets: adding again is no duplicate
    with pytest.raises(TypeError, match="model_parallel_random_seed: argument 'seed' expected a non-negative"):
        meta_parallel.model_parallel_random_seed("7")
    np.random.seed(0)
    meta_parallel.model_parallel_random_seed()
    np.random.seed(0)
    assert tracker.seeds_ == {np.random.randint(0, 10000) + 1}


def test_model_parallel_random_seed_needs_fleet_init():
    saved, topology._HYBRID_PARALLEL_GROUP = topology._HYBRID_PARALLEL_GROUP, None
    try:
        with pytest.raises(RuntimeError, match="model_parallel_random_seed: no hybrid-parallel group: call "
                                               "fleet.init"):
            meta_parallel.model_parallel_random_seed(1)
    finally:
        topology._HYBRID_PARALLEL_GROUP = saved


def test_mpu_dropout(tracker):
    x = eager.ones([64])
    eager.seed(3)
    plain = mpu.dropout(x, 0.5).numpy()
    eager.seed(3)
    np.testing.assert_array_equal(plain, eager.nn.functional.dropout(x, 0.5).numpy())
    tracker.add("mp", 77)
    with tracker.rng_state("mp"):
        named = mpu.dropout(x, 0.5, rng_name="mp").numpy()
    eager.seed(77)
    np.testing.assert_array_equal(named, eager.nn.functional.dropout(x, 0.5).numpy())
    assert mpu.dropout(x, 0, rng_name="mp") is x
    with pytest.raises(ValueError, match="dropout: argument 'axis' must be None when rng_name is given"):
        mpu.dropout(x, 0.5, axis=0, rng_name="mp")
    with pytest.raises(ValueError, match="dropout: argument 'p' expected a probability in \\[0, 1\\], got 1.5"):
        mpu.dropout(x, 1.5, rng_name="mp")
    with pytest.raises(ValueError, match="dropout: argument 'mode' expected"):
        mpu.dropout(x, 0.5, rng_name="mp", mode="scale")


def test_exported_where_paddle_has_them():
    assert meta_parallel.get_rng_state_tracker is mpu.get_rng_state_tracker is mpu.random.get_rng_state_tracker
    assert meta_parallel.RNGStatesTracker is RNGStatesTracker
    assert meta_parallel.parallel_layers.random.model_parallel_random_seed is meta_parallel.model_parallel_random_seed
    assert isinstance(meta_parallel.get_rng_state_tracker(), RNGStatesTracker)
