"""eager.text (Paddle's paddle.text): Viterbi decoding against a brute-force
search over every tag path, and the text datasets on tiny files written here in
the real formats."""
import doctest
import gzip
import importlib
import io
import itertools
import tarfile
import zipfile

import numpy as np
import pytest

import eager
from eager.text import datasets as D
from eager.vision.datasets import _files

pytestmark = pytest.mark.usefixtures("device")


# ---------------------------------------------------------------- viterbi_decode

def brute_force(potentials, transitions, lengths, bos_eos):
    """Scores and paths by scoring every tag sequence (Paddle's definition: with
    bos/eos, row -1 of the transitions is added at the first step and row -2 after
    the last; a length-0 sequence scores its best first step and decodes to zeros)."""
    batch, _, tags = potentials.shape
    start = transitions[-1] if bos_eos else np.zeros(tags)
    stop = transitions[-2] if bos_eos else np.zeros(tags)
    width = max(lengths)
    scores, paths = np.zeros(batch), np.zeros((batch, width), np.int64)
    for b, length in enumerate(lengths):
        if length == 0:
            scores[b] = np.max(potentials[b, 0] + start)
            continue
        best = None
        for path in itertools.product(range(tags), repeat=length):
            score = start[path[0]] + stop[path[-1]]
            score += sum(potentials[b, t, path[t]] for t in range(length))
            score += sum(transitions[path[t - 1], path[t]] for t in range(1, length))
            if best is None or score > best:
                best, chosen = score, path
        scores[b], paths[b, :length] = best, chosen
    return scores, paths


@pytest.mark.parametrize("bos_eos", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_viterbi_decode_matches_a_brute_force_search(bos_eos, dtype):
    rng = np.random.default_rng(7)
    potentials = rng.normal(size=(5, 4, 3)).astype(dtype)
    transitions = rng.normal(size=(3, 3)).astype(dtype)
    lengths = [4, 1, 3, 0, 2]
    scores, paths = eager.text.viterbi_decode(eager.to_tensor(potentials), eager.to_tensor(transitions),
                                              eager.to_tensor(np.array(lengths, np.int64)), bos_eos)
    want_scores, want_paths = brute_force(potentials.astype(np.float64), transitions.astype(np.float64),
                                          lengths, bos_eos)
    assert scores.dtype == eager.float32 if dtype == "float32" else scores.dtype == eager.float64
    assert paths.dtype == eager.int64 and paths.shape == [5, 4] and scores.shape == [5]
    assert scores.stop_gradient and paths.stop_gradient
    assert scores.place == potentials_place()
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-5)
    np.testing.assert_array_equal(paths.numpy(), want_paths)


def potentials_place():
    return eager.to_tensor([1.0]).place


def test_paths_are_as_wide_as_the_longest_sequence_and_the_layer_agrees():
    rng = np.random.default_rng(3)
    potentials = eager.to_tensor(rng.normal(size=(3, 6, 4)).astype("float32"), stop_gradient=False)
    transitions = eager.to_tensor(rng.normal(size=(4, 4)).astype("float32"), stop_gradient=False)
    lengths = eager.to_tensor(np.array([2, 3, 1]))
    scores, paths = eager.text.viterbi_decode(potentials, transitions, lengths)
    assert paths.shape == [3, 3]
    want_scores, want_paths = brute_force(potentials.numpy().astype(np.float64),
                                          transitions.numpy().astype(np.float64), [2, 3, 1], True)
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-5)
    np.testing.assert_array_equal(paths.numpy(), want_paths)
    decoder = eager.text.ViterbiDecoder(transitions)
    assert isinstance(decoder, eager.nn.Layer) and decoder.include_bos_eos_tag is True
    layer_scores, layer_paths = decoder(potentials, lengths)
    np.testing.assert_array_equal(layer_scores.numpy(), scores.numpy())
    np.testing.assert_array_equal(layer_paths.numpy(), paths.numpy())
    assert potentials.grad is None and transitions.grad is None


