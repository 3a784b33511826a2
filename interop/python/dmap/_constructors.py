"""NumPy's array constructors for dmap arrays: empty, zeros, ones, full, arange, linspace and the
``*_like`` forms, each with a ``map`` keyword (Block by default). All are collective: every locale
passes the same arguments (agreed; arguments that are bad or differ on any locale raise
dmap.ArgumentError on every locale), and each locale computes its own elements only."""

import math
import numbers

import numpy as _np

from . import _dmap

#: The element types of dmap arrays (NumPy's names).
DTYPES = ("float64", "float32", "int64", "int32", "complex128", "bool")


def _without_maps(value):
    """`value` with each dmap map replaced by its kind: a map's description may differ between
    locales by design (an Unstructured map's own indices, a Hashed mapper's address), and
    dmap.Domain agrees maps its own way."""
    from . import Map

    if isinstance(value, Map):
        return ("map", value.kind)
    if isinstance(value, (tuple, list)):
        return type(value)(_without_maps(v) for v in value)
    return value


def _agreed(who, parse, key=lambda value: repr(_without_maps(value)).encode()):
    """Collective: ``parse()`` on every locale; its value when it succeeded everywhere with equal
    keys (``key(value)``, bytes; by default the ``repr`` of the value with each map replaced by
    its kind), dmap.ArgumentError on every locale otherwise."""
    try:
        value, error = parse(), None
    except Exception as e:  # noqa: BLE001  (any bad argument: reported on every locale)
        value, error = None, e
    _dmap._agree(who, key(value) if error is None else b"", None if error is None else str(error))
    return value


def _alive(*arrays):
    """Raises dmap.RuntimeError (the same on every locale) when dmap has stopped or one of the
    dmap arrays among `arrays` was released: before an agreement, which would start dmap again."""
    for x in arrays:
        if isinstance(x, _dmap.Array):
            x.local_slices()  # not collective; checks that dmap runs and the array lives


def _is_int(x):
    return isinstance(x, (numbers.Integral, _np.integer)) and not isinstance(x, (bool, _np.bool_))


def _is_real(x):
    return _is_int(x) or isinstance(x, (float, _np.floating))


def _shape(shape, who):
    if _is_int(shape):
        shape = (shape,)
    try:
        extents = tuple(shape)
    except TypeError:
        raise ValueError(f"{who}: shape is {shape!r}; it must be an int or a tuple of ints") from None
    if not all(_is_int(n) for n in extents):
        raise ValueError(f"{who}: shape is {shape!r}; every extent must be an int")
    if not 1 <= len(extents) <= 3:
        raise ValueError(f"{who}: shape {extents} has {len(extents)} dimensions; dmap arrays have 1 to 3")
    if any(n < 0 for n in extents):
        raise ValueError(f"{who}: shape {extents} has a negative extent")
    return tuple(int(n) for n in extents)


def _dtype(dtype, who):
    try:
        name = _np.dtype(dtype).name
    except TypeError:
        raise ValueError(f"{who}: dtype {dtype!r} is not a NumPy dtype") from None
    if name not in DTYPES:
        raise ValueError(f"{who}: dtype {name} is not one of dmap's: {', '.join(DTYPES)}")
    return name


def _map(mapping, who):
    from . import Block, Map

    if mapping is None:
        return Block()
    if not isinstance(mapping, Map):
        raise ValueError(f"{who}: map is {mapping!r}; it must be a dmap map (dmap.Block(), dmap.Cyclic(), ...)")
    return mapping


#: The Block domains of dmap's own results (reductions along axes, reshapes, copies of views), by
#: shape, the newest eight. dmap reuses a dropped array's storage for a new array over the same
#: domain object, so a result over the domain of an earlier result of its shape takes that
#: storage instead of registering new storage with MPI. Every locale makes the same collective
#: calls in the same order, so every locale holds the same domains. Domains cannot change, so
#: results may share one. Emptied by dmap.collect() and dmap.finalize().
_RESULT_DOMAINS = {}


