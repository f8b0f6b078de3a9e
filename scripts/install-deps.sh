#!/usr/bin/env bash
# Installs what building and testing layout needs, with apt-get, only if something is missing.
# A requirement counts as met when its Debian package is installed (dpkg -s) or, on machines
# where the tool came from elsewhere, when the command or header is already there.
# Required: CMake, g++, GoogleTest, Boost >= 1.75 (Boost.PFR). Wanted but optional (a failed
# install is only a warning): Ninja, clang (Debian 12's clang is clang 14: scripts/test.sh builds
# the tests with it too, and stops if it is missing unless LAYOUT_CLANG=0), clang's sanitizer and
# libFuzzer runtimes (scripts/fuzz.sh), LLVM's OpenMP runtime libomp with its ThreadSanitizer
# tool Archer (scripts/test.sh's TSan build, which stops without it unless LAYOUT_TSAN=0),
# GoogleMock, Google Benchmark, clang-format 16 (the format.clang_format test, scripts/format.sh).
# Open MPI (libopenmpi-dev, openmpi-bin) is required too: CI runs the mpi tests.
set -euo pipefail

have_pkg() { dpkg -s "$1" >/dev/null 2>&1; }

# present <package> <command-or-absolute-path>
present() {
    local pkg="$1" probe="$2"
    have_pkg "$pkg" && return 0
    if [[ "$probe" == /* ]]; then
        [[ -e "$probe" ]]
    else
        command -v "$probe" >/dev/null 2>&1
    fi
}

# Boost.PFR ships with Boost >= 1.75. Debian 12's libboost-dev is 1.74 (no PFR): prefer 1.81.
boost_present() { [[ -e /usr/include/boost/pfr.hpp ]] || have_pkg libboost1.81-dev; }

# libFuzzer's runtime for clang (-fsanitize=fuzzer): Debian's libclang-rt-<version>-dev, which
# the libclang-rt-dev package pulls in for the default clang.
fuzzer_present() {
    have_pkg libclang-rt-dev && return 0
    compgen -G '/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a' >/dev/null ||
        compgen -G '/usr/lib/clang/*/lib/*/libclang_rt.fuzzer*.a' >/dev/null
}

# libomp for clang -fopenmp: Debian's libomp-<version>-dev, which libomp-dev pulls in for the
# default clang.
libomp_present() {
    have_pkg libomp-dev && return 0
    compgen -G '/usr/lib/llvm-*/lib/libomp.so' >/dev/null
}

required=(cmake:cmake g++:g++ libgtest-dev:/usr/include/gtest/gtest.h)
# MPI (Open MPI): layout::mpi and its tests (label mpi), which CI must run, so it is required.
required+=(libopenmpi-dev:mpicxx openmpi-bin:mpirun)
optional=(ninja-build:ninja clang:clang++ clang-format-16:clang-format-16
          libgmock-dev:/usr/include/gmock/gmock.h
          libbenchmark-dev:/usr/include/benchmark/benchmark.h)
# LAMMPS (lmp): the MD example's validation against it (tests/md, md.lammps.*), which skips
# where lmp is missing; CI installs it.
optional+=(lammps:lmp)
# HDF5 (serial C library and headers): layout::hdf5 and its tests (tests/io), with h5dump and h5py
# as the outside readers those tests check against (they skip where the tools are missing).
optional+=(libhdf5-dev:/usr/include/hdf5/serial/hdf5.h hdf5-tools:h5dump
           python3-h5py:/usr/lib/python3/dist-packages/h5py python3-numpy:/usr/lib/python3/dist-packages/numpy)
# HIP (Debian's hipcc 5.2.3 and the HIP runtime headers): tests/hip (hip.compile.*) compiles a
# HIP kernel over views for AMD GPUs, not registered where hipcc is missing; CI installs it.
optional+=(hipcc:hipcc libamdhip64-dev:/usr/include/hip/hip_runtime.h)
# Python: the pybind11 module of examples/python and its test (python.columns, NumPy through
# DLPack), which are not built, or skip, where these are missing.
optional+=(python3-dev:/usr/bin/python3-config pybind11-dev:/usr/include/pybind11/pybind11.h
           python3-numpy:/usr/lib/python3/dist-packages/numpy/__init__.py)

missing_required=()
missing_optional=()
for entry in "${required[@]}"; do
    present "${entry%%:*}" "${entry#*:}" || missing_required+=("${entry%%:*}")
done
boost_present || missing_required+=(boost)
fuzzer_present || missing_optional+=(libclang-rt-dev)
libomp_present || missing_optional+=(libomp-dev)
for entry in "${optional[@]}"; do
    present "${entry%%:*}" "${entry#*:}" || missing_optional+=("${entry%%:*}")
done

missing=("${missing_required[@]}" "${missing_optional[@]}")
if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

# Returns non-zero if anything goes wrong; the caller decides whether that is fatal.
install_missing() {
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "install-deps: no apt-get here" >&2
        return 1
    fi
    local sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "install-deps: not root and no sudo" >&2
            return 1
        fi
    fi
    echo "install-deps: installing ${missing[*]}" >&2
    "${sudo[@]}" apt-get update -q || return 1
    local packages=() pkg
    for pkg in "${missing[@]}"; do
        if [[ "$pkg" == boost ]]; then
            if apt-cache show libboost1.81-dev >/dev/null 2>&1; then
                packages+=(libboost1.81-dev)
            else
                packages+=(libboost-dev)
            fi
        else
            packages+=("$pkg")
        fi
    done
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${packages[@]}"
}

if ! install_missing; then
    if [[ ${#missing_required[@]} -gt 0 ]]; then
        echo "install-deps: missing ${missing_required[*]}, and they could not be installed" >&2
        exit 1
    fi
    echo "install-deps: warning: could not install ${missing_optional[*]} (optional); going on" >&2
    exit 0
fi

if ! boost_present; then
    echo "install-deps: the installed Boost has no PFR (needs Boost >= 1.75)" >&2
    exit 1
fi
