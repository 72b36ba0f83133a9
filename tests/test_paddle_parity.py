"""Whole training runs against Paddle 2.6.2 itself: four small models (an MLP
with Adam and label smoothing, a CNN with BatchNorm and Nesterov momentum with
L2Decay, a two-layer bidirectional LSTM into a GRU with AdamW and global-norm
clipping, a pre-norm Transformer encoder with centred RMSProp under a cosine
schedule) start from the same NumPy-drawn weights and data, and each step's
cross-entropy must equal the loss Paddle 2.6.2 (CPU) printed for the same run.

Five more runs cover what those four do not: a text CNN (Conv1D with 'same'
padding, dilation and groups, MaxPool1D, AdaptiveMaxPool1D, hardswish) with
Adagrad, ClipGradByNorm and ExponentialDecay; a VAE (reparameterisation with
given noise, binary_cross_entropy_with_logits plus a KL term) with AdamW whose
apply_decay_param_fun spares biases, under LinearWarmup into a cosine decay; a
GAN's alternating discriminator and generator steps (fake.detach()) with Adam
and SGD with L1Decay under MultiStepDecay; a residual conv block (GroupNorm,
InstanceNorm2D, swish, mish, AvgPool2D with ceil_mode and exclusive=False)
with Lamb; a GRU encoder with a GRUCell attention decoder, nll_loss with
ignore_index on log_softmax, clip_grad_norm_ and RMSProp.

The expected losses were produced by running the same code with ``import
paddle`` (Paddle 2.6.2 wheel, NumPy 2.4) and copied here as literals; no Paddle
is needed to run this file. A step that differs points at a forward, gradient,
optimizer or scheduler rule that no longer follows Paddle's.
"""
import numpy as np
import pytest

import eager as paddle

nn = paddle.nn
F = nn.functional

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


# Paddle 2.6.2's losses for steps 1-8 of each run below (the GAN: discriminator
# and generator loss of each step, in turn).
PADDLE_MORE_LOSSES = {
    'textcnn': [1.433808, 0.9954674, 2.188623, 1.833041, 2.319241, 1.49065, 1.424394, 1.57227],
    'vae': [18.84161, 18.49117, 17.17175, 17.58926, 15.98798, 15.8694, 15.00121, 14.99536],
    'gan': [1.536073, 1.121976, 1.489013, 1.053902, 1.415381, 1.088975, 1.318795, 1.012534, 1.325958, 1.024357, 1.338132, 0.9781017, 1.313165, 0.9967633, 1.404875, 1.00476],
    'resblock': [1.790216, 1.057672, 1.258435, 1.399735, 0.9602188, 1.148203, 1.191795, 1.099236],
    'seq2seq': [3.493036, 3.648427, 3.457515, 3.438693, 3.561524, 3.493954, 3.392794, 3.431008],
}


class TextCNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(40, 12)
        self.conv1 = nn.Conv1D(12, 16, 3, padding="same")
        self.pool = nn.MaxPool1D(2, 2)
        self.conv2 = nn.Conv1D(16, 16, 3, dilation=2, groups=2, padding=2)
        self.head = nn.Sequential(nn.AdaptiveMaxPool1D(1), nn.Flatten(), nn.Linear(16, 4))

    def forward(self, x):
        h = self.pool(F.relu(self.conv1(self.emb(x).transpose([0, 2, 1]))))
        return self.head(F.hardswish(self.conv2(h)))


class VAE(nn.Layer):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(20, 16)
        self.mu = nn.Linear(16, 4)
        self.logvar = nn.Linear(16, 4)
        self.dec = nn.Sequential(nn.Linear(4, 16), nn.Silu(), nn.Linear(16, 20))

    def forward(self, x, eps):
        h = F.elu(self.enc(x))
        mu, logvar = self.mu(h), self.logvar(h)
        return self.dec(mu + paddle.exp(0.5 * logvar) * eps), mu, logvar


class ResBlock(nn.Layer):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2D(2, 8, 3, padding=1, bias_attr=False)
        self.gn = nn.GroupNorm(4, 8)
        self.conv = nn.Conv2D(8, 8, 3, padding=1)
        self.inorm = nn.InstanceNorm2D(8)
        self.pool = nn.AvgPool2D(3, 2, padding=1, ceil_mode=True, exclusive=False)
        self.fc = nn.Linear(8 * 5 * 5, 3)

    def forward(self, x):
        h = F.swish(self.gn(self.stem(x)))
        h = h + F.mish(self.inorm(self.conv(h)))
        return self.fc(paddle.flatten(self.pool(h), 1))


class Seq2Seq(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30, 10)
        self.enc = nn.GRU(10, 12)
        self.cell = nn.GRUCell(10, 12)
        self.attn = nn.Linear(24, 12)
        self.out = nn.Linear(12, 30)

    def forward(self, src, tgt_in):
        memory, h = self.enc(self.emb(src))
        state, logits = h[0], []
        for t in range(tgt_in.shape[1]):
            y, state = self.cell(self.emb(tgt_in[:, t]), state)
            score = paddle.matmul(memory, y.unsqueeze(-1)).squeeze(-1)
            context = (F.softmax(score, axis=-1).unsqueeze(-1) * memory).sum(axis=1)
            logits.append(self.out(paddle.tanh(self.attn(paddle.concat([y, context], axis=-1)))))
        return paddle.stack(logits, axis=1)


