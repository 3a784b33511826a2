// dmap.Domain: one dmap::domain<N> (N = 1, 2, 3) made from a Python map description
// (dmap.Block, dmap.Cyclic, ... in dmap/__init__.py) and a shape or bounds.
#pragma once

#include <memory>
#include <string>

#include <dmap/dsi/domain.hpp>

#include "common.h"
#include "runtime.h"

namespace dmap::python {

/// A dmap domain of rank 1..3 with the Python map description it was made from.
class domain_handle final : public releasable {
 public:
  /// Collective: the domain of `map` (a dmap map description) over `shape_or_bounds` (an
  /// int, a tuple of ints, or a tuple whose entries are ints n ([0, n)), (lo, hi) pairs or
  /// Python ranges). Every failure is raised on every locale.
  domain_handle(py::object map, py::object shape_or_bounds);
  /// The domain `payload` (a dmap::domain<rank>, made by an import: every locale makes it
  /// at the same point), described to Python by `map` (a string naming the import).
  domain_handle(std::size_t rank, py::object map, std::shared_ptr<void> payload)
      : rank_(rank), map_(std::move(map)), payload_(std::move(payload)) {}
  ~domain_handle() override { bury(); }

  /// The number of dimensions.
  std::size_t rank() const noexcept { return rank_; }
  /// The map description it was made from.
  const py::object& map() const noexcept { return map_; }
  /// The dmap domain (precondition: rank() == N); runtime_error once released.
  template <std::size_t N>
  dmap::domain<N>& get() const {
    check_running("dmap.Domain");
    if (!payload_ || N != rank_) throw runtime_error("dmap.Domain: this domain has been released");
    return *static_cast<dmap::domain<N>*>(payload_.get());
  }
  /// The indices, one range per dimension.
  std::vector<range> dims() const;
  /// dmap's name of the map.
  std::string name() const;
  /// Locale q's owned pieces (here() when q < 0), as dmap ranges per dimension.
  std::vector<std::vector<range>> local_subdomains(int q) const;
  /// The locale owning the index `i`.
  int locale_of(const std::vector<index_t>& i) const;

  std::shared_ptr<void> take() noexcept override { return std::move(payload_); }

 private:
  std::size_t rank_ = 0;
  py::object map_;
  std::shared_ptr<void> payload_;  // a dmap::domain<rank_>
};

/// Calls f.template operator()<N>() for the runtime rank n (1..3).
template <class F>
decltype(auto) with_rank(std::size_t n, F&& f) {
  switch (n) {
    case 1: return f.template operator()<1>();
    case 2: return f.template operator()<2>();
    case 3: return f.template operator()<3>();
    default: throw unsupported_error("dmap: arrays and domains of " + std::to_string(n) +
                                     " dimensions are not built into the Python module (1, 2 or 3)");
  }
}

}  // namespace dmap::python
