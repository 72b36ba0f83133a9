"""The generated phi API remembers call signatures that passed InferMeta.

A repeat call (same array types, dtypes, shapes and InferMeta-read attribute
values and types) skips InferMeta and calls the remembered kernel; any other
call runs every check. These tests count InferMeta calls to see which path
ran, and check that errors, results and FLAGS.check_infer_meta are the same
on both paths.
"""
import numpy as np
import pytest

import eager
import phi.infermeta
from phi.api import generated_api as G
from phi.common import Backend
from phi.core import DenseTensor, InvalidArgumentError, KernelFactory, PreconditionNotMetError, TensorBase
from phi.core.kernel_registry import (
    KERNELS, SignatureCache, forwarded_xp_function, set_signature_cache_capacity,
)
from phi.core.selected_rows import SelectedRows


def dense(values, dtype=np.float32):
    return DenseTensor(np.asarray(values, dtype=dtype))


@pytest.fixture
def count_elementwise(monkeypatch):
    """Counts calls of elementwise_infer_meta (add's InferMeta), with add's cache emptied."""
    calls = []
    original = phi.infermeta.elementwise_infer_meta

    def counting(*args):
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(phi.infermeta, "elementwise_infer_meta", counting)
    G._add_seen.clear()
    yield calls
    G._add_seen.clear()


def test_a_repeat_call_skips_infer_meta_and_gives_the_same_result(count_elementwise):
    x, y = dense([1, 2, 3]), dense([10, 20, 30])
    first = G.add(x, y)
    second = G.add(dense([4, 5, 6]), dense([1, 1, 1]))  # same signature, other values
    assert len(count_elementwise) == 1 and len(G._add_seen) == 1
    np.testing.assert_array_equal(first.array, [11, 22, 33])
    np.testing.assert_array_equal(second.array, [5, 6, 7])
    assert type(second) is DenseTensor and second.array.dtype == np.float32


@pytest.mark.parametrize("other", [
    lambda: (dense([1, 2]), dense([1, 2])),                     # another shape
    lambda: (dense([1, 2, 3], np.float64), dense([1, 2, 3], np.float64)),  # another dtype
    lambda: (dense([[1, 2, 3]]), dense([1, 2, 3])),              # another rank (broadcast)
])
def test_a_call_with_another_signature_runs_infer_meta(count_elementwise, other):
    G.add(dense([1, 2, 3]), dense([1, 2, 3]))
    G.add(*other())
    assert len(count_elementwise) == 2 and len(G._add_seen) == 2


def test_a_bad_call_after_a_good_one_raises_as_before_and_is_not_remembered(count_elementwise):
    G.add(dense([1, 2, 3]), dense([1, 2, 3]))
    with pytest.raises(InvalidArgumentError, match="add: .*cannot be broadcast"):
        G.add(dense([1, 2, 3]), dense([1, 2]))
    with pytest.raises(InvalidArgumentError, match="expected the same dtype"):
        G.add(dense([1, 2, 3]), dense([1, 2, 3], np.float64))
    for _ in range(2):  # a bad call is never remembered: it fails the same way again
        with pytest.raises(InvalidArgumentError, match="cannot be broadcast"):
            G.add(dense([1, 2, 3]), dense([1, 2]))
    assert len(G._add_seen) == 1


def test_eager_errors_are_unchanged_after_a_remembered_call():
    a = eager.to_tensor(np.ones(3, np.float32))
    a + a
    with pytest.raises(InvalidArgumentError, match="add: arguments 'x' with shape \\[3\\] and 'y' with shape \\[2\\]"):
        a + eager.to_tensor(np.ones(2, np.float32))


def test_attribute_types_are_part_of_the_signature():
    # embedding's InferMeta refuses a bool padding_idx; True == 1 must not hit the entry of 1.
    ids = DenseTensor(np.array([0, 2], np.int64))
    table = dense(np.arange(12.0).reshape(4, 3))
    G._embedding_seen.clear()
    G.embedding(ids, table, 1, False)
    G.embedding(ids, table, 1, False)
    assert len(G._embedding_seen) == 1
    with pytest.raises(InvalidArgumentError, match="padding_idx"):
        G.embedding(ids, table, True, False)


