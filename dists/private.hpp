// Private: one index per locale (Chapel's PrivateSpace): the domain {0..<P} with index q on
// locale q, for per-locale values that loops and reductions can still treat as one array.
#pragma once

#include <array>
#include <sstream>
#include <string>

#include "../dsi/domain.hpp"
#include "dimensional.hpp"

namespace dmap {

/// The Private distribution: index q lives on locale q. Its domains must be {0..<P}.
class private_dist : public dimensional<1> {
 public:
  private_dist() : dimensional<1>({cyclic_dim{0}}, target_grid<1>{}) {}
  /// A global domain descriptor over `indices`, which must be {0..<num_locales()}.
  dimensional_domain<1> new_domain(const rect<1>& indices) const {
    const int p = targets().size();
    if (!(indices == rect<1>{range(0, p)})) {
      std::ostringstream s;
      s << "dmap::private_dist: the index set is " << indices << "; a private domain holds exactly one index per "
        << "locale: {0..<" << p << "}";
      throw argument_error(s.str());
    }
    return dimensional<1>::new_domain(indices);
  }
  /// "private(4 locales)".
  std::string name() const { return "private(" + std::to_string(targets().size()) + " locales)"; }
};

/// The domain {0..<num_locales()} with index q on locale q (collective).
inline domain<1> private_space() { return domain<1>{private_dist{}, rect<1>{range(0, num_locales())}}; }

}  // namespace dmap
