"""``reshape``: the elements of a dmap array (or view) in C order, laid out in a new shape.

Collective. The result is a new array over Block (or ``map``, by a redistribution from Block):
NumPy returns a view where the strides allow, but a distributed array's elements in a new shape
generally live on other locales, so dmap always copies. Each locale numbers its own elements by their C-order position in
the source, finds the owner of that position in the result, and sends each owner one message with
the positions and values it receives (dmap's exchange); the owners store them. NumPy computes the
positions and the owners, vectorised over each block."""

import math

import numpy as _np

from . import _dmap
from ._constructors import _agreed, _alive, _is_int, _map, result_domain
from ._reductions import _exchange


def _new_shape(shape, size, who):
    if _is_int(shape):
        shape = (shape,)
    try:
        extents = [int(n) if _is_int(n) else None for n in shape]
    except TypeError:
        raise ValueError(f"{who}: shape is {shape!r}; it must be an int or a tuple of ints") from None
    if any(n is None for n in extents):
        raise ValueError(f"{who}: shape {shape!r} holds something that is not an int")
    if not 1 <= len(extents) <= 3:
        raise ValueError(f"{who}: shape {tuple(extents)} has {len(extents)} dimensions; dmap arrays have 1 to 3")
    unknown = [k for k, n in enumerate(extents) if n == -1]
    if len(unknown) > 1 or any(n < -1 for n in extents):
        raise ValueError(f"{who}: shape {tuple(extents)}: extents are >= 0, with at most one -1")
    known = math.prod(n for n in extents if n != -1)
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"{who}: cannot reshape an array of size {size} into shape {tuple(extents)}")
        extents[unknown[0]] = size // known
    if math.prod(extents) != size:
        raise ValueError(f"{who}: cannot reshape an array of size {size} into shape {tuple(extents)}")
    return tuple(extents)


def reshape(A, shape, order="C", *, map=None):  # noqa: A002  (dmap's map keyword)
    """Collective: a new array of `shape` (one extent may be -1) holding A's elements in C order,
    over `map` (Block by default). `order` must be 'C'."""
    who = "dmap.reshape"
    _alive(A)

    def parse():
        if order != "C":
            raise ValueError(f"{who}: order is {order!r}; dmap reshapes in C order only")
        return _new_shape(shape, A.size, who), _map(map, who)

    new_shape, mapping = _agreed(who, parse)
    # The elements go to a Block array, whose owners every locale can compute; another map gets
    # them from there by dmap's redistribution (a map kept in a directory tells owners only
    # through collective lookups).
    out = _dmap.Array._scratch(result_domain(new_shape), A.dtype.name)
    p = _dmap.num_locales()
    # Every locale's pieces of the result (not collective for maps given by formulas); a
    # position's owner is the locale whose piece holds it.
    places = [[tuple(ranges) for ranges in out.domain.local_subdomains(q)] for q in range(p)]
    outgoing = [[] for _ in range(p)]
    for block, slices in zip(A.local_blocks(), A.local_slices()):
        if block.size == 0:
            continue
        positions = _np.zeros(block.shape, _np.int64)
        stride = 1
        for d in reversed(range(A.ndim)):
            s = slices[d]
            along = _np.arange(s.start, s.start + s.step * block.shape[d], s.step, dtype=_np.int64) * stride
            positions += along.reshape((-1,) + (1,) * (A.ndim - 1 - d))
            stride *= A.shape[d]
        positions = positions.ravel()
        values = _np.ascontiguousarray(block).ravel()
        target = _np.unravel_index(positions, new_shape)
        owner = _np.full(positions.size, -1, _np.int64)
        for q in range(p):
            for ranges in places[q]:
                inside = _np.ones(positions.size, bool)
                for d, r in enumerate(ranges):
                    inside &= (target[d] >= r.start) & (target[d] < r.stop) & ((target[d] - r.start) % r.step == 0)
                owner[inside] = q
        for q in range(p):
            mine = owner == q
            if mine.any():  # one pair per source block: a count, the positions, the values
                outgoing[q].append(_np.int64(mine.sum()).tobytes())
                outgoing[q].append(positions[mine].tobytes())
                outgoing[q].append(values[mine].tobytes())
    incoming = _exchange([b"".join(chunks) for chunks in outgoing])
    blocks, where = out.local_blocks(), out.local_slices()
    item = A.dtype.itemsize
    for data in incoming:
        at = 0
        while at < len(data):
            k = int(_np.frombuffer(data, _np.int64, 1, at)[0])
            positions = _np.frombuffer(data, _np.int64, k, at + 8)
            values = _np.frombuffer(data, A.dtype, k, at + 8 + 8 * k)
            at += 8 + k * (8 + item)
            target = _np.unravel_index(positions, new_shape)
            for block, slices in zip(blocks, where):
                inside = _np.ones(k, bool)
                for d, s in enumerate(slices):
                    inside &= (target[d] >= s.start) & (target[d] < s.stop)
                if inside.any():
                    block[tuple((t[inside] - s.start) // s.step for t, s in zip(target, slices))] = values[inside]
    _dmap.barrier()  # every locale's elements are written before any locale reads them
    if mapping == out.domain.map:
        return out
    result = _dmap.Array._scratch(_dmap.Domain(mapping, new_shape), A.dtype.name)
    result[...] = out
    return result


def reshape_method(self, *shape, order="C", map=None):  # noqa: A002
    """``A.reshape(shape)`` or ``A.reshape(*shape)``, as NumPy's (C order only): see reshape."""
    return reshape(self, shape[0] if len(shape) == 1 else shape, order, map=map)
