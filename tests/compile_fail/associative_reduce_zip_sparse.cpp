// expect: concept dmap::associative_loop_iterand
// A reduction over a zip led by an associative array takes only associative operands.
#include <dmap/dmap.hpp>

#include <cstdint>
#include <functional>

double misuse(dmap::associative_array<double, std::int64_t>& a, dmap::sparse_array<double, 1>& s) {
  return dmap::reduce(dmap::zip(a, s), 0.0, std::plus<>{}, [](double x, double y) { return x * y; });
}
