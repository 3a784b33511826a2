"""Sample arrays the Python tests compute with: NumPy values and dmap arrays holding them."""

import numpy as np

import dmap


def made(values, mapping=dmap.Block()):
    """Collective: a dmap array over `mapping` (Block by default) holding the NumPy `values`."""
    A = dmap.Array(dmap.Domain(mapping, values.shape), values.dtype.name)
    A[...] = values
    return A


def sample_values(dtype, shape, shift=0):
    """Small values of `dtype` in `shape`, from -5 + shift to 5 + shift (complex: a different
    imaginary part per element)."""
    v = (np.arange(np.prod(shape)).reshape(shape) % 11 - 5 + shift).astype(dtype)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * v[::-1]
    return v