def result_domain(shape):
    """Collective: the Block domain of `shape` for a result of dmap's own (see _RESULT_DOMAINS)."""
    shape = tuple(shape)
    domain = _RESULT_DOMAINS.pop(shape, None)
    if domain is None:
        domain = _dmap.Domain(_map(None, "dmap"), shape)
        if len(_RESULT_DOMAINS) >= 8:
            del _RESULT_DOMAINS[next(iter(_RESULT_DOMAINS))]  # the oldest
    _RESULT_DOMAINS[shape] = domain  # the newest last
    return domain


def forget_result_domains():
    """Drops the result domains (before dmap frees what it pools, or stops)."""
    _RESULT_DOMAINS.clear()


def _new(shape, dtype, mapping):
    return _dmap.Array(_dmap.Domain(mapping, shape), dtype)


def empty(shape, dtype="float64", *, map=None):  # noqa: A002  (NumPy's word is taken by dmap's map)
    """Collective: a new array of `shape` and `dtype` over `map` (Block by default). dmap arrays
    start at zero, so empty is zeros."""
    return zeros(shape, dtype, map=map)


def zeros(shape, dtype="float64", *, map=None):  # noqa: A002
    """Collective: a new array of zeros of `shape` and `dtype` over `map` (Block by default)."""
    who = "dmap.zeros"
    args = _agreed(who, lambda: (_shape(shape, who), _dtype(dtype, who), _map(map, who)))
    return _new(*args)


def ones(shape, dtype="float64", *, map=None):  # noqa: A002
    """Collective: a new array of ones of `shape` and `dtype` over `map` (Block by default)."""
    return full(shape, 1, dtype, map=map)


def full(shape, fill_value, dtype=None, *, map=None):  # noqa: A002
    """Collective: a new array of `shape` over `map` (Block by default) with every element
    `fill_value`; `dtype` None takes NumPy's for the value (bool, int64, float64 or complex128)."""
    who = "dmap.full"

    def parse():
        kind = dtype if dtype is not None else _np.result_type(fill_value)
        return _shape(shape, who), _dtype(kind, who), _map(map, who)

    A = _new(*_agreed(who, parse))
    A.fill(fill_value)  # agreed; converted as dmap converts (docs/guide/python.md)
    return A


def _like(a):
    if isinstance(a, _dmap.Array):
        mapping = a.domain.map if a.domain is not None else None  # a view: Block
        return tuple(a.shape), a.dtype, mapping
    b = _np.asarray(a)
    return b.shape, b.dtype, None


def empty_like(a, dtype=None, *, map=None):  # noqa: A002
    """Collective: empty(a.shape, dtype or a.dtype) over `map`, by default a's map (a whole dmap
    array; Block for a view or a NumPy array)."""
    return zeros_like(a, dtype, map=map)


def zeros_like(a, dtype=None, *, map=None):  # noqa: A002
    """Collective: zeros(a.shape, dtype or a.dtype) over `map` (by default as empty_like)."""
    shape, kind, mapping = _like(a)
    return zeros(shape, kind if dtype is None else dtype, map=mapping if map is None else map)


def ones_like(a, dtype=None, *, map=None):  # noqa: A002
    """Collective: ones(a.shape, dtype or a.dtype) over `map` (by default as empty_like)."""
    return full_like(a, 1, dtype, map=map)


def full_like(a, fill_value, dtype=None, *, map=None):  # noqa: A002
    """Collective: full(a.shape, fill_value, dtype or a.dtype) over `map` (by default as empty_like)."""
    shape, kind, mapping = _like(a)
    return full(shape, fill_value, kind if dtype is None else dtype, map=mapping if map is None else map)


def _positions(sl):
    return _np.arange(sl.start, sl.stop, sl.step, dtype=_np.int64)


def _fill_by_position(A, values_at):
    """Each locale writes its own elements of the 1-D array A: values_at(positions)."""
    for block, where in zip(A.local_blocks(), A.local_slices()):
        block[...] = values_at(_positions(where[0]))
    _dmap.barrier()  # the elements are written everywhere before any locale reads them


