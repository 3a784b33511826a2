"""dmap.evaluate: an element-wise expression of dmap arrays and numbers computed in one pass over
each locale's blocks. NumPy's operators make a new array per operation (``b + alpha * c``: a
temporary for ``alpha * c``, another for the sum, then a copy into the target); C++'s loops over
zipped arrays make none. evaluate gives Python the second: the expression is compiled once into a
postfix program and run over every block in chunks that stay in the first-level cache (the
compiled part is interop/python/evaluate.cpp), reading each operand once and writing the result
once. Operators stay eager (docs/guide/python.md, "Expressions in one pass", says why)."""

import ast
import sys

import numpy as _np

from . import _dmap
from ._constructors import DTYPES, _agreed, _alive, result_domain
from ._elementwise import _is_scalar, _placed_alike

# Instructions of the compiled program (interop/python/evaluate.cpp).
_ARRAY, _CONSTANT, _ADD, _SUBTRACT, _MULTIPLY, _DIVIDE, _NEGATE = range(7)
_BINARY = {ast.Add: _ADD, ast.Sub: _SUBTRACT, ast.Mult: _MULTIPLY, ast.Div: _DIVIDE}
_UFUNCS = {_ADD: _np.add, _SUBTRACT: _np.subtract, _MULTIPLY: _np.multiply, _DIVIDE: _np.true_divide}
# Element types the compiled pass runs (the others, and mixed types, are evaluated by NumPy per
# block, with NumPy's temporaries).
_COMPILED = ("float64", "float32", "int64", "int32")


def _offset(node):
    """The integer offsets of a subscript `U[-1, 0]` (a tuple), or None when it is not one."""
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    out = []
    for item in items:
        sign = 1
        if isinstance(item, ast.UnaryOp) and isinstance(item.op, (ast.USub, ast.UAdd)):
            sign, item = (-1 if isinstance(item.op, ast.USub) else 1), item.operand
        if not (isinstance(item, ast.Constant) and isinstance(item.value, int) and not isinstance(item.value, bool)):
            return None
        out.append(sign * item.value)
    return tuple(out)


def _compile(expression, scope, who):
    """(postfix code, the dmap operands as (name, offset or None) in operand order, constants)
    of `expression`; ValueError naming what is not supported."""
    if not isinstance(expression, str):
        raise ValueError(f"{who}: the expression is a {type(expression).__name__}; it must be a string")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as e:
        raise ValueError(f"{who}: {expression!r} is not an expression ({e.msg})") from None
    code, arrays, constants = [], [], []

    def visit(node):
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            visit(node.left)
            visit(node.right)
            code.append((_BINARY[type(node.op)], 0))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            visit(node.operand)
            if isinstance(node.op, ast.USub):
                code.append((_NEGATE, 0))
        elif isinstance(node, ast.Constant) and _is_scalar(node.value):
            constants.append(node.value)
            code.append((_CONSTANT, len(constants) - 1))
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and _offset(node.slice) is not None
              and isinstance(scope.get(node.value.id), _dmap.Array)):
            operand = (node.value.id, _offset(node.slice))  # a neighbour: U[i + offset]
            if operand not in arrays:
                arrays.append(operand)
            code.append((_ARRAY, arrays.index(operand)))
        elif isinstance(node, ast.Name):
            if node.id not in scope:
                raise ValueError(f"{who}: the name {node.id!r} in {expression!r} is not defined")
            x = scope[node.id]
            if isinstance(x, _dmap.Array):
                if (node.id, None) not in arrays:
                    arrays.append((node.id, None))
                code.append((_ARRAY, arrays.index((node.id, None))))
            elif _is_scalar(x):
                constants.append(x)
                code.append((_CONSTANT, len(constants) - 1))
            else:
                raise ValueError(f"{who}: {node.id} is a {type(x).__name__}; the operands of an expression are "
                                 "dmap arrays and numbers")
        else:
            raise ValueError(f"{who}: {ast.unparse(node)!r} in {expression!r} is not supported: expressions use "
                             "+ - * /, unary minus, parentheses, numbers, names of dmap arrays and numbers, and "
                             "neighbours U[di, dj] of Stencil arrays (integer offsets)")

    visit(tree.body)
    if not arrays:
        raise ValueError(f"{who}: {expression!r} names no dmap array")
    return code, arrays, constants


