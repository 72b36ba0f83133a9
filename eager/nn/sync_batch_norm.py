"""SyncBatchNorm: batch normalization whose training statistics cover the whole
batch of every rank (Paddle's ``paddle.nn.SyncBatchNorm``).

Under data parallel training each rank sees 1/N of a batch; BatchNorm would
normalize by that share's mean and variance, SyncBatchNorm by those of the
whole batch. The statistics are two sums per channel, added up across ranks
with an MPI allreduce (the mean first, then the centered squares, which keeps
float32 accurate). The allreduce is a differentiable op whose backward is an
allreduce of the gradients, so every rank's inputs get the gradient of the
loss summed over all ranks: with DataParallel averaging the parameters'
gradients, N ranks give what one process gets on the full batch.

In eval mode, and in a world of one, it is BatchNorm.
"""
from __future__ import annotations

import numpy as np

from ..autograd import PyLayer, no_grad
from ..autograd.inplace import write_inplace
from ..creation import to_tensor
from ..distributed.env import get_world_size, mpi_module, world_comm
from ..generated import forward_api as _F
from ..tensor import Tensor
from .functional import norm as norm_functional
from .layer import Layer
from .norm import BatchNorm1D, BatchNorm2D, BatchNorm3D, _BatchNormBase, _check_input

# The format a channel-first or channel-last input of each rank has, for batch_norm.
_CHANNEL_FIRST = {2: "NC", 3: "NCL", 4: "NCHW", 5: "NCDHW"}
_CHANNEL_LAST = {2: "NC", 3: "NLC", 4: "NHWC", 5: "NDHWC"}


def _allreduce_sum(comm, x: Tensor) -> Tensor:
    """The elementwise sum of x over the ranks, as a new tensor (summed in at least float32)."""
    MPI = mpi_module()
    values = np.array(x.numpy(), dtype=np.promote_types(x.dtype.numpy_dtype, np.float32), copy=True)
    comm.Allreduce(MPI.IN_PLACE, values, op=MPI.SUM)
    return to_tensor(values.astype(x.dtype.numpy_dtype, copy=False), place=x.place)


class _AllReduceSum(PyLayer):
    """Sum over the ranks; its gradient is the sum over the ranks of the
    gradients, since each rank's input feeds every rank's output."""

    @staticmethod
    def forward(ctx, x, comm):
        ctx.comm = comm
        return _allreduce_sum(comm, x)

    @staticmethod
    def backward(ctx, grad):
        return _allreduce_sum(ctx.comm, grad)


class SyncBatchNorm(_BatchNormBase):
    """Batch normalization with statistics over the batches of all ranks (Paddle's
    ``paddle.nn.SyncBatchNorm``). Inputs of rank 2 to 5, channels at axis 1
    (``data_format`` "NCHW", also "NC", "NCL", "NCDHW") or last ("NHWC",
    "NLC", "NDHWC"). Running statistics ``_mean``/``_variance`` follow
    BatchNorm's convention (``momentum`` weighs the old value; the biased
    variance). Usually made from a network's BatchNorms with
    :meth:`convert_sync_batchnorm`.

    >>> net = eager.nn.Sequential(eager.nn.Conv2D(3, 8, 3), eager.nn.BatchNorm2D(8))
    >>> net = eager.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    >>> type(net[1]).__name__
    'SyncBatchNorm'
    """

    _fixed_affine = True   # Paddle 2.6's SyncBatchNorm keeps fixed ones/zeros for a False weight/bias_attr

    _formats = tuple(norm_functional._FORMATS)
    _ranks = (2, 3, 4, 5)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, None, name)

    def _rank_format(self, x: Tensor) -> str:
        channel_last = self._data_format in norm_functional._CHANNEL_LAST
        return (_CHANNEL_LAST if channel_last else _CHANNEL_FIRST)[x.ndim]

    def forward(self, input: Tensor) -> Tensor:
        """input normalized per channel, by the statistics of every rank's batch
        in training mode (updating ``_mean``/``_variance``), by the running ones
        in eval mode."""
        who = _check_input(self, input, self._ranks)
        data_format = self._rank_format(input)
        if not self.training or get_world_size() == 1:
            return norm_functional.batch_norm(input, self._mean, self._variance, self.weight, self.bias,
                                              training=self.training, momentum=self._momentum,
                                              epsilon=self._epsilon, data_format=data_format)
        return self._synced(who, input, data_format)

    def _synced(self, who: str, x: Tensor, data_format: str) -> Tensor:
        comm = world_comm()
        axis = norm_functional.channel_axis(x, data_format)
        channels = self._num_features
        stat_axes = [a for a in range(x.ndim) if a != axis]
        shape = [1] * x.ndim
        shape[axis] = channels
        count = to_tensor(np.array([x.size // channels], x.dtype.numpy_dtype), place=x.place)
        total = _AllReduceSum.apply(_F.concat([x.sum(axis=stat_axes), count], 0), comm)
        n = float(total.numpy()[channels])
        if n == 0:
            raise ValueError(f"{who}: the ranks' batches hold no elements together (input shape {x.shape} "
                             f"here); SyncBatchNorm needs at least one")
        mean = total[:channels] / n
        centered = x - mean.reshape(shape)
        variance = _AllReduceSum.apply((centered * centered).sum(axis=stat_axes), comm) / n
        out = centered * (variance + self._epsilon).rsqrt().reshape(shape)
        if self.weight is not None:
            out = out * self.weight.reshape(shape)
        if self.bias is not None:
            out = out + self.bias.reshape(shape)
        with no_grad():
            keep = self._momentum
            new_mean = self._mean * keep + mean.astype(self._mean.dtype) * (1.0 - keep)
            new_variance = self._variance * keep + variance.astype(self._variance.dtype) * (1.0 - keep)
            write_inplace(who, self._mean, new_mean.impl)
            write_inplace(who, self._variance, new_variance.impl)
        return out

    @classmethod
    def convert_sync_batchnorm(cls, layer: Layer) -> Layer:
        """``layer`` with every BatchNorm1D/2D/3D in it (itself included) replaced by
        a SyncBatchNorm that keeps the same weight, bias and running statistics
        (the same tensors, so an optimizer made before still updates them).

        >>> model = eager.nn.SyncBatchNorm.convert_sync_batchnorm(model)
        """
        if not isinstance(layer, Layer):
            raise TypeError(f"SyncBatchNorm.convert_sync_batchnorm: argument 'layer' expected an "
                            f"eager.nn.Layer, got {type(layer).__name__}")
        converted = layer
        if isinstance(layer, (BatchNorm1D, BatchNorm2D, BatchNorm3D)):
            converted = cls(layer._num_features, layer._momentum, layer._epsilon,
                            weight_attr=False if layer.weight is None else None,
                            bias_attr=False if layer.bias is None else None, data_format=layer._data_format)
            if layer.weight is not None:   # else the SyncBatchNorm's own fixed ones, as Paddle's
                converted.weight = layer.weight
            if layer.bias is not None:
                converted.bias = layer.bias
            converted._mean, converted._variance = layer._mean, layer._variance
            converted.training = layer.training
        for name, sublayer in list(layer.named_children()):
            converted.add_sublayer(name, cls.convert_sync_batchnorm(sublayer))
        return converted


__all__ = ["SyncBatchNorm"]
