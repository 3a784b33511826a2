"""reshape: A's elements in C order laid out in a new shape (a new array), for arrays and views of
several maps, results over Block and other maps, against NumPy; bad shapes refused everywhere."""

import numpy as np

import dmap
from conftest import check, check_equal, raises_everywhere
from maps import maps


def test_reshape_every_map_and_view():
    x = np.arange(60, dtype=np.float64).reshape(6, 10) * 1.5
    for name, m in maps(x.shape).items():
        A = dmap.Array(dmap.Domain(m, x.shape))
        A[...] = x
        for shape in [(60,), (3, 20), (2, 5, 6), (-1, 4), (5, -1, 2)]:
            got = A.reshape(shape)
            check(got.domain.map == dmap.Block(), f"{name}: the result is over Block")
            check_equal(got.allgather(), x.reshape(shape), f"{name}: reshape{shape}")
        check_equal(A.reshape(4, 15).allgather(), x.reshape(4, 15), f"{name}: reshape(4, 15)")
        view, v = A[1:, ::-3], x[1:, ::-3]
        check_equal(view.reshape(-1).allgather(), v.reshape(-1), f"{name}: a backwards view")
        check_equal(A.T.reshape(12, 5).allgather(), x.T.reshape(12, 5), f"{name}: a transposed view")
        check_equal(np.reshape(A, (10, 6)).allgather(), np.reshape(x, (10, 6)), f"{name}: np.reshape")


def test_reshape_onto_other_maps_dtypes_and_empty():
    y = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    Y = dmap.Array(dmap.Domain(dmap.Cyclic(), y.shape), "int32")
    Y[...] = y
    for mapping in [dmap.Cyclic(), dmap.BlockCyclic(2), dmap.Hashed()]:
        got = Y.reshape((4, 6), map=mapping)
        check(got.dtype == np.int32 and got.domain.map == mapping, f"{mapping}: dtype and map")
        check_equal(got.allgather(), y.reshape(4, 6), f"reshape onto {mapping}")
    z = (np.arange(12) + 1j * np.arange(12)[::-1]).reshape(3, 4)
    Z = dmap.Array(dmap.Domain(dmap.Block(), z.shape), "complex128")
    Z[...] = z
    check_equal(dmap.reshape(Z, (2, 6)).allgather(), z.reshape(2, 6), "complex128, dmap.reshape")
    E = dmap.zeros((0, 5))
    check(E.reshape(5, 0).shape == (5, 0) and E.reshape(-1).shape == (0,), "empty arrays")


def test_bad_shapes_fail_on_every_locale(rank, nlocales):
    A = dmap.zeros((4, 6))
    for bad in [(5, 5), (-1, -1), (-2, 12), (2, "x"), (1, 2, 3, 4), 7.0]:
        raises_everywhere(dmap.ArgumentError, A.reshape, bad)
    raises_everywhere(dmap.ArgumentError, A.reshape, (24,), order="F")
    if nlocales > 1:
        raises_everywhere(dmap.ArgumentError, A.reshape, (24,) if rank == 0 else (6, 4))
    check_equal(A.reshape(24).allgather(), np.zeros(24), "the array works after the errors")
