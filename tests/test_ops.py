"""One generic checker over the op table in tests/op_specs/.

For every op and case: forward values against the NumPy reference for each
dtype the kernel takes; gradcheck (first order) and gradgradcheck (second
order) in float64 for every op whose eager function is differentiable; and
third-order checks for a few ops whose higher derivatives are non-trivial.
"""
from __future__ import annotations

import functools
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import eager
from eager.api_gen.plan import max_order
from eager.api_gen.render import load_specs
from eager.autograd import gradcheck, gradgradcheck
from eager.autograd.gradient_check import gradient_function

from op_specs import GROUPS, SPECS, SPECS_BY_NAME, draw

# Every test here runs on the device axis (tests/conftest.py): once on the CPU,
# once with the GPU (real CuPy, or tests/fake_cupy.py) as the default place.
pytestmark = pytest.mark.usefixtures("device")

# Op-spec groups (tests/op_specs/<group>.py) whose ops do not yet pass on the
# gpu axis: their gpu runs are skipped, naming the group. Whoever makes a
# group's kernels pass on CuPy removes it here (/work/notes/gpu_inventory.md
# lists what failed and why).
GPU_PENDING_GROUPS: frozenset = frozenset()
GROUP_OF = {spec.name: group.__name__.rsplit(".", 1)[-1] for group in GROUPS for spec in group.SPECS}


def _skip_pending_on_gpu(device: str, op: str) -> None:
    if device == "gpu" and GROUP_OF[op] in GPU_PENDING_GROUPS:
        pytest.skip(f"gpu axis: op group {GROUP_OF[op]!r} is in GPU_PENDING_GROUPS (not yet passing on CuPy)")

# float32 kernels and a reference computed on the same float32 values agree to
# a few ulp per accumulated term; float64 to rounding.
TOLERANCE = {"float32": dict(rtol=2e-5, atol=2e-5), "float64": dict(rtol=1e-10, atol=1e-12)}
EXACT = dict(rtol=0, atol=0)


def _tolerance(dtype, result, device):
    """The case's float tolerance, else exact; on the GPU an inexact result of other
    inputs (angle of complex, atan2 of ints) gets its precision's, because CUDA's libm
    and the host's may differ in the last place (seen on an H200)."""
    if dtype in TOLERANCE:
        return TOLERANCE[dtype]
    if device == "gpu" and result.dtype.kind in "fc":
        return TOLERANCE.get(np.finfo(result.dtype).dtype.name, EXACT)  # complex64: float32's
    return EXACT


def _params(want_grad: bool, order: int = 1):
    for spec in SPECS:
        for case in spec.cases:
            if want_grad:
                if spec.grad and case.grad and (order == 1 or case.gradgrad):
                    yield pytest.param(spec, case, id=f"{spec.name}-{case.id}")
            else:
                for dtype in spec.dtypes:
                    yield pytest.param(spec, case, dtype, id=f"{spec.name}-{case.id}-{dtype}")


def _rng(*parts) -> np.random.Generator:
    # Seeded by the test's identity, so every run (and every failure) draws the same values.
    return np.random.default_rng(zlib.crc32("/".join(map(str, parts)).encode()))


def _draw_inputs(spec, case, dtype):
    rng = _rng(spec.name, case.id, dtype)
    arrays = [None if shape is None else draw(domain, shape, dtype, rng)
              for domain, shape in zip(spec.domains, case.shapes)]
    if spec.prepare is not None:
        arrays = spec.prepare(arrays, case.attrs)
    return arrays


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _tensors_only(spec, case):
    """spec.fn with the case's attributes, returning only the outputs that came
    (an optional gradient that was not given yields None)."""
    def call(*tensors):
        return tuple(o for o in _as_tuple(spec.fn(*tensors, **case.attrs)) if o is not None)
    return call


# -- the table covers the YAML ----------------------------------------------------

def test_every_yaml_op_has_a_table_entry():
    forward_ops, backward_ops = load_specs()
    yaml_names = {op.name for op in forward_ops + backward_ops}
    missing = sorted(yaml_names - set(SPECS_BY_NAME))
    stale = sorted(set(SPECS_BY_NAME) - yaml_names)
    assert not missing, f"ops in ops.yaml/backward.yaml without an entry in tests/op_specs/: {missing}"
    assert not stale, f"entries in tests/op_specs/ for ops no longer in the YAML: {stale}"


