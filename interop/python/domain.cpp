// dmap.Domain: Python map descriptions and shapes to dmap domains (see domain.h). Hashed
// with a Python mapper evaluates the mapper in bulk (NumPy arrays of indices, a batch at a
// time) and places the indices through an Unstructured map (see hashed_domain below).
#include "domain.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>

#include <dmap/dists/block.hpp>
#include <dmap/dists/block_cyclic.hpp>
#include <dmap/dists/cyclic.hpp>
#include <dmap/dists/hashed.hpp>
#include <dmap/dists/irregular.hpp>
#include <dmap/dists/stencil.hpp>
#include <dmap/dists/unstructured.hpp>
#include <dmap/runtime/collectives.hpp>
#include <dmap/runtime/detail/byte_exchange.hpp>

#include "conversions.h"

namespace dmap::python {

namespace {

std::string shown(py::handle h) { return py::repr(h).cast<std::string>(); }

// `value` as N integers: an integer (the same along every dimension) or a sequence of N.
template <std::size_t N>
idx<N> per_dim(py::handle value, const std::string& what) {
  idx<N> out{};
  if (PyIndex_Check(value.ptr()) && !PyBool_Check(value.ptr())) {
    const index_t v = to_index(value, what);
    for (std::size_t d = 0; d < N; ++d) out[d] = v;
    return out;
  }
  if (!py::isinstance<py::sequence>(value) || py::isinstance<py::str>(value))
    throw argument_error(what + " is " + shown(value) + "; it must be an integer or a sequence of " +
                         std::to_string(N) + " integers");
  const auto seq = py::reinterpret_borrow<py::sequence>(value);
  if (seq.size() != N)
    throw argument_error(what + " is " + shown(value) + "; it must hold " + std::to_string(N) +
                         " entries, one per dimension");
  for (std::size_t d = 0; d < N; ++d) out[d] = to_index(seq[d], what + "[" + std::to_string(d) + "]");
  return out;
}

template <std::size_t N>
std::array<bool, N> per_dim_bool(py::handle value, const std::string& what) {
  std::array<bool, N> out{};
  if (py::isinstance<py::bool_>(value) || py::isinstance(value, py::module_::import("numpy").attr("bool_"))) {
    out.fill(value.cast<bool>());
    return out;
  }
  if (!py::isinstance<py::sequence>(value) || py::isinstance<py::str>(value))
    throw argument_error(what + " is " + shown(value) + "; it must be a bool or a sequence of " + std::to_string(N) +
                         " bools");
  const auto seq = py::reinterpret_borrow<py::sequence>(value);
  if (seq.size() != N)
    throw argument_error(what + " is " + shown(value) + "; it must hold " + std::to_string(N) + " entries");
  for (std::size_t d = 0; d < N; ++d) {
    py::object e = seq[d];
    if (!py::isinstance<py::bool_>(e) && !py::isinstance(e, py::module_::import("numpy").attr("bool_")))
      throw argument_error(what + "[" + std::to_string(d) + "] is " + shown(e) + "; it must be a bool");
    out[d] = e.cast<bool>();
  }
  return out;
}

int to_int(py::handle value, const std::string& what) {
  const index_t v = to_index(value, what);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw argument_error(what + " is " + std::to_string(v) + "; it must fit a C int");
  return static_cast<int>(v);
}

template <std::size_t N>
target_grid<N> grid_of(py::handle map, const std::string& who) {
  py::object grid = py::getattr(map, "grid", py::none());
  py::object locales = py::getattr(map, "locales", py::none());
  if (grid.is_none() && locales.is_none()) return target_grid<N>{};
  std::array<int, N> shape{};
  if (grid.is_none()) {
    if (N != 1) throw argument_error(who + ": locales needs a grid shape (grid=...) in " + std::to_string(N) + "-D");
    shape[0] = static_cast<int>(py::len(locales));
  } else {
    const idx<N> g = per_dim<N>(grid, who + ": grid");
    for (std::size_t d = 0; d < N; ++d) {
      if (g[d] < 1 || g[d] > std::numeric_limits<int>::max())
        throw argument_error(who + ": grid[" + std::to_string(d) + "] is " + std::to_string(g[d]) +
                             "; every extent must be >= 1");
      shape[d] = static_cast<int>(g[d]);
    }
  }
  if (locales.is_none()) return target_grid<N>(shape);
  if (!py::isinstance<py::sequence>(locales))
    throw argument_error(who + ": locales is " + shown(locales) + "; it must be a sequence of locale ids");
  std::vector<int> ids;
  for (auto q : locales) ids.push_back(to_int(q, who + ": a locale id"));
  return target_grid<N>(shape, std::move(ids));
}

storage_order order_of(py::handle map, const std::string& who) {
  py::object o = py::getattr(map, "order", py::str("C"));
  const std::string s = py::isinstance<py::str>(o) ? o.cast<std::string>() : std::string("?");
  if (s == "C") return storage_order::row_major;
  if (s == "F") return storage_order::column_major;
  throw argument_error(who + ": order is " + shown(o) + "; it must be 'C' (row-major) or 'F' (column-major)");
}

row_padding padding_of(py::handle map, const std::string& who, row_padding fallback) {
  py::object p = py::getattr(map, "row_padding", py::none());
  if (p.is_none()) return fallback;
  if (py::isinstance<py::str>(p)) {
    const auto s = p.cast<std::string>();
    if (s == "automatic") return row_padding::automatic();
    if (s == "none") return row_padding::none();
  } else if (PyIndex_Check(p.ptr()) && !PyBool_Check(p.ptr())) {
    return row_padding::fixed(to_index(p, who + ": row_padding"));
  }
  throw argument_error(who + ": row_padding is " + shown(p) + "; it must be 'automatic', 'none' or an integer >= 0");
}

template <std::size_t N>
rect<N> bounds_of(py::handle shape_or_bounds) {
  const std::string what = "dmap.Domain: shape_or_bounds";
  std::vector<py::object> entries;
  if (PyIndex_Check(shape_or_bounds.ptr()) && !PyBool_Check(shape_or_bounds.ptr())) {
    entries.push_back(py::reinterpret_borrow<py::object>(shape_or_bounds));
  } else {
    for (auto e : shape_or_bounds) entries.push_back(py::reinterpret_borrow<py::object>(e));
  }
  std::array<range, N> dims;
  for (std::size_t d = 0; d < N; ++d) {
    const py::object& e = entries[d];
    const std::string here = what + "[" + std::to_string(d) + "]";
    if (PyIndex_Check(e.ptr()) && !PyBool_Check(e.ptr())) {
      const index_t n = to_index(e, here);
      if (n < 0) throw argument_error(here + " is " + std::to_string(n) + "; a size must be >= 0");
      dims[d] = range(index_t{0}, n);
    } else if (py::isinstance(e, py::module_::import("builtins").attr("range"))) {
      dims[d] = from_py_range(e, here);
    } else if (py::isinstance<py::tuple>(e) && py::len(e) == 2) {
      const auto t = py::reinterpret_borrow<py::tuple>(e);
      const index_t lo = to_index(t[0], here + "[0]"), hi = to_index(t[1], here + "[1]");
      if (hi < lo)
        throw argument_error(here + " is (" + std::to_string(lo) + ", " + std::to_string(hi) +
                             "); bounds (lo, hi) need lo <= hi");
      dims[d] = range(lo, hi);
    } else {
      throw argument_error(here + " is " + shown(e) + "; each entry must be a size, a (lo, hi) pair or a Python range");
    }
  }
  return rect<N>(dims);
}

// The rank a shape or bounds object gives.
std::size_t rank_of(py::handle shape_or_bounds) {
  if (PyIndex_Check(shape_or_bounds.ptr()) && !PyBool_Check(shape_or_bounds.ptr())) return 1;
  if (!py::isinstance<py::sequence>(shape_or_bounds) || py::isinstance<py::str>(shape_or_bounds))
    throw argument_error("dmap.Domain: shape_or_bounds is " + shown(shape_or_bounds) +
                         "; it must be a size, or a tuple of sizes, (lo, hi) pairs or Python ranges");
  const std::size_t n = py::len(shape_or_bounds);
  if (n < 1 || n > max_rank)
    throw unsupported_error("dmap.Domain: " + std::to_string(n) +
                            " dimensions; the Python module builds domains of 1, 2 or 3 dimensions");
  return n;
}

// Hashed with a Python mapper. dmap::hashed<N, Mapper> asks its mapper one index at a time
// (and again for every locale_of), which would cost a Python call per index; instead every
// locale calls the mapper for its share of the row-major orders, `batch` indices per call (a
// NumPy int64 array of shape (k,) in 1-D, (k, N) otherwise, and the locale count), checks the
// answers, sends each owner its indices and the owners place them with an Unstructured map.
// The placement is the one dmap::hashed would make (owned indices stored in row-major order).
template <std::size_t N>
dmap::domain<N> hashed_by_python(py::object mapper, index_t batch, const rect<N>& indices) {
  const int p = num_locales(), me = here();
  const index_t n = indices.size();
  const auto share = [&](int h) {
    return static_cast<index_t>(static_cast<dmap::detail::wide_int>(n) * h / p);
  };
  const index_t first = share(me), end = share(me + 1);
  std::vector<std::vector<index_t>> to_owners(static_cast<std::size_t>(p));
  agreed_local("dmap.Hashed: the mapper", [&] {
    for (index_t o = first; o < end;) {
      const index_t k = std::min(batch, end - o);
      py::array_t<std::int64_t> idx_array =
          N == 1 ? py::array_t<std::int64_t>({static_cast<py::ssize_t>(k)})
                 : py::array_t<std::int64_t>({static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(N)});
      auto* out = idx_array.mutable_data();
      for (index_t j = 0; j < k; ++j) {
        const idx<N> i = indices.index_at(o + j);
        for (std::size_t d = 0; d < N; ++d) out[j * static_cast<index_t>(N) + static_cast<index_t>(d)] = i[d];
      }
      py::object answer = mapper(idx_array, p);
      py::array result = py::module_::import("numpy").attr("asarray")(answer);
      const char kind = result.dtype().kind();
      if (kind != 'i' && kind != 'u')
        throw argument_error("dmap.Hashed: the mapper returned an array of dtype " +
                             py::str(result.dtype()).cast<std::string>() + "; it must return integers (locales)");
      if (result.ndim() != 1 || result.shape(0) != k)
        throw argument_error("dmap.Hashed: the mapper was given " + std::to_string(k) + " indices and returned " +
                             shown(result.attr("shape")) + "; it must return one locale per index, shape (" +
                             std::to_string(k) + ",)");
      const auto locales = checked_array<std::int64_t>(result, "dmap.Hashed", "the mapper's answer");
      const auto* q = locales.data();
      for (index_t j = 0; j < k; ++j) {
        if (q[j] < 0 || q[j] >= p) {
          std::ostringstream m;
          m << "dmap.Hashed: the mapper sends index " << indices.index_at(o + j) << " to locale " << q[j]
            << "; a mapper must return a locale in [0, " << p << ")";
          throw argument_error(m.str());
        }
        to_owners[static_cast<std::size_t>(q[j])].push_back(o + j);
      }
      o += k;
    }
  });
  dmap::detail::byte_buffers outgoing;
  for (const auto& v : to_owners) outgoing.push_back(dmap::detail::to_bytes(v));
  const dmap::detail::byte_buffers incoming = dmap::detail::exchange(std::move(outgoing));
  std::vector<index_t> orders;
  for (const auto& b : incoming) {
    const auto some = dmap::detail::from_bytes<index_t>(b);
    orders.insert(orders.end(), some.begin(), some.end());
  }
  std::sort(orders.begin(), orders.end());
  std::vector<idx<N>> mine;
  mine.reserve(orders.size());
  for (index_t o : orders) mine.push_back(indices.index_at(o));
  return dmap::domain<N>(unstructured<N>(std::move(mine), true), indices);
}

template <std::size_t N>
std::vector<idx<N>> listed_indices(py::handle value, const std::string& who) {
  py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> a;
  try {
    py::object np = py::module_::import("numpy");
    py::array raw = np.attr("asarray")(value);
    const char kind = raw.dtype().kind();
    if (raw.size() > 0 && kind != 'i' && kind != 'u')
      throw argument_error(who + ": indices have dtype " + py::str(raw.dtype()).cast<std::string>() +
                           "; they must be integers");
    if (raw.size() == 0) a = np.attr("ascontiguousarray")(raw, "int64");
    else a = checked_array<std::int64_t>(raw, who, "the indices");  // uint64 beyond int64 refused
  } catch (py::error_already_set& e) {
    throw argument_error(who + ": indices are not an integer array (" + e.what() + ")");
  }
  const bool flat = N == 1 && a.ndim() == 1;
  if (!flat && !(a.ndim() == 2 && a.shape(1) == static_cast<py::ssize_t>(N)) && !(a.size() == 0))
    throw argument_error(who + ": indices have shape " + shown(py::reinterpret_borrow<py::object>(a).attr("shape")) +
                         "; they must have shape (k, " + std::to_string(N) + ")" + (N == 1 ? " or (k,)" : ""));
  const index_t k = a.size() == 0 ? 0 : a.shape(0);
  std::vector<idx<N>> out(static_cast<std::size_t>(k));
  const auto* data = a.data();
  for (index_t j = 0; j < k; ++j)
    for (std::size_t d = 0; d < N; ++d) out[static_cast<std::size_t>(j)][d] = data[j * static_cast<index_t>(N) + static_cast<index_t>(d)];
  return out;
}

template <std::size_t N>
std::array<std::vector<index_t>, N> cuts_of(py::handle value, const std::string& who) {
  std::array<std::vector<index_t>, N> cuts;
  if (!py::isinstance<py::sequence>(value))
    throw argument_error(who + ": cuts is " + shown(value) + "; it must be a sequence of cut points per dimension");
  const auto seq = py::reinterpret_borrow<py::sequence>(value);
  const bool flat_1d = N == 1 && (seq.size() == 0 || (PyIndex_Check(py::object(seq[0]).ptr()) != 0));
  if (flat_1d) {
    for (auto c : seq) cuts[0].push_back(to_index(c, who + ": a cut point"));
    return cuts;
  }
  if (seq.size() != N)
    throw argument_error(who + ": cuts has " + std::to_string(seq.size()) + " entries; it needs one list per dimension (" +
                         std::to_string(N) + ")");
  for (std::size_t d = 0; d < N; ++d) {
    py::object list = seq[d];
    if (!py::isinstance<py::sequence>(list))
      throw argument_error(who + ": cuts[" + std::to_string(d) + "] is " + shown(list) + "; it must be a list of cut points");
    for (auto c : list) cuts[d].push_back(to_index(c, who + ": cuts[" + std::to_string(d) + "] entry"));
  }
  return cuts;
}

// Reads a Python map description (local work, no messages) and returns what makes the
// domain (collective), so that a description failing on one locale fails on all before any
// locale goes on alone.
template <std::size_t N>
std::function<dmap::domain<N>()> plan_domain(py::handle map, const rect<N>& indices) {
  using result = std::function<dmap::domain<N>()>;
  const auto kind = py::getattr(map, "kind", py::none());
  if (!py::isinstance<py::str>(kind))
    throw argument_error("dmap.Domain: map is " + shown(map) +
                         "; it must be a dmap map (dmap.Block(), dmap.Cyclic(), dmap.BlockCyclic(...), dmap.Stencil(...), "
                         "dmap.Irregular(...), dmap.Unstructured(...), dmap.Hashed(...))");
  const std::string k = kind.cast<std::string>();
  if (k == "block") {
    const std::string who = "dmap.Block";
    block<N> dist(grid_of<N>(map, who), order_of(map, who), padding_of(map, who, row_padding::none()));
    return result([dist, indices] { return dmap::domain<N>(dist, indices); });
  }
  if (k == "cyclic") {
    const std::string who = "dmap.Cyclic";
    py::object start = py::getattr(map, "start", py::none());
    std::optional<idx<N>> s;
    if (!start.is_none()) s = per_dim<N>(start, who + ": start");
    cyclic<N> dist(s, grid_of<N>(map, who), order_of(map, who));
    return result([dist, indices] { return dmap::domain<N>(dist, indices); });
  }
  if (k == "block_cyclic") {
    const std::string who = "dmap.BlockCyclic";
    const idx<N> blocks = per_dim<N>(map.attr("blocks"), who + ": blocks");
    py::object start = py::getattr(map, "start", py::none());
    std::optional<idx<N>> s;
    if (!start.is_none()) s = per_dim<N>(start, who + ": start");
    block_cyclic<N> dist(blocks, s, grid_of<N>(map, who), order_of(map, who));
    return result([dist, indices] { return dmap::domain<N>(dist, indices); });
  }
  if (k == "stencil") {
    const std::string who = "dmap.Stencil";
    const idx<N> fluff = per_dim<N>(map.attr("fluff"), who + ": fluff");
    const auto periodic = per_dim_bool<N>(py::getattr(map, "periodic", py::bool_(false)), who + ": periodic");
    stencil<N> dist(fluff, periodic, grid_of<N>(map, who), order_of(map, who),
                    padding_of(map, who, row_padding::automatic()));
    return result([dist, indices] { return dmap::domain<N>(dist, indices); });
  }
  if (k == "irregular") {
    const std::string who = "dmap.Irregular";
    irregular_block<N> dist(cuts_of<N>(map.attr("cuts"), who), grid_of<N>(map, who), order_of(map, who));
    return result([dist, indices] { return dmap::domain<N>(dist, indices); });
  }
  if (k == "unstructured") {
    const std::string who = "dmap.Unstructured";
    unstructured<N> dist(listed_indices<N>(map.attr("indices"), who),
                         py::getattr(map, "one_to_one", py::bool_(true)).cast<bool>());
    return result([dist, indices] { return dmap::domain<N>(dist, indices); });
  }
  if (k == "hashed") {
    py::object mapper = py::getattr(map, "mapper", py::none());
    if (mapper.is_none()) {
      py::object label = py::getattr(map, "label", py::none());
      hashed<N> dist(hash_mapper{}, label.is_none() ? "hash" : py::str(label).cast<std::string>());
      return result([dist, indices] { return dmap::domain<N>(dist, indices); });
    }
    if (!PyCallable_Check(mapper.ptr()))
      throw argument_error("dmap.Hashed: mapper is " + shown(mapper) + "; it must be callable as mapper(indices, locales)");
    const index_t batch = to_index(py::getattr(map, "batch", py::int_(1 << 20)), "dmap.Hashed: batch");
    if (batch < 1) throw argument_error("dmap.Hashed: batch is " + std::to_string(batch) + "; it must be >= 1");
    return result([mapper, batch, indices] { return hashed_by_python<N>(mapper, batch, indices); });
  }
  throw argument_error("dmap.Domain: map kind '" + k + "' is not one of block, cyclic, block_cyclic, stencil, "
                       "irregular, unstructured, hashed");
}

}  // namespace

domain_handle::domain_handle(py::object map, py::object shape_or_bounds) : map_(std::move(map)) {
  ensure_started();
  collect();
  // The description is read and checked on every locale first; a description that fails
  // on one locale fails on all (no locale goes on to make the domain alone).
  std::size_t rank = 0;
  agreed_local("dmap.Domain", [&] { rank = rank_of(shape_or_bounds); });
  rank_ = rank;
  with_rank(rank_, [&]<std::size_t N>() {
    std::function<dmap::domain<N>()> make;
    agreed_local("dmap.Domain", [&] { make = plan_domain<N>(map_, bounds_of<N>(shape_or_bounds)); });
    payload_ = std::make_shared<dmap::domain<N>>(make());
  });
}

std::vector<range> domain_handle::dims() const {
  return with_rank(rank_, [&]<std::size_t N>() {
    const auto& d = get<N>().dims();
    return std::vector<range>(d.begin(), d.end());
  });
}

std::string domain_handle::name() const {
  return with_rank(rank_, [&]<std::size_t N>() { return get<N>().name(); });
}

std::vector<std::vector<range>> domain_handle::local_subdomains(int q) const {
  return with_rank(rank_, [&]<std::size_t N>() {
    std::vector<std::vector<range>> out;
    const auto& d = get<N>();
    for (const auto& r : q < 0 ? d.local_subdomains() : d.local_subdomains(q))
      out.emplace_back(r.dims().begin(), r.dims().end());
    return out;
  });
}

int domain_handle::locale_of(const std::vector<index_t>& i) const {
  return with_rank(rank_, [&]<std::size_t N>() {
    if (i.size() != N)
      throw argument_error("dmap.Domain.locale_of: " + std::to_string(i.size()) + " coordinates for a " +
                           std::to_string(N) + "-D domain");
    idx<N> at{};
    for (std::size_t d = 0; d < N; ++d) at[d] = i[d];
    const auto& dom = get<N>();
    if (!dom.contains(at)) {
      std::ostringstream m;
      m << "dmap.Domain.locale_of: index " << at << " is not in the domain " << dom.indices();
      throw out_of_bounds_error(m.str());
    }
    return dom.locale_of(at);
  });
}

}  // namespace dmap::python
