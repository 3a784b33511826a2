// The examples of the Distributed Array Protocol 0.10.0 documentation ("Examples", 2.1-2.12),
// reproduced with dmap's distributions: each rank's dimension dictionaries, local buffer
// shape and local buffer contents against the document's, key by key and value by value.
//
// Each example is for one number of processes; its test returns early (passing, nothing
// checked) on any other locale count. Every example also has a scaled variant that runs on
// any locale count: the same distribution kinds over grids of the current locale count,
// checked against the protocol's own definitions of ownership (block: the contiguous
// positions [start, stop); cyclic: the positions p with (p / block_size) % proc_grid_size ==
// proc_grid_rank) computed here by brute force, not by dmap's helpers.
//
// Not reproduced here:
//   2.2 "Block with padding" is tests/interop/test_dap.cpp's.
// 2.3 "Unstructured" is reproduced twice (Dimensional with an unstructured specifier, and
// the directory-backed Unstructured map); 2.11 "Unstructured, Unstructured" by Dimensional.
//
// Notes on the document's text (the PDF extraction is damaged in places):
//   2.1 says "2 rows and 1 column" and then "the proc_grid_size of the first dimension is 1";
//   its dim_data has proc_grid_size 2 for dimension 0 and 1 for dimension 1 (a 2x1 grid),
//   which is what is reproduced.
//   2.5 stops before the dim_data of process (0, 2); it follows the pattern of (0, 0) and
//   (0, 1): dimension 1 is {start 6, stop 9}.
//   2.12's dim_data cells are garbled; the dictionaries used here are the only ones
//   consistent with its (legible) buffers and its title: 'c' over 5 rows, 'b' over 9
//   columns ([0, 5) and [5, 9)), 'c' over 3 planes, on a 2x2x2 grid. It needs 8 locales.
//   The appendix's num_owned_indices_from_cyclic gives a trailing partial block to grid
//   rank 0, against the cyclic definition; dmap's helper (and these tests) follow the
//   definition.
//
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace test_dap_examples {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::index_t;

// ------------------------------------------------------------------ the document's side

// One dimension dictionary as the document prints it: only the keys it shows.
struct doc_dim {
  char dist_type = 'b';
  index_t size = 0;
  int proc_grid_size = 1;
  int proc_grid_rank = 0;
  index_t start = 0;
  index_t stop = 0;        // 'b' only
  index_t block_size = 1;  // 'c' only (absent in the document = 1)
};

doc_dim b(index_t size, int grid_size, int grid_rank, index_t start, index_t stop) {
  return {'b', size, grid_size, grid_rank, start, stop, 1};
}
doc_dim c(index_t size, int grid_size, int grid_rank, index_t start, index_t block_size = 1) {
  return {'c', size, grid_size, grid_rank, start, 0, block_size};
}

// One process of an example: its dim_data, its buffer's shape and its buffer, row-major as
// the document prints it.
template <std::size_t N>
struct doc_process {
  std::array<doc_dim, N> dim_data;
  std::array<index_t, N> shape;
  std::vector<double> buffer;
};

// The keys of `got` that differ from the document's `want`, as text ("" when none). For
// 'b': padding (0, 0) and periodic false, the protocol's defaults when the document omits
// them and what it prints as 'padding': [0, 0] where it shows them.
std::string mismatches(const dmap::dap_dimension& got, const doc_dim& want) {
  std::ostringstream s;
  const auto key = [&](const char* name, auto g, auto w) {
    if (g != w) s << name << ": dmap " << g << ", document " << w << "; ";
  };
  key("dist_type", got.dist_type, want.dist_type);
  key("size", got.size, want.size);
  key("proc_grid_size", got.proc_grid_size, want.proc_grid_size);
  key("proc_grid_rank", got.proc_grid_rank, want.proc_grid_rank);
  key("start", got.start, want.start);
  if (want.dist_type == 'b') {
    key("stop", got.stop, want.stop);
    key("padding[0]", got.padding[0], index_t{0});
    key("padding[1]", got.padding[1], index_t{0});
    key("periodic", got.periodic, false);
  } else {
    key("block_size", got.block_size, want.block_size);
  }
  return s.str();
}

std::vector<double> arange(index_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(k);
  return v;
}

template <class T>
std::string text(const T& values) {
  std::ostringstream s;
  s << '[';
  bool first = true;
  for (const auto& v : values) s << (first ? "" : ", ") << v, first = false;
  s << ']';
  return s.str();
}

// ------------------------------------------------------------------ dmap's side

// Writes global[row-major order of i] into every element this locale owns.
template <std::size_t N>
void fill_global(dmap::array<double, N>& A, const std::vector<double>& global) {
  const auto& whole = A.domain().indices();
  for (const auto& r : A.domain().local_subdomains())
    for (index_t k = 0; k < r.size(); ++k) {
      const auto i = r.index_at(k);
      A.local(i) = global[static_cast<std::size_t>(whole.order_of(i))];
    }
}

// The local buffer as a DAP consumer reads it: every position of `shape`, in C order,
// through the exported pointer and element strides.
template <std::size_t N>
std::vector<double> read_buffer(const dmap::dap_description<double, N>& x) {
  index_t total = 1;
  for (std::size_t d = 0; d < N; ++d) total *= x.shape[d];
  std::vector<double> out;
  for (index_t k = 0; k < total; ++k) {
    index_t rest = k, offset = 0;
    for (std::size_t d = N; d-- > 0;) {
      offset += (rest % x.shape[d]) * x.strides[d];
      rest /= x.shape[d];
    }
    out.push_back(x.buffer[offset]);
  }
  return out;
}

// Collective: the document's description of this process, over a copy of its buffer, is
// imported (dap_import) without copying or element messages, holds the document's values
// at their global indices, and exports again to the document's dictionaries and shape.
template <std::size_t N>
void check_round_trip(const doc_process<N>& want, const std::vector<double>& global) {
  std::vector<double> foreign = want.buffer;
  dmap::dap_description<double, N> in;
  in.buffer = foreign.empty() ? nullptr : foreign.data();
  in.shape = want.shape;
  index_t step = 1;
  for (std::size_t d = N; d-- > 0;) in.strides[d] = step, step *= std::max<index_t>(want.shape[d], 1);
  for (std::size_t d = 0; d < N; ++d) {
    const doc_dim& w = want.dim_data[d];
    dmap::dap_dimension& dim = in.dim_data[d];
    dim.dist_type = w.dist_type;
    dim.size = w.size;
    dim.proc_grid_size = w.proc_grid_size;
    dim.proc_grid_rank = w.proc_grid_rank;
    dim.start = w.start;
    dim.stop = w.dist_type == 'b' ? w.stop : 0;
    dim.block_size = w.block_size;
  }
  const auto before = dmap::counters();
  dmap::array<double, N> B = dmap::dap_import(in);
  const auto spent = dmap::counters() - before;
  INFO("imported as " << B.domain().name());
  DMAP_CHECK_ALL(B.adopted());
  DMAP_CHECK_ALL((B.local_data() == in.buffer || foreign.empty()));
  DMAP_CHECK_ALL((spent.messages_sent == 0 && spent.bytes_sent == 0));
  const auto& whole = B.domain().indices();
  bool values = static_cast<std::size_t>(whole.size()) == global.size();
  for (index_t k = 0; values && k < whole.size(); ++k)
    values = B[whole.index_at(k)] == global[static_cast<std::size_t>(k)];
  DMAP_CHECK_ALL(values);
  const auto y = dmap::dap_export(B);
  std::string diff;
  for (std::size_t d = 0; d < N; ++d) diff += mismatches(y.dim_data[d], want.dim_data[d]);
  INFO("round trip: " << diff);
  DMAP_CHECK_ALL(diff.empty());
  DMAP_CHECK_ALL(y.shape == want.shape);
  DMAP_CHECK_ALL((y.buffer == in.buffer || foreign.empty()));
}

// Collective: the document's example `doc` (one entry per rank) against A's description on
// this locale. `global` holds the values of the whole array in row-major order.
template <std::size_t N>
void check_example(dmap::array<double, N>& A, const std::vector<double>& global,
                   const std::vector<doc_process<N>>& doc) {
  DMAP_REQUIRE_ALL(doc.size() == static_cast<std::size_t>(dmap::num_locales()));
  fill_global(A, global);
  const doc_process<N>& want = doc[static_cast<std::size_t>(dmap::here())];
  const auto x = dmap::dap_export(A);
  INFO("array " << A.domain().name() << " over " << A.domain().indices() << ", locale " << dmap::here());

  DMAP_CHECK_ALL(x.version == "0.10.0");
  for (std::size_t d = 0; d < N; ++d) {
    const std::string diff = mismatches(x.dim_data[d], want.dim_data[d]);
    INFO("dimension " << d << ": " << diff << " json " << dmap::to_json(x.dim_data[d]));
    DMAP_CHECK_ALL(diff.empty());
    bool valid = true;
    std::string why;
    try {
      dmap::validate(x.dim_data[d]);
    } catch (const dmap::argument_error& e) {
      valid = false;
      why = e.what();
    }
    INFO(why);
    DMAP_CHECK_ALL(valid);
  }

  INFO("shape dmap " << text(x.shape) << ", document " << text(want.shape));
  DMAP_CHECK_ALL(x.shape == want.shape);
  // The document's buffers are C-contiguous NumPy arrays; dmap's default storage is too.
  bool c_order = true;
  index_t step = 1;
  for (std::size_t d = N; d-- > 0;) {
    if (x.shape[d] > 1 && x.strides[d] != step) c_order = false;
    step *= x.shape[d];
  }
  INFO("strides " << text(x.strides));
  DMAP_CHECK_ALL(c_order);

  // The buffer through the DAP description (pointer, shape, strides), as a consumer reads it.
  const std::vector<double> seen = read_buffer(x);
  INFO("buffer dmap " << text(seen) << ", document " << text(want.buffer));
  DMAP_CHECK_ALL(seen == want.buffer);

  // The same elements through local_blocks(): each owned element holds its global value, and
  // the owned values are exactly the document's buffer.
  const auto& blocks = A.local_blocks();
  const auto& owned = A.domain().local_subdomains();
  const auto& whole = A.domain().indices();
  std::vector<double> from_blocks;
  bool right_values = blocks.size() == owned.size();
  for (std::size_t k = 0; right_values && k < blocks.size(); ++k)
    for (index_t j = 0; j < owned[k].size(); ++j) {
      const auto i = owned[k].index_at(j);
      const double v = blocks[k](i);
      from_blocks.push_back(v);
      if (v != global[static_cast<std::size_t>(whole.order_of(i))]) right_values = false;
    }
  std::sort(from_blocks.begin(), from_blocks.end());
  std::vector<double> doc_sorted = want.buffer;
  std::sort(doc_sorted.begin(), doc_sorted.end());
  INFO("local_blocks values (sorted) " << text(from_blocks));
  DMAP_CHECK_ALL(right_values);
  DMAP_CHECK_ALL(from_blocks == doc_sorted);
  DMAP_CHECK_ALL(A.domain().local_size() == static_cast<index_t>(want.buffer.size()));
  check_round_trip(want, global);
}

// ------------------------------------------------------------------ the protocol's definitions

// The positions (0-based, in [0, size)) a dimension dictionary says its process owns, by
// brute force from the protocol's text: 'b' the contiguous [start, stop) less communication
// padding; 'c' the positions p with (p / block_size) % proc_grid_size == proc_grid_rank.
std::vector<index_t> owned_by_definition(const dmap::dap_dimension& d) {
  std::vector<index_t> out;
  if (d.block_size < 1 || d.proc_grid_size < 1) return out;  // validate() reports these
  for (index_t p = 0; p < d.size; ++p) {
    bool mine;
    if (d.dist_type == 'c') {
      mine = (p / d.block_size) % d.proc_grid_size == d.proc_grid_rank;
    } else {
      const index_t lo = d.start + (d.proc_grid_rank != 0 ? d.padding[0] : 0);
      const index_t hi = d.stop - (d.proc_grid_rank != d.proc_grid_size - 1 ? d.padding[1] : 0);
      mine = lo <= p && p < hi;
    }
    if (mine) out.push_back(p);
  }
  return out;
}

// Collective: A's description on this locale against the protocol, for an array of any
// shape over the grid `g`. kinds[d] is 0 for a dimension expected as 'b', else the expected
// block_size of a 'c' dimension: what the map is, whatever the shape (a deal of at most one
// block per grid coordinate, or over one grid coordinate, is still 'c' with its block size).
template <std::size_t N>
void check_scaled(dmap::array<double, N>& A, const dmap::target_grid<N>& g, std::array<index_t, N> kinds) {
  const auto& whole = A.domain().indices();
  INFO("array " << A.domain().name() << " over " << whole << ", grid " << g << ", locale " << dmap::here());
  fill_global(A, arange(whole.size()));
  const auto x = dmap::dap_export(A);
  const auto me = g.coords_of(dmap::here());

  std::array<std::vector<index_t>, N> mine;
  for (std::size_t d = 0; d < N; ++d) {
    const dmap::dap_dimension& dim = x.dim_data[d];
    INFO("dimension " << d << ": " << dmap::to_json(dim));
    bool valid = true;
    std::string why;
    try {
      dmap::validate(dim);
    } catch (const dmap::argument_error& e) {
      valid = false;
      why = e.what();
    }
    INFO(why);
    DMAP_CHECK_ALL(valid);
    // The keys every dictionary has, from the grid and the domain (not from the export).
    DMAP_CHECK_ALL(dim.dist_type == (kinds[d] == 0 ? 'b' : 'c'));
    DMAP_CHECK_ALL(dim.size == whole.dim(d).size());
    DMAP_CHECK_ALL(dim.proc_grid_size == g.extent(d));
    DMAP_CHECK_ALL(dim.proc_grid_rank == me[d]);
    if (kinds[d] == 0) {
      DMAP_CHECK_ALL(dim.padding == (std::array<index_t, 2>{0, 0}));
      DMAP_CHECK_ALL(!dim.periodic);
      DMAP_CHECK_ALL(dim.stop - dim.start == x.shape[d]);
    } else {
      DMAP_CHECK_ALL(dim.block_size == kinds[d]);
      DMAP_CHECK_ALL(dim.start == me[d] * kinds[d]);
    }
    // The owned count: brute force from the definition = the appendix helper = buffer extent.
    mine[d] = owned_by_definition(dim);
    const auto count = static_cast<index_t>(mine[d].size());
    INFO("owned positions by definition " << text(mine[d]) << ", num_owned_indices "
                                          << dmap::num_owned_indices(dim) << ", shape " << x.shape[d]);
    DMAP_CHECK_ALL(count == dmap::num_owned_indices(dim));
    DMAP_CHECK_ALL(count == x.shape[d]);

    // Summed over the locales of one grid line (the others' coordinates 0), the owned counts
    // give `size`: the helper's and the brute-force ones.
    bool on_line = true;
    for (std::size_t e = 0; e < N; ++e)
      if (e != d && me[e] != 0) on_line = false;
    DMAP_CHECK_ALL(dmap::all_reduce_sum(on_line ? dmap::num_owned_indices(dim) : index_t{0}) == dim.size);
    DMAP_CHECK_ALL(dmap::all_reduce_sum(on_line ? count : index_t{0}) == dim.size);

    // Identical dim_data along an axis; adjacent 'b' ranges meet (stop of rank r = start of
    // rank r + 1, the first starts at 0, the last stops at size).
    // (the dictionaries of these maps carry no 'u' index list, so their fixed fields say all)
    struct fixed_fields {
      char dist_type;
      index_t size, start, stop, block_size;
      int proc_grid_size, proc_grid_rank;
      std::array<index_t, 2> padding;
      bool periodic;
      bool operator==(const fixed_fields&) const = default;
    };
    const auto fixed = [](const dmap::dap_dimension& x) {
      return fixed_fields{x.dist_type, x.size, x.start, x.stop, x.block_size, x.proc_grid_size, x.proc_grid_rank,
                          x.padding, x.periodic};
    };
    const auto all = dmap::all_gather(fixed(dim));
    bool identical = true, adjacent = true;
    for (std::size_t q = 0; q < all.size(); ++q) {
      const auto cq = g.coords_of(static_cast<int>(q));
      if (cq[d] == me[d] && !(all[q] == fixed(dim))) identical = false;
      if (kinds[d] != 0) continue;
      if (cq[d] == 0 && all[q].start != 0) adjacent = false;
      if (cq[d] == g.extent(d) - 1 && all[q].stop != dim.size) adjacent = false;
      if (cq[d] == me[d] + 1 && all[q].start != dim.stop) adjacent = false;
    }
    DMAP_CHECK_ALL(identical);
    DMAP_CHECK_ALL(adjacent);
  }

  // Ownership of every global index: the product of the per-dimension positions by
  // definition against dmap's own locale_of, and the count against the local size.
  index_t by_definition = 0, disagreements = 0;
  for (index_t k = 0; k < whole.size(); ++k) {
    const auto i = whole.index_at(k);
    bool def = true;
    for (std::size_t d = 0; d < N; ++d)
      def = def && std::binary_search(mine[d].begin(), mine[d].end(), whole.dim(d).order_of(i[d]));
    by_definition += def ? 1 : 0;
    if (def != (A.domain().locale_of(i) == dmap::here())) ++disagreements;
  }
  INFO("indices owned by definition " << by_definition << ", dmap local size " << A.domain().local_size()
                                      << ", disagreements " << disagreements);
  DMAP_CHECK_ALL(disagreements == 0);
  DMAP_CHECK_ALL(by_definition == A.domain().local_size());

  // The buffer as a consumer maps it: local position a along d is the a-th owned global
  // position; the element there must hold that index's global value (its row-major order).
  // (Only where the shape matches the definition's counts, which is checked above; no
  // locale may throw or read out of bounds here while the others go on to a collective.)
  index_t total = 1;
  bool comparable = true;
  for (std::size_t d = 0; d < N; ++d) {
    total *= x.shape[d];
    if (static_cast<index_t>(mine[d].size()) != x.shape[d]) comparable = false;
  }
  index_t wrong = comparable ? 0 : total;
  for (index_t k = 0; comparable && k < total; ++k) {
    index_t rest = k, offset = 0;
    dmap::idx<N> i{};
    for (std::size_t d = N; d-- > 0;) {
      const index_t a = rest % x.shape[d];
      rest /= x.shape[d];
      offset += a * x.strides[d];
      i[d] = whole.dim(d).index_at(mine[d][static_cast<std::size_t>(a)]);
    }
    if (x.buffer[offset] != static_cast<double>(whole.order_of(i))) ++wrong;
  }
  INFO("buffer elements not where the description puts them: " << wrong << " of " << total);
  DMAP_CHECK_ALL(wrong == 0);
}

// True when dap_export(A) throws unsupported_error (false for no exception or another one).
template <std::size_t N>
bool export_throws_unsupported(dmap::array<double, N>& A) {
  try {
    (void)dmap::dap_export(A);
  } catch (const dmap::unsupported_error&) {
    return true;
  } catch (...) {
    return false;
  }
  return false;
}

// The grids of the current locale count a scaled 2-D example runs on.
std::vector<dmap::target_grid<2>> grids2() {
  const int p = dmap::num_locales();
  return {dmap::target_grid<2>{}, dmap::target_grid<2>{{p, 1}}, dmap::target_grid<2>{{1, p}}};
}

// 5 x 9 as in the document, the same shifted to other bounds (DAP positions are 0-based
// orders, whatever the indices), and shapes thinner than the grid (empty local buffers).
std::vector<dmap::rect<2>> shapes2() {
  return {dmap::rect<2>{{0, 5}, {0, 9}}, dmap::rect<2>{{0, 2}, {0, 10}}, dmap::rect<2>{{-2, 3}, {4, 13}},
          dmap::rect<2>{{0, 2}, {0, 3}}, dmap::rect<2>{{7, 8}, {0, 1}}};
}

}  // namespace