def arange(start, stop=None, step=None, dtype=None, *, map=None):  # noqa: A002
    """Collective: NumPy's arange as a 1-D dmap array over `map` (Block by default): values from
    `start` (0 when only one bound is given) by `step` (1) below `stop`, each locale computing its
    own. An integer dtype takes integer bounds and step whose values fit it."""
    who = "dmap.arange"

    def parse():
        lo, hi, by = (0, start, 1 if step is None else step) if stop is None else (start, stop, 1 if step is None else step)
        for name, v in (("start", lo), ("stop", hi), ("step", by)):
            if not _is_real(v):
                raise ValueError(f"{who}: {name} is {v!r}; it must be a real number")
        if by == 0:
            raise ValueError(f"{who}: step is 0; it must not be")
        integral = all(_is_int(v) for v in (lo, hi, by))
        inferred = "int64" if integral else "float64"  # NumPy's for Python numbers, and checked here
        kind = _dtype(dtype if dtype is not None else inferred, who)
        if _np.dtype(kind).kind in "iu":
            if not integral:
                raise ValueError(f"{who}: dtype {kind} takes integer start, stop and step; got {lo!r}, {hi!r}, {by!r}")
            count = len(range(int(lo), int(hi), int(by)))
            info = _np.iinfo(kind)
            if count and not (info.min <= lo <= info.max and info.min <= int(lo) + (count - 1) * int(by) <= info.max):
                raise ValueError(f"{who}: the values from {lo} to {int(lo) + (count - 1) * int(by)} do not fit {kind}")
            return (int(lo), int(by), count, kind, _map(map, who))
        count = len(range(int(lo), int(hi), int(by))) if integral else max(0, math.ceil((hi - lo) / by))
        return (float(lo), float(by), count, kind, _map(map, who))

    first, by, count, kind, mapping = _agreed(who, parse)
    A = _new((count,), kind, mapping)
    t = _np.dtype(kind).type
    if _np.dtype(kind).kind in "iu":
        _fill_by_position(A, lambda i: (first + i * by).astype(kind))
    else:
        # As NumPy fills: start, start + step, then start + i * ((start + step) - start).
        s, second = t(first), t(first) + t(by)
        delta = second - s

        def values(i):
            v = s + i.astype(kind) * delta
            v[i == 1] = second
            return v

        _fill_by_position(A, values)
    return A


def linspace(start, stop, num=50, endpoint=True, dtype=None, *, map=None):  # noqa: A002
    """Collective: NumPy's linspace as a 1-D dmap array over `map` (Block by default): `num`
    evenly spaced values from `start` to `stop` (included when `endpoint`), computed in float64
    (complex128 for complex bounds) and converted to `dtype` as NumPy's astype does."""
    who = "dmap.linspace"

    def parse():
        for name, v in (("start", start), ("stop", stop)):
            if not isinstance(v, (numbers.Number, _np.number)) or isinstance(v, (bool, _np.bool_)):
                raise ValueError(f"{who}: {name} is {v!r}; it must be a number")
        if not _is_int(num) or num < 0:
            raise ValueError(f"{who}: num is {num!r}; it must be an int >= 0")
        compute = _np.result_type(start, stop, float).name
        kind = _dtype(compute if dtype is None else dtype, who)
        return (start, stop, int(num), bool(endpoint), compute, kind, _map(map, who))

    lo, hi, n, end, compute, kind, mapping = _agreed(who, parse)
    A = _new((n,), kind, mapping)
    t = _np.dtype(compute).type
    div = (n - 1) if end else n
    step = (t(hi) - t(lo)) / div if div > 0 else None

    def values(i):
        if step is None:  # num 1 (or 0): NumPy gives start
            v = _np.full(i.shape, t(lo), dtype=compute)
        elif step == 0:
            v = i.astype(compute) / div * (t(hi) - t(lo)) + t(lo)
        else:
            v = i.astype(compute) * step + t(lo)
        if end and n > 1:
            v[i == n - 1] = t(hi)
        return v.astype(kind, copy=False)

    _fill_by_position(A, values)
    return A
