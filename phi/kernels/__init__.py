"""phi kernels. Importing this package registers every kernel with phi.core.KERNELS.

NumPy's floating-point warnings (overflow, divide by zero, invalid value) raised
inside a kernel are not shown: the result is inf or nan, as in Paddle, and
anomaly mode (eager.autograd.detect_anomaly) is where such values are reported.
The filter matches warnings attributed to these modules only, so a user's own
NumPy code still warns.
"""
import warnings

warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"phi\.kernels(\.|$)")
# One module per line, so that adding a group touches one line of its own.
from . import (  # noqa: E402,F401  (after the filter, which the kernel modules rely on)
    accumulation,
    activation,
    attention,
    buffers,
    conv,
    creation,
    elementwise,
    embedding,
    fft,
    fused,
    gather_scatter,
    indexing,
    joining,
    linalg,
    loss,
    manipulation,
    math_binary,
    math_elementary,
    math_unary,
    matmul,
    norm,
    optimizer,
    pooling,
    rearrange,
    reduce_scan,
    reduction,
    rnn,
    sampling,
    search_sort,
    selected_rows,
    sparse,
    vision,
)
