// The conformance kit can fail: maps that break one rule each, written here as variants of
// the user-defined custom_dist::weighted_block (examples/custom_dist), must make the kit report
// failure on every locale, naming the broken check and the locales where it failed:
//   * locale_of off by one (it names the next locale, or locale P for the last one's indices):
//     "2. locale_of agrees with local_subdomains";
//   * overlapping subdomains (every locale reports its rect twice, stored apart): "1. exact
//     cover by local_subdomains";
//   * aliased layouts (every locale splits its rows into two subdomains whose layouts both start
//     at offset 0): "3. layouts: offsets distinct, in the buffer, compact";
//   * a broken local layout brought by a user map (examples/tiled_block's block_with_layout with
//     a tiled layout whose tiles overlap by one element, or whose tiles are each stored one
//     element further on, leaving the buffer's first element unused): the same check 3.
// Each is checked in 2-D on a few random cases (no large case), so the test stays quick; the
// result of a broken map must be the same on every locale. And a factory that throws on one
// locale only stops the run with a failure on every locale, naming that locale (no locale is
// left waiting in a collective).
#include "../support.hpp"

#include "../../conformance/conformance.hpp"
#include "../../examples/custom_dist/weighted_block.hpp"
#include "../../examples/tiled_block/tiled_block.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace test_conformance_broken_maps {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

namespace kit = dmap::conformance;
using dmap::idx;
using dmap::rect;

/// The one rule a broken map breaks.
enum class defect { locale_of_off_by_one, overlapping_subdomains, aliased_layouts };

/// A weighted_block domain with one defect.
template <std::size_t N, defect Defect>
class broken_domain {
 public:
  explicit broken_domain(custom_dist::weighted_block_domain<N> inner) : inner_(std::move(inner)) { refresh(); }

  const rect<N>& indices() const noexcept { return inner_.indices(); }
  void set_indices(const rect<N>& r) {
    inner_.set_indices(r);
    refresh();
  }
  int locale_of(const idx<N>& i) const {
    return inner_.locale_of(i) + (Defect == defect::locale_of_off_by_one ? 1 : 0);
  }
  std::vector<rect<N>> local_subdomains(int q) const {
    const auto subs = inner_.local_subdomains(q);
    if (subs.empty() || Defect == defect::locale_of_off_by_one) return subs;
    if (Defect == defect::overlapping_subdomains) return {subs[0], subs[0]};
    return halves(subs[0]);
  }
  std::vector<dmap::dense_layout<N>> local_layouts(int q) const {
    const auto subs = local_subdomains(q);
    std::vector<dmap::dense_layout<N>> out;
    dmap::index_t offset = 0;
    for (const auto& s : subs) {
      out.push_back(dmap::dense_layout<N>::make(s, offset));
      if (Defect != defect::aliased_layouts) offset += s.size();
    }
    return out;
  }
  const dmap::pieces_local_domain<N>& local() const noexcept { return local_; }
  const dmap::target_grid<N>& targets() const noexcept { return inner_.targets(); }

 private:
  // The rect's rows split in two (one piece when it has a single row).
  static std::vector<rect<N>> halves(const rect<N>& r) {
    const dmap::index_t rows = r.dim(0).size();
    if (rows < 2) return {r};
    const dmap::range& d = r.dim(0);
    rect<N> first = r, second = r;
    first.set_dim(0, dmap::range::counted(d.first(), rows / 2, d.stride()));
    second.set_dim(0, dmap::range::counted(d.first() + (rows / 2) * d.stride(), rows - rows / 2, d.stride()));
    return {first, second};
  }
  void refresh() {
    local_ = dmap::pieces_local_domain<N>(local_subdomains(dmap::here()), local_layouts(dmap::here()));
  }

  custom_dist::weighted_block_domain<N> inner_;
  dmap::pieces_local_domain<N> local_{};
};

/// weighted_block with increasing weights and one defect.
template <std::size_t N, defect Defect>
class broken_block {
 public:
  const dmap::target_grid<N>& targets() const noexcept { return inner_.targets(); }
  std::string name() const { return "broken(" + inner_.name() + ", defect " + std::to_string(int(Defect)) + ")"; }
  broken_domain<N, Defect> new_domain(const rect<N>& r) const {
    return broken_domain<N, Defect>(inner_.new_domain(r));
  }
  friend bool operator==(const broken_block&, const broken_block&) = default;

 private:
  custom_dist::weighted_block<N> inner_ = custom_dist::weighted_block<N>::increasing();
};

static_assert(dmap::distribution<broken_block<2, defect::aliased_layouts>, 2>);

