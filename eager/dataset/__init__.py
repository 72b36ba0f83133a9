"""Paddle's ``paddle.dataset``: the legacy (Paddle 1.x style) datasets as
*reader creators*: each module's ``train()``/``test()``/... returns a reader,
a callable whose call yields the samples (see :mod:`eager.reader`).

eager never downloads: each module looks for Paddle's files in
``eager.dataset.common.DATA_HOME/<module>/`` (``~/.cache/paddle/dataset/``,
where Paddle keeps them), checks their MD5, and when one is missing raises
an error naming its URL and where to put it. New code should use the
``Dataset`` classes of :mod:`eager.vision.datasets` and
:mod:`eager.text.datasets` with :class:`eager.io.DataLoader`.

>>> sorted(m for m in dir(eager.dataset) if not m.startswith("_"))[:4]
['cifar', 'common', 'conll05', 'flowers']
"""
from . import (  # noqa: F401
    cifar,
    common,
    conll05,
    flowers,
    image,
    imdb,
    imikolov,
    mnist,
    movielens,
    uci_housing,
    voc2012,
    wmt14,
    wmt16,
)

# As Paddle: no names listed under paddle.dataset itself.
__all__ = []
