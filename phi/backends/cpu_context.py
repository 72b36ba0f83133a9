"""CPUContext: kernels on the host compute with NumPy."""
import numpy as np

from ..common.place import CPUPlace


class CPUContext:
    """The device context of CPU kernels: the array module (kernels allocate through it)."""

    xp = np
    place = CPUPlace()
    check_values = True  # reading host memory costs nothing: kernels always check values

    def to_host(self, array):
        return array

    def from_host(self, array):
        return array

    def __repr__(self):
        return "CPUContext()"


CPU_CONTEXT = CPUContext()
