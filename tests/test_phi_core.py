"""phi.core and phi.backends: DenseTensor, ArraySpec, MetaTensor, errors, the kernel
registry and dispatch; InferMeta functions called directly; phi.api on its own."""
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import phi
import phi.api
from phi import infermeta
from phi.backends import CPU_CONTEXT, bind_kernel
from phi.common import Backend, CPUPlace, DataLayout, DataType
from phi.core import (
    ArraySpec, DenseTensor, InvalidArgumentError, Kernel, KernelFactory, KernelKey,
    MetaTensor, NotFoundError, PhiError, VersionCounter, kernel_registry,
)
from phi.core.errors import describe_tensor

ROOT = Path(__file__).resolve().parents[1]
F32 = DataType.FLOAT32
F64 = DataType.FLOAT64


def meta(shape, dtype=F32):
    return MetaTensor(tuple(shape), dtype)


# -- DenseTensor, VersionCounter, ArraySpec, MetaTensor ------------------------------------

def test_dense_tensor_meta_is_derived_from_its_array():
    array = np.zeros((2, 3), np.float64)
    t = DenseTensor(array)
    assert t.dims == t.shape == (2, 3)
    assert t.ndim == 2 and t.numel == 6 and t.nbytes == 48
    assert t.dtype is F64
    assert t.place == CPUPlace()
    assert t.layout is DataLayout.ALL_LAYOUT
    assert t.initialized()
    assert repr(t) == "DenseTensor(dims=[2, 3], dtype=float64, place=Place(cpu))"
    # The meta follows the array: nothing is stored twice.
    t.array = np.ones(4, np.int32)
    assert t.dims == (4,) and t.dtype is DataType.INT32


def test_dense_tensor_of_big_endian_array_has_the_native_dtype():
    assert DenseTensor(np.zeros(2, ">f8")).dtype is F64


def test_dense_tensor_of_unsupported_dtype_raises_type_error():
    with pytest.raises(TypeError, match=r"unsupported data type dtype\('<U1'\); phi supports"):
        DenseTensor(np.array(["a"])).dtype


def test_version_counter_is_shared_by_views_only():
    base = DenseTensor(np.arange(6.0))
    assert base.version == 0 and base.version_counter is None  # created lazily
    view = base.share_buffer_with(base.array[2:])
    view_of_view = view.share_buffer_with(view.array.reshape(2, 2))
    other = DenseTensor(base.array.copy())
    assert view.version_counter is base.version_counter is view_of_view.version_counter
    assert isinstance(base.version_counter, VersionCounter)
    view.bump_version()
    assert (base.version, view.version, view_of_view.version, other.version) == (1, 1, 1, 0)
    base.bump_version()
    view_of_view.bump_version()
    assert (base.version, view.version, view_of_view.version) == (3, 3, 3)
    other.bump_version()
    assert (base.version, other.version) == (3, 1)
    assert view.layout is base.layout


def test_bump_version_without_views_counts_from_zero():
    t = DenseTensor(np.zeros(1))
    t.bump_version()
    t.bump_version()
    assert t.version == 2


def test_phi_view_op_shares_the_version_counter():
    x = DenseTensor(np.arange(6.0))
    out = phi.api.reshape(x, (2, 3))
    assert np.shares_memory(out.array, x.array)
    out.bump_version()
    assert x.version == 1


def test_array_spec_holds_shape_and_dtype_only():
    spec = ArraySpec((2, 3, 4), np.dtype(np.float32))
    assert spec.ndim == 3 and spec.size == 24
    assert ArraySpec((), np.dtype(np.float64)).size == 1
    assert ArraySpec((3, 0), np.dtype(np.float64)).size == 0
    assert repr(spec) == "ArraySpec(shape=(2, 3, 4), dtype=float32)"
    # A DenseTensor over a spec reads as an input MetaTensor, as no_need_buffer needs.
    t = DenseTensor(spec)
    assert t.dims == (2, 3, 4) and t.dtype is F32 and t.ndim == 3 and t.numel == 24
    # Meta only: no bytes held, not initialized, place as given (None: unknown).
    assert t.nbytes == 0 and not t.initialized() and t.place is None
    assert repr(t) == "DenseTensor(dims=[2, 3, 4], dtype=float32, place=None)"
    assert DenseTensor(ArraySpec([5], np.dtype(np.int8), CPUPlace())).place == CPUPlace()
    assert ArraySpec([5], np.dtype(np.int8)).shape == (5,)
    out = MetaTensor()
    infermeta.unchanged_infer_meta(t, out)
    assert (out.dims, out.dtype) == ((2, 3, 4), F32)