def test_gpu_pending_groups_name_op_spec_groups():
    assert GPU_PENDING_GROUPS <= set(GROUP_OF.values()), GPU_PENDING_GROUPS - set(GROUP_OF.values())


def test_table_entries_have_one_domain_per_tensor_input():
    for spec in SPECS:
        for case in spec.cases:
            assert len(case.shapes) == len(spec.domains), (spec.name, case.id)


# -- forward values ---------------------------------------------------------------

@pytest.mark.parametrize("spec, case, dtype", list(_params(want_grad=False)))
def test_forward_matches_numpy(spec, case, dtype, device):
    _skip_pending_on_gpu(device, spec.name)
    arrays = _draw_inputs(spec, case, dtype)
    tensors = [None if a is None else eager.to_tensor(a) for a in arrays]
    if spec.check is not None:
        eager.seed(zlib.crc32(f"{spec.name}/{case.id}/{dtype}".encode()))
    got = _as_tuple(spec.fn(*tensors, **case.attrs))
    want = _as_tuple(spec.reference(*[None if a is None else a.copy() for a in arrays], **case.attrs))
    assert len(got) == len(want)
    for index, (g, w) in enumerate(zip(got, want)):
        if w is None:
            assert g is None, f"output {index}: expected None (its gradient was not asked for)"
            continue
        w = np.asarray(w)
        assert g.dtype.numpy_dtype == w.dtype, f"output {index}: dtype {g.dtype} != {w.dtype}"
        assert g.shape == list(w.shape), f"output {index}: shape {g.shape} != {list(w.shape)}"
        if spec.check is not None:
            spec.check(g.numpy(), *[None if a is None else a.copy() for a in arrays], **case.attrs)
            continue
        np.testing.assert_allclose(g.numpy(), w, **_tolerance(dtype, w, device), err_msg=f"output {index}")
    # The op must not write into its inputs.
    for a, t in zip(arrays, tensors):
        if a is not None:
            np.testing.assert_array_equal(t.numpy(), a)


# -- gradients ----------------------------------------------------------------------

def _float64_inputs(spec, case):
    arrays = _draw_inputs(spec, case, "float64")
    return [None if a is None else
            eager.to_tensor(a, stop_gradient=spec.wrt is not None and i not in spec.wrt)
            for i, a in enumerate(arrays)]


@pytest.mark.parametrize("spec, case", list(_params(want_grad=True)))
def test_gradcheck(spec, case, device):
    _skip_pending_on_gpu(device, spec.name)
    inputs = _float64_inputs(spec, case)
    assert gradcheck(_tensors_only(spec, case), inputs)


@functools.lru_cache(maxsize=None)
def _yaml_ops() -> dict:
    forward_ops, backward_ops = load_specs()
    return {op.name: op for op in forward_ops + backward_ops}


def _max_order(name: str) -> float:
    """How many times the YAML lets gradients of op ``name`` be taken (0 for an invoke op:
    its target decides)."""
    return max_order(_yaml_ops()[name], _yaml_ops())


@pytest.mark.parametrize("spec, case", list(_params(want_grad=True, order=2)))
def test_gradgradcheck(spec, case, device):
    _skip_pending_on_gpu(device, spec.name)
    inputs = _float64_inputs(spec, case)
    if _max_order(spec.name) == 1 and any(t is not None and np.prod(t.shape) for t in inputs):
        # A first-order-only op (a backward op with neither `backward:` nor `composite:`,
        # e.g. a decomposition's): its second derivative must raise, never come out as zeros.
        with pytest.raises(eager.errors.AutogradError, match="differentiable to order 1 only"):
            gradgradcheck(_tensors_only(spec, case), inputs)
        return
    assert gradgradcheck(_tensors_only(spec, case), inputs)


@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, min_side=0, max_side=3),
       op=st.sampled_from(["add", "subtract", "multiply", "divide"]))
