// A locale's storage as blocks: local_blocks() is a range of blocks, each with a pointer,
// extents and strides (span()) that index like an mdspan by local positions and convert to
// any mdspan type with a layout_stride mapping (to_mdspan). Checked against A.local(i) for
// Block, Dimensional (pieces of one local array), Stencil (a frame of ghost cells) and views
// (strides through the array's storage, backwards too).
#include "../oracle.hpp"
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <ranges>
#include <string>

namespace test_local_blocks {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::testing::throws_as;
using namespace dmap::testing::oracle;

/// The shape of std::mdspan<T, dextents<I, N>, layout_stride> as far as to_mdspan uses it
/// (g++ 12 has no <mdspan>): extents from an array, a strided mapping, (pointer, mapping).
template <class T, std::size_t N>
struct mdspan_like {
  struct extents_type {
    using index_type = std::int64_t;
    explicit extents_type(const std::array<index_type, N>& e) : e(e) {}
    std::array<index_type, N> e;
  };
  struct mapping_type {
    mapping_type(const extents_type& x, const std::array<std::int64_t, N>& s) : ext(x), strides(s) {}
    extents_type ext;
    std::array<std::int64_t, N> strides;
  };
  mdspan_like(T* p, const mapping_type& m) : p(p), m(m) {}
  T& operator()(std::int64_t i, std::int64_t j) const { return p[i * m.strides[0] + j * m.strides[1]]; }
  T* p;
  mapping_type m;
};

/// The elements of every block of `A` read through span() and to_mdspan, against A.local(i);
/// the block's index at local positions (k0, k1) is the k-th index of each dimension.
template <class A>
std::string check_blocks(const A& a, const std::vector<rect<2>>& owned) {
  static_assert(std::ranges::random_access_range<decltype(a.local_blocks())>);
  const auto& blocks = a.local_blocks();
  if (blocks.size() != owned.size()) return "one block per owned rect";
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const auto s = blocks[b].span();
    const rect<2>& r = blocks[b].layout.indices;
    if (s.extents() != r.shape()) return "extents of block " + std::to_string(b);
    const auto md = dmap::to_mdspan<mdspan_like<const double, 2>>(blocks[b].span());
    for (index_t k0 = 0; k0 < s.extent(0); ++k0)
      for (index_t k1 = 0; k1 < s.extent(1); ++k1) {
        const idx<2> i{r.dim(0).index_at(k0), r.dim(1).index_at(k1)};
        if (!owned[b].contains(i)) continue;  // a ghost cell
        if (s(k0, k1) != fval(i) || &s(k0, k1) != &blocks[b](i)) return "span at " + text(i);
        if (md(k0, k1) != fval(i)) return "to_mdspan at " + text(i);
      }
  }
  return {};
}

}  // namespace

TEST_CASE("local blocks: span() and to_mdspan read every owned element of every map", "[local_blocks]") {
  const rect<2> r{range(0, 23), range(-4, 15)};
  const auto filled = [&](const dmap::domain<2>& D) {
    dmap::array<double, 2> A(D);
    dmap::forall(dmap::zip(A, D), [](double& a, const idx<2>& i) { a = fval(i); });
    return A;
  };
  for (const auto& D : {dmap::domain<2>{dmap::block<2>{}, r},
                        dmap::domain<2>{dmap::block_cyclic<2>{idx<2>{3, 2}, dmap::target_grid<2>{},
                                                              dmap::storage_order::column_major},
                                        r},
                        dmap::domain<2>{dmap::stencil<2>{idx<2>{1, 2}}, r}}) {
    INFO(D.name());
    const auto A = filled(D);
    CHECK_NO_FAILURE(check_blocks(A, D.local_subdomains()));
  }
  // is_exhaustive() against brute force: the offsets of a layout's indices fill
  // [offset, offset + size) exactly when it is exhaustive.
  bool ok = true;
  for (const auto& D : {dmap::domain<2>{dmap::block<2>{}, r}, dmap::domain<2>{dmap::block_cyclic<2>{idx<2>{2, 2}}, r},
                        dmap::domain<2>{dmap::cyclic<2>{}, r}}) {
    for (const auto& l : D.local_layouts(dmap::here())) {
      std::vector<index_t> offsets;
      for (const auto& i : points_of(l.indices)) offsets.push_back(l.offset_of(i));
      std::sort(offsets.begin(), offsets.end());
      bool fills = true;
      for (std::size_t k = 0; k < offsets.size(); ++k) fills = fills && offsets[k] == l.offset + static_cast<index_t>(k);
      ok = ok && l.is_exhaustive() == fills;
    }
  }
  DMAP_CHECK_ALL(ok);
}

TEST_CASE("local blocks of views step through the array's storage, backwards too", "[local_blocks][array_view]") {
  const rect<2> r{range(0, 12), range(0, 9)};
  dmap::domain<2> D{dmap::block<2>{}, r};
  dmap::array<double, 2> A(D);
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<2>& i) { a = fval(i); });
  const rect<2> part{range(1, 11, 3), range(0, 9, -2)};  // every third row, columns backwards
  const auto v = A[part];
  std::string fail;
  for (const auto& b : v.local_blocks()) {
    const auto s = b.span();
    const rect<2>& vr = b.layout.indices;
    for (index_t k0 = 0; k0 < s.extent(0); ++k0)
      for (index_t k1 = 0; k1 < s.extent(1); ++k1) {
        const idx<2> i{vr.dim(0).index_at(k0), vr.dim(1).index_at(k1)};
        if (s(k0, k1) != fval(i)) fail = "view span at " + text(i);
      }
    if (s.size() > 1 && s.extent(1) > 1 && s.stride(1) >= 0) fail = "columns backwards have a negative stride";
    // The standard's layout_stride cannot express a negative stride: a named error.
    if (s.extent(1) > 1) {
      const auto [refused, msg] = throws_as<dmap::unsupported_error>(
          [&] { (void)dmap::to_mdspan<mdspan_like<double, 2>>(b.span()); });
      if (!refused || !has(msg, "positive strides")) fail = "to_mdspan of a backwards view: " + msg;
    }
  }
  CHECK_NO_FAILURE(fail);
}

}  // namespace test_local_blocks
