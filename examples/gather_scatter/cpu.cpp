// Sorting particles by cell, per layout, on the CPU: the host path of the gather_scatter example
// (see common.hpp). Usage: gather_scatter_cpu [particles] [cells per axis] [repetitions]
#include "common.hpp"

int main(int argc, char** argv) { return gs::run_cpu(gs::parse(argc, argv, gs::cpu_defaults)); }