def test_forbidden_transitions_stay_forbidden():
    # -inf forbids tag 1 -> tag 0; the decoded path avoids it though tag 0 scores best.
    potentials = eager.to_tensor(np.array([[[0.0, 5.0], [9.0, 0.0], [9.0, 0.0]]], np.float32))
    transitions = eager.to_tensor(np.array([[0.0, 0.0], [-np.inf, 0.0]], np.float32))
    scores, paths = eager.text.viterbi_decode(potentials, transitions, eager.to_tensor([3]), False)
    assert paths.numpy().tolist() == [[0, 0, 0]] and float(scores[0]) == 18.0


def test_ties_pick_the_lowest_tag_and_int32_lengths_are_accepted():
    potentials = eager.zeros([2, 3, 4])
    scores, paths = eager.text.viterbi_decode(potentials, eager.zeros([4, 4]),
                                              eager.to_tensor(np.array([3, 2], np.int32)), False)
    assert scores.numpy().tolist() == [0.0, 0.0] and paths.numpy().tolist() == [[0, 0, 0], [0, 0, 0]]


def test_viterbi_decode_bad_inputs_raise_clear_errors():
    pot = eager.rand([2, 3, 4])
    trans = eager.rand([4, 4])
    lengths = eager.to_tensor([3, 1])
    with pytest.raises(TypeError, match="viterbi_decode: argument 'potentials' expected a Tensor"):
        eager.text.viterbi_decode(np.zeros((2, 3, 4)), trans, lengths)
    with pytest.raises(ValueError, match="'potentials' expected a 3-D Tensor"):
        eager.text.viterbi_decode(eager.rand([3, 4]), trans, lengths)
    with pytest.raises(ValueError, match="has 4 tags .* 'transition_params' is 3x3"):
        eager.text.viterbi_decode(pot, eager.rand([3, 3]), lengths)
    with pytest.raises(ValueError, match="'transition_params' expected a square 2-D"):
        eager.text.viterbi_decode(pot, eager.rand([4, 3]), lengths)
    with pytest.raises(TypeError, match="the same dtype"):
        eager.text.viterbi_decode(pot, eager.rand([4, 4], dtype="float64"), lengths)
    with pytest.raises(TypeError, match="'lengths' expected an int64"):
        eager.text.viterbi_decode(pot, trans, eager.to_tensor([3.0, 1.0]))
    with pytest.raises(ValueError, match=r"'lengths' expected shape \[2\]"):
        eager.text.viterbi_decode(pot, trans, eager.to_tensor([3]))
    with pytest.raises(ValueError, match=r"'lengths' expected values in \[0, 3\].*from 1 to 4"):
        eager.text.viterbi_decode(pot, trans, eager.to_tensor([4, 1]))
    with pytest.raises(TypeError, match="'include_bos_eos_tag' expected a bool"):
        eager.text.viterbi_decode(pot, trans, lengths, "yes")
    with pytest.raises(ValueError, match="at least 2 tags"):
        eager.text.viterbi_decode(eager.rand([2, 3, 1]), eager.rand([1, 1]), lengths)
    with pytest.raises(TypeError, match="ViterbiDecoder: argument 'transitions' expected a float32"):
        eager.text.ViterbiDecoder(eager.to_tensor([[1, 2], [3, 4]]))


# ---------------------------------------------------------------- datasets

def add_member(tar, name, data: bytes):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def test_all_is_paddles_list_and_the_datasets_module_stays_reachable():
    # Paddle's data-loading guide prints paddle.text.__all__; 'datasets' is not in Paddle's.
    assert eager.text.__all__ == ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16",
                                  "ViterbiDecoder", "viterbi_decode"]
    assert eager.text.datasets is D and eager.text.Imdb is D.Imdb
    namespace = {}
    exec("from eager.text import *", namespace)
    assert "datasets" not in namespace and "viterbi_decode" in namespace


