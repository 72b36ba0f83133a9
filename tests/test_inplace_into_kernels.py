"""The non-elementwise inplace ops (Tensor.__setitem__/setitem_, cumsum_, cumprod_,
masked_fill_, scatter_, put_along_axis_, index_add_, index_put_, tril_, triu_,
fill_, zero_) write into the target's own buffer (their kernels' into=,
KernelFactory.writes_into), on the CPU and on the GPU (tests/fake_cupy.py):
values against NumPy or hand-written loops, the out-of-place op's bits, the same
array object and one version bump afterwards, inputs that share the target's
memory, strided targets, gradients by finite differences, failures that leave
the target as it was, and no temporary of the target's size."""
import tracemalloc

import numpy as np
import pytest

import eager
from eager.api_gen.render import BACKWARD_YAML, OPS_YAML, into_ops, load_specs
from eager.autograd import gradcheck
from phi.kernels.funcs import apart
from phi.core import KERNELS

from conftest import REAL_GPU

RNG = np.random.default_rng(1414)
CONVERTED = ("setitem", "cumsum", "cumprod", "masked_fill", "scatter", "put_along_axis", "index_add",
             "index_put", "tril", "triu", "fill", "zero")


def _t(a):
    return eager.to_tensor(np.asarray(a))


def _bits(a):
    return np.ascontiguousarray(a).tobytes()


def _cumulative(a, axis, combine):
    """A scan by hand: each element combined with the running value before it."""
    out = np.array(a, dtype=a.dtype)
    moved = np.moveaxis(out, axis, 0)
    for k in range(1, moved.shape[0]):
        moved[k] = combine(moved[k - 1], moved[k])
    return out


def _scatter_ref(a, index, updates, overwrite):
    out = a.copy()
    if overwrite:
        for i, row in zip(index, updates):
            out[i] = row  # the last of a repeated index stays
    else:
        for i in set(index.tolist()):
            out[i] = 0
        for i, row in zip(index, updates):
            out[i] += row
    return out


def _put_along_ref(a, indices, values, axis, reduce):
    """put_along_axis on a 2-d array by hand, values broadcast to the indices."""
    out = a.copy()
    values = np.broadcast_to(values, indices.shape)
    for r in range(indices.shape[0]):
        for c in range(indices.shape[1]):
            place = (r, indices[r, c]) if axis == 1 else (indices[r, c], c)
            if reduce == "assign":
                out[place] = values[r, c]
            elif reduce == "add":
                out[place] += values[r, c]
            else:
                out[place] *= values[r, c]
    return out


def _index_add_ref(a, index, value, axis):
    out = a.copy()
    for k, i in enumerate(index):
        if axis == 0:
            out[i] += value[k]
        else:
            out[:, i] += value[:, k]
    return out


def _triangle_ref(a, diagonal, lower):
    out = a.copy()
    for i in range(a.shape[-2]):
        for j in range(a.shape[-1]):
            if (j - i > diagonal) if lower else (j - i < diagonal):
                out[..., i, j] = 0
    return out


A = RNG.uniform(-2, 2, (4, 5))
MASK = RNG.integers(0, 2, (4, 5)).astype(bool)
IDX = np.array([2, 0, 2], "int64")
ROWS = RNG.uniform(-1, 1, (3, 5))
ALONG = np.array([[0, 4], [1, 1], [3, 2], [4, 0]], "int64")
VALS = RNG.uniform(0.5, 1.5, (4, 2))
DISTINCT = np.array([[0, 4], [1, 3], [3, 2]], "int64")
ALONG0 = np.array([[0, 3, 1, 2, 3], [3, 3, 0, 1, 2]], "int64")