// ================================================================== the examples

TEST_CASE("DAP example 2.1: block, block, 2x10 over a 2x1 grid", "[dap]") {
  if (dmap::num_locales() != 2) return;  // the example is for exactly two processes
  const std::vector<double> row0 = {0.2, 0.6, 0.9, 0.6, 0.8, 0.4, 0.2, 0.2, 0.3, 0.5};
  const std::vector<double> row1 = {0.9, 0.2, 1., 0.4, 0.5, 0., 0.6, 0.8, 0.6, 1.};
  std::vector<double> global = row0;
  global.insert(global.end(), row1.begin(), row1.end());
  dmap::domain D{dmap::block<2>{dmap::target_grid<2>{{2, 1}}}, dmap::rect<2>{{0, 2}, {0, 10}}};
  dmap::array<double, 2> A{D};
  check_example<2>(A, global,
                   {
                       {{{b(2, 2, 0, 0, 1), b(10, 1, 0, 0, 10)}}, {{1, 10}}, row0},
                       {{{b(2, 2, 1, 1, 2), b(10, 1, 0, 0, 10)}}, {{1, 10}}, row1},
                   });
}

// 2.2 "Block with padding": tests/interop/test_dap.cpp.
// 2.3 "Unstructured": dist_type 'u' - dmap has no unstructured distribution yet.