def _run_numpy(code, arrays, constants, out=None):
    """The program run by NumPy's ufuncs on `arrays` (the operands' blocks, or empty samples),
    the last operation into `out` when given (NumPy's same_kind casting)."""
    stack = []
    for k, (op, arg) in enumerate(code):
        last = out is not None and k + 1 == len(code)
        if op == _ARRAY:
            stack.append(arrays[arg])
        elif op == _CONSTANT:
            stack.append(constants[arg])
        elif op == _NEGATE:
            stack.append(_np.negative(stack.pop(), **({"out": out} if last else {})))
        else:
            y = stack.pop()
            stack.append(_UFUNCS[op](stack.pop(), y, **({"out": out} if last else {})))
    if out is not None and len(code) == 1:
        _np.copyto(out, stack[0], casting="same_kind")
    return stack[0]


def _check(compiled, expression, scope, out, who):
    """The compiled expression (`_compile`'s answer, or the ValueError it raised), its shape and
    result dtype (agreed by the caller)."""
    if isinstance(compiled, ValueError):
        raise compiled
    code, arrays, constants = compiled
    shapes = {tuple(scope[n].shape) for n, _ in arrays}
    if len(shapes) > 1:
        raise ValueError(f"{who}: the dmap arrays of {expression!r} have the shapes {sorted(shapes)}; they must be equal "
                         "(dmap.evaluate does not broadcast)")
    shape = shapes.pop()
    read_around = [(n, o) for n, o in arrays if o is not None]
    for name, offset in read_around:
        _check_neighbour(scope[name], name, offset, out, who)
        first = scope[read_around[0][0]]
        if out is None and not (scope[name] is first or _placed_alike(scope[name], first)):
            raise ValueError(f"{who}: {name} and {read_around[0][0]} are read at neighbours but placed differently; "
                             "the result can be placed as only one of them")
    kind = _np.asarray(_run_numpy(code, [_np.empty(0, scope[n].dtype) for n, _ in arrays], constants)).dtype
    if out is not None:
        if not isinstance(out, _dmap.Array):
            raise ValueError(f"{who}: out is a {type(out).__name__}; it must be a dmap array")
        if tuple(out.shape) != shape:
            raise ValueError(f"{who}: out has shape {tuple(out.shape)}, the expression {shape}")
        if not _np.can_cast(kind, out.dtype, "same_kind"):
            raise ValueError(f"{who}: the expression gives {kind} elements, which NumPy does not cast to out's "
                             f"{out.dtype} (same_kind)")
        kind = out.dtype
    if kind.name not in DTYPES:
        raise ValueError(f"{who}: the expression gives {kind} elements; dmap arrays hold {', '.join(DTYPES)}")
    return code, arrays, constants, shape, kind.name


def _check_neighbour(x, name, offset, out, who):
    """A neighbour operand `name[offset]`: a whole Stencil array whose ghost cells reach that far,
    placed as the result, which it must not be."""
    if x.domain is None or x.domain.map.kind != "stencil":
        raise ValueError(f"{who}: {name}{list(offset)} reads neighbours; {name} must be a whole array over a Stencil "
                         "map (its ghost cells hold them)")
    if len(offset) != x.ndim:
        raise ValueError(f"{who}: {name}{list(offset)} has {len(offset)} offsets for {x.ndim} dimensions")
    fluff = x.domain.map.fluff
    fluff = (fluff,) * x.ndim if isinstance(fluff, int) else tuple(fluff)
    if any(abs(o) > f for o, f in zip(offset, fluff)):
        raise ValueError(f"{who}: {name}{list(offset)} reaches past {name}'s ghost cells ({list(fluff)} per dimension)")
    if any(r.step != 1 for r in x.domain.bounds):
        raise ValueError(f"{who}: {name}{list(offset)}: neighbours of a strided domain are not supported")
    if out is not None:
        if out is x:
            raise ValueError(f"{who}: out is {name}, whose neighbours the expression reads: they would be overwritten "
                             "before they are read; write into another array")
        if not _placed_alike(x, out):
            raise ValueError(f"{who}: out must be placed as {name} (the same Stencil domain, or map and indices), "
                             f"whose neighbours the expression reads")


