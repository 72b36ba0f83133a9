"""Grad-node edges are grouped per forward input slot, so an op may take a
Tensor[] beside a Tensor and return a Tensor[] beside a Tensor.

No op of ops.yaml has that shape yet, so two test-only ops are added to a
scratch copy of the project (YAML entries, kernels, InferMeta), rendered with
the real generator, and differentiated in a subprocess against finite
differences.
"""
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

EXTRA_OPS = """
- op : weighted_sum
  args : (Tensor[] xs, Tensor w)
  output : Tensor(out)
  infer_meta :
    func : weighted_sum_infer_meta
  kernel :
    func : weighted_sum
  backward : weighted_sum_grad
  doc : sum_i w[i] * xs[i] (test-only).

- op : split_with_total
  args : (Tensor x, int num)
  output : Tensor[](parts), Tensor(total)
  infer_meta :
    func : split_with_total_infer_meta
  kernel :
    func : split_with_total
  backward : split_with_total_grad
  doc : x split into num rows-blocks, and x.sum() (test-only).
"""

EXTRA_BACKWARD = """
- backward_op : weighted_sum_grad
  forward : weighted_sum (Tensor[] xs, Tensor w) -> Tensor(out)
  args : (Tensor[] xs, Tensor w, Tensor out_grad)
  output : Tensor[](xs_grad), Tensor(w_grad)
  infer_meta :
    func : weighted_sum_grad_infer_meta
  kernel :
    func : weighted_sum_grad

- backward_op : split_with_total_grad
  forward : split_with_total (Tensor x, int num) -> Tensor[](parts), Tensor(total)
  args : (Tensor x, Tensor[] parts_grad, Tensor total_grad, int num)
  output : Tensor(x_grad)
  infer_meta :
    func : split_with_total_grad_infer_meta
  kernel :
    func : split_with_total_grad
"""

KERNELS = '''
"""Test-only kernels and InferMeta for tests/test_slot_edges.py."""
from ..core.meta_tensor import MetaTensor
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS


def weighted_sum_infer_meta(xs, w, out):
    out.dims, out.dtype, out.layout = tuple(xs[0].dims), xs[0].dtype, xs[0].layout


def weighted_sum_grad_infer_meta(xs, w, out_grad, xs_grad, w_grad):
    for t in xs:
        xs_grad.append(MetaTensor(tuple(t.dims), t.dtype, t.layout))
    w_grad.dims, w_grad.dtype, w_grad.layout = tuple(w.dims), w.dtype, w.layout


def split_with_total_infer_meta(x, num, parts, total):
    rows = x.dims[0] // num
    for _ in range(num):
        parts.append(MetaTensor((rows,) + tuple(x.dims[1:]), x.dtype, x.layout))
    total.dims, total.dtype, total.layout = (), x.dtype, x.layout


def split_with_total_grad_infer_meta(x, parts_grad, total_grad, num, x_grad):
    x_grad.dims, x_grad.dtype, x_grad.layout = tuple(x.dims), x.dtype, x.layout


@register_kernel("weighted_sum", ALL_BACKENDS, ("float64",))
def weighted_sum(ctx, xs, w):
    return sum(w[i] * x for i, x in enumerate(xs))


@register_kernel("weighted_sum_grad", ALL_BACKENDS, ("float64",))
def weighted_sum_grad(ctx, xs, w, out_grad, *, out_mask):
    xs_grad = [w[i] * out_grad for i in range(len(xs))] if out_mask[0] else None
    w_grad = ctx.xp.stack([(x * out_grad).sum() for x in xs]) if out_mask[1] else None
    return xs_grad, w_grad


@register_kernel("split_with_total", ALL_BACKENDS, ("float64",))
def split_with_total(ctx, x, num):
    return list(ctx.xp.split(x.copy(), num)), x.sum()


@register_kernel("split_with_total_grad", ALL_BACKENDS, ("float64",))
def split_with_total_grad(ctx, x, parts_grad, total_grad, num):
    return ctx.xp.concatenate(parts_grad) + total_grad
'''

