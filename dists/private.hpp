// Private: one index per locale (Chapel's PrivateSpace): the domain {0..<P} with index q on
// locale q, for per-locale values that loops and reductions can still treat as one array.
#pragma once

#include <array>
#include <sstream>
#include <string>

#include "../dsi/domain.hpp"
#include "dimensional.hpp"

namespace dmap {

/// The global descriptor of a private domain: a Dimensional one whose index set stays
/// {0..<P}, also across set_indices.
class private_domain : public dimensional_domain<1> {
 public:
  /// The descriptor of `indices` distributed by `dist`; `indices` must be {0..<P}.
  private_domain(const dimensional<1>& dist, const rect<1>& indices)
      : dimensional_domain<1>(dist, checked(indices, dist.targets().size())) {}
  /// Accepts only {0..<P} (throws argument_error otherwise).
  void set_indices(const rect<1>& indices) {
    dimensional_domain<1>::set_indices(checked(indices, targets().size()));
  }

 private:
  static const rect<1>& checked(const rect<1>& indices, int p) {
    if (!(indices == rect<1>{range(0, p)})) {
      std::ostringstream s;
      s << "dmap::private_dist: the index set is " << indices << "; a private domain holds exactly one index per "
        << "locale: {0..<" << p << "}";
      throw argument_error(s.str());
    }
    return indices;
  }
};

/// The Private distribution: index q lives on locale q. Its domains must be {0..<P}.
class private_dist : public dimensional<1> {
 public:
  private_dist() : dimensional<1>({cyclic_dim{0}}, target_grid<1>{}) {}
  /// A global domain descriptor over `indices`, which must be {0..<num_locales()}.
  private_domain new_domain(const rect<1>& indices) const { return private_domain(*this, indices); }
  /// "private(4 locales)".
  std::string name() const { return "private(" + std::to_string(targets().size()) + " locales)"; }
};

/// The domain {0..<num_locales()} with index q on locale q (collective).
inline domain<1> private_space() { return domain<1>{private_dist{}, rect<1>{range(0, num_locales())}}; }

}  // namespace dmap
