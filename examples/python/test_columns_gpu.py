"""CuPy and PyTorch views of device containers' columns, through DLPack, without a copy.

    python3 test_columns_gpu.py <directory of the layout_columns module>

For SoA and AoS device containers (layout::cuda::soa_vector / aos_vector of the 32-byte particle
of test_columns.py), with each consumer found (cupy.from_dlpack, torch.from_dlpack):
- a column is a CUDA array (__dlpack_device__ (2, the current device): kDLCUDA) on that device,
  at the device address C++ gives (no copy), with the column's dtype and stride (4 or 8 bytes
  under SoA, 32 under AoS: DLPack counts strides in values, the consumers turn them into bytes),
  holding what C++ wrote;
- values written through it on the GPU are what C++ then reads from the container, and the
  other fields are untouched (under AoS they sit between the written values); values C++ writes
  into the container afterwards are what the same array then holds;
- the legacy path: a bare "dltensor" capsule from __dlpack__(...), with the protocol's keyword
  arguments, taken by cupy.from_dlpack / torch.utils.dlpack.from_dlpack, which rename it
  "used_dltensor" (their tensor now); __dlpack__(copy=True) and another device are refused;
- lifetime: the last array keeps the container alive, and lets it go when it goes; a capsule
  nobody consumed lets it go too (its destructor calls the tensor's deleter).
Every consumer found is checked, and every failure printed. Exits 0 if all passed (naming any
consumer not found), 1 if any check failed, 77 (skipped, for CTest) without a CUDA-built module,
a GPU, or CuPy and PyTorch both.
"""
import faulthandler
import gc
import sys
import traceback

# A crash in a consumer or the module (a segfault) prints Python's stack instead of nothing.
faulthandler.enable()

SKIP = 77


KDLCUDA = 2


