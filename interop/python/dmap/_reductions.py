"""Reductions with NumPy's signatures: sum, prod, min, max, mean, var, std, argmin, argmax, any and
all with ``axis`` and ``keepdims``, as methods, as NumPy's functions (``np.sum(A, axis=0)``, through
``__array_function__``) and as ufunc methods (``np.add.reduce(A)``).

Collective; the arguments are agreed (one that is bad or differs on any locale raises
dmap.ArgumentError on every locale). Each locale folds its own blocks with NumPy's compiled
reductions. Over every dimension the locales' partial results are combined on every locale
(sum, prod, min and max of a whole array run in C++); along some dimensions the result is a new
Block array of the kept shape, and each partial result travels to the owners of the result
elements it covers (one message per pair of locales that share result elements, as
dmap::partial_reduce sends) and is folded there. Blocks fold in block order and the owners fold
what they receive in locale order, so a result is the same in every run on a given number of
locales."""

import math
import pickle

import numpy as _np

from . import _dmap
from ._constructors import _agreed, _alive, _dtype, _is_int, result_domain


def _exchange(outgoing):
    """Collective: outgoing[q] (bytes) to locale q; what each locale sent here, by locale."""
    if len(outgoing) != _dmap.num_locales():
        raise AssertionError("dmap: _exchange needs one buffer per locale")
    return _dmap._exchange(outgoing)


def _allgather(value):
    """Collective: `value` (picklable) from every locale, in locale order."""
    data = pickle.dumps(value)
    return [pickle.loads(b) for b in _exchange([data] * _dmap.num_locales())]


# ---------------------------------------------------------------------------- what each kind folds


class _Fold:
    """How one reduction folds: `local` reduces a block along `axes` (keeping them, of extent 1),
    `identity` makes an accumulator of a shape, `combine` folds a partial result into one (the
    earlier operand first), `finish` turns an accumulator into result elements."""

    ordered = False  # min, max, argmin, argmax: no identity; complex elements have no order
    takes_dtype = False

    def __init__(self, name):
        self.name = name

    def bind(self, dtype, requested, shape, axes, ddof):
        """Fixes the input's dtype and shape, the reduced axes and ddof, the result's dtype and
        the accumulator's (`record`: the result's unless a fold keeps more)."""
        self.dtype, self.shape, self.axes, self.ddof = dtype, shape, axes, ddof
        self.result = self.result_dtype(dtype, requested)
        self.record = self.result


class _Monoid(_Fold):
    """sum and prod: a ufunc with an identity, in the result's dtype."""

    takes_dtype = True

    def __init__(self, name, ufunc):
        super().__init__(name)
        self.ufunc = ufunc

    def result_dtype(self, dtype, requested):
        return _np.dtype(requested) if requested is not None else getattr(_np, self.name)(_np.ones(1, dtype)).dtype

    def local(self, block, slices):
        return self.ufunc.reduce(block, axis=self.axes, dtype=self.result, keepdims=True)

    def identity(self, shape):
        return _np.full(shape, self.ufunc.identity, self.result)

    def combine(self, acc, part):
        return self.ufunc(acc, part)

    def finish(self, acc, count):
        return acc


class _Extreme(_Fold):
    """min and max: minimum or maximum (NaN wins, as in NumPy)."""

    ordered = True

    def __init__(self, name, ufunc, low):
        super().__init__(name)
        self.ufunc, self.low = ufunc, low

    def result_dtype(self, dtype, requested):
        return dtype

    def local(self, block, slices):
        return self.ufunc.reduce(block, axis=self.axes, keepdims=True)

    def identity(self, shape):
        if self.result.kind == "b":  # min of bools is all, max is any
            return _np.full(shape, self.low, bool)
        if self.result.kind == "f":
            return _np.full(shape, _np.inf if self.low else -_np.inf, self.result)
        info = _np.iinfo(self.result)
        return _np.full(shape, info.max if self.low else info.min, self.result)

    def combine(self, acc, part):
        return self.ufunc(acc, part)

    def finish(self, acc, count):
        return acc


def _wide(dtype):
    """The accumulating dtype of mean, var and std: complex128 for complex, else float64."""
    return _np.dtype("complex128" if dtype.kind == "c" else "float64")


class _Mean(_Fold):
    """mean: the sum in float64 (complex128), divided by the count of folded elements."""

    takes_dtype = True

    def result_dtype(self, dtype, requested):
        if requested is not None:
            return _np.dtype(requested)
        return _np.dtype("float64") if dtype.kind in "biu" else dtype

    def bind(self, *args):
        super().bind(*args)
        self.record = _wide(self.result if self.result.kind in "fc" else self.dtype)

    def local(self, block, slices):
        return _np.add.reduce(block, axis=self.axes, dtype=self.record, keepdims=True)

    def identity(self, shape):
        return _np.zeros(shape, self.record)

    def combine(self, acc, part):
        return acc + part

    def finish(self, acc, count):
        with _np.errstate(invalid="ignore", divide="ignore"):
            return acc / count


