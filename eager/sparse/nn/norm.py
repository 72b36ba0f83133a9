"""Batch normalization of sparse COO tensors (Paddle's paddle.sparse.nn.BatchNorm
and SyncBatchNorm): each channel of the stored values ``[nnz, C]`` normalized by
the statistics of the stored values (the unstored entries take no part), the
pattern kept. SyncBatchNorm takes those statistics over every rank's stored
values (eager.nn.SyncBatchNorm on the values); in one process it is BatchNorm.

>>> bn = eager.sparse.nn.BatchNorm(2)
>>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 0], [1, 0]], [[1.0, 2.0], [3.0, 6.0]], [1, 2, 1, 2, 2])
>>> bn(x).values().numpy().round(3)
array([[-1., -1.],
       [ 1.,  1.]], dtype=float32)
"""
from __future__ import annotations

from ...nn import sync_batch_norm as dense_sync
from ...nn.layer import Layer
from ...nn.norm import BatchNorm1D, BatchNorm2D, BatchNorm3D
from .._core import COO, expect_sparse, from_values, values_of


def _check_format(op: str, data_format) -> None:
    if not isinstance(data_format, str) or data_format not in ("NDHWC", "NHWC"):
        raise ValueError(f"{op}: argument 'data_format' expected 'NDHWC' or 'NHWC' (channels last, the values' "
                         f"last dimension), got {data_format!r}")


def _stored_values(op: str, layer, x):
    """x's stored values ``[nnz, C]``, checked against the layer's channels."""
    expect_sparse(op, "x", x, (COO,))
    values = values_of(x)
    if values.ndim != 2 or values.shape[1] != layer._num_features:
        raise ValueError(f"{op}: x must store values [nnz, {layer._num_features}] (every dimension but the "
                         f"channels sparse), got values of shape {values.shape} for x of shape {x.shape}")
    return values


class BatchNorm(BatchNorm1D):
    """Batch normalization of a sparse COO tensor ``[N, D, H, W, C]`` (``'NDHWC'``)
    or ``[N, H, W, C]`` (``'NHWC'``), every dimension but C sparse (values
    ``[nnz, C]``): each channel of the stored values normalized
    by their statistics (the unstored entries take no part), the pattern kept
    (Paddle's ``paddle.sparse.nn.BatchNorm``). Running statistics, ``eval()`` and
    ``use_global_stats`` work as in :class:`eager.nn.BatchNorm1D`.

    >>> bn = eager.sparse.nn.BatchNorm(2)
    >>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 0], [1, 0]], [[1.0, 2.0], [3.0, 6.0]], [1, 2, 1, 2, 2])
    >>> bn(x).values().numpy().round(3)
    array([[-1., -1.],
           [ 1.,  1.]], dtype=float32)
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NDHWC", use_global_stats=None, name=None):
        _check_format("sparse.nn.BatchNorm", data_format)
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, "NC", use_global_stats, name)
        self._sparse_format = data_format

    def forward(self, x):
        """x with each channel of its stored values batch-normalized."""
        values = _stored_values("sparse.nn.BatchNorm", self, x)
        return from_values(super().forward(values), x.impl)

    def extra_repr(self) -> str:
        return (f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}, "
                f"data_format={self._sparse_format}")   # Paddle's text (the values are laid out [nnz, C] here)



class SyncBatchNorm(dense_sync.SyncBatchNorm):
    """Batch normalization of a sparse COO tensor ``[N, D, H, W, C]`` whose training
    statistics are those of the stored values of every rank (Paddle's
    ``paddle.sparse.nn.SyncBatchNorm``); in a world of one, and in eval mode, it is
    :class:`BatchNorm`. x may be of any rank: the channels are its values' last
    dimension whatever ``data_format`` (checked to be a format name, as Paddle)
    says. Usually made from a network's BatchNorms with :meth:`convert_sync_batchnorm`.

    >>> bn = eager.sparse.nn.SyncBatchNorm(2)
    >>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 0], [1, 0]], [[1.0, 2.0], [3.0, 6.0]], [1, 2, 1, 2, 2])
    >>> bn(x).values().numpy().round(3)
    array([[-1., -1.],
           [ 1.,  1.]], dtype=float32)
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        if not isinstance(data_format, str) or data_format not in self._formats:
            raise ValueError(f"sparse.nn.SyncBatchNorm: argument 'data_format' expected one of "
                             f"{list(self._formats)}, got {data_format!r}")
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, "NC", name)
        self._sparse_format = data_format

    def forward(self, x):
        """x with each channel of its stored values batch-normalized (statistics of every rank)."""
        values = _stored_values("sparse.nn.SyncBatchNorm", self, x)
        return from_values(super().forward(values), x.impl)

    @classmethod
    def convert_sync_batchnorm(cls, layer: Layer) -> Layer:
        """``layer`` with every BatchNorm in it (itself included) replaced by a
        SyncBatchNorm keeping the same weight, bias and running statistics (the same
        tensors): a sparse :class:`BatchNorm` by this sparse SyncBatchNorm, a dense
        BatchNorm1D/2D/3D by :class:`eager.nn.SyncBatchNorm`, as Paddle does.

        >>> net = eager.nn.Sequential(eager.sparse.nn.Conv3D(3, 5, 3), eager.sparse.nn.BatchNorm(5))
        >>> type(eager.sparse.nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]).__name__
        'SyncBatchNorm'
        """
        if not isinstance(layer, Layer):
            raise TypeError(f"sparse.nn.SyncBatchNorm.convert_sync_batchnorm: argument 'layer' expected an "
                            f"eager.nn.Layer, got {type(layer).__name__}")
        converted = layer
        if isinstance(layer, BatchNorm):
            converted = cls(layer._num_features, layer._momentum, layer._epsilon,
                            weight_attr=False if layer.weight is None else None,
                            bias_attr=False if layer.bias is None else None, data_format=layer._sparse_format)
            converted.weight, converted.bias = layer.weight, layer.bias
            converted._mean, converted._variance = layer._mean, layer._variance
            converted.training = layer.training
        elif isinstance(layer, (BatchNorm1D, BatchNorm2D, BatchNorm3D)):
            converted = dense_sync.SyncBatchNorm.convert_sync_batchnorm(layer)
        for name, sublayer in list(layer.named_children()):
            converted.add_sublayer(name, cls.convert_sync_batchnorm(sublayer))
        return converted

    def extra_repr(self) -> str:
        # Paddle's text: the format shown unless it is the default 'NCHW' (a converted sparse BatchNorm keeps its own)
        text = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        return text if self._sparse_format == "NCHW" else text + f", data_format={self._sparse_format}"


__all__ = ["BatchNorm", "SyncBatchNorm"]
