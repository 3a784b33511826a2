"""The maps the Python tests run over, for any locale count and rank 1-3."""

import numpy as np

import dmap


def _cuts(n, parts):
    return [round(n * k / parts) for k in range(1, parts)]


def my_unstructured_indices(shape, scatter=7):
    """This locale's list for an Unstructured map: a scattered one-to-one cover of `shape`
    (index with row-major order o goes to locale (o * scatter) % p), in a shuffled order."""
    p, me = dmap.num_locales(), dmap.here()
    orders = np.arange(int(np.prod(shape)))
    mine = orders[(orders * scatter) % p == me][::-1]  # stored backwards: storage order is the list's
    idx = np.stack(np.unravel_index(mine, shape), axis=1).astype(np.int64)
    return idx[:, 0] if len(shape) == 1 else idx


def maps(shape):
    """name -> map for a domain of `shape` (0-based bounds)."""
    n = len(shape)
    p = dmap.num_locales()
    grid_first = tuple([p] + [1] * (n - 1))
    out = {
        "block": dmap.Block(),
        "block_F": dmap.Block(order="F"),
        "cyclic": dmap.Cyclic(),
        "blockcyclic": dmap.BlockCyclic(tuple([2, 3, 2][:n])),
        "stencil": dmap.Stencil(1),
        "stencil_periodic": dmap.Stencil(tuple([1, 2, 1][:n]), periodic=tuple([True, False, True][:n])),
        "irregular": dmap.Irregular([_cuts(shape[0], p)] + [[] for _ in range(n - 1)], grid=grid_first),
        "unstructured": dmap.Unstructured(my_unstructured_indices(shape)),
        "hashed": dmap.Hashed(lambda i, q: ((i if i.ndim == 1 else i @ np.arange(1, n + 1)) * 5 + 1) % q),
        "hashed_default": dmap.Hashed(),
        "subset_last": dmap.Block(grid=tuple([1] * n), locales=[p - 1]),
    }
    return out
