// Row padding (dsi/layout.hpp row_padding): dense layouts whose leading dimension's stride
// exceeds the row length, Stencil's default (frame rows of a multiple of 256 elements get 8
// more) and Block's opt-in. Every path that reads or writes storage must follow the strides:
// loops, zips with unpadded arrays of other maps, reductions, assignment both ways, halo
// updates, resize, remote reads, DAP and __partitioned__ round trips, adoption.
//
// Oracle: values are f(i) = 1000 * i0 + i1 (exact in double); the expected strides are
// written out from the frame's shape (row length, plus 8 when it is a multiple of 256).
#include "../support.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "../../interop/partitioned.hpp"

namespace test_row_padding {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::row_padding;

double f(const idx<2>& i) { return 1000.0 * static_cast<double>(i[0]) + static_cast<double>(i[1]); }

/// The row stride the oracle expects for a frame row of `length` elements under automatic padding.
index_t automatic_stride(index_t length) { return length % 256 == 0 ? length + 8 : length; }

/// "" when every stored element of A's owned indices holds f(i), else the first that does not.
std::string owned_values(const dmap::array<double, 2>& A) {
  for (const auto& b : A.local_blocks())
    for (const rect<2>& r : A.domain().local_subdomains())
      for (index_t i = r.dim(0).lo(); i < r.dim(0).hi(); ++i)
        for (index_t j = r.dim(1).lo(); j < r.dim(1).hi(); ++j)
          if (b.layout.indices.contains(idx<2>{i, j}) && b(idx<2>{i, j}) != f(idx<2>{i, j}))
            return "element (" + std::to_string(i) + ", " + std::to_string(j) + ") holds " + std::to_string(b(idx<2>{i, j}));
  return "";
}

/// "" when every ghost cell of A's frame that is an index of the domain holds f(i).
std::string ghost_values(const dmap::array<double, 2>& A) {
  const rect<2> whole = A.domain().indices();
  for (const auto& b : A.local_blocks()) {
    const rect<2>& frame = b.layout.indices;
    for (index_t i = frame.dim(0).lo(); i < frame.dim(0).hi(); ++i)
      for (index_t j = frame.dim(1).lo(); j < frame.dim(1).hi(); ++j)
        if (whole.contains(idx<2>{i, j}) && b(idx<2>{i, j}) != f(idx<2>{i, j}))
          return "ghost (" + std::to_string(i) + ", " + std::to_string(j) + ") holds " + std::to_string(b(idx<2>{i, j}));
  }
  return "";
}

}  // namespace

TEST_CASE("row padding: the policies and the layouts they make", "[row_padding][layout]") {
  const rect<2> r{{0, 3}, {0, 512}};
  const auto compact = dmap::dense_layout<2>::make(r, 0);
  CHECK(compact.strides == std::array<index_t, 2>{512, 1});
  CHECK(compact.is_exhaustive());
  CHECK(dmap::dense_layout<2>::make(r, 0, dmap::storage_order::row_major, row_padding::none()).strides == compact.strides);
  const auto padded = dmap::dense_layout<2>::make(r, 5, dmap::storage_order::row_major, row_padding::automatic());
  CHECK(padded.strides == std::array<index_t, 2>{520, 1});
  CHECK(padded.end() == 5 + 2 * 520 + 512);
  CHECK(padded.size() == 3 * 512);
  CHECK_FALSE(padded.is_exhaustive());
  CHECK(padded.offset_of(idx<2>{2, 7}) == 5 + 2 * 520 + 7);
  // Rows that are no multiple of 256 stay compact under automatic padding; fixed pads all.
  const rect<2> odd{{0, 3}, {0, 4100}};
  CHECK(dmap::dense_layout<2>::make(odd, 0, dmap::storage_order::row_major, row_padding::automatic()).strides ==
        std::array<index_t, 2>{4100, 1});
  CHECK(dmap::dense_layout<2>::make(odd, 0, dmap::storage_order::row_major, row_padding::fixed(3)).strides ==
        std::array<index_t, 2>{4103, 1});
  // Column-major: dimension 0 is the row, dimension 1 steps over padded rows.
  const rect<2> tall{{0, 4096}, {0, 2}};
  CHECK(dmap::dense_layout<2>::make(tall, 0, dmap::storage_order::column_major, row_padding::automatic()).strides ==
        std::array<index_t, 2>{1, 4104});
  // 3-D row-major: the stride of dimension 1 is padded, dimension 0 spans padded rows.
  const rect<3> box{{0, 2}, {0, 3}, {0, 256}};
  CHECK(dmap::dense_layout<3>::make(box, 0, dmap::storage_order::row_major, row_padding::automatic()).strides ==
        std::array<index_t, 3>{3 * 264, 264, 1});
  // 1-D layouts have no rows.
  CHECK(dmap::dense_layout<1>::make(rect<1>{range{0, 512}}, 0, dmap::storage_order::row_major, row_padding::fixed(8))
            .strides == std::array<index_t, 1>{1});
  // The policies.
  CHECK(row_padding::fixed(0) == row_padding::none());
  CHECK(row_padding::automatic().extra(4096) == 8);
  CHECK(row_padding::automatic().extra(4100) == 0);
  CHECK(row_padding::fixed(16).extra(7) == 16);
  CHECK(row_padding::fixed(16).kind() == row_padding::mode::fixed);
  CHECK(row_padding::fixed(16).elements() == 16);
}

