"""What kernel registration keeps of a kernel's signature, read from its code object
(phi.core.kernel_registry.kernel_parameters), against inspect.signature, the way it
was read before: for every kernel registered and for every shape of parameter list."""
import functools
import inspect

import pytest

from phi.common.backend import Backend, DataLayout
from phi.common.data_type import DataType
from phi.common.tensor_kind import TensorKind
from phi.core.kernel_registry import KERNELS, KernelFactory, KernelKey, kernel_parameters


def by_inspect(fn):
    """The reference: (first parameter, positional-or-keyword ones after it, keyword-only ones after it)."""
    params = list(inspect.signature(fn).parameters.values())
    if not params:
        return None, (), ()
    return (params[0].name,
            tuple(p.name for p in params[1:] if p.kind is p.POSITIONAL_OR_KEYWORD),
            tuple(p.name for p in params[1:] if p.kind is p.KEYWORD_ONLY))


def test_every_registered_kernel_reads_as_inspect_reads_it():
    functions = {id(k.fn): k.fn for name in KERNELS.names() for k in KERNELS.kernels(name).values()}
    assert len(functions) > 300
    for fn in functions.values():
        assert kernel_parameters(fn) == by_inspect(fn), fn
    # What registration stored is what inspect gives.
    for name in KERNELS.names():
        for kernel in KERNELS.kernels(name).values():
            _, arg_names, keyword_only = by_inspect(kernel.fn)
            assert (kernel.arg_names, kernel.keyword_only) == (arg_names, keyword_only), kernel


def _a(ctx, x, y=2, *, into=None): return x
def _b(ctx, /, x, y): return x
def _c(ctx, p, /, x, *args, k, **kwargs): return x
def _d(*ctx, x): return x
def _e(*, ctx, x, y=1): return x
def _f(**ctx): return ctx
def _g(): return 1
def _h(ctx, x): t = x; return t  # a local after the parameters
def _i(*args, ctx, **kwargs): return args


@pytest.mark.parametrize("fn", [_a, _b, _c, _d, _e, _f, _g, _h, _i, lambda ctx, x, *, into=None: x])
def test_parameter_lists_of_every_shape(fn):
    assert kernel_parameters(fn) == by_inspect(fn)


def test_wrapped_partial_and_callable_objects_go_through_inspect():
    @functools.wraps(_a)
    def wrapper(*args, **kwargs):
        return _a(*args, **kwargs)

    class Kernel:
        def __call__(self, ctx, x, *, into=None):
            return x

    def declared(*args):
        return args

    declared.__signature__ = inspect.signature(_h)
    partial = functools.partial(_a, y=3)
    for fn in (wrapper, Kernel(), declared, partial, print):
        assert kernel_parameters(fn) == by_inspect(fn)
    assert kernel_parameters(wrapper) == ("ctx", ("x", "y"), ("into",))
    with pytest.raises(TypeError):
        kernel_parameters(3)


def test_registration_errors_are_unchanged():
    factory = KernelFactory()
    with pytest.raises(TypeError, match="kernel 'k': the first parameter must be 'ctx'"):
        factory.register("k", lambda x: x, [Backend.CPU], ["float32"])
    with pytest.raises(TypeError, match="the first parameter must be 'ctx'"):
        factory.register("k", _g, [Backend.CPU], ["float32"])
    with pytest.raises(ValueError, match=r"kernel 'k' registered twice for \(CPU, ALL_LAYOUT, paddle.float32, dense\)"):
        factory.register("k", _h, [Backend.CPU], ["float32", "float64", "float32"])
    assert not factory.has("k")  # the failed call registered nothing
    factory.register("k", _h, [Backend.CPU], ["float32"])
    with pytest.raises(ValueError, match="registered twice"):
        factory.register("k", _h, [Backend.CPU, Backend.GPU], ["float64", "float32"])
    assert sorted(str(key.dtype) for key in factory.kernels("k")) == ["paddle.bfloat16", "paddle.float32"]


def test_kernel_keys_hash_as_they_compare():
    keys = [KernelKey(b, l, d, k) for b in Backend for l in DataLayout for d in DataType for k in TensorKind]
    twins = [KernelKey(key.backend, key.layout, key.dtype, key.kind) for key in keys]
    assert len(set(keys)) == len(keys)
    assert all(hash(a) == hash(b) and a == b for a, b in zip(keys, twins))
    assert set(keys) == set(twins)
