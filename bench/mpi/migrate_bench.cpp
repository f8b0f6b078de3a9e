// Host migration benchmark (see migrate_bench.hpp): mpirun -np 4 ./migrate_bench --n=1000000
#include "migrate_bench.hpp"

int main(int argc, char** argv) {
    using namespace mpi_bench;
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const options o = parse(argc, argv);
    std::vector<std::vector<int>> steps;
    for (std::uint64_t s = 0; s < 4; ++s)
        steps.push_back(destinations(o.n, o.fraction, rank, size, s));
    std::size_t moved = 0;
    for (int r : steps[0]) moved += r != rank;

    const double raw = median_of_max(raw_alltoallv(o, steps));
    auto none = [](auto&) {};
    auto run_all = [&](auto c) { return median_of_max(library<all_fields>(o, steps, c, none)); };
    const auto init = initial(o.n, rank);
    const double aos = run_all(layout::aos_vector<Particle>(init.begin(), init.end()));
    const double soa = run_all(layout::soa_vector<Particle>(init.begin(), init.end()));
    const double aosoa = run_all(layout::aosoa<Particle, 32>(init.begin(), init.end()));
    layout::soa_vector<Particle> xyz_src(init.begin(), init.end());
    const double soa_xyz = median_of_max(library<xyz>(o, steps, xyz_src, none));

    if (rank == 0) {
        std::printf("migrate_bench: %d ranks, N = %zu per rank, %zu (%.0f%%) leave each rank per "
                    "step, %d steps (median of the slowest rank)\n",
                    size, o.n, moved, o.fraction * 100, o.steps);
        print_row("raw_alltoallv (AoS)", raw, raw, o.n, moved, sizeof(Particle));
        print_row("layout aos", aos, raw, o.n, moved, all_fields::wire_bytes);
        print_row("layout soa", soa, raw, o.n, moved, all_fields::wire_bytes);
        print_row("layout aosoa32", aosoa, raw, o.n, moved, all_fields::wire_bytes);
        print_row("layout soa, x y z only", soa_xyz, raw, o.n, moved, xyz::wire_bytes);
    }
    MPI_Finalize();
}
