"""Neural-network building blocks (Paddle 2.x's ``paddle.nn``): Layer, Parameter,
layers by family (one module each, listing its layers in ``__all__``),
initializers and ``eager.nn.functional``."""
from . import functional, initializer, utils
from . import activation
from . import adaptive_softmax
from . import clip
from . import common
from . import container
from . import conv
from . import decode
from . import dropout
from . import embedding
from . import layer
from . import layers
from . import loss
from . import norm
from . import pooling
from . import rnn
from . import sync_batch_norm
from . import transformer
from . import vision
from .activation import *  # noqa: F401,F403
from .adaptive_softmax import *  # noqa: F401,F403
from .clip import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .decode import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .layer import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .sync_batch_norm import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
from .initializer import seed
from .utils import spectral_norm  # noqa: F401  (Paddle 2.6 also exports it as paddle.nn.spectral_norm)
from . import quant  # noqa: E402  (Paddle's paddle.nn.quant; imports the layers above)

__all__: list = ["functional", "initializer", "seed", "utils"]
for _module in (
    activation,
    adaptive_softmax,
    clip,
    common,
    container,
    conv,
    decode,
    dropout,
    embedding,
    layer,
    layers,
    loss,
    norm,
    pooling,
    rnn,
    sync_batch_norm,
    transformer,
    vision,
):
    __all__ += _module.__all__
del _module