def test_meta_tensor_set_and_share():
    m = MetaTensor()
    assert repr(m) == "MetaTensor(dims=None, dtype=None)"
    m.set_dims([2, 5])
    m.set_dtype(F64)
    assert m.dims == (2, 5) and m.ndim == 2 and m.dtype is F64
    other = MetaTensor()
    other.share_meta(DenseTensor(np.zeros((3,), np.int8), layout=DataLayout.NCHW))
    assert (other.dims, other.dtype, other.layout) == ((3,), DataType.INT8, DataLayout.NCHW)
    assert repr(other) == "MetaTensor(dims=[3], dtype=int8)"


# -- errors -------------------------------------------------------------------------------

def test_error_types_are_the_python_exceptions_users_expect():
    from phi.core import InvalidTypeError, PreconditionNotMetError, UnimplementedError

    assert issubclass(InvalidArgumentError, ValueError)
    assert issubclass(InvalidTypeError, TypeError)
    assert issubclass(NotFoundError, LookupError)
    assert issubclass(PreconditionNotMetError, RuntimeError)
    assert issubclass(UnimplementedError, NotImplementedError)
    for cls in (InvalidArgumentError, InvalidTypeError, NotFoundError, PreconditionNotMetError,
                UnimplementedError):
        assert issubclass(cls, PhiError)


def test_in_op_prefixes_the_op_and_lists_inputs():
    error = InvalidArgumentError("argument 'x' is bad")
    x = DenseTensor(np.zeros((2, 3), np.float32))
    ys = [DenseTensor(np.zeros(1, np.int64)), None]
    wrapped = error.in_op("my_op", x=x, ys=ys, z=None)
    assert type(wrapped) is InvalidArgumentError
    assert str(wrapped) == ("my_op: argument 'x' is bad\n"
                            "  inputs: x=paddle.float32[2, 3], ys=[paddle.int64[1], None], z=None")
    assert str(NotFoundError("gone").in_op("op")) == "op: gone"


def test_describe_tensor_reads_dims_or_shape():
    assert describe_tensor(np.zeros((4, 1), np.float16)) == "float16[4, 1]"
    assert describe_tensor(meta((5,), F64)) == "paddle.float64[5]"
    assert describe_tensor(3) == "3"


# -- KernelFactory ---------------------------------------------------------------------------

def k_plain(ctx, x, y, alpha):
    return ("plain", ctx, x, y, alpha)


def k_other(ctx, x, y, alpha):
    return ("other", ctx, x, y, alpha)


def k_masked(ctx, x, out_grad, *, out_mask=None):
    return ("masked", out_mask)


def test_register_records_keys_and_argument_names():
    f = KernelFactory()
    f.register("k", k_plain, [Backend.CPU, Backend.GPU], ["float32", np.float64])
    f.register("m", k_masked, [Backend.ALL_BACKEND], [F32])
    assert f.has("k") and not f.has("nope")
    assert f.names() == ["k", "m"]
    keys = set(f.kernels("k"))
    # float32's registration also gives each backend a bfloat16 twin (computing in float32)
    assert keys == {KernelKey(b, DataLayout.ALL_LAYOUT, d)
                    for b in (Backend.CPU, Backend.GPU) for d in (F32, F64, DataType.BFLOAT16)}
    kernel = f.kernels("k")[KernelKey(Backend.GPU, DataLayout.ALL_LAYOUT, F64)]
    assert isinstance(kernel, Kernel) and kernel.fn is k_plain and kernel.name == "k"
    assert kernel.arg_names == ("x", "y", "alpha") and kernel.keyword_only == ()
    masked = f.kernels("m")[KernelKey(Backend.ALL_BACKEND, DataLayout.ALL_LAYOUT, F32)]
    assert masked.arg_names == ("x", "out_grad") and masked.keyword_only == ("out_mask",)
    assert str(masked.key) == "(ALL_BACKEND, ALL_LAYOUT, paddle.float32, dense)"