def test_attributes_infer_meta_does_not_read_are_left_out_and_still_reach_the_kernel(monkeypatch):
    calls = []
    original = phi.infermeta.unchanged_infer_meta
    monkeypatch.setattr(phi.infermeta, "unchanged_infer_meta", lambda *a: (calls.append(a), original(*a))[1])
    G._scale_seen.clear()
    x = dense([1, 2])
    np.testing.assert_array_equal(G.scale(x, 2.0, 0.0, True).array, [2, 4])
    np.testing.assert_array_equal(G.scale(x, 3.0, 1.0, False).array, [6, 9])
    assert len(calls) == 1


def test_an_unhashable_attribute_runs_every_check_and_is_not_remembered():
    x = dense(np.arange(6.0).reshape(2, 3))
    G._transpose_seen.clear()
    for _ in range(2):
        assert G.transpose(x, [1, 0]).dims == (3, 2)  # a list: unhashable
    assert len(G._transpose_seen) == 0
    assert G.transpose(x, (1, 0)).dims == (3, 2)
    assert len(G._transpose_seen) == 1


def test_a_selected_rows_input_takes_its_kernel_even_after_a_dense_call_of_the_same_shape():
    value = dense(np.arange(6.0).reshape(2, 3), np.float64)
    rows = SelectedRows(np.array([0, 2]), value, 3)
    G.scale(value, 2.0, 0.0, True)
    G.scale(value, 2.0, 0.0, True)
    out = G.scale(rows, 2.0, 0.0, True)
    assert type(out) is SelectedRows and out.rows.tolist() == [0, 2]
    np.testing.assert_array_equal(out.value.array, value.array * 2)


def test_every_other_tensor_kind_refuses_array():
    # The signature reads `.array`: a kind without a dense array must raise there,
    # so that its call takes the full path (which selects the kernel of its kind).
    def kinds(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from kinds(sub)

    for kind in kinds(TensorBase):
        if kind is DenseTensor:
            continue
        attr = getattr(kind, "array", None)
        assert attr is None or isinstance(attr, property), kind
    rows = SelectedRows(np.array([0]), dense([[1.0]]), 2)
    with pytest.raises(Exception, match="no kernel for a SelectedRows input"):
        rows.array


def test_check_infer_meta_checks_every_remembered_call(monkeypatch, count_elementwise):
    checked = []
    monkeypatch.setattr(G, "verify_infer_meta", lambda op, metas, arrays: checked.append((op, arrays)))
    monkeypatch.setattr(G.FLAGS, "check_infer_meta", True)
    for _ in range(3):
        G.add(dense([1, 2]), dense([3, 4]))
    assert len(count_elementwise) == 1 and [op for op, _ in checked] == ["add"] * 3


def test_check_infer_meta_catches_a_result_that_disagrees_with_the_remembered_meta(monkeypatch):
    monkeypatch.setattr(G.FLAGS, "check_infer_meta", True)
    G._add_seen.clear()
    G.add(dense([1, 2]), dense([3, 4]))
    (signature, (kernel, array_type, metas)), = G._add_seen.items()
    G._add_seen[signature] = (lambda x, y: np.zeros(5, np.float32), array_type, metas)  # a wrong kernel
    try:
        with pytest.raises(PreconditionNotMetError, match="add: output 0 is paddle.float32\\[5\\] but InferMeta said"):
            G.add(dense([1, 2]), dense([3, 4]))
    finally:
        G._add_seen.clear()


# -- the cache itself --------------------------------------------------------------------

def test_the_cache_is_bounded_and_drops_the_oldest_first():
    cache = SignatureCache("op", capacity=3)
    for n in range(5):
        cache.remember((n,), n)
    assert list(cache) == [(2,), (3,), (4,)]
    SignatureCache("op", capacity=0).remember((1,), 1)
    assert len(SignatureCache("op", capacity=0)) == 0


def test_shape_varying_calls_keep_at_most_capacity_entries():
    previous = set_signature_cache_capacity(4)
    try:
        assert G._add_seen.capacity == 4 and len(G._add_seen) == 0
        for n in range(1, 20):
            np.testing.assert_array_equal(G.add(dense(np.ones(n)), dense(np.ones(n))).array, np.full(n, 2.0))
        assert len(G._add_seen) == 4
    finally:
        assert set_signature_cache_capacity(previous) == 4
    assert G._add_seen.capacity == previous


def test_capacity_zero_remembers_nothing(count_elementwise):
    previous = set_signature_cache_capacity(0)
    try:
        for _ in range(3):
            G.add(dense([1.0]), dense([2.0]))
        assert len(count_elementwise) == 3 and len(G._add_seen) == 0
    finally:
        set_signature_cache_capacity(previous)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "8"])
