// Bad inputs to the vocabulary the three kinds of domains and arrays share: mappers
// that answer differently on different locales (Hashed domains, associative domains and the
// sparse domains over a Hashed parent, caught where the keys or indices arrive), assignments
// between arrays over different sparse or associative domains whose sets differ (a size, an
// index or key absent on one locale only, an index outside the left-hand parent), implicit
// values that differ between locales, one-sided reads and writes outside the parent or of
// absent indices at the int64 extremes, and moved-from operands on one locale only. Every
// failure reaches every locale as the same named error, and the target is unchanged.
#include "support.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../layouts/compressed_layout.hpp"
#include "../../layouts/coo_layout.hpp"

namespace test_bad_vocabulary {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::bad_input::int64_max;
using dmap::bad_input::int64_min;
using i64 = std::int64_t;

namespace {

/// A mapper of indices that shifts the owner by the locale asking: every locale but one
/// disagrees with every other about most indices.
int shifted_by_here(index_t i, int locales) { return static_cast<int>((i + dmap::here()) % locales); }

/// The usual owner i mod P, except that on locale 2 index 1 is sent to locale 0. Index 1's
/// directory home (12 indices over 3 or 4 locales) is locale 0 and its owner is locale 1,
/// both of which agree: a Hashed domain builds, and only a locale-2 lookup disagrees.
int wrong_on_locale_two(index_t i, int locales) {
  if (dmap::here() == 2 && i == 1) return 0;
  return static_cast<int>(i % locales);
}

/// An associative mapper that, on locale 1 only, sends key 7 to locale 0 (the others to 1).
int key_seven_moves(i64 k, int locales) {
  if (k == 7) return dmap::here() == 1 ? 0 : 1 % locales;
  return static_cast<int>(((k % locales) + locales) % locales);
}
using moving_domain = dmap::associative_domain<i64, dmap::key_hash<i64>, int (*)(i64, int)>;
using moving_array = dmap::associative_array<double, i64, dmap::key_hash<i64>, int (*)(i64, int)>;

/// Block in 1-D, except that locale 2's locale_of names locale 0 as the owner of index 11,
/// which Block gives the last locale (a user map answering differently on different locales;
/// its pieces are Block's).
class lying_block_domain {
 public:
  explicit lying_block_domain(dmap::block_domain<1> inner) : inner_(std::move(inner)) {}
  const rect<1>& indices() const noexcept { return inner_.indices(); }
  void set_indices(const rect<1>& r) { inner_.set_indices(r); }
  int locale_of(const idx<1>& i) const { return dmap::here() == 2 && i[0] == 11 ? 0 : inner_.locale_of(i); }
  std::vector<rect<1>> local_subdomains(int q) const { return inner_.local_subdomains(q); }
  std::vector<dmap::dense_layout<1>> local_layouts(int q) const { return inner_.local_layouts(q); }
  const auto& local() const noexcept { return inner_.local(); }
  const dmap::target_grid<1>& targets() const noexcept { return inner_.targets(); }

