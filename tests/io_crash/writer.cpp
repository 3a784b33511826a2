// The program of the crash-rewrite test (cmake/dmapIoCrashTest.cmake drives it):
//
//   dmap_io_crash write npy|h5 PATH GEN   writes generation GEN of a 61 x 47 double array (Block)
//                                         to PATH with write_npy, or as dataset /field with
//                                         write_hdf5; prints "io_crash: wrote GEN"
//   dmap_io_crash check npy|h5 PATH GEN   reads PATH with read_npy / read_hdf5 (which apply the
//                                         recovery rule of io/detail/mpi_file.hpp's file_commit)
//                                         and prints "io_crash: ok GEN" when every element is
//                                         generation GEN's, else what it found
//
// The driver kills writers part way with DMAP_IO_KILL_AT (detail::io_crash_point) and checks
// that the last complete generation is what a reader gets. Exit 0 when the call succeeded and
// (check) every element matched, 1 otherwise, 2 for bad arguments.
#include <dmap/dmap.hpp>
#include <dmap/io/hdf5.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using dmap::index_t;

const dmap::rect<2> plane{{0, 61}, {0, 47}};

/// Generation `gen`'s element at row-major position k.
double value(index_t gen, index_t k) { return static_cast<double>(gen) * 1e6 + static_cast<double>(k) + 0.25; }

/// Collective: the number of elements of `a` that are not generation `gen`'s.
index_t wrong(const dmap::array<double, 2>& a, index_t gen) {
  return dmap::reduce(dmap::zip(a.domain(), a), index_t{0}, std::plus<>{},
                      [&](const dmap::idx<2>& i, const double& x) { return index_t{x != value(gen, plane.order_of(i))}; });
}

/// Collective: the generation of `a`'s smallest element (-1 when it is no generation's).
index_t generation_of(const dmap::array<double, 2>& a) {
  const double least = dmap::reduce(a, 1e300, [](double x, double y) { return x < y ? x : y; }, [](const double& x) { return x; });
  const double g = (least - 0.25) / 1e6;
  return g >= 0 && g == static_cast<double>(static_cast<index_t>(g)) ? static_cast<index_t>(g) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const std::string mode = argc == 5 ? argv[1] : "", format = argc == 5 ? argv[2] : "";
  if ((mode != "write" && mode != "check") || (format != "npy" && format != "h5")) {
    if (dmap::here() == 0) std::fprintf(stderr, "usage: dmap_io_crash write|check npy|h5 PATH GEN\n");
    return 2;
  }
  const std::string path = argv[3];
  const index_t gen = std::atoll(argv[4]);
  dmap::array<double, 2> a{dmap::domain<2>{dmap::block<2>{}, plane}};
  try {
    if (mode == "write") {
      dmap::forall(dmap::zip(a.domain(), a), [&](const dmap::idx<2>& i, double& x) { x = value(gen, plane.order_of(i)); });
      if (format == "npy") dmap::write_npy(path, a);
      else dmap::write_hdf5(path, "/field", a);
      if (dmap::here() == 0) std::printf("io_crash: wrote %lld\n", static_cast<long long>(gen));
      return 0;
    }
    dmap::forall(a, [](double& x) { x = -1.0; });
    if (format == "npy") dmap::read_npy(path, a);
    else dmap::read_hdf5(path, "/field", a);
    const index_t bad = wrong(a, gen);
    const index_t found = generation_of(a);
    if (dmap::here() == 0) {
      if (bad == 0) std::printf("io_crash: ok %lld\n", static_cast<long long>(gen));
      else std::printf("io_crash: %lld elements are not generation %lld's (the smallest is generation %lld's)\n",
                       static_cast<long long>(bad), static_cast<long long>(gen), static_cast<long long>(found));
    }
    return bad == 0 ? 0 : 1;
  } catch (const dmap::error& e) {
    if (dmap::here() == 0) std::printf("io_crash: %s\n", e.what());
    return 1;
  }
}
