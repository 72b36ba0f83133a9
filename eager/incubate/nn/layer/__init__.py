"""Paddle's ``paddle.incubate.nn`` layers over the fused functionals: the same
constructor arguments, parameter names, shapes and layouts as Paddle's (a
state_dict saved from Paddle's layers loads into these), and the same forward
computation (see eager.incubate.nn.functional). Paddle's file-named modules
(``fused_transformer``, ``fused_dropout_add``, ``fused_dropout_nd``,
``fused_ec_moe``, ``fused_linear``) hold the same classes, for scripts that
import them from there; they load on first use."""
from __future__ import annotations

import importlib
import pkgutil

from ....generated import forward_api as _F
from ....nn import functional as F
from ....nn.functional.checks import check_positive_int
from ....nn.initializer import Constant
from ....nn.layer import Layer
from ....nn.transformer import _convert_attention_mask, _param_attrs
from ....tensor import Tensor
from .. import functional as IF
from ..functional import _checks


def _rate(who: str, arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{who}: argument '{arg}' expected a float in [0, 1], got {value!r}")
    return float(value)


def _single_card(who: str, nranks, ring_id) -> None:
    if nranks != 1 or ring_id != -1:
        raise ValueError(f"{who}: arguments 'nranks'/'ring_id' expected 1/-1 (eager has no tensor model "
                         f"parallelism inside fused layers), got {nranks!r}/{ring_id!r}")


class FusedLinear(Layer):
    """A linear layer run by ``fused_linear``: ``weight`` ``[in_features,
    out_features]`` (``[out_features, in_features]`` with
    ``transpose_weight=True``), ``bias`` ``[out_features]``.

    >>> layer = eager.incubate.nn.FusedLinear(3, 4)
    >>> layer(eager.ones([2, 3])).shape
    [2, 4]
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, transpose_weight=False,
                 name=None):
        super().__init__()
        who = "FusedLinear"
        in_features = check_positive_int(who, "in_features", in_features, ValueError)
        out_features = check_positive_int(who, "out_features", out_features, ValueError)
        if not isinstance(transpose_weight, bool):
            raise TypeError(f"{who}: argument 'transpose_weight' expected a bool, got {transpose_weight!r}")
        shape = [out_features, in_features] if transpose_weight else [in_features, out_features]
        self.weight = self.create_parameter(shape, attr=weight_attr, is_bias=False)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)
        self.transpose_weight = transpose_weight
        self.name = name

    def forward(self, input):  # noqa: A002  (Paddle's argument name)
        """``input @ weight + bias`` (weight transposed first with transpose_weight)."""
        return IF.fused_linear(input, self.weight, self.bias, self.transpose_weight)

    def extra_repr(self) -> str:
        return f"weight={self.weight.shape}, transpose_weight={self.transpose_weight}"


class FusedDropout(Layer):
    """Dropout as ``eager.nn.Dropout`` computes it (Paddle's fused ``dropout_nd``
    kernel is one way to run it): in training each element (or, with ``axis``,
    each slice along those axes, shared along the others) is zeroed with
    probability ``p``; ``mode`` scales as :func:`eager.nn.functional.dropout`
    does. After ``eval()`` it is the identity (or the ``1 - p`` scaling of
    ``"downscale_in_infer"``).

    >>> layer = eager.incubate.nn.FusedDropout(p=0.5, axis=0)
    >>> layer(eager.ones([2, 3])).shape
    [2, 3]
    >>> _ = layer.eval()
    >>> layer(eager.ones([2, 3])).numpy().tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """

    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        who = "incubate.nn.FusedDropout"
        if isinstance(p, bool) or not isinstance(p, (int, float)):
            raise TypeError(f"{who}: argument 'p' expected a float or an int, got {type(p).__name__}")
        self.p = _rate(who, "p", p)
        if axis is not None and (isinstance(axis, bool) or not isinstance(axis, (int, list, tuple))):
            raise TypeError(f"{who}: argument 'axis' expected None, an int or a list of ints, got "
                            f"{type(axis).__name__}")
        self.axis = None if axis is None else [axis] if isinstance(axis, int) else list(axis)
        if not isinstance(mode, str) or mode not in _checks.MODES:
            raise ValueError(f"{who}: argument 'mode' expected 'upscale_in_train' or 'downscale_in_infer', got "
                             f"{mode!r}")
        self.mode = mode
        self.name = name

    def forward(self, input):
        """dropout(input) in training mode, the inference form otherwise."""
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training, mode=self.mode)

    def extra_repr(self) -> str:
        name = f", name={self.name}" if self.name else ""
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{name}"


class FusedDropoutAdd(Layer):
    """``dropout(x, p) + y`` (``fused_dropout_add``), dropping only in training.

    >>> layer = eager.incubate.nn.FusedDropoutAdd(p=0.5)
    >>> _ = layer.eval()
    >>> layer(eager.ones([2]), eager.ones([2])).numpy()
    array([2., 2.], dtype=float32)
    """

    def __init__(self, p=0.5, mode="upscale_in_train", name=None):
        super().__init__()
        self.p = _rate("FusedDropoutAdd", "p", p)
        self.mode = _checks.mode("FusedDropoutAdd", mode)
        self.name = name

    def forward(self, x, y):
        """``dropout(x) + y``, dropping only in training mode."""
        return IF.fused_dropout_add(x, y, self.p, self.training, self.mode)

    def extra_repr(self) -> str:
        return f"p={self.p}, mode={self.mode}"


class FusedBiasDropoutResidualLayerNorm(Layer):
    """``layer_norm(residual + dropout(x + linear_bias))`` with parameters
    ``linear_bias``, ``ln_scale`` (ones) and ``ln_bias``, each ``[embed_dim]``.

    >>> layer = eager.incubate.nn.FusedBiasDropoutResidualLayerNorm(4, dropout_rate=0.0)
    >>> layer(eager.ones([2, 3, 4]), eager.ones([2, 3, 4])).shape
    [2, 3, 4]
    """

    def __init__(self, embed_dim, dropout_rate=0.5, weight_attr=None, bias_attr=None, epsilon=1e-5, name=None):
        super().__init__()
        who = "FusedBiasDropoutResidualLayerNorm"
        self.embed_dim = check_positive_int(who, "embed_dim", embed_dim, ValueError)
        self.linear_bias = self.create_parameter([embed_dim], attr=bias_attr, is_bias=True)
        self.ln_scale = self.create_parameter([embed_dim], attr=weight_attr, default_initializer=Constant(1.0))
        self.ln_bias = self.create_parameter([embed_dim], attr=bias_attr, is_bias=True)
        self.dropout_rate = _rate(who, "dropout_rate", dropout_rate)
        self._epsilon = epsilon
        self.name = name

    def forward(self, x, residual):
        """``layer_norm(residual + dropout(x + linear_bias))``."""
        return IF.fused_bias_dropout_residual_layer_norm(
            x, residual, self.linear_bias, self.ln_scale, self.ln_bias, self.dropout_rate, self._epsilon,
            self.training, "upscale_in_train")

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, dropout_rate={self.dropout_rate}, epsilon={self._epsilon}"


def _dtype_and_name(layer) -> str:
    """The tail of Paddle's extra_repr for the fused attention and feed-forward
    layers: ``dtype=float32`` and, when named, ``, name=...``."""
    name = f", name={layer.name}" if layer.name else ""
    return f"dtype={layer._dtype.numpy_dtype.name}{name}"


def _same_values(other, query) -> bool:
    """Whether ``other`` holds query's values: Paddle's fused layer ignores key
    and value, and its own tests pass copies of the query there (``attn(to_tensor(x),
    to_tensor(x), to_tensor(x))``). Only reached when other is not query itself."""
    return (isinstance(other, Tensor) and other.shape == query.shape and other.dtype == query.dtype
            and bool(_F.equal_all(other, query)))


class FusedMultiHeadAttention(Layer):
    """Self-attention as ``fused_multi_head_attention``, with Paddle's fused
    parameters: ``qkv_weight`` ``[3, num_heads, head_dim, embed_dim]`` (or
    ``[embed_dim, 3 * embed_dim]`` with ``transpose_qkv_wb=True``), ``qkv_bias``,
    ``linear_weight`` ``[embed_dim, embed_dim]``, ``linear_bias``, and the layer
    norm's ``pre_ln_scale``/``pre_ln_bias`` (``normalize_before=True``) or
    ``ln_scale``/``ln_bias``. Bool and integer masks are converted as in
    eager.nn.MultiHeadAttention.

    >>> attn = eager.incubate.nn.FusedMultiHeadAttention(8, 2, dropout_rate=0.0, attn_dropout_rate=0.0)
    >>> attn(eager.ones([2, 3, 8])).shape
    [2, 3, 8]
    """

    def __init__(self, embed_dim, num_heads, dropout_rate=0.5, attn_dropout_rate=0.5, kdim=None, vdim=None,
                 normalize_before=False, need_weights=False, qkv_weight_attr=None, qkv_bias_attr=None,
                 linear_weight_attr=None, linear_bias_attr=None, pre_ln_scale_attr=None, pre_ln_bias_attr=None,
                 ln_scale_attr=None, ln_bias_attr=None, epsilon=1e-5, nranks=1, ring_id=-1, transpose_qkv_wb=False,
                 name=None):
        super().__init__()
        who = "FusedMultiHeadAttention"
        self.embed_dim = check_positive_int(who, "embed_dim", embed_dim, ValueError)
        self.num_heads = check_positive_int(who, "num_heads", num_heads, ValueError)
        if embed_dim % num_heads:
            raise ValueError(f"{who}: argument 'num_heads' expected a divisor of embed_dim ({embed_dim}), got "
                             f"{num_heads}")
        if need_weights is not False:
            raise ValueError(f"{who}: argument 'need_weights' expected False (as Paddle's), got {need_weights!r}")
        _single_card(who, nranks, ring_id)
        if not isinstance(normalize_before, bool) or not isinstance(transpose_qkv_wb, bool):
            raise TypeError(f"{who}: arguments 'normalize_before' and 'transpose_qkv_wb' expected bools, got "
                            f"{normalize_before!r} and {transpose_qkv_wb!r}")
        self.head_dim = embed_dim // num_heads
        self.kdim, self.vdim, self.need_weights = kdim, vdim, need_weights
        self.normalize_before, self.transpose_qkv_wb = normalize_before, transpose_qkv_wb
        self.dropout_rate = _rate(who, "dropout_rate", dropout_rate)
        self.attn_dropout_rate = _rate(who, "attn_dropout_rate", attn_dropout_rate)
        self._epsilon = epsilon
        self.name = name
        if transpose_qkv_wb:
            qkv_shape, qkv_bias_shape = [embed_dim, 3 * embed_dim], [3 * embed_dim]
        else:
            qkv_shape, qkv_bias_shape = [3, num_heads, self.head_dim, embed_dim], [3, num_heads, self.head_dim]
        self.qkv_weight = self.create_parameter(qkv_shape, attr=qkv_weight_attr, is_bias=False)
        self.qkv_bias = self.create_parameter(qkv_bias_shape, attr=qkv_bias_attr, is_bias=True)
        self.linear_weight = self.create_parameter([embed_dim, embed_dim], attr=linear_weight_attr, is_bias=False)
        self.linear_bias = self.create_parameter([embed_dim], attr=linear_bias_attr, is_bias=True)
        one = Constant(1.0)
        if normalize_before:
            self.pre_ln_scale = self.create_parameter([embed_dim], attr=pre_ln_scale_attr, default_initializer=one)
            self.pre_ln_bias = self.create_parameter([embed_dim], attr=pre_ln_bias_attr, is_bias=True)
            self.ln_scale = self.ln_bias = None
        else:
            self.pre_ln_scale = self.pre_ln_bias = None
            self.ln_scale = self.create_parameter([embed_dim], attr=ln_scale_attr, default_initializer=one)
            self.ln_bias = self.create_parameter([embed_dim], attr=ln_bias_attr, is_bias=True)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        """Self-attention of ``query`` ``[batch, seq, embed_dim]``: ``key`` and
        ``value`` must be None, ``query`` itself or a tensor equal to it (the fused
        op attends over its input only); ``cache`` must be None."""
        who = f"FusedMultiHeadAttention({self.full_name()})"
        for arg, given in (("key", key), ("value", value)):
            if given is not None and given is not query and not _same_values(given, query):
                raise ValueError(f"{who}: argument '{arg}' expected None or a tensor equal to query "
                                 f"(self-attention only), got another tensor")
        if attn_mask is not None:
            attn_mask = _convert_attention_mask(who, attn_mask, query.dtype)
        return IF.fused_multi_head_attention(
            query, self.qkv_weight, self.linear_weight, self.normalize_before, self.pre_ln_scale, self.pre_ln_bias,
            self.ln_scale, self.ln_bias, self._epsilon, self.qkv_bias, self.linear_bias, cache, attn_mask,
            self.dropout_rate, self.attn_dropout_rate, self._epsilon, self.training, "upscale_in_train", -1, True,
            self.num_heads, self.transpose_qkv_wb)

    def extra_repr(self) -> str:
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout_rate={self.dropout_rate}, "
                f"attn_dropout_rate={self.attn_dropout_rate}, epsilon={self._epsilon}, kdim={self.kdim}, "
                f"vdim={self.vdim}, normalize_before={self.normalize_before}, need_weights={self.need_weights}, "
                f"{_dtype_and_name(self)}")


class FusedFeedForward(Layer):
    """The feed-forward block ``fused_feedforward`` with Paddle's parameters
    ``_linear1_weight`` ``[d_model, dim_feedforward]``, ``_linear1_bias``,
    ``_linear2_weight`` ``[dim_feedforward, d_model]``, ``_linear2_bias`` and the
    layer norm's ``_ln1_scale``/``_ln1_bias`` (``normalize_before=True``) or
    ``_ln2_scale``/``_ln2_bias``.

    >>> ffn = eager.incubate.nn.FusedFeedForward(4, 8, dropout_rate=0.0)
    >>> ffn(eager.ones([2, 3, 4])).shape
    [2, 3, 4]
    """

    def __init__(self, d_model, dim_feedforward, dropout_rate=0.1, epsilon=1e-05, activation="relu",
                 act_dropout_rate=None, normalize_before=False, linear1_weight_attr=None, linear1_bias_attr=None,
                 linear2_weight_attr=None, linear2_bias_attr=None, ln1_scale_attr=None, ln1_bias_attr=None,
                 ln2_scale_attr=None, ln2_bias_attr=None, nranks=1, ring_id=-1, name=None):
        super().__init__()
        who = "FusedFeedForward"
        self._d_model = check_positive_int(who, "d_model", d_model, ValueError)
        self._dim_feedforward = check_positive_int(who, "dim_feedforward", dim_feedforward, ValueError)
        _single_card(who, nranks, ring_id)
        if not isinstance(activation, str) or activation not in ("relu", "gelu"):
            raise ValueError(f"{who}: argument 'activation' expected 'relu' or 'gelu', got {activation!r}")
        if not isinstance(normalize_before, bool):
            raise TypeError(f"{who}: argument 'normalize_before' expected a bool, got {normalize_before!r}")
        self._dropout_rate = _rate(who, "dropout_rate", dropout_rate)
        self._act_dropout_rate = self._dropout_rate if act_dropout_rate is None else _rate(
            who, "act_dropout_rate", act_dropout_rate)
        self._act_method, self._normalize_before, self._epsilon = activation, normalize_before, epsilon
        self.name = name
        self._linear1_weight = self.create_parameter([d_model, dim_feedforward], attr=linear1_weight_attr)
        self._linear1_bias = self.create_parameter([dim_feedforward], attr=linear1_bias_attr, is_bias=True)
        self._linear2_weight = self.create_parameter([dim_feedforward, d_model], attr=linear2_weight_attr)
        self._linear2_bias = self.create_parameter([d_model], attr=linear2_bias_attr, is_bias=True)
        one = Constant(1.0)
        if normalize_before:
            self._ln1_scale = self.create_parameter([d_model], attr=ln1_scale_attr, default_initializer=one)
            self._ln1_bias = self.create_parameter([d_model], attr=ln1_bias_attr, is_bias=True)
            self._ln2_scale = self._ln2_bias = None
        else:
            self._ln1_scale = self._ln1_bias = None
            self._ln2_scale = self.create_parameter([d_model], attr=ln2_scale_attr, default_initializer=one)
            self._ln2_bias = self.create_parameter([d_model], attr=ln2_bias_attr, is_bias=True)

    def forward(self, src, cache=None):
        """The feed-forward block on ``src`` ``[..., d_model]``; ``cache`` must be None."""
        if cache is not None:
            raise ValueError(f"FusedFeedForward({self.full_name()}): argument 'cache' expected None, got "
                             f"{type(cache).__name__}")
        return IF.fused_feedforward(
            src, self._linear1_weight, self._linear2_weight, self._linear1_bias, self._linear2_bias,
            self._ln1_scale, self._ln1_bias, self._ln2_scale, self._ln2_bias, self._act_dropout_rate,
            self._dropout_rate, self._act_method, self._epsilon, self._epsilon, self._normalize_before,
            self.training, "upscale_in_train")

    def extra_repr(self) -> str:
        return (f"d_model={self._d_model}, dim_feedforward={self._dim_feedforward}, "
                f"dropout_rate={self._dropout_rate}, epsilon={self._epsilon}, activation={self._act_method}, "
                f"act_dropout_rate={self._act_dropout_rate}, normalize_before={self._normalize_before}, "
                f"{_dtype_and_name(self)}")


class FusedTransformerEncoderLayer(Layer):
    """A transformer encoder layer: ``fused_attn`` (FusedMultiHeadAttention)
    then ``ffn`` (FusedFeedForward), pre- or post-layer-norm. ``weight_attr`` /
    ``bias_attr``: one attribute for both sublayers, or a list of two
    (attention's, feed-forward's).

    >>> layer = eager.incubate.nn.FusedTransformerEncoderLayer(8, 2, 16, dropout_rate=0.0)
    >>> layer(eager.ones([2, 3, 8])).shape
    [2, 3, 8]
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout_rate=0.1, activation="relu", attn_dropout_rate=None,
                 act_dropout_rate=None, normalize_before=False, weight_attr=None, bias_attr=None):
        super().__init__()
        who = "FusedTransformerEncoderLayer"
        check_positive_int(who, "d_model", d_model, ValueError)
        check_positive_int(who, "nhead", nhead, ValueError)
        check_positive_int(who, "dim_feedforward", dim_feedforward, ValueError)
        attn_dropout_rate = dropout_rate if attn_dropout_rate is None else attn_dropout_rate
        act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        self.normalize_before = normalize_before
        weights = _param_attrs(weight_attr, 2, who, "weight_attr")
        biases = _param_attrs(bias_attr, 2, who, "bias_attr")
        self.fused_attn = FusedMultiHeadAttention(
            d_model, nhead, dropout_rate=dropout_rate, attn_dropout_rate=attn_dropout_rate,
            normalize_before=normalize_before, qkv_weight_attr=weights[0], qkv_bias_attr=biases[0],
            linear_weight_attr=weights[0], linear_bias_attr=biases[0], pre_ln_scale_attr=weights[0],
            pre_ln_bias_attr=biases[0], ln_scale_attr=weights[0], ln_bias_attr=biases[0])
        self.ffn = FusedFeedForward(
            d_model, dim_feedforward, dropout_rate=dropout_rate, activation=activation,
            act_dropout_rate=act_dropout_rate, normalize_before=normalize_before,
            linear1_weight_attr=weights[1], linear1_bias_attr=biases[1], linear2_weight_attr=weights[1],
            linear2_bias_attr=biases[1])

    def forward(self, src, src_mask=None, cache=None):
        """Attention then feed-forward on ``src`` ``[batch, seq, d_model]``;
        ``src_mask`` as eager.nn.TransformerEncoderLayer's; ``cache`` must be None."""
        if cache is not None:
            raise ValueError(f"FusedTransformerEncoderLayer({self.full_name()}): argument 'cache' expected None "
                             f"(no decoding cache), got {type(cache).__name__}")
        return self.ffn(self.fused_attn(src, attn_mask=src_mask))


