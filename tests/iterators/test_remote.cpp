// Remote element access from loop bodies and its exact communication counts.
#include "../support.hpp"

#include <functional>

namespace test_remote {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

double value_of(dmap::index_t i, dmap::index_t j) { return static_cast<double>(i * 1000 + j); }

}  // namespace

TEST_CASE("loop bodies read and write remote elements through A[i]", "[remote]") {
  const dmap::index_t n = 37, m = 11;  // uneven on every locale count
  dmap::domain D{dmap::block<2>{}, dmap::rect<2>{{0, n}, {0, m}}};
  dmap::array<double, 2> A{D}, B{D};
  dmap::forall(dmap::zip(A, D), [](double& a, dmap::idx<2> i) { a = value_of(i[0], i[1]); });

  // B(i, j) = A(n-1-i, j): the mirrored row usually lives on another locale.
  dmap::index_t expected_gets = 0;
  for (const auto& piece : D.local_subdomains())
    for (dmap::index_t i = piece.dim(0).lo(); i < piece.dim(0).hi(); ++i)
      for (dmap::index_t j = piece.dim(1).lo(); j < piece.dim(1).hi(); ++j)
        if (D.locale_of({n - 1 - i, j}) != dmap::here()) ++expected_gets;

  dmap::reset_counters();
  dmap::forall(dmap::zip(B, D), [&](double& b, dmap::idx<2> i) { b = A[{n - 1 - i[0], i[1]}]; });
  const auto c = dmap::counters();
  DMAP_CHECK_ALL(c.messages_received == static_cast<std::uint64_t>(expected_gets));
  DMAP_CHECK_ALL(c.bytes_received == static_cast<std::uint64_t>(expected_gets) * sizeof(double));
  DMAP_CHECK_ALL(c.messages_sent == 0);

  bool ok = true;
  for (const auto& block : B.local_blocks())
    for (dmap::index_t i = block.layout.indices.dim(0).lo(); i < block.layout.indices.dim(0).hi(); ++i)
      for (dmap::index_t j = block.layout.indices.dim(1).lo(); j < block.layout.indices.dim(1).hi(); ++j)
        ok = ok && block({i, j}) == value_of(n - 1 - i, j);
  DMAP_CHECK_ALL(ok);

  // Remote writes from loop bodies: every index writes its mirror's element of B.
  dmap::forall(D, [&](dmap::idx<2> i) { B[{n - 1 - i[0], i[1]}] = -value_of(i[0], i[1]); });
  dmap::barrier();
  ok = true;
  for (const auto& block : B.local_blocks())
    for (dmap::index_t i = block.layout.indices.dim(0).lo(); i < block.layout.indices.dim(0).hi(); ++i)
      for (dmap::index_t j = block.layout.indices.dim(1).lo(); j < block.layout.indices.dim(1).hi(); ++j)
        ok = ok && block({i, j}) == -value_of(n - 1 - i, j);
  DMAP_CHECK_ALL(ok);
}

TEST_CASE("resizing moves exactly the surviving elements that change owner", "[remote][resize]") {
  const dmap::index_t n = 29;
  dmap::domain D{dmap::block<1>{}, dmap::rect<1>{dmap::range{0, n}}};
  dmap::array<std::int64_t, 1> A{D};
  dmap::forall(dmap::zip(A, D), [](std::int64_t& a, dmap::idx<1> i) { a = 3 * i[0] + 1; });

  const dmap::rect<1> grown{dmap::range{-5, 2 * n}};
  // Oracle: surviving indices whose owner differs before and after, counted per sender.
  dmap::domain Old{dmap::block<1>{}, D.indices()};
  dmap::domain New{dmap::block<1>{}, grown};
  std::uint64_t moved_from_here = 0;
  for (dmap::index_t i = 0; i < n; ++i)
    if (Old.locale_of({i}) == dmap::here() && New.locale_of({i}) != dmap::here()) ++moved_from_here;

  dmap::reset_counters();
  D.set_indices(grown);
  const auto c = dmap::counters();
  DMAP_CHECK_ALL(c.bytes_sent == moved_from_here * sizeof(std::int64_t));
  DMAP_CHECK_ALL(c.messages_sent <= static_cast<std::uint64_t>(dmap::num_locales() - 1));

  const auto sum = dmap::reduce(A, std::int64_t{0}, std::plus<>{});
  std::int64_t expected = 0;
  for (dmap::index_t i = 0; i < n; ++i) expected += 3 * i + 1;
  DMAP_CHECK_ALL(sum == expected);
}

}  // namespace test_remote