def test_uci_housing_normalizes_features_and_splits_80_20(tmp_path):
    rows = np.random.default_rng(0).uniform(0, 50, (10, 14)).round(3)
    path = tmp_path / "housing.data"
    path.write_text("\n".join(" ".join(f"{v:9.3f}" for v in row) for row in rows) + "\n")
    train, test = D.UCIHousing(str(path)), D.UCIHousing(str(path), mode="TEST")
    assert len(train) == 8 and len(test) == 2
    features, price = test[1]
    assert features.dtype == np.float32 and features.shape == (13,) and price.shape == (1,)
    col = rows[:, 4]
    assert features[4] == np.float32((col[9] - col.mean()) / (col.max() - col.min()))
    assert price[0] == np.float32(rows[9, 13])  # the price is not normalized
    eager.set_default_dtype("float64")
    try:
        assert D.UCIHousing(str(path))[0][0].dtype == np.float64
    finally:
        eager.set_default_dtype("float32")
    assert eager.text.UCIHousing is D.UCIHousing


def test_uci_housing_bad_files_and_arguments(tmp_path):
    path = tmp_path / "housing.data"
    path.write_text("1 2 3\n")
    with pytest.raises(ValueError, match="UCIHousing: .* holds 3 numbers, expected rows of 14"):
        D.UCIHousing(str(path))
    path.write_text("1 2 x\n")
    with pytest.raises(ValueError, match="not a number"):
        D.UCIHousing(str(path))
    with pytest.raises(ValueError, match="UCIHousing: argument 'mode' expected one of 'train', 'test'"):
        D.UCIHousing(str(path), mode="val")
    with pytest.raises(FileNotFoundError, match="UCIHousing: argument 'data_file': no file"):
        D.UCIHousing(str(tmp_path / "nope"))


def test_missing_files_say_where_to_put_them(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "DATA_HOME", str(tmp_path))
    with pytest.raises(RuntimeError) as error:
        D.UCIHousing()
    message = str(error.value)
    assert "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data" in message
    assert str(tmp_path / "uci_housing" / "housing.data") in message
    with pytest.raises(ValueError, match=r"download is False: put 'imdb%2FaclImdb_v1.tar.gz'"):
        D.Imdb(download=False)
    with pytest.raises(RuntimeError, match="movielens%2Fml-1m.zip"):
        D.Movielens()
    (tmp_path / "uci_housing").mkdir()
    (tmp_path / "uci_housing" / "housing.data").write_text(" ".join(["1"] * 14) + "\n" + " ".join(["2"] * 14))
    assert len(D.UCIHousing(mode="test")) == 1


def write_imdb(path):
    reviews = {
        "aclImdb/train/pos/0_9.txt": b"A good film, a GOOD one!\n",
        "aclImdb/train/neg/1_2.txt": b"bad film; bad.\n",
        "aclImdb/train/pos/2_8.txt": b"good good\n",
        "aclImdb/test/neg/0_1.txt": b"a bad one\n",
        "aclImdb/test/pos/0_7.txt": b"film\n",
        "aclImdb/README": b"not a review good good good\n",
    }
    with tarfile.open(path, "w:gz") as tar:
        for name, text in reviews.items():
            add_member(tar, name, text)
    return str(path)


def test_imdb_builds_paddles_dictionary_and_labels(tmp_path):
    path = write_imdb(tmp_path / "aclImdb_v1.tar.gz")
    train = D.Imdb(path, mode="train", cutoff=1)
    # counts over train and test: good 4, a 3, bad 3, film 3, one 2 (the README is not a review)
    assert train.word_idx == {b"good": 0, b"a": 1, b"bad": 2, b"film": 3, b"one": 4, "<unk>": 5}
    assert len(train) == 3 and train.labels == [0, 0, 1]  # positives first, in archive order
    doc, label = train[0]
    assert doc.tolist() == [1, 0, 3, 1, 0, 4] and doc.dtype == np.int64
    assert label.tolist() == [0] and label.dtype == np.int64
    assert train[2][0].tolist() == [2, 3, 2]
    test = D.Imdb(path, mode="test", cutoff=2)
    assert test.word_idx == {b"good": 0, b"a": 1, b"bad": 2, b"film": 3, "<unk>": 4}
    assert [d.tolist() for d, _ in test] == [[3], [1, 2, 4]] and [int(l[0]) for _, l in test] == [0, 1]


