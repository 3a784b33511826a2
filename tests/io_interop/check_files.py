"""The Python half of the file interop test (tests/io_interop/files.cpp is the other).

    check_files.py make DIR    NumPy and h5py write the files dmap_io_interop reads
    check_files.py check DIR   numpy.load and h5py read the files dmap_io_interop wrote,
                               checked element for element, with the dtype and shape

Values are value(k, dtype) of each element's row-major position k, as on the C++ side.
Prints "check_files: ok" and exits 0 when every check passed.
"""
import io
import sys

import h5py
import numpy as np

PLANE = (37, 23)
CUBE = (5, 7, 9)
CASES = {  # name: (dtype, shape)
    "f8": (np.float64, PLANE),
    "f4": (np.float32, PLANE),
    "i4": (np.int32, (101,)),
    "i8": (np.int64, CUBE),
    "c16": (np.complex128, PLANE),
}
H5_PATHS = {"f8": "/f8", "f4": "/group/f4", "i4": "/group/i4", "i8": "/group/deeper/i8", "c16": "/c16"}


def expected(dtype, shape):
    k = np.arange(int(np.prod(shape)), dtype=np.int64)
    if dtype == np.complex128:
        v = np.empty(k.size, dtype=np.complex128)  # parts set apart: 1j * -0.0 would make +0.0
        v.real, v.imag = 0.5 * k + 0.25, -1.5 * k
    elif np.issubdtype(dtype, np.floating):
        v = k.astype(dtype) / dtype(8) - dtype(100)
    else:
        v = k * 3 - 1000
    return v.astype(dtype).reshape(shape)


def same(got, want, what):
    if got.dtype != want.dtype or got.shape != want.shape:
        sys.exit(f"check_files: {what}: got {got.dtype} {got.shape}, want {want.dtype} {want.shape}")
    if got.tobytes() != want.tobytes():
        sys.exit(f"check_files: {what}: the elements differ")


def make(d):
    for name, (dtype, shape) in CASES.items():
        np.save(f"{d}/numpy_{name}.npy", expected(dtype, shape))
    with h5py.File(f"{d}/h5py.h5", "w") as f:
        for name, (dtype, shape) in CASES.items():
            f.create_dataset(H5_PATHS[name], data=expected(dtype, shape))
        # chunked and compressed, chunks not aligned with any locale's block, big-endian on disk
        f.create_dataset("/chunked/f8", data=expected(np.float64, PLANE), chunks=(5, 7), compression="gzip",
                         dtype=">f8")
        f["/group"].attrs["step"] = np.int64(7)


def check(d):
    for name, (dtype, shape) in CASES.items():
        same(np.load(f"{d}/dmap_{name}.npy"), expected(dtype, shape), f"dmap_{name}.npy")
        serial = io.BytesIO()  # what a serial numpy.save writes: the same bytes, header included
        np.save(serial, expected(dtype, shape))
        with open(f"{d}/dmap_{name}.npy", "rb") as f:
            if f.read() != serial.getvalue():
                sys.exit(f"check_files: dmap_{name}.npy is not byte for byte what numpy.save writes")
    with h5py.File(f"{d}/dmap.h5", "r") as f:
        for name, (dtype, shape) in CASES.items():
            same(f[H5_PATHS[name]][...], expected(dtype, shape), f"dmap.h5:{H5_PATHS[name]}")
        if int(f["/group"].attrs["step"]) != 7:
            sys.exit("check_files: dmap.h5: attribute step of /group is not 7")
        names = f["/f8"].attrs["dmap_map"]
        names = names.decode() if isinstance(names, bytes) else str(names)
        if not names:
            sys.exit("check_files: dmap.h5: /f8 lacks the map name (attribute dmap_map)")
        if list(f["/f8"].attrs["dmap_first"]) != [0, 0] or list(f["/f8"].attrs["dmap_stride"]) != [1, 1]:
            sys.exit("check_files: dmap.h5: /f8 lacks its index bounds (dmap_first, dmap_stride)")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("make", "check"):
        sys.exit("usage: check_files.py make|check DIR")
    (make if sys.argv[1] == "make" else check)(sys.argv[2])
    print("check_files: ok")
