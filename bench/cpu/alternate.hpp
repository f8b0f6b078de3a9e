/// \file bench/cpu/alternate.hpp
/// Two variants timed in alternation (a, b, b, a, ...) after one warm-up run of each, so that
/// slow phases of a shared machine hit both runs of a pair and cancel: the median of the ratios
/// a/b of adjacent runs, and each variant's median time. cpu_ratios and cpu_split_blocks use it.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace cpu_bench {

inline double now_us() {
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct pair_timing {
    double a_us, b_us, ratio;
};

template <class A, class B>
pair_timing alternate(A&& a, B&& b, int reps) {
    a(); // warm-up: pages, caches, OpenMP threads
    b();
    std::vector<double> ta, tb, ratio;
    for (int r = 0; r < reps; ++r) {
        for (int k = 0; k < 2; ++k) {
            const bool a_turn = (r + k) % 2 == 0; // alternate which goes first
            const double t0 = now_us();
            if (a_turn)
                a();
            else
                b();
            (a_turn ? ta : tb).push_back(now_us() - t0);
        }
        ratio.push_back(ta.back() / tb.back());
    }
    return {median(ta), median(tb), median(ratio)};
}

} // namespace cpu_bench
