// Dense arrays and domains that are bad on one locale only: a handle moved from there, an
// operand of another shape there, another array or root there. Every check of a collective
// runs inside its first agreement, so the locale that finds the fault and the locales that do
// not fail together (before, the others waited in the next collective: a hang). At one
// locale "one locale only" is every locale, and the same errors are expected.
#include "support.hpp"

#include "../../algorithms/assignment_plan.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace test_bad_one_locale {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::bad_input::fails_from;

TEST_CASE("bad input: dense collectives over a handle moved from on one locale only", "[bad_input][one_locale]") {
  const int last = dmap::num_locales() - 1;
  // Uneven and large enough for node-shared storage (64 KiB), so the array constructor's
  // storage decision is part of what must not split.
  const rect<1> r{range(0, 10007)};
  dmap::domain<1> D(dmap::block<1>{}, r);
  dmap::domain<1> C(dmap::cyclic<1>{}, r);
  dmap::array<double, 1> A(D, 1.0), B(C, 2.0);
  dmap::array<double, 1> out_rows(dmap::domain<1>(dmap::cyclic<1>{}, rect<1>{range(0, 5)}), 0.0);
  dmap::array<double, 2> M(dmap::domain<2>(dmap::block<2>{}, rect<2>{range(0, 5), range(0, 7)}), 1.0);
  // Each case moves a fresh copy of A away on locale `where` only and hands the collective
  // the moved-from handle there, the live one elsewhere.
  const auto moved_array = [&](int where, auto&& call) {
    dmap::array<double, 1> t{A};
    dmap::array<double, 1> u{std::move(t)};
    call(dmap::here() == where ? t : u);
  };
  const auto moved_domain = [&](int where, auto&& call) {
    dmap::domain<1> t{D};
    dmap::domain<1> u{std::move(t)};
    call(dmap::here() == where ? t : u);
  };
  using arr = dmap::array<double, 1>;
  BAD_INPUT("forall over an array moved from on the last locale only", dmap::argument_error,
            moved_array(last, [](arr& x) { dmap::forall(x, [](double& v) { v = 3; }); }));
  BAD_INPUT("reduce over an array moved from on locale 0 only", dmap::argument_error,
            moved_array(0, [](arr& x) { (void)dmap::reduce(x, 0.0); }));
  BAD_INPUT("zip follower moved from on the last locale only", dmap::argument_error,
            moved_array(last, [&](arr& x) { dmap::forall(dmap::zip(A, x), [](double& a, double b) { a = b; }); }));
  BAD_INPUT("forall over a domain moved from on locale 0 only", dmap::argument_error,
            moved_domain(0, [](dmap::domain<1>& d) { dmap::forall(d, [](const idx<1>&) {}); }));
  BAD_INPUT("A = B with B moved from on the last locale only", dmap::argument_error,
            moved_array(last, [&](arr& x) { B = x; }));
  BAD_INPUT("A = B with A moved from on locale 0 only", dmap::argument_error, moved_array(0, [&](arr& x) { x = B; }));
  BAD_INPUT("A = B[view] with A moved from on the last locale only", dmap::argument_error,
            moved_array(last, [&](arr& x) { x = B[r]; }));
  BAD_INPUT("a copy of an array moved from on locale 0 only", dmap::argument_error,
            moved_array(0, [](arr& x) { arr copy{x}; }));
  BAD_INPUT("an array over a domain moved from on the last locale only", dmap::argument_error,
            moved_domain(last, [](dmap::domain<1>& d) { arr made(d, 4.0); }));
  BAD_INPUT("set_indices of a domain moved from on locale 0 only", dmap::argument_error,
            moved_domain(0, [&](dmap::domain<1>& d) { d.set_indices(rect<1>{range(0, 9)}); }));
  BAD_INPUT("with_indices of a domain moved from on the last locale only", dmap::argument_error,
            moved_domain(last, [&](dmap::domain<1>& d) { (void)d.with_indices(rect<1>{range(0, 9)}); }));
  BAD_INPUT("minloc over an array moved from on locale 0 only", dmap::argument_error,
            moved_array(0, [](arr& x) { (void)dmap::minloc(x); }));
  BAD_INPUT("inclusive_scan into an array moved from on the last locale only", dmap::argument_error,
            moved_array(last, [&](arr& x) { (void)dmap::inclusive_scan(A, x); }));
  BAD_INPUT("inclusive_scan of an array moved from on locale 0 only", dmap::argument_error,
            moved_array(0, [&](arr& x) { (void)dmap::inclusive_scan(x, B); }));
  BAD_INPUT("plan_assignment from an array moved from on the last locale only", dmap::argument_error,
            moved_array(last, [&](arr& x) { (void)dmap::plan_assignment(B, x); }));
  BAD_INPUT_DO("partial_reduce into an output moved from on locale 0 only", dmap::argument_error, {
    dmap::array<double, 1> t{out_rows};
    dmap::array<double, 1> u{std::move(t)};
    dmap::partial_reduce<1>(M, dmap::here() == 0 ? t : u, 0.0);
  });
  {
    dmap::domain<1> R(dmap::replicated<1>{}, rect<1>{range(0, 10)});
    dmap::array<double, 1> X(R, 1.0);
    BAD_INPUT_DO("replicate_from of an array moved from on the last locale only", dmap::argument_error, {
      dmap::array<double, 1> t{X};
      dmap::array<double, 1> u{std::move(t)};
      dmap::replicate_from(dmap::here() == last ? t : u, 0);
    });
  }
  {
    // Loops led by sparse and associative operands moved from on one locale only.
    const dmap::domain<2> parent{dmap::block<2>{}, rect<2>{{0, 6}, {0, 6}}};
    dmap::sparse_domain<2> sd{parent, dmap::coo_layout<2>{}};
    sd.add({idx<2>{1, 1}, idx<2>{4, 5}, idx<2>{5, 0}});
    dmap::sparse_array<double, 2> sa{sd, 1.0};
    BAD_INPUT_DO("sparse forall led by an array moved from on locale 0 only", dmap::argument_error, {
      dmap::sparse_array<double, 2> t{sa};
      dmap::sparse_array<double, 2> u{std::move(t)};
      dmap::forall(dmap::here() == 0 ? t : u, [](double& v) { v = 2; });
    });
    dmap::associative_domain<std::int64_t> kd;
    kd.add({dmap::bad_input::int64_min, 7, dmap::bad_input::int64_max});
    dmap::associative_array<double, std::int64_t> ka(kd, 1.0);
    BAD_INPUT_DO("associative forall over an array moved from on the last locale only", dmap::argument_error, {
      dmap::associative_array<double, std::int64_t> t{ka};
      dmap::associative_array<double, std::int64_t> u{std::move(t)};
      dmap::forall(dmap::here() == last ? t : u, [](double& v) { v = 2; });
    });
    BAD_INPUT_DO("associative reduce over an array moved from on locale 0 only", dmap::argument_error, {
      dmap::associative_array<double, std::int64_t> t{ka};
      dmap::associative_array<double, std::int64_t> u{std::move(t)};
      (void)dmap::reduce(dmap::here() == 0 ? t : u, 0.0, std::plus<>{}, [](double v) { return v; });
    });
  }
  // Every locale moved from: `moved = B[view]` dereferenced a missing domain (a crash).
  BAD_INPUT("A = B[view] with A moved from on every locale", dmap::argument_error,
            moved_array(dmap::here(), [&](arr& x) { x = B[r]; }));
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == 10007.0 && dmap::reduce(B, 0.0) == 2 * 10007.0);
}

