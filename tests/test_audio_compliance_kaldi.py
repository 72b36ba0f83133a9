"""eager.audio.compliance.kaldi against a NumPy reference written frame by frame from
Kaldi's definitions (feature-window.cc, mel-computations.cc, feature-mfcc.cc): the
frame extraction with its edge reflection, DC removal, log energy, preemphasis,
windows, mel banks (with VTLN), log, DCT and lifter; shapes; float64 gradients by
finite differences; errors. torchaudio (which has the same functions) is not
installed here, so the reference is the only cross-check."""
import math

import numpy as np
import pytest

import eager
from eager.audio.compliance import kaldi
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")

EPS = 1e-7


# -- the reference ------------------------------------------------------------------------------

def ref_frames(wave, sr, frame_length, frame_shift, snip_edges):
    n = len(wave)
    size, shift = int(sr * frame_length * 0.001), int(sr * frame_shift * 0.001)
    if snip_edges:
        count, first = 1 + (n - size) // shift, lambda t: t * shift
    else:
        count = (n + shift // 2) // shift
        first = lambda t: t * shift + shift // 2 - size // 2  # noqa: E731  (the frame's midpoint minus half)
    frames = []
    for t in range(count):
        frame = []
        for k in range(size):
            s = first(t) + k
            if s < 0:
                s = -s - 1
            if s >= n:
                s = 2 * n - 1 - s
            frame.append(wave[s])
        frames.append(frame)
    return np.array(frames, dtype=np.float64)


def ref_window(kind, size, blackman_coeff=0.42):
    a = 2 * math.pi / (size - 1)
    out = []
    for i in range(size):
        if kind in ("hann", "hanning"):
            w = 0.5 - 0.5 * math.cos(a * i)
        elif kind == "hamming":
            w = 0.54 - 0.46 * math.cos(a * i)
        elif kind == "povey":
            w = (0.5 - 0.5 * math.cos(a * i)) ** 0.85
        elif kind in ("rect", "rectangular"):
            w = 1.0
        else:
            w = blackman_coeff - 0.5 * math.cos(a * i) + (0.5 - blackman_coeff) * math.cos(2 * a * i)
        out.append(w)
    return np.array(out)


def ref_processed(wave, sr=16000, frame_length=25.0, frame_shift=10.0, snip_edges=True, remove_dc_offset=True,
                  raw_energy=True, energy_floor=1.0, preemphasis_coefficient=0.97, window_type="povey",
                  blackman_coeff=0.42, round_to_power_of_two=True):
    """(padded windowed frames, log energies), Kaldi's ProcessWindow frame by frame."""
    frames = ref_frames(wave, sr, frame_length, frame_shift, snip_edges)
    size = frames.shape[1]
    padded = 1
    while padded < size:
        padded *= 2
    if not round_to_power_of_two:
        padded = size
    window = ref_window(window_type, size, blackman_coeff)
    out, energies = np.zeros((len(frames), padded)), []

    def log_energy(x):
        e = math.log(max(float(np.dot(x, x)), EPS))
        return max(e, math.log(energy_floor)) if energy_floor != 0.0 else e

    for f, frame in enumerate(frames):
        x = frame.copy()
        if remove_dc_offset:
            x = x - x.sum() / size
        if raw_energy:
            energies.append(log_energy(x))
        for k in range(size - 1, 0, -1):
            x[k] -= preemphasis_coefficient * x[k - 1]
        x[0] -= preemphasis_coefficient * x[0]
        x = x * window
        out[f, :size] = x
        if not raw_energy:
            energies.append(log_energy(out[f]))
    return out, np.array(energies)


def mel_scale(f):
    return 1127.0 * math.log(1.0 + f / 700.0)


def inverse_mel_scale(m):
    return 700.0 * (math.exp(m / 1127.0) - 1.0)


def vtln_warp_freq(low_cut, high_cut, low_freq, high_freq, warp, freq):
    if freq < low_freq or freq > high_freq:
        return freq
    l, h = low_cut * max(1.0, warp), high_cut * min(1.0, warp)
    scale = 1.0 / warp
    if freq < l:
        return low_freq + (scale * l - low_freq) / (l - low_freq) * (freq - low_freq)
    if freq < h:
        return scale * freq
    return high_freq + (high_freq - scale * h) / (high_freq - h) * (freq - high_freq)


def ref_mel_banks(n_mels, padded, sr, low_freq=20.0, high_freq=0.0, vtln_low=100.0, vtln_high=-500.0, warp=1.0):
    nyquist = 0.5 * sr
    high_freq = high_freq + nyquist if high_freq <= 0 else high_freq
    vtln_high = vtln_high + nyquist if vtln_high < 0 else vtln_high
    mel_low, mel_high = mel_scale(low_freq), mel_scale(high_freq)
    delta = (mel_high - mel_low) / (n_mels + 1)
    banks = np.zeros((n_mels, padded // 2 + 1))
    for b in range(n_mels):
        left, center, right = (mel_low + (b + j) * delta for j in range(3))
        if warp != 1.0:
            left, center, right = (mel_scale(vtln_warp_freq(vtln_low, vtln_high, low_freq, high_freq, warp,
                                                            inverse_mel_scale(m))) for m in (left, center, right))
        for i in range(padded // 2):
            mel = mel_scale(sr / padded * i)
            if left < mel < right:
                banks[b, i] = (mel - left) / (center - left) if mel <= center else (right - mel) / (right - center)
    return banks


def ref_fbank(wave, n_mels=23, low_freq=20.0, high_freq=0.0, vtln_low=100.0, vtln_high=-500.0, vtln_warp=1.0,
              use_energy=False, htk_compat=False, use_log_fbank=True, use_power=True, **kw):
    frames, energy = ref_processed(wave, **kw)
    sr = kw.get("sr", 16000)
    banks = ref_mel_banks(n_mels, frames.shape[1], sr, low_freq, high_freq, vtln_low, vtln_high, vtln_warp)
    out = []
    for frame, e in zip(frames, energy):
        spectrum = np.abs(np.fft.rfft(frame))
        if use_power:
            spectrum = spectrum ** 2
        mel = [float(np.dot(bank, spectrum)) for bank in banks]
        if use_log_fbank:
            mel = [math.log(max(m, EPS)) for m in mel]
        if use_energy:
            mel = mel + [e] if htk_compat else [e] + mel
        out.append(mel)
    return np.array(out)


def ref_mfcc(wave, n_mfcc=13, n_mels=23, cepstral_lifter=22.0, use_energy=False, htk_compat=False, **kw):
    feats = ref_fbank(wave, n_mels=n_mels, use_energy=use_energy, htk_compat=htk_compat, **kw)
    out = []
    for row in feats:
        if use_energy:
            energy = row[n_mels] if htk_compat else row[0]
            mel = row[:n_mels] if htk_compat else row[1:]
        else:
            mel = row
        c = []
        for k in range(n_mfcc):
            norm = math.sqrt(1.0 / n_mels) if k == 0 else math.sqrt(2.0 / n_mels)
            value = norm * sum(mel[j] * math.cos(math.pi / n_mels * (j + 0.5) * k) for j in range(n_mels))
            if cepstral_lifter != 0.0:
                value *= 1.0 + 0.5 * cepstral_lifter * math.sin(math.pi * k / cepstral_lifter)
            c.append(value)
        if use_energy:
            c[0] = energy
        if htk_compat:
            c = c[1:] + [c[0] if use_energy else c[0] * math.sqrt(2.0)]
        out.append(c)
    return np.array(out)


def ref_spectrogram(wave, **kw):
    frames, energy = ref_processed(wave, **kw)
    out = np.log(np.maximum(np.abs(np.fft.rfft(frames, axis=1)) ** 2, EPS))
    out[:, 0] = energy
    return out


# -- values ---------------------------------------------------------------------------------

RNG = np.random.default_rng(7)
WAVE = RNG.standard_normal(1900) * 0.3 + np.sin(np.arange(1900) * 0.3)  # 8 kHz: 25 ms = 200 samples


def w(wave, dtype="float64", grad=False):
    return eager.to_tensor(np.asarray(wave, dtype=dtype)[None], stop_gradient=not grad)


OPTIONS = [
    {},
    {"snip_edges": False},
    {"window_type": "hamming", "raw_energy": False, "remove_dc_offset": False},
    {"window_type": "hann", "preemphasis_coefficient": 0.0, "energy_floor": 0.0},
    {"window_type": "rect", "round_to_power_of_two": False, "frame_length": 20.0, "frame_shift": 12.5},
    {"window_type": "blackman", "blackman_coeff": 0.4, "snip_edges": False, "frame_shift": 7.0},
    {"window_type": "hanning", "energy_floor": 20.0},  # Kaldi's name; a floor above every energy
    {"window_type": "rectangular", "frame_length": 10.0, "frame_shift": 30.0},  # frames apart
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_spectrogram_matches_the_reference(options):
    got = kaldi.spectrogram(w(WAVE), sr=8000, **options)
    want = ref_spectrogram(WAVE, sr=8000, **options)
    assert got.shape == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-9, atol=1e-9)


FBANK_OPTIONS = OPTIONS[:4] + [
    {"n_mels": 40, "low_freq": 100.0, "high_freq": -400.0, "use_energy": True},
    {"n_mels": 30, "high_freq": 3500.0, "use_energy": True, "htk_compat": True, "use_power": False},
    {"use_log_fbank": False, "snip_edges": False},
    {"vtln_warp": 0.9, "vtln_low": 200.0, "vtln_high": -600.0},
    {"vtln_warp": 1.15, "n_mels": 15, "low_freq": 60.0},
]


@pytest.mark.parametrize("options", FBANK_OPTIONS,
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_fbank_matches_the_reference(options):
    got = kaldi.fbank(w(WAVE), sr=8000, **options)
    want = ref_fbank(WAVE, sr=8000, **options)
    assert got.shape == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-9, atol=1e-9)


MFCC_OPTIONS = [
    {},
    {"n_mfcc": 20, "n_mels": 20, "cepstral_lifter": 0.0},
    {"use_energy": True},
    {"use_energy": True, "htk_compat": True, "snip_edges": False},
    {"htk_compat": True, "window_type": "hamming", "n_mels": 30, "n_mfcc": 10},
    {"vtln_warp": 0.95, "raw_energy": False, "use_energy": True},
]


@pytest.mark.parametrize("options", MFCC_OPTIONS,
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_mfcc_matches_the_reference(options):
    got = kaldi.mfcc(w(WAVE), sr=8000, **options)
    want = ref_mfcc(WAVE, sr=8000, **options)
    assert got.shape == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-8, atol=1e-8)


def test_float32_follows_float64_and_the_channel_is_chosen():
    two = np.stack([WAVE[::-1], WAVE])
    got = kaldi.fbank(eager.to_tensor(two.astype("float32")), sr=8000, channel=1)
    assert got.dtype.value == "float32"
    np.testing.assert_allclose(got.numpy(), ref_fbank(WAVE.astype("float32").astype("float64"), sr=8000),
                               rtol=1e-3, atol=1e-3)
    # channel -1 (the default) is the first channel, as in Paddle
    np.testing.assert_allclose(kaldi.mfcc(eager.to_tensor(two), sr=8000).numpy(), ref_mfcc(WAVE[::-1], sr=8000),
                               rtol=1e-8, atol=1e-8)


def test_subtract_mean_centres_every_column():
    got = kaldi.fbank(w(WAVE), sr=8000, subtract_mean=True, use_energy=True).numpy()
    want = ref_fbank(WAVE, sr=8000, use_energy=True)
    np.testing.assert_allclose(got, want - want.mean(axis=0), rtol=1e-9, atol=1e-9)
    got = kaldi.mfcc(w(WAVE), sr=8000, subtract_mean=True).numpy()
    np.testing.assert_allclose(got.mean(axis=0), 0.0, atol=1e-9)


def test_shapes_of_the_default_16khz_features():
    wave = w(np.sin(np.arange(16000) * 0.05))
    assert kaldi.spectrogram(wave).shape == [98, 257]
    assert kaldi.fbank(wave).shape == [98, 23]
    assert kaldi.mfcc(wave).shape == [98, 13]
    assert kaldi.fbank(wave, snip_edges=False).shape == [100, 23]         # (16000 + 80) // 160
    assert kaldi.spectrogram(wave, round_to_power_of_two=False).shape == [98, 201]


def test_dither_adds_seeded_gaussian_noise():
    eager.seed(3)
    a = kaldi.fbank(w(WAVE), sr=8000, dither=1.0).numpy()
    eager.seed(3)
    b = kaldi.fbank(w(WAVE), sr=8000, dither=1.0).numpy()
    np.testing.assert_array_equal(a, b)
    clean = ref_fbank(WAVE, sr=8000)
    assert not np.allclose(a, clean, atol=1e-3)
    # noise of standard deviation 1e-3 on a unit-scale signal moves the log energies little
    eager.seed(3)
    np.testing.assert_allclose(kaldi.fbank(w(WAVE), sr=8000, dither=1e-3).numpy(), clean, atol=0.05)


# -- gradients ------------------------------------------------------------------------------

SMALL = RNG.standard_normal(48) * 0.5  # sr 1600: 25 ms = 40 samples, padded to 64


@pytest.mark.parametrize("function, options", [
    (kaldi.spectrogram, {}),
    (kaldi.fbank, {"n_mels": 5, "use_energy": True, "snip_edges": False}),
    (kaldi.fbank, {"n_mels": 4, "use_log_fbank": False, "use_power": False, "raw_energy": False}),
    (kaldi.mfcc, {"n_mels": 6, "n_mfcc": 4, "frame_shift": 5.0, "energy_floor": 0.0}),
], ids=["spectrogram", "fbank-energy", "fbank-magnitude", "mfcc"])
def test_gradients_match_finite_differences(function, options):
    assert gradcheck(lambda x: function(x, sr=1600, **options), (w(SMALL, grad=True),), atol=1e-5, rtol=1e-4)


# -- errors ---------------------------------------------------------------------------------

def test_errors_name_the_function_and_argument():
    wave = w(WAVE)
    with pytest.raises(ValueError, match=r"kaldi.fbank: argument 'sr' expected a sample rate > 0, got 0"):
        kaldi.fbank(wave, sr=0)
    with pytest.raises(ValueError, match=r"kaldi.mfcc: argument 'sr' expected a sample rate > 0, got -8000"):
        kaldi.mfcc(wave, sr=-8000)
    with pytest.raises(ValueError, match=r"kaldi.spectrogram: the waveform has 300 samples, fewer than one frame "
                                         r"of 400"):
        kaldi.spectrogram(w(WAVE[:300]))
    with pytest.raises(ValueError, match=r"kaldi.fbank: argument 'window_type' expected one of 'povey', 'hann'.*"
                                         r"got 'hamm'"):
        kaldi.fbank(wave, sr=8000, window_type="hamm")
    with pytest.raises(TypeError, match=r"kaldi.fbank: argument 'waveform' expected .*Tensor"):
        kaldi.fbank(WAVE[None], sr=8000)
    with pytest.raises(TypeError, match=r"kaldi.fbank: argument 'waveform' expected a floating-point Tensor"):
        kaldi.fbank(eager.to_tensor(np.ones((1, 400), "int64")))
    with pytest.raises(ValueError, match=r"kaldi.fbank: argument 'waveform' expected a 2-d Tensor"):
        kaldi.fbank(eager.to_tensor(WAVE), sr=8000)
    with pytest.raises(ValueError, match=r"kaldi.fbank: argument 'channel' expected a channel < 1"):
        kaldi.fbank(wave, sr=8000, channel=1)
    with pytest.raises(ValueError, match=r"kaldi.mfcc: argument 'n_mfcc' expected at most n_mels=23, got 30"):
        kaldi.mfcc(wave, sr=8000, n_mfcc=30)
    with pytest.raises(ValueError, match=r"kaldi.fbank: argument 'n_mels' expected more than 3"):
        kaldi.fbank(wave, sr=8000, n_mels=3)
    with pytest.raises(ValueError, match=r"kaldi.fbank: expected 0 <= low_freq < high_freq <= 4000.0"):
        kaldi.fbank(wave, sr=8000, high_freq=5000.0)
    with pytest.raises(ValueError, match=r"kaldi.fbank: with vtln_warp=0.9 expected low_freq < vtln_low"):
        kaldi.fbank(wave, sr=8000, vtln_warp=0.9, vtln_low=10.0)
    with pytest.raises(ValueError, match=r"kaldi.spectrogram: argument 'preemphasis_coefficient' expected a "
                                         r"number in \[0, 1\]"):
        kaldi.spectrogram(wave, sr=8000, preemphasis_coefficient=1.5)
    with pytest.raises(ValueError, match=r"kaldi.spectrogram: the frame of 25 samples must be even"):
        kaldi.spectrogram(wave, sr=1000, round_to_power_of_two=False)
    with pytest.raises(TypeError, match=r"kaldi.fbank: argument 'snip_edges' expected a bool"):
        kaldi.fbank(wave, sr=8000, snip_edges="yes")
