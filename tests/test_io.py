"""eager.io: samplers, datasets, collation and the single-process DataLoader,
checked against hand-computed sequences and hand-written loops."""
import numpy as np
import pytest

import eager
from eager.distributed import env as distributed_env
from eager import io


def test_sequence_and_batch_sampler_hand_computed():
    assert list(io.SequenceSampler(range(4))) == [0, 1, 2, 3]
    assert list(io.BatchSampler(dataset=range(7), batch_size=3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(io.BatchSampler(dataset=range(7), batch_size=3, drop_last=True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(io.BatchSampler(dataset=range(7), batch_size=3)) == 3
    assert len(io.BatchSampler(dataset=range(7), batch_size=3, drop_last=True)) == 2
    sampler = io.SequenceSampler(range(5))
    assert list(io.BatchSampler(sampler=sampler, batch_size=2)) == [[0, 1], [2, 3], [4]]


def test_batch_sampler_bad_input():
    with pytest.raises(ValueError, match="exactly one"):
        io.BatchSampler(batch_size=2)
    with pytest.raises(ValueError, match="exactly one"):
        io.BatchSampler(dataset=range(3), sampler=io.SequenceSampler(range(3)))
    with pytest.raises(ValueError, match="batch_size"):
        io.BatchSampler(dataset=range(3), batch_size=0)
    with pytest.raises(ValueError, match="shuffle"):
        io.BatchSampler(sampler=io.SequenceSampler(range(3)), shuffle=True)


def test_random_sampler_is_a_permutation_repeated_by_numpys_seed():
    np.random.seed(3)
    first = list(io.RandomSampler(range(20)))
    np.random.seed(3)
    second = list(io.RandomSampler(range(20)))
    assert first == second and sorted(first) == list(range(20)) and first != list(range(20))
    # Paddle's draw: np.random.choice over NumPy's global state (eager.seed does not touch it).
    eager.seed(0)
    np.random.seed(3)
    assert first == np.random.choice(np.arange(20), 20, replace=False).tolist()


def test_samplers_give_paddles_order_for_numpys_seed():
    """Paddle's docstring examples: np.random.seed(2023), then RandomSampler over 100 samples
    starts 56, 12, 68, and its batches of 8 start [56, 12, 68, 0, 82, 66, 91, 44]."""
    np.random.seed(2023)
    assert list(io.RandomSampler(range(100)))[:3] == [56, 12, 68]
    np.random.seed(2023)
    batches = list(io.BatchSampler(sampler=io.RandomSampler(range(100)), batch_size=8, drop_last=True))
    assert batches[0] == [56, 12, 68, 0, 82, 66, 91, 44] and len(batches) == 12


def test_tensor_dataset_and_basic_dataloader_against_a_loop():
    x = np.arange(14, dtype="float32").reshape(7, 2)
    y = np.arange(7) * 10
    ds = io.TensorDataset([eager.to_tensor(x), eager.to_tensor(y)])
    assert len(ds) == 7
    xs, ys = ds[3]
    np.testing.assert_array_equal(xs.numpy(), x[3])
    loader = io.DataLoader(ds, batch_size=3)
    assert len(loader) == 3
    batches = list(loader)
    assert len(batches) == 3
    for b, (xb, yb) in enumerate(batches):
        assert isinstance(xb, eager.Tensor) and xb.dtype == eager.float32
        np.testing.assert_array_equal(xb.numpy(), x[3 * b:3 * b + 3])
        np.testing.assert_array_equal(yb.numpy(), y[3 * b:3 * b + 3])
    assert [xb.shape[0] for xb, _ in io.DataLoader(ds, batch_size=3, drop_last=True)] == [3, 3]


def test_shuffle_covers_every_sample_once_and_repeats_under_seed():
    x = np.arange(10)
    ds = io.TensorDataset([x])
    np.random.seed(5)
    a = np.concatenate([b[0].numpy() for b in io.DataLoader(ds, batch_size=4, shuffle=True)])
    np.random.seed(5)
    b = np.concatenate([b[0].numpy() for b in io.DataLoader(ds, batch_size=4, shuffle=True)])
    assert sorted(a.tolist()) == list(range(10)) and a.tolist() == b.tolist()


def test_batch_sampler_argument_and_collate_fn():
    ds = io.TensorDataset([np.arange(6, dtype="float64")])
    loader = io.DataLoader(ds, batch_sampler=[[5, 0], [2]], collate_fn=lambda samples: sum(s[0] for s in samples))
    batches = list(loader)
    assert batches == [5.0, 2.0] and all(type(t) is np.float64 for t in batches)  # NumPy scalars stay, as Paddle
    with pytest.raises(ValueError, match="batch_sampler"):
        io.DataLoader(ds, batch_sampler=[[0]], batch_size=2)


class DictDataset(io.Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"image": np.full((2, 2), i, "float32"), "label": i, "name": f"s{i}",
                "pair": (np.float32(i / 2), [i, -i])}


def test_default_collate_of_nested_structures():
    batch = io.default_collate_fn([DictDataset()[i] for i in (1, 3)])
    np.testing.assert_array_equal(batch["image"], np.stack([np.full((2, 2), 1.0), np.full((2, 2), 3.0)]))
    np.testing.assert_array_equal(batch["label"], [1, 3])
    assert batch["name"] == ["s1", "s3"]
    np.testing.assert_array_equal(batch["pair"][0], np.array([0.5, 1.5], "float32"))
    assert batch["pair"][0].dtype == np.float32
    np.testing.assert_array_equal(batch["pair"][1][0], [1, 3])
    np.testing.assert_array_equal(batch["pair"][1][1], [-1, -3])
    (first,) = list(io.DataLoader(DictDataset(), batch_size=5))[:1]
    assert isinstance(first["image"], eager.Tensor) and first["image"].shape == [5, 2, 2]
    assert first["name"] == ["s0", "s1", "s2", "s3", "s4"]
    assert first["label"].dtype == eager.int64


def test_return_list_false_keys_by_feed_list():
    ds = io.TensorDataset([np.zeros((4, 3), "float32"), np.arange(4)])
    batch = next(iter(io.DataLoader(ds, feed_list=["x", "y"], return_list=False, batch_size=2)))
    assert set(batch) == {"x", "y"} and batch["x"].shape == [2, 3]
    # Without a feed_list, Paddle's dynamic mode ignores return_list=False: the batch is the usual list.
    x, y = next(iter(io.DataLoader(ds, return_list=False, batch_size=2)))
    assert x.shape == [2, 3] and y.numpy().tolist() == [0, 1]


def distributed(n, batch_size, ranks, **kw):
    return [list(io.DistributedBatchSampler(range(n), batch_size, num_replicas=ranks, rank=r, **kw))
            for r in range(ranks)]


def test_distributed_batch_sampler_hand_computed():
    # 10 indices, 3 ranks: padded to 12 with 0, 1; dealt 2 at a time in turn; tail 12 % 6 = 0.
    assert distributed(10, 2, 3) == [[[0, 1], [6, 7]], [[2, 3], [8, 9]], [[4, 5], [0, 1]]]
    # 7 indices, 2 ranks, batch 3: padded to 8 with 0; rounds of 6 then a tail of 2 split 1 and 1.
    assert distributed(7, 3, 2) == [[[0, 1, 2], [6]], [[3, 4, 5], [0]]]
    assert distributed(7, 3, 2, drop_last=True) == [[[0, 1, 2]], [[3, 4, 5]]]
    s = io.DistributedBatchSampler(range(7), 3, num_replicas=2, rank=0)
    assert len(s) == 2 and s.num_samples == 4 and s.total_size == 8


@pytest.mark.parametrize("n,batch_size,ranks", [(12, 2, 3), (10, 4, 4), (5, 2, 2), (31, 3, 4), (3, 5, 4)])
def test_distributed_batch_sampler_partitions(n, batch_size, ranks):
    for shuffle in (False, True):
        parts = distributed(n, batch_size, ranks, shuffle=shuffle)
        flat = [i for part in parts for batch in part for i in batch]
        per_rank = -(-n // ranks)
        assert all(sum(len(b) for b in part) == per_rank for part in parts)  # equal length per rank
        assert len(flat) == per_rank * ranks and set(flat) == set(range(n))  # every index, padding repeats
        if n % ranks == 0:
            assert sorted(flat) == list(range(n))  # exactly once
        counts = np.bincount(flat, minlength=n)
        assert counts.max() - counts.min() <= 1 and counts.min() >= 1


def test_distributed_batch_sampler_shuffle_epochs_and_environment(monkeypatch):
    s = io.DistributedBatchSampler(range(8), 8, num_replicas=1, rank=0, shuffle=True)
    expected = list(range(8))
    np.random.RandomState(0).shuffle(expected)
    assert list(s) == [expected]  # epoch 0, then the sampler moves to epoch 1
    s.set_epoch(5)
    expected = list(range(8))
    np.random.RandomState(5).shuffle(expected)
    assert list(s) == [expected]
    # Every rank shuffles the same way, so the ranks still partition the data.
    parts = distributed(12, 3, 2, shuffle=True)
    assert sorted(i for p in parts for b in p for i in b) == list(range(12))
    # Before init_parallel_env the launcher's variables answer (once MPI has started in
    # this process, e.g. by another test, its world answers instead).
    monkeypatch.setattr(distributed_env, "_STATE", {"comm": None, "initialized": False})
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "3")
    monkeypatch.setenv("PADDLE_TRAINER_ID", "2")
    s = io.DistributedBatchSampler(range(10), 2)
    assert (s.nranks, s.local_rank) == (3, 2) and list(s) == [[4, 5], [0, 1]]
    monkeypatch.delenv("PADDLE_TRAINERS_NUM")
    monkeypatch.delenv("PADDLE_TRAINER_ID")
    s = io.DistributedBatchSampler(range(3), 2)
    assert (s.nranks, s.local_rank) == (1, 0) and list(s) == [[0, 1], [2]]
    with pytest.raises(ValueError, match="rank"):
        io.DistributedBatchSampler(range(3), 2, num_replicas=2, rank=2)


def test_random_sampler_replacement_and_generators():
    np.random.seed(1)
    drawn = list(io.RandomSampler(range(4), replacement=True, num_samples=50))
    assert len(drawn) == 50 and set(drawn) <= {0, 1, 2, 3} and len(set(drawn)) == 4
    np.random.seed(1)
    assert list(io.RandomSampler(range(4), replacement=True, num_samples=50)) == drawn
    with pytest.raises(ValueError, match="num_samples"):
        io.RandomSampler(range(4), num_samples=3)
    a = list(io.RandomSampler(range(9), generator=np.random.default_rng(4)))
    assert a == np.random.default_rng(4).permutation(9).tolist()
    assert list(io.RandomSampler(range(3), generator=iter([2, 2, 0, 1]))) == [2, 2, 0]  # Paddle: an index iterator
    with pytest.raises(TypeError, match="generator"):
        io.RandomSampler(range(3), generator=5)


def test_subset_and_weighted_random_samplers():
    eager.seed(2)
    order = list(io.SubsetRandomSampler([10, 20, 30, 40]))
    assert sorted(order) == [10, 20, 30, 40]
    eager.seed(2)
    assert list(io.SubsetRandomSampler([10, 20, 30, 40])) == order
    np.random.seed(0)
    drawn = list(io.WeightedRandomSampler([1.0, 0.0, 3.0], 4000))
    counts = np.bincount(drawn, minlength=3)
    assert counts[1] == 0 and abs(counts[2] / 4000 - 0.75) < 0.04
    np.random.seed(0)  # Paddle's draw, from NumPy's global state
    assert drawn == np.random.choice(3, 4000, True, np.array([0.25, 0.0, 0.75])).tolist()
    no_repeat = list(io.WeightedRandomSampler([1, 1, 1, 0, 1], 4, replacement=False))
    assert sorted(no_repeat) == [0, 1, 2, 4]
    with pytest.raises(ValueError, match="num_samples"):
        io.WeightedRandomSampler([1, 0, 1], 3, replacement=False)
    with pytest.raises(ValueError, match="weights"):
        io.WeightedRandomSampler([-1, 2], 1)


def test_random_split_lengths_fractions_and_reproducibility():
    eager.seed(9)
    parts = io.random_split(range(10), [3, 7])
    assert [len(p) for p in parts] == [3, 7]
    flat = [p[i] for p in parts for i in range(len(p))]
    assert sorted(flat) == list(range(10))
    assert flat == np.random.Generator(np.random.PCG64(9)).permutation(10).tolist()
    eager.seed(9)
    assert [list(p.indices) for p in io.random_split(range(10), [3, 7])] == [list(p.indices) for p in parts]
    # Fractions: floor(11 * f) = 3, 3, 4 leaves 1, given to the first subset.
    assert [len(p) for p in io.random_split(range(11), [0.3, 0.3, 0.4])] == [4, 3, 4]
    g = [list(p.indices) for p in io.random_split(range(6), [2, 4], generator=np.random.default_rng(0))]
    assert sum(g, []) == np.random.default_rng(0).permutation(6).tolist()
    with pytest.raises(ValueError, match="sum"):
        io.random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="lengths"):
        io.random_split(range(10), [0.5, 0.2])


def test_compose_subset_and_tensor_dataset_checks():
    a = io.TensorDataset([np.arange(4), np.arange(4) * 2])
    b = io.TensorDataset([np.arange(4) * 3])
    c = io.ComposeDataset([a, b])
    assert len(c) == 4 and [int(v) for v in c[2]] == [2, 4, 6]
    with pytest.raises(ValueError, match="one length"):
        io.ComposeDataset([a, io.TensorDataset([np.arange(3)])])
    sub = io.Subset(list("abcde"), [4, 0, 2])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == ["e", "a", "c"]
    with pytest.raises(ValueError, match="first dimension"):
        io.TensorDataset([np.zeros(3), np.zeros(4)])
    with pytest.raises(TypeError, match="tensors"):
        io.TensorDataset(np.zeros(3))
    with pytest.raises(TypeError, match="IterableDataset"):
        io.ChainDataset([a])


def test_numpy_strings_stay_text():
    batch = io.default_collate_fn([(np.str_("a"), 1), (np.str_("b"), 2)])
    assert batch[0] == ("a", "b")  # the field of tuple samples stays a tuple, as Paddle's collate gives it
    ds = io.Subset([np.array(["x", "y"]), np.array(["z", "w"])], [0, 1])
    (out,) = list(io.DataLoader(ds, batch_size=2))
    assert isinstance(out, np.ndarray) and out.tolist() == [["x", "y"], ["z", "w"]]


def test_a_dataloader_iterator_has_paddles_next_method():
    # docs/guides/beginner/train_eval_predict: ``img, label = test_loader().next()``
    data = np.arange(10, dtype="float32").reshape(5, 2)
    loader = io.DataLoader(io.TensorDataset([eager.to_tensor(data)]), batch_size=2)
    iterator = loader()
    first = iterator.next()
    np.testing.assert_array_equal(first[0].numpy(), data[:2])
    np.testing.assert_array_equal(next(iterator)[0].numpy(), data[2:4])  # one cursor for both spellings
    np.testing.assert_array_equal(iterator.next()[0].numpy(), data[4:])
    with pytest.raises(StopIteration):
        iterator.next()
