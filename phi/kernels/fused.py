"""Fused kernels: several ops' work in one call, each writing into the buffer it
allocates instead of making temporaries (issue #14, memory traffic).

``linear`` is x @ weight + bias with the bias added in place into the matmul's
fresh result (a C-contiguous x of three or more dimensions runs as one
[rows, k] @ [k, n] product, not matmul's loop of one per leading index);
``linear_grad`` gives the three gradients in one call: x's
(out_grad @ weight^T), weight's (x^T @ out_grad with every leading dimension
folded into the rows, one matmul) and bias's (out_grad summed over the leading
dimensions), the last only when out_mask asks for it (linear had a bias
that wants a gradient): the bias's values are never needed, so the grad node
does not keep the bias, and changing it in place before backward is fine, as
with matmul followed by add. Written against the context's products only (ctx.matmul,
ctx.column_sums), so they run on CuPy unchanged.
"""
import math

from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, COMPLEX, FLOATS
from .funcs import conj


def _rows(a):
    """a [..., k] as a matrix [prod(...), k] (a view when a is contiguous); explicit
    sizes, since reshape(-1, 0) is ambiguous for an empty array."""
    return a if a.ndim == 2 else a.reshape(math.prod(a.shape[:-1]), a.shape[-1])


@register_kernel("linear", ALL_BACKENDS, FLOATS + COMPLEX)
def linear(ctx, x, weight, bias):
    # x [..., k] with more than two dimensions: one [rows, k] @ [k, n] product
    # instead of matmul's loop of one small product per leading index (~15% at
    # [32, 32, 128] @ [128, 128]); each output row is the same dot product.
    if x.ndim > 2 and x.flags.c_contiguous:
        out = ctx.matmul(_rows(x), weight).reshape(x.shape[:-1] + (weight.shape[-1],))
    else:
        out = ctx.matmul(x, weight)
    if bias is not None:
        out += bias
    return out


@register_kernel("linear_grad", ALL_BACKENDS, FLOATS + COMPLEX)
def linear_grad(ctx, x, weight, out_grad, *, out_mask=None, into=None):
    """``into``: None, or (x_grad, weight_grad, bias_grad) C-contiguous arrays of
    the gradients' shapes and dtype (None for any) that the gradients are written
    into instead of new arrays: a leaf's zeroed ``.grad`` buffer (see
    eager.autograd.accumulation.LEAF_WRITERS). The values are the same bit for bit.
    Complex: out_grad times the conjugate factors (matmul's convention)."""
    x, weight = conj(x), conj(weight)  # the arrays themselves when real
    x_grad = weight_grad = bias_grad = None
    x_into, weight_into, bias_into = (None, None, None) if into is None else into
    rows = out_grad if out_grad.ndim == 2 else _rows(out_grad)
    if out_mask is None or out_mask[0]:
        if out_grad.ndim > 2 and out_grad.flags.c_contiguous and (x_into is None or x_into.flags.c_contiguous):
            # One [rows, n] @ [n, k] product, as in linear (~30% at [32, 32, 128]); into
            # only when contiguous, as a copying reshape would drop the write.
            if x_into is None:
                x_grad = ctx.matmul(rows, weight.T).reshape(out_grad.shape[:-1] + (weight.shape[0],))
            else:
                ctx.matmul(rows, weight.T, out=_rows(x_into))
                x_grad = x_into
        else:
            x_grad = ctx.matmul(out_grad, weight.T, out=x_into)
    if out_mask is None or out_mask[1]:
        weight_grad = ctx.matmul((x if x.ndim == 2 else _rows(x)).T, rows, out=weight_into)
    if out_mask is None or out_mask[2]:
        bias_grad = ctx.column_sums(rows, bias_into)  # add.reduce on the CPU, a cuBLAS gemv on a GPU
    return x_grad, weight_grad, bias_grad
