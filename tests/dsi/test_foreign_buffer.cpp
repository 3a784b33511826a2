// Arrays over foreign memory (dsi/foreign_buffer.hpp): an array adopts a buffer its caller
// owns, laid out as the domain's local layouts say. Checked here: nothing is copied or sent
// (the pointer is the caller's, the counters do not move, the caller's values are the
// elements); loops, zips, views, assignment, halos, reductions and printing work on adopted
// arrays and write through to the caller's buffer; a resize moves the elements to storage
// dmap allocates; and a buffer that is too small, null, misaligned or strided otherwise, on
// one locale only, fails on every locale with a message naming the field and the rule.
// Oracle: the element of index i is written by the caller as a formula of i before adoption.
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace test_foreign_buffer {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;

double value_of(const idx<2>& i) { return 1000.0 * static_cast<double>(i[0]) + static_cast<double>(i[1]); }

// The caller's buffer for this locale's storage of `D`: as long as its layouts need, every
// stored index set to value_of (ghost cells included), the rest -1.
std::vector<double> filled_buffer(const dmap::domain<2>& D) {
  index_t need = 0;
  for (const auto& l : D.local_layouts(dmap::here())) need = std::max(need, l.end());
  std::vector<double> buffer(static_cast<std::size_t>(need), -1.0);
  for (const auto& l : D.local_layouts(dmap::here()))
    for (index_t a = 0; a < l.indices.dim(0).size(); ++a)
      for (index_t b = 0; b < l.indices.dim(1).size(); ++b) {
        const idx<2> i(l.indices.dim(0).index_at(a), l.indices.dim(1).index_at(b));
        buffer[static_cast<std::size_t>(l.offset_of(i))] = value_of(i);
      }
  return buffer;
}

// The strides of this locale's layouts (any, when it stores nothing).
std::array<index_t, 2> strides_of(const dmap::domain<2>& D) {
  const auto layouts = D.local_layouts(dmap::here());
  return layouts.empty() ? std::array<index_t, 2>{1, 1} : layouts.front().strides;
}

using dmap::testing::throws_with;

}  // namespace

