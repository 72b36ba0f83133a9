"""SelectedRows, the second TensorBase, and kernels selected by tensor kind."""
import numpy as np
import pytest

import eager
from eager.autograd import PyLayer
from phi import api as phi_api
from phi.common import Backend, DataLayout, DataType, TensorKind
from phi.core import (
    DenseTensor, InvalidArgumentError, KernelFactory, KernelKey, SelectedRows, UnimplementedError,
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
    with pytest.raises(InvalidArgumentError, match=r"expected float64\[5, 3\].*got float64\[6, 3\]"):
        phi_api.accumulate_(acc, rows_of([0]))
    assert not acc.array.any() and acc.version == 0


def test_assign_copies_rows_and_values():
    sr = rows_of([1, 2])
    copy = phi_api.owned_copy(sr)
    assert copy.kind is TensorKind.SELECTED_ROWS
    copy.value.array[...] = 0.0
    copy.rows[0] = 5
    assert sr.rows.tolist() == [1, 2] and sr.value.array.any()


def test_a_dense_only_op_given_rows_says_so():
    with pytest.raises(UnimplementedError, match="no kernel for a SelectedRows input"):
        phi_api.scale(rows_of([0]), 2.0, 0.0, True)


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
