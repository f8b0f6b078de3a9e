/// \file advise/sort_runs.hpp
/// sort_runs(v): sorts a vector that is a few ascending runs, as the advisor's granule lists
/// are, by merging neighbouring runs (any order is sorted right; few runs make it fast).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace layout::advisor::detail {

/// Sorts v, which arrives as ascending runs (one per access: the granules of consecutive
/// elements ascend), by merging neighbouring runs: n log(runs) steps, not n log n. The
/// simulation's granule lists (simulate.hpp) are window x accesses long; sorting them was a
/// third of the advisor's time.
template <class T>
void sort_runs(std::vector<T>& v) {
    const std::size_t n = v.size();
    std::vector<std::size_t> starts; // where each run starts, then n
    for (std::size_t k = 0; k < n; ++k)
        if (k == 0 || v[k] < v[k - 1]) starts.push_back(k);
    if (starts.size() <= 1) return;
    starts.push_back(n);
    std::vector<T> buffer(n);
    T* from = v.data();
    T* to = buffer.data();
    std::vector<std::size_t> merged;
    while (starts.size() > 2) { // more than one run: merge runs 0 and 1, 2 and 3, ...
        merged.clear();
        for (std::size_t r = 0; r + 1 < starts.size(); r += 2) {
            std::size_t i = starts[r], o = i;
            const std::size_t mid = starts[r + 1];
            const std::size_t end = r + 2 < starts.size() ? starts[r + 2] : mid;
            std::size_t j = mid;
            while (i < mid && j < end) to[o++] = from[j] < from[i] ? from[j++] : from[i++];
            while (i < mid) to[o++] = from[i++];
            while (j < end) to[o++] = from[j++];
            merged.push_back(starts[r]);
        }
        merged.push_back(n);
        starts.swap(merged);
        std::swap(from, to);
    }
    if (from != v.data()) std::copy(from, from + n, v.data());
}

} // namespace layout::advisor::detail