# name, the inplace call on x, the out-of-place call, the reference on a (float64 A)
CASES = [
    ("setitem", lambda x: x.__setitem__((slice(1, 3), [0, 4]), _t(ROWS[:2, :2])),
     lambda x: eager.setitem(x, _t(ROWS[:2, :2]), (slice(1, 3), [0, 4])),
     lambda a: _assigned(a, (slice(1, 3), [0, 4]), ROWS[:2, :2])),
    ("setitem-mask", lambda x: x.__setitem__(_t(MASK), 0.5), lambda x: eager.setitem(x, _t(np.float64(0.5)), (MASK,)),
     lambda a: np.where(MASK, 0.5, a)),
    ("cumsum", lambda x: x.cumsum_(axis=1), lambda x: eager.cumsum(x, axis=1),
     lambda a: _cumulative(a, 1, np.add)),
    ("cumsum-0", lambda x: x.cumsum_(axis=-2), lambda x: eager.cumsum(x, axis=-2),
     lambda a: _cumulative(a, 0, np.add)),
    ("cumprod", lambda x: x.cumprod_(dim=0), lambda x: eager.cumprod(x, dim=0),
     lambda a: _cumulative(a, 0, np.multiply)),
    ("masked_fill", lambda x: x.masked_fill_(_t(MASK), 2.5), lambda x: eager.masked_fill(x, _t(MASK), 2.5),
     lambda a: np.where(MASK, 2.5, a)),
    ("masked_fill-row", lambda x: x.masked_fill_(_t(MASK[:1]), _t(ROWS[0])),
     lambda x: eager.masked_fill(x, _t(MASK[:1]), _t(ROWS[0])), lambda a: np.where(MASK[:1], ROWS[0], a)),
    ("scatter", lambda x: x.scatter_(_t(IDX), _t(ROWS)), lambda x: eager.scatter(x, _t(IDX), _t(ROWS)),
     lambda a: _scatter_ref(a, IDX, ROWS, True)),
    ("scatter-add", lambda x: x.scatter_(_t(IDX), _t(ROWS), overwrite=False),
     lambda x: eager.scatter(x, _t(IDX), _t(ROWS), overwrite=False), lambda a: _scatter_ref(a, IDX, ROWS, False)),
    ("put_along_axis", lambda x: x.put_along_axis_(_t(ALONG), _t(VALS), 1),
     lambda x: eager.put_along_axis(x, _t(ALONG), _t(VALS), 1), lambda a: _put_along_ref(a, ALONG, VALS, 1, "assign")),
    ("put_along_axis-add", lambda x: x.put_along_axis_(_t(ALONG), _t(VALS), 1, "add"),
     lambda x: eager.put_along_axis(x, _t(ALONG), _t(VALS), 1, "add"),
     lambda a: _put_along_ref(a, ALONG, VALS, 1, "add")),
    ("put_along_axis-mul", lambda x: x.put_along_axis_(_t(ALONG0), 1.5, 0, "mul"),
     lambda x: eager.put_along_axis(x, _t(ALONG0), 1.5, 0, "mul"), lambda a: _put_along_ref(a, ALONG0, 1.5, 0, "mul")),
    ("index_add", lambda x: x.index_add_(_t(IDX), 0, _t(ROWS)), lambda x: eager.index_add(x, _t(IDX), 0, _t(ROWS)),
     lambda a: _index_add_ref(a, IDX, ROWS, 0)),
    ("index_add-1", lambda x: x.index_add_(_t(IDX), 1, _t(ROWS[:, :4].T)),
     lambda x: eager.index_add(x, _t(IDX), 1, _t(ROWS[:, :4].T)), lambda a: _index_add_ref(a, IDX, ROWS[:, :4].T, 1)),
    ("index_put", lambda x: x.index_put_((_t(IDX[1:]), _t([1, 3])), _t(ROWS[0, :2])),
     lambda x: eager.index_put(x, (_t(IDX[1:]), _t([1, 3])), _t(ROWS[0, :2])),
     lambda a: _assigned(a, (IDX[1:], [1, 3]), ROWS[0, :2])),
    ("index_put-acc", lambda x: x.index_put_((_t(IDX),), _t(ROWS[0]), True),
     lambda x: eager.index_put(x, (_t(IDX),), _t(ROWS[0]), True),
     lambda a: _index_add_ref(a, IDX, np.broadcast_to(ROWS[0], (3, 5)), 0)),
    ("index_put-mask", lambda x: x.index_put_((_t(MASK),), _t(np.float64(0.5))),
     lambda x: eager.index_put(x, (_t(MASK),), _t(np.float64(0.5))), lambda a: np.where(MASK, 0.5, a)),
    ("index_put-mixed", lambda x: x.index_put_((_t([True, False, True, True]), _t([0, 2, 4])), _t(ROWS[0, :3])),
     lambda x: eager.index_put(x, (_t([True, False, True, True]), _t([0, 2, 4])), _t(ROWS[0, :3])),
     lambda a: _assigned(a, ([0, 2, 3], [0, 2, 4]), ROWS[0, :3])),
    ("tril", lambda x: x.tril_(), lambda x: eager.tril(x), lambda a: _triangle_ref(a, 0, True)),
    ("tril-1", lambda x: x.tril_(-1), lambda x: eager.tril(x, -1), lambda a: _triangle_ref(a, -1, True)),
    ("triu", lambda x: x.triu_(2), lambda x: eager.triu(x, 2), lambda a: _triangle_ref(a, 2, False)),
    ("fill", lambda x: x.fill_(-0.25), lambda x: eager.fill(x, -0.25), lambda a: np.full_like(a, -0.25)),
    ("zero", lambda x: x.zero_(), lambda x: eager.zero(x), lambda a: np.zeros_like(a)),
]


