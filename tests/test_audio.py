"""eager.audio: the windows against NumPy's own (np.hanning, np.kaiser, ...) and
hand-written formulas, the mel scale, filter bank, decibels and DCT against NumPy
written from their definitions, the feature layers against a NumPy pipeline
(loop STFT -> |.|^p -> filter bank -> dB -> DCT) on both devices, gradients of the
layers back to the waveform, scipy as an optional cross-check, and errors."""
from __future__ import annotations

import doctest
import io
import math
import wave

import numpy as np
import pytest

import eager
from eager.audio import backends as AB
from eager.audio import features as AFE
from eager.audio import functional as AF
from eager.audio.backends import wave_backend as _wave_backend
from eager.audio.features import layers as _layers
from eager.audio.functional import functional as _functional
from eager.audio.functional import window as _window
from eager.autograd import gradcheck


def _t(array, grad=False):
    return eager.to_tensor(array, stop_gradient=not grad)


# -- windows --------------------------------------------------------------------------------

def _periodic(symmetric, m):
    return symmetric(m + 1)[:-1]


SYMMETRIC = {
    "hann": np.hanning, "hamming": np.hamming, "blackman": np.blackman, "bartlett": np.bartlett,
    ("kaiser", 6.0): lambda m: np.kaiser(m, 6.0),
    ("gaussian", 1.5): lambda m: np.exp(-0.5 * ((np.arange(m) - (m - 1) / 2) / 1.5) ** 2),
    "cosine": lambda m: np.sin(np.pi * (np.arange(m) + 0.5) / m),
    ("exponential", None, 2.0): lambda m: np.exp(-np.abs(np.arange(m) - (m - 1) / 2) / 2.0),
    ("general_gaussian", 1.0, 2.0): lambda m: np.exp(-0.5 * ((np.arange(m) - (m - 1) / 2) / 2.0) ** 2),
    "triang": lambda m: 1 - np.abs((2 * np.arange(m) - m + 1) / (m + (m % 2))),
    "tukey": lambda m: _tukey_loop(m, 0.5), ("tukey", 1.0): np.hanning, ("tukey", 0.0): np.ones,
}


def _tukey_loop(m, alpha):
    w = []
    for n in range(m):
        x = n / (m - 1)
        if x < alpha / 2:
            w.append(0.5 * (1 - math.cos(2 * math.pi * x / alpha)))
        elif x <= 1 - alpha / 2:
            w.append(1.0)
        else:
            w.append(0.5 * (1 - math.cos(2 * math.pi * (1 - x) / alpha)))
    return np.array(w)


@pytest.mark.parametrize("name", list(SYMMETRIC), ids=str)
@pytest.mark.parametrize("m", [2, 7, 16])
def test_windows_match_their_formulas(name, m):
    reference = SYMMETRIC[name]
    np.testing.assert_allclose(AF.get_window(name, m, fftbins=False).numpy(), reference(m), atol=1e-12)
    periodic = AF.get_window(name, m)
    assert periodic.dtype.value == "float64" and periodic.shape == [m]
    np.testing.assert_allclose(periodic.numpy(), _periodic(reference, m), atol=1e-12)


def test_window_properties():
    assert AF.get_window("hann", 1).numpy().tolist() == [1.0]
    assert AF.get_window("hann", 8, dtype="float32").dtype.value == "float32"
    bohman, nuttall = AF.get_window("bohman", 9, False).numpy(), AF.get_window("nuttall", 9, False).numpy()
    for w in (bohman, nuttall):  # symmetric, peak 1 at the centre
        np.testing.assert_allclose(w, w[::-1], atol=1e-15)
        assert abs(w[4] - 1) < 1e-6 and w.argmax() == 4
    assert bohman[0] == 0 and bohman[-1] == 0
    taylor = AF.get_window(("taylor", 4, 30), 65, False).numpy()   # normalised to 1 at the centre
    assert abs(taylor[32] - 1) < 1e-12 and taylor.argmax() == 32
    np.testing.assert_allclose(taylor, taylor[::-1], atol=1e-14)
    spectrum = np.abs(np.fft.fft(taylor, 4096))
    spectrum_db = 20 * np.log10(spectrum / spectrum.max())
    first_null = np.argmax(np.diff(spectrum_db[:400]) > 0)
    assert spectrum_db[first_null:2048].max() < -29.0   # side lobes ~30 dB down


