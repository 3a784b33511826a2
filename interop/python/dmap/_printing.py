"""repr of dmap arrays with their values, abbreviated as NumPy abbreviates: not collective (the
shown elements are read one-sided), and never more than NumPy shows."""

import itertools

import numpy as _np


def _shown_positions(n, edge, summarise):
    """The positions of one dimension the condensed copy holds: all of them, or the first and
    last `edge` around one hidden position that NumPy replaces by '...'."""
    if not summarise or n <= 2 * edge:
        return list(range(n))
    return list(range(edge)) + [edge] + list(range(n - edge, n))


def array_repr(A):
    """``dmap.Array([...], dtype=..., map=...)``: the elements as ``numpy.array2string`` prints
    them under the current print options (``threshold``, ``edgeitems``). Above the threshold
    only the elements NumPy shows are read, one-sided (at most (2 edgeitems + 1)^ndim)."""
    shape = tuple(A.shape)
    where = f"map={A.domain.map!r}" if A.domain is not None else "view"
    if A.size == 0:
        return f"dmap.Array([], shape={shape}, dtype={A.dtype.name}, {where})"
    options = _np.get_printoptions()
    edge, summarise = options["edgeitems"], A.size > options["threshold"]
    kept = [_shown_positions(n, edge, summarise) for n in shape]
    shown = _np.empty([len(k) for k in kept], dtype=A.dtype)
    for at in itertools.product(*(range(len(k)) for k in kept)):
        shown[at] = A[tuple(k[p] for k, p in zip(kept, at))]
    prefix = "dmap.Array("
    # A dimension of 2 edge + 1 positions is summarised around its middle one, which is never
    # printed; threshold 0 turns summarising on, as the whole array's size would.
    text = _np.array2string(shown, separator=", ", prefix=prefix, edgeitems=edge,
                            threshold=0 if summarise else options["threshold"])
    return f"{prefix}{text}, dtype={A.dtype.name}, {where})"
