// The machinery behind dap_export.hpp (not part of the API): dap_axis_class, dap_positions,
// dap_in_cyclic_class, dap_cannot, dap_typestr, dap_buffer_slots, dap_stand_in, dap_describe.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../dsi/concepts.hpp"
#include "../dap.hpp"

namespace dmap::detail {

/// The positions (0-based orders) of one grid coordinate along one dimension: the distinct
/// projections of its locales' pieces, ascending ranges of positions.
struct dap_axis_class {
  std::vector<range> ranges;  // disjoint, each ascending
  index_t count = 0;          // positions held
};

/// The projection of `piece` on dimension d, as ascending positions of `whole`.
inline range dap_positions(const range& whole, const range& piece) {
  range r = densify(whole, piece);
  if (r.size() > 1 && r.stride() < 0) r = range::counted(r.last(), r.size(), -r.stride());
  return r;
}

/// True when every position of `r` lies in cyclic class k: (p / block) % parts == k.
inline bool dap_in_cyclic_class(const range& r, index_t block, int parts, int k) {
  const auto class_of = [&](index_t p) { return (p / block) % parts; };
  if (r.empty()) return true;
  if (parts == 1) return k == 0;  // one grid coordinate is dealt every block
  const index_t period = block * parts;  // no overflow: checked by the caller
  if (r.size() == 1 || r.stride() % period == 0) {
    // Every element shares the first one's class when the step is a whole number of periods.
    return class_of(r.first()) == k;
  }
  if (r.stride() == 1) {
    // Contiguous: inside one block, and that block is k's.
    return r.first() / block == r.last() / block && class_of(r.first()) == k;
  }
  for (index_t j = 0; j < r.size(); ++j)
    if (class_of(r.first() + j * r.stride()) != k) return false;
  return true;
}

/// Throws unsupported_error "dmap::dap_export: <why>".
[[noreturn]] inline void dap_cannot(const std::string& why) {
  throw unsupported_error("dmap::dap_export: " + why);
}

/// A type of two floating-point parts (std::complex): the array interface's kind 'c'. A concept,
/// so that a type without value_type is simply not one (a plain && would name U::value_type).
template <class U>
concept dap_complex_like = requires { typename U::value_type; } && std::is_floating_point_v<typename U::value_type> &&
                           sizeof(U) == 2 * sizeof(typename U::value_type);

/// The element type as a NumPy array-interface typestr: byte order, kind, size ("<f8",
/// "<i4", "|u1", "|b1", "<c16"); "|V<size>" for other trivially copyable types.
template <class T>
std::string dap_typestr() {
  using U = std::remove_cv_t<T>;
  const std::string order = sizeof(U) == 1 ? "|" : (std::endian::native == std::endian::little ? "<" : ">");
  const std::string size = std::to_string(sizeof(U));
  if constexpr (std::is_same_v<U, bool>) return "|b1";
  else if constexpr (std::is_floating_point_v<U>) return order + "f" + size;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) return order + "i" + size;
  else if constexpr (std::is_integral_v<U>) return order + "u" + size;
  else if constexpr (dap_complex_like<U>) return order + "c" + size;
  else return "|V" + size;
}