class CuPy:
    name = "CuPy"

    def __init__(self):
        import cupy

        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no CUDA device")
        self.cp = cupy
        self.version = cupy.__version__

    def from_dlpack(self, obj):
        return self.cp.from_dlpack(obj)

    def from_capsule(self, capsule):  # a bare capsule: CuPy's backward-compatible path
        return self.cp.from_dlpack(capsule)

    def device(self):
        return self.cp.cuda.runtime.getDevice()

    def array_device(self, a):
        return a.device.id

    def address(self, a):
        return a.data.ptr

    def strides(self, a):  # in bytes
        return a.strides

    def dtype_name(self, a):
        return str(a.dtype)

    def tolist(self, a):
        return self.cp.asnumpy(a).tolist()

    def assign(self, a, values):
        a[...] = self.cp.asarray(values, dtype=a.dtype)
        self.synchronize()

    def synchronize(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def side_stream(self):  # a current stream other than the default one (context manager)
        return self.cp.cuda.Stream(non_blocking=True)


class Torch:
    name = "PyTorch"

    def __init__(self):
        import torch
        import torch.utils.dlpack

        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device for PyTorch")
        self.torch = torch
        self.version = torch.__version__

    def from_dlpack(self, obj):
        return self.torch.from_dlpack(obj)

    def from_capsule(self, capsule):
        return self.torch.utils.dlpack.from_dlpack(capsule)

    def device(self):
        return self.torch.cuda.current_device()

    def array_device(self, a):
        assert a.device.type == "cuda", a.device
        return a.device.index

    def address(self, a):
        return a.data_ptr()

    def strides(self, a):
        return tuple(s * a.element_size() for s in a.stride())

    def dtype_name(self, a):
        return str(a.dtype).replace("torch.", "")

    def tolist(self, a):
        return a.cpu().tolist()

    def assign(self, a, values):
        a.copy_(self.torch.tensor(values, dtype=a.dtype, device=a.device))
        self.synchronize()

    def synchronize(self):
        self.torch.cuda.synchronize()

    def side_stream(self):
        return self.torch.cuda.stream(self.torch.cuda.Stream())


def consumers():
    found, why = [], []
    for kind in (CuPy, Torch):
        try:
            found.append(kind())
        except Exception as e:  # ImportError, or no device
            why.append("%s: %s" % (kind.name, e))
    return found, why


N = 1000
FIELDS = {  # name: (dtype, stride in bytes under SoA, under AoS, reference value of element i)
    "x": ("float32", 4, 32, lambda i: float(i)),
    "y": ("float32", 4, 32, lambda i: 2.0 * i),
    "z": ("float32", 4, 32, lambda i: -float(i)),
    "vx": ("float32", 4, 32, lambda i: 0.5 * i),
    "energy": ("float64", 8, 32, lambda i: 1.25 * i),
    "id": ("int32", 4, 32, lambda i: i),
}


def reference(name):
    return [float(FIELDS[name][3](i)) for i in range(N)]


def capsule_name(capsule):
    assert type(capsule).__name__ == "PyCapsule", type(capsule)
    return repr(capsule).split('"')[1]  # <capsule object "dltensor" at 0x...>


def check_columns(xp, layout):
    c = lc.device_particles(layout, N)
    assert c.layout == layout and len(c) == N
    c.fill()
    device = xp.device()
    for name, (dtype, soa_stride, aos_stride, ref) in FIELDS.items():
        col = c.column(name)
        assert col.__dlpack_device__() == (KDLCUDA, device), col.__dlpack_device__()
        a = xp.from_dlpack(col)
        where = (xp.name, layout, name)
        stride = soa_stride if layout == "soa" else aos_stride
        assert xp.dtype_name(a) == dtype, (where, xp.dtype_name(a))
        assert tuple(a.shape) == (N,) and xp.strides(a) == (stride,), (where, xp.strides(a))
        assert xp.address(a) == col.address, where  # no copy
        assert xp.array_device(a) == device, (where, xp.array_device(a))
        # C++ wrote, Python reads.
        expected = [ref(i) for i in range(N)]
        assert xp.tolist(a) == expected, (where, xp.tolist(a)[:4])
        # Python writes on the GPU, C++ reads; the other fields stay as C++ wrote them.
        new = [3 * i + 7 for i in range(N)]
        xp.assign(a, new)
        assert c.values(name) == [float(v) for v in new], where
        for other in FIELDS:
            if other != name:
                assert c.values(other) == reference(other), (where, "clobbered", other)
        # C++ writes again, the same array reads it: one memory.
        c.fill()
        xp.synchronize()
        assert xp.tolist(a) == expected, (where, "after C++ wrote again")

    # A consumer on a stream of its own passes that stream to __dlpack__ (the column is ready
    # for any stream: C++ finished the container's work before exporting).
    with xp.side_stream():
        b = xp.from_dlpack(c.column("energy"))
        assert xp.tolist(b) == reference("energy"), (xp.name, layout, "side stream")
    del b

    before = lc.live_containers()
    a = xp.from_dlpack(c.column("id"))
    del c, col  # the last Python handles (a column holds its container too)
    gc.collect()
    assert lc.live_containers() == before, "the last array must keep its container"
    assert xp.tolist(a) == list(range(N))
    del a
    gc.collect()
    assert lc.live_containers() == before - 1, "the last array gone, the container must go"


def check_capsules(xp):
    before = lc.live_containers()
    c = lc.device_particles("aos", N)
    c.fill()
    col = c.column("energy")
    device = xp.device()
    # What a consumer of the protocol passes: its stream (1: the legacy default stream), the
    # newest DLPack it reads, where the data must be, no copy. The answer is DLPack 0.8's
    # unversioned "dltensor", which the protocol allows whatever max_version says.
    capsule = col.__dlpack__(stream=1, max_version=(1, 0), dl_device=(KDLCUDA, device),
                             copy=False)
    assert capsule_name(capsule) == "dltensor", capsule
    a = xp.from_capsule(capsule)
    assert capsule_name(capsule) == "used_dltensor", capsule  # the consumer owns the tensor
    assert xp.address(a) == col.address and xp.strides(a) == (32,), xp.name
    assert xp.tolist(a) == reference("energy")
    for refused in ({"copy": True}, {"dl_device": (1, 0)}):
        try:
            col.__dlpack__(**refused)
        except BufferError:
            pass
        else:
            raise AssertionError("__dlpack__(%s) must raise BufferError" % refused)
    # A capsule nobody consumed: its destructor calls the deleter, which lets the container go.
    unconsumed = col.__dlpack__()
    del c, col, a
    gc.collect()
    assert lc.live_containers() == before + 1, "the unconsumed capsule must keep its container"
    del capsule, unconsumed
    gc.collect()
    assert lc.live_containers() == before, "the capsule gone, the container must go"


# The module first, then the consumers: the order that crashed ml_dtypes (CuPy imports it) and
# PyTorch inside their own pybind11 code while the module exported the standard library's unique
# symbols (see CMakeLists.txt's version script; bench/results/gpu-2026-11-27-e).
if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])
import layout_columns as lc  # noqa: E402

print("python.columns_gpu: layout_columns imported; importing CuPy and PyTorch", flush=True)
found, why = consumers()

if not lc.has_cuda:
    print("SKIP: layout_columns was built without CUDA")
    sys.exit(SKIP)
if not found:
    print("SKIP: no GPU consumer (%s)" % "; ".join(why))
    sys.exit(SKIP)
failed = []
for xp in found:
    for what, check in (("soa", lambda: check_columns(xp, "soa")),
                        ("aos", lambda: check_columns(xp, "aos")),
                        ("capsules", lambda: check_capsules(xp))):
        print("python.columns_gpu: %s %s: %s ..." % (xp.name, xp.version, what), flush=True)
        try:
            check()
        except Exception:
            print("python.columns_gpu: %s %s: %s FAILED" % (xp.name, xp.version, what))
            traceback.print_exc()
            failed.append("%s %s" % (xp.name, what))
    if not any(f.startswith(xp.name + " ") for f in failed):
        print("python.columns_gpu: SoA and AoS device columns through %s %s, no copy: ok"
              % (xp.name, xp.version))
for reason in why:
    print("python.columns_gpu: not checked: %s" % reason)
if failed:
    print("python.columns_gpu: FAILED: %s" % ", ".join(failed))
    sys.exit(1)