 private:
  dmap::block_domain<1> inner_;
};
/// The distribution of lying_block_domain.
struct lying_block {
  dmap::block<1> inner;
  const dmap::target_grid<1>& targets() const noexcept { return inner.targets(); }
  std::string name() const { return "lying(" + inner.name() + ")"; }
  lying_block_domain new_domain(const rect<1>& r) const { return lying_block_domain(inner.new_domain(r)); }
  friend bool operator==(const lying_block&, const lying_block&) = default;
};
static_assert(dmap::distribution<lying_block, 1>);

/// Collective: "size/sum" of an associative array over its domain, to compare before and after.
template <class A>
std::string summary(const A& a) {
  std::ostringstream o;
  o << a.domain().size() << "/" << dmap::reduce(a, 0.0);
  return o.str();
}

}  // namespace

TEST_CASE("bad input: mappers that answer differently on different locales", "[bad_input][vocabulary]") {
  const int p = dmap::num_locales();
  if (p >= 2) {
    using fn = int (*)(index_t, int);
    BAD_INPUT("hashed: a mapper shifted by the asking locale (owners re-map what they receive)", dmap::argument_error,
              dmap::domain<1>(dmap::hashed<1, fn>{&shifted_by_here, "shifted by here"}, rect<1>{range(0, 40)}));
    BAD_INPUT("hashed 2-D: a mapper shifted by the asking locale", dmap::argument_error,
              dmap::domain<2>(dmap::hashed<2, int (*)(const idx<2>&, int)>{
                                  +[](const idx<2>& i, int locales) {
                                    return static_cast<int>((i[0] * 7 + i[1] + dmap::here()) % locales);
                                  },
                                  "2-D shifted by here"},
                              rect<2>{range(0, 6), range(0, 7)}));
    // An associative domain whose mapper moves key 7 on locale 1 only.
    moving_domain D({}, &key_seven_moves);
    moving_array A(D, 0.5);
    D.add({1, 2, 3, 4});
    const std::string before = summary(A);
    const bool one = dmap::here() == 1;
    const std::vector<i64> seven = one ? std::vector<i64>{7} : std::vector<i64>{};
    BAD_INPUT("associative add: key 7 sent to locale 0 by locale 1's mapper only", dmap::argument_error, D.add(seven));
    BAD_INPUT("associative remove: key 7 sent to locale 0 by locale 1's mapper only", dmap::argument_error,
              D.remove(seven));
    BAD_INPUT("associative contains_each: key 7 sent to locale 0 by locale 1's mapper only", dmap::argument_error,
              (void)D.contains_each(seven));
    BAD_INPUT("associative_array get: key 7 sent to locale 0 by locale 1's mapper only", dmap::argument_error,
              (void)A.get(seven));
    BAD_INPUT("associative_array set: key 7 sent to locale 0 by locale 1's mapper only", dmap::argument_error,
              A.set(seven, std::vector<double>(seven.size(), 9.0)));
    BAD_INPUT("associative_array accumulate: key 7 sent to locale 0 by locale 1's mapper only", dmap::argument_error,
              A.accumulate(seven, std::vector<double>(seven.size(), 9.0)));
    BAD_INPUT("associative_array add_and_accumulate: key 7 sent to locale 0 by locale 1's mapper only",
              dmap::argument_error, A.add_and_accumulate(seven, std::vector<double>(seven.size(), 9.0)));
    CHECK_NO_FAILURE(summary(A) == before ? "" : "a refused change moved keys or values: " + summary(A));
  }
  if (p >= 3) {
    // A Hashed domain whose mapper disagrees on locale 2 only, about an index neither its
    // directory home nor its owner asks about: it builds (the limit of the owner's check),
    // and locale 2's locale_of names another owner than the directory does.
    using fn = int (*)(index_t, int);
    const dmap::domain<1> hashed(dmap::hashed<1, fn>{&wrong_on_locale_two, "wrong on locale 2"},
                                 rect<1>{range(0, 12)});
    DMAP_CHECK_ALL(hashed.locales_of({idx<1>{1}}).front() == 1);
    // A user parent map whose locale_of disagrees on locale 2 only: sparse operations routed
    // from locale 2 arrive where no piece holds the index (locale 0 holds [0, 4) or [0, 3)).
    const dmap::domain<1> parent(lying_block{}, rect<1>{range(0, 12)});
    dmap::sparse_domain<1> s(parent, dmap::coo_layout<1>{});
    s.add({idx<1>{5}, idx<1>{6}});
    dmap::sparse_array<double, 1> a(s, -1.0);
    const std::vector<idx<1>> one = dmap::here() == 2 ? std::vector<idx<1>>{idx<1>{11}} : std::vector<idx<1>>{};
    BAD_INPUT("sparse add: index 11 routed to locale 0 by locale 2's parent map only", dmap::argument_error,
              s.add(one));
    BAD_INPUT("sparse contains_each: index 11 routed to locale 0 by locale 2's parent map only",
              dmap::argument_error, (void)s.contains_each(one));
    BAD_INPUT("sparse_array get: index 11 routed to locale 0 by locale 2's parent map only", dmap::argument_error,
              (void)a.get(one));
    BAD_INPUT("sparse_array set: index 11 routed to locale 0 by locale 2's parent map only", dmap::argument_error,
              a.set(one, std::vector<double>(one.size(), 3.0)));
    DMAP_CHECK_ALL(s.size() == 2 && dmap::reduce(a, 0.0) == -2.0);
  }
}

TEST_CASE("bad input: assignments between arrays over different sparse or associative domains",
          "[bad_input][vocabulary]") {
  const int p = dmap::num_locales();
  const int last = p - 1;
  const bool at_last = dmap::here() == last;
  const rect<2> space{{0, 8}, {-3, 5}};
  const dmap::domain<2> block{dmap::block<2>{}, space};
  const dmap::domain<2> cyclic{dmap::cyclic<2>{}, space};
  dmap::sparse_domain<2> s{block, dmap::csr_layout<2>{}};
  dmap::sparse_domain<2> t{cyclic, dmap::csc_layout<2>{}};
  s.add({idx<2>{0, -3}, idx<2>{4, 4}, idx<2>{7, 0}});
  t.add({idx<2>{0, -3}, idx<2>{4, 4}, idx<2>{7, 0}});
  dmap::sparse_array<double, 2> a{s, 0.0};
  dmap::sparse_array<double, 2> b{t, 0.0};
  dmap::forall(a, [](double& v) { v = 1.0; });
  dmap::forall(b, [](double& v) { v = 2.0; });
  const auto sum = [&] { return dmap::reduce(a, 0.0); };

  // Equal sets work (the control): the values move by index.
  a = b;
  DMAP_CHECK_ALL(sum() == 6.0);
  dmap::forall(a, [](double& v) { v = 1.0; });

  // The right-hand set has one more index, added by the last locale only.
  t.add(at_last ? std::vector<idx<2>>{{2, 2}} : std::vector<idx<2>>{});
  BAD_INPUT("sparse_array operator=: the right-hand set holds one more index (added by the last locale only)",
            dmap::shape_error, a = b);
  // Same sizes, one index different: (2, 2) is absent on the left.
  t.remove({idx<2>{7, 0}});
  BAD_INPUT("sparse_array operator=: equal sizes, (2, 2) absent on the left", dmap::shape_error, a = b);
  // An index of the right-hand side outside the left-hand parent (INT64 extremes in the set).
  const dmap::domain<2> wide{dmap::block<2>{}, rect<2>{range(int64_max - 10, int64_max), range(0, 4)}};
  const dmap::domain<2> wide_left{dmap::block<2>{}, rect<2>{range(int64_max - 10, int64_max - 1), range(0, 4)}};
  dmap::sparse_domain<2> far{wide, dmap::coo_layout<2>{}};
  dmap::sparse_domain<2> near{wide_left, dmap::coo_layout<2>{}};
  far.add({idx<2>{int64_max - 1, 3}, idx<2>{int64_max - 10, 0}});
  near.add({idx<2>{int64_max - 2, 3}, idx<2>{int64_max - 10, 0}});
  dmap::sparse_array<double, 2> fa{far, 1.0};
  dmap::sparse_array<double, 2> na{near, 1.0};
  BAD_INPUT("sparse_array operator=: a right-hand index (INT64_MAX - 1, 3) outside the left-hand parent",
            dmap::shape_error, na = fa);
  DMAP_CHECK_ALL(sum() == 3.0 && dmap::reduce(na, 0.0) == 2.0);
  // A moved-from operand on one locale only.
  BAD_INPUT("sparse_array operator=: the right-hand array moved from on locale 0 only", dmap::argument_error, [&] {
    dmap::sparse_array<double, 2> c{s, 5.0};
    dmap::sparse_array<double, 2> d{std::move(c)};
    a = dmap::here() == 0 ? c : d;
  }());
  BAD_INPUT("sparse_array copy: of an array moved from on the last locale only", dmap::argument_error, [&] {
    dmap::sparse_array<double, 2> c{s, 5.0};
    dmap::sparse_array<double, 2> d{std::move(c)};
    dmap::sparse_array<double, 2> e{at_last ? c : d};
  }());
  BAD_INPUT("sparse_array: over a sparse domain moved from on locale 0 only", dmap::argument_error, [&] {
    dmap::sparse_domain<2> u{block, dmap::coo_layout<2>{}};
    dmap::sparse_domain<2> v{std::move(u)};
    dmap::sparse_array<double, 2> e{dmap::here() == 0 ? u : v};
  }());
  BAD_INPUT("sparse_domain: over a parent moved from on the last locale only", dmap::argument_error, [&] {
    dmap::domain<2> g{dmap::block<2>{}, space};
    dmap::domain<2> h{std::move(g)};
    dmap::sparse_domain<2> u{at_last ? g : h, dmap::coo_layout<2>{}};
  }());
  DMAP_CHECK_ALL(sum() == 3.0);

  // Associative arrays over domains of different mappers.
  dmap::associative_domain<i64> D;
  const auto to_zero = [](i64, int) { return 0; };
  dmap::associative_domain<i64, dmap::key_hash<i64>, decltype(to_zero)> E({}, to_zero);
  dmap::associative_array<double, i64> A(D, 1.0);
  dmap::associative_array<double, i64, dmap::key_hash<i64>, decltype(to_zero)> B(E, 2.0);
  D.add({int64_min, -1, 0, 1, int64_max});
  E.add({int64_min, -1, 0, 1, int64_max});
  A = B;  // the control: equal key sets
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == 10.0);
  dmap::forall(A, [](double& v) { v = 1.0; });
  E.add(at_last ? std::vector<i64>{42} : std::vector<i64>{});
  BAD_INPUT("associative_array operator=: the right-hand domain holds one more key (added by the last locale only)",
            dmap::shape_error, A = B);
  E.remove({int64_max});
  BAD_INPUT("associative_array operator=: equal sizes, key 42 absent on the left", dmap::shape_error, A = B);
  dmap::associative_domain<i64> F;
  dmap::associative_array<double, i64> C(F, 3.0);
  F.add({int64_min, -1, 0, 1, 43});
  BAD_INPUT("associative_array operator=: one domain, same hash and mapper, key 43 absent on the left",
            dmap::shape_error, A = C);
  BAD_INPUT("associative_array operator=: the right-hand array moved from on locale 0 only", dmap::argument_error,
            [&] {
              dmap::associative_array<double, i64> G(D);
              dmap::associative_array<double, i64> H(std::move(G));
              A = dmap::here() == 0 ? G : H;
            }());
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == 5.0);
}

