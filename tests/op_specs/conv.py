"""The op table of the convolution ops.

The reference convolves one kernel position at a time (a shifted, strided
slice of the padded input times that position's filter slice, summed), with
"SAME" padding derived here from its definition: an independent route to the
kernels' im2col-and-matmul. Gradients come from linear_vjp: convolution is
linear in each argument.
"""
from __future__ import annotations

import itertools

import numpy as np

from eager.generated import forward_api as F

from .core import Case, OpSpec, linear_vjp


def ref_conv(x, w, strides, paddings, padding_algorithm, dilations, groups, data_format):
    k = w.ndim - 2
    channel_last = data_format in ("NHWC", "NDHWC")
    if channel_last:
        x = np.moveaxis(x, -1, 1)
    size = x.shape[2:]
    kernel = w.shape[2:]
    if padding_algorithm == "SAME":
        dilations = (1,) * k
        pads = []
        for n, ks, s in zip(size, kernel, strides):
            total = max((int(np.ceil(n / s)) - 1) * s + ks - n, 0)
            pads.append((total // 2, total - total // 2))
    elif padding_algorithm == "VALID":
        pads = [(0, 0)] * k
    elif len(paddings) == k:
        pads = [(p, p) for p in paddings]
    else:
        pads = list(zip(paddings[::2], paddings[1::2]))
    x = np.pad(x, [(0, 0), (0, 0)] + pads)
    outs = [(x.shape[2 + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1 for i in range(k)]
    n, c = x.shape[:2]
    o = w.shape[0]
    cg, og = c // groups, o // groups
    out = np.zeros((n, o) + tuple(outs), dtype=np.float64)
    for position in itertools.product(*(range(ks) for ks in kernel)):
        index = tuple(slice(p * d, p * d + (m - 1) * s + 1, s)
                      for p, d, m, s in zip(position, dilations, outs, strides))
        for g in range(groups):
            patch = x[(slice(None), slice(g * cg, (g + 1) * cg)) + index]
            taps = w[(slice(g * og, (g + 1) * og), slice(None)) + position]
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", patch, taps)
    if channel_last:
        out = np.moveaxis(out, 1, -1)
    return out.astype(w.dtype)


def ref_conv_grad(x, w, g, **attrs):
    return (linear_vjp(lambda a: ref_conv(a, w, **attrs), x.shape, g, x.dtype),
            linear_vjp(lambda b: ref_conv(x, b, **attrs), w.shape, g, w.dtype))


def ref_conv_double_grad(x, w, g, gxg, gwg, **attrs):
    def gx(w_, g_):
        return ref_conv_grad(x, w_, g_, **attrs)[0]

    def gw(x_, g_):
        return ref_conv_grad(x_, w, g_, **attrs)[1]

    x_grad = None if gwg is None else linear_vjp(lambda a: gw(a, g), x.shape, gwg, x.dtype)
    w_grad = None if gxg is None else linear_vjp(lambda b: gx(b, g), w.shape, gxg, w.dtype)
    terms = []
    if gxg is not None:
        terms.append(linear_vjp(lambda c: gx(w, c), g.shape, gxg, g.dtype))
    if gwg is not None:
        terms.append(linear_vjp(lambda c: gw(x, c), g.shape, gwg, g.dtype))
    return x_grad, w_grad, (sum(terms) if terms else None)


def _attrs(strides=(1, 1), paddings=(0, 0), algorithm="EXPLICIT", dilations=(1, 1), groups=1, fmt="NCHW"):
    return {"strides": list(strides), "paddings": list(paddings), "padding_algorithm": algorithm,
            "dilations": list(dilations), "groups": groups, "data_format": fmt}


CONV2D_CASES = (
    Case(((2, 3, 5, 4), (4, 3, 3, 2)), _attrs()),
    Case(((1, 4, 6, 5), (6, 2, 3, 3)), _attrs((2, 1), (1, 0, 2, 1), dilations=(1, 2), groups=2)),
    Case(((2, 5, 4, 2), (3, 2, 3, 3)), _attrs(algorithm="SAME", fmt="NHWC")),
    Case(((1, 2, 5, 5), (2, 1, 2, 2)), _attrs((2, 2), algorithm="VALID", groups=2)),
    Case(((1, 1, 3, 3), (1, 1, 3, 3)), _attrs(paddings=(1, 1))),
    Case(((0, 2, 4, 4), (3, 2, 3, 3)), _attrs()),                   # an empty batch
    # stride 1 with O/g <= 2 C/g: the CPU input gradient is a full convolution, not col2im's adds
    Case(((1, 4, 6, 5), (4, 2, 3, 3)), _attrs(paddings=(2, 1), dilations=(2, 1), groups=2)),
    Case(((2, 2, 5, 4), (6, 2, 2, 3)), _attrs(paddings=(1, 0))),   # stride 1, O > 2C: col2im's adds
)
CONV3D_CASES = (
    Case(((1, 2, 3, 4, 3), (2, 2, 2, 3, 2)), _attrs((1, 2, 1), (1, 1, 0), dilations=(1, 1, 1), fmt="NCDHW")),
    Case(((1, 3, 3, 3, 2), (2, 2, 2, 2, 1)), _attrs((1, 1, 1), (0, 0, 0), dilations=(1, 1, 1), fmt="NDHWC")),
)


def _grad_cases(cases, extra_like_inputs=0):
    out = []
    for case in cases:
        x, w = case.shapes
        attrs = case.attrs
        result = ref_conv(np.zeros(x), np.zeros(w), **attrs).shape
        out.append(Case((x, w, result) + (x, w)[:extra_like_inputs], attrs))
    return tuple(out)


SPECS = [
    OpSpec("conv2d", F.conv2d, ref_conv, ("real", "real"), CONV2D_CASES),
    OpSpec("conv3d", F.conv3d, ref_conv, ("real", "real"), CONV3D_CASES),
    OpSpec("conv2d_grad", F.conv2d_grad, ref_conv_grad, ("real",) * 3,
           _grad_cases(CONV2D_CASES[:4] + CONV2D_CASES[6:])),
    OpSpec("conv3d_grad", F.conv3d_grad, ref_conv_grad, ("real",) * 3, _grad_cases(CONV3D_CASES[:1])),
    OpSpec("conv2d_double_grad", F.conv2d_double_grad, ref_conv_double_grad, ("real",) * 5,
           _grad_cases(CONV2D_CASES[3:5], 2)),
    OpSpec("conv3d_double_grad", F.conv3d_double_grad, ref_conv_double_grad, ("real",) * 5,
           _grad_cases((Case(((1, 1, 2, 3, 2), (1, 1, 1, 2, 2)),
                             _attrs((1, 1, 1), (0, 0, 0), dilations=(1, 1, 1), fmt="NCDHW")),), 2)),
]



# -- transposed convolution ------------------------------------------------------

def ref_conv_transpose(x, w, strides, paddings, output_padding, output_size, padding_algorithm, groups, dilations,
                       data_format):
    """From the definition: every input pixel scatters x * filter into the output,
    one (input position, kernel position) pair at a time, on an output padded by
    the paddings and cropped afterwards."""
    k = w.ndim - 2
    channel_last = data_format in ("NHWC", "NDHWC")
    if channel_last:
        x = np.moveaxis(x, -1, 1)
    size, kernel = x.shape[2:], w.shape[2:]
    if padding_algorithm == "SAME":
        dilations = (1,) * k
        pads = []
        for n_, ks, s in zip(size, kernel, strides):
            total = max((int(np.ceil(n_ / s)) - 1) * s + ks - n_, 0)
            pads.append((total // 2, total - total // 2))
    elif padding_algorithm == "VALID":
        pads = [(0, 0)] * k
    elif len(paddings) == k:
        pads = [(p, p) for p in paddings]
    else:
        pads = list(zip(paddings[::2], paddings[1::2]))
    full = [(size[i] - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 for i in range(k)]
    outs = [full[i] - pads[i][0] - pads[i][1] for i in range(k)]
    if output_size:
        outs = list(output_size)
    elif output_padding:
        outs = [o + p for o, p in zip(outs, output_padding)]
    n, c = x.shape[:2]
    cg, og = c // groups, w.shape[1]
    padded = np.zeros((n, og * groups) + tuple(max(f, o + b + a) for f, o, (b, a) in zip(full, outs, pads)))
    for i in itertools.product(*(range(s) for s in size)):
        for p in itertools.product(*(range(ks) for ks in kernel)):
            at = tuple(i[a] * strides[a] + p[a] * dilations[a] for a in range(k))
            for g in range(groups):
                contribution = np.einsum("nc,co->no", x[(slice(None), slice(g * cg, (g + 1) * cg)) + i],
                                         w[(slice(g * cg, (g + 1) * cg), slice(None)) + p])
                padded[(slice(None), slice(g * og, (g + 1) * og)) + at] += contribution
    out = padded[(slice(None), slice(None)) + tuple(slice(b, b + o) for (b, _), o in zip(pads, outs))]
    if channel_last:
        out = np.moveaxis(out, 1, -1)
    return out.astype(w.dtype)


def ref_conv_transpose_grad(x, w, g, **attrs):
    return (linear_vjp(lambda a: ref_conv_transpose(a, w, **attrs), x.shape, g, x.dtype),
            linear_vjp(lambda b: ref_conv_transpose(x, b, **attrs), w.shape, g, w.dtype))


def ref_conv_transpose_double_grad(x, w, g, gxg, gwg, **attrs):
    def gx(w_, g_):
        return ref_conv_transpose_grad(x, w_, g_, **attrs)[0]

    def gw(x_, g_):
        return ref_conv_transpose_grad(x_, w, g_, **attrs)[1]

    x_grad = None if gwg is None else linear_vjp(lambda a: gw(a, g), x.shape, gwg, x.dtype)
    w_grad = None if gxg is None else linear_vjp(lambda b: gx(b, g), w.shape, gxg, w.dtype)
    terms = []
    if gxg is not None:
        terms.append(linear_vjp(lambda c: gx(w, c), g.shape, gxg, g.dtype))
    if gwg is not None:
        terms.append(linear_vjp(lambda c: gw(x, c), g.shape, gwg, g.dtype))
    return x_grad, w_grad, (sum(terms) if terms else None)


def _tattrs(strides=(1, 1), paddings=(0, 0), output_padding=(), output_size=(), algorithm="EXPLICIT", groups=1,
            dilations=(1, 1), fmt="NCHW"):
    return {"strides": list(strides), "paddings": list(paddings), "output_padding": list(output_padding),
            "output_size": list(output_size), "padding_algorithm": algorithm, "groups": groups,
            "dilations": list(dilations), "data_format": fmt}


CONV2D_TRANSPOSE_CASES = (
    Case(((1, 3, 2, 2), (3, 2, 2, 3)), _tattrs()),
    Case(((1, 4, 2, 2), (4, 1, 2, 2)), _tattrs((2, 3), (1, 0, 2, 1), (1, 2), dilations=(1, 2), groups=2)),
    Case(((1, 3, 2, 2), (2, 2, 3, 3)), _tattrs((2, 1), (1, 1), output_size=(6, 2), fmt="NHWC")),
    Case(((1, 2, 3, 2), (2, 1, 2, 2)), _tattrs((2, 2), algorithm="SAME")),
    Case(((1, 2, 2, 2), (2, 2, 2, 1)), _tattrs((1, 2), algorithm="VALID", dilations=(2, 1))),
    Case(((0, 2, 2, 2), (2, 3, 2, 2)), _tattrs()),                  # an empty batch
)
CONV3D_TRANSPOSE_CASES = (
    Case(((1, 2, 2, 3, 2), (2, 2, 2, 2, 1)), _tattrs((2, 1, 1), (1, 0, 0), (1, 0, 0), dilations=(1, 1, 1),
                                                     fmt="NCDHW")),
    Case(((1, 2, 2, 2, 4), (4, 1, 1, 2, 2)), _tattrs((1, 1, 2), (0, 0, 0), groups=2, dilations=(1, 1, 1),
                                                     fmt="NDHWC")),
)


def _transpose_grad_cases(cases, extra_like_inputs=0):
    out = []
    for case in cases:
        x, w = case.shapes
        result = ref_conv_transpose(np.zeros(x), np.zeros(w), **case.attrs).shape
        out.append(Case((x, w, result) + (x, w)[:extra_like_inputs], case.attrs))
    return tuple(out)


SPECS += [
    OpSpec("conv2d_transpose", F.conv2d_transpose, ref_conv_transpose, ("real", "real"), CONV2D_TRANSPOSE_CASES),
    OpSpec("conv3d_transpose", F.conv3d_transpose, ref_conv_transpose, ("real", "real"), CONV3D_TRANSPOSE_CASES),
    OpSpec("conv2d_transpose_grad", F.conv2d_transpose_grad, ref_conv_transpose_grad, ("real",) * 3,
           _transpose_grad_cases(CONV2D_TRANSPOSE_CASES[1:3])),
    OpSpec("conv3d_transpose_grad", F.conv3d_transpose_grad, ref_conv_transpose_grad, ("real",) * 3,
           _transpose_grad_cases(CONV3D_TRANSPOSE_CASES[1:])),
    OpSpec("conv2d_transpose_double_grad", F.conv2d_transpose_double_grad, ref_conv_transpose_double_grad,
           ("real",) * 5, _transpose_grad_cases((Case(((1, 2, 2, 2), (2, 1, 2, 2)), _tattrs((2, 1), (1, 0))),), 2)),
    OpSpec("conv3d_transpose_double_grad", F.conv3d_transpose_double_grad, ref_conv_transpose_double_grad,
           ("real",) * 5, _transpose_grad_cases((Case(((1, 1, 2, 1, 2), (1, 2, 1, 2, 2)),
                                                      _tattrs((1, 1, 2), (0, 0, 0), dilations=(1, 1, 1),
                                                              fmt="NCDHW")),), 2)),
]