TEST_CASE("Adoption: an array over a caller's buffer copies and sends nothing", "[adoption]") {
  const dmap::rect<2> r{{0, 13}, {-2, 7}};
  const std::vector<dmap::domain<2>> domains{
      dmap::domain<2>(dmap::block<2>{}, r),
      dmap::domain<2>(dmap::block<2>(dmap::target_grid<2>{}, dmap::storage_order::column_major), r),
      dmap::domain<2>(dmap::cyclic<2>{}, r),
      dmap::domain<2>(dmap::block_cyclic<2>{idx<2>{2, 3}, dmap::target_grid<2>{}, dmap::storage_order::column_major}, r),
      dmap::domain<2>(dmap::stencil<2>(idx<2>{1, 2}, {true, false}), r)};
  for (const auto& D : domains) {
    INFO(D.name());
    std::vector<double> buffer = filled_buffer(D);
    const auto before = dmap::counters();
    dmap::array<double, 2> A(D, dmap::foreign_buffer<double, 2>{buffer.data(), static_cast<index_t>(buffer.size()),
                                                                strides_of(D)});
    const auto spent = dmap::counters() - before;
    DMAP_CHECK_ALL(A.adopted());
    DMAP_CHECK_ALL(A.local_data() == buffer.data() || buffer.empty());
    DMAP_CHECK_ALL(spent.messages_sent == 0 && spent.bytes_sent == 0);
    // The caller's values are the elements, read locally and remotely.
    bool ok = true;
    for (const auto& s : D.local_subdomains())
      for (index_t a = 0; a < s.dim(0).size(); ++a)
        for (index_t b = 0; b < s.dim(1).size(); ++b) {
          const idx<2> i(s.dim(0).index_at(a), s.dim(1).index_at(b));
          ok = ok && A.local(i) == value_of(i);
        }
    DMAP_CHECK_ALL(ok);
    const idx<2> corner{12, 6};
    DMAP_CHECK_ALL(A[corner] == value_of(corner));
    // Loops write through to the caller's buffer.
    dmap::forall(A, [](double& x) { x = 2 * x + 1; });
    ok = true;
    for (const auto& s : D.local_subdomains())
      for (index_t a = 0; a < s.dim(0).size(); ++a)
        for (index_t b = 0; b < s.dim(1).size(); ++b) {
          const idx<2> i(s.dim(0).index_at(a), s.dim(1).index_at(b));
          ok = ok && A.local(i) == 2 * value_of(i) + 1 && &A.local(i) >= buffer.data() &&
               &A.local(i) < buffer.data() + buffer.size();
        }
    DMAP_CHECK_ALL(ok);
    // Zips with an array dmap allocated, assignment both ways, a reduction and a view.
    dmap::array<double, 2> B(dmap::domain<2>(dmap::block<2>{}, r), 0.0);
    B = A;
    dmap::forall(dmap::zip(A, B), [](double& x, double y) { x = y - 1; });
    DMAP_CHECK_ALL(A[corner] == 2 * value_of(corner));
    const double sum = dmap::reduce(A, 0.0);
    double expected = 0;
    for (index_t a = 0; a < 13; ++a)
      for (index_t b = -2; b < 7; ++b) expected += 2 * value_of(idx<2>{a, b});
    DMAP_CHECK_ALL(sum == expected);
    A[dmap::rect<2>{{3, 5}, {0, 2}}] = 7.0;  // each locale its own elements: no synchronisation
    dmap::barrier();
    if (D.descriptor<dmap::stencil_domain<2>>() != nullptr) dmap::update_halos(A);  // ghost copies are read here
    DMAP_CHECK_ALL((A[idx<2>{4, 1}] == 7.0 && A[idx<2>{5, 1}] == 2 * value_of(idx<2>{5, 1})));
    std::ostringstream printed;
    if (dmap::here() == 0) printed << A;
    DMAP_CHECK_ALL(dmap::here() != 0 || printed.str().find("7") != std::string::npos);
  }
}

TEST_CASE("Adoption: halo updates fill the caller's ghost cells", "[adoption]") {
  const dmap::rect<2> r{{0, 11}, {0, 9}};
  const dmap::domain<2> D(dmap::stencil<2>(idx<2>{1, 1}, {true, true}), r);
  std::vector<double> buffer = filled_buffer(D);
  // Ghost cells start wrong: the update must bring the owners' values (periodic images).
  const auto layouts = D.local_layouts(dmap::here());
  const auto owned = D.local_subdomains();
  for (std::size_t k = 0; k < layouts.size(); ++k)
    for (index_t a = 0; a < layouts[k].indices.dim(0).size(); ++a)
      for (index_t b = 0; b < layouts[k].indices.dim(1).size(); ++b) {
        const idx<2> i(layouts[k].indices.dim(0).index_at(a), layouts[k].indices.dim(1).index_at(b));
        if (!owned[k].contains(i)) buffer[static_cast<std::size_t>(layouts[k].offset_of(i))] = -5;
      }
  dmap::array<double, 2> A(D, dmap::foreign_buffer<double, 2>{buffer.data(), static_cast<index_t>(buffer.size()),
                                                              strides_of(D)});
  dmap::update_halos(A);
  bool ok = true;
  for (std::size_t k = 0; k < layouts.size(); ++k)
    for (index_t a = 0; a < layouts[k].indices.dim(0).size(); ++a)
      for (index_t b = 0; b < layouts[k].indices.dim(1).size(); ++b) {
        const idx<2> g(layouts[k].indices.dim(0).index_at(a), layouts[k].indices.dim(1).index_at(b));
        const idx<2> source((g[0] + 11) % 11, (g[1] + 9) % 9);
        ok = ok && buffer[static_cast<std::size_t>(layouts[k].offset_of(g))] == value_of(source);
      }
  DMAP_CHECK_ALL(ok);
}