TEST_CASE("bad input: collective batches over operands moved from on one locale only", "[bad_input][vocabulary]") {
  const int last = dmap::num_locales() - 1;
  const dmap::domain<2> parent{dmap::block<2>{}, rect<2>{{0, 6}, {0, 6}}};
  dmap::sparse_domain<2> s{parent, dmap::coo_layout<2>{}};
  s.add({idx<2>{1, 1}, idx<2>{4, 5}});
  dmap::sparse_array<double, 2> a{s, 2.0};
  dmap::associative_domain<i64> K;
  K.add({int64_min, 3, int64_max});
  dmap::associative_array<double, i64> B(K, 2.0);
  const std::vector<idx<2>> some{idx<2>{1, 1}, idx<2>{2, 2}};
  const std::vector<i64> keys{3, int64_max};
  // Each case moves a fresh handle away on one locale only, then calls the collective with it.
  const auto moved_sparse = [&](int where, auto&& call) {
    dmap::sparse_domain<2> t{s};
    dmap::sparse_domain<2> u{std::move(t)};
    call(dmap::here() == where ? t : u);
  };
  BAD_INPUT("sparse add: a domain handle moved from on locale 0 only", dmap::argument_error,
            moved_sparse(0, [&](dmap::sparse_domain<2>& d) { d.add(some); }));
  BAD_INPUT("sparse remove: a domain handle moved from on the last locale only", dmap::argument_error,
            moved_sparse(last, [&](dmap::sparse_domain<2>& d) { d.remove(some); }));
  BAD_INPUT("sparse clear: a domain handle moved from on locale 0 only", dmap::argument_error,
            moved_sparse(0, [&](dmap::sparse_domain<2>& d) { d.clear(); }));
  BAD_INPUT("sparse contains_each: a domain handle moved from on the last locale only", dmap::argument_error,
            moved_sparse(last, [&](dmap::sparse_domain<2>& d) { (void)d.contains_each(some); }));
  const auto moved_array = [&](int where, auto&& call) {
    dmap::sparse_array<double, 2> t{a};
    dmap::sparse_array<double, 2> u{std::move(t)};
    call(dmap::here() == where ? t : u);
  };
  BAD_INPUT("sparse_array get: an array moved from on locale 0 only", dmap::argument_error,
            moved_array(0, [&](dmap::sparse_array<double, 2>& x) { (void)x.get(some); }));
  BAD_INPUT("sparse_array set: an array moved from on the last locale only", dmap::argument_error,
            moved_array(last, [&](dmap::sparse_array<double, 2>& x) { x.set(some, std::vector<double>{1.0, 1.0}); }));
  BAD_INPUT("sparse_array set_implicit_value: an array moved from on locale 0 only", dmap::argument_error,
            moved_array(0, [&](dmap::sparse_array<double, 2>& x) { x.set_implicit_value(1.0); }));
  const auto moved_keys = [&](int where, auto&& call) {
    dmap::associative_domain<i64> t{K};
    dmap::associative_domain<i64> u{std::move(t)};
    call(dmap::here() == where ? t : u);
  };
  BAD_INPUT("associative add: a domain handle moved from on the last locale only", dmap::argument_error,
            moved_keys(last, [&](dmap::associative_domain<i64>& d) { d.add(keys); }));
  BAD_INPUT("associative remove: a domain handle moved from on locale 0 only", dmap::argument_error,
            moved_keys(0, [&](dmap::associative_domain<i64>& d) { d.remove(keys); }));
  BAD_INPUT("associative clear: a domain handle moved from on the last locale only", dmap::argument_error,
            moved_keys(last, [&](dmap::associative_domain<i64>& d) { d.clear(); }));
  BAD_INPUT("associative contains_each: a domain handle moved from on locale 0 only", dmap::argument_error,
            moved_keys(0, [&](dmap::associative_domain<i64>& d) { (void)d.contains_each(keys); }));
  const auto moved_values = [&](int where, auto&& call) {
    dmap::associative_array<double, i64> t{B};
    dmap::associative_array<double, i64> u{std::move(t)};
    call(dmap::here() == where ? t : u);
  };
  BAD_INPUT("associative_array get: an array moved from on the last locale only", dmap::argument_error,
            moved_values(last, [&](dmap::associative_array<double, i64>& x) { (void)x.get(keys); }));
  BAD_INPUT("associative_array accumulate: an array moved from on locale 0 only", dmap::argument_error,
            moved_values(0, [&](dmap::associative_array<double, i64>& x) {
              x.accumulate(keys, std::vector<double>{1.0, 1.0});
            }));
  BAD_INPUT("associative_array add_and_accumulate: an array moved from on the last locale only", dmap::argument_error,
            moved_values(last, [&](dmap::associative_array<double, i64>& x) {
              x.add_and_accumulate(keys, std::vector<double>{1.0, 1.0});
            }));
  DMAP_CHECK_ALL(s.size() == 2 && dmap::reduce(a, 0.0) == 4.0 && K.size() == 3 && dmap::reduce(B, 0.0) == 6.0);
}