TEST_CASE("DAP example 2.4: block, block, 5x9 over a 3x1 grid", "[dap]") {
  if (dmap::num_locales() != 3) return;  // the example is for exactly three processes
  dmap::domain D{dmap::block<2>{dmap::target_grid<2>{{3, 1}}}, dmap::rect<2>{{0, 5}, {0, 9}}};
  dmap::array<double, 2> A{D};
  check_example<2>(
      A, arange(45),
      {
          {{{b(5, 3, 0, 0, 2), b(9, 1, 0, 0, 9)}},
           {{2, 9}},
           {0., 1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15., 16., 17.}},
          {{{b(5, 3, 1, 2, 4), b(9, 1, 0, 0, 9)}},
           {{2, 9}},
           {18., 19., 20., 21., 22., 23., 24., 25., 26., 27., 28., 29., 30., 31., 32., 33., 34., 35.}},
          {{{b(5, 3, 2, 4, 5), b(9, 1, 0, 0, 9)}}, {{1, 9}}, {36., 37., 38., 39., 40., 41., 42., 43., 44.}},
      });
}

TEST_CASE("DAP example 2.5: block, block, 5x9 over a 1x3 grid", "[dap]") {
  if (dmap::num_locales() != 3) return;  // the example is for exactly three processes
  dmap::domain D{dmap::block<2>{dmap::target_grid<2>{{1, 3}}}, dmap::rect<2>{{0, 5}, {0, 9}}};
  dmap::array<double, 2> A{D};
  check_example<2>(A, arange(45),
                   {
                       {{{b(5, 1, 0, 0, 5), b(9, 3, 0, 0, 3)}},
                        {{5, 3}},
                        {0., 1., 2., 9., 10., 11., 18., 19., 20., 27., 28., 29., 36., 37., 38.}},
                       {{{b(5, 1, 0, 0, 5), b(9, 3, 1, 3, 6)}},
                        {{5, 3}},
                        {3., 4., 5., 12., 13., 14., 21., 22., 23., 30., 31., 32., 39., 40., 41.}},
                       // The document's text breaks off in this process's dim_data (see the top).
                       {{{b(5, 1, 0, 0, 5), b(9, 3, 2, 6, 9)}},
                        {{5, 3}},
                        {6., 7., 8., 15., 16., 17., 24., 25., 26., 33., 34., 35., 42., 43., 44.}},
                   });
}

