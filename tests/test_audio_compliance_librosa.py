"""eager.audio.compliance.librosa against NumPy references written from librosa's
definitions (Slaney's mel scale and filter bank, the centred STFT, decibels), scipy's
windows and DCT as independent pieces; NumPy in, NumPy (float32) out; Tensor in,
Tensor out with gradients (float64 finite differences); the docstring examples; errors."""
import doctest
import math

import numpy as np
import pytest
import scipy.fftpack
import scipy.signal

import eager
from eager.audio.compliance import kaldi
from eager.audio.compliance import librosa as L
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")

RNG = np.random.default_rng(11)
WAVE = (RNG.standard_normal(3000) * 0.2 + np.sin(np.arange(3000) * 0.2)).astype(np.float64)


# -- references -------------------------------------------------------------------------------

def ref_hz_to_mel(f, htk=False):
    if htk:
        return 2595.0 * math.log10(1.0 + f / 700.0)
    return f / (200.0 / 3) if f < 1000.0 else 15.0 + math.log(f / 1000.0) / (math.log(6.4) / 27.0)


def ref_mel_to_hz(m, htk=False):
    if htk:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    return m * (200.0 / 3) if m < 15.0 else 1000.0 * math.exp(math.log(6.4) / 27.0 * (m - 15.0))