TEST_CASE("bad input: implicit values that differ between locales", "[bad_input][vocabulary]") {
  const int p = dmap::num_locales();
  if (p < 2) return;  // one locale always agrees with itself
  const dmap::domain<1> D{dmap::block<1>{}, rect<1>{range(0, 10)}};
  dmap::array<double, 1> X(D, 1.0);
  dmap::sparse_domain<1> S(D, dmap::coo_layout<1>{});
  dmap::sparse_array<i64, 1> Y(S, 7);
  dmap::associative_domain<i64> K;
  dmap::associative_array<float, i64> Z(K, 0.5f);
  const bool last = dmap::here() == p - 1;
  BAD_INPUT("array set_implicit_value: 2.0 everywhere but the last locale (NaN)", dmap::argument_error,
            X.set_implicit_value(last ? std::numeric_limits<double>::quiet_NaN() : 2.0));
  BAD_INPUT("array set_implicit_value: -0.0 on locale 0, 0.0 elsewhere (the bits differ)", dmap::argument_error,
            X.set_implicit_value(dmap::here() == 0 ? -0.0 : 0.0));
  BAD_INPUT("sparse_array set_implicit_value: INT64_MIN on the last locale only", dmap::argument_error,
            Y.set_implicit_value(last ? int64_min : 0));
  BAD_INPUT("associative_array set_implicit_value: 1.5f on locale 0 only", dmap::argument_error,
            Z.set_implicit_value(dmap::here() == 0 ? 1.5f : 0.5f));
  BAD_INPUT("associative_array set_implicit_value: moved from on the last locale only", dmap::argument_error, [&] {
    dmap::associative_array<float, i64> G(K);
    dmap::associative_array<float, i64> H(std::move(G));
    (last ? G : H).set_implicit_value(1.0f);
  }());
  DMAP_CHECK_ALL(X.implicit_value() == 1.0 && Y.implicit_value() == 7 && Z.implicit_value() == 0.5f);
}

}  // namespace test_bad_vocabulary