def test_kernels_of_unknown_name_is_not_found():
    with pytest.raises(NotFoundError, match="no kernel named 'ghost' is registered"):
        KernelFactory().kernels("ghost")


@pytest.mark.parametrize("fn", [lambda x, ctx: x, lambda: 0, lambda context, x: x])
def test_kernel_must_take_ctx_first(fn):
    f = KernelFactory()
    with pytest.raises(TypeError, match="kernel 'bad': the first parameter must be 'ctx'"):
        f.register("bad", fn, [Backend.CPU], [F32])
    assert not f.has("bad")


def test_duplicate_registration_is_an_error_and_registers_nothing():
    f = KernelFactory()
    f.register("k", k_plain, [Backend.CPU], [F32])
    with pytest.raises(ValueError, match=r"kernel 'k' registered twice for \(CPU, ALL_LAYOUT, paddle.float32, dense\)"):
        f.register("k", k_other, [Backend.CPU], [F64, F32])
    # The failed call left nothing behind: float64 is still unregistered (bfloat16 is
    # float32's twin, phi.core.bfloat16_kernels).
    assert set(f.kernels("k")) == {KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, F32),
                                   KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.BFLOAT16)}
    with pytest.raises(ValueError, match="registered twice"):
        f.register("fresh", k_other, [Backend.CPU], [F32, "float32"])
    assert not f.has("fresh")


def test_select_exact_backend_then_all_backend():
    f = KernelFactory()
    f.register("k", k_other, [Backend.ALL_BACKEND], [F32, F64])
    f.register("k", k_plain, [Backend.CPU], [F32])
    kernel, fallback = f.select("k", Backend.CPU, F32)
    assert kernel.fn is k_plain and kernel.key.backend is Backend.CPU and fallback is False
    kernel, fallback = f.select("k", Backend.CPU, F64)
    assert kernel.fn is k_other and kernel.key.backend is Backend.ALL_BACKEND and fallback is False
    kernel, fallback = f.select("k", Backend.GPU, F32)  # ALL_BACKEND before any CPU fallback
    assert kernel.fn is k_other and fallback is False


def test_select_falls_back_to_cpu_for_gpu_only():
    f = KernelFactory()
    f.register("k", k_plain, [Backend.CPU], [F32])
    kernel, fallback = f.select("k", Backend.GPU, F32)
    assert kernel.fn is k_plain and kernel.key.backend is Backend.CPU and fallback is True
    f.register("g", k_plain, [Backend.GPU], [F32])
    with pytest.raises(NotFoundError, match=r"registered keys: \(GPU, ALL_LAYOUT, paddle.bfloat16, dense\), "
                                            r"\(GPU, ALL_LAYOUT, paddle.float32, dense\)"):
        f.select("g", Backend.CPU, F32)  # no GPU -> CPU direction


def test_select_accepts_any_dtype_spelling():
    f = KernelFactory()
    f.register("k", k_plain, [Backend.CPU], [F32])
    for spelling in ("float32", np.float32, np.dtype(np.float32), F32):
        kernel, _ = f.select("k", Backend.CPU, spelling)
        assert kernel.key.dtype is F32


def test_select_by_layout():
    f = KernelFactory()
    f.register("conv", k_plain, [Backend.CPU], [F32], layout=DataLayout.NCHW)
    kernel, _ = f.select("conv", Backend.CPU, F32, DataLayout.NCHW)
    assert kernel.key.layout is DataLayout.NCHW
    with pytest.raises(NotFoundError, match=r"no kernel for key \(CPU, NHWC, paddle.float32, dense\)"):
        f.select("conv", Backend.CPU, F32, DataLayout.NHWC)


def test_missing_kernel_names_the_op_the_key_and_the_registered_keys():
    f = KernelFactory()
    f.register("k", k_plain, [Backend.CPU], [F64, F32])
    f.register("k", k_other, [Backend.GPU], [DataType.INT8])
    with pytest.raises(NotFoundError) as info:
        f.select("k", Backend.CPU, DataType.INT64)
    assert str(info.value) == (
        "k: no kernel for key (CPU, ALL_LAYOUT, paddle.int64, dense) (k takes paddle.bfloat16, paddle.float32, paddle.float64 tensors, "
        "got paddle.int64); registered keys: (CPU, ALL_LAYOUT, paddle.bfloat16, dense), "
        "(CPU, ALL_LAYOUT, paddle.float32, dense), (CPU, ALL_LAYOUT, paddle.float64, dense), (GPU, ALL_LAYOUT, paddle.int8, dense)"
    )
    with pytest.raises(NotFoundError, match="ghost: no kernel named 'ghost' is registered"):
        f.select("ghost", Backend.CPU, F32)


