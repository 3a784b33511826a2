"""Element-wise operations that stay distributed: NumPy's ufuncs on dmap arrays (through
``__array_ufunc__``) and the arithmetic operators. Collective: each locale applies the ufunc to
its own blocks (NumPy's compiled loops over views of dmap's storage); operands of another map or
index set are first copied into the result's placement by dmap's redistribution."""

import hashlib
import numbers

import numpy as _np

from . import _dmap
from ._constructors import DTYPES, _agreed, _alive, _dtype, result_domain
from ._reductions import UFUNC_REDUCTIONS


def _is_scalar(x):
    return isinstance(x, (numbers.Number, _np.generic)) and not isinstance(x, (bool, _np.bool_))


def _sample(x):
    """What NumPy sees of an operand to choose the result's dtype: a scalar as it is (NumPy 1.x
    casts by value), an array as an empty array of its dtype."""
    if isinstance(x, _dmap.Array):
        return _np.empty(0, x.dtype)
    if _is_scalar(x):
        return x
    return _np.empty(0, _np.asarray(x).dtype)


def _placed_alike(a, b):
    """True when the whole arrays a and b keep every position on the same locale, in the same
    blocks (the same map over the same indices): their local blocks pair up. Maps that place by
    a directory (Hashed, Unstructured) are always copied."""
    if a.domain is None or b.domain is None:
        return False
    if a.domain.map.kind in ("hashed", "unstructured") or a.domain.map != b.domain.map:
        return False
    return a.domain.bounds == b.domain.bounds


def _check(ufunc, method, inputs, kwargs):
    """The call's shape, dtype and output (agreed by the caller), or an exception."""
    who = f"dmap: numpy.{ufunc.__name__}"
    if method != "__call__":
        raise ValueError(f"{who}.{method} on a dmap array is not supported (only numpy.add, multiply, minimum, maximum, "
                         "logical_or and logical_and reduce: as A.sum, prod, min, max, any and all)")
    if ufunc.nout != 1:
        raise ValueError(f"{who} has {ufunc.nout} outputs; dmap supports ufuncs with one")
    extra = sorted(set(kwargs) - {"out"})
    if extra:
        raise ValueError(f"{who}: the arguments {', '.join(extra)} are not supported on dmap arrays")
    out = kwargs.get("out")
    if out is not None:
        out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
        if not isinstance(out, _dmap.Array):
            raise ValueError(f"{who}: out is {type(out).__name__}; with dmap operands it must be a dmap array")
    shapes = []
    for x in inputs:
        if isinstance(x, _dmap.Array):
            shapes.append(tuple(x.shape))
        elif not _is_scalar(x):
            a = _np.asarray(x)
            if a.dtype.kind not in "biufc":
                raise ValueError(f"{who}: an operand of dtype {a.dtype} is not supported")
            shapes.append(a.shape)
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"{who}: the operands' shapes {shapes} do not broadcast together") from None
    for x in inputs:
        if isinstance(x, _dmap.Array) and tuple(x.shape) != shape:
            raise ValueError(f"{who}: a dmap operand of shape {tuple(x.shape)} would broadcast to {shape}; dmap "
                             "broadcasts NumPy operands and scalars, not dmap arrays")
    samples = [_sample(x) for x in inputs]
    kind = ufunc(*samples).dtype
    if out is not None:
        if tuple(out.shape) != shape:
            raise ValueError(f"{who}: out has shape {tuple(out.shape)}, the result {shape}")
        ufunc(*samples, out=_np.empty(0, out.dtype))  # NumPy's casting rule: same_kind
        kind = out.dtype
    if kind.name not in DTYPES:
        raise ValueError(f"{who} gives {kind} elements; dmap arrays hold {', '.join(DTYPES)}")
    if not shape:
        raise ValueError(f"{who}: the result has no dimension")
    return shape, kind.name, out


def _key(ufunc, inputs, kwargs):
    """What must be the same on every locale: the ufunc, the operands' kinds, scalars and the
    contents of NumPy operands."""
    parts = [ufunc.__name__, "out" in kwargs]
    for x in inputs:
        if isinstance(x, _dmap.Array):
            parts.append(("dmap", tuple(x.shape), x.dtype.name))
        elif _is_scalar(x):
            parts.append(("scalar", repr(x), type(x).__name__))
        else:
            a = _np.ascontiguousarray(x)
            parts.append(("numpy", a.shape, a.dtype.str, hashlib.sha256(a.tobytes()).hexdigest()))
    return repr(parts).encode()


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """``A.__array_ufunc__``: NumPy's ufunc applied to every locale's blocks (collective; the
    arguments are agreed: one that is bad or differs on any locale raises dmap.ArgumentError on
    every locale). The result is a new dmap array over the first whole dmap operand's domain
    (Block when the dmap operands are views), or `out`."""
    who = f"dmap: numpy.{ufunc.__name__}"
    out = kwargs.get("out")
    _alive(*inputs, *(out if isinstance(out, tuple) else (out,)))
    if method == "reduce" and ufunc in UFUNC_REDUCTIONS and len(inputs) == 1 and isinstance(inputs[0], _dmap.Array):
        return getattr(inputs[0], UFUNC_REDUCTIONS[ufunc])(**{"axis": 0, **kwargs})
    shape, kind, out = _agreed(who, lambda: _check(ufunc, method, inputs, kwargs),
                               key=lambda _: _key(ufunc, inputs, kwargs))
    if out is None:
        model = next((x for x in inputs if isinstance(x, _dmap.Array) and x.domain is not None), None)
        domain = model.domain if model is not None else result_domain(shape)
        out = _dmap.Array._scratch(domain, kind)  # every element is written below
    elif out.domain is None:  # a view: computed in an array of its own, then assigned
        result = array_ufunc(self, ufunc, method, *inputs)
        out[...] = result.astype(out.dtype.name) if result.dtype != out.dtype else result
        return out
    operands = []
    for x in inputs:
        if isinstance(x, _dmap.Array):
            if x is not out and not _placed_alike(x, out):
                copy = _dmap.Array._scratch(out.domain, x.dtype.name)
                copy[...] = x  # dmap's redistribution (writes every element)
                x = copy
            operands.append(("blocks", x.local_blocks()))
        elif _is_scalar(x):
            operands.append(("scalar", x))
        else:
            operands.append(("numpy", _np.broadcast_to(_np.asarray(x), shape)))
    targets = out.local_blocks()
    for k, (target, where) in enumerate(zip(targets, out.local_slices())):
        args = [v[k] if how == "blocks" else v[where] if how == "numpy" else v for how, v in operands]
        ufunc(*args, out=target)
    _dmap.barrier()  # every locale's elements are written before any locale reads them
    return out