TEST_CASE("Adoption: a resize moves the elements to storage dmap allocates", "[adoption]") {
  dmap::domain<2> D(dmap::block<2>{}, dmap::rect<2>{{0, 10}, {0, 10}});
  std::vector<double> buffer = filled_buffer(D);
  const std::vector<double> original = buffer;
  dmap::array<double, 2> A(D, dmap::foreign_buffer<double, 2>{buffer.data(), static_cast<index_t>(buffer.size()),
                                                              strides_of(D)});
  D.set_indices(dmap::rect<2>{{2, 14}, {0, 10}});
  DMAP_CHECK_ALL(!A.adopted());
  DMAP_CHECK_ALL(A.local_data() != buffer.data() || buffer.empty());
  DMAP_CHECK_ALL((A[idx<2>{9, 9}] == value_of(idx<2>{9, 9}) && A[idx<2>{2, 0}] == value_of(idx<2>{2, 0}) &&
                  A[idx<2>{13, 3}] == 0.0));
  dmap::forall(A, [](double& x) { x = -1; });
  DMAP_CHECK_ALL(buffer == original);  // the caller's buffer is no longer written
}

TEST_CASE("Adoption: a bad buffer on one locale fails on every locale, naming the rule", "[adoption]") {
  const dmap::rect<2> r{{0, 9}, {0, 7}};
  const dmap::domain<2> D(dmap::block<2>{}, r);
  const int last = dmap::num_locales() - 1;
  std::vector<double> buffer = filled_buffer(D);
  const auto size = static_cast<index_t>(buffer.size());
  const auto strides = strides_of(D);
  const auto adopt = [&](dmap::foreign_buffer<double, 2> b) { dmap::array<double, 2> A(D, b); };
  const bool mine = dmap::here() == last;
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { adopt({buffer.data(), mine ? size - 1 : size, strides}); }, "buffer.size is"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { adopt({buffer.data(), mine ? -1 : size, strides}); }, "it must be >= 0"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { adopt({mine ? nullptr : buffer.data(), size, strides}); }, "buffer.data is null"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { adopt({buffer.data(), size, mine ? std::array<index_t, 2>{1, strides[0]} : strides}); },
      "buffer.strides["));
  std::vector<char> bytes(sizeof(double) * (buffer.size() + 1));
  auto* misaligned = reinterpret_cast<double*>(bytes.data() + 1);
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { adopt({mine ? misaligned : buffer.data(), size, strides}); }, "not aligned"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { adopt({mine ? misaligned : buffer.data(), size, strides}); },
      "on locale " + std::to_string(last)));
  // A moved-from domain.
  dmap::domain<2> gone(dmap::block<2>{}, r);
  dmap::domain<2> taker(std::move(gone));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { dmap::array<double, 2> A(gone, dmap::foreign_buffer<double, 2>{buffer.data(), size, strides}); },
      "moved from"));
}

TEST_CASE("Adoption: directory maps take a contiguous buffer in their stored order", "[adoption]") {
  const int p = dmap::num_locales();
  // Each locale lists its indices backwards: the buffer holds them in that order.
  std::vector<idx<1>> mine;
  for (index_t k = 22; k >= 0; --k)
    if ((k * 7 + 3) % p == dmap::here()) mine.push_back({k});
  const dmap::domain<1> D(dmap::unstructured<1>{mine}, dmap::rect<1>{{0, 23}});
  std::vector<int> buffer(mine.size());
  for (std::size_t j = 0; j < mine.size(); ++j) buffer[j] = static_cast<int>(100 + mine[j][0]);
  dmap::array<int, 1> A(D, dmap::foreign_buffer<int, 1>{buffer.data(), static_cast<index_t>(buffer.size()), {1}});
  bool ok = true;
  for (index_t k = 0; k < 23; ++k) ok = ok && A[idx<1>{k}] == 100 + k;
  DMAP_CHECK_ALL(ok);
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] {
        dmap::array<int, 1> B(D, dmap::foreign_buffer<int, 1>{buffer.data(), static_cast<index_t>(buffer.size()),
                                                             {dmap::here() == 0 && buffer.size() > 1 ? 2 : 1}});
      },
      "buffer.strides[0] is 2"));
}

}  // namespace test_foreign_buffer
