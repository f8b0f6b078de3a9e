/// \file advise/split.hpp
/// The split layout the advisor proposes for a trace (layout::policy::split<First, Second,
/// Keys...>: the leaves the keys name in First, the rest in Second), its geometry for the cost
/// model, and how the user spells it:
///   - a kernel that gathers elements through an index (a neighbour list) gets the leaves it
///     reads of them packed in AoS, one sector per gathered element, and the rest in SoA columns
///     (the MD force kernel: positions AoS, the rest SoA);
///   - otherwise the leaves it touches at all (hot) packed in AoS, the ones it never touches
///     (cold) in SoA, out of the way;
///   - nothing where that is every leaf or none (a split needs leaves in both parts).
///
///     auto s = layout::advisor::propose_split(layout::advisor::trace<Particle>(drift{0.5f}));
///     s->first == {1, 1, 1, 1, 1, 1, 0, 0}                  // x..vz hot, mass and charge cold
///     s->spelling<Particle>()  // "layout::policy::split<layout::policy::aos, layout::policy::soa,
///                              //  0, 1, 2, 3, 4, 5>"  (field indices; names where given)
#pragma once

#include "../detail/leaves.hpp"
#include "../layouts/concept.hpp"
#include "../reflect.hpp"
#include "access.hpp"
#include "geometry.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace layout::advisor {

/// A field of T and its own fields (none for a leaf), by leaf range: what the keys of a split
/// can name (a field index, a member pointer, or layout::path<...> into a nested member).
struct field_node {
    std::size_t first = 0, count = 0; ///< leaves [first, first + count)
    std::vector<field_node> fields;
};

template <class U>
field_node field_tree(std::size_t first = 0) {
    field_node n{first, leaf_count_v<U>, {}};
    if constexpr (!layout::detail::is_leaf_v<U>)
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (n.fields.push_back(field_tree<layout::detail::field_t<U, I>>(
                 first + layout::detail::first_leaf<U>[I])),
             ...);
        }(std::make_index_sequence<field_count_v<U>>{});
    return n;
}

/// How the user names T's fields in a spelling: "Particle" and {"x", "y", ...} give
/// &Particle::x; without names (or with fewer than T's fields), field indices.
struct field_names {
    std::string type;
    std::vector<std::string> fields;
};

/// A split of T's leaves: in_first[l] for leaf l, and the layout of each part.
struct split_choice {
    std::vector<char> in_first;
    detail::part_mapping::kind first = detail::part_mapping::kind::aos;
    detail::part_mapping::kind second = detail::part_mapping::kind::soa;
    std::size_t first_lanes = 0, second_lanes = 0; ///< aosoa parts
    std::string why;                               ///< one line: what the split is for

    /// The keys of the leaves in the first part: whole fields where every leaf of a field is in
    /// it, layout::path<...> into a nested field where only some are.
    template <class T>
    std::vector<std::string> keys(const field_names& names = {}) const {
        std::vector<std::string> out;
        const bool named = !names.type.empty() && names.fields.size() == field_count_v<T>;
        collect(field_tree<T>(), {}, named ? &names : nullptr, out);
        return out;
    }
    /// layout::policy::split<First, Second, keys...>, as the user writes it.
    template <class T>
    std::string spelling(const field_names& names = {}) const {
        std::string s = "layout::policy::split<" + part_spelling(first, first_lanes) + ", " +
                        part_spelling(second, second_lanes);
        for (const auto& k : keys<T>(names)) s += ", " + k;
        return s + ">";
    }

private:
    static std::string part_spelling(detail::part_mapping::kind k, std::size_t lanes) {
        using kind = detail::part_mapping::kind;
        return k == kind::aos   ? "layout::policy::aos"
               : k == kind::soa ? "layout::policy::soa"
                                : "layout::policy::aosoa<" + std::to_string(lanes) + ">";
    }
    void collect(const field_node& n, const std::vector<std::string>& path,
                 const field_names* names, std::vector<std::string>& out) const {
        for (std::size_t f = 0; f < n.fields.size(); ++f) {
            const field_node& c = n.fields[f];
            std::size_t in = 0;
            for (std::size_t l = c.first; l < c.first + c.count; ++l) in += in_first[l] != 0;
            if (in == 0) continue;
            std::vector<std::string> p = path;
            p.push_back(names && path.empty() ? "&" + names->type + "::" + names->fields[f]
                                              : std::to_string(f));
            if (in < c.count) {
                collect(c, p, nullptr, out);
                continue;
            }
            std::string key = p.size() == 1 ? p[0] : "layout::path<";
            for (std::size_t k = 0; p.size() > 1 && k < p.size(); ++k)
                key += (k ? ", " : "") + p[k];
            out.push_back(p.size() == 1 ? key : key + ">");
        }
    }
};