class _Moments(_Fold):
    """var and std: count, mean and sum of squared deviations per block, combined by Chan's
    pairwise update (no cancellation for data far from zero)."""

    def __init__(self, name, root):
        super().__init__(name)
        self.root = root

    def result_dtype(self, dtype, requested):
        return _np.dtype("float32") if dtype == _np.dtype("float32") else _np.dtype("float64")

    def bind(self, *args):
        super().bind(*args)
        self.record = _np.dtype([("n", "float64"), ("mean", _wide(self.dtype)), ("m2", "float64")])

    def local(self, block, slices):
        wide = block.astype(self.record["mean"], copy=False)
        mean = wide.mean(axis=self.axes, keepdims=True)
        d = wide - mean
        m2 = ((d.real * d.real + d.imag * d.imag) if d.dtype.kind == "c" else d * d).sum(axis=self.axes, keepdims=True)
        part = _np.empty(mean.shape, self.record)
        part["n"] = math.prod(block.shape[a] for a in self.axes)
        part["mean"], part["m2"] = mean, m2
        return part

    def identity(self, shape):
        return _np.zeros(shape, self.record)

    def combine(self, acc, part):
        out = _np.empty(_np.broadcast_shapes(acc.shape, part.shape), self.record)
        n = acc["n"] + part["n"]
        with _np.errstate(invalid="ignore", divide="ignore"):
            share = _np.where(n > 0, part["n"] / n, 0.0)
        delta = part["mean"] - acc["mean"]
        out["n"] = n
        out["mean"] = acc["mean"] + delta * share
        out["m2"] = acc["m2"] + part["m2"] + (delta.real ** 2 + delta.imag ** 2 if delta.dtype.kind == "c"
                                              else delta * delta) * acc["n"] * share
        return out

    def finish(self, acc, count):
        with _np.errstate(invalid="ignore", divide="ignore"):
            var = acc["m2"] / _np.maximum(acc["n"] - self.ddof, 0)
        return _np.sqrt(var) if self.root else var


class _Arg(_Fold):
    """argmin and argmax: the value and the position along the axis (or in the flattened array);
    the first position of the extreme wins, and NaN is the extreme of both, as in NumPy."""

    ordered = True

    def __init__(self, name, low):
        super().__init__(name)
        self.low = low

    def result_dtype(self, dtype, requested):
        return _np.dtype("int64")

    def bind(self, dtype, requested, shape, axes, ddof):
        super().bind(dtype, requested, shape, axes, ddof)
        self.flat = len(axes) == len(shape)  # axis=None: positions in the flattened array
        self.record = _np.dtype([("v", dtype), ("i", "int64")])

    def local(self, block, slices):
        pick = _np.argmin if self.low else _np.argmax
        if self.flat:
            k = pick(block)
            where = _np.unravel_index(k, block.shape)
            position = tuple(s.start + w * s.step for s, w in zip(slices, where))
            part = _np.empty((1,) * block.ndim, self.record)
            part["v"], part["i"] = block[where], _np.ravel_multi_index(position, self.shape)
            return part
        (a,) = self.axes
        k = pick(block, axis=a, keepdims=True)
        part = _np.empty(k.shape, self.record)
        part["v"] = _np.take_along_axis(block, k, axis=a)
        part["i"] = slices[a].start + k * slices[a].step
        return part

    def identity(self, shape):
        part = _np.zeros(shape, self.record)
        part["i"] = -1
        return part

    def combine(self, acc, part):
        a, b = acc["v"], part["v"]
        a_nan, b_nan = _np.isnan(a), _np.isnan(b)
        beats = (b < a) if self.low else (b > a)
        ties = (a == b) | (a_nan & b_nan)
        takes = (acc["i"] < 0) | (part["i"] >= 0) & ((b_nan & ~a_nan) | (beats & ~a_nan) | (ties & (part["i"] < acc["i"])))
        return _np.where(takes, part, acc)

    def finish(self, acc, count):
        return acc["i"]


class _Truth(_Fold):
    """any and all: logical or / and of the elements' truth."""

    def __init__(self, name, ufunc):
        super().__init__(name)
        self.ufunc = ufunc

    def result_dtype(self, dtype, requested):
        return _np.dtype("bool")

    def local(self, block, slices):
        return self.ufunc.reduce(block != 0, axis=self.axes, keepdims=True)

    def identity(self, shape):
        return _np.full(shape, self.ufunc.identity, bool)

    def combine(self, acc, part):
        return self.ufunc(acc, part)

    def finish(self, acc, count):
        return acc


