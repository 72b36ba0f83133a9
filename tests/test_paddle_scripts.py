"""Paddle 2.x training scripts as a Paddle user writes them, run with ``import
eager as paddle`` and nothing else changed: the start-up calls (disable_static,
is_compiled_with_cuda, set_device, seed, set_flags), a model, a loss and an
optimizer, and the loop. Each must learn its task, so a gap in the API or a wrong
gradient fails here."""
from __future__ import annotations

import functools
import gzip
import io
import os
import pickle
import random
import re
import struct
import tarfile

import numpy as np
import pytest

import eager as paddle


@pytest.fixture
def startup_state():
    """The script's start-up calls change process-wide state: put it back afterwards
    (under the suite's CuPy stand-in, is_compiled_with_cuda() is True and the script
    moves to the GPU)."""
    device, flags = paddle.get_device(), paddle.get_flags(["FLAGS_cudnn_deterministic"])
    yield
    paddle.set_device(device)
    paddle.set_flags(flags)


def _blobs(n, classes, seed):
    """Three well-separated Gaussian clusters in 4-d, as float32 features and int64 labels."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 4.0, (classes, 4))
    labels = rng.integers(0, classes, n)
    return (centres[labels] + rng.normal(0.0, 1.0, (n, 4))).astype("float32"), labels.astype("int64")


def test_a_classification_script_with_the_startup_calls_and_label_smoothing_learns(startup_state):
    paddle.disable_static()
    paddle.set_device("gpu" if paddle.is_compiled_with_cuda() else "cpu")
    paddle.seed(2024)
    paddle.set_flags({"FLAGS_cudnn_deterministic": True})
    assert paddle.in_dynamic_mode()

    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1 = paddle.nn.Linear(4, 32)
            self.act = paddle.nn.Silu()
            self.fc2 = paddle.nn.Linear(32, 3)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    features, labels = _blobs(256, 3, seed=0)
    dataset = paddle.io.TensorDataset([paddle.to_tensor(features), paddle.to_tensor(labels)])
    loader = paddle.io.DataLoader(dataset, batch_size=32, shuffle=True)
    model = Net()
    scheduler = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=0.01, T_max=10)
    opt = paddle.optimizer.NAdam(learning_rate=scheduler, parameters=model.parameters())
    for _ in range(10):
        for x, y in loader:
            soft = paddle.nn.functional.label_smooth(paddle.nn.functional.one_hot(y, 3), epsilon=0.1)
            loss = paddle.mean(paddle.nn.functional.softmax_with_cross_entropy(model(x), soft, soft_label=True))
            loss.backward()
            opt.step()
            opt.clear_grad()
        scheduler.step()
    with paddle.no_grad():
        predicted = paddle.argmax(model(paddle.to_tensor(features)), axis=-1)
    assert predicted.place.is_gpu_place() == paddle.is_compiled_with_cuda()
    accuracy = float(paddle.mean(paddle.cast(predicted == paddle.to_tensor(labels), "float32")))
    assert accuracy > 0.95, accuracy
    assert paddle.numel(predicted).item() == 256 and paddle.is_tensor(predicted)


def test_a_policy_gradient_script_with_paddle_distribution_learns_the_better_arm():
    paddle.seed(7)
    rewards = np.array([0.2, 0.8, 0.5], dtype="float32")  # the mean reward of each arm
    rng = np.random.default_rng(7)
    logits = paddle.create_parameter([3], "float32", default_initializer=paddle.nn.initializer.Constant(0.0))
    opt = paddle.optimizer.RAdam(learning_rate=0.1, parameters=[logits])
    for _ in range(150):
        policy = paddle.distribution.Categorical(paddle.nn.functional.softmax(logits))
        arms = policy.sample([16])
        reward = paddle.to_tensor((rng.random(16) < rewards[arms.numpy()]).astype("float32"))
        advantage = reward - paddle.mean(reward)
        loss = -paddle.mean(policy.log_prob(arms) * advantage)
        loss.backward()
        opt.step()
        opt.clear_grad()
    probabilities = paddle.nn.functional.softmax(logits).numpy()
    assert probabilities.argmax() == 1 and probabilities[1] > 0.8, probabilities


def test_a_bag_of_words_script_with_sparse_inputs_and_incubate_lookahead_learns():
    # Documents as a sparse COO matrix of word counts, a dense embedding table multiplied by
    # it (paddle.sparse.matmul), a fused feed-forward block from paddle.incubate, and
    # LookAhead around Adam: the task is "does the document hold word 0 or word 1 more often".
    paddle.seed(11)
    rng = np.random.default_rng(11)
    vocabulary, documents = 40, 128
    counts = rng.poisson(0.15, (documents, vocabulary)).astype("float32")
    counts[:, :2] += rng.poisson(1.0, (documents, 2))
    labels = (counts[:, 1] > counts[:, 0]).astype("int64")
    rows, cols = np.nonzero(counts)
    bag = paddle.sparse.sparse_coo_tensor(paddle.to_tensor(np.stack([rows, cols])),
                                          paddle.to_tensor(counts[rows, cols]), [documents, vocabulary])
    assert bag.is_sparse_coo() and bag.nnz() == len(rows)

    embedding = paddle.create_parameter([vocabulary, 16], "float32")
    block = paddle.incubate.nn.FusedFeedForward(16, 32, dropout_rate=0.0, act_dropout_rate=0.0)
    head = paddle.nn.Linear(16, 2)
    parameters = [embedding] + block.parameters() + head.parameters()
    opt = paddle.incubate.LookAhead(paddle.optimizer.Adam(learning_rate=0.02, parameters=parameters),
                                    alpha=0.5, k=5)
    for _ in range(60):
        hidden = paddle.sparse.matmul(bag, embedding)
        loss = paddle.nn.functional.cross_entropy(head(block(hidden.unsqueeze(1)).squeeze(1)),
                                                  paddle.to_tensor(labels))
        loss.backward()
        opt.step()
        opt.clear_grad()
    with paddle.no_grad():
        logits = head(block(paddle.sparse.matmul(bag, embedding).unsqueeze(1)).squeeze(1))
    accuracy = float((logits.argmax(-1).numpy() == labels).mean())
    assert accuracy > 0.9, accuracy


# -- Paddle's own tutorials (PaddlePaddle/docs, docs/practices), re-told ---------------------------
# Each test below follows one tutorial's code: its Dataset, model, loss, optimizer and loop as the
# tutorial writes them. Only the data is synthetic (the real downloads cannot run offline): it has
# the real dataset's form (MNIST's IDX files, CIFAR's pickled archive, IMDB's tar of reviews, ...),
# read through the same paddle.vision / paddle.text dataset class where the tutorial uses one, and
# sizes and epochs are shrunk so that each runs in seconds. The data is made separable, so each
# script must learn: a gap in the API, a wrong default or a wrong gradient fails here.

def _mnist_files(folder, n, seed, prefix):
    """MNIST's gzip IDX files: digit k is a bright 6x5 block at one of ten places over noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n).astype(np.uint8)
    images = rng.integers(0, 60, (n, 28, 28)).astype(np.uint8)
    for i, k in enumerate(labels):
        row, col = divmod(int(k), 5)
        images[i, 4 + 12 * row:10 + 12 * row, 1 + 5 * col:6 + 5 * col] = 230
    image_path = os.path.join(folder, f"{prefix}-images-idx3-ubyte.gz")
    label_path = os.path.join(folder, f"{prefix}-labels-idx1-ubyte.gz")
    with gzip.open(image_path, "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
    with gzip.open(label_path, "wb") as f:
        f.write(struct.pack(">II", 2049, n) + labels.tobytes())
    return image_path, label_path


def _add_member(archive, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


class _LeNet(paddle.nn.Layer):
    """The LeNet of image_classification.ipynb and save_model.ipynb."""

    def __init__(self):
        super().__init__()
        self.conv1 = paddle.nn.Conv2D(in_channels=1, out_channels=6, kernel_size=5, stride=1, padding=2)
        self.max_pool1 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        self.conv2 = paddle.nn.Conv2D(in_channels=6, out_channels=16, kernel_size=5, stride=1)
        self.max_pool2 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        self.linear1 = paddle.nn.Linear(in_features=16 * 5 * 5, out_features=120)
        self.linear2 = paddle.nn.Linear(in_features=120, out_features=84)
        self.linear3 = paddle.nn.Linear(in_features=84, out_features=10)

    def forward(self, x):
        F = paddle.nn.functional
        x = self.max_pool1(F.relu(self.conv1(x)))
        x = self.max_pool2(F.relu(self.conv2(x)))
        x = paddle.flatten(x, start_axis=1, stop_axis=-1)
        x = F.relu(self.linear2(F.relu(self.linear1(x))))
        return self.linear3(x)


def test_the_lenet_mnist_tutorial_learns_with_model_fit_and_with_its_own_loop(tmp_path):
    # docs/practices/cv/image_classification.ipynb
    from eager.metric import Accuracy
    from eager.vision.transforms import Compose, Normalize
    F = paddle.nn.functional
    paddle.seed(2)
    np.random.seed(2)
    transform = Compose([Normalize(mean=[127.5], std=[127.5], data_format="CHW")])
    train_files = _mnist_files(tmp_path, 640, 0, "train")
    test_files = _mnist_files(tmp_path, 64, 1, "t10k")
    train_dataset = paddle.vision.datasets.MNIST(*train_files, mode="train", transform=transform, download=False)
    test_dataset = paddle.vision.datasets.MNIST(*test_files, mode="test", transform=transform, download=False)
    train_data0, train_label_0 = train_dataset[0][0], train_dataset[0][1]
    assert train_data0.shape == (1, 28, 28) and train_label_0.dtype == np.int64
    assert train_data0.reshape([28, 28]).shape == (28, 28)

    model = paddle.Model(_LeNet())
    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    model.prepare(optim, paddle.nn.CrossEntropyLoss(), Accuracy())
    model.fit(train_dataset, epochs=2, batch_size=64, verbose=0)
    result = model.evaluate(test_dataset, batch_size=64, verbose=0)
    assert result["acc"] > 0.9, result

    train_loader = paddle.io.DataLoader(train_dataset, batch_size=64, shuffle=True)
    model = _LeNet()
    model.train()
    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    for epoch in range(2):
        for batch_id, data in enumerate(train_loader()):
            x_data, y_data = data[0], data[1]
            predicts = model(x_data)
            loss = F.cross_entropy(predicts, y_data)
            acc = paddle.metric.accuracy(predicts, y_data)
            loss.backward()
            optim.step()
            optim.clear_grad()
    test_loader = paddle.io.DataLoader(test_dataset, places=paddle.CPUPlace(), batch_size=64)
    model.eval()
    for batch_id, data in enumerate(test_loader()):
        predicts = model(data[0])
        loss = F.cross_entropy(predicts, data[1])
        acc = paddle.metric.accuracy(predicts, data[1])
    assert float(acc) > 0.9 and float(loss) < 1.5, (float(acc), float(loss))


def test_the_high_level_api_and_save_model_tutorials_fit_checkpoint_and_resume(tmp_path):
    # docs/practices/quick_start/high_level_api.ipynb and save_model.ipynb
    from eager.static import InputSpec
    from eager.vision.transforms import ToTensor
    paddle.seed(3)
    np.random.seed(3)
    train_dataset = paddle.vision.datasets.MNIST(*_mnist_files(tmp_path, 256, 0, "train"), mode="train",
                                                 transform=ToTensor(), download=False)
    val_dataset = paddle.vision.datasets.MNIST(*_mnist_files(tmp_path, 64, 1, "t10k"), mode="test",
                                               transform=ToTensor(), download=False)
    mnist = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 512), paddle.nn.ReLU(),
                                 paddle.nn.Dropout(0.2), paddle.nn.Linear(512, 10))
    inputs = InputSpec([-1, 1, 28, 28], dtype="float32", name="input")
    label = InputSpec([-1, 1], dtype="int8", name="label")
    model = paddle.Model(mnist, inputs, label)
    assert model.summary((1, 28, 28)) == {"total_params": 407050, "trainable_params": 407050}
    assert paddle.summary(mnist, (1, 28, 28))["total_params"] == 407050
    model.prepare(paddle.optimizer.Adam(parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    model.fit(train_dataset, epochs=2, batch_size=64, verbose=0)
    result = model.evaluate(val_dataset, verbose=0)
    assert result["acc"] > 0.9, result
    pred_result = model.predict(val_dataset)
    assert len(pred_result) == 1 and len(pred_result[0]) == 64 and pred_result[0][0].shape == (1, 10)
    model.save(str(tmp_path / "model" / "mnist"))
    assert (tmp_path / "model" / "mnist.pdparams").is_file() and (tmp_path / "model" / "mnist.pdopt").is_file()

    inputs = InputSpec([None, 784], "float32", "x")
    labels = InputSpec([None, 10], "float32", "x")
    model = paddle.Model(_LeNet(), inputs, labels)
    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    model.prepare(optim, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    checkpoints = str(tmp_path / "mnist_checkpoint")
    model.fit(train_dataset, val_dataset, epochs=2, batch_size=64, save_dir=checkpoints, verbose=0)
    assert {"0.pdparams", "1.pdparams", "final.pdparams", "final.pdopt"} <= set(os.listdir(checkpoints))
    model.save(checkpoints + "/test")
    model.load(checkpoints + "/test")
    before = model.evaluate(val_dataset, batch_size=64, verbose=0)

    model = paddle.Model(_LeNet(), inputs, labels)
    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    model.load(checkpoints + "/final")
    model.prepare(optim, paddle.nn.loss.CrossEntropyLoss(), paddle.metric.Accuracy())
    resumed = model.evaluate(val_dataset, batch_size=64, verbose=0)
    assert resumed["acc"] == before["acc"] and abs(resumed["loss"][0] - before["loss"][0]) < 1e-5
    model.fit(train_data=train_dataset, eval_data=val_dataset, batch_size=64, epochs=1, verbose=0)
    assert model.evaluate(val_dataset, batch_size=64, verbose=0)["loss"][0] < before["loss"][0]


def _imdb_archive(folder, per_class, seed):
    """aclImdb_v1.tar.gz's layout: positive reviews draw 'good' words, negative ones 'bad' words."""
    rng = np.random.default_rng(seed)
    common = ["the", "film", "a", "was", "and", "it", "plot", "actor"]
    words = {"pos": ["great", "fine", "superb", "lovely", "moving"], "neg": ["awful", "boring", "dull", "weak", "poor"]}
    path = os.path.join(folder, "aclImdb_v1.tar.gz")
    with tarfile.open(path, "w:gz") as archive:
        for split in ("train", "test"):
            for polarity in ("pos", "neg"):
                for i in range(per_class):
                    review = " ".join(rng.choice(common + words[polarity], int(rng.integers(10, 40))))
                    _add_member(archive, f"aclImdb/{split}/{polarity}/{i}_7.txt", (review + ".").encode())
    return path


def test_the_imdb_bag_of_words_tutorial_learns_the_sentiment(tmp_path):
    # docs/practices/nlp/imdb_bow_classification.ipynb
    paddle.seed(4)
    np.random.seed(4)
    data_file = _imdb_archive(tmp_path, 64, 0)
    train_dataset = paddle.text.datasets.Imdb(data_file, mode="train", cutoff=5)
    test_dataset = paddle.text.datasets.Imdb(data_file, mode="test", cutoff=5)
    word_dict = train_dataset.word_idx
    word_dict["<pad>"] = len(word_dict)
    first = [k.decode("ASCII") for k in list(word_dict)[:5]]
    last = [k if isinstance(k, str) else k.decode("ASCII") for k in list(word_dict)[-5:]]
    assert last[-2:] == ["<unk>", "<pad>"] and all(isinstance(k, str) for k in first)
    vocab_size, emb_size, seq_len, batch_size, epochs = len(word_dict) + 1, 16, 40, 32, 4
    pad_id = word_dict["<pad>"]
    classes = ["negative", "positive"]
    assert classes[train_dataset.labels[1]] in classes

    def create_padded_dataset(dataset):
        padded_sents, labels = [], []
        for batch_id, data in enumerate(dataset):
            sent, label = data[0], data[1]
            padded_sent = np.concatenate([sent[:seq_len], [pad_id] * (seq_len - len(sent))]).astype("int32")
            padded_sents.append(padded_sent)
            labels.append(label)
        return np.array(padded_sents), np.array(labels, dtype=np.int64)

    train_sents, train_labels = create_padded_dataset(train_dataset)
    test_sents, test_labels = create_padded_dataset(test_dataset)
    assert train_sents.shape == (128, seq_len) and train_labels.shape == (128, 1)

    class IMDBDataset(paddle.io.Dataset):
        def __init__(self, sents, labels):
            self.sents = sents
            self.labels = labels

        def __getitem__(self, index):
            return self.sents[index], self.labels[index]

        def __len__(self):
            return len(self.sents)

    train_loader = paddle.io.DataLoader(IMDBDataset(train_sents, train_labels), return_list=True, shuffle=True,
                                        batch_size=batch_size, drop_last=True)
    test_loader = paddle.io.DataLoader(IMDBDataset(test_sents, test_labels), return_list=True, shuffle=True,
                                       batch_size=batch_size, drop_last=True)

    class MyNet(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = paddle.nn.Embedding(vocab_size, emb_size)
            self.fc = paddle.nn.Linear(in_features=emb_size, out_features=2)
            self.dropout = paddle.nn.Dropout(0.5)

        def forward(self, x):
            x = paddle.mean(self.emb(x), axis=1)
            return self.fc(self.dropout(x))

    model = paddle.Model(MyNet())
    model.prepare(optimizer=paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters()),
                  loss=paddle.nn.CrossEntropyLoss())
    model.fit(train_loader, test_loader, epochs=epochs, batch_size=batch_size, verbose=0)

    model = MyNet()
    model.train()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    history = []
    for epoch in range(epochs):
        for batch_id, data in enumerate(train_loader):
            loss = paddle.nn.functional.cross_entropy(model(data[0]), data[1])
            loss.backward()
            opt.step()
            opt.clear_grad()
        model.eval()
        accuracies, losses = [], []
        for batch_id, data in enumerate(test_loader):
            logits = model(data[0])
            losses.append(paddle.nn.functional.cross_entropy(logits, data[1]).numpy())
            accuracies.append(paddle.metric.accuracy(logits, data[1]).numpy())
        history.append((np.mean(accuracies), np.mean(losses)))
        model.train()
    assert history[-1][0] > 0.9 and history[-1][1] < history[0][1], history


def test_the_addition_rnn_tutorial_learns_to_add(tmp_path):
    # docs/practices/nlp/addition_rnn.ipynb: an LSTM encoder-decoder reading "a+b" as characters
    nn = paddle.nn
    random.seed(5)
    paddle.seed(5)
    np.random.seed(5)

    def encoder(text, LEN, label_dict):
        ids = [label_dict[word] for word in text]
        return ids + [label_dict[" "]] * (LEN - len(ids))

    def gen_datas(DATA_NUM, MAX_NUM, DIGITS, label_dict):
        datas = []
        while len(datas) < DATA_NUM:
            inputs = "%d+%d" % (random.randint(0, MAX_NUM), random.randint(0, MAX_NUM))
            labels = str(eval(inputs))
            datas.append([np.array(encoder(inputs, DIGITS + 1 + DIGITS, label_dict)).astype("int64"),
                          np.array(encoder(labels, DIGITS + 1, label_dict)).astype("int64")])
        return datas

    class Addition_Dataset(paddle.io.Dataset):
        def __init__(self, datas):
            super().__init__()
            self.datas = datas

        def __getitem__(self, index):
            data, label = [paddle.to_tensor(_) for _ in self.datas[index]]
            return data, label

        def __len__(self):
            return len(self.datas)

    label_dict = {**{str(i): i for i in range(10)}, "+": 10, " ": 11}
    DIGITS = 1
    MAXLEN, MAX_NUM = DIGITS + 1 + DIGITS, 10 ** DIGITS - 1
    train_reader = paddle.io.DataLoader(Addition_Dataset(gen_datas(512, MAX_NUM, DIGITS, label_dict)), batch_size=32,
                                        shuffle=True, drop_last=True)
    dev_reader = paddle.io.DataLoader(Addition_Dataset(gen_datas(64, MAX_NUM, DIGITS, label_dict)), batch_size=32,
                                      shuffle=False, drop_last=True)

    class Addition_Model(nn.Layer):
        def __init__(self, char_len=12, embedding_size=128, hidden_size=128, num_layers=1, DIGITS=2):
            super().__init__()
            self.DIGITS, self.MAXLEN = DIGITS, DIGITS + 1 + DIGITS
            self.hidden_size, self.char_len = hidden_size, char_len
            self.emb = nn.Embedding(char_len, embedding_size)
            self.encoder = nn.LSTM(input_size=embedding_size, hidden_size=hidden_size, num_layers=1)
            self.decoder = nn.LSTM(input_size=hidden_size, hidden_size=hidden_size, num_layers=num_layers)
            self.fc = nn.Linear(hidden_size, char_len)

        def forward(self, inputs, labels=None):
            out, (_, _) = self.encoder(self.emb(inputs))
            out = paddle.split(out, self.MAXLEN, axis=1)
            out = paddle.expand(out[-1], [out[-1].shape[0], self.DIGITS + 1, self.hidden_size])
            out, (_, _) = self.decoder(out)
            out = self.fc(out)
            if labels is not None:
                loss = nn.functional.cross_entropy(out, labels)
                acc = paddle.metric.accuracy(paddle.reshape(out, [-1, self.char_len]), paddle.reshape(labels, [-1, 1]))
                return loss, acc
            return out

    model = Addition_Model(char_len=len(label_dict), embedding_size=32, hidden_size=64, num_layers=1, DIGITS=DIGITS)
    model.train()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    max_acc = 0
    for epoch in range(12):
        for batch_id, data in enumerate(train_reader()):
            inputs, labels = data
            loss, acc = model(inputs, labels=labels)
            loss.backward()
            opt.step()
            opt.clear_grad()
        model.eval()
        accs = [model(*data)[1].numpy() for data in dev_reader()]
        if np.mean(accs) > max_acc:
            max_acc = np.mean(accs)
            paddle.save(model.state_dict(), str(tmp_path / "best_model"))
        model.train()
    assert max_acc > 0.8, max_acc

    label_dict_adv = {v: k for k, v in label_dict.items()}
    model.set_dict(paddle.load(str(tmp_path / "best_model")))
    model.eval()
    right = 0
    for a, b in [(3, 4), (9, 8), (0, 5), (6, 6), (2, 7)]:
        input_text = f"{a}+{b}"
        inputs = paddle.to_tensor(np.array(encoder(input_text, MAXLEN, label_dict)).reshape(-1, MAXLEN))
        result = "".join([label_dict_adv[_] for _ in np.argmax(model(inputs).numpy(), -1).reshape(-1)])
        right += result.strip() == str(eval(input_text))
    assert right >= 3, right


def test_the_seq2seq_with_attention_tutorial_learns_to_translate():
    # docs/practices/nlp/seq2seq_with_attention.ipynb: the cmn.txt pairs become a word-for-word
    # "translation" of short sentences, one Chinese character per English word
    F = paddle.nn.functional
    paddle.seed(1)
    np.random.seed(1)
    subjects, verbs, objects = {"i": "我", "you": "你", "he": "他"}, {"like": "喜", "see": "看"}, \
        {"tea": "茶", "rice": "饭", "books": "书"}
    lines = [f"{s.capitalize()} {v} {o}.\t{subjects[s]}{verbs[v]}{objects[o]}。\tCC-BY 2.0"
             for s in subjects for v in verbs for o in objects]
    MAX_LEN = 5
    words_re = re.compile(r"\w+")
    pairs = []
    for line in lines:
        en_sent, cn_sent, _ = line.split("\t")
        pairs.append((words_re.findall(en_sent.lower()), list(cn_sent)))
    filtered_pairs = [x for x in pairs if len(x[0]) < MAX_LEN and len(x[1]) < MAX_LEN
                      and x[0][0] in ("i", "you", "he", "she", "we", "they")]
    en_vocab, cn_vocab = {"<pad>": 0, "<bos>": 1, "<eos>": 2}, {"<pad>": 0, "<bos>": 1, "<eos>": 2}
    for en, cn in filtered_pairs:
        for w in en:
            en_vocab.setdefault(w, len(en_vocab))
        for w in cn:
            cn_vocab.setdefault(w, len(cn_vocab))
    padded_en_sents, padded_cn_sents, padded_cn_label_sents = [], [], []
    for en, cn in filtered_pairs:
        padded_en_sent = en + ["<eos>"] + ["<pad>"] * (MAX_LEN - len(en))
        padded_en_sent.reverse()
        padded_cn_sent = ["<bos>"] + cn + ["<eos>"] + ["<pad>"] * (MAX_LEN - len(cn))
        padded_cn_label_sent = cn + ["<eos>"] + ["<pad>"] * (MAX_LEN - len(cn) + 1)
        padded_en_sents.append([en_vocab[w] for w in padded_en_sent])
        padded_cn_sents.append([cn_vocab[w] for w in padded_cn_sent])
        padded_cn_label_sents.append([cn_vocab[w] for w in padded_cn_label_sent])
    train_en_sents, train_cn_sents = np.array(padded_en_sents), np.array(padded_cn_sents)
    train_cn_label_sents = np.array(padded_cn_label_sents)
    embedding_size, hidden_size, batch_size = 16, 32, 6
    en_vocab_size, cn_vocab_size = len(list(en_vocab)), len(list(cn_vocab))

    class Encoder(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = paddle.nn.Embedding(en_vocab_size, embedding_size)
            self.lstm = paddle.nn.LSTM(input_size=embedding_size, hidden_size=hidden_size, num_layers=1)

        def forward(self, x):
            x, (_, _) = self.lstm(self.emb(x))
            return x

    class AttentionDecoder(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = paddle.nn.Embedding(cn_vocab_size, embedding_size)
            self.lstm = paddle.nn.LSTM(input_size=embedding_size + hidden_size, hidden_size=hidden_size)
            self.attention_linear1 = paddle.nn.Linear(hidden_size * 2, hidden_size)
            self.attention_linear2 = paddle.nn.Linear(hidden_size, 1)
            self.outlinear = paddle.nn.Linear(hidden_size, cn_vocab_size)

        def forward(self, x, previous_hidden, previous_cell, encoder_outputs):
            x = self.emb(x)
            attention_inputs = paddle.concat(
                (encoder_outputs, paddle.tile(previous_hidden, repeat_times=[1, MAX_LEN + 1, 1])), axis=-1)
            attention_hidden = F.tanh(self.attention_linear1(attention_inputs))
            attention_logits = paddle.squeeze(self.attention_linear2(attention_hidden))
            attention_weights = F.softmax(attention_logits)
            attention_weights = paddle.expand_as(paddle.unsqueeze(attention_weights, -1), encoder_outputs)
            context_vector = paddle.sum(paddle.multiply(encoder_outputs, attention_weights), 1)
            context_vector = paddle.unsqueeze(context_vector, 1)
            lstm_input = paddle.concat((x, context_vector), axis=-1)
            previous_hidden = paddle.transpose(previous_hidden, [1, 0, 2])
            previous_cell = paddle.transpose(previous_cell, [1, 0, 2])
            x, (hidden, cell) = self.lstm(lstm_input, (previous_hidden, previous_cell))
            hidden, cell = paddle.transpose(hidden, [1, 0, 2]), paddle.transpose(cell, [1, 0, 2])
            output = paddle.squeeze(self.outlinear(hidden))
            return output, (hidden, cell)

    encoder, atten_decoder = Encoder(), AttentionDecoder()
    opt = paddle.optimizer.Adam(learning_rate=0.02, parameters=encoder.parameters() + atten_decoder.parameters())
    losses = []
    for epoch in range(30):
        perm = np.random.permutation(len(train_en_sents))
        en_shuffled, cn_shuffled = train_en_sents[perm], train_cn_sents[perm]
        cn_label_shuffled = train_cn_label_sents[perm]
        for iteration in range(en_shuffled.shape[0] // batch_size):
            rows = slice(batch_size * iteration, batch_size * (iteration + 1))
            en_repr = encoder(paddle.to_tensor(en_shuffled[rows]))
            x_cn_data, x_cn_label_data = cn_shuffled[rows], cn_label_shuffled[rows].astype("int64")
            hidden = paddle.zeros([batch_size, 1, hidden_size])
            cell = paddle.zeros([batch_size, 1, hidden_size])
            loss = paddle.zeros([1])
            for i in range(MAX_LEN + 2):
                cn_word = paddle.to_tensor(x_cn_data[:, i:i + 1])
                cn_word_label = paddle.to_tensor(x_cn_label_data[:, i])
                logits, (hidden, cell) = atten_decoder(cn_word, hidden, cell, en_repr)
                loss += F.cross_entropy(logits, cn_word_label)
            loss = loss / (MAX_LEN + 2)
            loss.backward()
            opt.step()
            opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.1 * losses[0], losses

    encoder.eval()
    atten_decoder.eval()
    n = len(train_en_sents)
    en_repr = encoder(paddle.to_tensor(train_en_sents))
    word = paddle.to_tensor(np.array([[cn_vocab["<bos>"]]] * n))
    hidden, cell = paddle.zeros([n, 1, hidden_size]), paddle.zeros([n, 1, hidden_size])
    decoded_sent = []
    for i in range(MAX_LEN + 2):
        logits, (hidden, cell) = atten_decoder(word, hidden, cell, en_repr)
        word = paddle.argmax(logits, axis=1)
        decoded_sent.append(word.numpy())
        word = paddle.unsqueeze(word, axis=-1)
    results = np.stack(decoded_sent, axis=1)
    right = 0
    for i in range(n):
        model_translate = "".join(w for w in (list(cn_vocab)[k] for k in results[i]) if w not in ("<pad>", "<eos>"))
        right += model_translate == "".join(filtered_pairs[i][1])
    assert right >= n - 2, (right, n)


def test_the_conv1d_autoencoder_tutorial_reconstructs_its_series(tmp_path):
    # docs/practices/time_series/autoencoder.ipynb: the NAB csv's 'value' column becomes a noisy daily sine
    F = paddle.nn.functional
    paddle.seed(3)
    np.random.seed(3)
    rng = np.random.default_rng(3)
    steps = np.arange(288 * 2)
    values = (20 + 10 * np.sin(2 * np.pi * steps / 288) + rng.normal(0, 0.5, steps.size)).reshape(-1, 1)
    df_training_value = (values - values.mean()) / values.std()
    TIME_STEPS = 288

    class MyDataset(paddle.io.Dataset):
        def __init__(self, data, time_steps):
            super().__init__()
            self.time_steps = time_steps
            self.data = paddle.to_tensor(self.transform(data), dtype="float32")

        def transform(self, data):
            output = []
            for i in range(len(data) - self.time_steps):
                output.append(np.reshape(data[i:(i + self.time_steps)], (1, self.time_steps)))
            return np.stack(output)

        def __getitem__(self, index):
            return self.data[index], self.data[index]

        def __len__(self):
            return len(self.data)

    class AutoEncoder(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv0 = paddle.nn.Conv1D(in_channels=1, out_channels=32, kernel_size=7, stride=2)
            self.conv1 = paddle.nn.Conv1D(in_channels=32, out_channels=16, kernel_size=7, stride=2)
            self.convT0 = paddle.nn.Conv1DTranspose(in_channels=16, out_channels=32, kernel_size=7, stride=2)
            self.convT1 = paddle.nn.Conv1DTranspose(in_channels=32, out_channels=1, kernel_size=7, stride=2)

        def forward(self, x):
            x = F.dropout(F.relu(self.conv0(x)), 0.2)
            x = F.relu(self.conv1(x))
            x = F.dropout(F.relu(self.convT0(x)), 0.2)
            return self.convT1(x)

    train_dataset = MyDataset(df_training_value, TIME_STEPS)
    assert len(train_dataset) == 288 and train_dataset[0][0].shape == [1, 288]
    model = AutoEncoder()
    model.train()
    opt = paddle.optimizer.Adam(learning_rate=0.005, parameters=model.parameters())
    mse_loss = paddle.nn.MSELoss()
    data_reader = paddle.io.DataLoader(train_dataset, batch_size=64, shuffle=True, drop_last=True)
    history_loss = []
    for epoch in range(10):
        for batch_id, data in enumerate(data_reader()):
            x, y = data[0], data[1]
            avg_loss = mse_loss(model(x), y[:, :, :-1])  # the convolutions drop the last value
            avg_loss.backward()
            opt.step()
            opt.clear_grad()
        history_loss.append(float(avg_loss))
    assert history_loss[-1] < 0.3 * history_loss[0], history_loss
    paddle.save(model.state_dict(), str(tmp_path / "model"))

    model = AutoEncoder()
    model.load_dict(paddle.load(str(tmp_path / "model")))
    model.eval()
    data_reader = paddle.io.DataLoader(train_dataset, places=[paddle.CPUPlace()], batch_size=128, shuffle=False,
                                       drop_last=False, num_workers=0)
    total_loss = [paddle.nn.loss.MSELoss()(model(x), y[:, :, :-1]).numpy() for x, y in data_reader()]
    assert len(total_loss) == 3 and max(total_loss) < 0.3 * history_loss[0], total_loss


def test_the_gan_mnist_tutorial_moves_its_generator_toward_the_data(tmp_path):
    # docs/practices/gan/GAN_with_MINIST/GAN_with_MINIST.ipynb: Resize and Normalize on MNIST's PIL
    # images, a loader with worker processes, netD(neg_img.detach()), paddle.full(dtype=np.float32)
    paddle.seed(5)
    np.random.seed(5)
    dataset = paddle.vision.datasets.MNIST(
        *_mnist_files(tmp_path, 256, 0, "train"), mode="train", download=False,
        transform=paddle.vision.transforms.Compose([paddle.vision.transforms.Resize((32, 32)),
                                                    paddle.vision.transforms.Normalize([0], [255])]))
    dataloader = paddle.io.DataLoader(dataset, batch_size=32, shuffle=True, num_workers=2)
    for step, data in enumerate(dataloader):
        data, label = data
        break
    assert data.shape == [32, 1, 32, 32] and label.shape == [32, 1] and 0 <= float(data.min()) < float(data.max()) <= 1
    assert data[0].numpy()[0].shape == (32, 32)

    class Generator(paddle.nn.Layer):
        def __init__(self):
            super(Generator, self).__init__()
            self.gen = paddle.nn.Sequential(
                paddle.nn.Linear(in_features=100, out_features=256), paddle.nn.ReLU(True),
                paddle.nn.Linear(in_features=256, out_features=512), paddle.nn.ReLU(True),
                paddle.nn.Linear(in_features=512, out_features=1024), paddle.nn.Tanh())

        def forward(self, x):
            return paddle.reshape(self.gen(x), [-1, 1, 32, 32])

    class Discriminator(paddle.nn.Layer):
        def __init__(self):
            super(Discriminator, self).__init__()
            self.dis = paddle.nn.Sequential(
                paddle.nn.Linear(in_features=1024, out_features=512), paddle.nn.LeakyReLU(0.2),
                paddle.nn.Linear(in_features=512, out_features=256), paddle.nn.LeakyReLU(0.2),
                paddle.nn.Linear(in_features=256, out_features=1), paddle.nn.Sigmoid())

        def forward(self, x):
            return self.dis(paddle.reshape(x, [-1, 1024]))

    generator_params = 100 * 256 + 256 + 256 * 512 + 512 + 512 * 1024 + 1024
    assert paddle.summary(Generator(), (8, 100))["total_params"] == generator_params
    assert paddle.summary(Discriminator(), (8, 1, 32, 32))["total_params"] == 1024 * 512 + 512 + 512 * 256 + 256 + 257
    netG, netD = Generator(), Discriminator()
    try:
        netG.set_dict(paddle.load(str(tmp_path / "generator.params")))
    except Exception:
        pass  # the tutorial's first run: nothing saved yet
    real = np.concatenate([batch[0].numpy() for batch in dataloader])

    def distance_to_the_data():
        with paddle.no_grad():
            fake = netG(paddle.randn([256, 100], "float32")).numpy()
        return float(np.abs(fake.mean(0) - real.mean(0)).mean())

    before = distance_to_the_data()
    optimizerD = paddle.optimizer.Adam(parameters=netD.parameters(), learning_rate=0.001, beta1=0.5, beta2=0.999)
    optimizerG = paddle.optimizer.Adam(parameters=netG.parameters(), learning_rate=0.001, beta1=0.5, beta2=0.999)
    for epoch in range(3):
        for step, (data, label) in enumerate(dataloader):
            optimizerD.clear_grad()
            pos_img = data
            label = paddle.full([pos_img.shape[0], 1], 1, dtype="float32")
            loss_D_1 = paddle.nn.functional.mse_loss(netD(pos_img), label)
            loss_D_1.backward()
            neg_img = netG(paddle.randn([pos_img.shape[0], 100], "float32"))
            label = paddle.full([pos_img.shape[0], 1], 0, dtype="float32")
            loss_D_2 = paddle.nn.functional.mse_loss(netD(neg_img.detach()), label)
            loss_D_2.backward()
            optimizerD.step()
            optimizerD.clear_grad()
            optimizerG.clear_grad()
            fake = netG(paddle.randn([pos_img.shape[0], 100], "float32"))
            label = paddle.full((pos_img.shape[0], 1), 1, dtype=np.float32)
            loss_G = paddle.nn.functional.mse_loss(netD(fake), label)
            loss_G.backward()
            optimizerG.step()
            optimizerG.clear_grad()
    after = distance_to_the_data()
    assert after < 0.8 * before, (before, after)
    paddle.save(netG.state_dict(), str(tmp_path / "generator.params"))
    netG_again = Generator()
    netG_again.set_dict(paddle.load(str(tmp_path / "generator.params")))
    noise = paddle.randn([1, 100], "float32")
    img = netG_again(noise).numpy()[0][0]
    np.testing.assert_array_equal(img, netG(noise).numpy()[0][0])


def _cifar_archive(folder, n_train, n_test, classes, seed, hundred=True):
    """cifar-100-python.tar.gz (pickled 'train'/'test' batches with 'fine_labels') or, hundred=False,
    cifar-10-python.tar.gz ('data_batch_1'/'test_batch' with 'labels'), uint8 'data' rows: class k
    is a colour (channel k % 3 lifted) with a bright band at a height set by k // 3."""
    rng = np.random.default_rng(seed)
    path = os.path.join(folder, "cifar-100-python.tar.gz" if hundred else "cifar-10-python.tar.gz")
    folder_name, key = ("cifar-100-python", b"fine_labels") if hundred else ("cifar-10-batches-py", b"labels")
    names = ("train", "test") if hundred else ("data_batch_1", "test_batch")
    with tarfile.open(path, "w:gz") as archive:
        for name, n in zip(names, (n_train, n_test)):
            labels = rng.integers(0, classes, n)
            images = rng.integers(0, 40, (n, 3, 32, 32))
            for i, k in enumerate(labels):
                images[i, k % 3] += 150
                images[i, :, 8 * (k // 3):8 * (k // 3) + 6, :] += 60
            batch = {b"data": images.clip(0, 255).astype(np.uint8).reshape(n, 3072), key: [int(v) for v in labels]}
            _add_member(archive, f"{folder_name}/{name}", pickle.dumps(batch, protocol=2))
    return path


def test_the_vit_cifar100_tutorial_with_its_augmentation_pipeline_learns(tmp_path):
    # docs/practices/cv/image_classification_ViT.ipynb
    nn, F, transforms = paddle.nn, paddle.nn.functional, paddle.vision.transforms
    lrScheduler = paddle.optimizer.lr
    paddle.seed(1024)
    np.random.seed(1234)

    class AutoTransforms(transforms.BaseTransform):
        def __init__(self, transforms=None, keys=None):
            super(AutoTransforms, self).__init__(keys)
            self.transforms = transforms

        def _apply_image(self, image):
            if self.transforms is None:
                return image
            return self.transforms[np.random.randint(0, len(self.transforms))](image)

    mean, std = [0.5071, 0.4867, 0.4408], [0.2675, 0.2565, 0.2761]
    transforms_list = [
        transforms.BrightnessTransform(0.5), transforms.SaturationTransform(0.5), transforms.ContrastTransform(0.5),
        transforms.HueTransform(0.5), transforms.RandomRotation(15, expand=True, fill=128),
        transforms.ColorJitter(0.5, 0.5, 0.5, 0.5), transforms.Grayscale(3)]
    train_tx = transforms.Compose([
        transforms.RandomHorizontalFlip(), AutoTransforms(transforms_list), transforms.RandomCrop(32),
        transforms.RandomVerticalFlip(), transforms.Transpose(), transforms.Normalize(0.0, 255.0),
        transforms.Normalize(mean, std)])
    val_tx = transforms.Compose([transforms.Transpose(), transforms.Normalize(0.0, 255.0),
                                 transforms.Normalize(mean, std)])
    data_file = _cifar_archive(tmp_path, 256, 64, 6, 0)
    cifar100_train = paddle.vision.datasets.Cifar100(data_file=data_file, mode="train", transform=train_tx,
                                                     download=True)
    cifar100_test = paddle.vision.datasets.Cifar100(data_file=data_file, mode="test", transform=val_tx, download=True)
    for i in range(24):  # every augmentation, RandomRotation's expanded canvas included, ends at 3x32x32
        image, label = cifar100_train[i]
        assert image.shape == (3, 32, 32) and image.dtype == np.float32
        assert label.shape == () and label.dtype == np.int64

    def anti_normalize(image):
        image = paddle.to_tensor(image)
        t_mean = paddle.to_tensor(mean).reshape([3, 1, 1]).expand([3, 32, 32])
        t_std = paddle.to_tensor(std).reshape([3, 1, 1]).expand([3, 32, 32])
        return (image * t_std + t_mean).transpose([1, 2, 0])

    class Patches(paddle.nn.Layer):
        def __init__(self, patch_size):
            super(Patches, self).__init__()
            self.patch_size = patch_size

        def forward(self, images):
            return F.unfold(images, self.patch_size, self.patch_size).transpose([0, 2, 1])

    image = anti_normalize(paddle.to_tensor(cifar100_test[0][0]))
    np.testing.assert_allclose(image.numpy() * 255, cifar100_test.images[0], atol=1e-3)
    patches = Patches(8)(image.transpose([2, 0, 1]).unsqueeze(0))
    assert patches.shape == [1, 16, 192]
    np.testing.assert_allclose(patches[0][5].reshape([3, 8, 8]).transpose([1, 2, 0]).numpy(),
                               image.numpy()[8:16, 8:16], atol=1e-6)  # patch 5: row 1, column 1

    class Mlp(nn.Layer):
        def __init__(self, feats, mlp_hidden, dropout=0.1):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(feats, mlp_hidden), nn.Linear(mlp_hidden, feats)
            self.act, self.dropout = nn.GELU(), nn.Dropout(dropout)

        def forward(self, x):
            return self.dropout(self.fc2(self.dropout(self.act(self.fc1(x)))))

    class MultiHeadSelfAttention(nn.Layer):
        def __init__(self, feats, head=8, dropout=0.0, attn_dropout=0.0):
            super(MultiHeadSelfAttention, self).__init__()
            self.head, self.feats, self.sqrt_d = head, feats, feats ** 0.5
            self.qkv, self.out = nn.Linear(feats, feats * 3), nn.Linear(feats, feats)
            self.dropout, self.attn_dropout = nn.Dropout(dropout), nn.Dropout(attn_dropout)

        def transpose_multi_head(self, x):
            new_shape = x.shape[:-1] + [self.head, self.feats // self.head]
            return x.reshape(new_shape).transpose([0, 2, 1, 3])

        def forward(self, x):
            b, n, f = x.shape
            q, k, v = map(self.transpose_multi_head, self.qkv(x).chunk(3, -1))
            attn = F.softmax(paddle.einsum("bhif, bhjf->bhij", q, k) / self.sqrt_d, axis=-1)
            attn = paddle.einsum("bhij, bhjf->bihf", self.attn_dropout(attn), v)
            return self.dropout(self.out(attn.flatten(2)))

    class TransformerEncoder(nn.Layer):
        def __init__(self, feats, mlp_hidden, head=8, dropout=0.0, attn_dropout=0.0):
            super(TransformerEncoder, self).__init__()
            self.layer1, self.layer2 = nn.LayerNorm(feats), nn.LayerNorm(feats)
            self.msa = MultiHeadSelfAttention(feats, head=head, dropout=dropout, attn_dropout=attn_dropout)
            self.mlp = Mlp(feats, mlp_hidden)

        def forward(self, x):
            out = self.msa(self.layer1(x)) + x
            return self.mlp(self.layer2(out)) + out

    class ViT(nn.Layer):
        def __init__(self, in_c=3, num_classes=10, img_size=32, patch=8, dropout=0.0, attn_dropout=0.0, num_layers=7,
                     hidden=384, mlp_hidden=384 * 4, head=8, is_cls_token=True):
            super(ViT, self).__init__()
            self.patch, self.is_cls_token = patch, is_cls_token
            self.patch_size = img_size // self.patch
            self.patches = Patches(self.patch_size)
            f = (img_size // self.patch) ** 2 * 3
            num_tokens = (self.patch ** 2) + 1 if self.is_cls_token else (self.patch ** 2)
            self.emb = nn.Linear(f, hidden)
            self.cls_token = paddle.create_parameter(
                shape=[1, 1, hidden], dtype="float32",
                default_initializer=nn.initializer.Assign(paddle.randn([1, 1, hidden]))) if is_cls_token else None
            self.pos_embedding = paddle.create_parameter(
                shape=[1, num_tokens, hidden], dtype="float32",
                default_initializer=nn.initializer.Assign(paddle.randn([1, num_tokens, hidden])))
            self.encoder = nn.Sequential(*[TransformerEncoder(hidden, mlp_hidden=mlp_hidden, dropout=dropout,
                                                              attn_dropout=attn_dropout, head=head)
                                           for _ in range(num_layers)])
            self.fc = nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, num_classes))

        def forward(self, x):
            out = self.emb(self.patches(x))
            if self.is_cls_token:
                out = paddle.concat([self.cls_token.tile([out.shape[0], 1, 1]), out], axis=1)
            out = self.encoder(out + self.pos_embedding)
            out = out[:, 0] if self.is_cls_token else out.mean(1)
            return self.fc(out)

    class LabelSmoothingCrossEntropyLoss(nn.Layer):
        def __init__(self, classes, smoothing=0.0, dim=-1):
            super(LabelSmoothingCrossEntropyLoss, self).__init__()
            self.confidence, self.smoothing, self.cls, self.dim = 1.0 - smoothing, smoothing, classes, dim

        def forward(self, pred, target):
            pred = F.log_softmax(pred, axis=self.dim)
            with paddle.no_grad():
                true_dist = paddle.ones_like(pred)
                true_dist.fill_(self.smoothing / (self.cls - 1))
                true_dist.put_along_axis_(target.unsqueeze(1), self.confidence, 1)
            return paddle.mean(paddle.sum(-true_dist * pred, axis=self.dim))

    def get_scheduler(epochs, warmup_epochs, learning_rate):
        base_scheduler = lrScheduler.CosineAnnealingDecay(learning_rate=learning_rate, T_max=epochs, eta_min=1e-5,
                                                          verbose=False)
        return lrScheduler.LinearWarmup(base_scheduler, warmup_epochs, 1e-5, learning_rate, last_epoch=-1,
                                        verbose=False)

    schedulerTest = get_scheduler(epochs=100, warmup_epochs=5, learning_rate=1e-3)
    lr = []
    for epoch in range(100):
        lr.append(schedulerTest.get_lr())
        schedulerTest.step()
    np.testing.assert_allclose(lr[:6], np.linspace(1e-5, 1e-3, 6))
    np.testing.assert_allclose(lr[55], 1e-5 + (1e-3 - 1e-5) * (1 + np.cos(np.pi * 50 / 100)) / 2)

    Model = ViT(in_c=3, num_classes=100, img_size=32, patch=8, dropout=0.5, attn_dropout=0.1, num_layers=2, hidden=48,
                head=4, mlp_hidden=48, is_cls_token=True)
    paddle.summary(Model, (1, 3, 32, 32))
    EPOCHS, BATCH_SIZE, NUM_CLASSES = 6, 32, 100
    scheduler = get_scheduler(epochs=EPOCHS, warmup_epochs=1, learning_rate=3e-3)
    optim = paddle.optimizer.Adam(learning_rate=scheduler, parameters=Model.parameters(), weight_decay=5e-5)
    criterion = LabelSmoothingCrossEntropyLoss(NUM_CLASSES, smoothing=0.1)
    train_loader = paddle.io.DataLoader(cifar100_train, batch_size=BATCH_SIZE, shuffle=True, num_workers=0,
                                        drop_last=False)
    test_loader = paddle.io.DataLoader(cifar100_test, batch_size=BATCH_SIZE * 16, shuffle=False, num_workers=0,
                                       drop_last=False)
    for epoch in range(EPOCHS):
        Model.train()
        for _, (_, data) in enumerate(enumerate(train_loader)):
            x_data, y_data = data[0], data[1]
            predicts = Model(x_data)
            loss = criterion(predicts, y_data)
            loss_item = loss.item()
            acc_num = paddle.sum(predicts.argmax(1) == y_data).item()
            current_lr = optim.get_lr()
            loss.backward()
            optim.step()
            optim.clear_grad()
        scheduler.step()
    assert isinstance(loss_item, float) and isinstance(acc_num, int) and current_lr < 3e-3
    paddle.save(Model.state_dict(), str(tmp_path / "finished.pdparams"))
    Model.set_state_dict(paddle.load(str(tmp_path / "finished.pdparams")))
    Model.eval()
    with paddle.no_grad():
        for _, (_, data) in enumerate(enumerate(test_loader)):
            predicts = Model(data[0])
            top1 = paddle.metric.accuracy(predicts, data[1].unsqueeze(1), k=1).item()
            top5 = paddle.metric.accuracy(predicts, data[1].unsqueeze(1), k=5).item()
    assert top1 > 0.5 and top5 > 0.9, (top1, top5)  # six classes: chance is 1/6


def test_the_collaborative_filtering_tutorial_learns_the_ratings(tmp_path):
    # docs/practices/recommendations/collaborative_filtering.ipynb: MovieLens' ratings.csv becomes users
    # who rate the movies of their own genre high. Paddle 2.6's dot of two [N, D] tensors is [N] (the
    # tutorial predates that), so its result is unsqueezed to add the [N, 1] biases.
    nn = paddle.nn
    paddle.seed(9)
    np.random.seed(9)
    rng = np.random.default_rng(9)
    user_genre, movie_genre = rng.integers(0, 3, 40), rng.integers(0, 3, 60)
    rows = []
    for _ in range(3000):
        u, m = int(rng.integers(0, 40)), int(rng.integers(0, 60))
        rating = (4.5 if user_genre[u] == movie_genre[m] else 1.0) + rng.choice([-.5, 0, .5])
        rows.append((u * 7 + 1, m * 13 + 5, rating))
    ratings = np.array(rows)
    user2user_encoded = {x: i for i, x in enumerate(dict.fromkeys(ratings[:, 0].astype(int).tolist()))}
    movie2movie_encoded = {x: i for i, x in enumerate(dict.fromkeys(ratings[:, 1].astype(int).tolist()))}
    user = np.array([user2user_encoded[v] for v in ratings[:, 0].astype(int)])
    movie = np.array([movie2movie_encoded[v] for v in ratings[:, 1].astype(int)])
    num_users, num_movies = len(user2user_encoded), len(movie2movie_encoded)
    rating = ratings[:, 2].astype(np.float32)
    min_rating, max_rating = min(rating), max(rating)
    x = np.stack([user, movie], 1)
    y = (rating - min_rating) / (max_rating - min_rating)
    train_indices = int(0.9 * len(x))
    x_train, x_val, y_train, y_val = x[:train_indices], x[train_indices:], y[:train_indices], y[train_indices:]
    y_train, y_val = y_train[:, np.newaxis].astype(np.float32), y_val[:, np.newaxis].astype(np.float32)

    class SelfDefinedDataset(paddle.io.Dataset):
        def __init__(self, data_x, data_y, mode="train"):
            super().__init__()
            self.data_x, self.data_y, self.mode = data_x, data_y, mode

        def __getitem__(self, idx):
            if self.mode == "predict":
                return self.data_x[idx]
            return self.data_x[idx], self.data_y[idx]

        def __len__(self):
            return len(self.data_x)

    traindataset = SelfDefinedDataset(x_train, y_train)
    for data, label in traindataset:
        assert data.shape == (2,) and label.shape == (1,)
        break
    train_loader = paddle.io.DataLoader(traindataset, batch_size=128, shuffle=True)
    for batch_id, data in enumerate(train_loader()):
        assert data[0].shape == [128, 2] and data[1].shape == [128, 1]
        break
    test_loader = paddle.io.DataLoader(SelfDefinedDataset(x_val, y_val), batch_size=128, shuffle=True)
    EMBEDDING_SIZE = 50

    class RecommenderNet(nn.Layer):
        def __init__(self, num_users, num_movies, embedding_size):
            super().__init__()
            self.num_users, self.num_movies, self.embedding_size = num_users, num_movies, embedding_size
            weight_attr_user = paddle.ParamAttr(regularizer=paddle.regularizer.L2Decay(1e-6),
                                                initializer=nn.initializer.KaimingNormal())
            self.user_embedding = nn.Embedding(num_users, embedding_size, weight_attr=weight_attr_user)
            self.user_bias = nn.Embedding(num_users, 1)
            weight_attr_movie = paddle.ParamAttr(regularizer=paddle.regularizer.L2Decay(1e-6),
                                                 initializer=nn.initializer.KaimingNormal())
            self.movie_embedding = nn.Embedding(num_movies, embedding_size, weight_attr=weight_attr_movie)
            self.movie_bias = nn.Embedding(num_movies, 1)

        def forward(self, inputs):
            user_vector = self.user_embedding(inputs[:, 0])
            user_bias = self.user_bias(inputs[:, 0])
            movie_vector = self.movie_embedding(inputs[:, 1])
            movie_bias = self.movie_bias(inputs[:, 1])
            dot_user_movie = paddle.dot(user_vector, movie_vector).unsqueeze(-1)
            return nn.functional.sigmoid(dot_user_movie + user_bias + movie_bias)

    model = paddle.Model(RecommenderNet(num_users, num_movies, EMBEDDING_SIZE))
    optimizer = paddle.optimizer.Adam(parameters=model.parameters(), learning_rate=0.003)
    model.prepare(optimizer, nn.BCELoss(), paddle.metric.Accuracy())
    first = model.evaluate(test_loader, batch_size=64, verbose=0)
    model.fit(train_loader, epochs=10, save_dir=str(tmp_path / "checkpoints"), verbose=0)
    assert {"0.pdparams", "9.pdparams", "final.pdparams"} <= set(os.listdir(tmp_path / "checkpoints"))
    last = model.evaluate(test_loader, batch_size=64, verbose=0)
    assert last["loss"][0] < 0.85 * first["loss"][0], (first, last)
    (predicted,) = model.predict(SelfDefinedDataset(x_val, y_val, mode="predict"), batch_size=64, stack_outputs=True,
                                 verbose=0)
    assert predicted.shape == (len(x_val), 1)
    liked = y_val[:, 0] > 0.5
    assert ((predicted[:, 0] > 0.5) == liked).mean() > 0.9


def test_the_unet_pet_segmentation_tutorial_learns_its_masks(tmp_path, monkeypatch):
    # docs/practices/cv/image_segmentation.ipynb: the Oxford pets images and trimaps become a bright
    # disc (trimap 1) on a dark background (2) with its rim (3); the U-Net keeps its blocks, narrower.
    pil_image = pytest.importorskip("PIL.Image")
    F, T = paddle.nn.functional, paddle.vision.transforms
    paddle.seed(6)
    np.random.seed(6)
    rng = np.random.default_rng(6)
    monkeypatch.chdir(tmp_path)
    os.makedirs("images")
    os.makedirs("annotations/trimaps")
    yy, xx = np.mgrid[:40, :48]
    for n in range(48):
        cy, cx, r = rng.integers(15, 25), rng.integers(15, 33), rng.integers(9, 15)
        dist = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
        trimap = np.where(dist < r - 1, 1, np.where(dist > r + 1, 2, 3)).astype(np.uint8)
        img = rng.integers(0, 60, (40, 48, 3))
        img[trimap == 1] += 150
        pil_image.fromarray(img.astype(np.uint8)).save(f"images/pet_{n}.jpg", quality=95)
        pil_image.fromarray(trimap).save(f"annotations/trimaps/pet_{n}.png")
    IMAGE_SIZE = (32, 32)
    train_images_path, label_images_path = "images/", "annotations/trimaps/"
    image_count = len([name for name in os.listdir(train_images_path) if name.endswith(".jpg")])

    def _sort_images(image_dir, image_type):
        return sorted(os.path.join(image_dir, name) for name in os.listdir(image_dir)
                      if name.endswith(".{}".format(image_type)) and not name.startswith("."))

    def write_file(mode, images, labels):
        with open("./{}.txt".format(mode), "w") as f:
            for i in range(len(images)):
                f.write("{}\t{}\n".format(images[i], labels[i]))

    images, labels = _sort_images(train_images_path, "jpg"), _sort_images(label_images_path, "png")
    eval_num = int(image_count * 0.15)
    write_file("train", images[:-eval_num], labels[:-eval_num])
    write_file("test", images[-eval_num:], labels[-eval_num:])
    write_file("predict", images[-eval_num:], labels[-eval_num:])

    class PetDataset(paddle.io.Dataset):
        def __init__(self, mode="train"):
            self.image_size = IMAGE_SIZE
            self.mode = mode.lower()
            self.train_images, self.label_images = [], []
            with open("./{}.txt".format(self.mode), "r") as f:
                for line in f.readlines():
                    image, label = line.strip().split("\t")
                    self.train_images.append(image)
                    self.label_images.append(label)

        def _load_img(self, path, color_mode="rgb", transforms=[]):
            with open(path, "rb") as f:
                img = pil_image.open(io.BytesIO(f.read()))
                if color_mode == "grayscale" and img.mode not in ("L", "I;16", "I"):
                    img = img.convert("L")
                elif color_mode == "rgb" and img.mode != "RGB":
                    img = img.convert("RGB")
                return T.Compose([T.Resize(self.image_size)] + transforms)(img)

        def __getitem__(self, idx):
            train_image = self._load_img(self.train_images[idx],
                                         transforms=[T.Transpose(), T.Normalize(mean=127.5, std=127.5)])
            label_image = self._load_img(self.label_images[idx], color_mode="grayscale", transforms=[T.Grayscale()])
            return np.array(train_image, dtype="float32"), np.array(label_image, dtype="int64")

        def __len__(self):
            return len(self.train_images)

    class SeparableConv2D(paddle.nn.Layer):
        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=None,
                     weight_attr=None, bias_attr=None, data_format="NCHW"):
            super().__init__()
            self._padding, self._stride, self._dilation = padding, stride, dilation
            self._in_channels, self._data_format = in_channels, data_format
            filter_shape = [in_channels, 1] + self.convert_to_list(kernel_size, 2, "kernel_size")
            self.weight_conv = self.create_parameter(shape=filter_shape, attr=weight_attr)
            filter_shape = [out_channels, in_channels] + self.convert_to_list(1, 2, "kernel_size")
            self.weight_pointwise = self.create_parameter(shape=filter_shape, attr=weight_attr)
            self.bias_pointwise = self.create_parameter(shape=[out_channels], attr=bias_attr, is_bias=True)

        def convert_to_list(self, value, n, name, dtype=int):  # the tutorial's np.int is gone from NumPy 2
            return [value] * n if isinstance(value, dtype) else list(value)

        def forward(self, inputs):
            conv_out = F.conv2d(inputs, self.weight_conv, padding=self._padding, stride=self._stride,
                                dilation=self._dilation, groups=self._in_channels, data_format=self._data_format)
            return F.conv2d(conv_out, self.weight_pointwise, bias=self.bias_pointwise, padding=0, stride=1,
                            dilation=1, groups=1, data_format=self._data_format)

    class Encoder(paddle.nn.Layer):
        def __init__(self, in_channels, out_channels):
            super().__init__()
            self.relus = paddle.nn.LayerList([paddle.nn.ReLU() for i in range(2)])
            self.separable_conv_01 = SeparableConv2D(in_channels, out_channels, kernel_size=3, padding="same")
            self.bns = paddle.nn.LayerList([paddle.nn.BatchNorm2D(out_channels) for i in range(2)])
            self.separable_conv_02 = SeparableConv2D(out_channels, out_channels, kernel_size=3, padding="same")
            self.pool = paddle.nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
            self.residual_conv = paddle.nn.Conv2D(in_channels, out_channels, kernel_size=1, stride=2, padding="same")

        def forward(self, inputs):
            y = self.bns[0](self.separable_conv_01(self.relus[0](inputs)))
            y = self.pool(self.bns[1](self.separable_conv_02(self.relus[1](y))))
            return paddle.add(y, self.residual_conv(inputs))

    class Decoder(paddle.nn.Layer):
        def __init__(self, in_channels, out_channels):
            super().__init__()
            self.relus = paddle.nn.LayerList([paddle.nn.ReLU() for i in range(2)])
            self.conv_transpose_01 = paddle.nn.Conv2DTranspose(in_channels, out_channels, kernel_size=3, padding=1)
            self.conv_transpose_02 = paddle.nn.Conv2DTranspose(out_channels, out_channels, kernel_size=3, padding=1)
            self.bns = paddle.nn.LayerList([paddle.nn.BatchNorm2D(out_channels) for i in range(2)])
            self.upsamples = paddle.nn.LayerList([paddle.nn.Upsample(scale_factor=2.0) for i in range(2)])
            self.residual_conv = paddle.nn.Conv2D(in_channels, out_channels, kernel_size=1, padding="same")

        def forward(self, inputs):
            y = self.bns[0](self.conv_transpose_01(self.relus[0](inputs)))
            y = self.upsamples[0](self.bns[1](self.conv_transpose_02(self.relus[1](y))))
            residual = self.residual_conv(self.upsamples[1](inputs))
            return paddle.add(y, residual)

    class PetNet(paddle.nn.Layer):
        def __init__(self, num_classes):
            super().__init__()
            self.conv_1 = paddle.nn.Conv2D(3, 8, kernel_size=3, stride=2, padding="same")
            self.bn = paddle.nn.BatchNorm2D(8)
            self.relu = paddle.nn.ReLU()
            in_channels = 8
            self.encoders, self.decoders = [], []
            self.encoder_list, self.decoder_list = [16, 32], [32, 16, 8]
            for out_channels in self.encoder_list:
                block = self.add_sublayer("encoder_{}".format(out_channels), Encoder(in_channels, out_channels))
                self.encoders.append(block)
                in_channels = out_channels
            for out_channels in self.decoder_list:
                block = self.add_sublayer("decoder_{}".format(out_channels), Decoder(in_channels, out_channels))
                self.decoders.append(block)
                in_channels = out_channels
            self.output_conv = paddle.nn.Conv2D(in_channels, num_classes, kernel_size=3, padding="same")

        def forward(self, inputs):
            y = self.relu(self.bn(self.conv_1(inputs)))
            for encoder in self.encoders:
                y = encoder(y)
            for decoder in self.decoders:
                y = decoder(y)
            return self.output_conv(y)

    num_classes = 4
    model = paddle.Model(PetNet(num_classes))
    model.summary((-1, 3,) + IMAGE_SIZE)
    train_dataset, val_dataset = PetDataset(mode="train"), PetDataset(mode="test")
    image, label = train_dataset[0]
    assert image.shape == (3, 32, 32) and image.dtype == np.float32 and label.shape == (32, 32)
    assert set(np.unique(label)) <= {1, 2, 3}
    optim = paddle.optimizer.RMSProp(learning_rate=0.003, rho=0.9, momentum=0.0, epsilon=1e-07, centered=False,
                                     parameters=model.parameters())
    model.prepare(optim, paddle.nn.CrossEntropyLoss(axis=1))
    first = model.evaluate(val_dataset, batch_size=8, verbose=0)
    model.fit(train_dataset, val_dataset, epochs=6, batch_size=8, verbose=0)
    last = model.evaluate(val_dataset, batch_size=8, verbose=0)
    assert last["loss"][0] < 0.3 * first["loss"][0], (first, last)
    predict_dataset = PetDataset(mode="predict")
    predict_results = model.predict(predict_dataset, verbose=0)
    assert len(predict_results[0]) == len(predict_dataset) == eval_num
    pixel_accuracy = []
    for k in range(len(predict_dataset)):
        data = predict_results[0][k][0].transpose((1, 2, 0))
        mask = np.argmax(data, axis=-1)
        pixel_accuracy.append((mask == predict_dataset[k][1]).mean())
    background = np.mean([(predict_dataset[k][1] == 2).mean() for k in range(len(predict_dataset))])
    assert np.mean(pixel_accuracy) > background + 0.03, (np.mean(pixel_accuracy), background)  # beats "all background"


def test_the_transformer_translation_tutorial_learns_with_model_fit(tmp_path):
    # docs/practices/nlp/transformer_in_English-to-Spanish.ipynb: spa.txt becomes word-for-word pairs.
    # Paddle 2.6's to_tensor(64) is 0-d and concat refuses 0-d tensors, so the causal mask's tile
    # counts are built from [batch_size] (the tutorial predates 0-d tensors).
    paddle.seed(8)
    random.seed(8)
    np.random.seed(8)
    en2es = {"i": "yo", "you": "tu", "see": "veo", "want": "quiero", "the": "el", "red": "rojo", "big": "grande",
             "dog": "perro", "cat": "gato", "car": "coche"}
    text_pairs = []
    for _ in range(640):
        words = [random.choice(["i", "you"]), random.choice(["see", "want"]), "the", random.choice(["red", "big"]),
                 random.choice(["dog", "cat", "car"])]
        eng, spa = " ".join(words), " ".join(en2es[w] for w in words)
        text_pairs.append((eng, "[start] " + spa + " [end]"))
    random.shuffle(text_pairs)
    num_val_samples = int(0.1 * len(text_pairs))
    num_train_samples = len(text_pairs) - 2 * num_val_samples
    train_pairs = text_pairs[:num_train_samples]
    val_pairs = text_pairs[num_train_samples:num_train_samples + num_val_samples]
    test_pairs = text_pairs[num_train_samples + num_val_samples:]

    def build_dict(corpus, vocab_size):
        word_freq_dict = {}
        for word in corpus:
            word_freq_dict[word] = word_freq_dict.get(word, 0) + 1
        word2id_dict, id2word_dict = {"<pad>": 0, "<unk>": 1}, {0: "<pad>", 1: "<unk>"}
        for word, freq in sorted(word_freq_dict.items(), key=lambda x: x[1], reverse=True):
            if len(id2word_dict) < vocab_size:
                word2id_dict[word] = len(id2word_dict)
                id2word_dict[len(id2word_dict)] = word
            else:
                word2id_dict[word] = 1
        return word2id_dict, id2word_dict

    def build_tensor(data, dicta, maxlen):
        tensor = []
        for sentence in data:
            subtensor = [dicta.get(word, 1) for word in sentence.split()]
            padded = subtensor + [0] * (maxlen - len(subtensor)) if len(subtensor) < maxlen else subtensor[:maxlen]
            tensor.append(padded)
        return np.array(tensor)

    vocab_size, sequence_length = 32, 10
    eng2id_dict, id2eng_dict = build_dict(" ".join(p[0] for p in train_pairs).lower().split(), vocab_size)
    spa2id_dict, id2spa_dict = build_dict(" ".join(p[1] for p in train_pairs).lower().split(), vocab_size)

    class MyDataset(paddle.io.Dataset):
        def __init__(self, eng, spa):
            super(MyDataset, self).__init__()
            self.eng, self.spa = eng, spa

        def __getitem__(self, index):
            return self.eng[index], self.spa[index]

        def __len__(self):
            return self.eng.shape[0]

    def prepare_input(inputs, padid=0):
        src = np.array([inputsub[0] for inputsub in inputs])
        trg = np.array([inputsub[1] for inputsub in inputs])
        trg_mask = (trg[:, :-1] != padid).astype(paddle.get_default_dtype())
        return src, trg[:, :-1], trg[:, 1:, np.newaxis], trg_mask

    def loader(pairs):
        dataset = MyDataset(build_tensor([p[0] for p in pairs], eng2id_dict, sequence_length),
                            build_tensor([p[1] for p in pairs], spa2id_dict, sequence_length))
        return paddle.io.DataLoader(dataset, batch_size=64, shuffle=True, drop_last=True,
                                    collate_fn=functools.partial(prepare_input))

    train_loader, val_loader, test_loader = loader(train_pairs), loader(val_pairs), loader(test_pairs)
    embed_dim, latent_dim, num_heads = 32, 64, 4

    class TransformerEmbedding(paddle.nn.Layer):
        def __init__(self, sequence_length, vocab_size, embed_dim):
            super(TransformerEmbedding, self).__init__()
            self.token_embeddings = paddle.nn.Embedding(num_embeddings=vocab_size, embedding_dim=embed_dim)
            self.position_embeddings = self.get_position_embedding(sequence_length, embed_dim)

        def forward(self, inputs):
            seq_len = inputs.shape[1]
            return self.token_embeddings(inputs) + self.position_embeddings[:, :seq_len, :]

        def get_position_embedding(self, sentence_length, d_model):
            pos, i = np.arange(sentence_length)[:, np.newaxis], np.arange(d_model)[np.newaxis, :]
            angle_rads = pos * (1 / np.power(10000, (2 * (i // 2)) / np.float32(d_model)))
            position_embedding = np.concatenate([np.sin(angle_rads[:, 0::2]), np.cos(angle_rads[:, 1::2])], axis=-1)
            return paddle.cast(paddle.to_tensor(position_embedding[np.newaxis, ...]), dtype="float32")

    class TransformerEncoder(paddle.nn.Layer):
        def __init__(self, embed_dim, dense_dim, num_heads):
            super(TransformerEncoder, self).__init__()
            self.attention = paddle.nn.MultiHeadAttention(num_heads=num_heads, embed_dim=embed_dim, dropout=0.1)
            self.dense_proj = paddle.nn.Sequential(paddle.nn.Linear(embed_dim, dense_dim), paddle.nn.ReLU(),
                                                   paddle.nn.Linear(dense_dim, embed_dim))
            self.layernorm_1, self.layernorm_2 = paddle.nn.LayerNorm(embed_dim), paddle.nn.LayerNorm(embed_dim)

        def forward(self, inputs):
            proj_input = self.layernorm_1(inputs + self.attention(query=inputs, value=inputs, key=inputs))
            return self.layernorm_2(proj_input + self.dense_proj(proj_input))

    class TransformerDecoder(paddle.nn.Layer):
        def __init__(self, embed_dim, latent_dim, num_heads):
            super(TransformerDecoder, self).__init__()
            self.attention_1 = paddle.nn.MultiHeadAttention(num_heads=num_heads, embed_dim=embed_dim)
            self.attention_2 = paddle.nn.MultiHeadAttention(num_heads=num_heads, embed_dim=embed_dim)
            self.dense_proj = paddle.nn.Sequential(paddle.nn.Linear(embed_dim, latent_dim), paddle.nn.ReLU(),
                                                   paddle.nn.Linear(latent_dim, embed_dim))
            self.layernorm_1, self.layernorm_2 = paddle.nn.LayerNorm(embed_dim), paddle.nn.LayerNorm(embed_dim)
            self.layernorm_3 = paddle.nn.LayerNorm(embed_dim)

        def forward(self, inputs, encoder_outputs):
            causal_mask = self.get_causal_attention_mask(inputs)
            out_1 = self.layernorm_1(inputs + self.attention_1(query=inputs, value=inputs, key=inputs,
                                                               attn_mask=causal_mask))
            out_2 = self.layernorm_2(out_1 + self.attention_2(query=out_1, value=encoder_outputs, key=encoder_outputs))
            return self.layernorm_3(out_2 + self.dense_proj(out_2))

        def get_causal_attention_mask(self, inputs):
            input_shape = inputs.shape
            batch_size, sequence_length = input_shape[0], input_shape[1]
            i = paddle.arange(sequence_length)[:, np.newaxis]
            j = paddle.arange(sequence_length)
            mask = paddle.cast(i >= j, dtype="int32")
            mask = paddle.reshape(mask, (1, 1, input_shape[1], input_shape[1]))
            mult = paddle.concat([paddle.to_tensor([batch_size], dtype="int32"),
                                  paddle.to_tensor([1, 1, 1], dtype="int32")], axis=0)
            return paddle.tile(mask, mult)

    class Transformer(paddle.nn.Layer):
        def __init__(self, embed_dim, latent_dim, num_heads, sequence_length, vocab_size):
            super(Transformer, self).__init__()
            self.ps1 = TransformerEmbedding(sequence_length, vocab_size, embed_dim)
            self.encoder = TransformerEncoder(embed_dim, latent_dim, num_heads)
            self.ps2 = TransformerEmbedding(sequence_length, vocab_size, embed_dim)
            self.decoder = TransformerDecoder(embed_dim, latent_dim, num_heads)
            self.drop = paddle.nn.Dropout(p=0.5)
            self.lastLinear = paddle.nn.Linear(embed_dim, vocab_size)

        def forward(self, encoder_inputs, decoder_inputs):
            encoder_outputs = self.encoder(self.ps1(encoder_inputs))
            decoder_outputs = self.decoder(self.ps2(decoder_inputs), encoder_outputs)
            return self.lastLinear(self.drop(decoder_outputs))

    info = paddle.summary(Transformer(embed_dim, latent_dim, num_heads, sequence_length, vocab_size),
                          input_size=[(64, 9), (64, 9)], dtypes="int32")
    assert info["total_params"] > 0

    class CrossEntropy(paddle.nn.Layer):
        def __init__(self):
            super(CrossEntropy, self).__init__()

        def forward(self, pre, real, trg_mask):
            cost = paddle.nn.functional.softmax_with_cross_entropy(logits=pre, label=real, soft_label=False)
            cost = paddle.squeeze(cost, axis=[2])
            return paddle.mean(cost * trg_mask)

    model = paddle.Model(Transformer(embed_dim, latent_dim, num_heads, sequence_length, vocab_size))
    # the tutorial's d_model is its latent_dim, 2048: kept, so that the narrower model gets its learning rates
    scheduler = paddle.optimizer.lr.NoamDecay(d_model=2048, warmup_steps=100, verbose=False)
    model.prepare(optimizer=paddle.optimizer.Adam(learning_rate=scheduler, parameters=model.parameters()),
                  loss=CrossEntropy(), metrics=paddle.metric.Accuracy())
    model.fit(train_data=train_loader, epochs=15, eval_data=val_loader, verbose=0, save_dir=str(tmp_path / "savemodel"),
              save_freq=10, log_freq=100)
    assert {"0.pdparams", "10.pdparams", "final.pdparams"} <= set(os.listdir(tmp_path / "savemodel"))
    assert scheduler.last_epoch == 15 * len(train_loader)  # Model.fit steps the scheduler once per batch
    right = total = 0
    for data in test_loader():
        result = np.argmax(np.array(model.predict_batch(data[:2])[0]), axis=-1)
        assert result.shape == (64, 9)
        for i in range(len(result)):
            spa_real = [id2spa_dict[id] for id in data[1][i][1:].tolist() if id != 0]
            spa_pre = [id2spa_dict[id] for id in result[i]][:len(spa_real)]
            right += spa_pre == spa_real
            total += 1
    assert right > 0.9 * total, (right, total)


def test_the_pretrained_word_embeddings_tutorial_trains_around_a_frozen_table(tmp_path):
    # docs/practices/nlp/pretrained_word_embeddings.ipynb: GloVe's vectors become 'good' words near +e0
    # and 'bad' words near -e0; the table enters through ParamAttr(Assign(float64 array), trainable=False)
    paddle.seed(2)
    random.seed(2)
    np.random.seed(2)
    data_file = _imdb_archive(tmp_path, 64, 3)
    imdb_train = paddle.text.Imdb(data_file=data_file, mode="train", cutoff=5)
    imdb_test = paddle.text.Imdb(data_file=data_file, mode="test", cutoff=5)
    assert set(imdb_train.labels) == {0, 1} and isinstance(imdb_train.docs[0], list)
    shuffle_index = list(range(len(imdb_train)))
    random.shuffle(shuffle_index)
    train_x = [imdb_train.docs[i] for i in shuffle_index]
    train_y = [imdb_train.labels[i] for i in shuffle_index]
    test_x, test_y = imdb_test.docs, imdb_test.labels

    def vectorizer(input, label=None, length=2000):
        if label is not None:
            for x, y in zip(input, label):
                yield np.array((x + [0] * length)[:length]).astype("int64"), np.array([y]).astype("int64")
        else:
            for x in input:
                yield np.array((x + [0] * length)[:length]).astype("int64")

    rng = np.random.default_rng(0)
    embeddings = {w: [1.0] + list(rng.normal(0, .1, 99)) for w in ["great", "fine", "superb", "lovely", "moving"]}
    embeddings.update({w: [-1.0] + list(rng.normal(0, .1, 99)) for w in ["awful", "boring", "dull", "weak", "poor"]})
    embeddings.update({w: list(rng.normal(0, .1, 100)) for w in ["the", "film", "a", "was", "and"]})
    word_idx = imdb_train.word_idx
    vocab = [w for w in word_idx.keys()]
    dim = 100
    vocab_embeddings = np.zeros((len(vocab), dim))
    for ind, word in enumerate(vocab):
        if word != "<unk>":
            word = word.decode()
        vocab_embeddings[ind, :] = embeddings.get(word, np.zeros((dim,)))
    pretrained_attr = paddle.ParamAttr(name="embedding", initializer=paddle.nn.initializer.Assign(vocab_embeddings),
                                       trainable=False)
    embedding_layer = paddle.nn.Embedding(num_embeddings=len(vocab), embedding_dim=dim,
                                          padding_idx=word_idx["<unk>"], weight_attr=pretrained_attr)
    assert embedding_layer.weight.dtype == paddle.float32 and embedding_layer.weight.stop_gradient
    np.testing.assert_allclose(embedding_layer.weight.numpy(), vocab_embeddings.astype("float32"))

    def cal_output_shape(input_shape, out_channels, kernel_size, stride, padding=0, dilation=1):
        return out_channels, int((input_shape + 2 * padding - (dilation * (kernel_size - 1) + 1)) / stride) + 1

    length, kernel_size, out_channels, stride, padding = 40, 5, 10, 2, 0
    output_shape = cal_output_shape(length, out_channels, kernel_size, stride, padding)
    output_shape = cal_output_shape(output_shape[1], output_shape[0], 2, 2, 0)
    sim_model = paddle.nn.Sequential(
        embedding_layer,
        paddle.nn.Conv1D(in_channels=dim, out_channels=out_channels, kernel_size=kernel_size, stride=stride,
                         padding=padding, data_format="NLC", bias_attr=True),
        paddle.nn.ReLU(), paddle.nn.MaxPool1D(kernel_size=2, stride=2), paddle.nn.Flatten(),
        paddle.nn.Linear(in_features=np.prod(output_shape), out_features=2, bias_attr=True), paddle.nn.Softmax())
    info = paddle.summary(sim_model, input_size=(-1, length), dtypes="int64")
    assert info["total_params"] - info["trainable_params"] == len(vocab) * dim

    class DataReader(paddle.io.Dataset):
        def __init__(self, input, label, length):
            self.data = list(vectorizer(input, label, length=length))

        def __getitem__(self, idx):
            return self.data[idx]

        def __len__(self):
            return len(self.data)

    input_form = paddle.static.InputSpec(shape=[None, length], dtype="int64", name="input")
    label_form = paddle.static.InputSpec(shape=[None, 1], dtype="int64", name="label")
    model = paddle.Model(sim_model, input_form, label_form)
    model.prepare(optimizer=paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters()),
                  loss=paddle.nn.loss.CrossEntropyLoss(), metrics=paddle.metric.Accuracy())
    table = embedding_layer.weight.numpy().copy()
    eval_length = int(len(train_x) * 1 / 4)
    model.fit(train_data=DataReader(train_x[:-eval_length], train_y[:-eval_length], length),
              eval_data=DataReader(train_x[-eval_length:], train_y[-eval_length:], length), batch_size=32, epochs=10,
              verbose=0)
    result = model.evaluate(eval_data=DataReader(test_x, test_y, length), batch_size=32, verbose=0)
    assert result["acc"] > 0.8, result
    np.testing.assert_array_equal(embedding_layer.weight.numpy(), table)  # trainable=False: never stepped
    true_y = test_y[:5] + test_y[-5:]
    pred_y = model.predict(DataReader(test_x[:5] + test_x[-5:], None, length), batch_size=1, verbose=0)
    assert len(pred_y[0]) == 10 and pred_y[0][0].shape == (1, 2)
    assert sum(int(p.argmax()) == y for p, y in zip(pred_y[0], true_y)) >= 8


def test_the_convnet_cifar10_tutorial_learns_with_its_own_loop(tmp_path):
    # docs/practices/cv/convnet_image_classification.ipynb
    F = paddle.nn.functional
    paddle.seed(10)
    np.random.seed(10)
    transform = paddle.vision.transforms.ToTensor()
    data_file = _cifar_archive(tmp_path, 320, 64, 4, 1, hundred=False)
    cifar10_train = paddle.vision.datasets.Cifar10(data_file, mode="train", transform=transform)
    cifar10_test = paddle.vision.datasets.Cifar10(data_file, mode="test", transform=transform)
    image, label = cifar10_train[0]
    assert isinstance(image, paddle.Tensor) and image.shape == [3, 32, 32] and label.shape == ()
    np.testing.assert_allclose(image.numpy(), cifar10_train.images[0].transpose(2, 0, 1) / 255.0, atol=1e-6)

    class MyNet(paddle.nn.Layer):
        def __init__(self, num_classes=1):
            super().__init__()
            self.conv1 = paddle.nn.Conv2D(in_channels=3, out_channels=32, kernel_size=(3, 3))
            self.pool1 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
            self.conv2 = paddle.nn.Conv2D(in_channels=32, out_channels=64, kernel_size=(3, 3))
            self.pool2 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
            self.conv3 = paddle.nn.Conv2D(in_channels=64, out_channels=64, kernel_size=(3, 3))
            self.flatten = paddle.nn.Flatten()
            self.linear1 = paddle.nn.Linear(in_features=1024, out_features=64)
            self.linear2 = paddle.nn.Linear(in_features=64, out_features=num_classes)

        def forward(self, x):
            x = self.pool1(F.relu(self.conv1(x)))
            x = self.pool2(F.relu(self.conv2(x)))
            x = self.flatten(F.relu(self.conv3(x)))
            return self.linear2(F.relu(self.linear1(x)))

    epoch_num, batch_size, learning_rate = 3, 32, 0.001
    val_acc_history, val_loss_history = [], []
    model = MyNet(num_classes=10)
    model.train()
    opt = paddle.optimizer.Adam(learning_rate=learning_rate, parameters=model.parameters())
    train_loader = paddle.io.DataLoader(cifar10_train, shuffle=True, batch_size=batch_size)
    valid_loader = paddle.io.DataLoader(cifar10_test, batch_size=batch_size)
    for epoch in range(epoch_num):
        for batch_id, data in enumerate(train_loader()):
            x_data = data[0]
            y_data = paddle.unsqueeze(paddle.to_tensor(data[1]), 1)
            loss = F.cross_entropy(model(x_data), y_data)
            loss.backward()
            opt.step()
            opt.clear_grad()
        model.eval()
        accuracies, losses = [], []
        for batch_id, data in enumerate(valid_loader()):
            y_data = paddle.unsqueeze(paddle.to_tensor(data[1]), 1)
            logits = model(data[0])
            losses.append(F.cross_entropy(logits, y_data).numpy())
            accuracies.append(paddle.metric.accuracy(logits, y_data).numpy())
        val_acc_history.append(np.mean(accuracies))
        val_loss_history.append(np.mean(losses))
        model.train()
    assert val_acc_history[-1] > 0.9 and val_loss_history[-1] < val_loss_history[0], (val_acc_history,
                                                                                      val_loss_history)


def test_the_pointnet_tutorial_tells_shapes_apart(tmp_path):
    # docs/practices/cv/pointnet.ipynb: ShapeNet's point clouds become spheres, cubes and lines; the
    # network keeps its input transform (a Linear initialised by Assign to the identity), the old-style
    # nn.BatchNorm over Conv1D features, max over the points, LogSoftmax and nll_loss (narrower, fewer points)
    nn, F = paddle.nn, paddle.nn.functional
    paddle.seed(12)
    np.random.seed(12)
    rng = np.random.default_rng(12)
    num_point, width = 64, 128

    def make_data(n):
        labels = rng.integers(0, 3, (n, 1)).astype("int32")
        datas = []
        for k in labels[:, 0]:
            points = rng.normal(0, 1, (num_point, 3))
            if k == 0:
                points /= np.linalg.norm(points, axis=1, keepdims=True)
            elif k == 1:
                points = rng.uniform(-1, 1, (num_point, 3))
            else:
                points[:, 1:] *= 0.05
            datas.append(points.astype("float32"))
        return np.stack(datas), labels

    class PointDataset(paddle.io.Dataset):
        def __init__(self, datas, labels):
            super().__init__()
            self.datas, self.labels = datas, labels

        def __getitem__(self, index):
            data = paddle.to_tensor(self.datas[index].T.astype("float32"))
            label = paddle.to_tensor(self.labels[index].astype("int64"))
            return data, label

        def __len__(self):
            return len(self.datas)

    train_loader = paddle.io.DataLoader(PointDataset(*make_data(192)), batch_size=32, shuffle=True, drop_last=False)
    val_loader = paddle.io.DataLoader(PointDataset(*make_data(64)), batch_size=32, shuffle=False, drop_last=False)

    class PointNet(nn.Layer):
        def __init__(self, name_scope="PointNet_", num_classes=16, num_point=2048):
            super().__init__()
            self.input_transform_net = nn.Sequential(
                nn.Conv1D(3, 64, 1), nn.BatchNorm(64), nn.ReLU(), nn.Conv1D(64, width, 1), nn.BatchNorm(width),
                nn.ReLU(), nn.MaxPool1D(num_point))
            self.input_fc = nn.Sequential(
                nn.Linear(width, 64), nn.ReLU(),
                nn.Linear(64, 9,
                          weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(paddle.zeros((64, 9)))),
                          bias_attr=paddle.ParamAttr(
                              initializer=paddle.nn.initializer.Assign(paddle.reshape(paddle.eye(3), [-1])))))
            self.mlp_1 = nn.Sequential(nn.Conv1D(3, 64, 1), nn.BatchNorm(64), nn.ReLU(), nn.Conv1D(64, 64, 1),
                                       nn.BatchNorm(64), nn.ReLU())
            self.mlp_2 = nn.Sequential(nn.Conv1D(64, 64, 1), nn.BatchNorm(64), nn.ReLU(), nn.Conv1D(64, width, 1),
                                       nn.BatchNorm(width), nn.ReLU())
            self.fc = nn.Sequential(nn.Linear(width, 64), nn.ReLU(), nn.Dropout(p=0.7), nn.Linear(64, num_classes),
                                    nn.LogSoftmax(axis=-1))

        def forward(self, inputs):
            batchsize = inputs.shape[0]
            t_net = paddle.squeeze(self.input_transform_net(inputs), axis=-1)
            t_net = paddle.reshape(self.input_fc(t_net), [batchsize, 3, 3])
            x = paddle.transpose(inputs, (0, 2, 1))
            x = paddle.transpose(paddle.matmul(x, t_net), (0, 2, 1))
            x = paddle.squeeze(self.mlp_1(x), axis=-1)  # a no-op: the last axis holds the points
            x = paddle.max(self.mlp_2(x), axis=-1)
            return self.fc(paddle.squeeze(x, axis=-1))

    model = PointNet(num_classes=3, num_point=num_point)
    with paddle.no_grad():  # the identity start: the input transform leaves the points as they are
        t_net = model.input_fc(paddle.squeeze(model.input_transform_net(paddle.rand([2, 3, num_point])), axis=-1))
    np.testing.assert_allclose(t_net.numpy(), np.tile(np.eye(3).reshape(1, 9), (2, 1)), atol=1e-6)
    model.train()
    optim = paddle.optimizer.Adam(parameters=model.parameters(), weight_decay=0.001)
    for epoch in range(6):
        for batch_id, data in enumerate(train_loader()):
            inputs, labels = data
            predicts = model(inputs)
            loss = F.nll_loss(predicts, labels)
            acc = paddle.metric.accuracy(predicts, labels)
            loss.backward()
            optim.step()
            optim.clear_grad()
        paddle.save(model.state_dict(), str(tmp_path / "PointNet.pdparams"))
        paddle.save(optim.state_dict(), str(tmp_path / "PointNet.pdopt"))
    assert float(acc) > 0.5  # the last training batch's accuracy
    evaluated = PointNet(num_classes=3, num_point=num_point)
    evaluated.load_dict(paddle.load(str(tmp_path / "PointNet.pdparams")))
    evaluated.eval()
    accuracies = [paddle.metric.accuracy(evaluated(inputs), labels).numpy() for inputs, labels in val_loader()]
    assert np.mean(accuracies) > 0.85, accuracies


def test_the_landmark_detection_tutorials_facenet_has_paddles_parameter_count():
    # docs/practices/cv/landmark_detection.ipynb: a resnet18 backbone (no pretrained weights) and two
    # heads regressing 15 keypoints; its printed summary says "Total params: 12,227,014" (the batch
    # norms' running statistics included, which Paddle holds as non-trainable parameters)
    from eager.vision.models import resnet18
    paddle.seed(13)
    np.random.seed(13)

    class FaceNet(paddle.nn.Layer):
        def __init__(self, num_keypoints, pretrained=False):
            super().__init__()
            self.backbone = resnet18(pretrained)
            self.outLayer1 = paddle.nn.Sequential(paddle.nn.Linear(1000, 512), paddle.nn.ReLU(), paddle.nn.Dropout(0.1))
            self.outLayer2 = paddle.nn.Linear(512, num_keypoints * 2)

        def forward(self, inputs):
            return self.outLayer2(self.outLayer1(self.backbone(inputs)))

    num_keypoints = 15
    info = paddle.Model(FaceNet(num_keypoints)).summary((1, 3, 96, 96))
    assert info["total_params"] == 12227014
    assert info["total_params"] - info["trainable_params"] == 9600  # mean and variance of 4,800 channels

    class FaceDataset(paddle.io.Dataset):  # the Kaggle csv's 96x96 faces and keypoints scaled to [0, 1]
        def __init__(self, n):
            rng = np.random.default_rng(n)
            self.images = rng.random((n, 3, 96, 96)).astype("float32")
            self.points = rng.random((n, num_keypoints * 2)).astype("float32")

        def __getitem__(self, index):
            return self.images[index], self.points[index]

        def __len__(self):
            return len(self.images)

    model = paddle.Model(FaceNet(num_keypoints=15))
    optim = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    model.prepare(optim, paddle.nn.MSELoss())
    model.fit(FaceDataset(8), FaceDataset(4), epochs=1, batch_size=4, verbose=0)
    result = model.predict(FaceDataset(3), batch_size=1, verbose=0)
    assert len(result[0]) == 3 and result[0][0].shape == (1, 30) and np.isfinite(result[0][0]).all()


# -- Paddle's guides and more tutorials (PaddlePaddle/docs, docs/guides and docs/practices) -------

def test_the_gradient_clipping_guide_keeps_a_shifted_network_finite_only_when_clipping():
    # docs/guides/advanced/gradient_clip_cn.rst: three Linears initialised by Assign, the first weight
    # shifted by +2; need_clip on the weights says whether ClipGradByNorm touches them. Unclipped,
    # the loss and the first layer's gradient blow up to nan as the guide's log shows; clipped, it learns
    # y = x + 3.
    def run(is_clip):
        paddle.seed(7)
        np.random.seed(7)
        total_data, batch_size, input_size, hidden_size = 1000, 16, 1, 32

        def attrs(shape, shift=0.0):
            weight = paddle.framework.ParamAttr(
                initializer=paddle.nn.initializer.Assign(paddle.randn(shape) + shift), need_clip=is_clip)
            bias = paddle.framework.ParamAttr(initializer=paddle.nn.initializer.Assign(paddle.randn(shape[1:])))
            return weight, bias

        class Net(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                w1, b1 = attrs([input_size, hidden_size], shift=2.0)
                w2, b2 = attrs([hidden_size, hidden_size])
                w3, b3 = attrs([hidden_size, 1])
                self.linear1 = paddle.nn.Linear(input_size, hidden_size, weight_attr=w1, bias_attr=b1)
                self.linear2 = paddle.nn.Linear(hidden_size, hidden_size, weight_attr=w2, bias_attr=b2)
                self.linear3 = paddle.nn.Linear(hidden_size, 1, weight_attr=w3, bias_attr=b3)

            def forward(self, inputs):
                return self.linear3(self.linear2(self.linear1(inputs)))

        x_data = np.random.randn(total_data, input_size).astype(np.float32)
        y_data = x_data + 3
        model = Net()
        assert model.linear1.weight.need_clip is is_clip and model.linear1.bias.need_clip is True
        clip = paddle.nn.ClipGradByNorm(clip_norm=1.0)
        loss_fn = paddle.nn.MSELoss(reduction="mean")
        optimizer = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters(), grad_clip=clip)
        losses, grads = [], []
        for t in range(100):
            idx = np.random.choice(total_data, batch_size, replace=False)
            loss = loss_fn(model(paddle.to_tensor(x_data[idx, :])), paddle.to_tensor(y_data[idx, :]))
            loss.backward()
            losses.append(float(loss.numpy()))
            grads.append(model.linear1.weight.grad.numpy().copy())
            optimizer.step()
            optimizer.clear_grad()
        return np.array(losses), grads

    losses, grads = run(is_clip=False)
    assert losses[0] > 100 and np.isnan(losses[-1]) and np.isnan(grads[-1]).all()
    losses, grads = run(is_clip=True)
    assert np.isfinite(losses).all() and losses[-10:].mean() < 3 < losses[0]
    assert all(np.linalg.norm(g) < 1e6 for g in grads)


def test_the_recompute_guide_reproduces_losses_parameters_and_gradients_with_dropout():
    # docs/guides/06_distributed_training/data_parallel/recompute_cn.rst: blocks of Linear, Dropout and
    # ReLU; recomputing blocks 1 and 2 (their dropout masks drawn again in backward) must give the same
    # losses, parameters and gradients (read through the private _grad_ivar()) as running them plainly.
    import random

    from eager.distributed.fleet.utils import recompute

    def get_fc_block(block_idx, input_size, is_last=False):
        name = "block_" + str(block_idx)
        block = paddle.nn.Sequential(
            (name + "_fc_0", paddle.nn.Linear(input_size, input_size, bias_attr=False)),
            (name + "_dropout", paddle.nn.Dropout(p=0.5)),
            (name + "_relu_1", paddle.nn.ReLU()),
            (name + "_fc_1", paddle.nn.Linear(input_size, input_size, bias_attr=False)),
            (name + "_relu_2", paddle.nn.ReLU()))
        block.add_sublayer(name + "_fc_2", paddle.nn.Linear(input_size, 1 if is_last else input_size,
                                                            bias_attr=False))
        return block

    class Naive_fc_net(paddle.nn.Layer):
        def __init__(self, input_size=10, recompute_blocks=(1, 3)):
            super().__init__()
            self.recompute_blocks = recompute_blocks
            self.total_func = [get_fc_block(i, input_size, is_last=i == 4) for i in range(5)]
            for i, block in enumerate(self.total_func):
                setattr(self, f"runfunc{i}", block)

        def forward(self, inputs):
            for i, func in enumerate(self.total_func):
                inputs = recompute(func, inputs) if i in self.recompute_blocks else func(inputs)
            return inputs

    def run_model(cuda_state, recompute_block=()):
        gen = paddle.seed(10)
        gen.manual_seed(10)
        np.random.seed(10)
        random.seed(10)
        if cuda_state:
            paddle.set_cuda_rng_state(cuda_state)
        model = Naive_fc_net(10, recompute_blocks=recompute_block)
        optimizer = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
        loss_, param_, grad_ = [], [], []
        for _ in range(5):
            x = paddle.to_tensor(np.random.randn(4, 10).astype(np.float32))
            loss = model(x).mean()
            loss_.append(np.asarray(loss).tolist())
            loss.backward()
            optimizer.step()
            param_.append(np.asarray(model.parameters()[9]).tolist())
            grad_.append(np.asarray(model.parameters()[3]._grad_ivar()).tolist())
            optimizer.clear_grad()
        return loss_, param_, grad_

    cuda_state = paddle.get_cuda_rng_state()
    loss_ref, param_ref, grad_ref = run_model(cuda_state, recompute_block=[])
    loss, param, grad = run_model(cuda_state, recompute_block=[1, 2])
    assert loss == loss_ref and param == param_ref and grad == grad_ref
    assert len(set(map(str, loss_ref))) > 1 and np.abs(grad_ref).sum() > 0


def test_the_captcha_ocr_tutorial_learns_ctc_and_decodes_with_model_predict(tmp_path):
    # docs/practices/cv/image_ocr.ipynb: 30x70 RGB jpgs of four digits listed in label_dict.txt (a dict
    # written with repr, read back with eval), conv + BatchNorm + a bidirectional LSTM over 8 time steps,
    # F.ctc_loss with blank=10 inside a Layer, Model.fit with InputSpecs and drop_last, then an inference
    # Model (softmax and argmax in forward) loaded from the final checkpoint and a greedy CTC decoder.
    from PIL import Image
    F = paddle.nn.functional
    paddle.seed(14)
    np.random.seed(14)
    rng = np.random.default_rng(14)
    C, H, W, LABEL_MAX_LEN, CLASSIFY_NUM, BATCH_SIZE = 3, 30, 70, 4, 11, 16
    data_path = tmp_path / "OCR_Dataset"
    data_path.mkdir()
    glyphs = rng.integers(0, 2, (10, 30, 17, 3)) * 255   # one blocky pattern per digit
    info = {}
    for i in range(128):
        label = "".join(str(d) for d in rng.integers(0, 10, LABEL_MAX_LEN))
        image = np.zeros((H, W, C), np.uint8)
        for j, digit in enumerate(label):
            image[:, 1 + 17 * j:18 + 17 * j] = glyphs[int(digit)]
        Image.fromarray(image).save(data_path / f"{i}.jpg", quality=95)
        info[f"{i}.jpg"] = label
    (data_path / "label_dict.txt").write_text(repr(info), encoding="utf-8")

    class Reader(paddle.io.Dataset):
        def __init__(self, data_path, is_val=False):
            super().__init__()
            self.data_path = data_path
            with open(os.path.join(data_path, "label_dict.txt"), "r", encoding="utf-8") as f:
                self.info = eval(f.read())
            self.img_paths = [name for name in self.info]
            self.img_paths = self.img_paths[-32:] if is_val else self.img_paths[:-32]   # the tutorial keeps 1024

        def __getitem__(self, index):
            file_name = self.img_paths[index]
            img = Image.open(os.path.join(self.data_path, file_name))
            img = np.array(img, dtype="float32").reshape((C, H, W)) / 255   # the tutorial's reshape
            return img, np.array(list(self.info[file_name]), dtype="int32")

        def __len__(self):
            return len(self.img_paths)

    input_define = paddle.static.InputSpec(shape=[-1, C, H, W], dtype="float32", name="img")
    label_define = paddle.static.InputSpec(shape=[-1, LABEL_MAX_LEN], dtype="int32", name="label")

    class Net(paddle.nn.Layer):
        def __init__(self, is_infer=False):
            super().__init__()
            self.is_infer = is_infer
            self.conv1 = paddle.nn.Conv2D(in_channels=C, out_channels=32, kernel_size=3)
            self.bn1 = paddle.nn.BatchNorm2D(32)
            self.conv2 = paddle.nn.Conv2D(in_channels=32, out_channels=64, kernel_size=3, stride=2)
            self.bn2 = paddle.nn.BatchNorm2D(64)
            self.conv3 = paddle.nn.Conv2D(in_channels=64, out_channels=LABEL_MAX_LEN + 4, kernel_size=1)
            self.linear = paddle.nn.Linear(in_features=429, out_features=128)
            self.lstm = paddle.nn.LSTM(input_size=128, hidden_size=64, direction="bidirectional")
            self.linear2 = paddle.nn.Linear(in_features=64 * 2, out_features=CLASSIFY_NUM)

        def forward(self, ipt):
            x = self.bn1(F.relu(self.conv1(ipt)))
            x = self.bn2(F.relu(self.conv2(x)))
            x = F.relu(self.conv3(x))
            x = paddle.tensor.flatten(x, 2)
            x = F.relu(self.linear(x))
            x = self.linear2(self.lstm(x)[0])
            if self.is_infer:
                x = paddle.argmax(F.softmax(x), axis=-1)
            return x

    class CTCLoss(paddle.nn.Layer):
        def forward(self, ipt, label):
            input_lengths = paddle.full(shape=[BATCH_SIZE], fill_value=LABEL_MAX_LEN + 4, dtype="int64")
            label_lengths = paddle.full(shape=[BATCH_SIZE], fill_value=LABEL_MAX_LEN, dtype="int64")
            ipt = paddle.tensor.transpose(ipt, [1, 0, 2])
            return F.ctc_loss(ipt, label, input_lengths, label_lengths, blank=10)

    model = paddle.Model(Net(), inputs=input_define, labels=label_define)
    optimizer = paddle.optimizer.Adam(learning_rate=0.003, parameters=model.parameters())
    model.prepare(optimizer=optimizer, loss=CTCLoss())
    start = model.evaluate(Reader(data_path, is_val=True), batch_size=BATCH_SIZE, verbose=0)["loss"][0]
    model.fit(train_data=Reader(data_path), eval_data=Reader(data_path, is_val=True), batch_size=BATCH_SIZE,
              epochs=5, save_dir=str(tmp_path / "output"), save_freq=1, verbose=0, drop_last=True)
    end = model.evaluate(Reader(data_path, is_val=True), batch_size=BATCH_SIZE, verbose=0)["loss"][0]
    assert end < 0.5 * start, (start, end)

    def ctc_decode(text, blank=10):
        result, cache_idx = [], -1
        for char in text:
            if char != blank and char != cache_idx:
                result.append(char)
            cache_idx = char
        return result

    class InferReader(Reader):
        def __getitem__(self, index):
            return super().__getitem__(index)[0]

    infer = paddle.Model(Net(is_infer=True), inputs=input_define)
    infer.load(str(tmp_path / "output" / "final.pdparams"))
    infer.prepare()
    reader = InferReader(data_path, is_val=True)
    results = infer.predict(reader, batch_size=32, verbose=0)
    decoded = [ctc_decode(prob) for batch in results[0] for prob in batch]
    truths = [[int(c) for c in reader.info[name]] for name in reader.img_paths]
    assert results[0][0].shape == (32, LABEL_MAX_LEN + 4) and results[0][0].dtype == np.int64
    # Trained for seconds, not the tutorial's ten epochs of 8,000 images: many decodings are already
    # the true digits in order, some with digits missed (a subsequence of the truth).
    def is_subsequence(short, long):
        items = iter(long)
        return all(any(c == d for d in items) for c in short)
    good = [len(d) >= 2 and is_subsequence(d, t) for d, t in zip(decoded, truths)]
    assert np.mean(good) > 0.4, list(zip(decoded, truths))


def test_the_sub_pixel_super_resolution_tutorial_has_its_parameter_count_and_learns(tmp_path):
    # docs/practices/cv/super_resolution_sub_pixel.ipynb: BSDS500 images cropped and shrunk 3x, their Y
    # channel (YCbCr) as input and target, four convolutions and F.pixel_shuffle(x, 3); Model.summary
    # prints "Total params: 59,657". Model.predict also takes a bare NumPy batch wrapped in an array
    # (the tutorial's upscale_image). Crops of 60 instead of 300.
    import io as _io
    import random as _random

    from PIL import Image
    paddle.seed(15)
    np.random.seed(15)
    rng = np.random.default_rng(15)
    root = tmp_path / "BSR" / "BSDS500" / "data" / "images"
    for split, count in (("train", 24), ("val", 4)):
        (root / split).mkdir(parents=True)
        for i in range(count):   # smooth stripes at random frequencies, the kind of detail to restore
            yy, xx = np.mgrid[0:90, 0:120]
            f = rng.uniform(0.05, 0.3, 3)
            img = 127 + 100 * np.sin(f[0] * xx[..., None] + f[1] * yy[..., None] + np.arange(3) * f[2])
            Image.fromarray(img.astype(np.uint8)).save(root / split / f"{i}.jpg", quality=95)

    class BSD_data(paddle.io.Dataset):
        def __init__(self, mode="train", image_path=str(root)):
            super().__init__()
            self.image_path = os.path.join(image_path, mode)
            self.crop_size, self.upscale_factor = 60, 3
            self.input_size = self.crop_size // self.upscale_factor
            files = sorted(os.path.join(self.image_path, f) for f in os.listdir(self.image_path)
                           if f.split(".")[-1].lower() in ["jpg", "jpeg", "png"])
            _random.Random(1337).shuffle(files)
            self.temp_images = files

        def transforms(self, img):
            if len(img.shape) == 2:
                img = np.expand_dims(img, axis=2)
            return img.transpose((2, 0, 1))

        def __getitem__(self, idx):
            with open(self.temp_images[idx], "rb") as f:
                img = Image.open(_io.BytesIO(f.read())).convert("RGB")
            img = img.resize([self.crop_size, self.crop_size], Image.BICUBIC)
            y = np.asarray(img.convert("YCbCr").split()[0], dtype="float32") / 255.0
            small = img.resize([self.input_size, self.input_size], Image.BICUBIC)
            y_ = np.asarray(small.convert("YCbCr").split()[0], dtype="float32") / 255.0
            return self.transforms(y_), self.transforms(y)

        def __len__(self):
            return len(self.temp_images)

    class Sub_Pixel_CNN(paddle.nn.Layer):
        def __init__(self, upscale_factor=3, channels=1):
            super().__init__()
            self.conv1 = paddle.nn.Conv2D(channels, 64, 5, stride=1, padding=2)
            self.conv2 = paddle.nn.Conv2D(64, 64, 3, stride=1, padding=1)
            self.conv3 = paddle.nn.Conv2D(64, 32, 3, stride=1, padding=1)
            self.conv4 = paddle.nn.Conv2D(32, channels * (upscale_factor ** 2), 3, stride=1, padding=1)

        def forward(self, x):
            x = self.conv4(self.conv3(self.conv2(self.conv1(x))))
            return paddle.nn.functional.pixel_shuffle(x, 3)

    train_dataset, val_dataset = BSD_data(mode="train"), BSD_data(mode="val")
    x, y = train_dataset[0]
    assert x.shape == (1, 20, 20) and y.shape == (1, 60, 60)
    model = paddle.Model(Sub_Pixel_CNN())
    assert model.summary((1, 1, 100, 100)) == {"total_params": 59657, "trainable_params": 59657}
    model.prepare(paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters()), paddle.nn.MSELoss())
    start = model.evaluate(val_dataset, batch_size=4, verbose=0)["loss"][0]
    model.fit(train_dataset, epochs=6, batch_size=8, verbose=0)
    end = model.evaluate(val_dataset, batch_size=4, verbose=0)["loss"][0]
    assert end < 0.1 * start, (start, end)
    predict_results = model.predict(val_dataset, verbose=0)
    assert len(predict_results[0]) == 4 and predict_results[0][0].shape == (1, 1, 60, 60)

    low = Image.open(root / "val" / "0.jpg").convert("RGB").resize((40, 30), Image.BICUBIC)
    y_low = np.asarray(low.convert("YCbCr").split()[0], dtype="float32") / 255.0
    img = np.expand_dims(np.expand_dims(np.expand_dims(y_low, axis=0), axis=0), axis=0)   # (1, 1, 1, h, w)
    out = model.predict(img, verbose=0)
    out_img_y = out[0][0][0] * 255.0
    assert out_img_y.shape == (1, 90, 120) and np.isfinite(out_img_y).all()
    rebuilt = Image.fromarray(np.uint8(np.clip(out_img_y.reshape(90, 120), 0, 255)), mode="L")
    assert rebuilt.size == (120, 90)


def test_the_time_series_tutorials_forecast_with_lstms_through_model_fit(tmp_path):
    # docs/practices/time_series/temperature_forecast.ipynb: sliding windows of 72 steps of 7 features as
    # Tensors in a Dataset, Conv2D and MaxPool2D with padding="same" (stride 1), Dropout2D, an LSTM,
    # InputSpecs, CosineAnnealingDecay, MSELoss with Accuracy (a [N, 1] prediction against [N] labels,
    # which MSELoss broadcasts as Paddle does), checkpoints, evaluate and predict. Its summary prints
    # "Total params: 304,897"; stock_forecast.ipynb's LSTM(128, 18, 300, 1) prints 422,528.
    paddle.seed(16)
    np.random.seed(16)
    future, fea_num = 72, 7

    class MyDataset(paddle.io.Dataset):
        def __init__(self, data, time_steps):
            super().__init__()
            self.time_steps = time_steps
            self.data = paddle.to_tensor(self.transform(data), dtype="float32")
            self.label = paddle.to_tensor(self.transform_(data), dtype="float32")

        def transform(self, data):
            return np.array([data[i:i + self.time_steps] for i in range(len(data) - self.time_steps)])

        def transform_(self, data):
            return np.array([data[i + self.time_steps, 1] for i in range(len(data) - self.time_steps)])

        def __getitem__(self, index):
            return self.data[index], self.label[index]

        def __len__(self):
            return len(self.data)

    class Encoder(paddle.nn.Layer):
        def __init__(self, window_size, fea_num, channels=64, hidden=128):
            super().__init__()
            self.window_size, self.fea_num = window_size, fea_num
            self.conv1 = paddle.nn.Conv2D(in_channels=1, out_channels=channels, stride=1, kernel_size=3,
                                          padding="same")
            self.relu1 = paddle.nn.ReLU()
            self.pool = paddle.nn.MaxPool2D(kernel_size=2, stride=1, padding="same")
            self.dropout = paddle.nn.Dropout2D(0.3)
            self.lstm1 = paddle.nn.LSTM(input_size=channels * fea_num, hidden_size=hidden, num_layers=1,
                                        time_major=False)
            self.fc = paddle.nn.Linear(in_features=hidden, out_features=64)
            self.relu2 = paddle.nn.ReLU()
            self.head = paddle.nn.Linear(in_features=64, out_features=1)

        def forward(self, x):
            x = x.reshape([x.shape[0], 1, self.window_size, self.fea_num])
            x = self.dropout(self.pool(self.relu1(self.conv1(x))))
            x = x.reshape([x.shape[0], self.window_size, -1])
            x, (h, c) = self.lstm1(x)
            return self.head(self.relu2(self.fc(x[:, -1, :])))

    assert paddle.summary(Encoder(future, fea_num), (2, 72, 7))["total_params"] == 304897

    class LSTM(paddle.nn.Layer):   # stock_forecast.ipynb's
        def __init__(self, num_classes, input_size, hidden_size, num_layers):
            super().__init__()
            self.lstm = paddle.nn.LSTM(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers)
            self.fc = paddle.nn.Linear(hidden_size, num_classes)

        def forward(self, x):
            x, (h, c) = self.lstm(x)
            return self.fc(h[-1])

    assert paddle.summary(LSTM(128, 18, 300, 1), (2, 8, 18)) == {"total_params": 422528,   # tutorial: (30, 796, 18)
                                                                 "trainable_params": 422528}

    # The temperature follows a slow sine that the other features lead.
    t = np.arange(420)
    features = np.stack([np.sin((t + 6 * k) / 9.0) for k in range(fea_num)], 1)
    features += 0.05 * np.random.default_rng(16).normal(size=features.shape)
    train_dataset = MyDataset(features[:260], future)
    eval_dataset, test_dataset = MyDataset(features[260:370], future), MyDataset(features[330:], future)

    class LossCallback(paddle.callbacks.Callback):
        def __init__(self):
            self.losses = []

        def on_train_begin(self, logs={}):
            self.losses = []

        def on_train_batch_end(self, step, logs={}):
            self.losses.append(logs.get("loss"))

    loss_log = LossCallback()
    epoch_num, batch_size, learning_rate = 6, 16, 0.01
    inputs = paddle.static.InputSpec([None, 72, 7], "float32", "x")
    labels = paddle.static.InputSpec([None, 72, 1], "float32", "x")
    model = paddle.Model(Encoder(future, fea_num, channels=8, hidden=32), inputs, labels)
    lr_schedual = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=learning_rate, T_max=epoch_num,
                                                           verbose=False)
    opt = paddle.optimizer.Adam(learning_rate=lr_schedual, parameters=model.parameters(), beta1=0.9, beta2=0.999)
    model.prepare(opt, paddle.nn.MSELoss(), paddle.metric.Accuracy())
    checkpoints = str(tmp_path / "lstm_checkpoint")
    with pytest.warns(UserWarning, match="mse_loss: input of shape \\[16, 1\\] and label of shape \\[16\\] "
                                         "are broadcast together"):
        model.fit(train_dataset, eval_dataset, epochs=epoch_num, batch_size=batch_size, eval_freq=2, save_freq=2,
                  save_dir=checkpoints, verbose=0, drop_last=True, shuffle=False, callbacks=[loss_log])
    assert {"0.pdparams", "2.pdparams", "4.pdparams", "final.pdparams"} <= set(os.listdir(checkpoints))
    assert len(loss_log.losses) == epoch_num * (len(train_dataset) // batch_size)
    model.load(checkpoints + "/final")
    eval_result = model.evaluate(eval_dataset, batch_size=batch_size, verbose=0)
    assert set(eval_result) == {"loss", "acc"}
    # The broadcast pairs every prediction with every label of its batch: a batch's loss is
    # mean_ij (p_i - y_j)^2 = mean_i (p_i - mean(y))^2 + var(y), so what the network learns is to predict
    # each batch's mean temperature (the tutorial's plot shows as much). evaluate weighs batches by size.
    predictions = model.predict(eval_dataset, batch_size=batch_size, verbose=0)[0]
    labels_np = eval_dataset.label.numpy()
    pairs = [(p[:, 0], labels_np[i * batch_size:i * batch_size + len(p)]) for i, p in enumerate(predictions)]
    by_hand = sum(np.mean((p[:, None] - y[None, :]) ** 2) * len(p) for p, y in pairs) / len(labels_np)
    floor = sum(np.var(y) * len(y) for _, y in pairs) / len(labels_np)
    np.testing.assert_allclose(eval_result["loss"][0], by_hand, rtol=1e-5)
    assert floor <= eval_result["loss"][0] < floor + 0.2, (floor, eval_result)   # untrained: about floor + 0.37
    test_result = model.predict(test_dataset, verbose=0)
    assert len(test_result[0]) == len(test_dataset) and test_result[0][0].shape == (1, 1)


def test_the_image_search_tutorials_learn_embeddings_that_find_the_same_class(tmp_path):
    # docs/practices/cv/image_search.ipynb and docs/practices/jit/image_search_with_jit.ipynb: CIFAR-10
    # through Transpose, anchor/positive pairs of every class per batch, embeddings normalised by
    # paddle.norm, a softmax over the pair similarities (matmul transpose_y, multiplied by a 1-element
    # inverse temperature) with arange labels; the jit version decorates forward with to_static, prints
    # "Total params: 94,280", and saves and loads the model with jit.save/jit.load.
    import random as _random
    from collections import defaultdict
    F = paddle.nn.functional
    T = paddle.vision.transforms
    paddle.seed(17)
    np.random.seed(17)
    _random.seed(17)
    data_file = _cifar_archive(tmp_path, 200, 100, 10, 17, hundred=False)
    transform = T.Compose([T.Transpose((2, 0, 1))])
    cifar10_train = paddle.vision.datasets.Cifar10(data_file, mode="train", transform=transform)
    cifar10_test = paddle.vision.datasets.cifar.Cifar10(data_file, mode="test", transform=transform)
    x_train = np.zeros((200, 3, 32, 32))
    y_train = np.zeros((200, 1), dtype="int32")
    for i in range(len(cifar10_train)):
        train_image, train_label = cifar10_train[i]
        x_train[i, :, :, :] = train_image / 255.0
        y_train[i, 0] = train_label
    y_train = np.squeeze(y_train)
    x_test = np.zeros((100, 3, 32, 32), dtype="float32")
    y_test = np.zeros((100, 1), dtype="int64")
    for i in range(len(cifar10_test)):
        test_image, test_label = cifar10_test[i]
        x_test[i, :, :, :] = test_image / 255.0
        y_test[i, 0] = test_label
    y_test = np.squeeze(y_test)
    class_idx_to_train_idxs = defaultdict(list)
    for y_train_idx, y in enumerate(y_train):
        class_idx_to_train_idxs[y].append(y_train_idx)
    num_classes, height_width = 10, 32

    def reader_creator(num_batchs):
        def reader():
            for _ in range(num_batchs):
                x = np.empty((2, num_classes, 3, height_width, height_width), dtype=np.float32)
                for class_idx in range(num_classes):
                    examples_for_class = class_idx_to_train_idxs[class_idx]
                    anchor_idx = _random.choice(examples_for_class)
                    positive_idx = _random.choice(examples_for_class)
                    while positive_idx == anchor_idx:
                        positive_idx = _random.choice(examples_for_class)
                    x[0, class_idx] = x_train[anchor_idx]
                    x[1, class_idx] = x_train[positive_idx]
                yield x
        return reader

    pairs_train_reader = reader_creator(num_batchs=30)

    class MyNet2(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv1 = paddle.nn.Conv2D(in_channels=3, out_channels=32, kernel_size=(3, 3), stride=2)
            self.conv2 = paddle.nn.Conv2D(in_channels=32, out_channels=64, kernel_size=(3, 3), stride=2)
            self.conv3 = paddle.nn.Conv2D(in_channels=64, out_channels=128, kernel_size=(3, 3), stride=2)
            self.gloabl_pool = paddle.nn.AdaptiveAvgPool2D((1, 1))
            self.fc1 = paddle.nn.Linear(in_features=128, out_features=8)

        @paddle.jit.to_static()
        def forward(self, x):
            x = F.relu(self.conv3(F.relu(self.conv2(F.relu(self.conv1(x))))))
            x = paddle.squeeze(self.gloabl_pool(x), axis=[2, 3])
            x = self.fc1(x)
            return x / paddle.norm(x, axis=1, keepdim=True)

    def train(model):
        model.train()
        inverse_temperature = paddle.to_tensor(np.array([1.0 / 0.2], dtype="float32"))
        opt = paddle.optimizer.Adam(learning_rate=0.003, parameters=model.parameters())
        losses = []
        for epoch in range(2):
            for batch_id, data in enumerate(pairs_train_reader()):
                anchor_embeddings = model(paddle.to_tensor(data[0]))
                positive_embeddings = model(paddle.to_tensor(data[1]))
                similarities = paddle.matmul(anchor_embeddings, positive_embeddings, transpose_y=True)
                similarities = paddle.multiply(similarities, inverse_temperature)
                sparse_labels = paddle.arange(0, num_classes, dtype="int64")
                loss = F.cross_entropy(similarities, sparse_labels)
                losses.append(float(loss.numpy()))
                loss.backward()
                opt.step()
                opt.clear_grad()
        return losses

    model_2 = MyNet2()
    assert paddle.summary(model_2, (10, 3, 32, 32)) == {"total_params": 94280, "trainable_params": 94280}
    losses = train(model_2)
    assert np.mean(losses[-10:]) < 0.7 * np.mean(losses[:5]), losses
    paddle.jit.save(model_2, str(tmp_path / "model"))
    loaded = paddle.jit.load(str(tmp_path / "model"))
    x_test_t = paddle.to_tensor(x_test)
    test_images_embeddings = loaded(x_test_t)
    np.testing.assert_allclose(test_images_embeddings.numpy(), model_2(x_test_t).numpy(), rtol=1e-5, atol=1e-6)
    similarities_matrix = paddle.matmul(test_images_embeddings, test_images_embeddings, transpose_y=True)
    indicies = paddle.argsort(similarities_matrix, descending=True).numpy()
    assert (indicies[:, 0] == np.arange(100)).mean() > 0.9   # each image is its own nearest
    neighbours = indicies[:, 1:6]
    assert (y_test[neighbours] == y_test[:, None]).mean() > 0.4   # chance: 0.1


def test_the_n_gram_tutorial_learns_the_next_word_with_fit_and_its_own_loop(tmp_path):
    # docs/practices/nlp/n_gram_model.ipynb: Shakespeare's text stripped of punctuation with
    # str.maketrans, a vocabulary of the most frequent words (0 for <pad> and the rest), trigrams as
    # ([w1, w2], w3) with a 0-d int64 label, a DataLoader handed to Model.fit with a Callback logging each
    # batch's loss, then the same model trained in the tutorial's own loop. The text here is generated by
    # a rule (the next word follows from the two before), so the next word can be learnt.
    from string import punctuation
    F = paddle.nn.functional
    paddle.seed(18)
    np.random.seed(18)
    rng = np.random.default_rng(18)
    words = ["alas", "good", "my", "lord", "thou", "art", "sweet", "fair", "night", "day", "king", "queen"]
    seq = [0, 1]
    for _ in range(3000):
        seq.append((seq[-1] + 2 * seq[-2] + 1) % len(words) if rng.random() < 0.98 else int(rng.integers(12)))
    text = " ".join(words[s].capitalize() + ("," if i % 5 == 0 else "") + ("!" if i % 11 == 0 else "")
                    for i, s in enumerate(seq))
    path_to_file = tmp_path / "t8.shakespeare.txt"
    path_to_file.write_bytes(text.encode("utf-8"))
    test_sentence = open(path_to_file, "rb").read().decode(encoding="utf-8")
    punc_table = str.maketrans({i: "" for i in punctuation})
    test_sentence_list = test_sentence.translate(punc_table).lower().split()
    word_dict_count = {}
    for word in test_sentence_list:
        word_dict_count[word] = word_dict_count.get(word, 0) + 1
    word_list = [key for key, _ in sorted(word_dict_count.items(), key=lambda x: x[1], reverse=True)][:2500]
    hidden_size, embedding_dim, batch_size, context_size, epochs = 64, 16, 64, 2, 2
    vocab_size = len(word_list) + 1
    trigram = [[[test_sentence_list[i], test_sentence_list[i + 1]], test_sentence_list[i + 2]]
               for i in range(len(test_sentence_list) - 2)]
    word_to_idx = {word: i + 1 for i, word in enumerate(word_list)}
    word_to_idx["<pad>"] = 0
    idx_to_word = {word_to_idx[word]: word for word in word_to_idx}

    class TrainDataset(paddle.io.Dataset):
        def __init__(self, tuple_data):
            self.tuple_data = tuple_data

        def __getitem__(self, idx):
            data, label = self.tuple_data[idx]
            data = np.array(list(map(lambda word: word_to_idx.get(word, 0), data)))
            return data, np.array(word_to_idx.get(label, 0), dtype=np.int64)

        def __len__(self):
            return len(self.tuple_data)

    train_loader = paddle.io.DataLoader(TrainDataset(trigram), return_list=True, shuffle=True,
                                        batch_size=batch_size, drop_last=True)

    class NGramModel(paddle.nn.Layer):
        def __init__(self, vocab_size, embedding_dim, context_size):
            super().__init__()
            self.embedding = paddle.nn.Embedding(num_embeddings=vocab_size, embedding_dim=embedding_dim)
            self.linear1 = paddle.nn.Linear(context_size * embedding_dim, hidden_size)
            self.linear2 = paddle.nn.Linear(hidden_size, vocab_size)

        def forward(self, x):
            x = paddle.reshape(self.embedding(x), [-1, context_size * embedding_dim])
            return self.linear2(F.relu(self.linear1(x)))

    class LossCallback(paddle.callbacks.Callback):
        def __init__(self):
            self.losses = []

        def on_train_begin(self, logs={}):
            self.losses = []

        def on_train_batch_end(self, step, logs={}):
            self.losses.append(logs.get("loss"))

    loss_log = LossCallback()
    n_gram_model = paddle.Model(NGramModel(vocab_size, embedding_dim, context_size))
    n_gram_model.prepare(optimizer=paddle.optimizer.Adam(learning_rate=0.01, parameters=n_gram_model.parameters()),
                         loss=paddle.nn.CrossEntropyLoss())
    n_gram_model.fit(train_loader, epochs=epochs, batch_size=batch_size, callbacks=[loss_log], verbose=0)
    assert len(loss_log.losses) == epochs * (len(trigram) // batch_size)
    assert np.mean(loss_log.losses[-5:]) < 0.6 < 1.2 < np.mean(loss_log.losses[:3]), loss_log.losses[::10]

    model = NGramModel(vocab_size, embedding_dim, context_size)
    model.train()
    optim = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    losses = []
    for epoch in range(epochs):
        for batch_id, (x_data, y_data) in enumerate(train_loader()):
            loss = F.cross_entropy(model(x_data), y_data)
            loss.backward()
            losses.append(loss.numpy())
            optim.step()
            optim.clear_grad()
    assert losses[0].shape == () and np.mean(losses[-5:]) < 0.6
    model.eval()
    hits = 0
    for idx in range(len(trigram) - 50, len(trigram)):
        x_data = paddle.to_tensor(np.array(list(map(lambda word: word_to_idx.get(word, 0), trigram[idx][0]))))
        predicts = model(x_data).numpy().tolist()[0]
        hits += idx_to_word[predicts.index(max(predicts))] == trigram[idx][1]
    assert hits > 40


def test_the_actor_critic_tutorial_moves_its_policy_to_the_rewarded_action(tmp_path):
    # docs/practices/reinforcement_learning/actor_critic_method.ipynb: an Actor returning
    # Categorical(F.softmax(logits)) and a Critic, returns discounted through done masks, log_prob of
    # dist.sample([1]), paddle.concat of the episode, detach, two Adams, state_dicts saved and loaded.
    # gym's CartPole is replaced by a corridor where stepping on (action 1) earns 1 and action 0 ends
    # the episode. As in Paddle 2.6, Categorical.sample draws with softmax(logits) even though the
    # tutorial passes probabilities (Paddle 2.1 drew with the probabilities themselves), so a
    # policy sure of action 1 still samples it with probability e / (1 + e) only.
    from itertools import count

    from eager.distribution import Categorical
    nn, F, optim = paddle.nn, paddle.nn.functional, paddle.optimizer
    paddle.seed(19)
    np.random.seed(19)

    class Corridor:
        def reset(self):
            self.t = 0
            return np.array([1.0, 0.0, 0.5, -0.5])

        def step(self, action):
            self.t += 1
            forward = int(action) == 1
            return np.array([1.0, self.t / 30, 0.5, -0.5]), float(forward), not forward or self.t >= 30, {}

    env, device = Corridor(), paddle.get_device()
    state_size, action_size, lr = 4, 2, 0.001

    class Actor(nn.Layer):
        def __init__(self, state_size, action_size):
            super().__init__()
            self.linear1 = nn.Linear(state_size, 128)
            self.linear2 = nn.Linear(128, 256)
            self.linear3 = nn.Linear(256, action_size)

        def forward(self, state):
            output = self.linear3(F.relu(self.linear2(F.relu(self.linear1(state)))))
            return Categorical(F.softmax(output, axis=-1))

    class Critic(nn.Layer):
        def __init__(self, state_size, action_size):
            super().__init__()
            self.linear1 = nn.Linear(state_size, 128)
            self.linear2 = nn.Linear(128, 256)
            self.linear3 = nn.Linear(256, 1)

        def forward(self, state):
            return self.linear3(F.relu(self.linear2(F.relu(self.linear1(state)))))

    def compute_returns(next_value, rewards, masks, gamma=0.99):
        R, returns = next_value, []
        for step in reversed(range(len(rewards))):
            R = rewards[step] + gamma * R * masks[step]
            returns.insert(0, R)
        return returns

    def p_forward(actor):
        with paddle.no_grad():
            return float(actor(paddle.to_tensor(env.reset(), dtype="float32")).probs(paddle.to_tensor([1])))

    def trainIters(actor, critic, n_iters):
        optimizerA = optim.Adam(lr, parameters=actor.parameters())
        optimizerC = optim.Adam(lr, parameters=critic.parameters())
        for iter in range(n_iters):
            state = env.reset()
            log_probs, values, rewards, masks = [], [], [], []
            for i in count():
                state = paddle.to_tensor(state, dtype="float32", place=device)
                dist, value = actor(state), critic(state)
                action = dist.sample([1])
                next_state, reward, done, _ = env.step(action.cpu().squeeze(0).numpy())
                log_probs.append(dist.log_prob(action))
                values.append(value)
                rewards.append(paddle.to_tensor([reward], dtype="float32", place=device))
                masks.append(paddle.to_tensor([1 - done], dtype="float32", place=device))
                state = next_state
                if done:
                    break
            next_value = critic(paddle.to_tensor(next_state, dtype="float32", place=device))
            returns = compute_returns(next_value, rewards, masks)
            log_probs = paddle.concat(log_probs)
            returns = paddle.concat(returns).detach()
            values = paddle.concat(values)
            advantage = returns - values
            actor_loss = -(log_probs * advantage.detach()).mean()
            critic_loss = advantage.pow(2).mean()
            optimizerA.clear_grad()
            optimizerC.clear_grad()
            actor_loss.backward()
            critic_loss.backward()
            optimizerA.step()
            optimizerC.step()
        os.makedirs(tmp_path / "model", exist_ok=True)
        paddle.save(actor.state_dict(), str(tmp_path / "model" / "actor.pdparams"))
        paddle.save(critic.state_dict(), str(tmp_path / "model" / "critic.pdparams"))

    actor, critic = Actor(state_size, action_size), Critic(state_size, action_size)
    before = p_forward(actor)
    trainIters(actor, critic, n_iters=30)
    after = p_forward(actor)
    assert 0.3 < before < 0.7 and after > 0.95, (before, after)
    with paddle.no_grad():
        value = float(critic(paddle.to_tensor(env.reset(), dtype="float32")))
    assert value > 0.5   # it has seen rewards for stepping on

    reloaded = Actor(state_size, action_size)
    reloaded.set_state_dict(paddle.load(str(tmp_path / "model" / "actor.pdparams")))
    assert p_forward(reloaded) == after
    dist = reloaded(paddle.to_tensor(env.reset(), dtype="float32"))
    draws = dist.sample([4000]).numpy()
    expected = np.exp(after) / (np.exp(after) + np.exp(1 - after))   # softmax of the probabilities
    assert draws.shape == (4000,) and abs((draws == 1).mean() - expected) < 0.03


def test_the_3d_ct_classification_tutorial_trains_its_own_loop_with_conv3d(tmp_path, capsys):
    # docs/practices/cv/3D_image_classification_from_CT_scans.ipynb: volumes [H, W, D] with a channel
    # axis added last and moved by transpose((0, 4, 3, 1, 2)), Conv3D/MaxPool3D/BatchNorm3D blocks,
    # AdaptiveAvgPool3D, Sigmoid and BCELoss on labels.astype(np.float32), AdamW on an ExponentialDecay
    # with verbose=True (its printed "Epoch 0: ExponentialDecay set learning rate to 0.0001."),
    # optim.minimize after backward, the best state_dict saved and loaded, "%.2f" of a Tensor score.
    # The network's widths are a sixteenth of the tutorial's and the volumes 46^3 (the least its four
    # conv+pool stages take); scipy's random rotation is a random flip here.
    import random as _random
    nn = paddle.nn
    paddle.seed(20)
    np.random.seed(20)
    _random.seed(20)
    rng = np.random.default_rng(20)
    side = 46

    def scans(n, abnormal):
        volumes = rng.uniform(0, 0.3, (n, side, side, side)).astype("float32")
        if abnormal:
            volumes[:, 12:30, 12:30, 12:30] += 0.6
        return volumes

    abnormal_scans, normal_scans = scans(10, True), scans(10, False)

    class dataset(paddle.io.Dataset):
        def __init__(self, abnormal_scans, normal_scans, mode="train"):
            super().__init__()
            abnormal_labels = np.array([1 for _ in range(len(abnormal_scans))])
            normal_labels = np.array([0 for _ in range(len(normal_scans))])
            part = slice(0, 7) if mode == "train" else slice(7, None)
            self.imgs = np.concatenate((abnormal_scans[part], normal_scans[part]), axis=0)
            self.labels = np.concatenate((abnormal_labels[part], normal_labels[part]), axis=0)
            self.train = mode == "train"

        def __getitem__(self, index):
            img, lab = self.imgs[index], self.labels[index]
            if self.train:
                img = self.rotate(img)
            img = np.expand_dims(np.array(img).astype("float32"), 3)
            return img, np.array([lab], dtype="int64")

        def __len__(self):
            return len(self.labels)

        def rotate(self, volume):
            return np.flip(volume, axis=_random.choice([0, 1, 2])).copy()

    train_dataset = dataset(abnormal_scans, normal_scans)
    validation_dataset = dataset(abnormal_scans, normal_scans, mode="val")
    train_loader = paddle.io.DataLoader(train_dataset, batch_size=7, shuffle=True)
    validation_loader = paddle.io.DataLoader(validation_dataset, batch_size=10, shuffle=False)
    images, labels = train_dataset.__getitem__(0)
    assert images.shape == (side, side, side, 1) and labels.dtype == np.int64

    class CNN3D(nn.Layer):
        def __init__(self, w=4):
            super().__init__()
            self.layerAll = nn.Sequential(
                nn.Conv3D(in_channels=1, out_channels=w, kernel_size=3), nn.ReLU(), nn.MaxPool3D(kernel_size=2),
                nn.BatchNorm3D(w),
                nn.Conv3D(in_channels=w, out_channels=w, kernel_size=3), nn.ReLU(), nn.MaxPool3D(kernel_size=2),
                nn.BatchNorm3D(w),
                nn.Conv3D(in_channels=w, out_channels=2 * w, kernel_size=3), nn.ReLU(), nn.MaxPool3D(kernel_size=2),
                nn.BatchNorm3D(2 * w),
                nn.Conv3D(in_channels=2 * w, out_channels=4 * w, kernel_size=3), nn.ReLU(),
                nn.MaxPool3D(kernel_size=2), nn.BatchNorm3D(4 * w),
                nn.AdaptiveAvgPool3D(output_size=1), nn.Flatten(), nn.Linear(4 * w, 64), nn.Dropout(p=0.3),
                nn.Linear(64, 1), nn.Sigmoid())

        def forward(self, inputs):
            return self.layerAll(inputs.transpose((0, 4, 3, 1, 2)))

    cnn = CNN3D()
    info = paddle.summary(cnn, (1, side, side, side, 1))
    assert info["total_params"] - info["trainable_params"] == 2 * (4 + 4 + 8 + 16)   # running mean, variance

    def Accuracy(pre, label):
        a = np.squeeze(pre.cpu().numpy(), -1) < 0.5
        b = np.squeeze(label.cpu().numpy(), -1) == 0
        return np.sum(a == b) / len(a)

    capsys.readouterr()
    scheduler = paddle.optimizer.lr.ExponentialDecay(learning_rate=0.0001, gamma=0.96, verbose=True)
    assert capsys.readouterr().out == "Epoch 0: ExponentialDecay set learning rate to 0.0001.\n"
    scheduler.base_lr = scheduler.last_lr = 0.003   # seconds of training, not the tutorial's 25 epochs
    optim = paddle.optimizer.AdamW(learning_rate=scheduler, parameters=cnn.parameters())
    criterion = paddle.nn.BCELoss()
    max_accuracy, save_path, his_trainloss = 0, str(tmp_path / "best3dcnn"), []

    def validate():
        valtotal, valacc, valloss = 0, 0, 0
        cnn.eval()
        for i, (img, labels) in enumerate(validation_loader):
            with paddle.no_grad():
                predict = cnn(img)
                loss = criterion(predict, labels.astype(np.float32))
            valacc += Accuracy(predict, labels)
            valloss += loss.numpy()
            valtotal += 1
        return valacc / valtotal, valloss / valtotal

    for epoch in range(4):
        traintotal, trainloss = 0, 0
        cnn.train()
        for i, (img, labels) in enumerate(train_loader):
            predict = cnn(img)
            loss = criterion(predict, labels.astype(np.float32))
            optim.clear_grad()
            loss.backward()
            optim.minimize(loss)
            trainloss += loss.numpy()
            traintotal += 1
        his_trainloss.append(trainloss / traintotal)
        valacc, valloss = validate()
        if valacc > max_accuracy:
            max_accuracy = valacc
            paddle.save(cnn.state_dict(), save_path)
        scheduler.step()
    assert "Epoch 4: ExponentialDecay set learning rate to" in capsys.readouterr().out
    assert his_trainloss[-1] < 0.5 * his_trainloss[0], his_trainloss
    # In train mode (batch statistics) the held-out scans are told apart. Eval mode is left unchecked:
    # the batch norms' running variances start at 1 and keep 0.9 of it a step, which after a dozen
    # steps, not the tutorial's 350, still outweighs these activations' variance of about 0.001.
    cnn.train()
    with paddle.no_grad():
        img, labels = next(iter(validation_loader))
        assert Accuracy(cnn(img), labels) == 1.0
    paddle.save(cnn.state_dict(), save_path)

    cnn.set_dict(paddle.load(save_path))
    cnn.eval()
    imagen, label = validation_dataset.__getitem__(0)
    prediction = cnn(paddle.to_tensor(np.expand_dims(imagen, axis=0), dtype=paddle.float32))
    scores = [1 - prediction[0][0], prediction[0][0]]
    text = "模型预测： %.2f 概率，这张CT %s" % ((100 * scores[1]), "abnormal")
    assert text == "模型预测： %.2f 概率，这张CT abnormal" % (100 * float(scores[1])) and int(label[0]) == 1


def test_the_glaucoma_tutorials_efficientnet_has_paddles_printed_parameter_counts():
    # docs/practices/cv/glaucoma_classification.ipynb (run on Paddle 2.4): an EfficientNet-B3 built from
    # Conv+BN+Swish blocks, squeeze-excitation by paddle.multiply, MBConv blocks kept in a Python list
    # through add_sublayer, padding "SAME", and a softmax head. Its summary prints "Total params:
    # 14,328,212" and "Trainable params: 14,261,944" (the batch norms' running statistics are the rest).
    nn = paddle.nn
    paddle.seed(21)

    class ConvBNLayer(nn.Layer):
        def __init__(self, inchannels, outchannels, stride, kernelsize=3, groups=1, padding="SAME"):
            super().__init__()
            self.conv = nn.Conv2D(in_channels=inchannels, out_channels=outchannels, kernel_size=kernelsize,
                                  stride=stride, padding=(kernelsize - 1) // 2, groups=groups)
            self.bn = nn.BatchNorm2D(outchannels)
            self.Swish = nn.Swish()

        def forward(self, inputs):
            return self.Swish(self.bn(self.conv(inputs)))

    class SE(nn.Layer):
        def __init__(self, inchannels):
            super().__init__()
            self.pooling = nn.AdaptiveAvgPool2D(output_size=(1, 1))
            self.linear0 = nn.Conv2D(in_channels=inchannels, out_channels=int(inchannels * 0.25), kernel_size=1)
            self.linear1 = nn.Conv2D(in_channels=int(inchannels * 0.25), out_channels=inchannels, kernel_size=1)
            self.Swish, self.Sigmoid = nn.Swish(), nn.Sigmoid()

        def forward(self, inputs):
            x = self.Sigmoid(self.linear1(self.Swish(self.linear0(self.pooling(inputs)))))
            return paddle.multiply(x, inputs)

    class MBConv(nn.Layer):
        def __init__(self, inchannels, outchannels, channels_time, kernel_size, stride, connected_dropout):
            super().__init__()
            self.stride = stride
            wide = inchannels * channels_time
            self.layer0 = ConvBNLayer(inchannels=inchannels, outchannels=wide, kernelsize=1, stride=1)
            self.layer1 = ConvBNLayer(inchannels=wide, outchannels=wide, kernelsize=kernel_size, stride=stride,
                                      groups=wide)
            self.SE = SE(inchannels=wide)
            self.conv0 = nn.Conv2D(in_channels=wide, out_channels=outchannels, kernel_size=1)
            self.bn0 = nn.BatchNorm2D(outchannels)
            self.conv1 = nn.Conv2D(in_channels=inchannels, out_channels=outchannels, kernel_size=1)
            self.bn1 = nn.BatchNorm2D(outchannels)
            self.dropout = nn.Dropout(p=connected_dropout)

        def forward(self, inputs):
            x = self.dropout(self.bn0(self.conv0(self.SE(self.layer1(self.layer0(inputs))))))
            if self.stride == 2:
                return x
            return paddle.add(x, self.bn1(self.conv1(inputs)))

    class Classifier_Head(nn.Layer):
        def __init__(self, in_channels, num_channel, dropout_rate):
            super().__init__()
            self.pooling = nn.AdaptiveAvgPool2D(output_size=(1, 1))
            self.conv = ConvBNLayer(inchannels=in_channels, outchannels=1280, kernelsize=1, stride=1)
            self.dropout = nn.Dropout(p=dropout_rate)
            self.conv1 = nn.Conv2D(in_channels=1280, out_channels=num_channel, kernel_size=1, padding="SAME")

        def forward(self, inputs):
            x = self.conv1(self.dropout(self.pooling(self.conv(inputs))))
            return paddle.nn.functional.softmax(paddle.squeeze(x, axis=[2, 3]))

    class EfficientNet(nn.Layer):
        def __init__(self, in_channels, num_class, width_coefficient, depth_coefficient, connected_dropout,
                     dropout_rate):
            super().__init__()
            block_setting = [[0, 1, 3, 1, 1, 16], [1, 2, 3, 2, 6, 24], [2, 2, 5, 2, 6, 40], [3, 3, 3, 2, 6, 80],
                             [4, 3, 5, 1, 6, 112], [5, 4, 5, 2, 6, 192], [6, 1, 3, 1, 6, 320]]
            width = int(32 * width_coefficient)
            self.block = [self.add_sublayer("c-1", nn.Conv2D(in_channels, width, 3, padding="SAME", stride=2)),
                          self.add_sublayer("bn-1", nn.BatchNorm2D(width))]
            i = width
            for j in range(int(depth_coefficient) - 1):
                stride = 2 if j == int(depth_coefficient) - 2 else 1
                self.block.append(self.add_sublayer("c" + str(j), nn.Conv2D(i, width, 3, padding="SAME",
                                                                              stride=stride)))
                self.block.append(self.add_sublayer("bn" + str(j), nn.BatchNorm2D(width)))
            for n, r, k, s, e, o in block_setting:
                repeats = int(r * depth_coefficient)
                for j in range(repeats):
                    self.block.append(self.add_sublayer("b" + str(n) + str(j), MBConv(
                        inchannels=i, outchannels=int(o * width_coefficient), channels_time=e, kernel_size=k,
                        stride=s if j == repeats - 1 else 1, connected_dropout=connected_dropout)))
                    i = int(o * width_coefficient)
            self.head = Classifier_Head(in_channels=i, num_channel=num_class, dropout_rate=dropout_rate)

        def forward(self, x):
            for layer in self.block:
                x = layer(x)
            return self.head(x)

    efficientnet = EfficientNet(in_channels=3, num_class=1000, width_coefficient=1.2, depth_coefficient=1.4,
                                connected_dropout=0.2, dropout_rate=0.3)
    info = paddle.summary(efficientnet, (1, 3, 32, 32))   # the tutorial: (1, 3, 256, 256)
    assert info == {"total_params": 14328212, "trainable_params": 14261944}
    efficientnet.eval()
    out = efficientnet(paddle.rand([2, 3, 32, 32]))
    assert out.shape == [2, 1000]
    np.testing.assert_allclose(out.sum(axis=1).numpy(), [1.0, 1.0], rtol=1e-5)


def test_the_ddpg_tutorial_soft_updates_its_targets_and_learns_the_rewarded_action():
    # docs/practices/reinforcement_learning/deep_deterministic_policy_gradient.ipynb: an Actor with
    # tanh output plus Normal(0, 0.2) exploration noise scaled by a bool, a Critic on concat((x, a), 1),
    # a deque replay Memory, batches built by paddle.to_tensor of tuples of arrays, targets under
    # no_grad, critic.eval() while the actor's loss goes through it, and soft_update by set_value.
    # gym's Pendulum is replaced by one-step episodes whose reward is highest for action 2 * sin(angle).
    import random as _random
    from collections import deque

    from eager.distribution import Normal
    nn, F = paddle.nn, paddle.nn.functional
    paddle.seed(22)
    np.random.seed(22)
    _random.seed(22)
    rng = np.random.default_rng(22)

    class Critic(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 64)
            self.fc2 = nn.Linear(64 + 1, 32)
            self.fc3 = nn.Linear(32, 1)
            self.relu = nn.ReLU()

        def forward(self, x, a):
            x = self.relu(self.fc1(x))
            x = paddle.concat((x, a), axis=1)
            return self.fc3(self.relu(self.fc2(x)))

    class Actor(nn.Layer):
        def __init__(self, is_train=True):
            super().__init__()
            self.fc1 = nn.Linear(3, 64)
            self.fc2 = nn.Linear(64, 32)
            self.fc3 = nn.Linear(32, 1)
            self.relu, self.tanh = nn.ReLU(), nn.Tanh()
            self.noisy = Normal(0, 0.2)
            self.is_train = is_train

        def forward(self, x):
            return self.tanh(self.fc3(self.relu(self.fc2(self.relu(self.fc1(x))))))

        def select_action(self, epsilon, state):
            state = paddle.to_tensor(state, dtype="float32").unsqueeze(0)
            with paddle.no_grad():
                action = self.forward(state).squeeze() + self.is_train * epsilon * self.noisy.sample([1]).squeeze(0)
            return 2 * paddle.clip(action, -1, 1).numpy()

    class Memory:
        def __init__(self, memory_size):
            self.buffer = deque(maxlen=memory_size)

        def add(self, experience):
            self.buffer.append(experience)

        def size(self):
            return len(self.buffer)

        def sample(self, batch_size, continuous=True):
            batch_size = min(batch_size, len(self.buffer))
            indexes = np.random.choice(np.arange(len(self.buffer)), size=batch_size, replace=False)
            return [self.buffer[i] for i in indexes]

    def soft_update(target, source, tau):
        for target_param, param in zip(target.parameters(), source.parameters()):
            target_param.set_value(target_param * (1.0 - tau) + param * tau)

    actor, critic, actor_target, critic_target = Actor(), Critic(), Actor(), Critic()
    critic_optim = paddle.optimizer.Adam(parameters=critic.parameters(), learning_rate=3e-3)
    actor_optim = paddle.optimizer.Adam(parameters=actor.parameters(), learning_rate=1e-3)
    before_target = [p.numpy().copy() for p in actor_target.parameters()]
    source = [p.numpy().copy() for p in actor.parameters()]
    soft_update(actor_target, actor, 0.25)
    for after, old, src in zip(actor_target.parameters(), before_target, source):
        np.testing.assert_allclose(after.numpy(), old * 0.75 + src * 0.25, rtol=1e-6, atol=1e-7)

    def new_state():
        angle = rng.uniform(-np.pi, np.pi)
        return np.array([np.cos(angle), np.sin(angle), 0.0])

    def reward_of(state, action):
        return -float((action - 2 * state[1]) ** 2)

    gamma, tau, epsilon, batch_size = 0.0, 0.01, 1.0, 32   # one-step episodes: nothing to discount
    memory_replay = Memory(5000)
    for step in range(400):
        state = new_state()
        action = actor.select_action(epsilon, state)
        reward = reward_of(state, action)
        memory_replay.add((state, new_state(), action, reward))
        epsilon = max(0.2, epsilon - 1 / 300)
        if memory_replay.size() > 64:
            batch_state, batch_next_state, batch_action, batch_reward = zip(*memory_replay.sample(batch_size, False))
            batch_state = paddle.to_tensor(batch_state, dtype="float32")
            batch_next_state = paddle.to_tensor(batch_next_state, dtype="float32")
            batch_action = paddle.to_tensor(batch_action, dtype="float32").unsqueeze(1)
            batch_reward = paddle.to_tensor(batch_reward, dtype="float32").unsqueeze(1)
            with paddle.no_grad():
                Q_target = batch_reward + gamma * critic_target(batch_next_state, actor_target(batch_next_state))
            critic_loss = F.mse_loss(critic(batch_state, batch_action), Q_target)
            critic_optim.clear_grad()
            critic_loss.backward()
            critic_optim.step()
            critic.eval()
            actor_loss = -critic(batch_state, actor(batch_state)).mean()
            actor_optim.clear_grad()
            actor_loss.backward()
            actor_optim.step()
            critic.train()
            soft_update(actor_target, actor, tau)
            soft_update(critic_target, critic, tau)
    assert batch_action.shape == [batch_size, 1] and batch_state.dtype == paddle.float32
    states = [new_state() for _ in range(50)]
    greedy = Actor(is_train=False)
    greedy.set_state_dict(actor.state_dict())
    rewards = [reward_of(s, greedy.select_action(0.0, s)) for s in states]
    still = [reward_of(s, 0.0) for s in states]   # the action an untrained tanh gives, about 0
    assert np.mean(rewards) > 0.5 * np.mean(still), (np.mean(rewards), np.mean(still))


def test_the_pix2pix_tutorial_trains_its_unet_generator_against_the_patch_discriminator(tmp_path):
    # docs/practices/gan/Pix2Pix/Pix2Pix_with_Cityscapes.ipynb: a Dataset reading image/mask pairs listed
    # in train.list and returning paddle.to_tensor(...).astype("float32"), a U-Net generator of eight
    # LeakyReLU/Conv2D/BatchNorm2D downsamples and ReLU/Conv2DTranspose/BatchNorm2D(/Dropout) upsamples
    # concatenated with the skips, a PatchGAN discriminator whose summary prints "Total params:
    # 2,770,497", BCELoss against ones_like/zeros_like, L1Loss * 100, detach, np.where on a Tensor and
    # mask.reshape([1] + mask.shape). The generator is ngf=4 (the tutorial's 64) on 256 x 256 pairs, the
    # trained discriminator ndf=8 (its 64), OpenCV's reads are PIL's here.
    from PIL import Image
    paddle.seed(23)
    np.random.seed(23)
    rng = np.random.default_rng(23)
    root = tmp_path / "cityscapes"
    (root / "img").mkdir(parents=True)
    lines = []
    for i in range(4):   # the "photo" is the colour mask blurred into stripes
        mask = np.zeros((256, 256, 3), np.uint8)
        mask[:, :, rng.integers(0, 3)] = 255
        mask[rng.integers(0, 128):, :, 1] = 128
        photo = (0.6 * mask + 40).astype(np.uint8)
        Image.fromarray(photo).save(root / "img" / f"{i}_leftImg8bit.png")
        Image.fromarray(mask).save(root / "img" / f"{i}_gtFine_color.png")
        lines.append(f"img/{i}_leftImg8bit.png img/{i}_gtFine_labelTrainIds.png\n")
    (root / "train.list").write_text("".join(lines))

    class MyDateset(paddle.io.Dataset):
        def __init__(self, root_dir=str(root), txt_dir=str(root / "train.list")):
            super().__init__()
            self.root_dir = root_dir
            with open(txt_dir, "r") as f:
                self.file_list = f.readlines()

        def __getitem__(self, index):
            img_dir, mask_dir = self.file_list[index][:-1].split(" ")
            mask_dir = mask_dir.replace("_labelTrainIds.png", "_color.png")
            img = np.asarray(Image.open(os.path.join(self.root_dir, img_dir))) / 255
            img = paddle.to_tensor(img.transpose([2, 0, 1])).astype("float32")
            mask = np.asarray(Image.open(os.path.join(self.root_dir, mask_dir))) / 255
            mask = paddle.to_tensor(mask.transpose([2, 0, 1])).astype("float32")
            return img, mask

        def __len__(self):
            return len(self.file_list)

    dataloader = paddle.io.DataLoader(MyDateset(), batch_size=2, shuffle=True, drop_last=False)
    img, mask = next(iter(dataloader))
    assert img.shape == [2, 3, 256, 256] and mask.dtype == paddle.float32

    class Downsample(paddle.nn.Layer):
        def __init__(self, in_dim, out_dim, kernel_size=4, stride=2, padding=1):
            super().__init__()
            self.layers = paddle.nn.Sequential(
                paddle.nn.LeakyReLU(0.2),
                paddle.nn.Conv2D(in_dim, out_dim, kernel_size, stride, padding, bias_attr=False),
                paddle.nn.BatchNorm2D(out_dim))

        def forward(self, x):
            return self.layers(x)

    class Upsample(paddle.nn.Layer):
        def __init__(self, in_dim, out_dim, kernel_size=4, stride=2, padding=1, use_dropout=False):
            super().__init__()
            sequence = [paddle.nn.ReLU(),
                        paddle.nn.Conv2DTranspose(in_dim, out_dim, kernel_size, stride, padding, bias_attr=False),
                        paddle.nn.BatchNorm2D(out_dim)]
            if use_dropout:
                sequence.append(paddle.nn.Dropout(p=0.5))
            self.layers = paddle.nn.Sequential(*sequence)

        def forward(self, x, skip):
            return paddle.concat([self.layers(x), skip], axis=1)

    class UnetGenerator(paddle.nn.Layer):
        def __init__(self, input_nc=3, output_nc=3, ngf=64):
            super().__init__()
            self.down1 = paddle.nn.Conv2D(input_nc, ngf, kernel_size=4, stride=2, padding=1)
            self.down2 = Downsample(ngf, ngf * 2)
            self.down3 = Downsample(ngf * 2, ngf * 4)
            self.down4 = Downsample(ngf * 4, ngf * 8)
            self.down5 = Downsample(ngf * 8, ngf * 8)
            self.down6 = Downsample(ngf * 8, ngf * 8)
            self.down7 = Downsample(ngf * 8, ngf * 8)
            self.center = Downsample(ngf * 8, ngf * 8)
            self.up7 = Upsample(ngf * 8, ngf * 8, use_dropout=True)
            self.up6 = Upsample(ngf * 8 * 2, ngf * 8, use_dropout=True)
            self.up5 = Upsample(ngf * 8 * 2, ngf * 8, use_dropout=True)
            self.up4 = Upsample(ngf * 8 * 2, ngf * 8)
            self.up3 = Upsample(ngf * 8 * 2, ngf * 4)
            self.up2 = Upsample(ngf * 4 * 2, ngf * 2)
            self.up1 = Upsample(ngf * 2 * 2, ngf)
            self.output_block = paddle.nn.Sequential(
                paddle.nn.ReLU(), paddle.nn.Conv2DTranspose(ngf * 2, output_nc, kernel_size=4, stride=2, padding=1),
                paddle.nn.Tanh())

        def forward(self, x):
            d1 = self.down1(x)
            d2 = self.down2(d1)
            d3 = self.down3(d2)
            d4 = self.down4(d3)
            d5 = self.down5(d4)
            d6 = self.down6(d5)
            d7 = self.down7(d6)
            c = self.center(d7)
            x = self.up4(self.up5(self.up6(self.up7(c, d7), d6), d5), d4)
            return self.output_block(self.up1(self.up2(self.up3(x, d3), d2), d1))

    class ConvBlock(paddle.nn.Layer):
        def __init__(self, in_dim, out_dim, kernel_size=4, stride=2, padding=1):
            super().__init__()
            self.layers = paddle.nn.Sequential(
                paddle.nn.Conv2D(in_dim, out_dim, kernel_size, stride, padding, bias_attr=False),
                paddle.nn.BatchNorm2D(out_dim), paddle.nn.LeakyReLU(0.2))

        def forward(self, x):
            return self.layers(x)

    class NLayerDiscriminator(paddle.nn.Layer):
        def __init__(self, input_nc=6, ndf=64):
            super().__init__()
            self.layers = paddle.nn.Sequential(
                paddle.nn.Conv2D(input_nc, ndf, kernel_size=4, stride=2, padding=1), paddle.nn.LeakyReLU(0.2),
                ConvBlock(ndf, ndf * 2), ConvBlock(ndf * 2, ndf * 4), ConvBlock(ndf * 4, ndf * 8, stride=1),
                paddle.nn.Conv2D(ndf * 8, 1, kernel_size=4, stride=1, padding=1), paddle.nn.Sigmoid())

        def forward(self, input):
            return self.layers(input)

    info = paddle.summary(NLayerDiscriminator(), (1, 6, 32, 32))   # the tutorial: (16, 6, 256, 512)
    assert info["total_params"] == 2770497
    assert info["total_params"] - info["trainable_params"] == 2 * (128 + 256 + 512)   # running statistics

    netG, netD = UnetGenerator(ngf=4), NLayerDiscriminator(ndf=8)
    try:
        netG.set_dict(paddle.load(str(tmp_path / "generator.params")))
    except Exception:   # the tutorial's first run: "fail to load model"
        pass
    netG.train()
    netD.train()
    optimizerD = paddle.optimizer.Adam(parameters=netD.parameters(), learning_rate=0.0002, beta1=0.5, beta2=0.999)
    optimizerG = paddle.optimizer.Adam(parameters=netG.parameters(), learning_rate=0.01, beta1=0.5, beta2=0.999)
    bce_loss, l1_loss = paddle.nn.BCELoss(), paddle.nn.L1Loss()
    l1_losses = []
    for epoch in range(3):
        for step, (img, mask) in enumerate(dataloader):
            optimizerD.clear_grad()
            pre = netD(paddle.concat((img, mask), 1))
            loss_D_1 = bce_loss(pre, paddle.ones_like(pre))
            loss_D_1.backward()
            fake_img = netG(mask).detach()
            pre = netD(paddle.concat((fake_img, mask), 1).detach())
            loss_D_2 = bce_loss(pre, paddle.zeros_like(pre))
            loss_D_2.backward()
            optimizerD.step()
            optimizerD.clear_grad()
            optimizerG.clear_grad()
            fake_img = netG(mask)
            output = netD(paddle.concat((fake_img, mask), 1))
            loss_G_1 = l1_loss(fake_img, img) * 100.0
            loss_G = loss_G_1 + bce_loss(output, paddle.ones_like(pre))
            loss_G.backward()
            optimizerG.step()
            optimizerG.clear_grad()
            l1_losses.append(float(loss_G_1))
    assert np.mean(l1_losses[-2:]) < 0.7 * np.mean(l1_losses[:2]), l1_losses
    image = np.where(fake_img[0] > 0, fake_img[0], 0).transpose((1, 2, 0))
    assert image.shape == (256, 256, 3) and image.min() >= 0
    paddle.save(netG.state_dict(), str(tmp_path / "generator.params"))

    netG2 = UnetGenerator(ngf=4)
    netG2.set_dict(paddle.load(str(tmp_path / "generator.params")))
    netG2.eval()
    netG.eval()
    mask = np.asarray(Image.open(root / "img" / "0_gtFine_color.png")) / 255
    mask = paddle.to_tensor(mask.transpose([2, 0, 1])).astype("float32")
    mask = mask.reshape([1] + mask.shape)
    out = netG2(mask).numpy()[0]
    np.testing.assert_allclose(out, netG(mask).numpy()[0], rtol=1e-5, atol=1e-6)
    out[out < 0] = 0
    assert (out * 255).astype("uint8").transpose((1, 2, 0)).shape == (256, 256, 3)