def test_imdb_bad_arguments(tmp_path):
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"not a tar")
    with pytest.raises(ValueError, match="Imdb: cannot read .* as a tar archive"):
        D.Imdb(str(bad))
    with pytest.raises(TypeError, match="Imdb: argument 'cutoff' expected an int"):
        D.Imdb(write_imdb(tmp_path / "a.tgz"), cutoff=1.5)


def write_ptb(path, prefix="./"):
    texts = {"train": b" the cat sat \n the dog <unk> \n", "valid": b" the cat \n", "test": b" a cat sat down \n"}
    with tarfile.open(path, "w:gz") as tar:
        for split, text in texts.items():
            add_member(tar, f"{prefix}simple-examples/data/ptb.{split}.txt", text)
    return str(path)


def test_imikolov_ngrams_and_sequences(tmp_path):
    path = write_ptb(tmp_path / "simple-examples.tgz")
    ngram = D.Imikolov(path, data_type="ngram", window_size=3, min_word_freq=0)
    # counts over train + valid: <s> 3, <e> 3, the 3, cat 2, then dog, sat, <unk> once (bytes sort)
    assert ngram.word_idx == {"<e>": 0, "<s>": 1, b"the": 2, b"cat": 3, b"<unk>": 4, b"dog": 5, b"sat": 6,
                              "<unk>": 7}
    assert [tuple(int(v) for v in item) for item in ngram] == [(1, 2, 3), (2, 3, 6), (3, 6, 0),
                                                               (1, 2, 5), (2, 5, 4), (5, 4, 0)]
    seq = D.Imikolov(path, data_type="SEQ", mode="test", min_word_freq=1)
    assert seq.word_idx == {"<e>": 0, "<s>": 1, b"the": 2, b"cat": 3, "<unk>": 4}
    src, trg = seq[0]
    assert src.tolist() == [1, 4, 3, 4, 4] and trg.tolist() == [4, 3, 4, 4, 0] and src.dtype == np.int64
    assert len(D.Imikolov(path, data_type="SEQ", mode="test", window_size=4)) == 0
    assert len(D.Imikolov(write_ptb(tmp_path / "b.tgz", prefix=""), "NGRAM", 2)) == 8


def test_imikolov_bad_arguments(tmp_path):
    path = write_ptb(tmp_path / "s.tgz")
    with pytest.raises(ValueError, match="Imikolov: data_type='NGRAM' needs argument 'window_size' >= 1"):
        D.Imikolov(path)
    with pytest.raises(ValueError, match="argument 'data_type' expected 'NGRAM' or 'SEQ'"):
        D.Imikolov(path, data_type="words")
    with tarfile.open(tmp_path / "empty.tgz", "w:gz") as tar:
        add_member(tar, "x.txt", b"")
    with pytest.raises(ValueError, match="has no file './simple-examples/data/ptb.train.txt'"):
        D.Imikolov(str(tmp_path / "empty.tgz"), window_size=2)


def write_movielens(path, ratings):
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("ml-1m/movies.dat", "1::Toy Story (1995)::Animation|Comedy\n"
                                             "2::Heat\x85 (1995)::Action|Crime|Thriller\n".encode("latin-1"))
        package.writestr("ml-1m/users.dat", b"1::F::1::10::48067\n2::M::56::16::70072\n")
        package.writestr("ml-1m/ratings.dat", "".join(f"{u}::{m}::{r}::978300760\n" for u, m, r in ratings).encode())
    return str(path)


