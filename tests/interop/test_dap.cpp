// DAP 0.10 descriptions of Block and Stencil arrays against the protocol's rules and its
// "block with padding" example.
#include "../support.hpp"

#include <array>
#include <bit>
#include <complex>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace test_dap {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::index_t;

// A user's map, unknown to interop/: index i of a 1-D domain goes to locale (order of i) mod
// P, one strided piece per locale stored compactly. With Declares it says so through the
// DSI's optional dimension_kinds() (a cyclic deal of blocks of 1); without, exports see
// only its pieces.
template <bool Declares>
class round_robin_domain;

template <bool Declares>
class round_robin {
 public:
  const dmap::target_grid<1>& targets() const noexcept { return grid_; }
  std::string name() const { return Declares ? "round_robin(declared)" : "round_robin"; }
  round_robin_domain<Declares> new_domain(const dmap::rect<1>& r) const { return round_robin_domain<Declares>(*this, r); }
  friend bool operator==(const round_robin&, const round_robin&) = default;

 private:
  dmap::target_grid<1> grid_{};
};

template <bool Declares>
class round_robin_domain {
 public:
  round_robin_domain(const round_robin<Declares>& dist, const dmap::rect<1>& r) : dist_(dist) { set_indices(r); }
  const dmap::target_grid<1>& targets() const noexcept { return dist_.targets(); }
  const dmap::rect<1>& indices() const noexcept { return whole_; }
  void set_indices(const dmap::rect<1>& r) {
    whole_ = r;
    local_ = dmap::pieces_local_domain<1>(local_subdomains(dmap::here()), local_layouts(dmap::here()));
  }
  int locale_of(const dmap::idx<1>& i) const {
    return static_cast<int>(whole_.dim(0).order_of(i[0]) % dmap::num_locales());
  }
  std::vector<dmap::rect<1>> local_subdomains(int q) const {
    const dmap::range& w = whole_.dim(0);
    const index_t p = dmap::num_locales();
    if (q >= w.size()) return {};
    const index_t count = (w.size() - q + p - 1) / p;
    return {dmap::rect<1>{dmap::range::counted(w.index_at(q), count, w.stride() * p)}};
  }
  std::vector<dmap::dense_layout<1>> local_layouts(int q) const {
    std::vector<dmap::dense_layout<1>> out;
    for (const auto& r : local_subdomains(q)) out.push_back(dmap::dense_layout<1>::make(r, 0));
    return out;
  }
  const dmap::pieces_local_domain<1>& local() const noexcept { return local_; }
  std::array<dmap::dimension_kind, 1> dimension_kinds() const
    requires Declares
  {
    return {dmap::dimension_kind::cyclic(1)};
  }

 private:
  round_robin<Declares> dist_;
  dmap::rect<1> whole_{};
  dmap::pieces_local_domain<1> local_{};
};

static_assert(dmap::distribution<round_robin<true>, 1> && dmap::distribution<round_robin<false>, 1>);