def test_windows_match_scipy():
    signal = pytest.importorskip("scipy.signal")
    for name in ("hamming", "hann", "blackman", "nuttall", "cosine", "triang", "bartlett", "bohman", "tukey",
                 "taylor", ("taylor", 6, 45, False), ("kaiser", 9.0), ("gaussian", 3.0),
                 ("general_gaussian", 1.5, 4.0), ("exponential", None, 3.0), ("tukey", 0.25)):
        for m in (1, 2, 9, 32):
            for fftbins in (True, False):
                np.testing.assert_allclose(AF.get_window(name, m, fftbins).numpy(),
                                           signal.get_window(name, m, fftbins), atol=1e-12, err_msg=str(name))


# -- mel scale, filter bank, dB, DCT -----------------------------------------------------------

def _slaney_mel(f):
    return f / (200 / 3) if f < 1000 else 15 + 27 * math.log(f / 1000) / math.log(6.4)


def test_mel_scale_numbers_and_tensors(device):
    freqs = [0.0, 100.0, 999.0, 1000.0, 1500.0, 8000.0]
    for f in freqs:
        assert abs(AF.hz_to_mel(f) - _slaney_mel(f)) < 1e-9
        assert abs(AF.hz_to_mel(f, htk=True) - 2595 * math.log10(1 + f / 700)) < 1e-9
        assert abs(AF.mel_to_hz(AF.hz_to_mel(f)) - f) < 1e-7
        assert abs(AF.mel_to_hz(AF.hz_to_mel(f, True), True) - f) < 1e-7
    tensor = _t(np.array(freqs))
    for htk in (False, True):
        mels = AF.hz_to_mel(tensor, htk)
        np.testing.assert_allclose(mels.numpy(), [AF.hz_to_mel(f, htk) for f in freqs], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(AF.mel_to_hz(mels, htk).numpy(), freqs, rtol=1e-10, atol=1e-9)


def test_mel_scale_gradients():
    f = _t(np.array([50.0, 700.0, 1200.0, 6000.0]), True)
    AF.hz_to_mel(f).sum().backward()
    want = [3 / 200, 3 / 200, 27 / math.log(6.4) / 1200, 27 / math.log(6.4) / 6000]
    np.testing.assert_allclose(f.grad.numpy(), want, rtol=1e-10)
    for htk in (False, True):
        assert gradcheck(lambda m: AF.mel_to_hz(m, htk), (_t(np.array([3.0, 12.0, 20.0, 40.0]), True),))


def test_frequency_grids(device):
    np.testing.assert_allclose(AF.fft_frequencies(16000, 512).numpy(), np.fft.rfftfreq(512, 1 / 16000), rtol=1e-6)
    mels = AF.mel_frequencies(10, 30.0, 7000.0, dtype="float64").numpy()
    want = [AF.mel_to_hz(m) for m in np.linspace(_slaney_mel(30.0), _slaney_mel(7000.0), 10)]
    np.testing.assert_allclose(mels, want, rtol=1e-10)
    assert AF.mel_frequencies().dtype.value == "float32" and AF.mel_frequencies().shape == [64]


def _fbank_reference(sr, n_fft, n_mels, f_min, f_max, htk, norm):
    fft_f = np.linspace(0, sr / 2, n_fft // 2 + 1)
    lo, hi = AF.hz_to_mel(f_min, htk), AF.hz_to_mel(f_max, htk)
    mel_f = np.array([AF.mel_to_hz(m, htk) for m in np.linspace(lo, hi, n_mels + 2)])
    bank = np.zeros((n_mels, fft_f.size))
    for i in range(n_mels):
        left, centre, right = mel_f[i:i + 3]
        for j, f in enumerate(fft_f):
            if left < f <= centre:
                bank[i, j] = (f - left) / (centre - left)
            elif centre < f < right:
                bank[i, j] = (right - f) / (right - centre)
        if norm == "slaney":
            bank[i] *= 2 / (right - left)
    if isinstance(norm, float):
        bank /= np.maximum(np.sum(np.abs(bank) ** norm, axis=1, keepdims=True) ** (1 / norm), 1e-12)
    return bank


@pytest.mark.parametrize("sr, n_fft, n_mels, f_min, f_max, htk, norm", [
    (16000, 512, 40, 0.0, None, False, "slaney"), (22050, 256, 20, 50.0, 8000.0, True, None),
    (8000, 128, 10, 100.0, 3500.0, False, 2.0), (8000, 64, 8, 0.0, 4000.0, True, 1.0),
])
def test_fbank_matrix_matches_the_triangles(sr, n_fft, n_mels, f_min, f_max, htk, norm, device):
    got = AF.compute_fbank_matrix(sr, n_fft, n_mels, f_min, f_max, htk, norm, dtype="float64")
    want = _fbank_reference(sr, n_fft, n_mels, f_min, sr / 2 if f_max is None else f_max, htk, norm)
    assert got.shape == [n_mels, n_fft // 2 + 1] and got.dtype.value == "float64"
    np.testing.assert_allclose(got.numpy(), want, atol=1e-10)


def test_power_to_db(device):
    spect = np.array([[1e-14, 1e-3, 0.5], [1.0, 20.0, 300.0]])
    got = AF.power_to_db(_t(spect), ref_value=2.0, amin=1e-10, top_db=None).numpy()
    np.testing.assert_allclose(got, 10 * np.log10(np.maximum(spect, 1e-10)) - 10 * np.log10(2.0), rtol=1e-12)
    floored = AF.power_to_db(_t(spect), top_db=30.0).numpy()
    full = 10 * np.log10(np.maximum(spect, 1e-10))
    np.testing.assert_allclose(floored, np.maximum(full, full.max() - 30.0), rtol=1e-12)


def test_power_to_db_gradient():
    x = _t(np.array([[0.1, 2.0], [5.0, 1e-12]]), True)
    AF.power_to_db(x, top_db=None).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[10 / math.log(10) / 0.1, 10 / math.log(10) / 2.0],
                                                [10 / math.log(10) / 5.0, 0.0]], rtol=1e-10)


def test_create_dct(device):
    for n_mfcc, n_mels in ((4, 4), (13, 40)):
        d = AF.create_dct(n_mfcc, n_mels, dtype="float64").numpy()
        n, k = np.arange(n_mels)[:, None], np.arange(n_mfcc)[None]
        want = np.cos(np.pi / n_mels * (n + 0.5) * k) * np.sqrt(2 / n_mels)
        want[:, 0] /= np.sqrt(2)
        np.testing.assert_allclose(d, want, atol=1e-12)
        np.testing.assert_allclose(d.T @ d, np.eye(n_mfcc), atol=1e-12)   # orthonormal columns
        raw = AF.create_dct(n_mfcc, n_mels, norm=None, dtype="float64").numpy()
        np.testing.assert_allclose(raw, 2 * np.cos(np.pi / n_mels * (n + 0.5) * k), atol=1e-12)
    assert AF.create_dct(3, 5).dtype.value == "float32"


# -- feature layers ---------------------------------------------------------------------------

def _spectrogram_reference(x, n_fft, hop, window, power):
    w = window
    pad = n_fft // 2
    out = []
    for row in x:
        padded = np.pad(row, pad, mode="reflect")
        frames = [padded[t:t + n_fft] * w for t in range(0, padded.size - n_fft + 1, hop)]
        out.append(np.abs(np.fft.rfft(np.array(frames), axis=-1)).T ** power)
    return np.array(out)


def test_feature_layers_match_the_numpy_pipeline(device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 600))
    sr, n_fft, hop, n_mels, n_mfcc = 8000, 128, 40, 20, 12
    window = np.hanning(n_fft + 1)[:-1]
    spec1 = _spectrogram_reference(x, n_fft, hop, window, 1.0)
    got = AFE.Spectrogram(n_fft=n_fft, hop_length=hop, dtype="float64")(_t(x))
    np.testing.assert_allclose(got.numpy(), spec1, rtol=1e-9, atol=1e-9)
    assert got.place == eager.to_tensor([0.0]).place   # on the default device (the GPU stand-in on gpu)

    bank = _fbank_reference(sr, n_fft, n_mels, 50.0, sr // 2, False, "slaney")
    mel = bank @ spec1 ** 2
    got = AFE.MelSpectrogram(sr=sr, n_fft=n_fft, hop_length=hop, n_mels=n_mels, dtype="float64")(_t(x))
    np.testing.assert_allclose(got.numpy(), mel, rtol=1e-9, atol=1e-9)

    log_mel = 10 * np.log10(np.maximum(mel, 1e-10))
    log_mel = np.maximum(log_mel, log_mel.max() - 60.0)
    layer = AFE.LogMelSpectrogram(sr=sr, n_fft=n_fft, hop_length=hop, n_mels=n_mels, top_db=60.0, dtype="float64")
    np.testing.assert_allclose(layer(_t(x)).numpy(), log_mel, rtol=1e-9, atol=1e-8)

    dct = AF.create_dct(n_mfcc, n_mels, dtype="float64").numpy()
    mfcc = AFE.MFCC(sr=sr, n_mfcc=n_mfcc, n_fft=n_fft, hop_length=hop, n_mels=n_mels, top_db=60.0,
                    dtype="float64")
    np.testing.assert_allclose(mfcc(_t(x)).numpy(), np.einsum("mk,bmt->bkt", dct, log_mel), rtol=1e-9, atol=1e-8)
    one = mfcc(_t(x[1]))
    np.testing.assert_allclose(one.numpy(), np.einsum("mk,mt->kt", dct, log_mel[1]), rtol=1e-9, atol=1e-8)


def test_layer_defaults_and_buffers():
    spec = AFE.Spectrogram()
    assert spec.power == 1.0 and spec.n_fft == 512 and spec.hop_length == 512
    assert list(spec.state_dict()) == ["fft_window"]
    mel = AFE.MelSpectrogram()
    assert mel.fbank_matrix.shape == [64, 1025] and mel.fbank_matrix.dtype.value == "float32"
    mfcc = AFE.MFCC()
    assert mfcc.dct_matrix.shape == [64, 40]
    out = AFE.LogMelSpectrogram()(eager.ones([1, 2048]))
    assert out.shape == [1, 64, 17] and out.dtype.value == "float32"


def test_features_are_differentiable():
    x = _t(np.random.default_rng(1).standard_normal((1, 40)), True)
    layer = AFE.MFCC(sr=800, n_mfcc=4, n_fft=16, hop_length=8, n_mels=6, f_min=0.0, dtype="float64")
    assert gradcheck(layer, (x,))
    spec = AFE.Spectrogram(n_fft=16, hop_length=4, power=2.0, dtype="float64")
    assert gradcheck(spec, (x,))


# -- WAV files --------------------------------------------------------------------------------

def _write_wav(target, samples, rate, width=2):
    """samples: int [time, channels], written with Python's wave module directly."""
    with wave.open(target, "wb") as writer:
        writer.setnchannels(samples.shape[1])
        writer.setsampwidth(width)
        writer.setframerate(rate)
        writer.writeframes(samples.astype("<i2" if width == 2 else "u1").tobytes())


def _read_wav(source):
    with wave.open(source, "rb") as reader:
        raw = reader.readframes(reader.getnframes())
        return np.frombuffer(raw, "<i2").reshape(-1, reader.getnchannels()), reader.getframerate()


def test_load_reads_what_the_wave_module_wrote(tmp_path):
    rng = np.random.default_rng(3)
    samples = rng.integers(-2 ** 15, 2 ** 15, size=(50, 2))
    path = tmp_path / "stereo.wav"
    _write_wav(str(path), samples, 16000)
    info = eager.audio.info(path)
    assert (info.sample_rate, info.num_frames, info.num_channels, info.bits_per_sample) == (16000, 50, 2, 16)
    waveform, sr = eager.audio.load(path)
    assert sr == 16000 and waveform.shape == [2, 50] and waveform.dtype.value == "float32"
    np.testing.assert_array_equal(waveform.numpy(), samples.T / 2 ** 15)
    raw, _ = eager.audio.load(str(path), frame_offset=10, num_frames=5, normalize=False, channels_first=False)
    np.testing.assert_array_equal(raw.numpy(), samples[10:15])
    rest, _ = eager.audio.load(path, frame_offset=45)
    np.testing.assert_array_equal(rest.numpy(), samples[45:].T / 2 ** 15)
    buffer = io.BytesIO(path.read_bytes())
    np.testing.assert_array_equal(eager.audio.load(buffer)[0].numpy(), samples.T / 2 ** 15)


def test_save_writes_16_bit_pcm(tmp_path):
    signal = np.array([[0.0, 0.5, -0.5, 1.0, -1.0, 0.25], [0.1, -0.1, 0.2, -0.2, 0.3, -0.3]])
    path = tmp_path / "out.wav"
    AB.save(str(path), _t(signal.astype("float32")), 8000)
    samples, rate = _read_wav(str(path))
    want = np.clip(np.trunc(signal.T * 2 ** 15), -2 ** 15, 2 ** 15 - 1)   # toward zero as Paddle; 1.0 clips to 32767
    assert rate == 8000
    np.testing.assert_array_equal(samples, want)
    AB.save(path, _t(signal.T.copy()), 8000, channels_first=False)          # float64, [time, channels]
    np.testing.assert_array_equal(_read_wav(str(path))[0], want)
    ints = np.array([[1, -2, 300, -32768, 32767]], dtype=np.int16)
    buffer = io.BytesIO()
    AB.save(buffer, eager.to_tensor(ints), 100)
    buffer.seek(0)
    np.testing.assert_array_equal(_read_wav(buffer)[0][:, 0], ints[0])
    assert AB.list_available_backends() == ["wave_backend"] and AB.get_current_backend() == "wave_backend"
    AB.set_backend("wave_backend")


def test_wav_errors(tmp_path):
    not_wav = tmp_path / "noise.wav"
    not_wav.write_bytes(b"not a riff file at all")
    with pytest.raises(ValueError, match=r"audio.load: .* is not a WAV file the wave backend reads"):
        eager.audio.load(not_wav)
    eight_bit = tmp_path / "eight.wav"
    _write_wav(str(eight_bit), np.full((4, 1), 128), 8000, width=1)
    with pytest.raises(ValueError, match=r"audio.info: .* holds 8-bit samples; the wave backend reads 16-bit"):
        eager.audio.info(eight_bit)
    with pytest.raises(ValueError, match=r"audio.load: argument 'frame_offset' expected an int >= 0"):
        eager.audio.load(eight_bit, frame_offset=-1)
    with pytest.raises(TypeError, match=r"audio.load: argument 'filepath' expected a path or a binary file"):
        eager.audio.load(3)
    target = tmp_path / "never.wav"
    with pytest.raises(ValueError, match=r"audio.save: argument 'src' expected a 2-D Tensor"):
        AB.save(target, eager.ones([4]), 8000)
    with pytest.raises(TypeError, match=r"audio.save: argument 'src' expected float32, float64 or int16, got int64"):
        AB.save(target, eager.ones([1, 4], dtype="int64"), 8000)
    with pytest.raises(ValueError, match=r"audio.save: argument 'bits_per_sample' expected 16"):
        AB.save(target, eager.ones([1, 4]), 8000, bits_per_sample=24)
    with pytest.raises(ValueError, match=r"audio.backends.set_backend: argument 'backend_name' expected one of"):
        AB.set_backend("soundfile")
    assert not target.exists()


@pytest.mark.parametrize("call, error, message", [
    (lambda: AF.get_window("nope", 8), ValueError, r"audio.functional.get_window: unknown window 'nope'"),
    (lambda: AF.get_window("gaussian", 8), ValueError, r"the 'gaussian' window needs parameters: pass a tuple"),
    (lambda: AF.get_window(("kaiser",), 8), ValueError, r"the 'kaiser' window takes 1 parameters, got 0"),
    (lambda: AF.get_window(("hann", 2.0), 8), ValueError, r"the 'hann' window takes 0 parameters, got 1"),
    (lambda: AF.get_window(("kaiser", "a"), 8), TypeError, r"the 'kaiser' window's parameters must be numbers"),
    (lambda: AF.get_window(3, 8), TypeError, r"argument 'window' expected a window name or a tuple"),
    # Paddle 2.6.2 raises ValueError for a window of the wrong kind
    (lambda: AF.get_window(1043, 8), ValueError, r"argument 'window' expected a window name or a tuple"),
    (lambda: AF.get_window("hann", -1), ValueError, r"argument 'win_length' expected an int >= 0, got -1"),
    (lambda: AF.get_window("hann", 8, dtype="int32"), TypeError, r"argument 'dtype' expected 'float32' or 'float64'"),
    (lambda: AF.hz_to_mel("440"), TypeError, r"audio.functional.hz_to_mel: argument 'freq' expected a number or"),
    (lambda: AF.mel_to_hz(eager.ones([2], dtype="bool")), TypeError,
     r"argument 'mel' expected a floating-point or integer"),
    (lambda: AF.fft_frequencies(0, 8), ValueError, r"audio.functional.fft_frequencies: argument 'sr' expected a number > 0"),
    (lambda: AF.compute_fbank_matrix(8000, 64, f_min=5000.0), ValueError, r"expected 0 <= f_min < f_max"),
    (lambda: AF.compute_fbank_matrix(8000, 64, norm="l2"), ValueError, r"argument 'norm' expected 'slaney', a number"),
    (lambda: AF.power_to_db(np.ones(3)), TypeError, r"audio.functional.power_to_db: argument 'spect' expected a Tensor"),
    (lambda: AF.power_to_db(eager.ones([3]), amin=0), ValueError, r"argument 'amin' expected a number > 0"),
    (lambda: AF.power_to_db(eager.ones([3]), top_db=-1.0), ValueError, r"argument 'top_db' expected a number >= 0"),
    (lambda: AF.create_dct(4, 4, norm="l1"), ValueError, r"audio.functional.create_dct: argument 'norm' expected"),
    (lambda: AFE.Spectrogram(power=0), ValueError, r"audio.features.Spectrogram: argument 'power' expected a number > 0"),
    (lambda: AFE.MFCC(n_mfcc=70), ValueError, r"audio.features.MFCC: argument 'n_mfcc' expected at most n_mels=64"),
    (lambda: AFE.LogMelSpectrogram(amin=-1.0), ValueError, r"argument 'amin' expected a number > 0"),
    (lambda: AFE.Spectrogram(n_fft=16)(eager.ones([1, 32], dtype="float64")), TypeError,
     r"audio.features.Spectrogram: argument 'x' expected paddle.float32 \(the layer's dtype\), got paddle.float64"),
    (lambda: AFE.Spectrogram(n_fft=16)(np.ones((1, 32))), TypeError, r"signal.stft: argument 'x' expected a Tensor"),
])
def test_bad_arguments_raise_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("module", [_window, _functional, _layers, _wave_backend])
def test_docstring_examples_run(module):
    result = doctest.testmod(module, extraglobs={"eager": eager, "np": np, **vars(AFE)},
                             optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.attempted >= 3 and result.failed == 0, result
