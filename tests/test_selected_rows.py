"""SelectedRows, the second TensorBase, and kernels selected by tensor kind."""
import numpy as np
import pytest

import eager
from eager.autograd import PyLayer
from phi import api as phi_api
from phi.common import Backend, DataLayout, DataType, TensorKind
from phi.core import (
    DenseTensor, InvalidArgumentError, KernelFactory, KernelKey, NotFoundError, SelectedRows,
    UnimplementedError,
)

rng = np.random.default_rng(5)


def rows_of(rows, height=6, width=3):
    value = rng.normal(size=(len(rows), width))
    return SelectedRows(np.array(rows, np.int64), DenseTensor(value), height)


def dense_of(sr) -> np.ndarray:
    out = np.zeros(sr.dims)
    np.add.at(out, sr.rows, sr.value.array)  # the reference: repeated rows add
    return out


def test_dims_dtype_place_and_kind():
    sr = rows_of([4, 1, 4])
    assert sr.dims == (6, 3) and sr.numel == 18 and sr.dtype is DataType.FLOAT64
    assert sr.kind is TensorKind.SELECTED_ROWS and DenseTensor(np.zeros(1)).kind is TensorKind.DENSE
    assert sr.place == DenseTensor(np.zeros(1)).place and sr.initialized()
    assert "rows=3, height=6" in repr(sr)


@pytest.mark.parametrize("rows, value, height, message", [
    (np.array([[0]]), np.zeros((1, 2)), 3, "1-D integer array"),
    (np.array([0.5]), np.zeros((1, 2)), 3, "1-D integer array"),
    (np.array([0, 1]), np.zeros((3, 2)), 3, "2 entries but 'value' holds 3"),
    (np.array([0, 3]), np.zeros((2, 2)), 3, r"lie in \[0, 3\)"),
    (np.array([-1]), np.zeros((1, 2)), 3, r"lie in \[0, 3\)"),
    (np.array([0]), np.zeros((1, 2)), -1, "'height' expected an int >= 0"),
])
def test_construction_is_checked(rows, value, height, message):
    with pytest.raises(InvalidArgumentError, match=message):
        SelectedRows(rows, DenseTensor(value), height)


def test_to_dense_and_merge_against_numpy():
    sr = rows_of([4, 1, 4, 0])
    np.testing.assert_allclose(phi_api.selected_rows_to_dense(sr).array, dense_of(sr))
    merged = phi_api.merge_selected_rows(sr)
    assert merged.rows.tolist() == [0, 1, 4]
    np.testing.assert_allclose(dense_of(merged), dense_of(sr))


def test_accumulate_dense_plus_rows_in_place():
    acc = DenseTensor(rng.normal(size=(6, 3)))
    before, version = acc.array.copy(), acc.version
    sr = rows_of([2, 2, 5])
    assert phi_api.accumulate_(acc, sr) is acc and acc.version == version + 1
    np.testing.assert_allclose(acc.array, before + dense_of(sr))


def test_accumulate_rows_plus_rows_and_rows_plus_dense():
    a, b = rows_of([1, 3]), rows_of([3, 0])
    both = phi_api.accumulate_(a, b)
    assert both.kind is TensorKind.SELECTED_ROWS and both.rows.tolist() == [1, 3, 3, 0]
    np.testing.assert_allclose(dense_of(both), dense_of(a) + dense_of(b))
    dense = DenseTensor(rng.normal(size=(6, 3)))
    out = phi_api.accumulate_(a, dense)
    assert out.kind is TensorKind.DENSE
    np.testing.assert_allclose(out.array, dense_of(a) + dense.array)


def test_a_mismatch_is_refused_before_anything_is_written():
    acc = DenseTensor(np.zeros((5, 3)))
    with pytest.raises(InvalidArgumentError, match=r"expected paddle.float64\[5, 3\].*got paddle.float64\[6, 3\]"):
        phi_api.accumulate_(acc, rows_of([0]))
    assert not acc.array.any() and acc.version == 0


