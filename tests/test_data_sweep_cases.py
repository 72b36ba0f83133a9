"""Regression cases found by the differential sweep of eager.io and eager.metric
(random datasets, sample structures, sampler and DataLoader arguments against
torch.utils.data, hand-written references and Paddle's rules; random bad input).

- default_collate_fn: samples that differ in structure (a Tensor beside a str, a
  dict beside a list, dicts with other keys, arrays of other shapes) raised
  AttributeError/IndexError/KeyError or NumPy's np.stack error; they now raise a
  TypeError/ValueError that names default_collate_fn and the field.
- ComposeDataset, ChainDataset, ConcatDataset, Subset, SequenceSampler,
  RandomSampler, BatchSampler, DistributedBatchSampler, random_split and
  DataLoader given a non-iterable or
  unsized argument (an int, None, a 0-d array) raised Python's bare
  "'int' object is not iterable" / "len() of unsized object", some only when
  iterated; they now refuse it at construction, naming the class and argument.
- DataLoader with a batch_sampler yielding ints or strings: "'int' object is not
  iterable" from inside the fetcher (or a dataset's own error); now a TypeError
  naming 'batch_sampler', also from a worker process.
- DataLoader(timeout=nan) was accepted and never expired.
- Auc(curve=<array>) died in NumPy's truth-value error; Precision/Recall/Auc/
  Accuracy given text arrays died in NumPy ufuncs or in to_tensor.
"""
import math

import numpy as np
import pytest

import eager
from eager import io, metric

from torch_reference import needs_torch, torch


# -- default_collate_fn ----------------------------------------------------------
def test_collate_nested_values_against_hand_stacking():
    samples = [{"x": np.full((2, 3), float(i)), "meta": (i, f"s{i}", [np.float32(i / 2), eager.to_tensor([i, -i])])}
               for i in range(3)]
    batch = io.default_collate_fn(samples)
    np.testing.assert_array_equal(batch["x"], np.array([np.full((2, 3), float(i)) for i in range(3)]))
    ids, names, (halves, pairs) = batch["meta"]
    np.testing.assert_array_equal(ids, [0, 1, 2])
    assert names == ("s0", "s1", "s2")  # a tuple, as Paddle's collate leaves the strings of a tuple field
    np.testing.assert_array_equal(halves, np.array([0.0, 0.5, 1.0], np.float32))
    np.testing.assert_array_equal(pairs, [[0, 0], [1, -1], [2, -2]])


def test_collate_tensor_beside_array_stacks_both():
    batch = io.default_collate_fn([eager.to_tensor(np.ones(2)), np.zeros(2)])
    np.testing.assert_array_equal(batch, [[1.0, 1.0], [0.0, 0.0]])


@pytest.mark.parametrize("batch, error, pattern", [
    ([eager.to_tensor(np.ones(2)), "x"], TypeError, r"differ in kind: sample 0 has an array \(Tensor\), sample 1 has str"),
    ([{"a": 1}, [1]], TypeError, "differ in kind: sample 0 has a dict, sample 1 has list"),
    ([{"a": [1, 2]}, {"a": 3}], TypeError, r"differ in kind at field \['a'\]: sample 0 has a list, sample 1 has int"),
    ([(1, 2), 3], TypeError, "differ in kind: sample 0 has a tuple, sample 1 has int"),
    ([1, "x"], TypeError, "differ in kind: sample 0 has a number, sample 1 has str"),
    ([{"a": 1}, {"b": 1}], ValueError, r"differ in keys: sample 0 has \['a'\], sample 1 has \['b'\]"),
    ([{"a": 1}, {"a": 1, "b": 2}], ValueError, "differ in keys"),
    ([(1, 2), (1,)], ValueError, r"differ in length: \[1, 2\]"),
    ([{"a": (np.zeros(2), 1)}, {"a": (np.zeros(3), 1)}], ValueError,
     r"differ in shape at field \['a'\]\[0\]: \[\(2,\), \(3,\)\]"),
    ([{"a": object()}, {"a": object()}], TypeError, r"got object at field \['a'\]"),
])
def test_collate_mismatched_samples_are_named(batch, error, pattern):
    with pytest.raises(error, match="default_collate_fn: .*" + pattern):
        io.default_collate_fn(batch)


def test_dataloader_surfaces_collate_mismatch_from_a_worker():
    data = [(np.zeros(2), 0), (np.zeros(3), 1)]
    with pytest.raises(ValueError, match=r"worker 0 .*default_collate_fn: the samples differ in shape at field \[0\]"):
        list(io.DataLoader(data, batch_size=2, num_workers=1))


