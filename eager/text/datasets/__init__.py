"""Text datasets (Paddle's ``paddle.text.datasets``): UCIHousing, Imdb, Imikolov
and Movielens, read from local files in Paddle's formats (this build never
downloads; a missing file is an error naming the file, Paddle's URL and where to
put it).

>>> from eager.text.datasets import UCIHousing
>>> features, price = UCIHousing("housing.data", mode="train")[0]
>>> features.shape
(13,)
"""
from .imdb import Imdb
from .imikolov import Imikolov
from .movielens import Movielens
from .uci_housing import UCIHousing

__all__ = ["Imdb", "Imikolov", "Movielens", "UCIHousing"]