TEST_CASE("row padding: negative and int64-extreme paddings are argument errors naming the argument",
          "[row_padding][bad_input]") {
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>([] { (void)row_padding::fixed(-1); }, "elements is -1"));
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [] { (void)row_padding::fixed(std::numeric_limits<index_t>::min()); }, "row padding must be >= 0"));
  // A padding that makes the storage exceed int64: an argument_error on every locale, when
  // the domain is made.
  const auto huge = row_padding::fixed(std::numeric_limits<index_t>::max());
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [&] {
        dmap::domain D{dmap::stencil<2>{{1, 1}, {}, {}, dmap::storage_order::row_major, huge}, rect<2>{{0, 64}, {0, 64}}};
      },
      "row padding"));
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [&] {
        dmap::domain D{dmap::block<2>{dmap::target_grid<2>{}, dmap::storage_order::row_major, huge},
                       rect<2>{{0, 64}, {0, 64}}};
      },
      "row padding"));
  // Automatic padding never overflows: a layout too large to pad stays compact.
  const rect<2> wide{{0, 2}, {0, std::numeric_limits<index_t>::max() / 2 - 127}};
  const auto l = dmap::dense_layout<2>::make(wide, 0, dmap::storage_order::row_major, row_padding::automatic());
  CHECK(l.strides[0] == wide.dim(1).size() + (wide.dim(1).size() % 256 == 0 ? 8 : 0));
}