// Collective: "" when dmap::validate accepts `x` on every locale, else the message.
template <class T, std::size_t N>
std::string invalid(const dmap::dap_description<T, N>& x) {
  try {
    dmap::validate(x);
  } catch (const dmap::argument_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

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

TEST_CASE("DAP: a periodic dimension's edge padding is boundary padding in 0.10, communication padding in 0.9", "[dap]") {
  // DAP 0.10 as written: 0 <= start <= stop <= size, and its appendix's num_owned_indices
  // counts the first and last grid ranks' edge padding: so a periodic dimension's edge
  // padding is counted in size, like boundary padding, and `periodic` says those cells hold
  // the wrapped values. 16 indices on p locales with one ghost layer wrapping: size 18, grid
  // rank 0 starts at 0 (its first slot holds index 15's value), the last one stops at 18.
  dmap::domain D{dmap::stencil<1>{{1}, {true}}, dmap::rect<1>{dmap::range{0, 16}}};
  dmap::array<double, 1> A{D};
  const auto x = dmap::dap_export(A);
  const auto owned = D.local_subdomain();
  const auto& d = x.dim_data[0];
  const int p = dmap::num_locales();
  DMAP_CHECK_ALL((d.size == 18 && d.periodic && d.padding == std::array<dmap::index_t, 2>{1, 1}));
  DMAP_CHECK_ALL((d.start == owned.dim(0).lo() && d.stop == owned.dim(0).hi() + 2));
  DMAP_CHECK_ALL((d.start >= 0 && d.stop <= d.size));  // what a strict DAP 0.10 validator asks
  DMAP_CHECK_ALL((dmap::here() != 0 || d.start == 0));
  DMAP_CHECK_ALL((dmap::here() != p - 1 || d.stop == 18));
  DMAP_CHECK_ALL(dmap::all_reduce_sum(dmap::num_owned_indices(d)) == 18);
  bool valid = true;
  try {
    dmap::validate(x);
  } catch (const dmap::argument_error&) {
    valid = false;
  }
  DMAP_CHECK_ALL(valid);
  // Round trip: the same Stencil (over {1..<17}, the 'b' positions), the same dictionaries;
  // its halo update fills the edge cells with the wrapped values.
  for (std::size_t j = 0; j < static_cast<std::size_t>(x.shape[0]); ++j) x.buffer[j] = -1.0;
  for (dmap::index_t i = owned.dim(0).lo(); i < owned.dim(0).hi(); ++i)
    x.buffer[static_cast<std::size_t>(i - owned.dim(0).lo() + 1)] = static_cast<double>(i);
  auto B = dmap::dap_import(x);
  INFO(B.domain().name());
  DMAP_CHECK_ALL((B.adopted() && B.domain().indices() == dmap::rect<1>{dmap::range{1, 17}}));
  DMAP_CHECK_ALL(B.domain().name().rfind("stencil", 0) == 0);
  DMAP_CHECK_ALL(dmap::dap_export(B).dim_data[0] == d);
  dmap::update_halos(B);
  DMAP_CHECK_ALL((dmap::here() != 0 || x.buffer[0] == 15.0));
  DMAP_CHECK_ALL((dmap::here() != p - 1 || x.buffer[static_cast<std::size_t>(x.shape[0] - 1)] == 0.0));
  // DAP 0.9 (on request): the edge padding is communication padding, outside [start, stop)
  // and size.
  const auto y = dmap::dap_export(A, "0.9.0");
  DMAP_CHECK_ALL((y.dim_data[0].size == 16 && y.dim_data[0].start == owned.dim(0).lo() &&
                  y.dim_data[0].stop == owned.dim(0).hi() && y.shape[0] == owned.dim(0).size() + 2));
  DMAP_CHECK_ALL(dmap::all_reduce_sum(dmap::num_owned_indices(y.dim_data[0], 9)) == 16);
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

TEST_CASE("DAP: Cyclic and BlockCyclic export 'c' with their block size whatever the shape; Block 'b'", "[dap]") {
  // Each grid coordinate holds at most one block here (3 indices, blocks of 2, or fewer
  // indices than locales): the pieces alone look like a block cut, the map is a deal.
  const int p = dmap::num_locales();
  const int k = dmap::here();
  for (const index_t n : {index_t{0}, index_t{1}, index_t{3}, index_t{2 * p + 1}})
    for (const index_t b : {index_t{1}, index_t{2}, index_t{5}}) {
      INFO("n " << n << ", block " << b);
      const dmap::rect<1> r{dmap::range{0, n}};
      dmap::domain<1> D = b == 1 ? dmap::domain<1>{dmap::cyclic<1>{}, r} : dmap::domain<1>{dmap::block_cyclic<1>{{b}}, r};
      dmap::array<double, 1> A{D};
      const auto x = dmap::dap_export(A);
      const auto& d = x.dim_data[0];
      INFO(dmap::to_json(d));
      DMAP_CHECK_ALL((d.dist_type == 'c' && d.block_size == b && d.start == k * b && d.size == n));
      DMAP_CHECK_ALL(x.shape[0] == D.local_size());
      CHECK_NO_FAILURE(invalid(x));
      // A consumer re-creating the map gets the same one back.
      std::vector<double> mine(static_cast<std::size_t>(A.local_size()), 1.0);
      auto y = x;
      y.buffer = mine.empty() ? nullptr : mine.data();
      auto B = dmap::dap_import(y);
      DMAP_CHECK_ALL((B.adopted() && dmap::dap_export(B).dim_data[0] == d));
      // Block over the same indices: 'b'.
      dmap::domain<1> E{dmap::block<1>{}, r};
      dmap::array<double, 1> C{E};
      DMAP_CHECK_ALL(dmap::dap_export(C).dim_data[0].dist_type == 'b');
    }
  // The 1-D case above in 2-D: 3 x 3 in blocks of 2 on a grid of every locale along rows, and
  // a 2 x 2 grid at 4 locales.
  std::vector<dmap::target_grid<2>> grids{dmap::target_grid<2>{{p, 1}}};
  if (p == 4) grids.push_back(dmap::target_grid<2>{{2, 2}});
  for (const auto& g : grids) {
    dmap::domain<2> D{dmap::block_cyclic<2>{{2, 2}, g, dmap::storage_order::column_major}, dmap::rect<2>{{0, 3}, {0, 3}}};
    dmap::array<double, 2> A{D};
    const auto x = dmap::dap_export(A);
    const auto c = g.coords_of(k);
    for (std::size_t d = 0; d < 2; ++d)
      DMAP_CHECK_ALL((x.dim_data[d].dist_type == 'c' && x.dim_data[d].block_size == 2 && x.dim_data[d].start == 2 * c[d]));
    CHECK_NO_FAILURE(invalid(x));
  }
}

TEST_CASE("DAP: a user map declaring its kind exports like a library one", "[dap]") {
  // interop/ never names the map: what it declares through the DSI decides, not its type.
  const int p = dmap::num_locales();
  for (const index_t n : {index_t{1}, index_t{p}, index_t{2 * p + 1}}) {
    INFO("n " << n);
    const dmap::rect<1> r{dmap::range{0, n}};
    dmap::domain<1> D{round_robin<true>{}, r}, E{round_robin<false>{}, r};
    dmap::array<double, 1> A{D}, B{E};
    const auto x = dmap::dap_export(A), y = dmap::dap_export(B);
    DMAP_CHECK_ALL((x.dim_data[0].dist_type == 'c' && x.dim_data[0].block_size == 1 &&
                    x.dim_data[0].start == dmap::here()));
    // Without the declaration the pieces decide: one index per locale (or one locale) is
    // also a block cut.
    DMAP_CHECK_ALL(y.dim_data[0].dist_type == (n <= p || p == 1 ? 'b' : 'c'));
    // The same description as the library's Cyclic over the same indices.
    dmap::domain<1> C{dmap::cyclic<1>{}, r};
    dmap::array<double, 1> Z{C};
    DMAP_CHECK_ALL(dmap::dap_export(Z).dim_data[0] == x.dim_data[0]);
  }
}

TEST_CASE("DAP: an empty dimension keeps the other dimensions' cut, through import and export", "[dap]") {
  const int p = dmap::num_locales();
  const int k = dmap::here();
  // Rows cut over every locale, no columns (and the transpose): each locale's rows as Block
  // cuts them, not all on grid rank 0.
  for (const bool rows_empty : {false, true}) {
    const index_t n = 4 * p + 1;
    const dmap::rect<2> r = rows_empty ? dmap::rect<2>{{0, 0}, {0, n}} : dmap::rect<2>{{0, n}, {0, 0}};
    const dmap::target_grid<2> g = rows_empty ? dmap::target_grid<2>{{1, p}} : dmap::target_grid<2>{{p, 1}};
    const std::size_t cut = rows_empty ? 1 : 0;
    dmap::domain<2> D{dmap::block<2>{g}, r};
    dmap::array<double, 2> A{D};
    const auto x = dmap::dap_export(A);
    INFO(dmap::to_json(x.dim_data[0]) << " x " << dmap::to_json(x.dim_data[1]));
    const dmap::domain<2> full{dmap::block<2>{g}, rows_empty ? dmap::rect<2>{{0, 1}, {0, n}} : dmap::rect<2>{{0, n}, {0, 1}}};
    const auto mine = full.local_subdomain().dim(cut);
    DMAP_CHECK_ALL((x.dim_data[cut].dist_type == 'b' && x.dim_data[cut].start == mine.lo() &&
                    x.dim_data[cut].stop == mine.hi() && x.dim_data[cut].proc_grid_rank == k));
    DMAP_CHECK_ALL((x.dim_data[1 - cut].dist_type == 'b' && x.dim_data[1 - cut].size == 0 && x.shape[1 - cut] == 0));
    CHECK_NO_FAILURE(invalid(x));
    // Import, export: the same dictionaries.
    auto B = dmap::dap_import(x);
    const auto y = dmap::dap_export(B);
    DMAP_CHECK_ALL((y.dim_data[0] == x.dim_data[0] && y.dim_data[1] == x.dim_data[1] && y.shape == x.shape));
    // Irregular and cyclic cuts survive too.
    std::array<std::vector<index_t>, 2> cuts;
    for (int j = 1; j < p; ++j) cuts[cut].push_back(j * j % (static_cast<int>(n) + 1));
    std::sort(cuts[cut].begin(), cuts[cut].end());
    dmap::domain<2> I{dmap::irregular_block<2>{cuts, g}, r};
    dmap::array<double, 2> C{I};
    const auto z = dmap::dap_export(C);
    const auto w = dmap::dap_export(dmap::dap_import(z));
    DMAP_CHECK_ALL((w.dim_data[0] == z.dim_data[0] && w.dim_data[1] == z.dim_data[1]));
    dmap::domain<2> Y{dmap::block_cyclic<2>{{2, 2}, g}, r};
    dmap::array<double, 2> E{Y};
    const auto u = dmap::dap_export(E);
    DMAP_CHECK_ALL((u.dim_data[0].dist_type == 'c' && u.dim_data[1].dist_type == 'c' &&
                    u.dim_data[cut].start == 2 * k && u.dim_data[cut].block_size == 2));
    const auto v = dmap::dap_export(dmap::dap_import(u));
    DMAP_CHECK_ALL((v.dim_data[0] == u.dim_data[0] && v.dim_data[1] == u.dim_data[1]));
  }
}

TEST_CASE("DAP: exports of const arrays are read-only descriptions", "[dap]") {
  dmap::domain<2> D{dmap::block<2>{}, dmap::rect<2>{{0, 5}, {0, 4}}};
  dmap::array<double, 2> A{D, 2.0};
  const dmap::array<double, 2>& view = A;
  const dmap::dap_description<const double, 2> x = dmap::dap_export(view);
  const dmap::dap_description<double, 2> y = dmap::dap_export(A);
  DMAP_CHECK_ALL((x.buffer == y.buffer && x.dim_data == y.dim_data && x.shape == y.shape && x.strides == y.strides));
  DMAP_CHECK_ALL(dmap::to_json(x) == dmap::to_json(y));
  CHECK_NO_FAILURE(invalid(x));
  DMAP_CHECK_ALL((x.buffer == nullptr || x.buffer[0] == 2.0));
}

// An element type of the user's own: a struct with no value_type.
struct rgb {
  unsigned char r, g, b;
};

TEST_CASE("DAP: the typestr of each element type; a struct of the user's is '|V<size>'", "[dap]") {
  const dmap::domain<1> D{dmap::block<1>{}, dmap::rect<1>{dmap::range{0, 7}}};
  DMAP_CHECK_ALL(dmap::dap_export(dmap::array<rgb, 1>{D}).typestr == "|V3");
  DMAP_CHECK_ALL(dmap::dap_export(dmap::array<std::uint8_t, 1>{D}).typestr == "|u1");
  const bool little = std::endian::native == std::endian::little;
  DMAP_CHECK_ALL(dmap::dap_export(dmap::array<std::complex<double>, 1>{D}).typestr == (little ? "<c16" : ">c16"));
  DMAP_CHECK_ALL(dmap::dap_export(dmap::array<std::int32_t, 1>{D}).typestr == (little ? "<i4" : ">i4"));
}

}  // namespace test_dap
