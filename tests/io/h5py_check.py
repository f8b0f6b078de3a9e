#!/usr/bin/env python3
"""h5py's side of tests/io/hdf5_test.cpp: a reader and a writer that layout did not write.

    h5py_check.py check FILE ITERATION SPECIES N   checks what layout::hdf5::write wrote
    h5py_check.py write FILE ITERATION SPECIES N   writes the same particles with h5py

The particles are hdf5_test.cpp's Particle { Vec3 pos; Vec3 vel; float mass; uint64 id;
array<double, 2> w; bool alive; int16 kind; }, element i given by formulas both sides compute
with IEEE arithmetic (expected() below, expected_particle() there), so values compare bit for bit.
Exit status 0 when every check passes; otherwise the first difference is printed, status 1.
"""
import sys

import h5py
import numpy as np


def expected(n):
    i = np.arange(n, dtype=np.int64)
    f = i.astype(np.float32)
    return {
        "pos/x": f * np.float32(0.25),
        "pos/y": -f,
        "pos/z": (i % 7).astype(np.float32),
        "vel/x": f * np.float32(0.5),
        "vel/y": np.float32(1) / (i + 1).astype(np.float32),
        "vel/z": np.zeros(n, dtype=np.float32),
        "mass": np.float32(1) + f / np.float32(1024),
        "id": i.astype(np.uint64) * np.uint64(2654435761) + np.uint64(1 << 40),
        "w/[0]": i.astype(np.float64) / 3.0,
        "w/[1]": i.astype(np.float64) * 1e-3 - 7.0,
        "alive": (i % 3) == 0,
        "kind": ((i * 37) % 65536 - 32768).astype(np.int16),
    }


def fail(message):
    print("h5py_check: " + message)
    sys.exit(1)


def same_bits(got, want):
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def check(path, iteration, species, n):
    with h5py.File(path, "r") as f:
        root = {
            "openPMD": b"1.1.0",
            "basePath": b"/data/%T/",
            "particlesPath": b"particles/",
            "iterationEncoding": b"groupBased",
            "iterationFormat": b"/data/%T/",
        }
        for name, value in root.items():
            if f.attrs.get(name) != value:
                fail(f"root attribute {name} is {f.attrs.get(name)!r}, want {value!r}")
        if int(f.attrs["openPMDextension"]) != 0:
            fail("openPMDextension is not 0")
        it = f[f"data/{iteration}"]
        for name, value in {"time": 2.5, "dt": 0.5, "timeUnitSI": 1e-15}.items():
            if float(it.attrs[name]) != value:
                fail(f"iteration attribute {name} is {it.attrs[name]}, want {value}")
        s = it[f"particles/{species}"]
        want = expected(n)
        found = []
        s.visititems(lambda name, obj: found.append(name) if isinstance(obj, h5py.Dataset) else None)
        if sorted(found) != sorted(want):
            fail(f"datasets {sorted(found)}, want {sorted(want)}")
        for name, values in want.items():
            got = s[name][()]
            if not same_bits(got, values):
                bad = int(np.argmax(got != values)) if got.shape == values.shape else -1
                fail(f"{name}: dtype {got.dtype} shape {got.shape}, want {values.dtype} "
                     f"{values.shape}; first difference at {bad}")
        units = {"pos": ([1, 0, 0, 0, 0, 0, 0], 1e-6), "mass": ([0, 1, 0, 0, 0, 0, 0], 1.0),
                 "id": ([0] * 7, 1.0)}
        for record, (dimension, si) in units.items():
            r = s[record]
            if list(r.attrs["unitDimension"]) != dimension:
                fail(f"{record}: unitDimension {list(r.attrs['unitDimension'])}, want {dimension}")
            if r.attrs["timeOffset"].dtype != np.float32 or r.attrs["timeOffset"] != 0:
                fail(f"{record}: timeOffset {r.attrs['timeOffset']!r}")
            components = [r] if isinstance(r, h5py.Dataset) else [r[c] for c in r]
            for c in components:
                if float(c.attrs["unitSI"]) != si:
                    fail(f"{c.name}: unitSI {c.attrs['unitSI']}, want {si}")
    print(f"h5py_check: {path}: {len(want)} datasets of {n} elements and the attributes match")


def write(path, iteration, species, n):
    with h5py.File(path, "w") as f:
        f.attrs["openPMD"] = np.bytes_("1.1.0")
        f.attrs["openPMDextension"] = np.uint32(0)
        f.attrs["basePath"] = np.bytes_("/data/%T/")
        f.attrs["particlesPath"] = np.bytes_("particles/")
        f.attrs["iterationEncoding"] = np.bytes_("groupBased")
        f.attrs["iterationFormat"] = np.bytes_("/data/%T/")
        it = f.create_group(f"data/{iteration}")
        it.attrs["time"], it.attrs["dt"], it.attrs["timeUnitSI"] = 0.0, 1.0, 1.0
        s = it.create_group(f"particles/{species}")
        for name, values in expected(n).items():
            if name == "pos/y":
                values = values.astype(">f4")   # big-endian: HDF5 swaps it back on reading
            d = s.create_dataset(name, data=values)
            d.attrs["unitSI"] = 1.0
        s.create_dataset("charge", data=np.ones(n))   # a record the struct does not have
        for record in s:
            s[record].attrs["unitDimension"] = np.zeros(7)
            s[record].attrs["timeOffset"] = np.float32(0)


if __name__ == "__main__":
    if len(sys.argv) != 6 or sys.argv[1] not in ("check", "write"):
        fail("usage: h5py_check.py check|write FILE ITERATION SPECIES N")
    mode, path, iteration, species, n = sys.argv[1:]
    (check if mode == "check" else write)(path, int(iteration), species, int(n))
