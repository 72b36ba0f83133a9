"""The Embedding layer (Paddle's ``paddle.nn.Embedding``)."""
from __future__ import annotations

import functools
import numbers

from ..autograd import no_grad
from . import functional as F
from . import initializer as _init
from .layer import Layer, ParamAttr, name_repr


class Embedding(Layer):
    """A lookup table: ids ``x`` (int32/int64, any shape) -> rows of ``weight``
    ([num_embeddings, embedding_dim]), shape ``x.shape + [embedding_dim]``.

    ``padding_idx`` (negative counts from the end): that row is zeroed at
    creation, looks up as zeros and gets no gradient. ``max_norm``/``norm_type``:
    looked-up rows longer than max_norm are rescaled in place before the lookup.
    ``sparse=True`` makes ``weight.grad`` a SelectedRows of the looked-up rows
    only, which SGD and Adam (``lazy_mode``) apply row by row. ``weight_attr``:
    a ParamAttr, initializer or name; the default initializer is XavierUniform,
    as for Paddle's other weights. The positional order is Paddle 2.x's
    (``sparse`` fourth, then ``weight_attr``, ``name``); ``max_norm`` and
    ``norm_type`` come after ``name``, so pass them by keyword.

    >>> emb = eager.nn.Embedding(10, 4, padding_idx=0, sparse=True)
    >>> out = emb(eager.to_tensor([[1, 0], [3, 3]]))
    >>> out.shape
    [2, 2, 4]
    >>> out.sum().backward()
    >>> emb.weight.grad.impl.value.dims      # 4 rows stored, not 10
    (4, 4)
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None, sparse: bool = False,
                 weight_attr=None, name=None, max_norm=None, norm_type: float = 2.0, generator=None):
        super().__init__()
        self._name = name
        for arg, value in (("num_embeddings", num_embeddings), ("embedding_dim", embedding_dim)):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Embedding: argument '{arg}' expected a positive int, got {value!r}")
        if not isinstance(sparse, bool):
            raise TypeError(f"Embedding: argument 'sparse' expected a bool, got {sparse!r}")
        if weight_attr is False:
            raise ValueError("Embedding: argument 'weight_attr' cannot be False: an Embedding needs a weight")
        self._num_embeddings = int(num_embeddings)
        self._embedding_dim = int(embedding_dim)
        padding = F.input._padding_idx("Embedding", padding_idx, self._num_embeddings)
        self._padding_idx = padding
        self._given_padding_idx = padding_idx  # repr shows it as given (-1, not 9), as Paddle's
        self._max_norm = max_norm
        self._norm_type = norm_type
        self._sparse = sparse
        self._weight_attr = ParamAttr.from_argument(weight_attr, "Embedding", "weight_attr")
        self.weight = self.create_parameter([self._num_embeddings, self._embedding_dim], self._weight_attr,
                                            default_initializer=_init.XavierUniform(), generator=generator)
        if padding != -1:
            if self.weight._init_func is not None:  # made under LazyGuard: zeroed when initialize() draws it
                self.weight._init_func = functools.partial(_zero_row, self.weight._init_func, padding)
            else:
                with no_grad():
                    self.weight[padding] = 0.0

    def forward(self, x):
        """The rows of weight that the ids in x pick."""
        return F.embedding(x, self.weight, None if self._padding_idx == -1 else self._padding_idx,
                           self._sparse, max_norm=self._max_norm, norm_type=self._norm_type)

    def extra_repr(self) -> str:
        """The sizes, padding_idx where given, sparse and a given name (Paddle's text)."""
        extra = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._given_padding_idx is not None:
            extra += f", padding_idx={self._given_padding_idx}"
        return extra + f", sparse={self._sparse}{name_repr(self._name)}"


__all__ = ["Embedding"]


def _zero_row(draw, row: int):
    """The values ``draw()`` gives (a NumPy array), with ``row`` zeroed: the padding row
    of an Embedding built under LazyGuard."""
    values = draw()
    values[row] = 0
    return values
