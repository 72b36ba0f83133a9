"""Stateless functions for building networks (Paddle's ``paddle.nn.functional``).

Everything here is a call of ops from ops.yaml: convolution, softmax,
log_softmax and the two cross-entropy losses are fused phi kernels (the
softmax ones stable for any magnitude, a -inf logit included), the rest
compose differentiable ops, so gradients and higher-order gradients come from
the ops' own backward rules. Nothing reads an array or waits for the device:
label values are checked inside the kernel. One module per family, as
Paddle's (``activation``, ``loss``, ``conv``, ``pooling``, ``norm``, ...);
``checks`` holds the shared argument checks. Each module lists its functions
in ``__all__``.
"""

from . import activation
from . import adaptive_softmax
from . import attention
from . import common
from . import conv
from . import distance  # Paddle's file name for pairwise_distance (common's) and pdist (eager.pdist)
from . import dropout
from . import dropout as _dropout_module  # `dropout` becomes the function below
from . import extension
from . import flash_attention  # a module, as Paddle's: flash_attention.flash_attention is the function
from . import input
from . import loss
from . import margin_softmax
from . import norm
from . import pooling
from . import rnnt
from . import sparse_attention as _sparse_attention_module  # `sparse_attention` becomes the function below
from . import vision
from .activation import *  # noqa: F401,F403
from .adaptive_softmax import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import pdist  # noqa: F401  (Paddle's F.pdist, outside its __all__ as in Paddle)
from .dropout import *  # noqa: F401,F403
from .extension import *  # noqa: F401,F403
from .input import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .margin_softmax import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnnt import *  # noqa: F401,F403
from .sparse_attention import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403

__all__: list = []
for _module in (
    activation,
    adaptive_softmax,
    attention,
    common,
    conv,
    _dropout_module,
    extension,
    input,
    loss,
    margin_softmax,
    norm,
    pooling,
    rnnt,
    _sparse_attention_module,
    vision,
):
    __all__ += _module.__all__
del _module