// Locale q's storage (its `layouts`) along each dimension: slot s of the buffer along d
// holds the index at extended position slots[d][s] (positions outside [0, n) of `whole`
// are padding). Throws when the storage is not one strided array (whose rows may be padded:
// a dimension's stride may exceed the span of the dimensions below it).
template <std::size_t N>
std::array<std::vector<index_t>, N> dap_buffer_slots(const rect<N>& whole, const std::vector<dense_layout<N>>& layouts,
                                                     int q, std::array<index_t, N>& strides,
                                                     std::array<index_t, N>& extents) {
  std::array<std::vector<index_t>, N> slots{};
  if (layouts.empty()) return slots;
  strides = layouts.front().strides;
  const auto extended = [&](std::size_t d, index_t i) {
    const range& w = whole.dim(d);
    return (i - w.first()) / w.stride();
  };
  for (std::size_t d = 0; d < N; ++d) {
    if (layouts.size() == 1) {
      extents[d] = layouts.front().indices.dim(d).size();
      continue;
    }
    std::vector<index_t> seen;
    for (const auto& l : layouts)
      for (index_t t = 0; t < l.indices.dim(d).size(); ++t) seen.push_back(extended(d, l.indices.dim(d).index_at(t)));
    std::sort(seen.begin(), seen.end());
    extents[d] = static_cast<index_t>(std::unique(seen.begin(), seen.end()) - seen.begin());
  }
  // The strides must be those of one array of `extents` (any dimension order), compact or
  // with padded rows: by increasing stride, each at least the span of the ones below it.
  std::array<std::size_t, N> by_stride{};
  for (std::size_t d = 0; d < N; ++d) by_stride[d] = d;
  std::sort(by_stride.begin(), by_stride.end(),
            [&](std::size_t a, std::size_t b) { return abs_index(strides[a]) < abs_index(strides[b]); });
  index_t step = 1;
  for (std::size_t d : by_stride) {
    if (extents[d] > 1 && (strides[d] < step || (step == 1 && strides[d] != 1)))
      dap_cannot("locale " + std::to_string(q) + " stores its elements with strides that do not make one strided "
                 "array (dimension " + std::to_string(d) + " has stride " + std::to_string(strides[d]) + ", at least " +
                 std::to_string(step) + " expected); DAP describes one buffer of shape and strides");
    if (extents[d] > 1) step = strides[d] * extents[d];
  }
  for (std::size_t d = 0; d < N; ++d) slots[d].assign(static_cast<std::size_t>(extents[d]), std::numeric_limits<index_t>::min());
  for (const auto& l : layouts) {
    if (l.indices.empty()) continue;
    idx<N> corner{};
    for (std::size_t d = 0; d < N; ++d) corner[d] = l.indices.dim(d).first();
    index_t rest = l.offset_of(corner);
    std::array<index_t, N> slot{};
    for (std::size_t j = N; j-- > 0;) {
      const std::size_t d = by_stride[j];
      if (extents[d] <= 1) continue;
      slot[d] = rest / strides[d];
      rest %= strides[d];
    }
    for (std::size_t d = 0; d < N; ++d) {
      const range& r = l.indices.dim(d);
      if (r.size() > 1 && l.strides[d] != strides[d])
        dap_cannot("locale " + std::to_string(q) + "'s pieces are stored with different strides");
      if (slot[d] + r.size() > extents[d]) dap_cannot("locale " + std::to_string(q) + "'s pieces overlap in its buffer");
      for (index_t t = 0; t < r.size(); ++t) {
        index_t& s = slots[d][static_cast<std::size_t>(slot[d] + t)];
        const index_t p = extended(d, r.index_at(t));
        if (s != std::numeric_limits<index_t>::min() && s != p)
          dap_cannot("locale " + std::to_string(q) + "'s buffer holds two positions at one place along dimension " +
                     std::to_string(d));
        s = p;
      }
    }
  }
  for (std::size_t d = 0; d < N; ++d)
    for (const index_t s : slots[d])
      if (s == std::numeric_limits<index_t>::min())
        dap_cannot("locale " + std::to_string(q) + "'s buffer has gaps along dimension " + std::to_string(d) +
                   "; DAP describes a buffer whose every position holds an index");
  return slots;
}

