"""Paddle's ``paddle.dataset.uci_housing``: the Boston house prices as legacy
reader creators.

``housing.data`` is looked for in ``DATA_HOME/uci_housing/`` (see
:func:`eager.dataset.common.download`; nothing is downloaded) and read with
:mod:`eager.text.datasets.uci_housing`'s parser: every feature centred on its
mean and divided by its range, the first 80% of the rows for training. A sample
is ``(features, price)``: float64 arrays of 13 and 1 values. As Paddle, the
data is read once per process (``UCI_TRAIN_DATA``/``UCI_TEST_DATA``).

>>> features, price = next(eager.dataset.uci_housing.train()())  # doctest: +SKIP
"""
from __future__ import annotations

import importlib
import os
import tarfile
import tempfile

from ..text.datasets.uci_housing import feature_names, load_normalized  # noqa: F401  (Paddle's names)
from ..utils.deprecation import deprecated
from . import common

__all__ = []

URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
MD5 = "d4accdce7a25600298819f8e28e8d593"

UCI_TRAIN_DATA = None
UCI_TEST_DATA = None

FLUID_URL_MODEL = "https://github.com/PaddlePaddle/book/raw/develop/01.fit_a_line/fluid/fit_a_line.fluid.tar"
FLUID_MD5_MODEL = "6e6dd637ccd5993961f68bfbde46090b"

_UPDATE = dict(since="2.0.0", update_to="paddle.text.datasets.UCIHousing", level=1,
               reason="Please use new dataset API which supports paddle.io.DataLoader")


def feature_range(maximums, minimums):
    """Draws the range of each feature (``maximums - minimums``) as a bar chart
    into ``image/ranges.png`` under the working folder (needs matplotlib)."""
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError:
        raise ImportError("uci_housing.feature_range needs matplotlib; install it") from None
    matplotlib.use("Agg")
    plt = importlib.import_module("matplotlib.pyplot")
    fig, ax = plt.subplots()
    feature_num = len(maximums)
    ax.bar(list(range(feature_num)), maximums - minimums, color="r", align="center")
    ax.set_title("feature scale")
    plt.xticks(list(range(feature_num)), feature_names[:feature_num])
    plt.xlim([-1, feature_num])
    fig.set_figheight(6)
    fig.set_figwidth(10)
    os.makedirs("image", exist_ok=True)
    fig.savefig("image/ranges.png", dpi=48)
    plt.close(fig)


def load_data(filename, feature_num=14, ratio=0.8):
    """Reads ``filename`` (``feature_num`` numbers a row) into the module's
    ``UCI_TRAIN_DATA`` (the first ``ratio`` of the rows) and ``UCI_TEST_DATA``
    (the rest), normalized; does nothing when they are loaded already, as
    Paddle's."""
    global UCI_TRAIN_DATA, UCI_TEST_DATA
    if UCI_TRAIN_DATA is not None and UCI_TEST_DATA is not None:
        return
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 <= ratio <= 1:
        raise ValueError(f"uci_housing.load_data: argument 'ratio' expected a number in [0, 1], got {ratio!r}")
    data = load_normalized("uci_housing", filename, feature_num)
    offset = int(data.shape[0] * ratio)
    UCI_TRAIN_DATA, UCI_TEST_DATA = data[:offset], data[offset:]


def _reader(data):
    def reader():
        for row in data:
            yield row[:-1], row[-1:]
    return reader


@deprecated(**_UPDATE)
def train():
    """The training rows: a reader creator of ``(features [13], price [1])``."""
    load_data(common.download(URL, "uci_housing", MD5))
    return _reader(UCI_TRAIN_DATA)


@deprecated(**_UPDATE)
def test():
    """The test rows: a reader creator of ``(features [13], price [1])``."""
    load_data(common.download(URL, "uci_housing", MD5))
    return _reader(UCI_TEST_DATA)


def fluid_model():
    """Unpacks Paddle's fit-a-line model archive (``fit_a_line.fluid.tar`` in
    ``DATA_HOME/uci_housing/``) into a new temporary folder and returns it. The
    model is a static-graph program, which eager does not run."""
    parameter_tar = common.download(FLUID_URL_MODEL, "uci_housing", FLUID_MD5_MODEL, "fit_a_line.fluid.tar")
    dirpath = tempfile.mkdtemp()
    with tarfile.open(parameter_tar, mode="r") as tar:
        tar.extractall(path=dirpath, filter="data")  # refuses members that would land outside dirpath
    return dirpath


@deprecated(**_UPDATE)
def predict_reader():
    """One sample to predict on: a 1-tuple of the first test row's features."""
    load_data(common.download(URL, "uci_housing", MD5))
    return (UCI_TEST_DATA[0][:-1],)


@deprecated(**_UPDATE)
def fetch():
    """Checks that ``housing.data`` is in ``DATA_HOME/uci_housing/`` (Paddle
    downloads it; a missing file raises :func:`eager.dataset.common.download`'s error)."""
    common.download(URL, "uci_housing", MD5)