TEST_CASE("row padding: Stencil pads frame rows of 512 and 4096 elements; loops, zips, reductions, assignment",
          "[row_padding][stencil]") {
  for (const index_t cols : {510, 4094}) {
    INFO("interior columns " << cols);
    const rect<2> space{{0, 11}, {0, cols}};
    dmap::domain D{dmap::stencil<2>{{1, 1}}, space};
    const auto layouts = D.local_layouts(dmap::here());
    bool strides = true;
    for (const auto& l : layouts)
      strides = strides && l.strides[1] == 1 && l.strides[0] == automatic_stride(l.indices.dim(1).size());
    DMAP_CHECK_ALL(strides);
    // Frame rows of a multiple of 256 elements are padded (one locale along the columns:
    // 512 or 4096 elements).
    const auto grid = D.descriptor<dmap::stencil_domain<2>>()->targets();
    if (grid.extent(1) == 1) DMAP_CHECK_ALL((layouts.empty() || layouts.front().strides[0] == cols + 2 + 8));

    dmap::array<double, 2> A{D, -1.0};
    // Every element of the buffer is initialised, the gaps after the rows too.
    bool initialised = true;
    for (index_t k = 0; k < A.local_size(); ++k) initialised = initialised && A.local_data()[k] == -1.0;
    DMAP_CHECK_ALL(initialised);
    dmap::forall(dmap::zip(A, D), [](double& a, idx<2> i) { a = f(i); });
    CHECK_NO_FAILURE(owned_values(A));
    // A zip with an unpadded array of another map, both ways (the other map leads, then A).
    dmap::domain C{dmap::cyclic<2>{}, space};
    dmap::array<double, 2> B{C};
    dmap::forall(dmap::zip(B, std::as_const(A)), [](double& b, const double& a) { b = 2 * a; });
    DMAP_CHECK_ALL(dmap::reduce(dmap::zip(C, B), 0.0, std::plus<>{},
                                [](idx<2> i, double b) { return b == 2 * f(i) ? 0.0 : 1.0; }) == 0.0);
    dmap::forall(dmap::zip(A, std::as_const(B)), [](double& a, const double& b) { a = b / 2 + 1; });
    DMAP_CHECK_ALL(dmap::reduce(dmap::zip(D, A), 0.0, std::plus<>{},
                                [](idx<2> i, double a) { return a == f(i) + 1 ? 0.0 : 1.0; }) == 0.0);
    dmap::forall(A, [](double& a) { a -= 1; });
    CHECK_NO_FAILURE(owned_values(A));
    // Reduce over the padded storage alone and zipped with its domain.
    double want = 0;
    for (index_t i = 0; i < 11; ++i)
      for (index_t j = 0; j < cols; ++j) want += f(idx<2>{i, j});
    DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == want);
    DMAP_CHECK_ALL(dmap::reduce(dmap::zip(A, D), 0.0, std::plus<>{}, [](double a, idx<2> i) { return a - f(i); }) == 0.0);
    // Assignment both ways with an unpadded Block array; remote reads of padded storage.
    dmap::domain K{dmap::block<2>{}, space};
    dmap::array<double, 2> E{K};
    E = A;
    CHECK_NO_FAILURE(owned_values(E));
    dmap::array<double, 2> A2{D};
    A2 = E;
    CHECK_NO_FAILURE(owned_values(A2));
    // Halo updates fill the ghost cells across the padded rows.
    dmap::update_halos(A);
    CHECK_NO_FAILURE(ghost_values(A));
    dmap::update_halos(A2);
    bool remote = true;  // owned elsewhere (one-sided reads at the owner's padded offsets) or ghosts here
    for (const idx<2> i : {idx<2>{0, 0}, idx<2>{10, cols - 1}, idx<2>{5, cols / 2}, idx<2>{7, 3}})
      remote = remote && static_cast<double>(A[i]) == f(i) && static_cast<double>(A2[i]) == f(i);
    DMAP_CHECK_ALL(remote);
    // A neighbourhood loop reads rows i - 1 and i + 1 through the padded stride.
    dmap::array<double, 2> S{D};
    const rect<2> inner{{1, 10}, {1, cols - 1}};
    dmap::forall(dmap::zip(S[inner], dmap::neighbors(std::as_const(A)[inner], 1)),
                 [](double& s, const auto& a) { s = a(-1, 0) + a(1, 0) - 2 * a(0, 0); });
    DMAP_CHECK_ALL(dmap::reduce(dmap::zip(std::as_const(S)[inner]), 0.0, std::plus<>{},
                                [](double s) { return s == 0.0 ? 0.0 : 1.0; }) == 0.0);
  }
}

TEST_CASE("row padding: none gives compact frames; the policy is part of the map's name and equality",
          "[row_padding][stencil]") {
  const rect<2> space{{0, 6}, {0, 510}};
  const dmap::stencil<2> automatic{{1, 1}};
  const dmap::stencil<2> compact{{1, 1}, {}, {}, dmap::storage_order::row_major, row_padding::none()};
  CHECK(automatic.row_padding_policy() == row_padding::automatic());
  CHECK_FALSE(automatic == compact);
  CHECK(automatic.name().find("row padding") == std::string::npos);
  CHECK(compact.name().find("row padding none") != std::string::npos);
  dmap::domain D{compact, space};
  bool strides = true;
  for (const auto& l : D.local_layouts(dmap::here())) strides = strides && l.is_exhaustive();
  DMAP_CHECK_ALL(strides);
  dmap::domain P{automatic, space};
  DMAP_CHECK_ALL(!D.same_map(P));
  // Block pads only when asked.
  CHECK(dmap::block<2>{}.row_padding_policy() == row_padding::none());
  const dmap::block<2> padded_block{dmap::target_grid<2>{}, dmap::storage_order::row_major, row_padding::automatic()};
  CHECK(padded_block.name().find("row padding automatic") != std::string::npos);
  CHECK_FALSE(padded_block == dmap::block<2>{});
  // Padded pads like Stencil by default.
  const dmap::padded<2> pad{{std::vector<index_t>(static_cast<std::size_t>(dmap::target_grid<2>{}.extent(0) - 1), 3),
                             std::vector<index_t>(static_cast<std::size_t>(dmap::target_grid<2>{}.extent(1) - 1), 255)},
                            {std::vector<dmap::padding_widths>(static_cast<std::size_t>(dmap::target_grid<2>{}.extent(0)), {1, 1}),
                             std::vector<dmap::padding_widths>(static_cast<std::size_t>(dmap::target_grid<2>{}.extent(1)), {1, 1})}};
  CHECK(pad.row_padding_policy() == row_padding::automatic());
}

