// DAP 0.10 descriptions of Block and Stencil arrays against the protocol's rules and its
// "block with padding" example.
#include "support.hpp"

#include <functional>
#include <vector>

namespace test_dap {  // one per file: the tests also build as unity batches (docs/testing.md)

TEST_CASE("DAP: the protocol's block-with-padding example", "[dap]") {
  // 18 positions over 2 processes with padding (1, 1): 16 owned indices plus one boundary
  // cell at each end. dmap: a stencil domain of 16 indices with one ghost layer.
  if (dmap::num_locales() != 2) return;  // the example is for exactly two processes
  dmap::domain D{dmap::stencil<1>{{1}}, dmap::rect<1>{dmap::range{1, 17}}};
  dmap::array<double, 1> A{D};
  const auto x = dmap::dap_export(A);
  dmap::dap_dimension want;
  want.dist_type = 'b';
  want.size = 18;
  want.proc_grid_size = 2;
  want.proc_grid_rank = dmap::here();
  want.start = dmap::here() == 0 ? 0 : 8;
  want.stop = dmap::here() == 0 ? 10 : 18;
  want.padding = {1, 1};
  DMAP_CHECK_ALL(x.dim_data[0] == want);
  DMAP_CHECK_ALL(x.version == "0.10.0");
  DMAP_CHECK_ALL(x.shape[0] == 10);
  DMAP_CHECK_ALL(dmap::num_owned_indices(x.dim_data[0]) == 9);
  const std::string json = dmap::to_json(x.dim_data[0]);
  DMAP_CHECK_ALL(json == std::string("{\"dist_type\": \"b\", \"size\": 18, \"proc_grid_size\": 2, "
                                     "\"proc_grid_rank\": ") +
                             std::to_string(dmap::here()) + ", \"start\": " + std::to_string(want.start) +
                             ", \"stop\": " + std::to_string(want.stop) +
                             ", \"padding\": [1, 1], \"periodic\": false}");
  // Round trip: the document's dictionary over a buffer of its own (positions 0..9 or 8..17,
  // each slot holding its position) imports in place as the same Stencil, without messages,
  // and exports again to the same dictionary.
  std::vector<double> foreign(10);
  for (std::size_t j = 0; j < foreign.size(); ++j) foreign[j] = static_cast<double>(want.start + static_cast<dmap::index_t>(j));
  dmap::dap_description<double, 1> in;
  in.buffer = foreign.data();
  in.shape = {10};
  in.strides = {1};
  in.dim_data[0] = want;
  const auto before = dmap::counters();
  auto B = dmap::dap_import(in);
  const auto spent = dmap::counters() - before;
  DMAP_CHECK_ALL((B.adopted() && B.local_data() == foreign.data() && spent.messages_sent == 0));
  DMAP_CHECK_ALL((B.domain().indices() == dmap::rect<1>{dmap::range{1, 17}} && B.domain().same_map(D)));
  bool values = true;
  for (dmap::index_t i = 1; i < 17; ++i) values = values && B[dmap::idx<1>{i}] == static_cast<double>(i);
  DMAP_CHECK_ALL(values);
  DMAP_CHECK_ALL(dmap::dap_export(B).dim_data[0] == want);
}

TEST_CASE("DAP: a periodic dimension's padding is communication padding, not counted in size", "[dap]") {
  // DAP 0.9: padding on an external edge of a periodic dimension is communication padding.
  // 16 indices on p locales with one ghost layer wrapping: size 16 (it was 18), grid rank 0
  // starts at -1 (its first slot holds index 15's value), the last one stops at 17.
  dmap::domain D{dmap::stencil<1>{{1}, {true}}, dmap::rect<1>{dmap::range{0, 16}}};
  dmap::array<double, 1> A{D};
  const auto x = dmap::dap_export(A);
  const auto owned = D.local_subdomain();
  const auto& d = x.dim_data[0];
  DMAP_CHECK_ALL((d.size == 16 && d.periodic && d.padding == std::array<dmap::index_t, 2>{1, 1}));
  DMAP_CHECK_ALL((d.start == owned.dim(0).lo() - 1 && d.stop == owned.dim(0).hi() + 1));
  DMAP_CHECK_ALL((dmap::here() != 0 || d.start == -1));
  DMAP_CHECK_ALL(dmap::all_reduce_sum(dmap::num_owned_indices(d)) == 16);
  // DAP 0.9 leaves the communication padding out of [start, stop): the owned indices.
  const auto y = dmap::dap_export(A, "0.9.0");
  DMAP_CHECK_ALL((y.dim_data[0].start == owned.dim(0).lo() && y.dim_data[0].stop == owned.dim(0).hi() &&
                  y.shape[0] == owned.dim(0).size() + 2));
}

TEST_CASE("DAP: Block and Stencil descriptions obey the protocol on every locale count", "[dap]") {
  const int p = dmap::num_locales();
  struct shape_case {
    dmap::rect<2> r;
    dmap::idx<2> fluff;
    bool stencil;
  };
  const std::vector<shape_case> cases = {
      {dmap::rect<2>{{0, 7}, {0, 5}}, {0, 0}, false},   {dmap::rect<2>{{3, 3}, {0, 5}}, {0, 0}, false},
      {dmap::rect<2>{{0, 2}, {0, 1}}, {0, 0}, false},   {dmap::rect<2>{{-4, 40}, {2, 31}}, {2, 1}, true},
      {dmap::rect<2>{{0, 24}, {0, 12, 2}}, {1, 1}, true},
  };
  for (const auto& c : cases) {
    std::vector<dmap::target_grid<2>> grids = {dmap::target_grid<2>{}, dmap::target_grid<2>{{1, p}},
                                               dmap::target_grid<2>{{p, 1}}};
    for (const auto& g : grids) {
      if (c.stencil) {
        // Skip grids that would make a chunk thinner than the ghost width.
        bool thin = false;
        for (std::size_t d = 0; d < 2; ++d)
          if (c.r.dim(d).size() / g.extent(d) < c.fluff[d]) thin = true;
        if (thin) continue;
      }
      dmap::domain<2> D = c.stencil ? dmap::domain<2>{dmap::stencil<2>{c.fluff, {false, false}, g}, c.r}
                                    : dmap::domain<2>{dmap::block<2>{g}, c.r};
      dmap::array<int, 2> A{D};
      const auto x = dmap::dap_export(A);
      INFO("domain " << c.r << " grid " << g << " stencil " << c.stencil);
      bool valid = true;
      for (const auto& d : x.dim_data) {
        try {
          dmap::validate(d);
        } catch (const dmap::argument_error&) {
          valid = false;
        }
      }
      DMAP_CHECK_ALL(valid);
      // The buffer is exactly [start, stop) in every dimension.
      bool shapes = true;
      for (std::size_t d = 0; d < 2; ++d) shapes = shapes && x.shape[d] == x.dim_data[d].stop - x.dim_data[d].start;
      if (!A.local_blocks().empty())
        for (std::size_t d = 0; d < 2; ++d)
          shapes = shapes && x.shape[d] == A.local_blocks().front().layout.indices.dim(d).size();
      DMAP_CHECK_ALL(shapes);
      // Summing num_owned_indices over the locales of one grid line gives `size`, and size is
      // the domain's extent plus the boundary padding (independent of the export).
      const auto coords = g.coords_of(dmap::here());
      for (std::size_t d = 0; d < 2; ++d) {
        const bool on_line = coords[1 - d] == 0;
        const auto owned = dmap::all_reduce_sum(on_line ? dmap::num_owned_indices(x.dim_data[d]) : dmap::index_t{0});
        DMAP_CHECK_ALL(owned == c.r.dim(d).size() + 2 * c.fluff[d]);
        DMAP_CHECK_ALL(x.dim_data[d].size == c.r.dim(d).size() + 2 * c.fluff[d]);
        DMAP_CHECK_ALL(x.dim_data[d].proc_grid_rank == coords[d]);
        DMAP_CHECK_ALL(x.dim_data[d].proc_grid_size == g.extent(d));
      }
    }
  }
}

TEST_CASE("DAP: validate names the broken rule", "[dap][serial]") {
  dmap::dap_dimension d;
  d.size = 10;
  d.stop = 11;
  CHECK_THROWS_WITH(dmap::validate(d), Catch::Contains("'stop' is 11; it must be <= size (10)"));
  d.stop = 5;
  d.start = 6;
  d.proc_grid_size = 2;
  d.proc_grid_rank = 1;
  CHECK_THROWS_WITH(dmap::validate(d), Catch::Contains("'stop' is 5; it must be >= start (6)"));
  d.start = 0;
  d.proc_grid_rank = 2;
  CHECK_THROWS_WITH(dmap::validate(d), Catch::Contains("'proc_grid_rank' is 2; it must be in [0, proc_grid_size) = [0, 2)"));
}

}  // namespace test_dap