/// Collective: the kit on the broken map must fail `broken_check` everywhere alike.
template <defect Defect>
void expect_failure(const std::string& broken_check) {
  kit::options<2> options;
  options.random_cases = 4;
  options.large_case = false;
  const kit::result r = kit::check<2>("broken_block", [](const rect<2>&, kit::random_engine&) {
    return broken_block<2, Defect>{};
  }, options);
  std::ostringstream text;
  text << r;
  INFO(text.str());
  const kit::check_outcome* c = r.find(broken_check);
  DMAP_REQUIRE_ALL(c != nullptr);
  DMAP_CHECK_ALL(!r.ok());
  DMAP_CHECK_ALL(!c->ok());
  DMAP_CHECK_ALL(!c->failing_locales.empty());
  DMAP_CHECK_ALL(!c->first_failure.empty());
  // The same verdict on every locale: the failed checks, their counts and their locales.
  std::size_t fingerprint = std::hash<std::string>{}(text.str());
  const auto all = dmap::all_gather(fingerprint);
  DMAP_CHECK_ALL(std::count(all.begin(), all.end(), fingerprint) == static_cast<std::ptrdiff_t>(all.size()));
}

/// How a broken tiled layout breaks the local_layout rules.
enum class tile_defect { overlap, gap };

/// A tiled layout (2 x 2 tiles) with one defect: each tile after the first starts one element
/// before the previous one ends (two indices share an element), or every tile is stored one
/// element further on (the buffer's first element is never used: not compact).
template <tile_defect Defect>
struct broken_tiles {
  /// "broken_tiles(<defect>)".
  std::string name() const { return "broken_tiles(" + std::to_string(int(Defect)) + ")"; }
  /// The tiles of dmap::tiled_layout, offsets broken.
  std::vector<dmap::placed_piece<2>> place(const std::vector<rect<2>>& pieces) const {
    auto parts = dmap::tiled_layout<2>({2, 2}).place(pieces);
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (Defect == tile_defect::overlap && k > 0) parts[k].layout.offset -= 1;
      if (Defect == tile_defect::gap) parts[k].layout.offset += 1;
    }
    return parts;
  }
  friend bool operator==(const broken_tiles&, const broken_tiles&) = default;
};
static_assert(dmap::local_layout<broken_tiles<tile_defect::overlap>, 2>);

/// Collective: the kit on Block's cut stored by the broken layout must fail check 3 alike
/// everywhere.
template <tile_defect Defect>
void expect_layout_failure(const std::string& needle) {
  kit::options<2> options;
  options.random_cases = 4;
  options.large_case = false;
  const kit::result r = kit::check<2>("broken_tiles", [](const rect<2>&, kit::random_engine&) {
    return user_layouts::block_with_layout<2, broken_tiles<Defect>>(broken_tiles<Defect>{});
  }, options);
  std::ostringstream text;
  text << r;
  INFO(text.str());
  const kit::check_outcome* c = r.find("3. layouts: offsets distinct, in the buffer, compact");
  DMAP_REQUIRE_ALL(c != nullptr);
  DMAP_CHECK_ALL(!r.ok() && !c->ok() && !c->failing_locales.empty());
  DMAP_CHECK_ALL(c->first_failure.find(needle) != std::string::npos);
  const std::size_t fingerprint = std::hash<std::string>{}(text.str());
  const auto all = dmap::all_gather(fingerprint);
  DMAP_CHECK_ALL(std::count(all.begin(), all.end(), fingerprint) == static_cast<std::ptrdiff_t>(all.size()));
}

}  // namespace

TEST_CASE("conformance kit: a user layout whose tiles overlap fails check 3 on every locale",
          "[conformance][conformance_kit][layouts]") {
  expect_layout_failure<tile_defect::overlap>("share element");
}

TEST_CASE("conformance kit: a user layout that leaves an element unused fails check 3 on every locale",
          "[conformance][conformance_kit][layouts]") {
  expect_layout_failure<tile_defect::gap>("not compact");
}

TEST_CASE("conformance kit: a map whose locale_of is off by one fails check 2 on every locale",
          "[conformance][conformance_kit]") {
  expect_failure<defect::locale_of_off_by_one>("2. locale_of agrees with local_subdomains");
}

TEST_CASE("conformance kit: a map whose subdomains overlap fails check 1 on every locale",
          "[conformance][conformance_kit]") {
  expect_failure<defect::overlapping_subdomains>("1. exact cover by local_subdomains");
}

TEST_CASE("conformance kit: a map whose layouts alias fails check 3 on every locale",
          "[conformance][conformance_kit]") {
  expect_failure<defect::aliased_layouts>("3. layouts: offsets distinct, in the buffer, compact");
}

TEST_CASE("conformance kit: a factory that throws on one locale stops the run, failing on every locale",
          "[conformance][conformance_kit]") {
  kit::options<1> options;
  options.random_cases = 3;
  const int last = dmap::num_locales() - 1;
  const kit::result r = kit::check<1>("throwing factory", [last](const rect<1>&, kit::random_engine&) {
    if (dmap::here() == last) throw std::runtime_error("no map on this locale");
    return custom_dist::weighted_block<1>::uniform();
  }, options);
  const kit::check_outcome* c = r.find("0. the factory makes a map, and its rules answer alike on every locale");
  DMAP_REQUIRE_ALL(c != nullptr);
  DMAP_CHECK_ALL(!r.ok());
  DMAP_CHECK_ALL(!c->ok());
  DMAP_CHECK_ALL(c->failing_locales == std::vector<int>{last});
  DMAP_CHECK_ALL(r.cases() == 0);
}

}  // namespace test_conformance_broken_maps