TEST_CASE("DAP example 2.6: block, block, 5x9 over a 2x2 grid", "[dap]") {
  if (dmap::num_locales() != 4) return;  // the example is for exactly four processes
  dmap::domain D{dmap::block<2>{dmap::target_grid<2>{{2, 2}}}, dmap::rect<2>{{0, 5}, {0, 9}}};
  dmap::array<double, 2> A{D};
  check_example<2>(A, arange(45),
                   {
                       {{{b(5, 2, 0, 0, 3), b(9, 2, 0, 0, 5)}},  // process (0, 0)
                        {{3, 5}},
                        {0., 1., 2., 3., 4., 9., 10., 11., 12., 13., 18., 19., 20., 21., 22.}},
                       {{{b(5, 2, 0, 0, 3), b(9, 2, 1, 5, 9)}},  // process (0, 1)
                        {{3, 4}},
                        {5., 6., 7., 8., 14., 15., 16., 17., 23., 24., 25., 26.}},
                       {{{b(5, 2, 1, 3, 5), b(9, 2, 0, 0, 5)}},  // process (1, 0)
                        {{2, 5}},
                        {27., 28., 29., 30., 31., 36., 37., 38., 39., 40.}},
                       {{{b(5, 2, 1, 3, 5), b(9, 2, 1, 5, 9)}},  // process (1, 1)
                        {{2, 4}},
                        {32., 33., 34., 35., 41., 42., 43., 44.}},
                   });
}

TEST_CASE("DAP example 2.7: block, cyclic, 5x9 over a 2x2 grid", "[dap]") {
  if (dmap::num_locales() != 4) return;  // the example is for exactly four processes
  dmap::domain D{dmap::dimensional<2>{{dmap::block_dim{}, dmap::cyclic_dim{}}, dmap::target_grid<2>{{2, 2}}},
                 dmap::rect<2>{{0, 5}, {0, 9}}};
  dmap::array<double, 2> A{D};
  check_example<2>(A, arange(45),
                   {
                       {{{b(5, 2, 0, 0, 3), c(9, 2, 0, 0)}},  // process (0, 0)
                        {{3, 5}},
                        {0., 2., 4., 6., 8., 9., 11., 13., 15., 17., 18., 20., 22., 24., 26.}},
                       {{{b(5, 2, 0, 0, 3), c(9, 2, 1, 1)}},  // process (0, 1)
                        {{3, 4}},
                        {1., 3., 5., 7., 10., 12., 14., 16., 19., 21., 23., 25.}},
                       {{{b(5, 2, 1, 3, 5), c(9, 2, 0, 0)}},  // process (1, 0)
                        {{2, 5}},
                        {27., 29., 31., 33., 35., 36., 38., 40., 42., 44.}},
                       {{{b(5, 2, 1, 3, 5), c(9, 2, 1, 1)}},  // process (1, 1)
                        {{2, 4}},
                        {28., 30., 32., 34., 37., 39., 41., 43.}},
                   });
}

