"""Whole training runs against Paddle 2.6.2 itself: four small models (an MLP
with Adam and label smoothing, a CNN with BatchNorm and Nesterov momentum with
L2Decay, a two-layer bidirectional LSTM into a GRU with AdamW and global-norm
clipping, a pre-norm Transformer encoder with centred RMSProp under a cosine
schedule) start from the same NumPy-drawn weights and data, and each step's
cross-entropy must equal the loss Paddle 2.6.2 (CPU) printed for the same run.

The expected losses were produced by running the same code with ``import
paddle`` (Paddle 2.6.2 wheel, NumPy 2.4) and copied here as literals; no Paddle
is needed to run this file. A step that differs points at a forward, gradient,
optimizer or scheduler rule that no longer follows Paddle's.
"""
import numpy as np
import pytest

import eager as paddle

nn = paddle.nn

# Paddle 2.6.2's losses for steps 1-8 of each run below.
PADDLE_LOSSES = {
    "mlp": [2.714780, 2.670326, 2.032259, 2.796419, 2.183694, 1.690288, 2.049233, 2.158617],
    "cnn": [1.607553, 1.549934, 1.561411, 1.673104, 1.655480, 1.699675, 1.709654, 1.598502],
    "lstm": [1.736069, 1.662874, 1.563047, 1.642064, 1.794742, 1.526893, 1.816719, 1.584885],
    "tfm": [1.781188, 3.032920, 2.062025, 1.914294, 1.748520, 1.711504, 1.804890, 1.540583],
}


class Recurrent(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16, padding_idx=0)
        self.rnn = nn.LSTM(16, 24, num_layers=2, direction="bidirect")
        self.gru = nn.GRU(48, 8)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        h, _ = self.gru(h)
        return self.fc(h[:, -1])


class Encoder(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 32)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, normalize_before=True), 2)
        self.ln = nn.LayerNorm(32)
        self.fc = nn.Linear(32, 5)

    def forward(self, x):
        return self.fc(self.ln(self.enc(self.emb(x))).mean(axis=1))


def build(kind):
    if kind == "mlp":
        return nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 5))
    if kind == "cnn":
        return nn.Sequential(nn.Conv2D(3, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(), nn.MaxPool2D(2, 2),
                             nn.Conv2D(8, 16, 3, stride=2, padding=1), nn.BatchNorm2D(16), nn.LeakyReLU(0.1),
                             nn.AdaptiveAvgPool2D(1), nn.Flatten(), nn.Linear(16, 5))
    return Recurrent() if kind == "lstm" else Encoder()


def optimizer(kind, params):
    o = paddle.optimizer
    if kind == "mlp":
        return o.Adam(learning_rate=0.01, parameters=params), None
    if kind == "cnn":
        return o.Momentum(learning_rate=0.05, momentum=0.9, parameters=params,
                          weight_decay=paddle.regularizer.L2Decay(1e-3), use_nesterov=True), None
    if kind == "lstm":
        return o.AdamW(learning_rate=0.01, parameters=params, weight_decay=0.05,
                       grad_clip=nn.ClipGradByGlobalNorm(0.5)), None
    schedule = o.lr.CosineAnnealingDecay(0.01, T_max=10)
    return o.RMSProp(learning_rate=schedule, parameters=params, centered=True, momentum=0.5), schedule


def batch(kind, rng):
    if kind == "mlp":
        return rng.standard_normal((16, 20)).astype("float32"), rng.integers(0, 5, (16,)).astype("int64")
    if kind == "cnn":
        return rng.standard_normal((8, 3, 12, 12)).astype("float32"), rng.integers(0, 5, (8, 1)).astype("int64")
    return rng.integers(0, 50, (8, 7)).astype("int64"), rng.integers(0, 5, (8,)).astype("int64")


def drawn_weights(model, seed):
    """One N(0, 0.3^2) draw per tensor of the state dict, in its order (a tensor
    listed under two names, as an RNN's flat aliases, is drawn once)."""
    rng, weights, seen = np.random.default_rng(seed), {}, set()
    for key, tensor in model.state_dict().items():
        if id(tensor) not in seen:
            seen.add(id(tensor))
            weights[key] = (rng.standard_normal(tensor.shape) * 0.3).astype(tensor.numpy().dtype)
    return weights


@pytest.mark.parametrize("kind", sorted(PADDLE_LOSSES))
def test_eight_training_steps_give_paddles_losses(kind):
    model = build(kind)
    assert model.set_state_dict(drawn_weights(model, 5)) == ([], [])
    opt, schedule = optimizer(kind, model.parameters())
    rng, losses = np.random.default_rng(1), []
    for _ in range(8):
        x, y = batch(kind, rng)
        loss = nn.functional.cross_entropy(model(paddle.to_tensor(x)), paddle.to_tensor(y),
                                           label_smoothing=0.1 if kind == "mlp" else 0.0)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if schedule is not None:
            schedule.step()
        losses.append(float(loss))
    np.testing.assert_allclose(losses, PADDLE_LOSSES[kind], rtol=2e-5, atol=1e-6)
