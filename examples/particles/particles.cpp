// particles.cpp: the particles example on the CPU. The kernels of kernels.hpp run under aos, soa
// and aosoa<32> through the library, next to hand-written loops; each is verified against a
// double-precision reference, then timed; one table compares them.
//
//   particles_cpu [--n 8388608] [--reps 10] [--kernels drift,wide_drift,one_field,most_fields]
#include "cpu_driver.hpp"

int main(int argc, char** argv) { return particles::run_cpu(particles::parse_options(argc, argv)); }