TEST_CASE("DAP example 2.8: cyclic, cyclic, 5x9 over a 2x2 grid", "[dap]") {
  if (dmap::num_locales() != 4) return;  // the example is for exactly four processes
  dmap::domain D{dmap::cyclic<2>{std::nullopt, dmap::target_grid<2>{{2, 2}}}, dmap::rect<2>{{0, 5}, {0, 9}}};
  dmap::array<double, 2> A{D};
  check_example<2>(A, arange(45),
                   {
                       {{{c(5, 2, 0, 0), c(9, 2, 0, 0)}},  // process (0, 0)
                        {{3, 5}},
                        {0., 2., 4., 6., 8., 18., 20., 22., 24., 26., 36., 38., 40., 42., 44.}},
                       {{{c(5, 2, 0, 0), c(9, 2, 1, 1)}},  // process (0, 1)
                        {{3, 4}},
                        {1., 3., 5., 7., 19., 21., 23., 25., 37., 39., 41., 43.}},
                       {{{c(5, 2, 1, 1), c(9, 2, 0, 0)}},  // process (1, 0)
                        {{2, 5}},
                        {9., 11., 13., 15., 17., 27., 29., 31., 33., 35.}},
                       {{{c(5, 2, 1, 1), c(9, 2, 1, 1)}},  // process (1, 1)
                        {{2, 4}},
                        {10., 12., 14., 16., 28., 30., 32., 34.}},
                   });
  // The JSON of a 'c' dictionary has start and no stop/padding/periodic.
  const auto x = dmap::dap_export(A);
  const int r = dmap::here() % 2;
  DMAP_CHECK_ALL(dmap::to_json(x.dim_data[1]) ==
                 "{\"dist_type\": \"c\", \"size\": 9, \"proc_grid_size\": 2, \"proc_grid_rank\": " +
                     std::to_string(r) + ", \"start\": " + std::to_string(r) + ", \"block_size\": 1}");
}

TEST_CASE("DAP example 2.9: irregular-block, irregular-block, 5x9 over a 2x2 grid", "[dap]") {
  if (dmap::num_locales() != 4) return;  // the example is for exactly four processes
  // The document's cut points: rows [0, 1) and [1, 5), columns [0, 2) and [2, 9).
  dmap::domain D{dmap::irregular_block<2>{{std::vector<index_t>{1}, std::vector<index_t>{2}},
                                          dmap::target_grid<2>{{2, 2}}},
                 dmap::rect<2>{{0, 5}, {0, 9}}};
  dmap::array<double, 2> A{D};
  check_example<2>(A, arange(45),
                   {
                       {{{b(5, 2, 0, 0, 1), b(9, 2, 0, 0, 2)}}, {{1, 2}}, {0., 1.}},  // process (0, 0)
                       {{{b(5, 2, 0, 0, 1), b(9, 2, 1, 2, 9)}},                       // process (0, 1)
                        {{1, 7}},
                        {2., 3., 4., 5., 6., 7., 8.}},
                       {{{b(5, 2, 1, 1, 5), b(9, 2, 0, 0, 2)}},  // process (1, 0)
                        {{4, 2}},
                        {9., 10., 18., 19., 27., 28., 36., 37.}},
                       {{{b(5, 2, 1, 1, 5), b(9, 2, 1, 2, 9)}},  // process (1, 1)
                        {{4, 7}},
                        {11., 12., 13., 14., 15., 16., 17., 20., 21., 22., 23., 24., 25., 26.,
                         29., 30., 31., 32., 33., 34., 35., 38., 39., 40., 41., 42., 43., 44.}},
                   });
}

TEST_CASE("DAP example 2.10: block-cyclic, block-cyclic, 5x9 over a 2x2 grid", "[dap]") {
  if (dmap::num_locales() != 4) return;  // the example is for exactly four processes
  dmap::domain D{dmap::block_cyclic<2>{{2, 2}, dmap::target_grid<2>{{2, 2}}}, dmap::rect<2>{{0, 5}, {0, 9}}};
  dmap::array<double, 2> A{D};
  check_example<2>(A, arange(45),
                   {
                       {{{c(5, 2, 0, 0, 2), c(9, 2, 0, 0, 2)}},  // process (0, 0)
                        {{3, 5}},
                        {0., 1., 4., 5., 8., 9., 10., 13., 14., 17., 36., 37., 40., 41., 44.}},
                       {{{c(5, 2, 0, 0, 2), c(9, 2, 1, 2, 2)}},  // process (0, 1)
                        {{3, 4}},
                        {2., 3., 6., 7., 11., 12., 15., 16., 38., 39., 42., 43.}},
                       {{{c(5, 2, 1, 2, 2), c(9, 2, 0, 0, 2)}},  // process (1, 0)
                        {{2, 5}},
                        {18., 19., 22., 23., 26., 27., 28., 31., 32., 35.}},
                       {{{c(5, 2, 1, 2, 2), c(9, 2, 1, 2, 2)}},  // process (1, 1)
                        {{2, 4}},
                        {20., 21., 24., 25., 29., 30., 33., 34.}},
                   });
  const auto x = dmap::dap_export(A);
  const int r = dmap::here() % 2;
  DMAP_CHECK_ALL(dmap::to_json(x.dim_data[1]) ==
                 "{\"dist_type\": \"c\", \"size\": 9, \"proc_grid_size\": 2, \"proc_grid_rank\": " +
                     std::to_string(r) + ", \"start\": " + std::to_string(2 * r) + ", \"block_size\": 2}");
}