def test_assign_copies_rows_and_values():
    sr = rows_of([1, 2])
    copy = phi_api.owned_copy(sr)
    assert copy.kind is TensorKind.SELECTED_ROWS
    copy.value.array[...] = 0.0
    copy.rows[0] = 5
    assert sr.rows.tolist() == [1, 2] and sr.value.array.any()


# -- the generated phi API selects the kernel of the input's kind ----------------------

@pytest.mark.parametrize("bias, bias_after_scale", [(0.0, True), (0.5, True), (0.5, False)])
def test_scale_of_rows_runs_the_selected_rows_kernel(bias, bias_after_scale):
    sr = rows_of([3, 0, 3])
    out = phi_api.scale(sr, 2.5, bias, bias_after_scale)
    assert out.kind is TensorKind.SELECTED_ROWS and out.height == 6 and out.dims == (6, 3)
    assert out.rows.tolist() == [3, 0, 3] and not np.shares_memory(out.rows, sr.rows)
    # Paddle's scale_sr: the stored blocks are scaled (and biased), the rows kept.
    value = sr.value.array
    expected = value * 2.5 + bias if bias_after_scale else (value + bias) * 2.5
    np.testing.assert_allclose(out.value.array, expected)
    if bias == 0.0:  # then the rows stand for the scaled dense tensor
        np.testing.assert_allclose(dense_of(out), 2.5 * dense_of(sr))


def test_dense_inputs_still_take_the_dense_kernel():
    x = DenseTensor(np.arange(4.0))
    out = phi_api.scale(x, 2.0, 1.0, True)
    assert out.kind is TensorKind.DENSE
    np.testing.assert_array_equal(out.array, np.arange(4.0) * 2.0 + 1.0)


def test_an_op_with_no_kernel_for_rows_names_the_op_and_the_key():
    with pytest.raises(UnimplementedError, match=r"(?s)^exp: no kernel for a selected_rows input "
                       r"\(exp: no kernel for key \(CPU, ALL_LAYOUT, paddle.float64, selected_rows\).*"
                       r"selected_rows_to_dense.*inputs: x=paddle.float64\[6, 3\]"):
        phi_api.exp(rows_of([0]))


def test_rows_where_a_dense_tensor_selects_the_kernel_are_refused_with_the_op_name():
    dense = DenseTensor(np.zeros((6, 3)))
    with pytest.raises(UnimplementedError, match=r"^add: this op has no kernel for a SelectedRows input"):
        phi_api.add(dense, rows_of([1]))
    with pytest.raises(UnimplementedError, match=r"^concat: no kernel for a selected_rows input"):
        phi_api.concat([rows_of([1]), rows_of([2])], 0)


def test_infer_meta_still_checks_a_rows_input_first():
    with pytest.raises(InvalidArgumentError, match=r"(?s)^add: .*cannot be broadcast.*inputs: x=paddle.float64\[6, 3\], y=paddle.float64\[5, 3\]"):
        phi_api.add(rows_of([1]), DenseTensor(np.zeros((5, 3))))


def test_kernels_are_registered_and_selected_by_kind():
    f = KernelFactory()

    def dense_k(ctx, x):
        return "dense"

    def rows_k(ctx, x):
        return "rows"

    f.register("k", dense_k, [Backend.CPU], ["float32"])
    f.register("k", rows_k, [Backend.CPU], ["float32"], kind=TensorKind.SELECTED_ROWS)
    assert f.select("k", Backend.CPU, DataType.FLOAT32)[0].fn is dense_k
    assert f.select("k", Backend.CPU, DataType.FLOAT32, kind=TensorKind.SELECTED_ROWS)[0].fn is rows_k
    assert KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.FLOAT32,
                     TensorKind.SELECTED_ROWS) in f.kernels("k")
    assert f.dispatch_table("k", TensorKind.SELECTED_ROWS)[np.ndarray, np.dtype("float32")](None) == "rows"
    assert f.dispatch_table("k")[np.ndarray, np.dtype("float32")](None) == "dense"


