"""TensorKind: how a tensor stores its values, the fourth part of a kernel key."""
import enum


class TensorKind(enum.Enum):
    """DENSE: every element in one array (DenseTensor). SELECTED_ROWS: some rows
    of a tall tensor (SelectedRows), as an embedding's sparse gradient has.
    SPARSE_COO, SPARSE_CSR: the stored entries of a sparse tensor with their
    coordinates (SparseCooTensor) or in compressed rows (SparseCsrTensor)."""

    DENSE = "dense"
    SELECTED_ROWS = "selected_rows"
    SPARSE_COO = "sparse_coo"
    SPARSE_CSR = "sparse_csr"

    def __str__(self) -> str:
        return self.value