TEST_CASE("row padding: resize reallocates padded storage, keeping values", "[row_padding][resize]") {
  dmap::domain D{dmap::stencil<2>{{1, 1}}, rect<2>{{0, 9}, {0, 100}}};
  dmap::array<double, 2> A{D};
  dmap::forall(dmap::zip(A, D), [](double& a, idx<2> i) { a = f(i); });
  D.set_indices(rect<2>{{0, 12}, {0, 4094}});  // frame rows of 4096 elements on one column of locales
  bool strides = true;
  for (const auto& l : D.local_layouts(dmap::here()))
    strides = strides && l.strides[0] == automatic_stride(l.indices.dim(1).size());
  DMAP_CHECK_ALL(strides);
  bool kept = true;
  for (const auto& b : A.local_blocks())
    for (const rect<2>& r : D.local_subdomains())
      for (index_t i = r.dim(0).lo(); i < std::min<index_t>(r.dim(0).hi(), 9); ++i)
        for (index_t j = r.dim(1).lo(); j < std::min<index_t>(r.dim(1).hi(), 100); ++j) kept = kept && b(idx<2>{i, j}) == f(idx<2>{i, j});
  DMAP_CHECK_ALL(kept);
  dmap::forall(dmap::zip(A, D), [](double& a, idx<2> i) { a = f(i); });
  CHECK_NO_FAILURE(owned_values(A));
  D.set_indices(rect<2>{{0, 5}, {0, 510}});
  CHECK_NO_FAILURE(owned_values(A));
}

TEST_CASE("row padding: DAP export reports the padded strides; import adopts them in place", "[row_padding][dap]") {
  for (const index_t cols : {510, 4094}) {
    INFO("interior columns " << cols);
    // DAP positions count the boundary padding: indices from 1 import as the same indices.
    dmap::domain D{dmap::stencil<2>{{1, 1}}, rect<2>{{1, 9}, {1, cols + 1}}};
    dmap::array<double, 2> A{D};
    dmap::forall(dmap::zip(A, D), [](double& a, idx<2> i) { a = f(i); });
    dmap::update_halos(A);
    const auto x = dmap::dap_export(A);
    const auto layouts = D.local_layouts(dmap::here());
    DMAP_CHECK_ALL((layouts.empty() || (x.strides == layouts.front().strides && x.buffer == A.local_data())));
    const auto before = dmap::counters();
    auto B = dmap::dap_import(x);
    const auto spent = dmap::counters() - before;
    DMAP_CHECK_ALL((B.adopted() && B.local_data() == A.local_data() && spent.messages_sent == 0));
    DMAP_CHECK_ALL((B.domain().same_map(D) && B.domain().indices() == D.indices()));
    CHECK_NO_FAILURE(owned_values(B));
    DMAP_CHECK_ALL(dmap::dap_export(B).strides == x.strides);
    // The same buffers with compact strides import as compact frames when that is what they are.
    // (Where no frame row is a multiple of 256 elements, compact is also what automatic
    // padding gives, and the import says so: the Stencil's default.)
    dmap::domain K{dmap::stencil<2>{{1, 1}, {}, {}, dmap::storage_order::row_major, row_padding::none()},
                   rect<2>{{1, 9}, {1, cols + 1}}};
    dmap::array<double, 2> C{K};
    dmap::forall(dmap::zip(C, K), [](double& c, idx<2> i) { c = f(i); });
    auto E = dmap::dap_import(dmap::dap_export(C));
    const auto theirs = E.domain().local_layouts(dmap::here()), ours = K.local_layouts(dmap::here());
    DMAP_CHECK_ALL((E.adopted() && E.local_data() == C.local_data() && theirs.size() == ours.size() &&
                    (ours.empty() || (theirs.front().strides == ours.front().strides &&
                                      theirs.front().indices == ours.front().indices))));
    CHECK_NO_FAILURE(owned_values(E));
  }
  // A Block array with padded rows exports and imports as such.
  dmap::domain P{dmap::block<2>{dmap::target_grid<2>{}, dmap::storage_order::row_major, row_padding::automatic()},
                 rect<2>{{0, 6}, {0, 256 * dmap::target_grid<2>{}.extent(1)}}};
  dmap::array<double, 2> A{P};
  dmap::forall(dmap::zip(A, P), [](double& a, idx<2> i) { a = f(i); });
  auto B = dmap::dap_import(dmap::dap_export(A));
  DMAP_CHECK_ALL((B.adopted() && B.local_data() == A.local_data() && B.domain().same_map(P)));
  CHECK_NO_FAILURE(owned_values(B));
  // Rows padded unlike any policy (a different number of elements per locale) are refused.
  if (dmap::num_locales() >= 2) {
    dmap::domain K{dmap::block<2>{dmap::target_grid<2>({dmap::num_locales(), 1})}, rect<2>{{0, 2 * dmap::num_locales()}, {0, 4}}};
    const dmap::rect<2> mine = K.local_subdomain();
    const index_t pitch = 4 + dmap::here();  // locale q pads its rows by q elements
    std::vector<double> buffer(static_cast<std::size_t>(mine.dim(0).size() * pitch));
    dmap::dap_description<double, 2> y;
    y.buffer = buffer.data();
    y.shape = {mine.dim(0).size(), 4};
    y.strides = {pitch, 1};
    for (std::size_t d = 0; d < 2; ++d) {
      auto& dim = y.dim_data[d];
      dim.dist_type = 'b';
      dim.size = K.indices().dim(d).size();
      dim.proc_grid_size = d == 0 ? dmap::num_locales() : 1;
      dim.proc_grid_rank = d == 0 ? dmap::here() : 0;
      dim.start = mine.dim(d).lo();
      dim.stop = mine.dim(d).hi();
    }
    CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::unsupported_error>([&] { (void)dmap::dap_import(y); },
                                                                         "pad their rows"));
  }
}

