// The machinery behind locations.hpp (not part of the API): the candidates of a location
// search and the search itself, and the flat tuples that carry several reductions as one value.
#pragma once

#include <array>
#include <cstddef>
#include <exception>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../iterators/concepts.hpp"
#include "../../iterators/detail/combine_partials.hpp"
#include "../../iterators/reduce.hpp"
#include "../../runtime/agreement.hpp"
#include "reduction_loop.hpp"

namespace dmap {

template <class T, std::size_t N>
struct located;

namespace detail {

/// One candidate of a location search: a value, its position (dense coordinates, whose
/// lexicographic order is the row-major order of the index set), and whether it holds one.
template <class T, std::size_t N>
struct location_candidate {
  T value;
  std::array<index_t, N> position;
  int valid;
};

/// -1 when `a` is a better extreme than `b`, 1 when worse, 0 when neither (equal, or
/// unordered). NaN is worse than any number, for the minimum and the maximum alike.
template <bool Max, class T>
constexpr int compare_extremes(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool an = a != a, bn = b != b;
    if (an != bn) return an ? 1 : -1;
    if (an) return 0;
  }
  if (Max ? b < a : a < b) return -1;
  if (Max ? a < b : b < a) return 1;
  return 0;
}

/// The better of two candidates: the better value, on a tie the smaller position. A total
/// order on (value class, value, position), so any grouping picks the same candidate.
template <bool Max, class T, std::size_t N>
struct better_candidate {
  location_candidate<T, N> operator()(const location_candidate<T, N>& a, const location_candidate<T, N>& b) const {
    if (!a.valid) return b;
    if (!b.valid) return a;
    const int c = compare_extremes<Max>(a.value, b.value);
    if (c != 0) return c < 0 ? a : b;
    return b.position < a.position ? b : a;
  }
};

template <bool Max, class Iterand, class Transform>
auto locate_extreme(Iterand&& iterand, Transform transform, const char* who) {
  using ops_type = decltype(operands_of(iterand));
  constexpr std::size_t N = ops_type::N;
  using T = std::remove_cvref_t<decltype(std::apply(transform, std::declval<loop_args_t<Iterand>>()))>;
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "dmap::minloc/maxloc: the value type must be trivially copyable and default-constructible");
  using cand = location_candidate<T, N>;
  const auto ops = operands_agreed(iterand, who, [who](const auto& checked) {
    const auto& first = std::get<0>(checked.ops);
    if (first.whole().empty()) {
      std::ostringstream s;
      s << who << ": the input (" << first.describe() << ") is empty; an extreme needs at least one element";
      throw argument_error(s.str());
    }
  });
  const auto& lead = std::get<0>(ops.ops);
  const rect<N> whole = lead.whole();
  std::vector<work_chunk<N>> chunks;
  std::vector<partial<cand>> partials;
  const std::exception_ptr failure = run_positioned_loop(
      ops,
      [&](const auto&, const auto& cut) {
        chunks = cut;
        partials.assign(cut.size(), partial<cand>{cand{T{}, {}, 0}, 0});
      },
      [&](std::size_t c, auto&& each_row) {
        const dense_rect<N>& orders = chunks[c].orders;
        cand best{T{}, {}, 0};
        each_row([&](const std::array<index_t, N>& k, index_t length, const auto&... rows) {
          std::array<index_t, N> at{};
          for (std::size_t d = 0; d < N; ++d) at[d] = orders.dim(d).index_at(k[d]);
          const range& along = orders.dim(N - 1);
          for (index_t e = 0; e < length; ++e) {
            const T v = static_cast<T>(transform(rows.at(e)...));
            const int cmp = best.valid ? compare_extremes<Max>(v, best.value) : -1;
            if (cmp > 0) continue;
            at[N - 1] = along.index_at(e);
            if (cmp < 0 || at < best.position) best = {v, at, 1};
          }
        });
        partials[c] = {best, best.valid};
      });
  agree(failure);
  better_candidate<Max, T, N> op;
  const cand found = combine_partials(partials, cand{T{}, {}, 0}, op, lead.state_is_replicated(), lead.copy_layers());
  idx<N> index{};
  for (std::size_t d = 0; d < N; ++d) index[d] = whole.dim(d).index_at(found.position[d]);
  return located<T, N>{found.value, index};
}

/// A tuple of trivially copyable values that is itself trivially copyable (std::tuple is
/// not), so several reductions travel as one value.
template <class... Ts>
struct flat_tuple;
template <>
struct flat_tuple<> {};
template <class T, class... Rest>
struct flat_tuple<T, Rest...> {
  T head;
  flat_tuple<Rest...> tail;
};

template <std::size_t I, class F>
constexpr auto& flat_get(F& t) {
  if constexpr (I == 0) return t.head;
  else return flat_get<I - 1>(t.tail);
}

template <class... Ts, std::size_t... I>
flat_tuple<Ts...> to_flat(const std::tuple<Ts...>& t, std::index_sequence<I...>) {
  flat_tuple<Ts...> f{};
  ((flat_get<I>(f) = std::get<I>(t)), ...);
  return f;
}

template <class... Ts, std::size_t... I>
std::tuple<Ts...> from_flat(flat_tuple<Ts...> f, std::index_sequence<I...>) {
  return std::tuple<Ts...>{flat_get<I>(f)...};
}

/// The identity transform, once per reduction.
template <std::size_t>
using identity_for = identity_transform;

}  // namespace detail

}  // namespace dmap
