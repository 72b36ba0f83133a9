"""Matrix product and its gradient, batched and broadcasting like numpy.matmul."""
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, INTS, INEXACT
from .funcs import conj, reduce_to_shape, want


def _t(a):
    return a.swapaxes(-1, -2)


@register_kernel("matmul", ALL_BACKENDS, INTS + INEXACT)
def matmul(ctx, x, y, transpose_x, transpose_y):
    if transpose_x and x.ndim >= 2:
        x = _t(x)
    if transpose_y and y.ndim >= 2:
        y = _t(y)
    return ctx.matmul(x, y)


@register_kernel("matmul_grad", ALL_BACKENDS, INTS + INEXACT)
def matmul_grad(ctx, x, y, out_grad, transpose_x, transpose_y, *, out_mask=None, into=None):
    """``into``: None, or (x_grad, y_grad) C-contiguous arrays of the gradients'
    shapes and dtype (None for any) that a gradient of 2-D x and y without
    transposes is written into instead of a new array (a leaf's zeroed ``.grad``
    buffer; see eager.autograd.accumulation.LEAF_WRITERS); other cases ignore it.
    The values are the same bit for bit."""
    xp = ctx.xp
    if x.ndim == 2 and y.ndim == 2 and x.dtype.kind != "c" and y.dtype.kind != "c":
        # Two real matrices (the common case), as below without the reshapes and checks:
        # with a = op(x), b = op(y): da = g b^T, db = a^T g, transposed back where op was.
        x_into, y_into = (None, None) if into is None or transpose_x or transpose_y else into
        x_grad = y_grad = None
        if out_mask is None or out_mask[0]:
            da = ctx.matmul(out_grad, y if transpose_y else y.T, out=x_into)
            x_grad = da.T if transpose_x else da
        if out_mask is None or out_mask[1]:
            db = ctx.matmul(x if transpose_x else x.T, out_grad, out=y_into)
            y_grad = db.T if transpose_y else db
        return x_grad, y_grad
    # Work on matrices: a 1-D x is a row, a 1-D y a column, and out_grad gets the
    # dimensions that matmul dropped for them back.
    x_vec, y_vec = x.ndim == 1, y.ndim == 1
    tx, ty = transpose_x and not x_vec, transpose_y and not y_vec
    x2 = x.reshape((1,) + x.shape) if x_vec else x
    y2 = y.reshape(y.shape + (1,)) if y_vec else y
    g = out_grad
    if y_vec:
        g = g[..., None]
    if x_vec:
        g = g[..., None, :]
    a = _t(x2) if tx else x2
    b = _t(y2) if ty else y2
    x_grad = y_grad = None
    if want(out_mask, 0):
        da = xp.matmul(g, conj(_t(b)))
        dx = _t(da) if tx else da
        x_grad = reduce_to_shape(dx, x2.shape).reshape(x.shape)
    if want(out_mask, 1):
        db = xp.matmul(conj(_t(a)), g)
        dy = _t(db) if ty else db
        y_grad = reduce_to_shape(dy, y2.shape).reshape(y.shape)
    return x_grad, y_grad