TEST_CASE("row padding: adoption of a padded buffer, and __partitioned__ round trips", "[row_padding][adoption]") {
  const dmap::block<2> padded_block{dmap::target_grid<2>{}, dmap::storage_order::row_major, row_padding::automatic()};
  dmap::domain D{padded_block, rect<2>{{0, 8}, {0, 512 * dmap::target_grid<2>{}.extent(1)}}};
  const auto layouts = D.local_layouts(dmap::here());
  // Each locale owns 512 columns: rows of 520 elements, 8 of them unused.
  DMAP_CHECK_ALL((layouts.empty() || layouts.front().strides == std::array<index_t, 2>{520, 1}));
  const index_t size = layouts.empty() ? 0 : layouts.front().end();
  std::vector<double> mine(static_cast<std::size_t>(size), 0.0);
  for (const auto& l : layouts)
    for (index_t i = l.indices.dim(0).lo(); i < l.indices.dim(0).hi(); ++i)
      for (index_t j = l.indices.dim(1).lo(); j < l.indices.dim(1).hi(); ++j)
        mine[static_cast<std::size_t>(l.offset_of(idx<2>{i, j}))] = f(idx<2>{i, j});
  dmap::array<double, 2> A(D, dmap::foreign_buffer<double, 2>{mine.data(), size, {520, 1}});
  DMAP_CHECK_ALL((A.adopted() && (A.local_data() == mine.data() || mine.empty())));
  CHECK_NO_FAILURE(owned_values(A));
  // Compact strides do not fit a padded map.
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [&] { dmap::array<double, 2> B(D, dmap::foreign_buffer<double, 2>{mine.data(), size, {512, 1}}); }, "strides"));
  const auto P = dmap::partitioned_export(A);
  auto B = dmap::partitioned_import(P);
  DMAP_CHECK_ALL((B.adopted() && (B.local_data() == mine.data() || mine.empty()) && B.domain().same_map(D)));
  CHECK_NO_FAILURE(owned_values(B));
  dmap::forall(B, [](double& b) { b += 1; });
  DMAP_CHECK_ALL(dmap::reduce(dmap::zip(A, D), 0.0, std::plus<>{}, [](double a, idx<2> i) { return a - f(i) - 1; }) == 0.0);
}

}  // namespace test_row_padding
