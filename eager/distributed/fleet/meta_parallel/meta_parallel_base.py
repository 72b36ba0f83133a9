"""``MetaParallelBase``: what the wrappers ``fleet.distributed_model`` returns
share (Paddle's ``meta_parallel.MetaParallelBase``): the wrapped network
``_layers``, the hybrid communicate group and the strategy, a forward that is
the network's, and the one-time broadcast that makes the replicas of a group
start equal (:func:`sync_params_buffers`)."""
from __future__ import annotations

from ....autograd import no_grad
from ....nn.layer import Layer
from ...collective import broadcast


def sync_params_buffers(layers: Layer, group, src: int, skip_shards: bool) -> None:
    """Broadcasts every parameter and buffer of ``layers`` from rank ``src`` of
    ``group``, in place; with ``skip_shards`` the tensor-parallel shards
    (``is_distributed``), which differ by design, stay as they are."""
    tensors = [p for p in layers.parameters() if not (skip_shards and p.is_distributed)]
    tensors += [b for b in layers.buffers() if b is not None]
    with no_grad():
        for tensor in tensors:
            broadcast(tensor, src=src, group=group)


class MetaParallelBase(Layer):
    """A Layer around ``layers`` for hybrid-parallel training over ``hcg``'s
    groups; calling it calls ``layers``. Subclasses check what they wrap and
    synchronize the replicas in their ``__init__``."""

    def __init__(self, layers, hcg, strategy=None):
        if not isinstance(layers, Layer):
            raise TypeError(f"{type(self).__name__}: argument 'layers' expected an eager.nn.Layer, got "
                            f"{type(layers).__name__}")
        super().__init__(layers.full_name() + "_meta_parallel_base")
        self._layers = layers
        self._hcg = hcg
        self._strategy = strategy

    def forward(self, *inputs, **kwargs):
        """The wrapped network's forward."""
        return self._layers(*inputs, **kwargs)


__all__ = ["MetaParallelBase", "sync_params_buffers"]