def test_movielens_items_and_the_seeded_split(tmp_path):
    ratings = [(1 + i % 2, 1 + (i // 2) % 2, 1 + i % 5) for i in range(40)]
    path = write_movielens(tmp_path / "ml-1m.zip", ratings)
    train = D.Movielens(path, mode="train", test_ratio=0.3, rand_seed=5)
    test = D.Movielens(path, mode="test", test_ratio=0.3, rand_seed=5)
    draws = np.random.RandomState(5).random_sample(40)
    assert len(test) == int((draws < 0.3).sum()) and len(train) + len(test) == 40
    first = int(np.flatnonzero(draws < 0.3)[0])
    u, m, r = ratings[first]
    item = test[0]
    assert len(item) == 8 and all(a.dtype == np.int64 for a in item[:7]) and item[7].dtype == np.float64
    assert item[0].tolist() == [u] and item[4].tolist() == [m] and item[7].tolist() == [2.0 * r - 5.0]
    assert train.categories_dict == {c: i for i, c in enumerate(["Action", "Animation", "Comedy", "Crime",
                                                                 "Thriller"])}
    # lines split at '\n' only, as iterating the file does: latin-1 '\x85' (NEL) does not end the
    # line of movie 2, then splits its title's words as whitespace, as in Paddle
    assert train.movie_title_dict == {"heat": 0, "story": 1, "toy": 2}
    user = D.Movielens(path, test_ratio=0.0)[0]  # ratings[0]: user 1 (F, age 1, job 10), Toy Story
    assert [a.tolist() for a in user[:7]] == [[1], [1], [0], [10], [1], [1, 2], [2, 1]]
    state = np.random.get_state()[1].copy()
    D.Movielens(path)
    np.testing.assert_array_equal(np.random.get_state()[1], state)  # the global generator is untouched


def test_movielens_bad_files(tmp_path):
    with pytest.raises(ValueError, match="names an unknown user or movie"):
        D.Movielens(write_movielens(tmp_path / "a.zip", [(3, 1, 4)]), test_ratio=0.0)
    with pytest.raises(ValueError, match="test_ratio' expected a number in \\[0, 1\\]"):
        D.Movielens(write_movielens(tmp_path / "b.zip", []), test_ratio=2)
    with zipfile.ZipFile(tmp_path / "c.zip", "w") as package:
        package.writestr("ml-1m/movies.dat", b"")
    with pytest.raises(ValueError, match="has no file 'ml-1m/users.dat'"):
        D.Movielens(str(tmp_path / "c.zip"))


def test_docstring_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the dataset examples read files of Paddle's names from here
    (tmp_path / "housing.data").write_text("\n".join(" ".join([str(i)] * 14) for i in range(5)))
    write_imdb(tmp_path / "aclImdb_v1.tar.gz")
    write_ptb(tmp_path / "simple-examples.tgz")
    write_movielens(tmp_path / "ml-1m.zip", [(1, 1, 5)] * 20)
    write_conll(tmp_path)
    write_wmt14(tmp_path)
    write_wmt16(tmp_path)
    names = ["eager.text", "eager.text.viterbi_decode", "eager.text.datasets", "eager.text.datasets.uci_housing",
             "eager.text.datasets.imdb", "eager.text.datasets.imikolov", "eager.text.datasets.movielens",
             "eager.text.datasets.conll05", "eager.text.datasets.wmt14", "eager.text.datasets.wmt16"]
    for name in names:
        failures, tried = doctest.testmod(importlib.import_module(name), extraglobs={"eager": eager})
        assert failures == 0 and tried > 0, name


PROPS = """\
-      (A0*   *
-      *)     *
saw    (V*)   *
-      (A1*   (A0*
-      *)     *)
ran    *      (V*)

Stop   (V*)

"""


def write_conll(tmp_path, words=("The cat saw the dog ran", "Stop")):
    sentences = [w.split() for w in words]
    word_lines = "".join("\n".join(s) + "\n\n" for s in sentences)
    tar_path = tmp_path / "conll05st-tests.tar.gz"
    with tarfile.open(tar_path, "w:gz") as tar:
        add_member(tar, "conll05st-release/test.wsj/words/test.wsj.words.gz", gzip_bytes(word_lines.encode()))
        add_member(tar, "conll05st-release/test.wsj/props/test.wsj.props.gz", gzip_bytes(PROPS.encode()))
    (tmp_path / "wordDict.txt").write_text("<unk>\nThe\ncat\nsaw\nthe\ndog\nbos\neos\n")
    (tmp_path / "verbDict.txt").write_text("ran\nsaw\n")
    (tmp_path / "targetDict.txt").write_text("B-A0\nI-A0\nB-V\nB-A1\nI-A1\nI-V\nO\n")
    return [str(tmp_path / n) for n in ("conll05st-tests.tar.gz", "wordDict.txt", "verbDict.txt",
                                        "targetDict.txt")]


def gzip_bytes(data):
    return gzip.compress(data)


def test_conll05st_items(tmp_path):
    ds = D.Conll05st(*write_conll(tmp_path))
    assert len(ds) == 3 and ds.predicates == ["saw", "ran", "Stop"]
    word_dict, verb_dict, label_dict = ds.get_dict()
    assert label_dict == {"B-A0": 0, "I-A0": 1, "B-V": 2, "I-V": 3, "B-A1": 4, "I-A1": 5, "O": 6}
    assert verb_dict == {"ran": 0, "saw": 1}
    item = ds[0]  # "saw" at index 2: (A0 The cat) saw (A1 the dog) ran
    assert len(item) == 9 and all(a.dtype == np.int64 and a.shape == (6,) for a in item)
    words, n2, n1, c0, p1, p2, pred, mark, labels = (a.tolist() for a in item)
    assert words == [1, 2, 3, 4, 5, 0]
    assert (n2[0], n1[0], c0[0], p1[0], p2[0]) == (1, 2, 3, 4, 5) and pred == [1] * 6
    assert mark == [1, 1, 1, 1, 1, 0] and labels == [0, 1, 2, 4, 5, 6]
    words, n2, n1, c0, p1, p2, pred, mark, labels = (a.tolist() for a in ds[1])  # "ran", the last word
    assert (n2[0], n1[0], c0[0], p1[0], p2[0]) == (4, 5, 0, 7, 7) and mark == [0, 0, 0, 1, 1, 1]
    assert labels == [6, 6, 6, 0, 1, 2] and pred == [0] * 6
    with pytest.raises(ValueError, match="the verb 'Stop' of item 2 is not in"):
        ds[2]
    with pytest.raises(RuntimeError, match="conll05st%2Femb"):
        ds.get_embedding()
    emb = tmp_path / "emb"
    emb.write_bytes(b"")
    assert D.Conll05st(*write_conll(tmp_path), emb_file=str(emb)).get_embedding() == str(emb)


def test_conll05st_drops_a_sentence_without_its_closing_blank_line(tmp_path):
    files = write_conll(tmp_path)
    with tarfile.open(files[0], "w:gz") as tar:  # as Paddle: a sentence ends at a blank line
        add_member(tar, "conll05st-release/test.wsj/words/test.wsj.words.gz", gzip_bytes(b"The\ncat\n\nStop\n"))
        add_member(tar, "conll05st-release/test.wsj/props/test.wsj.props.gz",
                   gzip_bytes(b"-  (A0*\nsaw  (V*)\n\nStop (V*)\n"))
    ds = D.Conll05st(*files)
    assert ds.predicates == ["saw"] and ds.labels == [["B-A0", "B-V"]]
    with open(files[3], "a") as f:
        f.write("B-AM\n")
    assert D.Conll05st(*files).label_dict["O"] == 8
    bad = tmp_path / "bad.tgz"
    with tarfile.open(bad, "w:gz") as tar:
        add_member(tar, "conll05st-release/test.wsj/words/test.wsj.words.gz", b"not gzip")
        add_member(tar, "conll05st-release/test.wsj/props/test.wsj.props.gz", b"not gzip")
    with pytest.raises(ValueError, match="Conll05st: cannot read the gzip members"):
        D.Conll05st(str(bad), *files[1:])


def write_wmt14(tmp_path):
    path = tmp_path / "wmt14.tgz"
    with tarfile.open(path, "w:gz") as tar:
        add_member(tar, "wmt14/src.dict", b"<s>\n<e>\n<unk>\nthe\ncat\nsat\n")
        add_member(tar, "wmt14/trg.dict", b"<s>\n<e>\n<unk>\nle\nchat\n")
        add_member(tar, "wmt14/train/train", ("the cat sat\tle chat\nbad line\n" + "the " * 79 + "\tle\n"
                                              "cat dog\tchien chat\n").encode())
        add_member(tar, "wmt14/test/test", b"sat\tle\n")
    return str(path)


def test_wmt14_items_and_dictionaries(tmp_path):
    path = write_wmt14(tmp_path)
    train = D.WMT14(path, mode="train", dict_size=5)
    assert len(train) == 2  # the malformed line and the 81-word source are left out
    src, trg, nxt = train[0]
    assert src.tolist() == [0, 3, 4, 2, 1] and trg.tolist() == [0, 3, 4] and nxt.tolist() == [3, 4, 1]
    assert [a.tolist() for a in train[1]] == [[0, 4, 2, 1], [0, 2, 4], [2, 4, 1]]
    src_dict, trg_dict = train.get_dict()
    assert len(src_dict) == 5 and "sat" not in src_dict and trg_dict["chat"] == 4
    assert train.get_dict(reverse=True)[1][3] == "le"
    assert len(D.WMT14(path, mode="test", dict_size=10)) == 1
    with pytest.raises(ValueError, match="WMT14: argument 'dict_size' expected a positive int"):
        D.WMT14(path)
    with pytest.raises(ValueError, match="argument 'mode' expected one of 'train', 'test', 'gen'"):
        D.WMT14(path, mode="val", dict_size=5)


def write_wmt16(tmp_path):
    path = tmp_path / "wmt16.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        add_member(tar, "wmt16/train", "a cat sat\tEine Katze sitzt\na dog\tein Hund Hund\n".encode())
        add_member(tar, "wmt16/val", "a bird\tein Vogel\n".encode())
        add_member(tar, "wmt16/test", b"")
    return str(path)


def test_wmt16_builds_each_languages_dictionary_from_its_column(tmp_path):
    path = write_wmt16(tmp_path)
    train = D.WMT16(path, src_dict_size=5, trg_dict_size=100)
    assert train.src_dict == {"<s>": 0, "<e>": 1, "<unk>": 2, "a": 3, "cat": 4}
    assert train.trg_dict == {"<s>": 0, "<e>": 1, "<unk>": 2, "Hund": 3, "Eine": 4, "Katze": 5, "sitzt": 6,
                              "ein": 7}
    assert [a.tolist() for a in train[1]] == [[0, 3, 2, 1], [0, 7, 3, 3], [7, 3, 3, 1]]
    val = D.WMT16(path, mode="val", src_dict_size=100, trg_dict_size=100, lang="de")
    assert [a.tolist() for a in val[0]] == [[0, 7, 2, 1], [0, 3, 2], [3, 2, 1]]
    assert val.get_dict("en", reverse=True)[3] == "a" and val.get_dict("de") == val.src_dict
    assert len(D.WMT16(path, mode="test", src_dict_size=5, trg_dict_size=5)) == 0
    with pytest.raises(ValueError, match="WMT16: argument 'lang' expected 'en' or 'de'"):
        D.WMT16(path, src_dict_size=5, trg_dict_size=5, lang="fr")
    with pytest.raises(ValueError, match="argument 'trg_dict_size' expected a positive int"):
        D.WMT16(path, src_dict_size=5)