_FOLDS = {
    "sum": lambda: _Monoid("sum", _np.add),
    "prod": lambda: _Monoid("prod", _np.multiply),
    "min": lambda: _Extreme("min", _np.minimum, low=True),
    "max": lambda: _Extreme("max", _np.maximum, low=False),
    "mean": lambda: _Mean("mean"),
    "var": lambda: _Moments("var", root=False),
    "std": lambda: _Moments("std", root=True),
    "argmin": lambda: _Arg("argmin", low=True),
    "argmax": lambda: _Arg("argmax", low=False),
    "any": lambda: _Truth("any", _np.logical_or),
    "all": lambda: _Truth("all", _np.logical_and),
}


# ---------------------------------------------------------------------------- arguments


def _axes(axis, ndim, who, single):
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple) and not single else (axis,)
    axes = []
    for a in items:
        if not _is_int(a):
            rule = "None or an int" if single else "None, an int or a tuple of ints"
            raise ValueError(f"{who}: axis is {axis!r}; it must be {rule}")
        if not -ndim <= a < ndim:
            raise ValueError(f"{who}: axis {a} is out of bounds for an array of {ndim} dimensions")
        a = int(a) % ndim
        if a in axes:
            raise ValueError(f"{who}: axis {axis!r} names dimension {a} twice")
        axes.append(a)
    return tuple(sorted(axes))


def _parse(A, fold, axis, dtype, out, keepdims, ddof, who):
    if out is not None:
        raise ValueError(f"{who}: out is not supported; the result is a new array (or a scalar)")
    if not isinstance(keepdims, (bool, _np.bool_)):
        raise ValueError(f"{who}: keepdims is {keepdims!r}; it must be True or False")
    if dtype is not None:
        if not fold.takes_dtype:
            raise ValueError(f"{who}: dtype is not supported (only sum, prod and mean take one)")
        dtype = _dtype(dtype, who)
    if not _is_int(ddof) or ddof < 0:
        raise ValueError(f"{who}: ddof is {ddof!r}; it must be an int >= 0")
    axes = _axes(axis, A.ndim, who, single=fold.name.startswith("arg"))
    if fold.ordered and any(A.shape[a] == 0 for a in axes):
        raise ValueError(f"{who}: a reduced dimension has no elements; {fold.name} of no elements has no value")
    kept = tuple(1 if d in axes else n for d, n in enumerate(A.shape) if keepdims or d not in axes)
    return axes, bool(keepdims), dtype, int(ddof), kept


# ---------------------------------------------------------------------------- the reduction


def _fold_blocks(A, fold, kept_dims):
    """This locale's partial results: {box: accumulator}, a box being the positions the partial
    result covers in the result ((start, step, extent) per result dimension)."""
    parts = {}
    for block, slices in zip(A.local_blocks(), A.local_slices()):
        if block.size == 0:
            continue
        part = fold.local(block, slices)
        box = tuple((0, 1, 1) if d in fold.axes else (slices[d].start, slices[d].step, block.shape[d])
                    for d in kept_dims)
        part = part.reshape(tuple(n for _, _, n in box))
        parts[box] = fold.combine(parts[box], part) if box in parts else part
    return parts


