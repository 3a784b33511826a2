// Hashed: a user mapper says which locale owns each index (Chapel's HashedDist, over
// rectangular index sets). Each locale stores its indices densely, in row-major order;
// where an element lives on its owner is kept in a distributed directory
// (dsi/detail/directory.hpp) that the domain builds collectively: every locale evaluates the mapper
// only for the indices it is the directory home of and sends them to their owners, so no
// locale evaluates or stores the whole map.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../dsi/detail/directory_domain.hpp"
#include "../dsi/index.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/byte_exchange.hpp"

namespace dmap {

/// The default mapper: a 64-bit mix of the index (splitmix64 per coordinate) modulo the
/// number of locales.
struct hash_mapper {
  /// The locale, in [0, locales), that owns `i`.
  template <std::size_t N>
  int operator()(const idx<N>& i, int locales) const noexcept {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    for (std::size_t d = 0; d < N; ++d) {
      std::uint64_t z = h ^ static_cast<std::uint64_t>(i[d]);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      h = z ^ (z >> 31);
    }
    return static_cast<int>(h % static_cast<std::uint64_t>(locales));
  }
  friend bool operator==(const hash_mapper&, const hash_mapper&) = default;
};

/// A mapper for N-D indices: called as m(i, locales) or m(i) (for 1-D also with the
/// integer index), returning the owning locale.
template <class M, std::size_t N>
concept index_mapper = std::copy_constructible<M> &&
    (std::convertible_to<std::invoke_result_t<const M&, const idx<N>&, int>, int> ||
     std::convertible_to<std::invoke_result_t<const M&, const idx<N>&>, int> ||
     (N == 1 && (std::convertible_to<std::invoke_result_t<const M&, index_t, int>, int> ||
                 std::convertible_to<std::invoke_result_t<const M&, index_t>, int>)));

template <std::size_t N, class Mapper>
class hashed_domain;

/// The Hashed distribution over all locales: `mapper` decides the owner of every index.
template <std::size_t N, class Mapper = hash_mapper>
  requires index_mapper<Mapper, N>
class hashed {
 public:
  /// A map by `mapper`; `label` names it in name() (the fingerprint locales compare, so it
  /// must name the mapper exactly when it has parameters).
  explicit hashed(Mapper mapper = {}, std::string label = "hash")
      : mapper_(std::move(mapper)), label_(std::move(label)) {}

  /// All locales.
  int targets() const { return num_locales(); }
  /// "hashed(hash; 4 locales)".
  std::string name() const { return "hashed(" + label_ + "; " + std::to_string(targets()) + " locales)"; }
  /// A global domain descriptor over `indices` (built collectively by dmap::domain).
  hashed_domain<N, Mapper> new_domain(const rect<N>& indices) const { return hashed_domain<N, Mapper>(*this, indices); }
  /// The mapper's answer for `i`; throws argument_error when it is not a locale in
  /// [0, num_locales()) (checked before narrowing: 2^32 is not locale 0).
  int map(const idx<N>& i) const {
    const int p = num_locales();
    const auto answer = [&] {
      if constexpr (std::is_invocable_v<const Mapper&, const idx<N>&, int>) return mapper_(i, p);
      else if constexpr (std::is_invocable_v<const Mapper&, const idx<N>&>) return mapper_(i);
      else if constexpr (std::is_invocable_v<const Mapper&, index_t, int>) return mapper_(i[0], p);
      else return mapper_(i[0]);
    }();
    static_assert(std::is_integral_v<decltype(answer)>, "dmap::hashed: a mapper returns an integer (a locale)");
    if (std::cmp_less(answer, 0) || std::cmp_greater_equal(answer, p)) {
      std::ostringstream s;
      s << "dmap::hashed: the mapper " << name() << " sends index " << i << " to locale " << +answer
        << "; a mapper must return a locale in [0, " << p << ")";
      throw argument_error(s.str());
    }
    return static_cast<int>(answer);
  }
  /// Equal labels and mappers (mappers without operator== compare by their bytes when
  /// those say everything, else they are equal when they hold nothing).
  friend bool operator==(const hashed& a, const hashed& b) {
    if (a.label_ != b.label_) return false;
    if constexpr (std::equality_comparable<Mapper>) return a.mapper_ == b.mapper_;
    else if constexpr (std::has_unique_object_representations_v<Mapper>)
      return std::memcmp(&a.mapper_, &b.mapper_, sizeof(Mapper)) == 0;
    else return std::is_empty_v<Mapper>;
  }

 private:
  Mapper mapper_;
  std::string label_;
};

/// The global descriptor of a Hashed domain.
template <std::size_t N, class Mapper>
class hashed_domain : public detail::directory_domain_base<N> {
 public:
  /// The descriptor of the indices `indices` distributed by `dist`, complete once build() has run.
  hashed_domain(const hashed<N, Mapper>& dist, const rect<N>& indices)
      : detail::directory_domain_base<N>("dmap::hashed", indices), dist_(dist) {}

  /// The locale the mapper names for `i` (no messages).
  int locale_of(const idx<N>& i) const { return dist_.map(i); }

  /// Collective: evaluates the mapper for the indices this locale is the directory home of,
  /// sends each owner its indices (which arrive in row-major order) and builds the directory.
  /// Each owner evaluates the mapper again for the indices it receives: when it names
  /// another locale there (a mapper answering differently on different locales, so that
  /// locale_of would disagree with the owner), and when the mapper names a locale outside
  /// [0, P), every locale throws argument_error.
  void build() {
    const rect<N>& next = this->staged();
    const int p = num_locales(), me = here();
    const detail::directory_homes homes(next.size(), p);
    std::vector<std::vector<index_t>> to_owners(static_cast<std::size_t>(p));
    detail::byte_buffers outgoing = agreed([&] {
      for (index_t o = homes.first(me); o < homes.first(me + 1); ++o) {
        const idx<N> i = next.index_at(o);
        const int q = dist_.map(i);  // checked: in [0, p)
        to_owners[static_cast<std::size_t>(q)].push_back(o);
      }
      detail::byte_buffers packed;
      for (const auto& v : to_owners) packed.push_back(detail::to_bytes(v));
      return packed;
    });
    const detail::byte_buffers incoming = detail::exchange(std::move(outgoing));
    std::vector<index_t> mine = agreed([&] {
      std::vector<index_t> orders;
      for (std::size_t q = 0; q < incoming.size(); ++q) {
        const auto some = detail::from_bytes<index_t>(incoming[q]);
        for (index_t o : some) {
          const idx<N> i = next.index_at(o);
          if (const int owner = dist_.map(i); owner != me) {
            std::ostringstream m;
            m << "dmap::hashed: the mapper " << dist_.name() << " sends index " << i << " to locale " << me
              << " on locale " << q << " (its directory home) but to locale " << owner << " on locale " << me
              << "; a mapper must give the same answer on every locale";
            throw argument_error(m.str());
          }
        }
        orders.insert(orders.end(), some.begin(), some.end());
      }
      return orders;
    });
    this->commit(std::move(mine), true, detail::unlisted_indices::refuse);
  }

 private:
  hashed<N, Mapper> dist_;
};

}  // namespace dmap