class _Where:
    """np.where(cond, x, y) in the shape of a one-output ufunc, so that array_ufunc agrees its
    operands and places them: cond is true where it is nonzero (a bool array, dmap's or NumPy's,
    or numbers), the result dtype is NumPy's for x and y."""

    __name__ = "where"
    nout = 1

    def __call__(self, cond, x, y, out=None):
        chosen = _np.where(_np.not_equal(cond, 0), x, y)
        if out is None:
            return chosen
        _np.copyto(out, chosen, casting="same_kind")
        return out


_WHERE = _Where()


def where(cond, x, y, *, out=None):
    """Collective: NumPy's where(cond, x, y) on dmap arrays (any of the three; the others NumPy
    arrays or scalars, broadcast), computed on every locale's blocks: x where cond is nonzero, y
    elsewhere. The result is a new dmap array placed as for a ufunc, or `out`."""
    return array_ufunc(None, _WHERE, "__call__", cond, x, y, **({} if out is None else {"out": out}))


def astype(self, dtype):
    """Collective: a new array over the same domain (Block for a view) with the elements
    converted to `dtype` as NumPy's astype does (unsafe casting: floats truncate into integers)."""
    who = "dmap.Array.astype"
    _alive(self)
    kind = _agreed(who, lambda: _dtype(dtype, who))
    source = self
    if self.domain is None:  # a view: its elements in an array of their own first
        source = _dmap.Array._scratch(result_domain(self.shape), self.dtype.name)
        source[...] = self
    out = _dmap.Array._scratch(source.domain, kind)  # every block is written below
    for target, block in zip(out.local_blocks(), source.local_blocks()):
        target[...] = block.astype(kind)
    _dmap.barrier()
    return out


def _copier(whole_copy):
    def copy(self):
        """Collective: a new array with the same elements: over the same domain, or for a view a
        Block array of the view's shape (as NumPy's copy of a view is an array of its own)."""
        if self.domain is not None:
            return whole_copy(self)
        _alive(self)
        out = _dmap.Array._scratch(result_domain(self.shape), self.dtype.name)
        out[...] = self  # every element is written
        return out

    return copy


def _operator(ufunc, reflected=False):
    def binary(self, other):
        return ufunc(other, self) if reflected else ufunc(self, other)

    return binary


def _in_place(ufunc):
    def binary(self, other):
        return ufunc(self, other, out=self)

    return binary


def truth(self):
    """``bool(A)``: as NumPy, the truth of the one element of a one-element array; any other
    size raises ValueError (``if A == B`` must say any() or all())."""
    _alive(self)
    if self.size != 1:
        raise ValueError(f"dmap: the truth value of an array of {self.size} elements is ambiguous; "
                         "use A.any() or A.all()")
    return bool(self[(0,) * self.ndim])


def install(Array):
    """Gives the dmap.Array class NumPy's ufunc protocol, its arithmetic, bitwise, logical and
    comparison operators (comparisons give bool arrays, as NumPy's do), truth and astype."""
    Array.__array_ufunc__ = array_ufunc
    Array.astype = astype
    Array.copy = _copier(Array.copy)
    for name, ufunc in [("add", _np.add), ("sub", _np.subtract), ("mul", _np.multiply), ("truediv", _np.true_divide),
                        ("floordiv", _np.floor_divide), ("mod", _np.remainder), ("pow", _np.power),
                        ("and", _np.bitwise_and), ("or", _np.bitwise_or), ("xor", _np.bitwise_xor),
                        ("lshift", _np.left_shift), ("rshift", _np.right_shift)]:
        setattr(Array, f"__{name}__", _operator(ufunc))
        setattr(Array, f"__r{name}__", _operator(ufunc, reflected=True))
        setattr(Array, f"__i{name}__", _in_place(ufunc))
    # Python tries the reflected comparison itself (a < b, then b > a): no __r*__ forms.
    for name, ufunc in [("eq", _np.equal), ("ne", _np.not_equal), ("lt", _np.less), ("le", _np.less_equal),
                        ("gt", _np.greater), ("ge", _np.greater_equal)]:
        setattr(Array, f"__{name}__", _operator(ufunc))
    Array.__hash__ = None  # as NumPy's arrays: == compares elements, so arrays are no dict keys
    Array.__bool__ = truth
    Array.__neg__ = lambda self: _np.negative(self)
    Array.__pos__ = lambda self: _np.positive(self)
    Array.__abs__ = lambda self: _np.absolute(self)
    Array.__invert__ = lambda self: _np.invert(self)