def loaded(model, seed):
    assert model.set_state_dict(drawn_weights(model, seed)) == ([], [])
    return model


def textcnn_losses(rng, o):
    model = loaded(TextCNN(), 7)
    schedule = o.lr.ExponentialDecay(0.05, gamma=0.9)
    opt = o.Adagrad(learning_rate=schedule, parameters=model.parameters(), grad_clip=nn.ClipGradByNorm(0.5))
    for _ in range(8):
        x, y = rng.integers(0, 40, (6, 11)).astype("int64"), rng.integers(0, 4, (6, 1)).astype("int64")
        loss = F.cross_entropy(model(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        schedule.step()
        yield float(loss)


def vae_losses(rng, o):
    model = loaded(VAE(), 8)
    schedule = o.lr.LinearWarmup(o.lr.CosineAnnealingDecay(0.01, T_max=6), warmup_steps=3, start_lr=0.001,
                                 end_lr=0.01)
    opt = o.AdamW(learning_rate=schedule, parameters=model.parameters(), weight_decay=0.1, beta1=0.8,
                  apply_decay_param_fun=lambda name: "b_" not in name)
    for _ in range(8):
        x, eps = rng.random((10, 20)).astype("float32"), rng.standard_normal((10, 4)).astype("float32")
        recon, mu, logvar = model(paddle.to_tensor(x), paddle.to_tensor(eps))
        bce = F.binary_cross_entropy_with_logits(recon, paddle.to_tensor(x), reduction="sum") / 10
        loss = bce - 0.5 * paddle.mean(paddle.sum(1 + logvar - mu.pow(2) - logvar.exp(), axis=1))
        loss.backward()
        opt.step()
        opt.clear_grad()
        schedule.step()
        yield float(loss)


def gan_losses(rng, o):
    generator = loaded(nn.Sequential(nn.Linear(3, 16), nn.LeakyReLU(0.2), nn.Linear(16, 6), nn.Tanh()), 9)
    discriminator = loaded(nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1)), 10)
    opt_d = o.Adam(learning_rate=0.005, beta1=0.5, parameters=discriminator.parameters())
    schedule = o.lr.MultiStepDecay(0.05, milestones=[2, 5], gamma=0.5)
    opt_g = o.SGD(learning_rate=schedule, parameters=generator.parameters(),
                  weight_decay=paddle.regularizer.L1Decay(1e-3))
    bce = F.binary_cross_entropy_with_logits
    for _ in range(8):
        real, z = rng.standard_normal((8, 6)).astype("float32"), rng.standard_normal((8, 3)).astype("float32")
        fake = generator(paddle.to_tensor(z))
        ones, zeros = paddle.ones([8, 1]), paddle.zeros([8, 1])
        d_loss = bce(discriminator(paddle.to_tensor(real)), ones) + bce(discriminator(fake.detach()), zeros)
        d_loss.backward()
        opt_d.step()
        opt_d.clear_grad()
        g_loss = bce(discriminator(fake), ones)
        g_loss.backward()
        opt_g.step()
        opt_g.clear_grad()
        opt_d.clear_grad()  # the generator's step left gradients on the discriminator
        schedule.step()
        yield float(d_loss)
        yield float(g_loss)


def resblock_losses(rng, o):
    model = loaded(ResBlock(), 11)
    opt = o.Lamb(learning_rate=0.01, lamb_weight_decay=0.02, parameters=model.parameters())
    for _ in range(8):
        x, y = rng.standard_normal((4, 2, 9, 9)).astype("float32"), rng.integers(0, 3, (4,)).astype("int64")
        loss = F.cross_entropy(model(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        yield float(loss)


def seq2seq_losses(rng, o):
    model = loaded(Seq2Seq(), 12)
    opt = o.RMSProp(learning_rate=0.01, rho=0.9, parameters=model.parameters())
    for _ in range(8):
        src, tgt = rng.integers(1, 30, (5, 6)).astype("int64"), rng.integers(1, 30, (5, 5)).astype("int64")
        tgt[0, 3:] = 0  # padding, which the loss ignores
        logits = model(paddle.to_tensor(src), paddle.to_tensor(tgt[:, :-1]))
        loss = F.nll_loss(F.log_softmax(logits, axis=-1).reshape([-1, 30]),
                          paddle.to_tensor(tgt[:, 1:].reshape(-1)), ignore_index=0)
        loss.backward()
        paddle.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
        opt.clear_grad()
        yield float(loss)


RUNS = {"textcnn": textcnn_losses, "vae": vae_losses, "gan": gan_losses, "resblock": resblock_losses,
        "seq2seq": seq2seq_losses}


@pytest.mark.parametrize("kind", sorted(PADDLE_MORE_LOSSES))
def test_more_training_runs_give_paddles_losses(kind):
    losses = list(RUNS[kind](np.random.default_rng(3), paddle.optimizer))
    np.testing.assert_allclose(losses, PADDLE_MORE_LOSSES[kind], rtol=2e-5, atol=1e-6)