def test_register_kernel_decorator_registers_and_returns_the_function(monkeypatch):
    fresh = KernelFactory()
    monkeypatch.setattr(kernel_registry, "KERNELS", fresh)

    @kernel_registry.register_kernel("deco", [Backend.ALL_BACKEND], [F32, F64])
    def deco(ctx, x):
        return x

    assert deco.__name__ == "deco" and deco(None, 5) == 5
    assert fresh.names() == ["deco"] and len(fresh.kernels("deco")) == 3  # and float32's bfloat16 twin


# -- DispatchTable and bind_kernel -------------------------------------------------------

def counting_select(factory):
    calls = []
    original = factory.select

    def select(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    factory.select = select
    return calls


def test_dispatch_table_selects_once_per_key_and_binds_the_context():
    f = KernelFactory()
    f.register("k", k_plain, [Backend.ALL_BACKEND], [F32, F64])
    calls = counting_select(f)
    table = f.dispatch_table("k")
    assert f.dispatch_table("k") is table and table.name == "k" and table.factory is f
    key32 = (np.ndarray, np.dtype(np.float32))
    first = table[key32]
    assert first(1, 2, 3) == ("plain", CPU_CONTEXT, 1, 2, 3)
    assert table[key32] is first  # a cache hit
    assert len(calls) == 1 and calls[0] == ("k", Backend.CPU, F32)
    table[(np.ndarray, np.dtype(np.float64))]
    assert len(calls) == 2 and calls[1] == ("k", Backend.CPU, F64)
    table[key32]
    table[(np.ndarray, np.dtype(np.float64))]
    assert len(calls) == 2


def test_dispatch_table_miss_is_not_cached():
    f = KernelFactory()
    f.register("k", k_plain, [Backend.CPU], [F32])
    calls = counting_select(f)
    table = f.dispatch_table("k")
    for _ in range(2):
        with pytest.raises(NotFoundError, match="k: no kernel for key"):
            table[(np.ndarray, np.dtype(np.int64))]
    assert len(calls) == 2 and len(table) == 0


def test_registering_later_clears_the_table_the_generated_code_holds():
    # Generated code takes KERNELS.dispatch_table(name) once, at import; a kernel
    # registered afterwards must still be seen through that same object.
    f = KernelFactory()
    f.register("k", k_other, [Backend.ALL_BACKEND], [F32])
    table = f.dispatch_table("k")
    key = (np.ndarray, np.dtype(np.float32))
    assert table[key](0, 0, 0)[0] == "other"
    f.register("k", k_plain, [Backend.CPU], [F32])  # more specific than ALL_BACKEND
    assert f.dispatch_table("k") is table
    assert table[key](0, 0, 0)[0] == "plain"


def test_bind_kernel_rejects_foreign_array_types():
    f = KernelFactory()
    f.register("k", k_plain, [Backend.CPU], [F32])
    with pytest.raises(TypeError, match="phi cannot compute on arrays of type builtins.list"):
        bind_kernel(f, "k", list, np.dtype(np.float32))


class FakeDeviceArray:
    """Stands in for cupy.ndarray: backend_of_array_type goes by the module name;
    on device 0 (a kernel bound for several GPUs reads ``.device.id``)."""

    device = type("FakeDevice", (), {"id": 0})

    def __init__(self, host):
        self.host = host


FakeDeviceArray.__module__ = "cupy._core.fake"


class FakeGPUContext:
    def __init__(self):
        self.moves = []

    def to_host(self, array):
        self.moves.append("to_host")
        return array.host

    def from_host(self, array):
        self.moves.append("from_host")
        return FakeDeviceArray(array)


def test_the_gpu_context_and_the_gpu_context_module_do_not_shadow_each_other(monkeypatch):
    # The function was named like the submodule gpu_context.py: importing one
    # replaced the other, so the second GPU kernel bound raised "'module' object
    # is not callable", or `import ... as` gave the function.
    import phi.backends as backends
    import phi.backends.gpu_context as module

    device = FakeGPUContext()
    monkeypatch.setattr(backends, "_gpu_context", device)
    assert callable(module.import_cupy) and module.GPUContext is backends.GPUContext
    assert backends.context_for(Backend.GPU) is device
    assert backends.get_gpu_context() is device and backends.context_for(Backend.GPU) is device


def test_gpu_call_served_by_cpu_kernel_moves_data_both_ways(monkeypatch):
    import phi.backends as backends

    device = FakeGPUContext()
    monkeypatch.setattr(backends, "_gpu_context", device)
    seen = []

    def cpu_kernel(ctx, x, scale, *, out_mask=None):
        seen.append((ctx, type(x), scale, out_mask))
        return x * scale, None

    f = KernelFactory()
    f.register("k", cpu_kernel, [Backend.CPU], [F32])
    table = f.dispatch_table("k")
    with pytest.warns(RuntimeWarning, match=r"k: no GPU kernel for float32; it runs on the CPU.*FallBackToCpu"):
        bound = table[(FakeDeviceArray, np.dtype(np.float32))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per op and dtype: the binding is cached
        assert table[(FakeDeviceArray, np.dtype(np.float32))] is bound
    result = bound(FakeDeviceArray(np.ones(2, np.float32)), 3.0, out_mask=(True, False))
    assert seen == [(CPU_CONTEXT, np.ndarray, 3.0, (True, False))]
    assert isinstance(result, tuple) and result[1] is None
    assert isinstance(result[0], FakeDeviceArray)
    np.testing.assert_array_equal(result[0].host, [3.0, 3.0])
    assert device.moves == ["to_host", "from_host"]


# -- InferMeta, called directly --------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=5, min_side=0, max_side=4))
def test_elementwise_infer_meta_broadcasts_like_numpy(shapes):
    (x_shape, y_shape), result = shapes
    out = MetaTensor()
    infermeta.elementwise_infer_meta(meta(x_shape), meta(y_shape), out)
    assert out.dims == np.broadcast_shapes(x_shape, y_shape) == result
    assert out.dtype is F32


@settings(max_examples=150, deadline=None)
@given(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3),
       hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3))
