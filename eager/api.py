"""Everything ``import eager`` offers; eager/__init__.py loads it on first use.

The subpackages and names in ``_LAZY_SUBPACKAGES`` and ``_LAZY_NAMES`` are not
imported here but at their first use (this module's ``__getattr__``, and
``eager.__getattr__``, which asks this module): a program that never touches
``eager.text`` or ``eager.Model`` does not pay for loading them.
"""
from importlib import import_module as _import_module

from phi.common import CPUPlace, CUDAPinnedPlace, DataType, GPUPlace, Place

from . import autograd  # noqa: F401
from . import fft  # noqa: F401  (Paddle's paddle.fft)
from . import geometric  # noqa: F401  (Paddle's paddle.geometric)
from . import signal  # noqa: F401  (Paddle's paddle.signal)
from . import amp  # noqa: F401  (Paddle's paddle.amp)
from . import sparse  # noqa: F401  (Paddle's paddle.sparse)
from . import linalg, nn, optimizer  # noqa: F401
from .autograd import enable_grad, grad, is_grad_enabled, no_grad, set_grad_enabled
from .framework import get_default_dtype, get_device, set_default_dtype, set_device, set_printoptions
# Paddle 2.x functions a training script meets: the framework switches, tensor queries and
# inplace helpers, and the functions composed of differentiable ops in eager.composite.
from .framework import disable_static, enable_static, get_flags, in_dynamic_mode, set_flags
from .inplace_shape import flatten_, reshape_, squeeze_, t_, transpose_, unsqueeze_
from .inplace_composed import (addmm_, baddbmm_, cast_, copysign_, equal_, floor_mod_, gcd_, greater_equal_,
                               greater_than_, lcm_, ldexp_, less_equal_, less_than_, logical_and_, logical_or_,
                               logical_xor_, logit_, mod_, multigammaln_, not_equal_, renorm_, sinc_, where_)
from .tensor_queries import (broadcast_shape, increment, index_fill_, is_complex, is_empty,  # noqa: A004
                             is_floating_point, is_integer, is_tensor, numel, rank, shape, tolist)
from .composite.math_unary import deg2rad, frexp, logit, rad2deg, sgn, signbit, sinc, stanh
from .composite.math_unary import (gammaln, gammaln_, isneginf, isposinf, isreal, log_normal, log_normal_,
                                   multigammaln)
from .composite.math_binary import add_n, copysign, gcd, heaviside, lcm, ldexp, logaddexp
from .composite.linalg import addmm, cdist, dist, mm, renorm, tensordot
from .composite.linalg import baddbmm, pdist
from .composite.gather_scatter import (diagonal_scatter, index_fill, index_sample, isin, select_scatter,
                                       slice_scatter, take)
from .composite.gather_scatter import multiplex, shard_index
from .composite.gather_scatter import fill_diagonal_tensor  # noqa: F401  (Paddle's paddle.fill_diagonal_tensor)
from .tensor_queries import fill_diagonal_tensor_  # noqa: F401  (and Tensor.fill_diagonal_tensor_)
from .composite.reduce_scan import cumulative_trapezoid, diff, nanmedian, nanquantile, quantile, trapezoid
from .composite.search_sort import bucketize
from .composite.search_sort import histogramdd
from .composite.rearrange import (atleast_1d, atleast_2d, atleast_3d, block_diag, cartesian_prod, column_stack,
                                  combinations, dsplit, dstack, hsplit, hstack, row_stack, unflatten, unfold,
                                  unique_consecutive, view, view_as, vsplit, vstack)
from .composite.rearrange import crop
from .composite.creation import as_complex, as_real, polar, tril_indices, triu_indices, vander
from .creation import to_tensor
from .nn import ParamAttr  # Paddle's paddle.ParamAttr
from .nn.initializer import get_rng_state, seed, set_rng_state  # Paddle's paddle.seed and its state
from .random import normal  # Paddle's paddle.normal: mean and std are numbers or Tensors
from .generated import forward_api as ops  # every op, backward ops included
from .generated.forward_api import *  # noqa: F401,F403  (the forward ops, listed in its __all__)
from .linalg import einsum  # Paddle's einsum(equation, *operands) over the op's (operands, equation)
from .linalg import eigvalsh  # Paddle's paddle.eigvalsh (also eager.linalg.eigvalsh)
from .generated.forward_api import flip as reverse  # Paddle's paddle.reverse is flip
from .serialization import async_save, clear_async_save_task_queue, load, save  # Paddle's paddle.save / paddle.load (save writes safetensors; load also reads paddle.save's pickles, restricted)
from .tensor import Tensor
from .distributed.parallel import DataParallel  # Paddle's paddle.DataParallel
# Paddle's paddle.is_compiled_with_* (eager.device.build: 'cuda' means a usable CuPy GPU)
from .device import get_cudnn_version  # Paddle's paddle.get_cudnn_version
from .device import (is_compiled_with_cinn, is_compiled_with_cuda, is_compiled_with_custom_device,
                     is_compiled_with_distribute, is_compiled_with_ipu, is_compiled_with_rocm,
                     is_compiled_with_xpu)
