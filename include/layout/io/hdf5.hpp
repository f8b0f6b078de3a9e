/// \file io/hdf5.hpp
/// Particles to HDF5 and back, one dataset per leaf named by its path, in the openPMD 1.1.0
/// particle-species structure, from and into any layout. Link layout::hdf5 (HDF5's C API).
///
///     struct Vec3 { float x, y, z; };
///     struct P { Vec3 pos; Vec3 vel; float mass; std::uint64_t id; };
///     layout::aosoa<P, 32> p(n);
///     layout::hdf5::handle f = layout::hdf5::create_file("out.h5");
///     layout::hdf5::write(f, p, {.iteration = 100, .species = "electrons"});
///         // /data/100/particles/electrons/pos/x, .../pos/y, .../pos/z, .../vel/x, ...,
///         // /data/100/particles/electrons/mass (a scalar record), .../id
///     layout::hdf5::write(f, p.select<&P::pos, &P::id>(), {.iteration = 200, .species = "e"});
///     layout::soa_vector<P> back;
///     layout::hdf5::read(f, 100, "electrons", back);   // any layout; bit-exact
///     layout::cuda::aos_vector<P> dev(p, stream);      // device memory (nvcc), on a stream
///     layout::hdf5::write(f, dev, {.iteration = 300});  // staged through the host on stream
///     layout::hdf5::read(f, 300, "particles", dev);     // likewise; ordered on dev's stream
///
/// Each leaf "pos.x" is record "pos", component "x" (a group of datasets); a leaf with no
/// component ("mass") is a scalar record, a dataset. Deeper paths keep the rest as the
/// component's name: "pair[1].x" is record "pair", component "[1].x"; "vel[2]", "vel/[2]".
/// Attributes: openPMD's root ones (openPMD, openPMDextension, basePath, particlesPath,
/// iterationEncoding, iterationFormat), the iteration's (time, dt, timeUnitSI), each record's
/// (unitDimension, timeOffset) and each component's (unitSI), from write_options.
///
/// read() checks every leaf of the element type against the file before it changes anything:
/// a missing dataset, another type of element (class, size, sign) or another length than the
/// other datasets throws layout::hdf5::error naming the leaf and the dataset; the container is
/// left as it was (the data goes to a new container, moved in at the end). Datasets the type
/// does not have are ignored. Values are not converted: unitSI is written, not applied.
///
/// Device memory goes through host memory, ordered on a stream, because HDF5 reads and writes
/// host memory only. A device container is staged on its own stream: write() copies it into a
/// host SoA container (converted on the GPU; the copy waits for that stream alone, so work
/// queued on it, on a cudaStreamNonBlocking stream too, is in the file); read() reads the file
/// into a host SoA container (straight into its columns) and assigns it, one copy on the
/// container's stream that the GPU converts, so later work on that stream sees the elements. A
/// view or a selection of device memory knows no stream: it is staged on write_options::stream
/// (the default stream unless given; only its chosen fields cross). Pinned and managed
/// containers are written by the host from where they are: finish the device work on them
/// first, as before any host access. Serial HDF5: MPI ranks write one file each (or one group
/// each, passing a group for the file).
///
/// The parts: hdf5/handle.hpp (handles, errors), hdf5/types.hpp (leaf types), hdf5/groups.hpp
/// (attributes, groups), hdf5/transpose.hpp (leaves to buffers and back), hdf5/options.hpp,
/// hdf5/write.hpp, hdf5/read.hpp.
#pragma once

#include "hdf5/handle.hpp"
#include "hdf5/options.hpp"
#include "hdf5/read.hpp"
#include "hdf5/write.hpp"
