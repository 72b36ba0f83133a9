"""Dtypes print as Paddle 2.6 prints them (``paddle.float32``), while everything
that needs the short name (conversions, files, Tensor reprs) keeps ``float32``."""
import io
import json
import struct

import numpy as np
import pytest

import eager
from eager.jit import InputSpec
from phi.common import DataType, convert_dtype
from phi.common.data_type import dtype_name
from phi.core.dense_tensor import DenseTensor
from phi.core.meta_tensor import MetaTensor

# Every dtype with the name Paddle 2.6 prints for it, written out by hand.
PRINTED = {
    DataType.BOOL: "paddle.bool", DataType.INT8: "paddle.int8", DataType.UINT8: "paddle.uint8",
    DataType.INT16: "paddle.int16", DataType.INT32: "paddle.int32", DataType.INT64: "paddle.int64",
    DataType.FLOAT16: "paddle.float16", DataType.BFLOAT16: "paddle.bfloat16",
    DataType.FLOAT32: "paddle.float32", DataType.FLOAT64: "paddle.float64",
    DataType.COMPLEX64: "paddle.complex64", DataType.COMPLEX128: "paddle.complex128",
}


def test_the_table_covers_every_dtype():
    assert set(PRINTED) == set(DataType)


@pytest.mark.parametrize("dtype", list(DataType), ids=lambda d: d.value)
def test_str_repr_format_and_print_of_every_dtype(dtype, capsys):
    want = PRINTED[dtype]
    assert str(dtype) == want and repr(dtype) == want
    assert f"{dtype}" == want and "{}".format(dtype) == want and "%s" % (dtype,) == want
    assert f"{dtype:>20}" == want.rjust(20)  # a format spec still pads
    assert repr([dtype]) == f"[{want}]"
    print(dtype)
    assert capsys.readouterr().out == want + "\n"
    # the short name stays where conversions read it
    assert dtype.value == want[len("paddle."):] and dtype_name(dtype) == dtype.value
    assert convert_dtype(dtype.value) is dtype


@pytest.mark.parametrize("dtype", [d for d in DataType if d is not DataType.BFLOAT16], ids=lambda d: d.value)
def test_the_printed_name_is_not_taken_for_a_dtype_string(dtype):
    # Paddle's dtype arguments take 'float32', not 'paddle.float32'; a str() of a
    # dtype fed back as a string is a bug, and it says so.
    with pytest.raises(TypeError, match=f"unknown dtype string '{PRINTED[dtype]}'"):
        convert_dtype(str(dtype))


def test_public_dtype_names_are_the_members():
    assert eager.float32 is DataType.FLOAT32 and eager.bool is DataType.BOOL
    assert eager.to_tensor([1.0]).dtype == eager.float32
    assert eager.to_tensor([1]).dtype != eager.float32


def test_get_default_dtype_is_still_a_string():
    assert eager.get_default_dtype() == "float32" and type(eager.get_default_dtype()) is str
    eager.set_default_dtype("float64")
    try:
        assert eager.get_default_dtype() == "float64"
        assert str(eager.zeros([1]).dtype) == "paddle.float64"
    finally:
        eager.set_default_dtype("float32")


def test_docstring_examples_print_x_dtype_as_paddle_does(capsys):
    # Paddle 2.6's own examples (paddle.randint, paddle.to_tensor, Tensor.astype):
    # print(x.dtype) shows paddle.<name>.
    print(eager.randint(0, 5, [2]).dtype)
    print(eager.to_tensor([1.0, 2.0]).dtype)
    print(eager.to_tensor([1, 2]).astype("float64").dtype)
    print(eager.to_tensor([True]).dtype)
    print(eager.to_tensor([1 + 2j]).dtype)
    assert capsys.readouterr().out.splitlines() == [
        "paddle.int64", "paddle.float32", "paddle.float64", "paddle.bool", "paddle.complex64"]


def test_tensor_repr_keeps_the_short_dtype():
    x = eager.to_tensor([1.0, 2.0])
    assert repr(x) == ("Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
                       "       [1., 2.])")
    assert str(x) == repr(x)
    y = eager.to_tensor([[1, 2]], dtype="int32", stop_gradient=False)
    assert repr(y).splitlines()[0] == "Tensor(shape=[1, 2], dtype=int32, place=Place(cpu), stop_gradient=False,"


def test_sparse_repr_prints_the_dtype_as_paddle_does():
    x = eager.sparse.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3])
    assert repr(x).splitlines()[0] == \
        "Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True, "  # Paddle's space too
    assert "paddle.paddle" not in repr(x)


def test_phi_reprs_keep_the_short_dtype():
    dense = DenseTensor(np.zeros((2, 3), np.float64))
    assert repr(dense) == "DenseTensor(dims=[2, 3], dtype=float64, place=Place(cpu))"
    assert repr(MetaTensor([4], DataType.INT32)) == "MetaTensor(dims=[4], dtype=int32)"
    assert repr(MetaTensor()) == "MetaTensor(dims=None, dtype=None)"


def test_input_spec_repr_prints_the_dtype_as_paddle_does():
    spec = InputSpec([None, 784], "float32", name="image")
    assert repr(spec) == "InputSpec(shape=(None, 784), dtype=paddle.float32, name=image, stop_gradient=False)"


def test_finfo_and_iinfo_dtype_stay_strings():
    assert eager.finfo(eager.float32).dtype == "float32"
    assert eager.iinfo(eager.uint8).dtype == "uint8"


def test_error_messages_name_dtypes_as_paddle_does():
    with pytest.raises(TypeError, match=r"got paddle\.int64"):
        eager.to_tensor([1, 2]).normal_()


def _header(path) -> dict:
    data = open(path, "rb").read()
    (length,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8:8 + length])


def test_save_load_round_trip_keeps_every_dtype_and_writes_short_names(tmp_path):
    arrays = {"b": np.array([True, False]), "i8": np.array([-3, 4], np.int8), "u8": np.array([200], np.uint8),
              "i16": np.array([7], np.int16), "i32": np.array([1, 2], np.int32), "i64": np.array([5], np.int64),
              "f16": np.array([0.5], np.float16), "f32": np.array([1.5, 2.5], np.float32),
              "f64": np.array([np.pi], np.float64), "c64": np.array([1 + 2j], np.complex64),
              "c128": np.array([3 - 4j], np.complex128)}
    state = {name: eager.to_tensor(a) for name, a in arrays.items()}
    path = str(tmp_path / "state.pdparams")
    eager.save(state, path)
    loaded = eager.load(path)
    for name, a in arrays.items():
        assert loaded[name].dtype is DataType.from_numpy(a.dtype), name
        np.testing.assert_array_equal(loaded[name].numpy(), a)
    text = json.dumps(_header(path))
    assert "paddle." not in text and "DataType" not in text


def test_viz_text_labels_keep_short_dtype_names():
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    text = eager.viz.print_graph((x * 3.0).sum(), file=io.StringIO())
    assert "[2] float32" in text and "paddle." not in text
