"""NumPy's functions on dmap arrays (``__array_function__``, dispatched by ``array_function``).

Answered without gathering: the reductions (A's methods), ``np.transpose`` and ``np.reshape``
(A.transpose, A.reshape), the ``*_like`` constructors and ``np.copy`` (new dmap arrays),
``np.clip`` (ufuncs), ``np.where(cond, x, y)`` (element-wise), and the scalars ``np.dot`` /
``np.vdot`` / ``np.inner`` of two vectors, ``np.linalg.norm``, ``np.allclose`` and
``np.array_equal`` (element-wise operations and reductions, the same value on every locale).
Collective. Other NumPy functions, and the cases above that return NotImplemented, run NumPy's
own code on the gathered array (``np.asarray``, refused above dmap.gather_limit())."""

import numpy as _np

from . import _dmap
from ._constructors import empty_like, full_like, ones_like, zeros_like
from ._elementwise import where
from ._reductions import REDUCTION_FUNCTIONS

_INF = float("inf")


def _is_dmap(x):
    return isinstance(x, _dmap.Array)


def _dot(a, b):
    """np.dot / np.inner of two 1-D arrays (at least one a dmap array): sum of a * b."""
    if _np.ndim(a) != 1 or _np.ndim(b) != 1:
        return NotImplemented
    return _np.multiply(a, b).sum()


def _vdot(a, b):
    """np.vdot: the first argument conjugated, both flattened (dmap: 1-D arrays only)."""
    if _np.ndim(a) != 1 or _np.ndim(b) != 1:
        return NotImplemented
    return _np.multiply(_np.conjugate(a) if a.dtype.kind == "c" else a, b).sum()


def _norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002  (NumPy's name)
    """np.linalg.norm over every element (axis None): the 2-norm of a vector or the Frobenius
    norm (ord None or 'fro'), and a vector's 1, inf and -inf norms; other forms (an axis, matrix
    norms, p-norms) are not answered here."""
    if axis is not None or keepdims:
        return NotImplemented
    if (x.ndim == 1 and ord == "fro") or (x.ndim != 1 and ord not in (None, "fro")):
        return NotImplemented  # matrix norms and NumPy's errors: NumPy's code on the gathered array
    magnitude = _np.absolute(x)
    if ord is None or ord == "fro" or ord == 2:
        if x.dtype.kind == "c":
            magnitude = magnitude.astype("float64")
        return _np.sqrt((magnitude * magnitude).sum()).astype(magnitude.dtype if x.dtype.kind == "f" else "float64")
    if ord == 1:
        return magnitude.sum()
    if ord == _INF:
        return magnitude.max()
    if ord == -_INF:
        return magnitude.min()
    return NotImplemented


def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """np.allclose: |a - b| <= atol + rtol * |b| everywhere. Where a difference is NaN (a NaN, or
    infinities), NumPy's own rules decide on the gathered arrays."""
    if _np.shape(a) != _np.shape(b) and _np.ndim(a) and _np.ndim(b):
        return NotImplemented  # broadcasting between arrays: NumPy's rules on the gathered arrays
    with _np.errstate(invalid="ignore"):  # inf - inf: NaN, decided below as NumPy decides
        gap = _np.absolute(_np.subtract(a, b))
        slack = _np.add(_np.multiply(_np.absolute(b), rtol), atol) if _np.ndim(b) else atol + rtol * abs(b)
        worst = _np.subtract(gap, slack).max()
    if _np.isnan(worst):
        return NotImplemented
    return bool(worst <= 0)


def _array_equal(a, b, equal_nan=False):
    """np.array_equal: the same shape and every |a - b| zero (a NaN difference: NumPy's rules)."""
    if _np.shape(a) != _np.shape(b):
        return False
    if _np.size(a) == 0:
        return True
    with _np.errstate(invalid="ignore"):
        worst = _np.absolute(_np.subtract(a, b)).max()
    if _np.isnan(worst):
        return NotImplemented
    return bool(worst == 0)


def _clip(a, a_min=None, a_max=None, out=None):
    """np.clip through the ufuncs maximum and minimum."""
    if a_min is None and a_max is None:
        raise ValueError("dmap: numpy.clip: give a_min, a_max or both")
    result = a if a_min is None else _np.maximum(a, a_min)
    if a_max is not None:
        result = _np.minimum(result, a_max, out=out) if out is not None else _np.minimum(result, a_max)
    elif out is not None:
        out[...] = result
        result = out
    return result


def _where(condition, *xy):
    """np.where(cond, x, y) (the one-argument form, positions of the nonzero elements, is left to
    NumPy's code)."""
    if len(xy) != 2:
        return NotImplemented
    return where(condition, *xy)


def _transpose(a, axes=None):
    """np.transpose(a, axes): A.transpose (a view)."""
    return a.transpose(axes) if _is_dmap(a) else NotImplemented


def _reshape(a, newshape, order="C"):
    """np.reshape(a, newshape, order): A.reshape (a copy)."""
    return a.reshape(newshape, order=order) if _is_dmap(a) else NotImplemented


FUNCTIONS = {
    _np.transpose: _transpose,
    _np.reshape: _reshape,
    _np.where: _where,
    _np.empty_like: lambda a, dtype=None, *, map=None: empty_like(a, dtype, map=map),  # noqa: A002
    _np.zeros_like: lambda a, dtype=None, *, map=None: zeros_like(a, dtype, map=map),  # noqa: A002
    _np.ones_like: lambda a, dtype=None, *, map=None: ones_like(a, dtype, map=map),  # noqa: A002
    _np.full_like: lambda a, fill_value, dtype=None, *, map=None: full_like(a, fill_value, dtype, map=map),  # noqa: A002
    _np.copy: lambda a: a.copy() if _is_dmap(a) else NotImplemented,
    _np.dot: _dot,
    _np.inner: _dot,
    _np.vdot: _vdot,
    _np.linalg.norm: _norm,
    _np.allclose: _allclose,
    _np.array_equal: _array_equal,
    _np.clip: _clip,
}


def array_function(self, func, types, args, kwargs):
    """``A.__array_function__``: NumPy's reductions (np.sum, np.mean, ...) as A's methods, and the
    functions above; any other NumPy function (or one above that leaves the case to NumPy) runs
    NumPy's own code, which converts dmap arrays as np.asarray does (an allgather, refused above
    dmap.gather_limit())."""
    name = REDUCTION_FUNCTIONS.get(func)
    if name is not None and args and _is_dmap(args[0]):
        return getattr(args[0], name)(*args[1:], **kwargs)
    answer = FUNCTIONS.get(func)
    if answer is not None:
        result = answer(*args, **kwargs)
        if result is not NotImplemented:
            return result
    implementation = getattr(func, "_implementation", None)
    if implementation is None:
        return NotImplemented
    return implementation(*args, **kwargs)