namespace {
/// One process of a 'u' example: per dimension its indices, then its buffer (row-major).
struct u_process {
  std::vector<std::vector<index_t>> indices;
  std::vector<double> buffer;
};
/// Collective: `A`'s DAP description on each locale equals the document's process of that
/// locale: 'u' dictionaries (size, grid size and rank, indices, one_to_one) and buffer.
template <std::size_t N>
void check_u_example(dmap::array<double, N>& A, const std::array<index_t, N>& sizes,
                     const std::array<int, N>& grid, const std::vector<u_process>& doc) {
  const auto x = dmap::dap_export(A);
  const auto& want = doc[static_cast<std::size_t>(dmap::here())];
  const auto coords = dmap::target_grid<N>(grid).coords_of(dmap::here());
  bool dims_ok = true;
  std::size_t count = 1;
  for (std::size_t d = 0; d < N; ++d) {
    const auto& dim = x.dim_data[d];
    dims_ok = dims_ok && dim.dist_type == 'u' && dim.size == sizes[d] && dim.proc_grid_size == grid[d] &&
              dim.proc_grid_rank == coords[d] && dim.indices == want.indices[d] && dim.one_to_one &&
              x.shape[d] == static_cast<index_t>(want.indices[d].size()) &&
              dmap::num_owned_indices(dim) == x.shape[d];
    count *= want.indices[d].size();
  }
  DMAP_CHECK_ALL(dims_ok);
  DMAP_CHECK_ALL(count == want.buffer.size() &&
                 std::equal(want.buffer.begin(), want.buffer.end(), static_cast<const double*>(x.buffer)));
  // Round trip: the document's description over a copy of its buffer imports in place and
  // exports again to the same dictionaries. Only index metadata travels ('u' lists go to
  // every locale, a 1-D Unstructured map builds its directory): the elements stay put.
  std::vector<double> foreign = want.buffer;
  dmap::dap_description<double, N> in = x;
  in.buffer = foreign.empty() ? nullptr : foreign.data();
  const auto before = dmap::counters();
  dmap::array<double, N> B = dmap::dap_import(in);
  const auto spent = dmap::counters() - before;
  INFO("imported as " << B.domain().name() << ": " << spent.messages_sent << " messages, " << spent.bytes_sent
                       << " bytes sent");
  DMAP_CHECK_ALL((B.adopted() && (B.local_data() == in.buffer || foreign.empty())));
  DMAP_CHECK_ALL(foreign == want.buffer);
  const auto y = dmap::dap_export(B);
  bool same = y.shape == x.shape;
  for (std::size_t d = 0; d < N; ++d) same = same && y.dim_data[d] == x.dim_data[d];
  DMAP_CHECK_ALL(same);
  bool values = true;
  for (std::size_t k = 0; k < count; ++k) {
    dmap::idx<N> i{};
    std::size_t rest = k;
    for (std::size_t d = N; d-- > 0;) {
      i[d] = want.indices[d][rest % want.indices[d].size()];
      rest /= want.indices[d].size();
    }
    values = values && B[i] == want.buffer[k];
  }
  DMAP_CHECK_ALL(values);
}
}  // namespace

TEST_CASE("DAP example 2.3: unstructured, 30 indices over 3 processes", "[dap]") {
  if (dmap::num_locales() != 3) return;  // the example is for exactly three processes
  const std::vector<u_process> doc = {
      {{{19, 1, 0, 12, 2, 15, 4}}, {0.7, 0.5, 0.9, 0.2, 0.7, 0.0, 0.5}},
      {{{6, 13, 3}}, {0.1, 0.5, 0.9}},
      {{{10, 25, 5, 21, 7, 18, 11, 26, 29, 24, 23, 28, 14, 20, 9, 16, 27, 8, 17, 22}},
       {0.1, 0.8, 0.4, 0.8, 0.2, 0.4, 0.4, 0.3, 0.5, 0.7, 0.4, 0.7, 0.6, 0.2, 0.8, 0.5, 0.3, 0.8, 0.4, 0.2}}};
  // The undistributed array, put together from the document's processes.
  std::vector<double> full(30);
  std::vector<std::vector<index_t>> lists;
  for (const auto& proc : doc) {
    lists.push_back(proc.indices[0]);
    for (std::size_t k = 0; k < proc.buffer.size(); ++k) full[static_cast<std::size_t>(proc.indices[0][k])] = proc.buffer[k];
  }
  const auto fill = [&](auto& A, const auto& D) {
    dmap::forall(dmap::zip(A, D), [&](double& a, const dmap::idx<1>& i) { a = full[static_cast<std::size_t>(i[0])]; });
  };
  // As a Dimensional map with an unstructured specifier (the lists known everywhere) ...
  dmap::domain<1> D{dmap::dimensional<1>({dmap::unstructured_dim{lists}}), dmap::rect<1>{{0, 30}}};
  dmap::array<double, 1> A{D};
  fill(A, D);
  check_u_example<1>(A, {30}, {3}, doc);
  // ... and as an Unstructured map (each process knows its own list only).
  dmap::domain<1> U{dmap::unstructured<1>{lists[static_cast<std::size_t>(dmap::here())]}, dmap::rect<1>{{0, 30}}};
  dmap::array<double, 1> B{U};
  fill(B, U);
  check_u_example<1>(B, {30}, {3}, doc);
}

TEST_CASE("DAP example 2.11: unstructured, unstructured, 5x9 over a 2x2 grid", "[dap]") {
  if (dmap::num_locales() != 4) return;  // the example is for exactly four processes
  const std::vector<std::vector<index_t>> rows = {{3, 0}, {4, 2, 1}}, cols = {{2, 3, 7, 1}, {6, 5, 8, 0, 4}};
  dmap::domain D{dmap::dimensional<2>{{dmap::unstructured_dim{rows}, dmap::unstructured_dim{cols}},
                                      dmap::target_grid<2>{{2, 2}}},
                 dmap::rect<2>{{0, 5}, {0, 9}}};
  dmap::array<double, 2> A{D};
  dmap::forall(dmap::zip(A, D), [](double& a, const dmap::idx<2>& i) { a = static_cast<double>(9 * i[0] + i[1]); });
  // Processes in C order of the grid: (0, 0), (0, 1), (1, 0), (1, 1).
  check_u_example<2>(A, {5, 9}, {2, 2},
                     {{{{3, 0}, {2, 3, 7, 1}}, {29., 30., 34., 28., 2., 3., 7., 1.}},
                      {{{3, 0}, {6, 5, 8, 0, 4}}, {33., 32., 35., 27., 31., 6., 5., 8., 0., 4.}},
                      {{{4, 2, 1}, {2, 3, 7, 1}}, {38., 39., 43., 37., 20., 21., 25., 19., 11., 12., 16., 10.}},
                      {{{4, 2, 1}, {6, 5, 8, 0, 4}},
                       {42., 41., 44., 36., 40., 24., 23., 26., 18., 22., 15., 14., 17., 9., 13.}}});
}

