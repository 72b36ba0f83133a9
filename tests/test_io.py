"""eager.io: samplers, datasets, collation and the single-process DataLoader,
checked against hand-computed sequences and hand-written loops."""
import numpy as np
import pytest

import eager
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


def test_random_sampler_is_a_permutation_repeated_by_seed():
    eager.seed(3)
    first = list(io.RandomSampler(range(20)))
    eager.seed(3)
    second = list(io.RandomSampler(range(20)))
    assert first == second and sorted(first) == list(range(20)) and first != list(range(20))
    # The same draw as NumPy's PCG64 from that seed (eager's CPU generator).
    assert first == np.random.Generator(np.random.PCG64(3)).permutation(20).tolist()


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
    eager.seed(5)
    a = np.concatenate([b[0].numpy() for b in io.DataLoader(ds, batch_size=4, shuffle=True)])
    eager.seed(5)
    b = np.concatenate([b[0].numpy() for b in io.DataLoader(ds, batch_size=4, shuffle=True)])
    assert sorted(a.tolist()) == list(range(10)) and a.tolist() == b.tolist()


def test_batch_sampler_argument_and_collate_fn():
    ds = io.TensorDataset([np.arange(6, dtype="float64")])
    loader = io.DataLoader(ds, batch_sampler=[[5, 0], [2]], collate_fn=lambda samples: sum(s[0] for s in samples))
    assert [t.numpy().item() for t in loader] == [5.0, 2.0]
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
    with pytest.raises(ValueError, match="feed_list"):
        io.DataLoader(ds, return_list=False)