def evaluate(expression, out=None, **names):
    """Collective: the element-wise `expression` (a string of + - * /, unary minus, parentheses,
    numbers and names) over dmap arrays of one shape and numbers, computed in one pass over every
    locale's blocks without temporary arrays. Names are looked up in `names`, then in the
    caller's local and global variables (as numexpr does: a lambda or comprehension sees only
    the outer variables its own code names, so pass others by keyword). The result goes into
    `out` (a dmap array or view of the shape; NumPy's same_kind casting), or into a new array
    over the first whole operand's domain (Block when every operand is a view). Operands placed
    otherwise than the result are first copied into its placement. The result's dtype is NumPy's for the same expression. Arguments
    are agreed: a bad one, or an expression that differs on some locale, raises
    dmap.ArgumentError on every locale."""
    who = "dmap.evaluate"
    caller = sys._getframe(1)
    scope = {**caller.f_globals, **caller.f_locals, **names}
    try:  # parsed once; a bad expression is reported by the agreement below
        compiled = _compile(expression, scope, who)
    except ValueError as e:
        compiled = e
    _alive(*([] if isinstance(compiled, ValueError) else [scope[n] for n, _ in compiled[1]]), out)
    code, arrays, constants, shape, kind = _agreed(
        who, lambda: _check(compiled, expression, scope, out, who),
        key=lambda v: repr((v[0], [(n, o, scope[n].dtype.name) for n, o in v[1]], [repr(c) for c in v[2]], v[3],
                            v[4], out is None)).encode())
    operands = [(scope[n], offset) for n, offset in arrays]
    if out is None:  # over the domain of the first operand read at neighbours, else of the first whole one
        model = next((x for x, o in operands if o is not None), None)
        if model is None:
            model = next((x for x, _ in operands if x.domain is not None), None)
        out = _dmap.Array._scratch(model.domain if model is not None else result_domain(shape), kind)
    elif out.domain is None:  # a view: computed in an array of its own, then assigned
        result = _evaluate_into(code, operands, constants, _dmap.Array._scratch(result_domain(shape), kind))
        out[...] = result
        return out
    return _evaluate_into(code, operands, constants, out)


def _neighbours(x, offset):
    """This locale's blocks of x moved by `offset`: views of its frames (x placed as the result)."""
    views = []
    for frame, frame_indices, owned in zip(x.local_frames(), x.local_frame_indices(), x.domain.local_subdomains()):
        views.append(frame[tuple(slice(s.start - f.start + o, s.start - f.start + o + len(s))
                                 for s, f, o in zip(owned, frame_indices, offset))])
    return views


def _rows(block):
    """True when the runner can walk `block`: contiguous along its last dimension."""
    return block.ndim > 0 and (block.shape[-1] <= 1 or block.strides[-1] == block.itemsize)


def _evaluate_into(code, operands, constants, out):
    """Collective: the agreed program into the whole array `out` (see evaluate)."""
    placed, blocks = [], []
    for x, offset in operands:
        if offset is not None:  # placed as out (checked): its neighbours from its frames
            placed.append(x)
            blocks.append(_neighbours(x, offset))
            continue
        if x is not out and not _placed_alike(x, out):
            copy = _dmap.Array._scratch(out.domain, x.dtype.name)
            copy[...] = x  # dmap's redistribution (writes every element)
            x = copy
        placed.append(x)
        blocks.append(x.local_blocks())
    targets = out.local_blocks()
    compiled = out.dtype.name in _COMPILED and all(x.dtype == out.dtype for x in placed) and all(
        _rows(b) for b in targets) and all(_rows(b) for bs in blocks for b in bs)

    def compute():
        if compiled and (out.dtype.kind == "f" or all(op != _DIVIDE for op, _ in code)):
            _dmap._evaluate_blocks(code, list(constants), blocks, targets)
        else:  # NumPy per block (other dtypes, mixed types, column-major): temporaries, a block at a time
            for k, target in enumerate(targets):
                _run_numpy(code, [bs[k] for bs in blocks], constants, out=target)

    # Agreed, not a barrier: every locale's elements are written before any locale reads them,
    # and a failure on one locale (memory, say) is raised on every locale instead of leaving the
    # others waiting.
    _agreed("dmap.evaluate", compute, key=lambda _: b"")
    return out