def ref_fbank(sr, n_fft, n_mels, fmin, fmax, htk=False):
    lo, hi = ref_hz_to_mel(fmin, htk), ref_hz_to_mel(fmax, htk)
    edges = [ref_mel_to_hz(lo + (hi - lo) * i / (n_mels + 1), htk) for i in range(n_mels + 2)]
    bins = [sr / 2.0 * k / (n_fft // 2) for k in range(n_fft // 2 + 1)]
    out = np.zeros((n_mels, len(bins)))
    for m in range(n_mels):
        left, center, right = edges[m], edges[m + 1], edges[m + 2]
        for k, f in enumerate(bins):
            rise, fall = (f - left) / (center - left), (right - f) / (right - center)
            out[m, k] = max(0.0, min(rise, fall)) * 2.0 / (right - left)
    return out


def ref_stft(x, n_fft, hop, window="hann", center=True, pad_mode="reflect"):
    win = scipy.signal.get_window(window, n_fft, fftbins=True)
    if center:
        x = np.pad(x, n_fft // 2, mode=pad_mode)
    frames = 1 + (len(x) - n_fft) // hop
    return np.stack([np.fft.rfft(x[t * hop:t * hop + n_fft] * win) for t in range(frames)], axis=1)


def ref_db(s, ref=1.0, amin=1e-10, top_db=80.0):
    out = 10.0 * np.log10(np.maximum(amin, s)) - 10.0 * np.log10(max(amin, abs(ref)))
    return out if top_db is None else np.maximum(out, out.max() - top_db)


def ref_mel(x, sr, n_fft, hop, n_mels, fmin, fmax=None, power=2.0, to_db=True, ref=1.0, top_db=None):
    spec = np.abs(ref_stft(x, n_fft, hop)) ** power
    mel = ref_fbank(sr, n_fft, n_mels, fmin, sr // 2 if fmax is None else fmax) @ spec
    return ref_db(mel, ref=ref, top_db=top_db) if to_db else mel


# -- values -----------------------------------------------------------------------------------

def test_mel_scale_and_grids_match_the_definitions():
    freqs = [0.0, 300.0, 999.0, 1000.0, 4321.0, 11025.0]
    for htk in (False, True):
        np.testing.assert_allclose(L.hz_to_mel(freqs, htk=htk), [ref_hz_to_mel(f, htk) for f in freqs], rtol=1e-12)
        mels = [ref_hz_to_mel(f, htk) for f in freqs]
        np.testing.assert_allclose(L.mel_to_hz(np.array(mels), htk=htk), freqs, rtol=1e-12, atol=1e-9)
        assert isinstance(L.hz_to_mel(440.0, htk=htk), float)
        assert math.isclose(L.mel_to_hz(L.hz_to_mel(440.0, htk=htk), htk=htk), 440.0)
    lo, hi = ref_hz_to_mel(30.0), ref_hz_to_mel(7000.0)
    np.testing.assert_allclose(L.mel_frequencies(10, 30.0, 7000.0),
                               [ref_mel_to_hz(lo + (hi - lo) * i / 9) for i in range(10)], rtol=1e-12)
    np.testing.assert_allclose(L.fft_frequencies(16000, 512), np.arange(257) * 16000 / 512)


@pytest.mark.parametrize("htk", [False, True])
def test_fbank_matrix_matches_the_slaney_definition(htk):
    got = L.compute_fbank_matrix(sr=16000, n_fft=512, n_mels=40, fmin=20.0, fmax=7600.0, htk=htk)
    assert got.dtype == np.float32 and got.shape == (40, 257)
    np.testing.assert_allclose(got, ref_fbank(16000, 512, 40, 20.0, 7600.0, htk), rtol=1e-5, atol=1e-9)
    default = L.compute_fbank_matrix(sr=8000, n_fft=256, dtype=np.float64)        # 128 mels, fmax sr / 2
    np.testing.assert_allclose(default, ref_fbank(8000, 256, 128, 0.0, 4000.0), rtol=1e-10, atol=1e-12)


def test_fbank_matrix_warns_about_empty_filters():
    with pytest.warns(UserWarning, match="empty"):
        L.compute_fbank_matrix(sr=8000, n_fft=32, n_mels=64)


@pytest.mark.parametrize("window, center, pad_mode", [("hann", True, "reflect"), ("hamming", False, "reflect"),
                                                      ("blackman", True, "constant")])
def test_stft_and_spectrogram_match_the_reference(window, center, pad_mode):
    got = L.stft(WAVE, n_fft=256, hop_length=100, window=window, center=center, pad_mode=pad_mode)
    want = ref_stft(WAVE, 256, 100, window, center, pad_mode)
    assert got.dtype == np.complex64 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    spec = L.spectrogram(WAVE, window_size=256, hop_length=100, window=window, center=center, pad_mode=pad_mode,
                         power=1.0)
    assert spec.dtype == np.float32
    np.testing.assert_allclose(spec, np.abs(want), rtol=1e-4, atol=1e-4)
    wide = L.stft(WAVE, n_fft=256, hop_length=100, window=window, center=center, pad_mode=pad_mode,
                  dtype=np.complex128)
    np.testing.assert_allclose(wide, want, rtol=1e-10, atol=1e-10)


def test_stft_defaults_and_a_shorter_window():
    got = L.stft(WAVE, n_fft=128, win_length=64, dtype=np.complex128)   # hop 64 // 4, window centred in 128
    win = np.zeros(128)
    win[32:96] = scipy.signal.get_window("hann", 64, fftbins=True)
    x = np.pad(WAVE, 64, mode="reflect")
    want = np.stack([np.fft.rfft(x[t * 16:t * 16 + 128] * win) for t in range(1 + (len(x) - 128) // 16)], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("options", [
    {},
    {"n_mels": 40, "fmin": 0.0, "fmax": 3000.0, "power": 1.0, "to_db": False},
    {"ref": 0.5, "top_db": 30.0},
])
def test_melspectrogram_matches_the_reference(options):
    got = L.melspectrogram(WAVE, sr=8000, window_size=256, hop_length=80, **options)
    kw = {"n_mels": 64, "fmin": 50.0, **options}
    want = ref_mel(WAVE, 8000, 256, 80, **kw)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4 * max(1.0, np.abs(want).max()))


def test_power_to_db_matches_the_definition():
    s = np.abs(RNG.standard_normal((5, 7))) ** 3
    np.testing.assert_allclose(L.power_to_db(s), ref_db(s), rtol=1e-12)
    np.testing.assert_allclose(L.power_to_db(s, ref=np.max, top_db=10.0), ref_db(s, ref=s.max(), top_db=10.0),
                               rtol=1e-12)
    np.testing.assert_allclose(L.power_to_db(s, ref=-2.0, amin=1e-3, top_db=None),
                               ref_db(s, ref=2.0, amin=1e-3, top_db=None), rtol=1e-12)
    with pytest.warns(UserWarning, match="phase"):
        np.testing.assert_allclose(L.power_to_db(s * np.exp(1j)), ref_db(s), rtol=1e-12)


@pytest.mark.parametrize("norm, lifter", [("ortho", 0), (None, 0), ("ortho", 22)])
def test_mfcc_is_scipys_dct_of_the_mel_spectrogram(norm, lifter):
    kw = {"window_size": 256, "hop_length": 80, "n_mels": 40}
    mel = ref_mel(WAVE, 8000, 256, 80, 40, 50.0)
    want = scipy.fftpack.dct(mel, axis=0, type=2, norm=norm)[:13]
    if lifter:
        want = want * np.sin(np.pi * np.arange(1, 14) / lifter)[:, None]
    got = L.mfcc(WAVE, sr=8000, n_mfcc=13, norm=norm, lifter=lifter, **kw)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3 * np.abs(want).max())
    # a given spectrogram is used as it is (float64 stays float64)
    np.testing.assert_allclose(L.mfcc(None, spect=mel, n_mfcc=13, norm=norm, lifter=lifter), want, rtol=1e-10,
                               atol=1e-9)


def test_mu_law_round_trips():
    x = np.linspace(-1, 1, 41)
    y = L.mu_encode(x, quantized=False)
    np.testing.assert_allclose(y, np.sign(x) * np.log1p(255 * np.abs(x)) / np.log1p(255), rtol=1e-12)
    np.testing.assert_allclose(L.mu_decode(y, quantized=False), x, atol=1e-12)
    q = L.mu_encode(x, mu=15)
    assert q.min() == 0 and q.max() == 15 and np.all(q == np.round(q))
    # a decoded level encodes to itself; the levels decode into [-1, 1], in order
    levels = L.mu_decode(np.arange(16.0), mu=15)
    np.testing.assert_array_equal(L.mu_encode(levels, mu=15), np.arange(16.0))
    assert abs(levels[0] + 1.0) < 1e-12 and abs(levels[-1] - 1.0) < 1e-12 and np.all(np.diff(levels) > 0)


# -- Tensors ------------------------------------------------------------------------------------

def test_a_tensor_gives_a_tensor_of_its_precision_with_the_same_values():
    x = eager.to_tensor(WAVE)
    mel = L.melspectrogram(x, sr=8000, window_size=256, hop_length=80)
    assert isinstance(mel, eager.Tensor) and mel.dtype.value == "float64"
    np.testing.assert_allclose(mel.numpy(), ref_mel(WAVE, 8000, 256, 80, 64, 50.0), rtol=1e-9, atol=1e-9)
    m = L.mfcc(x, sr=8000, window_size=256, hop_length=80)
    assert isinstance(m, eager.Tensor) and m.shape == [20, 38]
    freqs = eager.to_tensor([100.0, 2000.0])
    np.testing.assert_allclose(L.mel_to_hz(L.hz_to_mel(freqs)).numpy(), [100.0, 2000.0], rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda x: L.melspectrogram(x, sr=800, window_size=16, hop_length=8, n_mels=5, fmin=0.0),
    lambda x: L.mfcc(x, sr=800, n_mfcc=4, window_size=16, hop_length=8, n_mels=5, fmin=0.0, lifter=10),
    lambda x: L.spectrogram(x, window_size=16, hop_length=5, power=1.5),
    lambda x: L.mu_encode(x, quantized=False),
], ids=["melspectrogram", "mfcc", "spectrogram", "mu_encode"])
def test_gradients_match_finite_differences(make):
    x = eager.to_tensor(RNG.uniform(-0.9, 0.9, 40), stop_gradient=False)
    assert gradcheck(make, (x,), atol=1e-5, rtol=1e-4)


# -- errors and examples --------------------------------------------------------------------------

def test_errors_name_the_function_and_argument():
    with pytest.raises(ValueError, match=r"librosa.melspectrogram: argument 'x' expected a mono \(1-d\) waveform"):
        L.melspectrogram(np.ones((2, 100)))
    with pytest.raises(ValueError, match=r"librosa.spectrogram: argument 'x' is an empty waveform"):
        L.spectrogram(np.ones(0))
    with pytest.raises(ValueError, match=r"librosa.stft: argument 'x' has values that are not finite"):
        L.stft(np.array([0.0, np.nan] * 100))
    with pytest.raises(TypeError, match=r"librosa.stft: argument 'x' expected floating-point values, got int64"):
        L.stft(np.ones(100, dtype=np.int64))
    with pytest.raises(TypeError, match=r"librosa.mfcc: argument 'x' expected a NumPy array or a Tensor"):
        L.mfcc([0.0] * 1000)
    with pytest.raises(ValueError, match=r"librosa.melspectrogram: argument 'sr' expected a sample rate > 0"):
        L.melspectrogram(WAVE, sr=0)
    with pytest.raises(ValueError, match=r"librosa.melspectrogram: expected 0 <= fmin < fmax, got fmin=5000.0"):
        L.melspectrogram(WAVE, sr=8000, fmin=5000.0)
    with pytest.raises(ValueError, match=r"librosa.stft: n_fft=4096 is longer than the waveform"):
        L.stft(WAVE, n_fft=4096, center=False)
    with pytest.raises(ValueError, match=r"get_window: unknown window 'hanning-ish'"):
        L.spectrogram(WAVE, window="hanning-ish")
    with pytest.raises(ValueError, match=r"librosa.compute_fbank_matrix: argument 'norm' expected 'slaney'"):
        L.compute_fbank_matrix(8000, 256, norm=None)
    with pytest.raises(ValueError, match=r"librosa.mfcc: argument 'dct_type' expected 2"):
        L.mfcc(WAVE, dct_type=3)
    with pytest.raises(ValueError, match=r"librosa.mfcc: argument 'lifter' expected a number >= 0"):
        L.mfcc(WAVE, lifter=-1)
    with pytest.raises(ValueError, match=r"librosa.mfcc: argument 'n_mfcc' expected at most 64"):
        L.mfcc(WAVE, n_mfcc=65)
    with pytest.raises(ValueError, match=r"librosa.power_to_db: argument 'amin' expected a number > 0"):
        L.power_to_db(np.ones(3), amin=0.0)
    with pytest.raises(ValueError, match=r"librosa.power_to_db: argument 'top_db' expected a number >= 0"):
        L.power_to_db(np.ones(3), top_db=-1.0)
    with pytest.raises(ValueError, match=r"librosa.mu_decode: argument 'mu' expected an int >= 1"):
        L.mu_decode(np.ones(3), mu=0)
    with pytest.raises(TypeError, match=r"librosa.hz_to_mel: argument 'frequencies' expected a number"):
        L.hz_to_mel("440 Hz")


@pytest.mark.parametrize("module", [L, kaldi])
def test_docstring_examples_run(module):
    result = doctest.testmod(module, extraglobs={"eager": eager, "np": np},
                             optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.attempted >= 3 and result.failed == 0, result
