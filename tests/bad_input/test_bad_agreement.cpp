// Collective calls whose arguments differ between locales (a value, a slice, an operand, a
// shape that depends on the rank): every locale must throw argument_error (or the error of a
// check the difference makes fail on some locale, such as shape_error), nothing may hang, the target keeps its values where
// the call promises it, and the library works afterwards.
#include "support.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace test_bad_agreement {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

namespace {

// Collective: "" when every element of `a` this locale owns equals `v`, else what differs.
template <class A>
std::string all_equal(const A& a, double v) {
  const double low = dmap::reduce(a, v, dmap::minimum{});
  const double high = dmap::reduce(a, v, dmap::maximum{});
  if (low != v || high != v) return "values in [" + std::to_string(low) + ", " + std::to_string(high) + "]";
  return "";
}

}  // namespace

TEST_CASE("bad input: a value that differs per locale in a collective fill or constructor", "[bad_input][agreement]") {
  const int p = dmap::num_locales();
  if (p == 1) return;  // one locale always agrees with itself
  const rect<2> r{{0, 7}, {0, 5}};
  dmap::domain D{dmap::block<2>{}, r};
  dmap::array<double, 2> A{D, 1.0};
  BAD_INPUT("A[r] = value: the value differs on the last locale", dmap::argument_error,
            A[r] = (dmap::here() == p - 1 ? 2.0 : 3.0));
  CHECK_NO_FAILURE(all_equal(A, 1.0));  // nothing was written
  BAD_INPUT("A[r] = value: NaN on one locale, a number elsewhere", dmap::argument_error,
            A[r] = (dmap::here() == 0 ? std::nan("") : 0.0));
  BAD_INPUT("A[r] = value: -0.0 on one locale, +0.0 elsewhere (bits differ)", dmap::argument_error,
            A[r] = (dmap::here() == 0 ? -0.0 : 0.0));
  BAD_INPUT("A[rows] = value: the rows differ per locale", dmap::argument_error,
            A[rect<2>{{0, dmap::here() + 1}, {0, 5}}] = 4.0);
  CHECK_NO_FAILURE(all_equal(A, 1.0));
  BAD_INPUT("array(D, value): the initial value differs per locale", dmap::argument_error,
            dmap::array<double, 2>(D, static_cast<double>(dmap::here())));
  // Each locale's copy of a Replicated array is its own: per-locale values are fine there.
  {
    dmap::domain R{dmap::replicated<2>{}, r};
    dmap::array<double, 2> X{R, static_cast<double>(dmap::here())};
    X[r] = static_cast<double>(2 * dmap::here());
    DMAP_CHECK_ALL(X.local_data()[0] == 2.0 * dmap::here());
  }
  BAD_INPUT("array(D, value): int64 extremes on one locale", dmap::argument_error,
            dmap::array<std::int64_t, 2>(D, dmap::here() == 0 ? dmap::bad_input::int64_min : dmap::bad_input::int64_max));
}

TEST_CASE("bad input: assignments whose slices or operands differ per locale", "[bad_input][agreement]") {
  const int p = dmap::num_locales();
  if (p == 1) return;
  const rect<1> r{range(0, 23)};
  dmap::domain Db{dmap::block<1>{}, r};
  dmap::domain Dc{dmap::cyclic<1>{}, r};
  dmap::array<double, 1> A{Db, 1.0}, B{Dc, 2.0}, C{Dc, 3.0};
  // Same shape everywhere, other indices: the plans would not match (a hang before).
  BAD_INPUT("A[0:3] = B[0:3] on locale 0, B[1:4] elsewhere", dmap::argument_error,
            A[rect<1>{range(0, 3)}] = B[rect<1>{dmap::here() == 0 ? range(0, 3) : range(1, 4)}]);
  CHECK_NO_FAILURE(all_equal(A, 1.0));
  BAD_INPUT("A[0:3] = B[a slice of another length on the last locale]", dmap::shape_error,
            A[rect<1>{range(0, 3)}] = B[rect<1>{dmap::here() == p - 1 ? range(0, 4) : range(0, 3)}]);
  CHECK_NO_FAILURE(all_equal(A, 1.0));
  BAD_INPUT("A = B on locale 0, A = C elsewhere", dmap::argument_error, A = (dmap::here() == 0 ? B : C));
  CHECK_NO_FAILURE(all_equal(A, 1.0));
  BAD_INPUT("B = A on locale 0, C = A elsewhere", dmap::argument_error, (dmap::here() == 0 ? B : C) = A);
  BAD_INPUT("A[even or odd indices] = B[0:5]: the offset of a strided slice differs per locale", dmap::argument_error,
            A[rect<1>{dmap::here() == 0 ? range(0, 10, 2) : range(1, 11, 2)}] = B[rect<1>{range(0, 5)}]);
  CHECK_NO_FAILURE(all_equal(A, 1.0));
  CHECK_NO_FAILURE(all_equal(B, 2.0));
  CHECK_NO_FAILURE(all_equal(C, 3.0));
}

TEST_CASE("bad input: parallel loops whose operands differ per locale", "[bad_input][agreement]") {
  const int p = dmap::num_locales();
  if (p == 1) return;
  const rect<2> r{{0, 9}, {0, 6}};
  dmap::domain D{dmap::block<2>{}, r};
  dmap::domain E{dmap::cyclic<2>{}, r};
  dmap::array<double, 2> A{D, 1.0}, B{D, 2.0}, C{E, 3.0};
  // Aligned on some locales, staged on others: the alignment check and the loop's end agree.
  BAD_INPUT("forall(zip(A, B)) on locale 0, zip(A, C) elsewhere", dmap::argument_error,
            dmap::forall(dmap::zip(A, dmap::here() == 0 ? B : C), [](double& a, const double& b) { a = b; }));
  BAD_INPUT("reduce over A on one locale, B elsewhere", dmap::argument_error,
            dmap::reduce(dmap::here() == p - 1 ? A : B, 0.0));
  BAD_INPUT("forall over A[rows] with rows per locale", dmap::argument_error,
            dmap::forall(A[rect<2>{{0, 1 + dmap::here()}, {0, 6}}], [](double& a) { a = 5; }));
  BAD_INPUT("forall over a domain on one locale, another domain elsewhere", dmap::argument_error,
            dmap::forall(dmap::here() == 0 ? D : E, [](const idx<2>&) {}));
}

}  // namespace test_bad_agreement
