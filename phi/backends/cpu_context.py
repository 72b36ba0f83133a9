"""CPUContext: kernels on the host compute with NumPy."""
import numpy as np

from ..common.place import CPUPlace


class CPUContext:
    """The device context of CPU kernels: the array module (kernels allocate through it)."""

    xp = np
    place = CPUPlace()
    check_values = True  # reading host memory costs nothing: kernels always check values
    # ``ctx.matmul(a, b, out=None)``: the matrix product a kernel takes through its context,
    # so that the GPU's can call cuBLAS directly (gpu_context.py); here NumPy's own.
    matmul = np.matmul

    @staticmethod
    def column_sums(a, out=None):
        """``a.sum(axis=0)`` of a 2-D matrix, into ``out`` when given."""
        return np.add.reduce(a, 0, None, out)

    def to_host(self, array):
        return array

    def from_host(self, array):
        return array

    def __repr__(self):
        return "CPUContext()"


CPU_CONTEXT = CPUContext()
