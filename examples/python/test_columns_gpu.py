"""CuPy or PyTorch views of device containers' columns, through DLPack, without a copy.

    python3 test_columns_gpu.py <directory of the layout_columns module>

For SoA and AoS device containers (layout::cuda::soa_vector / aos_vector of the 32-byte particle
of test_columns.py): cupy.from_dlpack (else torch.from_dlpack) of a column must be a CUDA array
on the current device, at the device address C++ gives (no copy), with the column's stride,
holding what C++ wrote; values written through it on the GPU must be what C++ then reads from
the container; and it must keep the container alive after the last Python handle is gone.
Exits 77 (skipped, for CTest) without a CUDA-built module, a GPU, or CuPy and PyTorch both.
"""
import gc
import sys

SKIP = 77

if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])
import layout_columns as lc  # noqa: E402

if not lc.has_cuda:
    print("SKIP: layout_columns was built without CUDA")
    sys.exit(SKIP)


class CuPy:
    name = "CuPy"

    def __init__(self):
        import cupy

        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no CUDA device")
        self.cp = cupy

    def from_dlpack(self, obj):
        return self.cp.from_dlpack(obj)

    def device(self):
        return self.cp.cuda.runtime.getDevice()

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
        self.cp.cuda.runtime.deviceSynchronize()


class Torch:
    name = "PyTorch"

    def __init__(self):
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device for PyTorch")
        self.torch = torch

    def from_dlpack(self, obj):
        return self.torch.from_dlpack(obj)

    def device(self):
        return self.torch.cuda.current_device()

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
        self.torch.cuda.synchronize()


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


def check(xp, layout):
    c = lc.device_particles(layout, N)
    c.fill()
    for name, (dtype, soa_stride, aos_stride, ref) in FIELDS.items():
        col = c.column(name)
        assert col.__dlpack_device__() == (2, xp.device()), col.__dlpack_device__()  # kDLCUDA
        a = xp.from_dlpack(col)
        stride = soa_stride if layout == "soa" else aos_stride
        assert xp.dtype_name(a) == dtype, (layout, name, xp.dtype_name(a))
        assert tuple(a.shape) == (N,) and xp.strides(a) == (stride,), (layout, name, xp.strides(a))
        assert xp.address(a) == col.address, (layout, name)  # no copy
        expected = [ref(i) for i in range(N)]
        assert xp.tolist(a) == expected, (layout, name)
        new = [3 * i + 7 for i in range(N)]
        xp.assign(a, new)  # written on the GPU, through the DLPack view
        assert c.values(name) == [float(v) for v in new], (layout, name)

    before = lc.live_containers()
    del c, col
    gc.collect()
    assert lc.live_containers() == before, "the last array must keep its container"
    assert xp.tolist(a) == [3 * i + 7 for i in range(N)]
    del a
    gc.collect()
    assert lc.live_containers() == before - 1, "the last array gone, the container must go"


found, why = consumers()
if not found:
    print("SKIP: no GPU consumer (%s)" % "; ".join(why))
    sys.exit(SKIP)
for xp in found:
    for layout in ("soa", "aos"):
        check(xp, layout)
    print("python.columns_gpu: SoA and AoS device columns through %s, no copy: ok" % xp.name)
