// A map given by each locale's own list of pieces, kept in a directory: every locale stores
// the indices of its listed rects one after another (each row-major), and no locale knows
// the others' lists. The loop engine stages followers onto such a domain when its leader's
// placement is known only through a directory (Hashed, Unstructured).
#pragma once

#include <cstddef>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../runtime/agreement.hpp"
#include "../../runtime/precompiled.hpp"
#include "../rect.hpp"
#include "directory_domain.hpp"
#include "domain_model.hpp"

namespace dmap::detail {

template <std::size_t N>
class listed_pieces_domain;

/// The distribution: this locale's pieces (each locale passes its own), in storage order.
template <std::size_t N>
class listed_pieces {
 public:
  /// `mine`: the rects this locale stores; `name` must be the same on every locale.
  listed_pieces(std::vector<rect<N>> mine, std::string name)
      : mine_(std::make_shared<const std::vector<rect<N>>>(std::move(mine))), name_(std::move(name)) {}
  int targets() const { return num_locales(); }
  std::string name() const { return name_; }
  listed_pieces_domain<N> new_domain(const rect<N>& r) const { return listed_pieces_domain<N>(*this, r); }
  /// This locale's pieces.
  const std::vector<rect<N>>& pieces() const noexcept { return *mine_; }
  friend bool operator==(const listed_pieces& a, const listed_pieces& b) noexcept { return a.mine_ == b.mine_; }

 private:
  std::shared_ptr<const std::vector<rect<N>>> mine_;
  std::string name_;
};

/// The global descriptor: the directory of the listed pieces (built collectively).
template <std::size_t N>
class listed_pieces_domain : public directory_domain_base<N> {
 public:
  listed_pieces_domain(const listed_pieces<N>& dist, const rect<N>& indices)
      : directory_domain_base<N>("dmap::detail::listed_pieces", indices), dist_(dist) {}
  /// A listed map has no rule for other index sets.
  void set_indices(const rect<N>&) {
    throw unsupported_error("dmap: a domain of listed pieces cannot change its indices");
  }
  /// The owner of `i`: here when this locale lists it, else one lookup in the directory.
  int locale_of(const idx<N>& i) const { return this->owner_of(i); }
  /// Collective: builds the directory from this locale's pieces, which must lie inside the
  /// index set and, together with the other locales' pieces, cover it exactly once.
  void build();

 private:
  listed_pieces<N> dist_;
};

template <std::size_t N>
void listed_pieces_domain<N>::build() {
  const rect<N>& whole = this->staged();
  std::vector<index_t> orders;
  agreed([&] {
    for (const rect<N>& r : dist_.pieces())
      for (index_t k = 0; k < r.size(); ++k) {
        const index_t o = whole.order_of(r.index_at(k));
        if (o < 0) {
          std::ostringstream s;
          s << "dmap: a listed piece " << r << " is not inside the index set " << whole;
          throw argument_error(s.str());
        }
        orders.push_back(o);
      }
  });
  // The pieces as listed (a column of a transposed view stays one piece): runs of the
  // stored orders would cut a piece that is not a run of rows into single indices.
  this->commit(std::move(orders), true, unlisted_indices::refuse, &dist_.pieces());
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_LISTED_PIECES_INSTANCES(N, how)                                                  \
  how class listed_pieces<N>;                                                                 \
  how class listed_pieces_domain<N>;                                                          \
  how class domain_model<N, listed_pieces<N>, listed_pieces_domain<N>>;
DMAP_DECLARE_PRECOMPILED(DMAP_LISTED_PIECES_INSTANCES)

}  // namespace dmap::detail