TEST_CASE("DAP example 2.12: cyclic, block, cyclic, 5x9x3 over a 2x2x2 grid", "[dap]") {
  if (dmap::num_locales() != 8) return;  // the example is for exactly eight processes
  dmap::domain D{dmap::dimensional<3>{{dmap::cyclic_dim{}, dmap::block_dim{}, dmap::cyclic_dim{}},
                                      dmap::target_grid<3>{{2, 2, 2}}},
                 dmap::rect<3>{{0, 5}, {0, 9}, {0, 3}}};
  dmap::array<double, 3> A{D};
  check_example<3>(
      A, arange(135),
      {
          {{{c(5, 2, 0, 0), b(9, 2, 0, 0, 5), c(3, 2, 0, 0)}},  // process (0, 0, 0)
           {{3, 5, 2}},
           {0.,  2.,  3.,  5.,  6.,  8.,  9.,  11., 12., 14., 54.,  56.,  57.,  59.,  60.,
            62., 63., 65., 66., 68., 108., 110., 111., 113., 114., 116., 117., 119., 120., 122.}},
          {{{c(5, 2, 0, 0), b(9, 2, 0, 0, 5), c(3, 2, 1, 1)}},  // process (0, 0, 1)
           {{3, 5, 1}},
           {1., 4., 7., 10., 13., 55., 58., 61., 64., 67., 109., 112., 115., 118., 121.}},
          {{{c(5, 2, 0, 0), b(9, 2, 1, 5, 9), c(3, 2, 0, 0)}},  // process (0, 1, 0)
           {{3, 4, 2}},
           {15., 17., 18., 20., 21., 23., 24., 26., 69.,  71.,  72.,  74.,
            75., 77., 78., 80., 123., 125., 126., 128., 129., 131., 132., 134.}},
          {{{c(5, 2, 0, 0), b(9, 2, 1, 5, 9), c(3, 2, 1, 1)}},  // process (0, 1, 1)
           {{3, 4, 1}},
           {16., 19., 22., 25., 70., 73., 76., 79., 124., 127., 130., 133.}},
          {{{c(5, 2, 1, 1), b(9, 2, 0, 0, 5), c(3, 2, 0, 0)}},  // process (1, 0, 0)
           {{2, 5, 2}},
           {27., 29., 30., 32., 33., 35., 36., 38., 39., 41., 81., 83., 84., 86., 87., 89., 90., 92., 93., 95.}},
          {{{c(5, 2, 1, 1), b(9, 2, 0, 0, 5), c(3, 2, 1, 1)}},  // process (1, 0, 1)
           {{2, 5, 1}},
           {28., 31., 34., 37., 40., 82., 85., 88., 91., 94.}},
          {{{c(5, 2, 1, 1), b(9, 2, 1, 5, 9), c(3, 2, 0, 0)}},  // process (1, 1, 0)
           {{2, 4, 2}},
           {42., 44., 45., 47., 48., 50., 51., 53., 96., 98., 99., 101., 102., 104., 105., 107.}},
          {{{c(5, 2, 1, 1), b(9, 2, 1, 5, 9), c(3, 2, 1, 1)}},  // process (1, 1, 1)
           {{2, 4, 1}},
           {43., 46., 49., 52., 97., 100., 103., 106.}},
      });
}

// ================================================================== scaled to any locale count

TEST_CASE("DAP examples 2.1, 2.4-2.6 scaled: block, block on grids of any locale count", "[dap]") {
  for (const auto& g : grids2())
    for (const auto& r : shapes2()) {
      dmap::domain D{dmap::block<2>{g}, r};
      dmap::array<double, 2> A{D};
      check_scaled<2>(A, g, {0, 0});
    }
}

TEST_CASE("DAP example 2.7 scaled: block, cyclic on grids of any locale count", "[dap]") {
  for (const auto& g : grids2())
    for (const auto& r : shapes2()) {
      dmap::domain D{dmap::dimensional<2>{{dmap::block_dim{}, dmap::cyclic_dim{}}, g}, r};
      dmap::array<double, 2> A{D};
      check_scaled<2>(A, g, {0, 1});
    }
}

TEST_CASE("DAP example 2.8 scaled: cyclic, cyclic on grids of any locale count", "[dap]") {
  for (const auto& g : grids2())
    for (const auto& r : shapes2()) {
      dmap::domain D{dmap::cyclic<2>{std::nullopt, g}, r};
      dmap::array<double, 2> A{D};
      check_scaled<2>(A, g, {1, 1});
      // An explicit start at the low bound is the default start: describable.
      dmap::domain E{dmap::cyclic<2>{r.low(), g}, r};
      dmap::array<double, 2> B{E};
      check_scaled<2>(B, g, {1, 1});
    }
}

TEST_CASE("DAP example 2.9 scaled: irregular-block on grids of any locale count", "[dap]") {
  // Cut k of p along a dimension of n indices from lo: lo + (k + 1)^2 * n / p^2. With p = 2
  // these are the document's cut points (1 of 5 rows, 2 of 9 columns); with more locales
  // they are uneven and may repeat (empty locales).
  const auto cuts = [](const dmap::range& d, int p) {
    std::vector<index_t> out;
    const index_t pp = static_cast<index_t>(p) * p;
    for (index_t k = 0; k + 1 < p; ++k) out.push_back(d.lo() + (k + 1) * (k + 1) * d.size() / pp);
    return out;
  };
  for (const auto& g : grids2())
    for (const auto& r : shapes2()) {
      dmap::domain D{dmap::irregular_block<2>{{cuts(r.dim(0), g.extent(0)), cuts(r.dim(1), g.extent(1))}, g}, r};
      dmap::array<double, 2> A{D};
      check_scaled<2>(A, g, {0, 0});
    }
}

TEST_CASE("DAP example 2.10 scaled: block-cyclic, block-cyclic on grids of any locale count", "[dap]") {
  for (const auto& g : grids2())
    for (const auto& r : shapes2())
      for (const dmap::idx<2> bs : {dmap::idx<2>{2, 2}, dmap::idx<2>{3, 1}, dmap::idx<2>{1, 4}})
        for (const auto order : {dmap::storage_order::row_major, dmap::storage_order::column_major}) {
          // Column-major is ScaLAPACK's local layout; a consumer follows the exported strides.
          dmap::domain D{dmap::block_cyclic<2>{bs, g, order}, r};
          dmap::array<double, 2> A{D};
          check_scaled<2>(A, g, {bs[0], bs[1]});
        }
}

TEST_CASE("DAP example 2.12 scaled: cyclic, block, cyclic on 3-D grids of any locale count", "[dap]") {
  const int p = dmap::num_locales();
  const std::vector<dmap::target_grid<3>> grids = {dmap::target_grid<3>{}, dmap::target_grid<3>{{p, 1, 1}},
                                                   dmap::target_grid<3>{{1, p, 1}}, dmap::target_grid<3>{{1, 1, p}}};
  const std::vector<dmap::rect<3>> shapes = {dmap::rect<3>{{0, 5}, {0, 9}, {0, 3}},
                                             dmap::rect<3>{{1, 3}, {-1, 2}, {5, 6}}};
  for (const auto& g : grids)
    for (const auto& r : shapes) {
      dmap::domain D{dmap::dimensional<3>{{dmap::cyclic_dim{}, dmap::block_dim{}, dmap::cyclic_dim{}}, g}, r};
      dmap::array<double, 3> A{D};
      check_scaled<3>(A, g, {1, 0, 1});
    }
}

// ================================================================== what DAP cannot express