class FusedMultiTransformer(Layer):
    """``num_layers`` transformer layers run by ``fused_multi_transformer``:
    Paddle's per-layer parameter lists ``ln_scales``, ``ln_biases``,
    ``qkv_weights`` (``[3, num_heads, head_dim, embed_dim]``, ``[embed_dim, 3,
    num_heads, head_dim]`` with ``trans_qkvw=False``), ``qkv_biases``,
    ``linear_weights``, ``linear_biases``, ``ffn_ln_scales``, ``ffn_ln_biases``,
    ``ffn1_weights``, ``ffn1_biases``, ``ffn2_weights``, ``ffn2_biases``, each a
    Python list indexed by layer. Each ``*_attrs`` is one ParamAttr for every
    layer or a list of one per layer (a list of ``qkv_weight_attrs`` sets
    ``num_layers``); a bias attr of False leaves that bias out (None in its list).
    Besides the lists, every parameter is registered as ``<list>_<layer>``
    (``qkv_weights_0``), so ``parameters()``, optimizers and ``state_dict()``
    see them. Bool and integer masks are converted as in eager.nn.MultiHeadAttention.

    >>> layers = eager.incubate.nn.FusedMultiTransformer(8, 2, 16, num_layers=2)
    >>> layers(eager.ones([2, 3, 8])).shape
    [2, 3, 8]
    >>> len(layers.qkv_weights), layers.qkv_weights[0].shape
    (2, [3, 2, 4, 8])
    """

    _LISTS = ("ln_scales", "ln_biases", "qkv_weights", "qkv_biases", "linear_weights", "linear_biases",
              "ffn_ln_scales", "ffn_ln_biases", "ffn1_weights", "ffn1_biases", "ffn2_weights", "ffn2_biases")

    def __init__(self, embed_dim, num_heads, dim_feedforward, dropout_rate=0.0, activation="gelu",
                 normalize_before=True, ln_scale_attrs=None, ln_bias_attrs=None, qkv_weight_attrs=None,
                 qkv_bias_attrs=None, linear_weight_attrs=None, linear_bias_attrs=None, ffn_ln_scale_attrs=None,
                 ffn_ln_bias_attrs=None, ffn1_weight_attrs=None, ffn1_bias_attrs=None, ffn2_weight_attrs=None,
                 ffn2_bias_attrs=None, epsilon=1e-5, num_layers=-1, nranks=1, trans_qkvw=True, ring_id=-1,
                 name=None):
        super().__init__()
        who = "FusedMultiTransformer"
        self.embed_dim = check_positive_int(who, "embed_dim", embed_dim, ValueError)
        self.num_heads = check_positive_int(who, "num_heads", num_heads, ValueError)
        self._dim_feedforward = check_positive_int(who, "dim_feedforward", dim_feedforward, ValueError)
        if embed_dim % num_heads:
            raise ValueError(f"{who}: argument 'num_heads' expected a divisor of embed_dim ({embed_dim}), got "
                             f"{num_heads}")
        _single_card(who, nranks, ring_id)
        if not isinstance(activation, str) or activation not in ("gelu", "relu", "none"):
            raise ValueError(f"{who}: argument 'activation' expected 'gelu', 'relu' or 'none', got {activation!r}")
        if not isinstance(normalize_before, bool) or not isinstance(trans_qkvw, bool):
            raise TypeError(f"{who}: arguments 'normalize_before' and 'trans_qkvw' expected bools, got "
                            f"{normalize_before!r} and {trans_qkvw!r}")
        if isinstance(qkv_weight_attrs, (list, tuple)):
            num_layers = len(qkv_weight_attrs)
        if isinstance(num_layers, bool) or not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError(f"{who}: argument 'num_layers' expected a positive int (or a list of qkv_weight_attrs), "
                             f"got {num_layers!r}")
        self.head_dim = embed_dim // num_heads
        self.normalize_before, self._trans_qkvw, self._ring_id = normalize_before, trans_qkvw, ring_id
        self.dropout_rate = _rate(who, "dropout_rate", dropout_rate)
        self.activation, self._epsilon, self.name = activation, epsilon, name
        heads, head_dim, ffn = num_heads, self.head_dim, dim_feedforward
        one = Constant(1.0)
        # list name: (its attrs argument's name, the attrs, shape, is_bias, default initializer)
        specs = {
            "ln_scales": ("ln_scale_attrs", ln_scale_attrs, [embed_dim], False, one),
            "ln_biases": ("ln_bias_attrs", ln_bias_attrs, [embed_dim], True, None),
            "qkv_weights": ("qkv_weight_attrs", qkv_weight_attrs, [3, heads, head_dim, embed_dim] if trans_qkvw
                            else [embed_dim, 3, heads, head_dim], False, None),
            "qkv_biases": ("qkv_bias_attrs", qkv_bias_attrs, [3, heads, head_dim], True, None),
            "linear_weights": ("linear_weight_attrs", linear_weight_attrs, [heads * head_dim, embed_dim], False,
                               None),
            "linear_biases": ("linear_bias_attrs", linear_bias_attrs, [embed_dim], True, None),
            "ffn_ln_scales": ("ffn_ln_scale_attrs", ffn_ln_scale_attrs, [embed_dim], False, one),
            "ffn_ln_biases": ("ffn_ln_bias_attrs", ffn_ln_bias_attrs, [embed_dim], True, None),
            "ffn1_weights": ("ffn1_weight_attrs", ffn1_weight_attrs, [embed_dim, ffn], False, None),
            "ffn1_biases": ("ffn1_bias_attrs", ffn1_bias_attrs, [ffn], True, None),
            "ffn2_weights": ("ffn2_weight_attrs", ffn2_weight_attrs, [ffn, embed_dim], False, None),
            "ffn2_biases": ("ffn2_bias_attrs", ffn2_bias_attrs, [embed_dim], True, None),
        }
        for attr_arg, attrs, *_ in specs.values():
            if isinstance(attrs, (list, tuple)) and len(attrs) != num_layers:
                raise ValueError(f"{who}: argument '{attr_arg}' expected one attribute per layer ({num_layers}), "
                                 f"got a list of {len(attrs)}")
        for arg in self._LISTS:
            setattr(self, arg, [])  # plain lists, as Paddle's layer keeps them
        for i in range(num_layers):
            for arg, (_, attrs, shape, is_bias, init) in specs.items():
                attr = attrs[i] if isinstance(attrs, (list, tuple)) else attrs
                param = self.create_parameter(shape, attr=attr, is_bias=is_bias, default_initializer=init)
                getattr(self, arg).append(param)
                if param is not None:
                    self.add_parameter(f"{arg}_{i}", param)

    def forward(self, src, attn_mask=None, caches=None, pre_caches=None, rotary_embs=None, rotary_emb_dims=0,
                seq_lens=None, time_step=None):
        """The layers on ``src`` ``[batch, seq_len, embed_dim]`` (see
        ``fused_multi_transformer``); with ``caches`` (one ``[2, batch,
        num_heads, max_seq_len, head_dim]`` per layer) returns ``(output,
        caches)``, the caches updated in place."""
        who = f"FusedMultiTransformer({self.full_name()})"
        if attn_mask is not None:
            attn_mask = _convert_attention_mask(who, attn_mask, src.dtype)
        lists = [getattr(self, arg) for arg in self._LISTS]
        return IF.fused_multi_transformer(
            src, *lists, pre_layer_norm=self.normalize_before, epsilon=self._epsilon, cache_kvs=caches,
            pre_caches=pre_caches, seq_lens=seq_lens, rotary_embs=rotary_embs, time_step=time_step,
            attn_mask=attn_mask, dropout_rate=self.dropout_rate, rotary_emb_dims=rotary_emb_dims,
            activation=self.activation, training=self.training, mode="upscale_in_train", trans_qkvw=self._trans_qkvw,
            ring_id=self._ring_id)

    def extra_repr(self) -> str:
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
                f"dim_feedforward={self._dim_feedforward}, num_layers={len(self.qkv_weights)}, "
                f"dropout_rate={self.dropout_rate}, activation={self.activation}, "
                f"normalize_before={self.normalize_before}, epsilon={self._epsilon}")