# -- datasets and samplers: bad arguments refused up front --------------------------
@pytest.mark.parametrize("make, pattern", [
    (lambda: io.ComposeDataset(3), "ComposeDataset: argument 'datasets' expected a list of map-style datasets, got int"),
    (lambda: io.ComposeDataset([np.array(3)]), r"ComposeDataset: argument 'datasets\[0\]' expected a sized"),
    (lambda: io.ChainDataset(None), "ChainDataset: argument 'datasets' expected a list of IterableDatasets, got NoneType"),
    (lambda: io.ConcatDataset(np.array(3)), "ConcatDataset: argument 'datasets' expected a list of datasets, got ndarray"),
    (lambda: io.ConcatDataset([[1], eager.to_tensor(2.0)]), r"ConcatDataset: argument 'datasets\[1\]' expected a sized"),
    (lambda: io.Subset(list(range(4)), 2), "Subset: argument 'indices' expected a sequence of indices, got int"),
    (lambda: io.Subset(list(range(4)), "01"), "Subset: argument 'indices' expected a sequence of indices, got str"),
    (lambda: io.Subset(float("nan"), [0]), "Subset: argument 'dataset' expected a map-style dataset"),
    (lambda: io.SequenceSampler(5), "SequenceSampler: argument 'data_source' expected a sized dataset .*got int"),
    (lambda: io.RandomSampler(None), "RandomSampler: argument 'data_source' expected a sized dataset .*got NoneType"),
    (lambda: io.DistributedBatchSampler(np.array(3), 2, 2, 0), "DistributedBatchSampler: argument 'dataset' expected a sized"),
    (lambda: io.random_split(np.array(3), [1]), "random_split: argument 'dataset' expected a sized"),
    (lambda: io.BatchSampler(np.array(3), batch_size=1), "BatchSampler: argument 'dataset' expected a sized"),
    (lambda: io.DataLoader(np.array(3)), "DataLoader: argument 'dataset' expected a sized"),
])
def test_unsized_or_non_iterable_arguments_are_refused_by_name(make, pattern):
    with pytest.raises(TypeError, match=pattern):
        make()


def test_dataloader_refuses_a_nan_timeout():
    # NaN passed the `timeout < 0` check and then never expired (every comparison with it is False)
    with pytest.raises(ValueError, match="DataLoader: argument 'timeout' expected a number of seconds >= 0, got nan"):
        io.DataLoader(list(range(3)), timeout=float("nan"))
    assert io.DataLoader(list(range(3)), timeout=float("inf")).timeout == float("inf")


def test_batch_sampler_yielding_non_lists_is_named_in_process_and_in_a_worker():
    with pytest.raises(TypeError, match="DataLoader: argument 'batch_sampler' must yield lists of sample indices, "
                                        "it yielded int 1"):
        list(io.DataLoader(list(range(4)), batch_sampler=[1, 2]))
    with pytest.raises(TypeError, match="it yielded str 'ab'"):
        list(io.DataLoader(list(range(4)), batch_sampler=["ab"]))
    with pytest.raises(TypeError, match="it yielded Tensor"):  # a 1-D Tensor yields 0-d ones
        list(io.DataLoader(list(range(4)), batch_sampler=eager.to_tensor([1, 2])))
    with pytest.raises(TypeError, match="worker 0 raised TypeError while taking the batch sampler's list of indices"):
        list(io.DataLoader(list(range(4)), batch_sampler=[3], num_workers=1))
    # a list of indices of any iterable kind still reads
    batches = list(io.DataLoader(list(range(10, 14)), batch_sampler=[np.array([3, 0]), (1,)]))
    assert [b.numpy().tolist() for b in batches] == [[13, 10], [11]]