namespace {
// Collective: A's description is valid and the positions its dictionaries give this locale
// (by the protocol's definitions; 'u' by its list) are exactly the ones it owns.
void check_described_positions(dmap::array<double, 2>& A, const dmap::target_grid<2>& g) {
  const auto x = dmap::dap_export(A);
  bool valid = true;
  try {
    dmap::validate(x);
  } catch (const dmap::argument_error&) {
    valid = false;
  }
  DMAP_CHECK_ALL(valid);
  std::array<std::vector<index_t>, 2> positions;
  for (std::size_t d = 0; d < 2; ++d) {
    const auto& dim = x.dim_data[d];
    positions[d] = dim.dist_type == 'u' ? dim.indices : owned_by_definition(dim);
  }
  std::vector<index_t> described, owned;
  for (const index_t a : positions[0])
    for (const index_t b : positions[1]) described.push_back(a * A.domain().indices().dim(1).size() + b);
  for (const auto& r : A.domain().local_subdomains())
    for (index_t k = 0; k < r.size(); ++k) owned.push_back(A.domain().indices().order_of(r.index_at(k)));
  std::sort(described.begin(), described.end());
  std::sort(owned.begin(), owned.end());
  DMAP_CHECK_ALL(described == owned);
  DMAP_CHECK_ALL((x.dim_data[0].proc_grid_size == g.extent(0) && x.dim_data[1].proc_grid_size == g.extent(1)));
}
}  // namespace

TEST_CASE("DAP: maps without an N-D grid or with pieces that are not a product have no DAP description", "[dap]") {
  const dmap::rect<2> r{{0, 6}, {0, 5}};
  {
    dmap::domain D{dmap::replicated<2>{}, r};  // every locale holds everything: no grid of parts
    dmap::array<double, 2> A{D};
    DMAP_CHECK_ALL(export_throws_unsupported(A));
  }
  {
    dmap::domain D{dmap::hashed<2>{}, r};  // 2-D indices placed one by one
    dmap::array<double, 2> A{D};
    DMAP_CHECK_ALL(export_throws_unsupported(A));
  }
}

TEST_CASE("DAP: a deal by value over a strided domain is described by its positions", "[dap]") {
  // Cyclic deals indices by value: over 0, 2, 4, ... with two locales along the dimension,
  // every index is even and goes to locale 0. DAP 'c' deals positions, so the export lists
  // each coordinate's positions ('u'), or finds runs ('b') or a deal of positions ('c') when
  // the pieces happen to form one.
  const dmap::rect<2> strided{dmap::range(0, 10, 2), dmap::range(0, 9)};
  for (const auto& g : grids2()) {
    INFO("grid " << g);
    {
      dmap::domain D{dmap::cyclic<2>{std::nullopt, g}, strided};
      dmap::array<double, 2> A{D};
      check_described_positions(A, g);
    }
    {
      dmap::domain D{dmap::block_cyclic<2>{{2, 2}, g}, strided};
      dmap::array<double, 2> A{D};
      check_described_positions(A, g);
    }
    {
      dmap::domain D{dmap::dimensional<2>{{dmap::cyclic_dim{}, dmap::block_dim{}}, g}, strided};
      dmap::array<double, 2> A{D};
      check_described_positions(A, g);
    }
    {
      // An explicit start other than the first index shifts the deal: not positions from 0.
      dmap::domain D{dmap::cyclic<2>{dmap::idx<2>{0, 1}, g}, dmap::rect<2>{{0, 5}, {0, 9}}};
      dmap::array<double, 2> A{D};
      check_described_positions(A, g);
    }
    {
      // The stride only matters to round-robin dimensions: block over the strided dimension
      // and cyclic over the unit one is described by positions.
      dmap::domain D{dmap::dimensional<2>{{dmap::block_dim{}, dmap::cyclic_dim{}}, g}, strided};
      dmap::array<double, 2> A{D};
      check_scaled<2>(A, g, {0, 1});
    }
  }
}

TEST_CASE("DAP: num_owned_indices of 'c' dictionaries matches the cyclic definition", "[dap][serial]") {
  // Brute force against the protocol's definition for every small case. (The appendix's
  // Python helper gives a trailing partial block to grid rank 0, e.g. size 5, block_size 2,
  // 3 processes: it says (3, 2, 0) where the definition deals positions 0-1, 2-3, 4 to ranks
  // 0, 1, 2, i.e. (2, 2, 1); dmap follows the definition.)
  int failures = 0;
  std::string first;
  for (index_t size = 0; size <= 13; ++size)
    for (index_t bs = 1; bs <= 5; ++bs)
      for (int p = 1; p <= 5; ++p) {
        index_t total = 0;
        for (int r = 0; r < p; ++r) {
          dmap::dap_dimension d;
          d.dist_type = 'c';
          d.size = size;
          d.block_size = bs;
          d.proc_grid_size = p;
          d.proc_grid_rank = r;
          d.start = r * bs;
          const auto want = static_cast<index_t>(owned_by_definition(d).size());
          total += want;
          if (dmap::num_owned_indices(d) != want && failures++ == 0)
            first = dmap::to_json(d) + ": num_owned_indices " + std::to_string(dmap::num_owned_indices(d)) +
                    ", by definition " + std::to_string(want);
        }
        if (total != size && failures++ == 0) first = "definition does not partition size " + std::to_string(size);
      }
  INFO(first);
  CHECK(failures == 0);
}

// A block dimension with a negative stride is stored and gathered in its iteration order
// (descending indices), and DAP positions are those orders; but Block deals the lowest
// indices, i.e. the LAST positions, to grid rank 0, while DAP 'b' requires grid rank 0 to
// start at position 0 and rank r + 1 to start where rank r stops. No 'b' dictionary
// describes that, so dap_export lists the positions ('u'). With one locale along the
// dimension the 'b' description is right and must stay so.
TEST_CASE("DAP: a descending block dimension over several locales is described by its positions", "[dap]") {
  const int p = dmap::num_locales();
  const dmap::target_grid<2> g{{p, 1}};
  const dmap::rect<2> descending{dmap::range(0, 10, -1), dmap::range(0, 9)};
  struct one_case {
    dmap::domain<2> domain;
    std::array<index_t, 2> kinds;
  };
  const std::vector<one_case> cases = {
      {dmap::domain<2>{dmap::block<2>{g}, descending}, {0, 0}},
      {dmap::domain<2>{dmap::stencil<2>{{0, 0}, {false, false}, g}, descending}, {0, 0}},
      {dmap::domain<2>{dmap::dimensional<2>{{dmap::block_dim{}, dmap::cyclic_dim{}}, g}, descending}, {0, 1}},
      {dmap::domain<2>{dmap::irregular_block<2>{{std::vector<index_t>(static_cast<std::size_t>(p - 1), 3),
                                                 std::vector<index_t>{}},
                                                g},
                       descending},
       {0, 0}},
  };
  for (const auto& c : cases) {
    dmap::array<double, 2> A{c.domain};
    INFO(c.domain.name());
    if (p == 1) check_scaled<2>(A, g, c.kinds);
    else check_described_positions(A, g);
  }
}

}  // namespace test_dap_examples