def test_elementwise_infer_meta_errors_where_numpy_does(x_shape, y_shape):
    try:
        expected = np.broadcast_shapes(x_shape, y_shape)
    except ValueError:
        expected = None
    out = MetaTensor()
    if expected is not None:
        infermeta.elementwise_infer_meta(meta(x_shape), meta(y_shape), out)
        assert out.dims == expected
        return
    with pytest.raises(InvalidArgumentError) as info:
        infermeta.elementwise_infer_meta(meta(x_shape), meta(y_shape), out)
    message = str(info.value)
    assert f"'x' with shape {list(x_shape)}" in message
    assert f"'y' with shape {list(y_shape)}" in message


def test_elementwise_infer_meta_names_the_conflicting_dimension():
    with pytest.raises(InvalidArgumentError) as info:
        infermeta.elementwise_infer_meta(meta((2, 3)), meta((4,)), MetaTensor())
    assert str(info.value) == ("arguments 'x' with shape [2, 3] and 'y' with shape [4] cannot be "
                               "broadcast: dimension -1 is 3 vs 4")


def test_elementwise_and_compare_infer_meta_dtypes():
    with pytest.raises(InvalidArgumentError, match="'x' and 'y' expected the same dtype, got paddle.float32 and paddle.float64"):
        infermeta.elementwise_infer_meta(meta((2,)), meta((2,), F64), MetaTensor())
    out = MetaTensor()
    infermeta.compare_infer_meta(meta((2, 1)), meta((3,)), out)
    assert (out.dims, out.dtype) == ((2, 3), DataType.BOOL)


@st.composite
def matmul_case(draw):
    (bx, by), _ = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                          min_side=1, max_side=3))
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    x_vec, y_vec = draw(st.booleans()), draw(st.booleans())
    tx, ty = draw(st.booleans()), draw(st.booleans())
    x = np.zeros((k,)) if x_vec else np.zeros(bx + ((k, m) if tx else (m, k)))
    y = np.zeros((k,)) if y_vec else np.zeros(by + ((n, k) if ty else (k, n)))
    return x, y, tx, ty


