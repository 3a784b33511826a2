// DAP import: every locale's DAP description (dimension dictionaries plus its local buffer)
// becomes a dmap domain and an array adopting the buffers, without copying. The locales'
// dictionaries are checked against each other first.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "../dists/block.hpp"
#include "../dists/dimensional.hpp"
#include "../dists/padded.hpp"
#include "../dists/stencil.hpp"
#include "../dists/unstructured.hpp"
#include "../dsi/array.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/byte_exchange.hpp"
#include "dap.hpp"
#include "detail/dap_export.hpp"
#include "detail/dap_import.hpp"

namespace dmap {

/// Collective: the array every locale's description `x` describes, over a new domain whose
/// map places each index where the dictionaries say, adopting each locale's buffer (no
/// copy, no element message; `local_data()` is `x.buffer`). DAP positions become indices
/// one to one: a 'b' dimension's index set is its owned positions (boundary padding lies
/// outside it, as a Stencil's boundary cells), the others' [0, size). The map: Block when
/// every dimension is 'b' (or 'n') cut as Block cuts, Irregular Block cuts otherwise;
/// Stencil or Padded for padding and periodic dimensions (Stencil when one width and
/// Block's cut); Cyclic / BlockCyclic for 'c', Unstructured for 'u' (1-D: the directory map,
/// copies allowed; N-D: the Dimensional unstructured specifier, one_to_one), through the
/// Dimensional map when dimensions mix kinds; the map declares each dimension's kind
/// (`dimension_kinds()`: 'c' with its block size, 'u' with its one_to_one), so exporting the
/// array again gives back the same dictionaries. A periodic 'b' dimension in 0.10 counts
/// its edge padding in size (boundary padding holding the wrapped values); in 0.9 it is
/// communication padding, outside [start, stop) and size. An empty buffer may say start ==
/// size ('b' anywhere in the grid, 'c' where the deal gives nothing). Storage order and row
/// padding from the buffer's strides (padded rows: Block, Stencil and Padded with the
/// row_padding that gives every locale's strides, the map's default when it does). `T` must
/// not be const (the array writes its elements; a read-only export does not import).
/// Throws argument_error on every locale naming the dimension, the locale and the rule when
/// a description is invalid or the locales' descriptions disagree (grid sizes, sizes,
/// kinds, cover, padding), and unsupported_error naming what dmap cannot take (a grid not
/// in C order, a buffer that is not a row- or column-major array (compact or with padded
/// rows), rows padded unlike any row_padding or in a map other than those three, padding beside
/// 'c' or 'u' dimensions, 'u' with shared positions in N-D).
template <class T, std::size_t N>
array<T, N> dap_import(const dap_description<T, N>& x) {
  static_assert(!std::is_const_v<T>,
                "dmap::dap_import adopts writable buffers: a dap_description<const T, N> (dap_export of a const "
                "array) is read-only; import a description of non-const T");
  using detail::dap_text;
  const int p = num_locales();
  // 1. Each locale's own description, then what the others say.
  std::array<detail::dap_summary, N> mine{};
  agreed([&] {
    validate(x);
    const int minor = detail::dap_minor_version(x.version, "dmap::dap_import");
    if (!x.typestr.empty() && x.typestr != detail::dap_typestr<T>())
      throw argument_error("dmap::dap_import: on locale " + std::to_string(here()) + ", typestr is " +
                           detail::json_string(x.typestr) + "; it must be the element type's, " +
                           detail::json_string(detail::dap_typestr<T>()));
    for (std::size_t d = 0; d < N; ++d) {
      const dap_dimension& dim = x.dim_data[d];
      // A 'c' grid rank the deal gives nothing may say start == size (an empty buffer): the
      // same dictionary as start == proc_grid_rank * block_size.
      const index_t start = dim.dist_type == 'c' && detail::dap_cyclic_owns_nothing(dim)
                                ? static_cast<index_t>(dim.proc_grid_rank) * dim.block_size
                                : dim.start;
      mine[d] = {dim.dist_type, dim.periodic, dim.one_to_one, minor, dim.proc_grid_size, dim.proc_grid_rank, dim.size,
                 start, dim.stop, {dim.padding[0], dim.padding[1]}, dim.block_size,
                 static_cast<index_t>(dim.indices.size())};
    }
  });
  const auto all = all_gather(mine);
  // 'u' index lists travel whole.
  std::array<std::vector<std::vector<index_t>>, N> lists;
  for (std::size_t d = 0; d < N; ++d)
    if (std::any_of(all.begin(), all.end(), [&](const auto& s) { return s[d].dist_type == 'u'; })) {
      detail::byte_buffers out(static_cast<std::size_t>(p), detail::to_bytes(x.dim_data[d].indices));
      for (auto& bytes : detail::exchange(std::move(out))) lists[d].push_back(detail::from_bytes<index_t>(bytes));
    }
  // 2. The descriptions against each other; the same verdict on every locale.
  std::array<int, N> shape{};
  std::array<std::vector<const detail::dap_summary*>, N> at;  // per dimension and grid coordinate
  std::array<std::vector<int>, N> locale_at;
  agreed([&] {
    for (std::size_t d = 0; d < N; ++d) {
      const detail::dap_summary& first = all[0][d];
      shape[d] = first.proc_grid_size;
      for (int q = 1; q < p; ++q) {
        const detail::dap_summary& s = all[static_cast<std::size_t>(q)][d];
        const auto differ = [&](const std::string& key, const std::string& theirs, const std::string& ours) {
          detail::reject_import(d, dap_text("locale ", q, " says ", key, " ", theirs, ", locale 0 says ", ours,
                                            "; every locale must describe the same dimension"));
        };
        if (s.minor != first.minor) differ("__version__ 0.", std::to_string(s.minor), "0." + std::to_string(first.minor));
        if (s.dist_type != first.dist_type)
          differ("dist_type", detail::describe_dist_type(s.dist_type), detail::describe_dist_type(first.dist_type));
        if (s.size != first.size) differ("size", std::to_string(s.size), std::to_string(first.size));
        if (s.proc_grid_size != first.proc_grid_size)
          differ("proc_grid_size", std::to_string(s.proc_grid_size), std::to_string(first.proc_grid_size));
        if (s.periodic != first.periodic) differ("periodic", s.periodic ? "true" : "false", first.periodic ? "true" : "false");
        if (s.dist_type == 'c' && s.block_size != first.block_size)
          differ("block_size", std::to_string(s.block_size), std::to_string(first.block_size));
        if (s.dist_type == 'u' && s.one_to_one != first.one_to_one)
          differ("one_to_one", s.one_to_one ? "true" : "false", first.one_to_one ? "true" : "false");
      }
    }
    // Grid coordinates: each exactly once, in C order (dmap's locale numbering).
    std::vector<int> seen(static_cast<std::size_t>(p), -1);
    bool c_order = true;
    for (int q = 0; q < p; ++q) {
      long long flat = 0;
      for (std::size_t d = 0; d < N; ++d) flat = flat * shape[d] + all[static_cast<std::size_t>(q)][d].proc_grid_rank;
      if (seen[static_cast<std::size_t>(flat)] >= 0)
        throw argument_error(dap_text("dmap::dap_import: locales ", seen[static_cast<std::size_t>(flat)], " and ", q,
                                      " have the same proc_grid_ranks; each grid position must hold exactly one process"));
      seen[static_cast<std::size_t>(flat)] = q;
      c_order = c_order && flat == q;
    }
    if (!c_order)
      for (int q = 0; q < p; ++q) {
        long long flat = 0;
        for (std::size_t d = 0; d < N; ++d) flat = flat * shape[d] + all[static_cast<std::size_t>(q)][d].proc_grid_rank;
        if (flat != q)
          throw unsupported_error(dap_text("dmap::dap_import: locale ", q, " sits at grid position ", flat,
                                           " (C order); dmap numbers a grid's locales in C order, so locale q must sit "
                                           "at position q"));
      }
    for (std::size_t d = 0; d < N; ++d) {
      at[d].assign(static_cast<std::size_t>(shape[d]), nullptr);
      locale_at[d].assign(static_cast<std::size_t>(shape[d]), -1);
      for (int q = 0; q < p; ++q) {
        const detail::dap_summary& s = all[static_cast<std::size_t>(q)][d];
        auto& slot = at[d][static_cast<std::size_t>(s.proc_grid_rank)];
        if (slot == nullptr) {
          slot = &s;
          locale_at[d][static_cast<std::size_t>(s.proc_grid_rank)] = q;
          continue;
        }
        // One empty 'b' buffer marked by start == size, the other by its place: the same
        // buffer (the placed one is the one the cover checks).
        const bool same_empty = detail::dap_same_empty_block(s, *slot) &&
                                (s.start == slot->start || detail::dap_empty_marker(s) || detail::dap_empty_marker(*slot));
        const bool same = same_empty ||
                          (s.start == slot->start && s.stop == slot->stop && s.padding[0] == slot->padding[0] &&
                           s.padding[1] == slot->padding[1] && s.indices == slot->indices &&
                           (s.dist_type != 'u' || lists[d][static_cast<std::size_t>(q)] ==
                                                      lists[d][static_cast<std::size_t>(locale_at[d][static_cast<std::size_t>(s.proc_grid_rank)])]));
        if (same_empty && detail::dap_empty_marker(*slot) && !detail::dap_empty_marker(s)) slot = &s;
        if (!same)
          detail::reject_import(d, dap_text("locales ", locale_at[d][static_cast<std::size_t>(s.proc_grid_rank)], " and ",
                                            q, " are both at grid coordinate ", s.proc_grid_rank,
                                            " but describe it differently; locales at one grid coordinate must agree"));
      }
    }
  });
  // 3. The map.
  const target_grid<N> grid(shape);
  rect<N> indices;
  std::array<detail::dap_block_axis, N> blocks;
  bool all_block = true, padding = false;
  for (std::size_t d = 0; d < N; ++d) {
    const char kind = at[d][0]->dist_type;
    all_block = all_block && (kind == 'b' || kind == 'n');
    if (kind == 'b' || kind == 'n') {
      blocks[d] = agreed([&] { return detail::dap_block_cover(d, at[d]); });
      indices.set_dim(d, range(blocks[d].low, blocks[d].high));
      for (const auto& w : blocks[d].padding) padding = padding || w[0] > 0 || w[1] > 0;
      padding = padding || at[d][0]->periodic;
    } else {
      indices.set_dim(d, range(0, at[d][0]->size));
    }
  }
  // Storage order and row padding: the buffer's strides, a row- or column-major array of its
  // shape, compact or with padded rows (the leading dimension's stride exceeds the row length).
  const bool no_elements = std::any_of(x.shape.begin(), x.shape.end(), [](index_t e) { return e == 0; });
  // The row padding the strides show in `order` (-1 when they do not tell: one row, no
  // element, 1-D), or none when they are not such an array.
  const auto fit = [&](storage_order order) -> std::optional<index_t> {
    if (no_elements) return index_t{-1};  // no element: any strides, either order
    constexpr detail::wide_int beyond = detail::wide_int{1} << 63;
    detail::wide_int step = 1;
    index_t pad = -1;
    for (std::size_t j = 0; j < N; ++j) {
      const std::size_t d = order == storage_order::row_major ? N - 1 - j : j;
      if (j == 1 && x.shape[d] > 1) {
        if (x.strides[d] < step) return std::nullopt;
        pad = static_cast<index_t>(x.strides[d] - step);
        step = x.strides[d];
      }
      if (x.shape[d] > 1 && x.strides[d] != step) return std::nullopt;
      step = std::min(step * x.shape[d], beyond);
    }
    return pad;
  };
  const auto row_fit = fit(storage_order::row_major), column_fit = fit(storage_order::column_major);
  const bool row = row_fit.has_value(), column = column_fit.has_value();
  const storage_order order = row || !column ? storage_order::row_major : storage_order::column_major;
  const bool any_column = any_of_locales(!row && column), any_row_only = any_of_locales(row && !column);
  agreed([&] {
    if (!(row || column)) {
      std::string strides;
      for (std::size_t d = 0; d < N; ++d) strides += (d ? ", " : "") + std::to_string(x.strides[d]);
      throw unsupported_error(dap_text("dmap::dap_import: on locale ", here(), ", the buffer's strides (", strides,
                                       " elements) are not those of a row- or column-major array of its shape "
                                       "(compact or with padded rows); dmap adopts only those"));
    }
    if (any_column && any_row_only)
      throw unsupported_error("dmap::dap_import: some locales' buffers are row-major and others column-major; dmap "
                              "stores every locale's part in one order");
  });
  const storage_order agreed_order = any_column ? storage_order::column_major : order;
  // Every locale's row padding and row length: the padding policy must give each its strides.
  const std::optional<index_t>& my_fit = agreed_order == storage_order::row_major ? row_fit : column_fit;
  const index_t my_row = x.shape[agreed_order == storage_order::row_major ? N - 1 : 0];
  const auto rows_of_all = all_gather(std::array<index_t, 2>{my_fit.value_or(-1), my_row});
  const auto pads_as = [&](const row_padding& policy) {
    return std::all_of(rows_of_all.begin(), rows_of_all.end(), [&](const std::array<index_t, 2>& r) {
      return r[0] < 0 || r[0] == policy.extra(r[1]);
    });
  };
  // The policy that pads every locale's rows as its buffer does, `preferred` (the map's
  // default) when it does; none when no policy does.
  const auto row_policy = [&](const row_padding& preferred) -> std::optional<row_padding> {
    if (pads_as(preferred)) return preferred;
    for (const row_padding& p : {row_padding::none(), row_padding::automatic()})
      if (pads_as(p)) return p;
    for (const auto& r : rows_of_all)
      if (r[0] > 0) return pads_as(row_padding::fixed(r[0])) ? std::optional<row_padding>(row_padding::fixed(r[0])) : std::nullopt;
    return std::nullopt;
  };
  const auto no_policy = [&](const std::string& maps) {
    throw unsupported_error("dmap::dap_import: the locales' buffers pad their rows (leading-dimension stride beyond "
                            "the row length) in a way no dmap::row_padding of " + maps + " gives (the same number "
                            "of elements everywhere, or automatic padding); dmap adopts only those");
  };
  std::optional<domain<N>> dom;
  if (all_block && padding) {
    // Stencil when Block's cut and one width everywhere, Padded otherwise.
    std::array<std::vector<index_t>, N> cuts;
    std::array<std::vector<padding_widths>, N> widths;
    std::array<bool, N> periodic{};
    bool stencil_like = true;
    idx<N> fluff{};
    const block_domain<N> block_cut(block<N>(grid, agreed_order), indices);
    for (std::size_t d = 0; d < N; ++d) {
      periodic[d] = at[d][0]->periodic;
      fluff[d] = blocks[d].padding[0][0];
      for (std::size_t k = 0; k < blocks[d].padding.size(); ++k) {
        if (k > 0) cuts[d].push_back(blocks[d].owned_lo[k]);
        widths[d].push_back(blocks[d].padding[k]);
        const range expected = block_cut.chunk_range(d, static_cast<int>(k));
        const index_t lo = expected.empty() ? blocks[d].owned_lo[k] : expected.lo();
        stencil_like = stencil_like && blocks[d].padding[k][0] == fluff[d] && blocks[d].padding[k][1] == fluff[d] &&
                       lo == blocks[d].owned_lo[k] && expected.size() == blocks[d].owned_hi[k] - blocks[d].owned_lo[k];
      }
    }
    const auto rows = row_policy(row_padding::automatic());
    if (!rows) no_policy(stencil_like ? "Stencil" : "Padded");
    if (stencil_like) dom.emplace(stencil<N>(fluff, periodic, grid, agreed_order, *rows), indices);
    else dom.emplace(padded<N>(cuts, widths, periodic, grid, agreed_order, *rows), indices);
  } else if (padding) {
    throw unsupported_error("dmap::dap_import: padding or periodic flags on 'b' dimensions beside 'c' or 'u' "
                            "dimensions; dmap pads only maps whose every dimension is a block");
  } else if (N == 1 && at[0][0]->dist_type == 'u') {  // 1-D: no rows to pad
    if constexpr (N == 1) dom.emplace(unstructured<1>(x.dim_data[0].indices, at[0][0]->one_to_one), indices);
  } else {
    std::array<dim_spec, N> specs;
    bool block_cut = all_block;
    const block_domain<N> candidate(block<N>(grid, agreed_order), indices);
    for (std::size_t d = 0; d < N; ++d) {
      const detail::dap_summary& s = *at[d][0];
      if (s.dist_type == 'n') {
        specs[d] = none_dim{};
      } else if (s.dist_type == 'b') {
        irregular_dim cut;
        for (std::size_t k = 1; k < blocks[d].owned_lo.size(); ++k) cut.cuts.push_back(blocks[d].owned_lo[k]);
        for (std::size_t k = 0; k < blocks[d].owned_lo.size(); ++k) {
          const range expected = candidate.chunk_range(d, static_cast<int>(k));
          block_cut = block_cut && expected.size() == blocks[d].owned_hi[k] - blocks[d].owned_lo[k] &&
                      (expected.empty() || expected.lo() == blocks[d].owned_lo[k]);
        }
        specs[d] = cut;
      } else if (s.dist_type == 'c') {
        specs[d] = s.block_size == 1 ? dim_spec{cyclic_dim{}} : dim_spec{block_cyclic_dim{s.block_size, {}}};
      } else {
        unstructured_dim u;
        u.one_to_one = s.one_to_one;  // as it came in: exports say it again
        for (std::size_t k = 0; k < at[d].size(); ++k)
          u.lists.push_back(lists[d][static_cast<std::size_t>(locale_at[d][k])]);
        std::vector<index_t> every;
        for (const auto& l : u.lists) every.insert(every.end(), l.begin(), l.end());
        std::sort(every.begin(), every.end());
        const bool partition = std::adjacent_find(every.begin(), every.end()) == every.end() &&
                               static_cast<index_t>(every.size()) == s.size;
        if (!partition && s.one_to_one)
          detail::reject_import(d, "its 'u' lists say one_to_one, but together they do not hold every position of "
                                   "[0, size) exactly once");
        if (!partition)
          throw unsupported_error(dap_text("dmap::dap_import: dimension ", d, " is 'u' and its grid coordinates "
                                           "share or miss positions; in more than one dimension dmap takes 'u' "
                                           "lists that hold every position once"));
        specs[d] = u;
      }
    }
    if (block_cut && all_block) {
      const auto rows = row_policy(row_padding::none());
      if (!rows) no_policy("Block");
      dom.emplace(block<N>(grid, agreed_order, *rows), indices);
    } else {
      if (!pads_as(row_padding::none()))
        throw unsupported_error("dmap::dap_import: the locales' buffers pad their rows (leading-dimension stride "
                                "beyond the row length), but the dimensions are not all blocks cut as Block cuts; "
                                "dmap pads the rows of Block, Stencil and Padded maps only");
      dom.emplace(dimensional<N>(specs, grid, agreed_order), indices);
    }
  }
  // The buffer's elements: one past the last one its shape and strides reach (saturated:
  // shapes are checked, their product is not).
  detail::wide_int elements = no_elements ? 0 : 1;
  for (std::size_t d = 0; d < N && !no_elements; ++d)
    elements = std::min<detail::wide_int>(
        elements + static_cast<detail::wide_int>(x.shape[d] - 1) *
                       (x.strides[d] < 0 ? -static_cast<detail::wide_int>(x.strides[d]) : x.strides[d]),
        std::numeric_limits<index_t>::max());
  return array<T, N>(*dom, foreign_buffer<T, N>{x.buffer, static_cast<index_t>(elements), x.strides});
}

}  // namespace dmap