CHECK = '''
import json
import numpy as np
import eager
from eager.generated import forward_api as F

rng = np.random.default_rng(0)
a, b, c = (eager.to_tensor(rng.normal(size=3), stop_gradient=False) for _ in range(3))
w = eager.to_tensor(rng.normal(size=3), stop_gradient=False)
out = F.weighted_sum([a, b, c], w)
node = out.grad_node
slot_sizes = [len(slot) for slot in node.next_edges]
(out * out).sum().backward()

x = eager.to_tensor(rng.normal(size=(4, 2)), stop_gradient=False)
parts, total = F.split_with_total(x, 2)
loss = (parts[1] * parts[1]).sum() + total * 3.0   # parts[0] unused: its gradient is zero-filled
loss.backward()
print(json.dumps({
    "slot_sizes": slot_sizes,
    "values": [t.numpy().tolist() for t in (a, b, c, w, x)],
    "grads": [t.grad.numpy().tolist() for t in (a, b, c, w, x)],
    "total_slot": total._meta.slot, "num_grad_slots": total.grad_node.num_grad_slots,
}))
'''


@pytest.fixture(scope="module")
def scratch_result(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    for name in ("eager", "phi"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name, extra in (("ops.yaml", EXTRA_OPS), ("backward.yaml", EXTRA_BACKWARD)):
        (root / name).write_text((ROOT / name).read_text() + extra)
    (root / "phi" / "kernels" / "scratch_ops.py").write_text(KERNELS)
    with open(root / "phi" / "kernels" / "__init__.py", "a") as f:
        f.write("from . import scratch_ops  # noqa: E402,F401\n")
    with open(root / "phi" / "infermeta" / "__init__.py", "a") as f:
        f.write("from ..kernels.scratch_ops import (  # noqa: E402,F401\n"
                "    split_with_total_grad_infer_meta, split_with_total_infer_meta,\n"
                "    weighted_sum_grad_infer_meta, weighted_sum_infer_meta,\n)\n")
    run = dict(cwd=root, capture_output=True, text=True, timeout=120)
    generated = subprocess.run([sys.executable, "-m", "eager.api_gen"], **run)
    assert generated.returncode == 0, generated.stderr
    checked = subprocess.run([sys.executable, "-c", textwrap.dedent(CHECK)], **run)
    assert checked.returncode == 0, checked.stderr
    return json.loads(checked.stdout.strip().splitlines()[-1])


def test_a_list_input_beside_a_tensor_input_has_one_edge_slot_each(scratch_result):
    assert scratch_result["slot_sizes"] == [3, 1]


def test_gradients_through_a_list_input_beside_a_tensor_input(scratch_result):
    a, b, c, w, _ = (np.array(v) for v in scratch_result["values"])
    ga, gb, gc, gw, _ = (np.array(v) for v in scratch_result["grads"])
    out = w[0] * a + w[1] * b + w[2] * c  # loss = sum(out ** 2)
    np.testing.assert_allclose(ga, 2 * out * w[0])
    np.testing.assert_allclose(gb, 2 * out * w[1])
    np.testing.assert_allclose(gc, 2 * out * w[2])
    np.testing.assert_allclose(gw, [np.sum(2 * out * t) for t in (a, b, c)])


def test_gradients_through_a_list_output_beside_a_tensor_output(scratch_result):
    x = np.array(scratch_result["values"][4])
    gx = np.array(scratch_result["grads"][4])
    expected = np.full_like(x, 3.0)
    expected[2:] += 2 * x[2:]
    np.testing.assert_allclose(gx, expected)
    # total comes after the two parts: its gradient slot is the third of three.
    assert scratch_result["total_slot"] == 2 and scratch_result["num_grad_slots"] == 3