def _assigned(a, index, value):
    out = a.copy()
    out[index] = value
    return out


def _check_written_in_place(x, buffer, version, expected_bits, reference):
    assert x.impl.array is buffer  # the same array object: written in place
    assert x.inplace_version == version + 1
    assert _bits(x.numpy()) == expected_bits  # the out-of-place op's bits
    np.testing.assert_allclose(x.numpy(), reference, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,inplace,out_of_place,reference", CASES, ids=[c[0] for c in CASES])
def test_inplace_op_writes_into_x(device, name, inplace, out_of_place, reference):
    x = _t(A)
    expected_bits = _bits(out_of_place(_t(A)).numpy())
    buffer, version = x.impl.array, x.inplace_version
    result = inplace(x)
    assert result is None if name.startswith("setitem") else result is x
    _check_written_in_place(x, buffer, version, expected_bits, reference(A))


@pytest.mark.parametrize("dtype", ["int8", "int64", "bool", "float16", "complex64"])
def test_fill_and_zero_cast_as_full_does(device, dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    value = {"int8": -7, "int64": 2 ** 40, "bool": True, "float16": 0.1, "complex64": 1 - 2j}[dtype]
    x = _t(a)
    buffer = x.impl.array
    x.fill_(value)
    assert x.impl.array is buffer and x.numpy().dtype == np.dtype(dtype)
    assert _bits(x.numpy()) == _bits(np.full((2, 3), value, dtype)) == _bits(eager.fill(_t(a), value).numpy())
    x.zero_()
    assert x.impl.array is buffer and _bits(x.numpy()) == _bits(np.zeros((2, 3), dtype))


def test_integer_scans_and_batched_triangles(device):
    i = np.array([[3, -1, 2], [5, 0, -4]], "int32")
    x = _t(i)
    buffer = x.impl.array
    x.cumsum_(axis=1)
    x.cumprod_(dim=0)
    expected = _cumulative(_cumulative(i, 1, np.add), 0, np.multiply)
    assert x.impl.array is buffer and x.numpy().dtype == np.int32
    np.testing.assert_array_equal(x.numpy(), expected)
    v = _t(np.array([1.5, 2.0, -1.0], "float32"))  # 1-d and axis=None: the flattened scan is x's shape
    v.cumsum_()
    np.testing.assert_array_equal(v.numpy(), np.array([1.5, 3.5, 2.5], "float32"))
    b = RNG.uniform(1, 2, (2, 3, 4))
    t = _t(b)
    buffer = t.impl.array
    t.triu_(-1)
    assert t.impl.array is buffer
    np.testing.assert_array_equal(t.numpy(), _triangle_ref(b, -1, False))


def test_inputs_sharing_the_targets_memory_are_read_before_it_is_written(device):
    x = _t(A)
    x[1:] = x[:-1]  # overlapping views of one buffer: x[:-1]'s old values
    np.testing.assert_array_equal(x.numpy(), np.concatenate([A[:1], A[:-1]]))
    x = _t(A)
    x.scatter_(_t(np.array([1, 3])), x[:2])  # updates are x's first rows, read before rows 1, 3 change
    np.testing.assert_array_equal(x.numpy(), _scatter_ref(A, np.array([1, 3]), A[:2], True))
    x = _t(A)
    x.scatter_(_t(np.array([0, 1])), x[:2], overwrite=False)  # zeroing rows 0, 1 must not zero the updates
    np.testing.assert_array_equal(x.numpy(), _scatter_ref(A, np.array([0, 1]), A[:2], False))
    x = _t(A)
    x.index_add_(_t(np.array([1, 2, 3])), 0, x[:3])
    np.testing.assert_allclose(x.numpy(), _index_add_ref(A, [1, 2, 3], A[:3], 0), rtol=1e-15)
    x = _t(A)
    x.masked_fill_(_t(MASK), x[0])  # value is x's first row, broadcast
    np.testing.assert_array_equal(x.numpy(), np.where(MASK, A[0], A))
    x = _t(A)
    x.index_put_((_t(np.array([0, 2])),), x[1], True)
    np.testing.assert_allclose(x.numpy(), _index_add_ref(A, [0, 2], np.stack([A[1], A[1]]), 0), rtol=1e-15)
    x = _t(A)
    x.put_along_axis_(_t(ALONG), x[:, 1:3], 1)
    np.testing.assert_array_equal(x.numpy(), _put_along_ref(A, ALONG, A[:, 1:3], 1, "assign"))
    i = _t(np.array([2, 0, 1, 3], "int64"))
    i[i[:2]] = i[2:]  # index and value both views of the target: i[[2, 0]] = [1, 3]
    np.testing.assert_array_equal(i.numpy(), [3, 0, 1, 3])


def test_an_index_that_is_the_targets_own_buffer():
    i = _t(np.array([3, 0, 2, 1], "int64"))
    index = i.numpy()  # on the CPU this is i's own buffer, which the assignment changes
    i[index] = _t(np.array([7, 8, 9, 6], "int64"))
    expected = np.array([3, 0, 2, 1])
    expected[[3, 0, 2, 1]] = [7, 8, 9, 6]
    np.testing.assert_array_equal(i.numpy(), expected)


def test_strided_targets_write_through_to_their_base(device):
    base = _t(np.arange(1.0, 25.0).reshape(4, 6))
    view = base[:, ::2]
    view.cumsum_(axis=1)
    view.put_along_axis_(_t(np.array([[2], [0], [1], [2]])), 2.0, 1, "mul")
    view.tril_()
    expected = np.arange(1.0, 25.0).reshape(4, 6)
    part = _cumulative(expected[:, ::2], 1, np.add)
    part = _put_along_ref(part, np.array([[2], [0], [1], [2]]), 2.0, 1, "mul")
    expected[:, ::2] = _triangle_ref(part, 0, True)
    np.testing.assert_array_equal(base.numpy(), expected)
    assert base.inplace_version == 3


def _fresh(a):
    return eager.to_tensor(a, stop_gradient=False)


GRAD_CASES = [  # functions of float64 leaves that modify a non-leaf in place
    ("setitem", lambda w, v: _setitem(w * 1.0, (slice(1, 3), 2), v[:2, 0] * 2.0)),
    ("cumsum", lambda w, v: (w * v).cumsum_(axis=1)),
    ("cumprod", lambda w, v: (w * 1.0).cumprod_(dim=0) * v),
    ("masked_fill", lambda w, v: (w * 1.0).masked_fill_(_t(MASK[:3]), v[0, 0] * 3.0)),
    ("scatter", lambda w, v: (w * 1.0).scatter_(_t(np.array([2, 0])), v[:2] * 1.0)),
    ("scatter-add", lambda w, v: (w * 1.0).scatter_(_t(np.array([2, 2])), v[:2] * 1.0, overwrite=False)),
    # distinct places: with a repeated one, assign's gradient follows Paddle's rule, not the maths
    ("put_along_axis", lambda w, v: (w * 1.0).put_along_axis_(_t(DISTINCT), v[:, :2] * 1.0, 1)),
    ("put_along_axis-mul", lambda w, v: (w * 1.0).put_along_axis_(_t(ALONG[:3]), v[:, :2] * 1.0, 1, "mul")),
    ("index_add", lambda w, v: (w * 1.0).index_add_(_t(np.array([1, 1])), 0, v[:2] * 1.0)),
    ("index_put", lambda w, v: (w * 1.0).index_put_((_t(np.array([0, 2])),), v[0] * 1.0)),
    ("tril", lambda w, v: (w * v).tril_(1)),
    ("triu", lambda w, v: (w * v).triu_()),
    ("fill", lambda w, v: (w * 1.0).fill_(3.0) * v),
    ("zero", lambda w, v: (w * 1.0).zero_() + v * w),
    ("view", lambda w, v: _through_view(w * 1.0, v)),
]


def _setitem(t, index, value):
    t[index] = value
    return t


def _through_view(h, v):
    h[1:, ::2].cumsum_(axis=0)  # a view of a non-leaf: the base's history is rebased
    h[0].scatter_(_t(np.array([4])), v[0, :1] * 1.0)
    return h * v


@pytest.mark.parametrize("name,fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_finite_differences(name, fn):
    w = _fresh(RNG.uniform(0.5, 1.5, (3, 5)))
    v = _fresh(RNG.uniform(0.5, 1.5, (3, 5)))
    assert gradcheck(fn, (w, v))


def test_a_saved_input_is_snapshotted_and_a_later_write_is_caught():
    w = _fresh(RNG.uniform(0.5, 1.5, (3, 4)))
    y = w * 1.0
    y.cumprod_(dim=1)  # cumprod's backward needs the old x: saved before the kernel writes
    y.sum().backward()
    a = w.numpy()
    expected = np.stack([sum(np.prod(np.delete(a[r, :k + 1], j)) for k in range(j, 4)) for r in range(3)
                         for j in range(4)]).reshape(3, 4)
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-12)
    y = w * 1.0
    out = (y * y).sum()  # saves y
    with eager.no_grad():
        y.zero_()
    with pytest.raises(Exception, match="version"):
        out.backward()


def _failing_calls():
    return [
        (lambda x: x.scatter_(_t(np.array([0, 9])), _t(ROWS[:2])), IndexError, r"scatter.*index.*\[0, 4\).*9"),
        (lambda x: x.index_add_(_t(np.array([-1])), 0, _t(ROWS[:1])), IndexError, r"index_add.*\[0, 4\).*-1"),
        (lambda x: x.put_along_axis_(_t(np.array([[0], [7], [0], [0]])), 1.0, 1), IndexError,
         r"put_along_axis.*indices.*7"),
        (lambda x: x.index_put_((_t(np.array([1, 4])),), _t(ROWS[0])), IndexError, r"index_put.*indices.*4"),
        (lambda x: x.__setitem__((slice(None), 7), 1.0), IndexError, r"setitem.*index"),
        (lambda x: x.__setitem__(slice(0, 2), _t(ROWS)), ValueError, r"setitem.*value.*\[3, 5\].*\[2, 5\]"),
        (lambda x: x.masked_fill_(_t(MASK.astype("int32")), 1.0), (TypeError, ValueError), r"masked_fill.*mask"),
        (lambda x: x.cumsum_(), ValueError, r"cumsum_: the result has shape \[20\]"),
        (lambda x: x.cumsum_(axis=0, dtype="float32"), TypeError, r"cumsum_: the result is paddle.float32"),
        (lambda x: x.scatter_(_t(IDX), _t(ROWS[:, :4])), ValueError, r"scatter.*updates.*\[3, 5\]"),
        (lambda x: x.reshape([20]).tril_(), ValueError, r"tril.*at least 2 dimensions"),
    ]


@pytest.mark.parametrize("case", range(len(_failing_calls())))
def test_a_failed_call_leaves_x_and_its_version_as_they_were(device, case):
    call, error, text = _failing_calls()[case]
    x = _t(A)
    buffer = x.impl.array
    with eager.autograd.detect_anomaly():  # range checks read the GPU only in anomaly mode
        with pytest.raises(error, match=text):
            call(x)
    assert x.impl.array is buffer
    np.testing.assert_array_equal(x.numpy(), A)
    assert x.inplace_version == 0


def test_fill_refuses_a_value_out_of_range():
    x = _t(np.zeros(3, "int8"))
    with pytest.raises(ValueError, match=r"fill.*value.*int8.*300"):
        x.fill_(300)
    np.testing.assert_array_equal(x.numpy(), np.zeros(3))
    assert x.inplace_version == 0


def test_no_temporary_of_the_targets_size():
    a = RNG.uniform(0.5, 1, (256, 512))
    x = _t(a)
    mask, value = _t(a > 0.75), _t(np.float64(0.5))
    idx, rows = _t(np.array([1, 7, 200])), _t(RNG.uniform(size=(3, 512)))
    along, vals = _t(RNG.integers(0, 512, (256, 2))), _t(RNG.uniform(size=(256, 2)))
    calls = [lambda: x.__setitem__((slice(0, 8), slice(None)), value), lambda: x.cumsum_(axis=1),
             lambda: x.cumprod_(dim=0), lambda: x.masked_fill_(mask, value), lambda: x.scatter_(idx, rows),
             lambda: x.scatter_(idx, rows, overwrite=False), lambda: x.put_along_axis_(along, vals, 1),
             lambda: x.put_along_axis_(along, vals, 1, "mul"), lambda: x.index_add_(idx, 0, rows),
             lambda: x.index_put_((idx,), rows), lambda: x.fill_(0.5), lambda: x.zero_()]
    for call in calls + [x.tril_, x.triu_]:  # the first calls select and remember
        call()
    tracemalloc.start()
    try:
        for call in calls:
            tracemalloc.reset_peak()
            call()
            assert tracemalloc.get_traced_memory()[1] < a.nbytes // 8  # a copying path allocates a.nbytes
        for call in (x.tril_, x.triu_):
            tracemalloc.reset_peak()
            call()
            # the boolean mask (a.nbytes / 8) and the comparison's buffer making it
            assert tracemalloc.get_traced_memory()[1] < a.nbytes // 3
    finally:
        tracemalloc.stop()


@pytest.mark.skipif(REAL_GPU, reason="counts calls with tests/fake_cupy.py's counter")
def test_gpu_inplace_writes_without_a_copy(device):
    if device != "gpu":
        pytest.skip("counts calls into CuPy")
    fake_cupy = pytest.importorskip("fake_cupy")
    x = _t(A)
    mask, two, idx, rows, part = _t(MASK), _t(np.float64(2.0)), _t(np.array([0, 2])), _t(ROWS[:2]), _t(ROWS[:2, :2])
    calls = {  # the writes themselves: no result array, no copy back into x
        "fill_": (lambda: x.fill_(0.5), 1), "zero_": (lambda: x.zero_(), 1),
        "masked_fill_": (lambda: x.masked_fill_(mask, two), 1), "scatter_": (lambda: x.scatter_(idx, rows), 5),  # 5: each row's last update (see _scatter_rows)
        "setitem": (lambda: x.__setitem__((slice(0, 2), slice(1, 3)), part), 1),
    }
    for name, (call, count) in calls.items():
        call()  # selects and remembers
        before = fake_cupy.calls[0]
        buffer = x.impl.array
        call()
        assert x.impl.array is buffer
        assert fake_cupy.calls[0] - before == count, name


def test_every_inplace_op_has_an_into_twin():
    forward, _ = load_specs(OPS_YAML, BACKWARD_YAML)
    inplace = {op.name for op in forward if op.inplace is not None}
    twins = into_ops(forward)
    assert set(CONVERTED) <= set(twins) and all(KERNELS.writes_into(name) for name in CONVERTED)
    assert inplace == set(twins), sorted(inplace - set(twins))
    assert twins["put_along_axis"] == "arr"


def test_apart_copies_exactly_what_may_share_the_targets_memory():
    base = np.arange(12.0).reshape(3, 4).copy()  # owns its memory (base None)
    other = base.copy()
    for overlapping in (base, base[1:], base[:, ::2], base.T, base.reshape(-1)[3:7]):
        copied = apart(np, base, overlapping)
        assert copied is not overlapping and not np.shares_memory(copied, base)
        np.testing.assert_array_equal(copied, overlapping)
    assert apart(np, base, other) is other  # two arrays that own their memory: no check, no copy
    view = base[2:]  # views of one buffer that do not overlap
    assert apart(np, base[:1], view) is view


def test_set_value_fills_a_tensor_that_holds_no_data(device):
    """Paddle's set_value on a tensor without data (create_tensor,
    Layer.create_variable): the value must have the shape ([]) and dtype it was
    made with, and the very DenseTensor (and any get_tensor() handle) takes a
    copy of it, on the tensor's device; other shapes and dtypes are refused,
    before anything changes."""
    t = eager.tensor.create_tensor("float64")
    impl, handle = t.impl, t.get_tensor()
    with pytest.raises(ValueError, match=r"set_value: argument 'value' expected shape \[\], got \[2, 3\] "
                                         r"\(this tensor holds no data"):
        t.set_value(np.ones((2, 3)))
    with pytest.raises(TypeError, match="set_value: argument 'value' expected dtype paddle.float64, got "
                                        "paddle.float32"):
        t.set_value(np.array(1.0, dtype="float32"))
    with pytest.raises(TypeError, match="set_value: argument 'value' expected a Tensor with data"):
        t.set_value(eager.tensor.create_tensor("float64"))
    assert not handle._is_initialized() and repr(t) == "Tensor(Not initialized)"
    value = np.array(2.5)
    assert t.set_value(value) is t
    assert t.impl is impl and handle._is_initialized() and t.shape == [] and t.dtype == eager.float64
    assert t.place == eager.CPUPlace() if device == "cpu" else t.place.is_gpu_place()
    value[()] = 9.0                                      # a copy, not the caller's array
    assert t.item() == 2.5
    source = eager.to_tensor(4.0, dtype="float64")
    keep = eager.nn.Linear(2, 2).create_variable(dtype="float64")
    assert keep.set_value(source) is keep and keep.item() == 4.0
    source.set_value(np.array(5.0))                      # a copy of the Tensor too
    assert keep.item() == 4.0
    keep.set_value(np.array(6.0))                        # now it has data: an ordinary overwrite
    assert keep.item() == 6.0


def test_set_value_from_a_host_array_is_one_copy_into_the_buffer(device):
    w = _t(A)
    buffer, version = w.impl.array, w.inplace_version
    new = RNG.uniform(size=A.shape)
    assert w.set_value(new) is w
    assert w.impl.array is buffer and w.inplace_version == version + 1
    np.testing.assert_array_equal(w.numpy(), new)
    kept = new.copy()
    new[0, 0] = 7.0  # the tensor holds a copy, not the caller's array
    np.testing.assert_array_equal(w.numpy(), kept)
    if device != "cpu":
        return
    w.set_value(w.numpy()[::-1])  # the buffer itself, reversed: read before it is written
    np.testing.assert_array_equal(w.numpy(), kept[::-1])
    big = _t(np.zeros((256, 512)))
    fresh = RNG.uniform(size=(256, 512))
    big.set_value(fresh)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        big.set_value(fresh)
        assert tracemalloc.get_traced_memory()[1] < fresh.nbytes // 8  # no copy of the array on the way in
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(big.numpy(), fresh)


@pytest.mark.parametrize("index,value_shape", [((0, 0), [1]), ((0, 0), [1, 1]), ((1,), [1, 1, 3]),
                                               ((slice(0, 1), 2), [1, 1])])
def test_a_value_with_extra_leading_ones_is_assigned_as_paddle_does(device, index, value_shape):
    # InferMeta lets a value's leading size-1 dimensions drop (x[0, 0] = ones([1]));
    # NumPy itself refuses a value of rank > 0 into one element.
    x = eager.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3), place=device)
    value = np.full(value_shape, 7.0, np.float32)
    ref = x.numpy().copy()
    ref[index] = value.reshape(value.shape[value.ndim - ref[index].ndim:]) if ref[index].ndim else value.item()
    x[index] = eager.to_tensor(value, place=device)
    np.testing.assert_array_equal(x.numpy(), ref)
    out = eager.zeros([2, 3])
    out.stop_gradient = False
    y = out * 1.0
    v = eager.to_tensor(value, stop_gradient=False)
    y[index] = v
    y.sum().backward()
    assert v.grad.shape == value_shape
    np.testing.assert_array_equal(v.grad.numpy(), np.full(value_shape, ref[index].size / value.size))