TEST_CASE("bad input: dense collectives whose arguments differ on one locale only", "[bad_input][one_locale]") {
  const int p = dmap::num_locales(), last = p - 1;
  dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 101)});
  dmap::domain<1> D5(dmap::cyclic<1>{}, rect<1>{range(0, 5)}), D6(dmap::cyclic<1>{}, rect<1>{range(0, 6)});
  dmap::array<double, 1> A(D, 1.0), A2(D, 2.0), B5(D5, 5.0), B6(D6, 6.0), C5(D5, 0.0), E5(D5, 7.0);
  // A zip whose follower has another shape on the last locale only (at one locale: always).
  BAD_INPUT("zip: a follower of another shape on the last locale only", dmap::shape_error,
            dmap::forall(dmap::zip(C5, dmap::here() == last ? B6 : B5), [](double& c, double b) { c = b; }));
  BAD_INPUT("reduce of a zip: a follower of another shape on locale 0 only", dmap::shape_error,
            (void)dmap::reduce(dmap::zip(C5, dmap::here() == 0 ? B6 : B5), 0.0, std::plus<>{},
                               [](double c, double b) { return c * b; }));
  BAD_INPUT("minloc of a zip: a follower of another shape on the last locale only", dmap::shape_error,
            (void)dmap::minloc(dmap::zip(C5, dmap::here() == last ? B6 : B5),
                               [](double c, double b) { return c + b; }));
  if (p > 1) {
    // Arguments that are valid everywhere but differ: an argument_error on every locale.
    BAD_INPUT("minloc over another array on the last locale only", dmap::argument_error,
              (void)dmap::minloc(dmap::here() == last ? A2 : A));
    BAD_INPUT("plan_assignment of another source on locale 0 only", dmap::argument_error,
              (void)dmap::plan_assignment(C5, dmap::here() == 0 ? B5 : E5));
    dmap::domain<1> R(dmap::replicated<1>{}, rect<1>{range(0, 10)});
    dmap::array<double, 1> X(R, 1.0);
    BAD_INPUT("replicate_from with another root on the last locale only", dmap::argument_error,
              dmap::replicate_from(X, dmap::here() == last ? 0 : last));
  }
  if (p > 1) {
    // Sparse and associative assignment: one domain on some locales (a local copy), two domains
    // holding the same indices on others (an exchange).
    const dmap::domain<2> parent{dmap::block<2>{}, rect<2>{{0, 6}, {0, 6}}};
    const std::vector<idx<2>> some{idx<2>{1, 1}, idx<2>{4, 5}, idx<2>{5, 0}};
    dmap::sparse_domain<2> s1{parent, dmap::coo_layout<2>{}}, s2{parent, dmap::coo_layout<2>{}};
    s1.add(some);
    s2.add(some);
    dmap::sparse_array<double, 2> a{s1, 1.0}, b{s1, 2.0}, c{s2, 3.0};
    BAD_INPUT("sparse A = B: B over A's domain on the last locale, over another domain elsewhere",
              dmap::argument_error, a = (dmap::here() == last ? b : c));
    dmap::associative_domain<std::int64_t> k1, k2;
    k1.add({dmap::bad_input::int64_min, 7, dmap::bad_input::int64_max});
    k2.add({dmap::bad_input::int64_min, 7, dmap::bad_input::int64_max});
    dmap::associative_array<double, std::int64_t> x(k1, 1.0), y(k1, 2.0), z(k2, 3.0);
    BAD_INPUT("associative A = B: B over A's domain on locale 0, over another domain elsewhere",
              dmap::argument_error, x = (dmap::here() == 0 ? y : z));
  }
  // (A refused loop over arrays of one domain may have run on the other locales: C5 is unspecified.)
  DMAP_CHECK_ALL(dmap::reduce(B5, 0.0) == 25.0 && dmap::reduce(E5, 0.0) == 35.0);
}

TEST_CASE("bad input: gather when locale 0 cannot hold the whole array", "[bad_input][one_locale][out_of_memory]") {
  // Locale 0 alone allocates the whole (64 MiB here) while it may grow by 2 MiB: before, it
  // threw std::bad_alloc alone and the others waited in their sends.
  const int p = dmap::num_locales();
  dmap::domain<1> D(dmap::cyclic<1>{}, rect<1>{range(0, (index_t{1} << 23) + p - 1)});
  dmap::array<double, 1> A(D, 1.0);
  const auto limited = [&](auto&& f) {
    return dmap::bad_input::with_memory_cap(0, std::size_t{2} << 20, [&] { return fails_from<std::bad_alloc>(0, f); });
  };
  CHECK(dmap::bad_input::census().insert("gather: locale 0 cannot allocate the whole array").second);
  CHECK_NO_FAILURE(limited([&] { (void)A.gather(); }));
  CHECK(dmap::bad_input::census().insert("gather of a view: locale 0 cannot allocate the whole view").second);
  CHECK_NO_FAILURE(limited([&] { (void)A[rect<1>{range(0, index_t{1} << 23)}].gather(); }));
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

}  // namespace test_bad_one_locale