@settings(max_examples=40, deadline=None)
def test_elementwise_broadcasting_forward_and_gradients(shapes, op):
    # Shapes drawn by hypothesis cover broadcast patterns the table does not list.
    spec = SPECS_BY_NAME[op]
    x_shape, y_shape = shapes.input_shapes
    rng = _rng(op, x_shape, y_shape)
    x = draw(spec.domains[0], x_shape, "float64", rng)
    y = draw(spec.domains[1], y_shape, "float64", rng)
    tx, ty = eager.to_tensor(x, stop_gradient=False), eager.to_tensor(y, stop_gradient=False)
    out = spec.fn(tx, ty)
    assert out.shape == list(shapes.result_shape)
    np.testing.assert_allclose(out.numpy(), spec.reference(x, y), rtol=1e-12, atol=1e-12)
    assert gradcheck(spec.fn, (tx, ty))
    assert gradgradcheck(spec.fn, (tx, ty))


# -- a backward op's kernel and its composite rule agree -------------------------------

def _kernel_and_composite_params():
    """Table cases of the backward ops that have both a kernel (the fast path) and
    a composite rule (used under create_graph), called with plain tensors."""
    _, backward_ops = load_specs()
    for op in backward_ops:
        spec = SPECS_BY_NAME[op.name]
        if op.kernel is None or op.composite is None or spec.fn is not getattr(eager.ops, op.name):
            continue
        for case in spec.cases:
            yield pytest.param(op, spec, case, id=f"{op.name}-{case.id}")


@pytest.mark.parametrize("op, spec, case", list(_kernel_and_composite_params()))
def test_composite_rule_matches_kernel(op, spec, case, device):
    _skip_pending_on_gpu(device, spec.name)
    # The two must be one rule: create_graph must not change first-order values.
    arrays = _draw_inputs(spec, case, "float64")
    tensors = [None if a is None else eager.to_tensor(a) for a in arrays]
    kernel = _as_tuple(spec.fn(*tensors, **case.attrs))
    by_name = dict(zip([a.name for a in op.args if a.is_tensor], tensors))
    by_name.update(case.attrs)
    composite = _as_tuple(getattr(eager.composite, op.composite.func)(*[by_name[a] for a in op.composite.args]))
    assert len(kernel) == len(composite)
    for index, (k, c) in enumerate(zip(kernel, composite)):
        assert k.dtype == c.dtype and k.shape == c.shape, (index, k.dtype, c.dtype, k.shape, c.shape)
        np.testing.assert_allclose(c.numpy(), k.numpy(), rtol=1e-12, atol=1e-12, err_msg=f"output {index}")


# -- third order ----------------------------------------------------------------------

THIRD_ORDER = {
    "tanh": ((3,), lambda x: eager.tanh(x)),
    "sigmoid": ((3,), lambda x: eager.sigmoid(x)),
    "exp": ((3,), lambda x: eager.exp(x)),
    # Products make the higher derivatives of multiply and matmul non-zero.
    "multiply": (((2, 3), (3,)), lambda x, y: eager.multiply(eager.multiply(x, y), x)),
    "matmul": (((2, 3), (3, 2)), lambda x, y: eager.matmul(eager.matmul(x, y), x)),
}


@pytest.mark.parametrize("name", sorted(THIRD_ORDER))
def test_third_order_gradients(name):
    shapes, func = THIRD_ORDER[name]
    shapes = shapes if isinstance(shapes[0], tuple) else (shapes,)
    rng = _rng("third", name)
    inputs = [eager.to_tensor(rng.uniform(-1, 1, s), stop_gradient=False) for s in shapes]
    grad_outputs = [eager.to_tensor(rng.uniform(-1, 1, o.shape), stop_gradient=False)
                    for o in _as_tuple(func(*inputs))]
    # gradgradcheck of the gradient function checks its second derivatives, which
    # are func's third.
    assert gradgradcheck(gradient_function(func, len(inputs)), inputs + grad_outputs)


def test_third_derivative_of_tanh_matches_closed_form():
    # d3/dx3 tanh = -2 (1 - t^2)(1 - 3 t^2), t = tanh x: an independent check of
    # the chain of composite rules, without finite differences.
    x_values = np.array([-1.5, -0.2, 0.0, 0.7, 2.0])
    x = eager.to_tensor(x_values, stop_gradient=False)
    (d1,) = eager.grad(eager.tanh(x).sum(), x, create_graph=True)
    (d2,) = eager.grad(d1.sum(), x, create_graph=True)
    (d3,) = eager.grad(d2.sum(), x)
    t = np.tanh(x_values)
    np.testing.assert_allclose(d3.numpy(), -2 * (1 - t * t) * (1 - 3 * t * t), rtol=1e-12, atol=1e-12)