# -- DistributedBatchSampler against Paddle's padding rule, written out ---------------
def _paddle_rank_batches(n, batch_size, nranks, rank, shuffle, drop_last, epoch):
    """Paddle's rule, step by step: pad the index list by repeating it from the
    start to nranks * ceil(n / nranks), shuffle it with RandomState(epoch), deal
    whole batches in turn and split the short tail evenly, then batch."""
    per_rank = int(math.ceil(n / nranks))
    total = per_rank * nranks
    indices = list(range(n))
    k = 0
    while len(indices) < total:
        indices.append(k % n)
        k += 1
    if shuffle:
        np.random.RandomState(epoch).shuffle(indices)
    if nranks > 1:
        tail = total % (batch_size * nranks)
        mine = []
        for start in range(rank * batch_size, total - tail, batch_size * nranks):
            mine += indices[start:start + batch_size]
        share = tail // nranks
        mine += indices[total - tail:][rank * share:(rank + 1) * share]
        indices = mine
    batches = [indices[i:i + batch_size] for i in range(0, len(indices), batch_size)]
    if drop_last and batches and len(batches[-1]) < batch_size:
        batches.pop()
    return batches, (per_rank // batch_size if drop_last else -(-per_rank // batch_size))


@pytest.mark.parametrize("n", [0, 1, 2, 5, 7, 13])
@pytest.mark.parametrize("nranks, batch_size", [(1, 3), (2, 2), (3, 4), (4, 1)])
@pytest.mark.parametrize("shuffle, drop_last", [(False, False), (True, True), (True, False)])
def test_distributed_batch_sampler_against_paddles_rule(n, nranks, batch_size, shuffle, drop_last):
    seen = []
    for rank in range(nranks):
        sampler = io.DistributedBatchSampler(list(range(n)), batch_size, num_replicas=nranks, rank=rank,
                                             shuffle=shuffle, drop_last=drop_last)
        sampler.set_epoch(2)
        got = list(sampler)
        expected, length = _paddle_rank_batches(n, batch_size, nranks, rank, shuffle, drop_last, 2)
        assert got == expected and len(sampler) == length
        seen += [i for b in got for i in b]
    if not drop_last and n:
        assert sorted(set(seen)) == list(range(n))  # every index reaches some rank


# -- metrics ------------------------------------------------------------------------
def test_metrics_refuse_text_arrays_and_a_non_string_curve():
    text = np.array(["a", "b"])
    with pytest.raises(TypeError, match=r"Precision.update: argument 'preds' expected an array of numbers .*<U1"):
        metric.Precision().update(text, np.array([1, 0]))
    with pytest.raises(TypeError, match="Recall.update: argument 'labels' expected an array of numbers"):
        metric.Recall().update(np.array([0.2, 0.9]), text)
    with pytest.raises(TypeError, match="Accuracy.update: argument 'correct' expected an array of numbers"):
        metric.Accuracy().update(text)
    with pytest.raises(TypeError, match="Accuracy.compute: argument 'pred' expected an array of numbers"):
        metric.Accuracy().compute(text, np.zeros((2, 1), "int64"))
    with pytest.raises(TypeError, match="Auc.update: argument 'preds' expected an array of numbers"):
        metric.Auc().update(np.array([["a", "b"]]), np.array([1]))
    with pytest.raises(ValueError, match="Auc: argument 'curve' expected 'ROC'"):
        metric.Auc(curve=np.zeros(2))


def test_precision_and_recall_at_exactly_one_half_count_positive():
    # eager reads p >= 0.5 as positive in both (Paddle's Recall rounds half to
    # even, so there 0.5 is negative: see the differences table in docs/training.md)
    preds = np.array([0.5, 0.5, 0.49, 0.51])
    labels = np.array([1, 0, 1, 1])
    p, r = metric.Precision(), metric.Recall()
    p.update(preds, labels)
    r.update(preds[:, None], labels[:, None])
    assert (p.tp, p.fp) == (2, 1)
    assert (r.tp, r.fn) == (2, 1)


# -- against torch.utils.data where the two agree ----------------------------------------
@needs_torch
@pytest.mark.parametrize("batch_size, drop_last", [(None, False), (1, False), (3, False), (3, True), (8, False)])
def test_dataloader_batches_match_torch(batch_size, drop_last):
    def sample(i):
        return {"x": np.arange(6, dtype=np.float64).reshape(2, 3) * i, "y": i, "t": (np.float32(i / 4), [i, i + 1])}

    kwargs = {"batch_size": batch_size} if batch_size is None else {"batch_size": batch_size, "drop_last": drop_last}
    ours = list(io.DataLoader([sample(i) for i in range(7)], **kwargs))
    theirs = list(torch.utils.data.DataLoader([sample(i) for i in range(7)], **kwargs))
    assert len(ours) == len(theirs) == len(io.DataLoader([sample(i) for i in range(7)], **kwargs))
    for a, b in zip(ours, theirs):
        assert type(a["y"]) is int if batch_size is None else isinstance(a["y"], eager.Tensor)
        for u, v in ((a["x"], b["x"]), (a["y"], b["y"]), (a["t"][0], b["t"][0]), (a["t"][1][0], b["t"][1][0]),
                     (a["t"][1][1], b["t"][1][1])):
            np.testing.assert_array_equal(_host(u), _host(v))


def _host(value):
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)