@settings(max_examples=150, deadline=None)
@given(matmul_case())
def test_matmul_infer_meta_matches_numpy(case):
    x, y, tx, ty = case
    xm = np.swapaxes(x, -1, -2) if tx and x.ndim > 1 else x
    ym = np.swapaxes(y, -1, -2) if ty and y.ndim > 1 else y
    out = MetaTensor()
    infermeta.matmul_infer_meta(meta(x.shape, F64), meta(y.shape, F64), tx, ty, out)
    assert out.dims == np.matmul(xm, ym).shape
    assert out.dtype is F64


@pytest.mark.parametrize("x, y, tx, ty", [
    ((2, 3), (2, 3), False, False), ((3,), (4,), False, False), ((2, 3), (2, 4), True, True),
    ((5, 2, 3), (4,), False, False),
])
def test_matmul_infer_meta_rejects_mismatched_inner_dims(x, y, tx, ty):
    with pytest.raises(InvalidArgumentError) as info:
        infermeta.matmul_infer_meta(meta(x), meta(y), tx, ty, MetaTensor())
    message = str(info.value)
    assert "contracted dimensions differ" in message
    assert f"shape {list(x)}" in message and f"shape {list(y)}" in message
    with pytest.raises(ValueError):
        np.matmul(np.swapaxes(np.zeros(x), -1, -2) if tx else np.zeros(x),
                  np.swapaxes(np.zeros(y), -1, -2) if ty else np.zeros(y))


def test_matmul_infer_meta_rejects_0d_and_unbroadcastable_batches():
    with pytest.raises(InvalidArgumentError, match=r"at least 1-d, got shapes \[\] and \[3\]"):
        infermeta.matmul_infer_meta(meta(()), meta((3,)), False, False, MetaTensor())
    with pytest.raises(InvalidArgumentError, match=r"'x' with shape \[2\] and 'y' with shape \[3\]"):
        infermeta.matmul_infer_meta(meta((2, 4, 5)), meta((3, 5, 6)), False, False, MetaTensor())


@pytest.mark.parametrize("shape, axis", [
    ((2, 3, 4), []), ((2, 3, 4), [0]), ((2, 3, 4), [-1]), ((2, 3, 4), [2, 0]), ((2, 3, 4), [-3, -2]),
    ((5,), [0]), ((5,), [-1]), ((), []), ((0, 3), [1]),
])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reduce_infer_meta_matches_numpy(shape, axis, keepdim):
    expected = np.sum(np.zeros(shape), axis=tuple(axis) if axis else None, keepdims=keepdim).shape
    out = MetaTensor()
    infermeta.reduce_infer_meta(meta(shape, F64), axis, keepdim, out)
    assert out.dims == expected and out.dtype is F64
    summed = MetaTensor()
    infermeta.sum_infer_meta(meta(shape, DataType.INT32), axis, DataType.INT64, keepdim, summed)
    assert summed.dims == expected and summed.dtype is DataType.INT64


@pytest.mark.parametrize("axis, shown", [([0, 0], "axis 0"), ([1, -2], "axis -2"), ([-1, 2], "axis 2")])
def test_reduce_infer_meta_rejects_duplicate_axes(axis, shown):
    with pytest.raises(InvalidArgumentError) as info:
        infermeta.reduce_infer_meta(meta((2, 3, 4)), axis, False, MetaTensor())
    assert str(info.value) == f"argument 'axis' lists {shown} more than once: {axis}"


@pytest.mark.parametrize("axis", [[3], [-4], [0, 5]])
def test_reduce_infer_meta_rejects_axes_out_of_range(axis):
    with pytest.raises(InvalidArgumentError, match=r"argument 'axis' expected an axis in \[-3, 3\) for a 3-d tensor"):
        infermeta.reduce_infer_meta(meta((2, 3, 4)), axis, False, MetaTensor())