/// The split worth trying for trace t (see the file comment), or none.
template <class T>
std::optional<split_choice> propose_split(const access_trace<T>& t) {
    constexpr std::size_t leaves = leaf_count_v<T>;
    split_choice s;
    s.in_first.assign(leaves, 0);
    std::size_t gathered = 0;
    for (const auto& a : t.accesses)
        if (a.pattern == pattern::indexed && (a.reads > 0 || a.writes > 0) && !s.in_first[a.leaf])
            s.in_first[a.leaf] = 1, ++gathered;
    if (gathered > 0 && gathered < leaves) {
        s.why = "the leaves it gathers by index packed (one sector per gathered element), the "
                "rest in columns";
        return s;
    }
    if (gathered == leaves) return std::nullopt; // every leaf gathered: aos packs them all
    std::size_t hot = 0;
    for (const auto& a : t.accesses)
        if ((a.reads > 0 || a.writes > 0) && !s.in_first[a.leaf]) s.in_first[a.leaf] = 1, ++hot;
    if (hot == 0 || hot == leaves) return std::nullopt;
    s.why = "the leaves it touches packed, the ones it never touches in columns";
    return s;
}

/// The geometry of T under split s: each part's leaves laid out as aos, soa or aosoa<N> lay out
/// a struct of them, the second part from the next 256-byte boundary (layouts/split.hpp).
template <class T>
layout_geometry geometry_of_split(const split_choice& s, const field_names& names = {}) {
    constexpr std::size_t leaves = leaf_count_v<T>;
    const auto& desc = detail::leaf_descs<T>;
    std::vector<std::size_t> index(leaves);
    std::vector<std::size_t> size[2], align[2];
    for (std::size_t l = 0; l < leaves; ++l) {
        const int part = s.in_first[l] ? 0 : 1;
        index[l] = size[part].size();
        size[part].push_back(desc[l].size);
        align[part].push_back(desc[l].alignment);
    }
    auto first =
        std::make_shared<const detail::part_mapping>(s.first, s.first_lanes, size[0], align[0]);
    auto second =
        std::make_shared<const detail::part_mapping>(s.second, s.second_lanes, size[1], align[1]);
    const std::vector<char> in_first = s.in_first;
    layout_geometry g;
    g.name = "split";
    g.spelling = s.spelling<T>(names);
    g.offset = [first, second, in_first, index](std::size_t i, std::size_t l, std::size_t cap) {
        if (in_first[l]) return first->offset(i, index[l], cap);
        return detail::round_up(first->bytes(cap), 256) + second->offset(i, index[l], cap);
    };
    const auto known_first = first->known_alignment(), known_second = second->known_alignment();
    for (std::size_t l = 0; l < leaves; ++l) {
        g.runs.push_back(s.in_first[l] ? first->run() : second->run());
        g.known_alignment.push_back(s.in_first[l] ? known_first[index[l]] : known_second[index[l]]);
    }
    g.leaves = desc.data();
    g.leaf_count = leaves;
    return g;
}

} // namespace layout::advisor