class FusedEcMoe(Layer):
    """An expert-choice mixture of experts run by ``fused_ec_moe``: per expert a
    feed-forward network ``bmm_weight0`` ``[num_experts, hidden_size,
    inter_size]``, ``bmm_bias0`` ``[num_experts, 1, inter_size]``, ``bmm_weight1``
    ``[num_experts, inter_size, hidden_size]``, ``bmm_bias1`` ``[num_experts, 1,
    hidden_size]`` (Paddle's names and shapes); ``act_type`` 'gelu' or 'relu'.

    >>> moe = eager.incubate.nn.FusedEcMoe(4, 8, 2, act_type="relu")
    >>> moe(eager.ones([1, 16, 4]), eager.ones([1, 16, 2])).shape
    [1, 16, 4]
    """

    def __init__(self, hidden_size, inter_size, num_experts, act_type, weight_attr=None, bias_attr=None):
        super().__init__()
        who = "FusedEcMoe"
        hidden_size = check_positive_int(who, "hidden_size", hidden_size, ValueError)
        inter_size = check_positive_int(who, "inter_size", inter_size, ValueError)
        num_experts = check_positive_int(who, "num_experts", num_experts, ValueError)
        if not (isinstance(act_type, str) and act_type in ("gelu", "relu")):
            # Paddle raises NotImplementedError ("Currently only support `gelu`, `relu`")
            raise NotImplementedError(f"{who}: argument 'act_type' expected 'gelu' or 'relu', got {act_type!r}")
        self.bmm_weight0 = self.create_parameter([num_experts, hidden_size, inter_size], attr=weight_attr,
                                                 is_bias=False)
        self.bmm_bias0 = self.create_parameter([num_experts, 1, inter_size], attr=bias_attr, is_bias=True)
        self.bmm_weight1 = self.create_parameter([num_experts, inter_size, hidden_size], attr=weight_attr,
                                                 is_bias=False)
        self.bmm_bias1 = self.create_parameter([num_experts, 1, hidden_size], attr=bias_attr, is_bias=True)
        self.act_type = act_type

    def forward(self, x, gate):
        """x ``[batch, seq_len, hidden_size]``, gate ``[batch, seq_len, num_experts]`` (logits)."""
        return IF.fused_ec_moe(x, gate, self.bmm_weight0, self.bmm_bias0, self.bmm_weight1, self.bmm_bias1,
                               self.act_type)


__all__ = ["FusedBiasDropoutResidualLayerNorm", "FusedDropoutAdd", "FusedEcMoe", "FusedFeedForward", "FusedLinear",
           "FusedMultiHeadAttention", "FusedMultiTransformer", "FusedTransformerEncoderLayer"]

# Paddle's file-named modules of this package (see the docstring), loaded on first use.
_PADDLE_FILES = frozenset(module.name for module in pkgutil.iter_modules(__path__))


def __getattr__(name):
    if name in _PADDLE_FILES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'eager.incubate.nn.layer' has no attribute {name!r}")