@pytest.mark.parametrize("x_shape, shape, expected", [
    ((2, 3, 4), (6, 4), (6, 4)), ((2, 3, 4), (-1,), (24,)), ((2, 3, 4), (4, -1), (4, 6)),
    ((2, 3, 4), (0, -1), (2, 12)), ((2, 3, 4), (0, 0, 4), (2, 3, 4)), ((2, 3, 4), (0, 4, 3), (2, 4, 3)),
    ((), (1, 1), (1, 1)), ((1,), (), ()), ((0, 3), (-1, 3), (0, 3)), ((6,), (-1, 1, 2), (3, 1, 2)),
])
def test_reshape_infer_meta(x_shape, shape, expected):
    out = MetaTensor()
    infermeta.reshape_infer_meta(meta(x_shape, DataType.INT16), shape, out)
    assert out.dims == expected and out.dtype is DataType.INT16
    assert np.zeros(x_shape).reshape(expected).shape == expected


@pytest.mark.parametrize("x_shape, shape, message", [
    ((2, 3), (-1, -1), r"may contain -1 only once, got \[-1, -1\]"),
    ((2, 3), (1, 0, 6), r"\[1, 0, 6\] has 18 elements but x of shape \[2, 3\] has 6"),
    ((2, 3), (2, 3, 0), r"has 0 at position 2, which copies x's dimension there, but x has shape \[2, 3\]"),
    ((2, 3), (-2, 3), r"expected sizes >= 0 or a single -1, got \[-2, 3\]"),
    ((2, 3), (4, 2), r"\[4, 2\] has 8 elements but x of shape \[2, 3\] has 6"),
    ((2, 3), (4, -1), r"\[4, -1\] cannot hold x of shape \[2, 3\] \(6 elements\)"),
    ((0, 3), (0, -1), r"\[0, -1\] cannot hold x of shape \[0, 3\] \(0 elements\)"),
])
def test_reshape_infer_meta_errors(x_shape, shape, message):
    with pytest.raises(InvalidArgumentError, match=r"^argument 'shape' (.|\n)*" + message):
        infermeta.reshape_infer_meta(meta(x_shape), shape, MetaTensor())


@pytest.mark.parametrize("perm", [(0, 2, 1), (-1, 0, 1), (2, 1, 0), (-3, -2, -1)])
def test_transpose_infer_meta(perm):
    out = MetaTensor()
    infermeta.transpose_infer_meta(meta((2, 3, 4)), perm, out)
    assert out.dims == np.transpose(np.zeros((2, 3, 4)), perm).shape


@pytest.mark.parametrize("perm", [(0, 1), (0, 1, 1), (0, 1, 3), (0, 1, 2, 3), (-4, 0, 1)])
def test_transpose_infer_meta_rejects_non_permutations(perm):
    with pytest.raises(InvalidArgumentError) as info:
        infermeta.transpose_infer_meta(meta((2, 3, 4)), perm, MetaTensor())
    assert str(info.value) == (f"argument 'perm' expected a permutation of [0, 1, 2] for x of shape "
                               f"[2, 3, 4], got {list(perm)}")


def test_transpose_grad_infer_meta_inverts_the_permutation():
    out = MetaTensor()
    infermeta.transpose_grad_infer_meta(meta((4, 2, 3)), (2, 0, 1), out)
    assert out.dims == (2, 3, 4)


# -- phi.api on its own -------------------------------------------------------------------------

def test_phi_api_computes_on_dense_tensors():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([10.0, 20.0])
    out = phi.api.add(DenseTensor(a), DenseTensor(b))
    assert isinstance(out, DenseTensor)
    np.testing.assert_array_equal(out.array, a + b)
    np.testing.assert_array_equal(phi.api.matmul(DenseTensor(a), DenseTensor(b), False, False).array, a @ b)
    np.testing.assert_array_equal(phi.api.sum(DenseTensor(a), (1,), None, False).array, a.sum(1))
    total = phi.api.sum(DenseTensor(a), (), None, False)
    assert total.dims == () and isinstance(total.array, np.ndarray)  # 0-d stays an array
    full = phi.api.full((2, 2), 7, DataType.INT32, CPUPlace())
    assert full.dtype is DataType.INT32 and (full.array == 7).all()
    x_grad, y_grad = phi.api.add_grad(DenseTensor(a), DenseTensor(b), DenseTensor(np.ones((2, 2))),
                                      out_mask=(False, True))
    assert x_grad is None
    np.testing.assert_array_equal(y_grad.array, [2.0, 2.0])