/// Every locale's pieces under the map of `st`'s domain as if its empty dimensions held a
/// few indices (the descriptor's new_domain over a stand-in index set, a local computation
/// by the DSI's rules), so that an empty domain still tells how its other dimensions are
/// cut; nothing when the map refuses the stand-in. The rect is the stand-in index set.
template <std::size_t N>
std::optional<std::pair<rect<N>, placement<N>>> dap_stand_in(const domain_state<N>& st, const target_grid<N>& grid) {
  rect<N> stand_in = st.whole;
  const auto reach = st.model->ghost_reach().value_or(std::array<index_t, N>{});
  for (std::size_t d = 0; d < N; ++d) {
    const range& r = st.whole.dim(d);
    if (!r.empty()) continue;
    // One index per grid coordinate, more where ghost frames must fit in a chunk.
    const index_t count = static_cast<index_t>(grid.extent(d)) * std::max<index_t>(1, reach[d]);
    const index_t lo = r.lo() <= std::numeric_limits<index_t>::max() - count ? r.lo() : 0;
    stand_in.set_dim(d, range(lo, lo + count));
  }
  try {
    const auto model = st.model->with_indices(stand_in);
    placement<N> all(static_cast<std::size_t>(num_locales()));
    for (int q = 0; q < num_locales(); ++q) {
      const auto owned = model->local_subdomains(q);
      const auto layouts = model->local_layouts(q);
      for (std::size_t k = 0; k < owned.size() && k < layouts.size(); ++k)
        all[static_cast<std::size_t>(q)].push_back({owned[k], layouts[k], {}});
    }
    return std::pair{stand_in, std::move(all)};
  } catch (const error&) {
    return std::nullopt;
  }
}

