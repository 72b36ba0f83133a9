"""Text datasets (Paddle's ``paddle.text.datasets``): UCIHousing, Imdb, Imikolov,
Movielens, Conll05st, WMT14 and WMT16, read from local files in Paddle's formats (this build never
downloads; a missing file is an error naming the file, Paddle's URL and where to
put it).

>>> from eager.text.datasets import UCIHousing
>>> features, price = UCIHousing("housing.data", mode="train")[0]
>>> features.shape
(13,)
"""
from .conll05 import Conll05st
from .imdb import Imdb
from .imikolov import Imikolov
from .movielens import Movielens
from .uci_housing import UCIHousing
from .wmt14 import WMT14
from .wmt16 import WMT16

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16"]