def test_phi_api_errors_start_with_the_op_and_list_the_inputs():
    x = DenseTensor(np.zeros((2, 3), np.float32))
    y = DenseTensor(np.zeros((4,), np.float32))
    with pytest.raises(InvalidArgumentError) as info:
        phi.api.add(x, y)
    lines = str(info.value).splitlines()
    assert lines[0].startswith("add: arguments 'x' with shape [2, 3] and 'y' with shape [4]")
    assert lines[1] == "  inputs: x=paddle.float32[2, 3], y=paddle.float32[4]"
    with pytest.raises(InvalidArgumentError) as info:
        phi.api.matmul(x, DenseTensor(np.zeros((2, 5), np.float64)), False, False)
    assert str(info.value).startswith("matmul: arguments 'x' and 'y' expected the same dtype")
    assert str(info.value).endswith("  inputs: x=paddle.float32[2, 3], y=paddle.float64[2, 5]")
    with pytest.raises(InvalidArgumentError, match=r"^reshape: argument 'shape'"):
        phi.api.reshape(x, (4, 2))


def test_phi_api_missing_kernel_names_op_and_key():
    x = DenseTensor(np.array([True, False]))
    with pytest.raises(NotFoundError, match=r"^divide: no kernel for key \(CPU, ALL_LAYOUT, paddle.bool, dense\) \(divide takes paddle.int8, paddle.uint8, paddle.int16, paddle.int32, paddle.int64, paddle.float16, paddle.bfloat16, "
                                             r"paddle.float32, paddle.float64, paddle.complex64, paddle.complex128 tensors, got paddle.bool\); "
                                             r"registered keys: "):
        phi.api.divide(x, x)


def test_importing_phi_api_does_not_import_eager():
    code = (
        "import sys\n"
        "import numpy as np\n"
        "import phi.api\n"
        "from phi.core import DenseTensor\n"
        "out = phi.api.multiply(DenseTensor(np.full(3, 2.0)), DenseTensor(np.arange(3.0)))\n"
        "assert out.array.tolist() == [0.0, 2.0, 4.0], out.array\n"
        "leaked = sorted(m for m in sys.modules if m == 'eager' or m.startswith('eager.'))\n"
        "assert not leaked, leaked\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_gpu_fallback_moves_arrays_inside_lists_and_keeps_none_results(monkeypatch):
    import phi.backends as backends

    device = FakeGPUContext()
    monkeypatch.setattr(backends, "_gpu_context", device)
    seen = []

    def concat_like(ctx, xs, axis):
        seen.append([type(x) for x in xs])
        return [np.concatenate(xs, axis), None]

    f = KernelFactory()
    f.register("k", concat_like, [Backend.CPU], [F64])
    bound = bind_kernel(f, "k", FakeDeviceArray, np.dtype(np.float64))
    parts = [FakeDeviceArray(np.ones(2)), FakeDeviceArray(np.zeros(1))]
    result = bound(parts, 0)
    assert seen == [[np.ndarray, np.ndarray]]
    assert isinstance(result, list) and result[1] is None
    assert isinstance(result[0], FakeDeviceArray)
    np.testing.assert_array_equal(result[0].host, [1.0, 1.0, 0.0])


def test_a_fresh_buffer_is_owned_alone_and_a_shared_or_viewed_one_is_not():
    fresh = DenseTensor(np.arange(4.0))
    assert fresh.owns_buffer_alone()
    array = np.arange(4.0)
    held = DenseTensor(array)  # the local name `array` is a second holder
    assert not held.owns_buffer_alone()
    del array
    assert held.owns_buffer_alone()
    assert not DenseTensor(np.arange(4.0).reshape(2, 2)).owns_buffer_alone()  # a view
    twin = DenseTensor(held.array)  # two DenseTensors over one buffer
    assert not held.owns_buffer_alone() and not twin.owns_buffer_alone()


def test_shape_only_keeps_dims_dtype_and_place_without_a_buffer():
    t = DenseTensor(np.zeros((2, 3), np.float32))
    spec = t.shape_only()
    assert spec.dims == (2, 3) and spec.dtype is t.dtype and spec.place == t.place
    assert not spec.initialized() and spec.nbytes == 0


def test_buffer_id_is_shared_by_views():
    base = DenseTensor(np.zeros((2, 3)))
    view = base.share_buffer_with(base.array.reshape(6))
    assert view.buffer_id == base.buffer_id
    assert DenseTensor(np.zeros(6)).buffer_id != base.buffer_id