# Over the generated ones: they dispatch on y / weight (equal also takes a number y), or take Paddle's argument order.
from .tensor_api import equal, index_add, index_add_, lerp, lerp_, nonzero, pow  # noqa: A004
# ... and Paddle's argument lists: meshgrid(*args), where(condition), unbind(input), scale's act,
# the logical and bitwise functions' out.
from .tensor_api import (bitwise_and, bitwise_left_shift, bitwise_left_shift_, bitwise_not, bitwise_or,  # noqa: A004
                         bitwise_right_shift, bitwise_right_shift_, bitwise_xor, gather, logical_and,
                         logical_not, logical_or, logical_xor, meshgrid, scale, scale_, unbind, where)
from .tensor_api import diag_embed  # Paddle converts an array or list input with assign
from .tensor_api import expand_as  # Paddle reads only y.shape: y may be a NumPy array
from .inplace_composed import logical_not_  # a non-bool x becomes bool, as logical_and_ (Paddle's kernel)
# Paddle's paddle.normal_(x, mean, std), bernoulli_(x, p), cauchy_(x, loc, scale), geometric_(x, probs)
from .tensor_queries import bernoulli_, cauchy_, geometric_, normal_
from .composite.creation import assign  # Paddle's assign(x, output=None): arrays, numbers, in place
from .composite.creation import linspace  # the op, with Paddle's float num (8000.0)
from .parameter import create_parameter  # Paddle's paddle.create_parameter
from .framework_checks import check_shape, disable_signal_handler
from .dtype_info import finfo, iinfo  # Paddle's paddle.finfo / paddle.iinfo
from .batch_reader import batch  # Paddle's paddle.batch (reader of batches)
from . import sysconfig  # noqa: F401  (Paddle's paddle.sysconfig)
from .nn.initializer import LazyGuard, get_cuda_rng_state, set_cuda_rng_state

CUDAPlace = GPUPlace  # Paddle's paddle.CUDAPlace(id)
dtype = DataType  # Paddle's paddle.dtype: isinstance(x.dtype, paddle.dtype)
bool = DataType.BOOL  # noqa: A001  (Paddle's paddle.bool)
int8, uint8, int16 = DataType.INT8, DataType.UINT8, DataType.INT16
int32, int64 = DataType.INT32, DataType.INT64
float16, float32, float64 = DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64
bfloat16 = DataType.BFLOAT16  # needs the optional ml_dtypes package once a tensor is made
complex64, complex128 = DataType.COMPLEX64, DataType.COMPLEX128

# Loaded at first use rather than with the rest: rarely part of a program, and each
# brings much of its own (datasets, audio files, quantization, hub, graph drawing;
# hapi's Model the io, jit, static, metric and vision packages). They stay in
# dir(eager) and eager.api.
_LAZY_SUBPACKAGES = frozenset({"audio", "hub", "incubate", "quantization", "text", "viz"})
_LAZY_NAMES = {  # name -> the module of eager it comes from
    "Model": "hapi.model",  # Paddle's paddle.Model (hapi)
    "flops": "hapi.summary",  # Paddle's paddle.flops
    "summary": "hapi.summary",  # Paddle's paddle.summary
}


def __getattr__(name):
    """A lazily loaded subpackage or name (see ``_LAZY_SUBPACKAGES``), imported now."""
    if name in _LAZY_SUBPACKAGES:
        return _import_module(f"{__package__}.{name}")
    module = _LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_import_module(f"{__package__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    """This module's names, the lazily loaded ones included."""
    return sorted(set(globals()) | _LAZY_SUBPACKAGES | set(_LAZY_NAMES))
