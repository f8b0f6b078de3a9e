"""NumPy views of layout containers' columns, through DLPack, without a copy.

    python3 test_columns.py <directory of the layout_columns module>

For SoA and AoS host containers of a 6-leaf particle (float x, y, z, vx; double energy; int32
id; 32 bytes): numpy.from_dlpack(container.column(name)) must be an array at the address C++
gives for that column (no copy), with the column's stride (4 bytes under SoA, 32 under AoS),
holding what C++ wrote; values written through the array must be what C++ then reads from the
container; and the array must keep the container alive after the last Python handle to it is
gone. Exits 77 (skipped, for CTest) where NumPy or numpy.from_dlpack is missing.
"""
import gc
import sys

SKIP = 77

try:
    import numpy as np
except ImportError:
    print("SKIP: no NumPy for", sys.executable)
    sys.exit(SKIP)
if not hasattr(np, "from_dlpack"):
    print("SKIP: NumPy", np.__version__, "has no from_dlpack (needs NumPy >= 1.22)")
    sys.exit(SKIP)

if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])
import layout_columns as lc  # noqa: E402

N = 37
# name: (dtype, itemsize, stride in bytes under SoA, under AoS, the reference value of element i)
FIELDS = {
    "x": (np.float32, 4, 4, 32, lambda i: float(i)),
    "y": (np.float32, 4, 4, 32, lambda i: 2.0 * i),
    "z": (np.float32, 4, 4, 32, lambda i: -float(i)),
    "vx": (np.float32, 4, 4, 32, lambda i: 0.5 * i),
    "energy": (np.float64, 8, 8, 32, lambda i: 1.25 * i),
    "id": (np.int32, 4, 4, 32, lambda i: i),
}


def writable(a):
    """NumPy < 2.1 marks arrays from DLPack 0.8 capsules read-only (the format has no flag to say
    otherwise); the same memory, through the array interface, without that mark."""
    if a.flags.writeable:
        return a

    class Holder:
        pass

    h = Holder()
    interface = dict(a.__array_interface__)
    interface["data"] = (interface["data"][0], False)
    h.__array_interface__ = interface
    h.keep = a  # the DLPack array, and through it the container, outlives the writable one
    w = np.asarray(h)
    assert w.flags.writeable and w.__array_interface__["data"][0] == interface["data"][0]
    return w


def check_container(layout):
    c = lc.particles(layout, N)
    assert c.layout == layout and len(c) == N
    c.fill()
    for name, (dtype, itemsize, soa_stride, aos_stride, ref) in FIELDS.items():
        col = c.column(name)
        assert col.__dlpack_device__() == (1, 0), col.__dlpack_device__()  # kDLCPU
        a = np.from_dlpack(col)
        stride = soa_stride if layout == "soa" else aos_stride
        assert a.dtype == dtype, (layout, name, a.dtype)
        assert a.shape == (N,) and a.strides == (stride,), (layout, name, a.shape, a.strides)
        # No copy: the array is where C++ says the column is.
        assert a.__array_interface__["data"][0] == col.address, (layout, name)
        # C++ wrote, Python reads.
        expected = [ref(i) for i in range(N)]
        assert a.tolist() == expected, (layout, name, a.tolist()[:4], expected[:4])
        assert c.values(name) == expected
        # Python writes, C++ reads; the other fields stay as they were.
        w = writable(a)
        new = (np.arange(N) * 3 + 7).astype(dtype)
        w[:] = new
        assert c.values(name) == new.tolist(), (layout, name)
        assert a.tolist() == new.tolist()
    for name, (_, _, _, _, ref) in FIELDS.items():
        assert c.values(name) == (np.arange(N) * 3 + 7).tolist(), name


def check_lifetime(layout):
    before = lc.live_containers()
    c = lc.particles(layout, N)
    c.fill()
    energy = np.from_dlpack(c.column("energy"))
    assert lc.live_containers() == before + 1
    del c
    gc.collect()
    # The array holds the capsule's tensor, which holds the container.
    assert lc.live_containers() == before + 1, "the array must keep its container"
    assert energy.tolist() == [1.25 * i for i in range(N)]
    del energy
    gc.collect()
    assert lc.live_containers() == before, "the last array gone, the container must go"

    # A capsule nobody consumed frees its tensor (and lets the container go) by itself.
    c = lc.particles(layout, N)
    capsule = c.column("x").__dlpack__()
    assert type(capsule).__name__ == "PyCapsule"
    del c
    gc.collect()
    assert lc.live_containers() == before + 1
    del capsule
    gc.collect()
    assert lc.live_containers() == before


def check_refusals():
    c = lc.particles("soa", 4)
    try:
        c.column("mass")
    except KeyError:
        pass
    else:
        raise AssertionError("an unknown field must raise KeyError")
    try:
        c.column("x").__dlpack__(copy=True)
    except BufferError:
        pass
    else:
        raise AssertionError("copy=True must raise BufferError: columns are never copied")


for layout in ("soa", "aos"):
    check_container(layout)
    check_lifetime(layout)
check_refusals()
print("python.columns: SoA and AoS columns through numpy.from_dlpack (NumPy %s), no copy: ok"
      % np.__version__)