class SparseLookup(PyLayer):
    """A tiny embedding whose gradient is the rows it looked up (test-only)."""

    @staticmethod
    def forward(ctx, table, ids):
        ctx.ids, ctx.height = ids, table.shape[0]
        return eager.Tensor(DenseTensor(table.numpy()[ids]))

    @staticmethod
    def backward(ctx, grad):
        rows = SelectedRows(np.array(ctx.ids, np.int64), DenseTensor(grad.numpy().copy()), ctx.height)
        return eager.Tensor(rows)


def test_a_sparse_gradient_accumulates_into_a_leaf():
    table = eager.to_tensor(rng.normal(size=(6, 2)), stop_gradient=False)

    def step(ids, weight):
        (SparseLookup.apply(table, ids) * weight).sum().backward()

    step([1, 4], 2.0)
    assert table.grad.impl.kind is TensorKind.SELECTED_ROWS
    step([4, 4], 3.0)                      # rows + rows: side by side
    expected = np.zeros((6, 2))
    expected[1] += 2.0
    expected[4] += 2.0 + 3.0 + 3.0
    np.testing.assert_allclose(table.grad.numpy(), expected)
    table.clear_grad()                     # sparse rows have no buffer to keep
    assert table.grad is None


# -- construction, keys and the registry ----------------------------------------------

class FakeDeviceRows:
    """Stands in for a CuPy int64 array on device 0."""

    ndim, dtype, shape = 1, np.dtype(np.int64), (1,)

    class device:
        id = 0

    def __len__(self):
        return 1


def test_rows_and_value_must_be_on_one_device():
    with pytest.raises(InvalidArgumentError, match=r"one device, got rows on Place\(gpu:0\) and value on "
                                                   r"Place\(cpu\)"):
        SelectedRows(FakeDeviceRows(), DenseTensor(np.zeros((1, 2))), 3)


def test_rows_of_another_integer_type_are_kept_as_int64():
    sr = SelectedRows(np.array([2, 0], np.int32), DenseTensor(np.ones((2, 2))), 3)
    assert sr.rows.dtype == np.int64 and sr.rows.tolist() == [2, 0]


def test_dispatch_key_is_that_of_the_value():
    sr = SelectedRows(np.array([1]), DenseTensor(np.ones((1, 2), np.float32)), 3)
    assert sr.dispatch_key == (np.ndarray, np.dtype(np.float32)) == sr.value.dispatch_key


def test_a_rows_kernel_has_no_cpu_fallback_on_the_gpu():
    # The fallback moves arrays; a SelectedRows kernel takes tensors whose arrays it would not move.
    f = KernelFactory()

    def rows_k(ctx, x):
        return x

    f.register("k", rows_k, [Backend.CPU], ["float32"], kind=TensorKind.SELECTED_ROWS)
    f.register("k", rows_k, [Backend.CPU], ["float32"])
    assert f.select("k", Backend.GPU, DataType.FLOAT32)[1] is True  # dense: falls back
    with pytest.raises(NotFoundError, match=r"no kernel for key \(GPU, ALL_LAYOUT, paddle.float32, selected_rows\)"):
        f.select("k", Backend.GPU, DataType.FLOAT32, kind=TensorKind.SELECTED_ROWS)


def test_merge_of_no_rows_and_conversions_of_the_wrong_kind():
    empty = SelectedRows(np.zeros(0, np.int64), DenseTensor(np.zeros((0, 3))), 4)
    merged = phi_api.merge_selected_rows(empty)
    assert merged.rows.tolist() == [] and merged.dims == (4, 3)
    np.testing.assert_array_equal(phi_api.selected_rows_to_dense(empty).array, np.zeros((4, 3)))
    dense = DenseTensor(np.zeros((4, 3)))
    for fn in (phi_api.selected_rows_to_dense, phi_api.merge_selected_rows):
        with pytest.raises(InvalidArgumentError, match=rf"^{fn.__name__}: argument 'x' expected a "
                                                       r"selected_rows tensor, got a dense tensor paddle.float64\[4, 3\]"):
            fn(dense)