def test_capacity_must_be_a_non_negative_int(bad):
    with pytest.raises(ValueError, match="capacity"):
        set_signature_cache_capacity(bad)


def k_first(ctx, x):
    return ("first", x)


def k_second(ctx, x):
    return ("second", x)


def test_registering_a_kernel_empties_the_signature_caches_of_its_name():
    f = KernelFactory()
    f.register("k", k_first, [Backend.ALL_BACKEND], ["float32"])
    mine, other = f.signature_cache("k"), f.signature_cache("j")
    mine.remember(("sig",), "entry")
    other.remember(("sig",), "entry")
    f.register("k", k_second, [Backend.CPU], ["float32"])
    assert len(mine) == 0 and len(other) == 1
    assert mine in f.signature_caches() and other in f.signature_caches()


def test_the_generated_caches_are_emptied_by_registration_on_kernels():
    assert G._add_seen in KERNELS.signature_caches()
    assert G._add_seen in KERNELS._signature_caches["add"]


# -- kernels that only forward to ctx.xp --------------------------------------------------

def fwd_add(ctx, x, y):
    return ctx.xp.add(x, y)


def fwd_tanh(ctx, x):
    """With a docstring."""
    return ctx.xp.tanh(x)


def swapped(ctx, x, y):
    return ctx.xp.add(y, x)


def more(ctx, x):
    return ctx.xp.tanh(x).astype(x.dtype)


def defaulted(ctx, x, y=1):
    return ctx.xp.add(x, y)


def keyword(ctx, x, y):
    return ctx.xp.add(x, y, dtype=None)


def other_attr(ctx, x):
    return ctx.np.tanh(x)


def global_call(ctx, x):
    return np.tanh(x)


def test_forwarding_kernels_are_recognised():
    assert forwarded_xp_function(fwd_add) == "add"
    assert forwarded_xp_function(fwd_tanh) == "tanh"


@pytest.mark.parametrize("fn", [swapped, more, defaulted, keyword, other_attr, global_call, len])
def test_kernels_doing_anything_more_are_not(fn):
    assert forwarded_xp_function(fn) is None


def test_a_forwarding_kernel_is_bound_as_the_xp_function_and_others_as_before():
    f = KernelFactory()
    f.register("fa", fwd_add, [Backend.ALL_BACKEND], ["float32"])
    f.register("sw", swapped, [Backend.ALL_BACKEND], ["float32"])
    key = (np.ndarray, np.dtype(np.float32))
    assert f.dispatch_table("fa")[key] is np.add
    bound = f.dispatch_table("sw")[key]
    assert bound is not np.add and bound.func is swapped
    assert G._add_kernel[key] is np.add


def test_a_call_whose_cpu_scalar_was_moved_to_the_gpu_is_not_remembered():
    # same_place moves a 0-d CPU tensor beside GPU tensors; the call's own
    # signature (a CPU array type) must not be remembered with the GPU kernel.
    gpu = eager.to_tensor([1.0, 2.0]).cuda()
    two = eager.to_tensor(2.0)
    G._multiply_seen.clear()
    for _ in range(3):
        out = gpu * two
        assert out.place == gpu.place
        np.testing.assert_array_equal(out.numpy(), [2.0, 4.0])
    assert all(len({item for item in signature if item in (np.ndarray, type(gpu.impl.array))}) == 1
               for signature in G._multiply_seen)