def _meet(box, ranges):
    """The part of `box` inside `ranges` (one unit-step range per dimension): (its box, the
    slices of box's values it is), or None."""
    sub, take = [], []
    for (start, step, n), r in zip(box, ranges):
        first = max(0, -(-(r.start - start) // step))
        end = min(n, -(-(r.stop - start) // step))
        if first >= end:
            return None
        sub.append((start + first * step, step, end - first))
        take.append(slice(first, end))
    return tuple(sub), tuple(take)


def _route(out, parts, record):
    """Collective: each partial result to the locales owning its result elements; what every
    locale sent here, in locale order, as (box, values) pairs."""
    p = _dmap.num_locales()
    outgoing = [[] for _ in range(p)]
    for q in range(p):
        owned = out.domain.local_subdomains(q)
        for box, values in parts.items():
            for ranges in owned:
                piece = _meet(box, ranges)
                if piece is not None:
                    sub, take = piece
                    outgoing[q].append(_np.array(sub, "int64").tobytes())
                    outgoing[q].append(_np.ascontiguousarray(values[take]).tobytes())
    incoming = _exchange([b"".join(chunks) for chunks in outgoing])
    k = out.ndim
    received = []
    for data in incoming:
        at = 0
        while at < len(data):
            box = tuple(tuple(int(v) for v in row) for row in _np.frombuffer(data, "int64", 3 * k, at).reshape(k, 3))
            at += 24 * k
            extents = tuple(n for _, _, n in box)
            count = math.prod(extents)
            received.append((box, _np.frombuffer(data, record, count, at).reshape(extents)))
            at += count * record.itemsize
    return received


def reduce(A, name, axis=None, dtype=None, out=None, keepdims=False, ddof=0, unsupported=None):
    """Collective: the reduction `name` of A along `axis` (see the module's doc)."""
    who = f"dmap.Array.{name}"
    _alive(A)
    fold = _FOLDS[name]()

    def parse():
        if unsupported:
            raise ValueError(f"{who}: the arguments {', '.join(sorted(unsupported))} are not supported")
        return _parse(A, fold, axis, dtype, out, keepdims, ddof, who)

    axes, keep, requested, ddof_, kept = _agreed(who, parse)
    if fold.ordered and A.dtype.kind == "c":  # the dtype is the same on every locale
        raise _dmap.UnsupportedError(f"{who}: complex128 elements have no order; reduce the real or imaginary part")
    if not kept and requested is None and name in ("sum", "prod", "min", "max"):
        return A._reduce(name)  # in C++ over the blocks
    fold.bind(A.dtype, requested, tuple(A.shape), axes, ddof_)
    count = math.prod(A.shape[a] for a in axes)
    kept_dims = [d for d in range(A.ndim) if keep or d not in axes]
    parts = _fold_blocks(A, fold, kept_dims)
    if not kept:  # every dimension: each locale's partial result on every locale
        acc = fold.identity(())
        for part in parts.values():
            acc = fold.combine(acc, part.reshape(()))
        total = fold.identity(())
        for part in _allgather(acc):
            total = fold.combine(total, part)
        return _np.asarray(fold.finish(total, count)).astype(fold.result)[()]
    result = _dmap.Array._scratch(result_domain(kept), fold.result.name)  # every block written below
    blocks, places = result.local_blocks(), result.local_slices()
    accs = [fold.identity(b.shape) for b in blocks]
    for box, values in _route(result, parts, fold.record):
        for k, place in enumerate(places):
            if all(s.start <= start and start + step * (n - 1) < s.stop for s, (start, step, n) in zip(place, box)):
                at = tuple(slice(start - s.start, start - s.start + step * (n - 1) + 1, step)
                           for s, (start, step, n) in zip(place, box))
                accs[k][at] = fold.combine(accs[k][at], values)
                break
    for block, acc in zip(blocks, accs):
        block[...] = fold.finish(acc, count)
    _dmap.barrier()  # every locale's elements are written before any locale reads them
    return result


# ---------------------------------------------------------------------------- the methods


def _method(name, signature):
    """A dmap.Array method with the signature of NumPy's ndarray method `name`."""

    def method(self, *args, **kwargs):
        values = dict(zip(signature, args))
        if len(args) > len(signature):
            values["unsupported"] = {f"positional argument {len(signature) + 1}"}
        for key, value in kwargs.items():
            if key in values:
                values.setdefault("unsupported", set()).add(f"{key} (given twice)")
            values[key] = value
        extra = set(values) - set(signature) - {"unsupported"}
        if extra:
            values.setdefault("unsupported", set()).update(extra)
            for key in extra:
                del values[key]
        return reduce(self, name, **values)

    method.__name__ = name
    method.__doc__ = (f"Collective: NumPy's ndarray.{name}({', '.join(signature)}) on a dmap array: a NumPy "
                      "scalar on every locale over every dimension, else a new Block array of the kept shape.")
    return method


_SIGNATURES = {
    "sum": ("axis", "dtype", "out", "keepdims"),
    "prod": ("axis", "dtype", "out", "keepdims"),
    "min": ("axis", "out", "keepdims"),
    "max": ("axis", "out", "keepdims"),
    "mean": ("axis", "dtype", "out", "keepdims"),
    "var": ("axis", "dtype", "out", "ddof", "keepdims"),
    "std": ("axis", "dtype", "out", "ddof", "keepdims"),
    "argmin": ("axis", "out"),
    "argmax": ("axis", "out"),
    "any": ("axis", "out", "keepdims"),
    "all": ("axis", "out", "keepdims"),
}

#: NumPy's reduction functions, answered by the method of that name (see _functions.py).
REDUCTION_FUNCTIONS = {_np.sum: "sum", _np.prod: "prod", _np.min: "min", _np.amin: "min", _np.max: "max",
                       _np.amax: "max", _np.mean: "mean", _np.var: "var", _np.std: "std",
                       _np.argmin: "argmin", _np.argmax: "argmax", _np.any: "any", _np.all: "all"}

#: ufunc.reduce as a reduction (NumPy's default axis there is 0).
UFUNC_REDUCTIONS = {_np.add: "sum", _np.multiply: "prod", _np.minimum: "min", _np.maximum: "max",
                    _np.logical_or: "any", _np.logical_and: "all"}


def install(Array):
    """Gives dmap.Array the reductions as methods."""
    for name, signature in _SIGNATURES.items():
        setattr(Array, name, _method(name, signature))