/// The DAP description of `a` (both dap_export overloads; E is T or const T).
template <class E, class T, std::size_t N>
dap_description<E, N> dap_describe(const array<T, N>& a, const std::string& version) {
  check_array_live(a, "dmap::dap_export", "it has no domain or elements to describe");
  const int minor = dap_minor_version(version, "dmap::dap_export");
  const auto& st = *state_of(a.domain());
  using deal = dimension_kind::deal;
  const auto kinds = st.model->dimension_kinds();  // what the map declares, if anything
  dap_description<E, N> out;
  out.version = version;
  out.typestr = dap_typestr<T>();
  if (st.dir) {
    if constexpr (N != 1)
      dap_cannot(a.domain().name() + " places " + std::to_string(N) +
                 "-D indices one by one; DAP 'u' lists indices per dimension and describes only products of "
                 "per-dimension lists");
    dap_dimension& dim = out.dim_data[0];
    dim.dist_type = 'u';
    dim.size = st.whole.size();
    dim.proc_grid_size = num_locales();
    dim.proc_grid_rank = here();
    dim.indices = st.dir->stored();
    if (kinds && (*kinds)[0].kind == deal::listed) {
      dim.one_to_one = (*kinds)[0].one_to_one;
    } else {  // nothing declared: one to one when every stored index is owned here
      dim.one_to_one = true;
      for (std::size_t k = 0; k < st.dir->stored().size(); ++k) dim.one_to_one = dim.one_to_one && st.dir->owns_stored(k);
    }
    out.buffer = a.local_data();
    out.shape[0] = static_cast<index_t>(dim.indices.size());
    out.strides[0] = 1;
    return out;
  }
  const auto grid = st.model->grid();
  if (!grid)
    dap_cannot(a.domain().name() + " has no " + std::to_string(N) +
               "-D target grid; DAP places each process on a grid of proc_grid_size per dimension");
  if (grid->size() != num_locales())
    dap_cannot(a.domain().name() + " maps onto " + std::to_string(grid->size()) + " of the " +
               std::to_string(num_locales()) + " locales (a target-locale subset); DAP places every process "
               "on the grid (proc_grid_size per dimension multiplies to the process count)");
  // An empty domain has no pieces; a stand-in index set shows how its other dimensions are cut.
  const auto stand_in = st.whole.empty() ? dap_stand_in(st, *grid) : std::nullopt;
  const rect<N>& whole = stand_in ? stand_in->first : st.whole;
  const placement<N>& all = stand_in ? stand_in->second : st.blocks_of_all();
  const std::array<bool, N> periodic = st.model->periodic().value_or(std::array<bool, N>{});
  const auto coords = grid->coords_of(here());
  // Per dimension and grid coordinate: the positions held, and the padding of its frames.
  std::array<std::vector<dap_axis_class>, N> classes;
  std::array<std::vector<std::array<index_t, 2>>, N> pads;
  std::array<std::vector<bool>, N> pads_known;
  for (std::size_t d = 0; d < N; ++d) {
    classes[d].resize(static_cast<std::size_t>(grid->extent(d)));
    pads[d].assign(static_cast<std::size_t>(grid->extent(d)), {0, 0});
    pads_known[d].assign(static_cast<std::size_t>(grid->extent(d)), false);
  }
  for (int q = 0; q < grid->size(); ++q) {
    const auto& pieces = all[static_cast<std::size_t>(q)];
    if (pieces.empty()) continue;
    const auto c = grid->coords_of(q);
    std::array<std::vector<range>, N> mine;
    index_t owned = 0;
    for (const auto& b : pieces) {
      owned += b.owned.size();
      for (std::size_t d = 0; d < N; ++d) {
        const range r = dap_positions(whole.dim(d), b.owned.dim(d));
        if (std::find(mine[d].begin(), mine[d].end(), r) == mine[d].end()) mine[d].push_back(r);
      }
    }
    wide_int product = 1;
    for (std::size_t d = 0; d < N; ++d) {
      std::sort(mine[d].begin(), mine[d].end(), [](const range& x, const range& y) { return x.first() < y.first(); });
      index_t count = 0;
      for (std::size_t j = 0; j < mine[d].size(); ++j) {
        if (j > 0 && mine[d][j].first() <= mine[d][j - 1].last() && mine[d][j].stride() == 1 &&
            mine[d][j - 1].stride() == 1)
          dap_cannot("locale " + std::to_string(q) + "'s pieces overlap along dimension " + std::to_string(d) +
                     " without being a product of per-dimension sets");
        count += mine[d][j].size();
      }
      product *= count;
      auto& cls = classes[d][static_cast<std::size_t>(c[d])];
      if (cls.ranges.empty()) {
        cls.ranges = mine[d];
        cls.count = count;
      } else if (cls.ranges != mine[d]) {
        dap_cannot("locales at grid coordinate " + std::to_string(c[d]) + " along dimension " + std::to_string(d) +
                   " hold different positions along it (locale " + std::to_string(q) +
                   "); DAP gives each grid coordinate one set of positions");
      }
      // Padding: how far the (single) frame reaches beyond the owned positions.
      if (pieces.size() == 1) {
        const range& f = pieces.front().layout.indices.dim(d);
        const range& o = pieces.front().owned.dim(d);
        const index_t step = abs_index(o.stride());
        const std::array<index_t, 2> w{(o.aligned_low() - f.aligned_low()) / step,
                                       (f.aligned_high() - o.aligned_high()) / step};
        std::array<index_t, 2> in_order = whole.dim(d).stride() > 0 ? w : std::array<index_t, 2>{w[1], w[0]};
        auto known = pads_known[d][static_cast<std::size_t>(c[d])];
        if (known && pads[d][static_cast<std::size_t>(c[d])] != in_order)
          dap_cannot("locales at grid coordinate " + std::to_string(c[d]) + " along dimension " + std::to_string(d) +
                     " have different padding");
        pads[d][static_cast<std::size_t>(c[d])] = in_order;
        known = true;  // a vector<bool> reference: writes through
      } else if (!(pieces.front().layout.indices == pieces.front().owned)) {
        dap_cannot("locale " + std::to_string(q) + " stores several pieces with ghost cells");
      }
    }
    if (product != owned)
      dap_cannot("locale " + std::to_string(q) + "'s pieces are not the product of one set of positions per "
                 "dimension; DAP describes each process's part as such a product");
  }
  for (std::size_t d = 0; d < N; ++d) {
    if (!st.whole.dim(d).empty()) continue;
    // An empty dimension: no grid coordinate holds a position of it, or padding.
    for (auto& c : classes[d]) c = dap_axis_class{};
    for (auto& w : pads[d]) w = {0, 0};
  }
  if (st.whole.empty() && !stand_in)  // nothing to tell the cut by: grid coordinate 0 takes each dimension
    for (std::size_t d = 0; d < N; ++d) {
      classes[d][0].count = st.whole.dim(d).size();
      if (classes[d][0].count > 0) classes[d][0].ranges = {range(0, classes[d][0].count)};
    }
  std::array<index_t, N> strides{}, extents{};
  const auto slots = dap_buffer_slots(st.whole, st.my_layouts, here(), strides, extents);
  // Another locale's buffer slots, from the layouts every locale knows.
  const auto slots_of = [&](int q) {
    std::vector<dense_layout<N>> layouts;
    for (const auto& b : all[static_cast<std::size_t>(q)]) layouts.push_back(b.layout);
    std::array<index_t, N> their_strides{}, their_extents{};
    return dap_buffer_slots(whole, layouts, q, their_strides, their_extents);
  };
  const bool stores = !st.my_layouts.empty();
  out.buffer = stores ? a.local_data() : nullptr;
  for (std::size_t d = 0; d < N; ++d) {
    const int parts = grid->extent(d);
    const int k = coords[d];
    const index_t n = st.whole.dim(d).size();
    const dimension_kind declared = kinds ? (*kinds)[d] : dimension_kind{};
    dap_dimension& dim = out.dim_data[d];
    dim.proc_grid_size = parts;
    dim.proc_grid_rank = k;
    dim.size = n;
    dim.periodic = periodic[d];
    const auto& cls = classes[d];
    // Runs: each coordinate one ascending run, the runs tiling [0, n) in grid order.
    bool runs = true;
    index_t next = 0;
    for (int j = 0; j < parts && runs; ++j) {
      const auto& c = cls[static_cast<std::size_t>(j)];
      if (c.ranges.empty()) continue;
      runs = c.ranges.size() == 1 && (c.ranges[0].size() == 1 || c.ranges[0].stride() == 1) && c.ranges[0].first() == next;
      next += c.count;
    }
    runs = runs && next == n;
    // A deal: blocks of `block` positions dealt round robin from position 0, every coordinate
    // storing its positions in order (the same answer on every locale).
    const auto deals = [&](index_t block) {
      bool dealt = block > 0 && static_cast<wide_int>(block) * parts <= std::numeric_limits<index_t>::max();
      for (int j = 0; j < parts && dealt; ++j) {
        dap_dimension probe;
        probe.dist_type = 'c';
        probe.size = n;
        probe.proc_grid_size = parts;
        probe.proc_grid_rank = j;
        probe.block_size = block;
        probe.start = static_cast<index_t>(j) * block;
        dealt = cls[static_cast<std::size_t>(j)].count == num_owned_indices(probe);
        for (const range& r : cls[static_cast<std::size_t>(j)].ranges)
          dealt = dealt && dap_in_cyclic_class(r, block, parts, j);
      }
      std::vector<bool> seen(static_cast<std::size_t>(parts), false);
      for (int q = 0; q < grid->size() && dealt && n > 0; ++q) {
        const auto& pieces = all[static_cast<std::size_t>(q)];
        const auto j = static_cast<std::size_t>(grid->coords_of(q)[d]);
        if (pieces.empty() || seen[j]) continue;
        seen[j] = true;
        const auto theirs = slots_of(q);
        dealt = std::is_sorted(theirs[d].begin(), theirs[d].end());
      }
      return dealt;
    };
    // The kind: what the map declares when its pieces bear it out, else what they show.
    char kind = 'u';
    index_t block = 1;
    if (declared.kind == deal::listed) {
      kind = 'u';
    } else if (declared.kind == deal::cyclic) {
      block = declared.block_size;
      kind = deals(block) ? 'c' : 'u';
    } else if (declared.kind == deal::block) {
      kind = runs ? 'b' : 'u';
    } else if (runs) {
      kind = 'b';
    } else {
      // Nothing declared: the deal coordinate 0's first run suggests.
      const auto& zero = cls[0];
      block = 0;
      if (!zero.ranges.empty() && zero.ranges[0].first() == 0)
        block = zero.ranges[0].stride() == 1 || zero.ranges[0].size() == 1 ? zero.ranges[0].size() : 1;
      kind = deals(block) ? 'c' : 'u';
    }
    const bool padded = std::any_of(pads[d].begin(), pads[d].end(), [](const auto& w) { return w[0] > 0 || w[1] > 0; });
    if (padded && kind != 'b')
      dap_cannot("dimension " + std::to_string(d) + " has padding but its grid coordinates do not hold runs "
                 "of positions in grid order; DAP pads only 'b' dimensions");
    if (kind == 'b') {
      dim.dist_type = 'b';
      // Boundary padding: outside the first and last coordinates that hold positions (DAP
      // 0.10: along a periodic dimension too, holding the wrapped values; 0.9: there it is
      // communication padding).
      const bool edges_counted = !periodic[d] || minor >= 10;
      int first = -1, last = -1;
      for (int j = 0; j < parts; ++j)
        if (!cls[static_cast<std::size_t>(j)].ranges.empty()) last = j, first = first < 0 ? j : first;
      index_t boundary_low = 0, boundary_high = 0;
      if (edges_counted && first >= 0) {
        boundary_low = pads[d][static_cast<std::size_t>(first)][0];
        boundary_high = pads[d][static_cast<std::size_t>(last)][1];
        if ((boundary_low > 0 && first != 0) || (boundary_high > 0 && last != parts - 1))
          dap_cannot("dimension " + std::to_string(d) + " has " + std::to_string(n) + " indices over " +
                     std::to_string(parts) + " grid coordinates, and an edge coordinate owns none: its "
                     "boundary padding sits on another grid rank, which DAP (boundary padding on the first "
                     "and last grid ranks) cannot describe");
      }
      if (n > 0 && static_cast<wide_int>(n) + boundary_low + boundary_high > std::numeric_limits<index_t>::max())
        dap_cannot(dap_text("dimension ", d, ": ", n, " indices plus boundary padding ", boundary_low, " + ",
                            boundary_high, " exceed 2^63 - 1 positions"));
      dim.size = n > 0 ? n + boundary_low + boundary_high : 0;
      index_t lo = boundary_low;  // where coordinate k's owned positions begin
      for (int j = 0; j < k; ++j) lo += cls[static_cast<std::size_t>(j)].count;
      const auto& mine = cls[static_cast<std::size_t>(k)];
      const std::array<index_t, 2> w = mine.ranges.empty() ? std::array<index_t, 2>{0, 0} : pads[d][static_cast<std::size_t>(k)];
      dim.padding = w;
      const bool comm_low = k != 0 || !edges_counted, comm_high = k != parts - 1 || !edges_counted;
      if (minor >= 10) {
        dim.start = lo - w[0];
        dim.stop = lo + mine.count + w[1];
      } else {
        dim.start = lo - (comm_low ? 0 : w[0]);
        dim.stop = lo + mine.count + (comm_high ? 0 : w[1]);
      }
      if (minor < 10 && parts == 1 && !padded) {
        dim = dap_dimension{};
        dim.dist_type = 'n';
        dim.size = n;
      }
      out.shape[d] = mine.ranges.empty() ? 0 : mine.count + w[0] + w[1];
    } else if (kind == 'c') {
      dim.dist_type = 'c';
      dim.block_size = block;
      dim.start = static_cast<index_t>(k) * block;
      out.shape[d] = cls[static_cast<std::size_t>(k)].count;
    } else {
      dim.dist_type = 'u';
      if (n == 0) {
        // no positions to list
      } else if (stores) {
        dim.indices = slots[d];
      } else {  // nothing stored here: the order of a locale at the same coordinate that stores some
        for (int q = 0; q < grid->size(); ++q) {
          const auto& pieces = all[static_cast<std::size_t>(q)];
          if (pieces.empty() || grid->coords_of(q)[d] != k) continue;
          dim.indices = slots_of(q)[d];
          break;
        }
      }
      if (declared.kind == deal::listed) {
        dim.one_to_one = declared.one_to_one;
      } else {  // one to one unless grid coordinates share positions (replicated dimensions)
        index_t total = 0;
        for (const auto& c : cls) total += c.count;
        dim.one_to_one = total == n;
      }
      out.shape[d] = static_cast<index_t>(dim.indices.size());
    }
    out.strides[d] = strides[d];
  }
  if (!stores) {  // no buffer: compact row-major strides of the (empty) shape
    index_t step = 1;
    for (std::size_t d = N; d-- > 0;) out.strides[d] = step, step *= std::max<index_t>(out.shape[d], 1);
  }
  return out;
}

}  // namespace dmap::detail
