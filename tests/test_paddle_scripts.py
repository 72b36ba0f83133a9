"""Paddle 2.x training scripts as a Paddle user writes them, run with ``import
eager as paddle`` and nothing else changed: the start-up calls (disable_static,
is_compiled_with_cuda, set_device, seed, set_flags), a model, a loss and an
optimizer, and the loop. Each must learn its task, so a gap in the API or a wrong
gradient fails here."""
from __future__ import annotations

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
