"""Text helpers (Paddle's ``paddle.text``): Viterbi decoding (:func:`viterbi_decode`,
:class:`ViterbiDecoder`) and ``datasets`` (UCIHousing, Imdb, Imikolov, Movielens,
Conll05st, WMT14, WMT16) read from local files in Paddle's formats; nothing is downloaded). As in
Paddle, the dataset classes are also reachable here (``eager.text.UCIHousing``).

>>> import eager
>>> decoder = eager.text.ViterbiDecoder(eager.rand([4, 4]))
>>> scores, path = decoder(eager.rand([2, 3, 4]), eager.to_tensor([3, 1]))
>>> path.shape
[2, 3]
"""
from . import datasets
from .datasets import *  # noqa: F401,F403
from .viterbi_decode import ViterbiDecoder, viterbi_decode

# Paddle's list and order (what its data-loading guide prints): the datasets module itself is not in it.
__all__ = [*datasets.__all__, "ViterbiDecoder", "viterbi_decode"]
