// The C++ half of the file interop test (tests/io_interop/check_files.py is the other):
//
//   dmap_io_interop write DIR   writes .npy and HDF5 files under Cyclic and Block-Cyclic maps
//   dmap_io_interop read DIR    reads the files NumPy and h5py wrote into Block, Cyclic and
//                               Stencil arrays and checks every element
//
// Values are value(k, type) of each element's row-major position k, the same formula as the
// Python side. Prints "io_interop: ok" on locale 0 and exits 0 when every check passed.
#include <dmap/dmap.hpp>
#include <dmap/io/hdf5.hpp>

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using dmap::index_t;

template <class T>
T value(index_t k) {
  if constexpr (std::is_same_v<T, std::complex<double>>)
    return {0.5 * static_cast<double>(k) + 0.25, -1.5 * static_cast<double>(k)};
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(k) / static_cast<T>(8) - static_cast<T>(100);
  else
    return static_cast<T>(k * 3 - 1000);
}

template <class T, std::size_t N>
void fill(dmap::array<T, N>& a) {
  const auto whole = a.domain().indices();
  dmap::forall(dmap::zip(a.domain(), a), [&](const dmap::idx<N>& i, T& x) { x = value<T>(whole.order_of(i)); });
}

/// Collective: the number of elements of `a` that are not value(position).
template <class T, std::size_t N>
index_t wrong(const dmap::array<T, N>& a) {
  const auto whole = a.domain().indices();
  return dmap::reduce(dmap::zip(a.domain(), a), index_t{0}, std::plus<>{}, [&](const dmap::idx<N>& i, const T& x) {
    const T want = value<T>(whole.order_of(i));
    return index_t{std::memcmp(&x, &want, sizeof(T)) != 0};
  });
}

/// Sets every element of `a` to a value no file holds, so a read that moves nothing is caught.
template <class T, std::size_t N>
void scramble(dmap::array<T, N>& a) {
  dmap::forall(a, [](T& x) { x = T(12345); });
}

const dmap::rect<2> plane{{0, 37}, {0, 23}};
const dmap::rect<3> cube{{0, 5}, {0, 7}, {0, 9}};

void write_all(const std::string& dir) {
  dmap::array<double, 2> d{dmap::domain<2>{dmap::cyclic<2>{}, plane}};
  dmap::array<float, 2> f{dmap::domain<2>{dmap::block_cyclic<2>{{4, 3}}, plane}};
  dmap::array<std::int32_t, 1> i{dmap::domain<1>{dmap::cyclic<1>{}, dmap::rect<1>{{0, 101}}}};
  dmap::array<std::int64_t, 3> l{dmap::domain<3>{dmap::block<3>{}, cube}};
  dmap::array<std::complex<double>, 2> z{dmap::domain<2>{dmap::stencil<2>{{1, 1}}, plane}};
  fill(d), fill(f), fill(i), fill(l), fill(z);
  dmap::write_npy(dir + "/dmap_f8.npy", d);
  dmap::write_npy(dir + "/dmap_f4.npy", f);
  dmap::write_npy(dir + "/dmap_i4.npy", i);
  dmap::write_npy(dir + "/dmap_i8.npy", l);
  dmap::write_npy(dir + "/dmap_c16.npy", z);
  dmap::hdf5_writer w(dir + "/dmap.h5");
  w.write("/f8", d);
  w.write("/group/f4", f);
  w.write("/group/i4", i);
  w.write("/group/deeper/i8", l);
  w.write("/c16", z);
  w.set_attribute("/group", "step", std::int64_t{7});
  w.commit();
}

index_t read_all(const std::string& dir) {
  dmap::array<double, 2> d{dmap::domain<2>{dmap::block<2>{}, plane}};
  dmap::array<float, 2> f{dmap::domain<2>{dmap::cyclic<2>{}, plane}};
  dmap::array<std::int32_t, 1> i{dmap::domain<1>{dmap::block<1>{}, dmap::rect<1>{{0, 101}}}};
  dmap::array<std::int64_t, 3> l{dmap::domain<3>{dmap::cyclic<3>{}, cube}};
  dmap::array<std::complex<double>, 2> z{dmap::domain<2>{dmap::stencil<2>{{1, 1}}, plane}};
  index_t bad = 0;
  scramble(d), dmap::read_npy(dir + "/numpy_f8.npy", d), bad += wrong(d);
  scramble(f), dmap::read_npy(dir + "/numpy_f4.npy", f), bad += wrong(f);
  scramble(i), dmap::read_npy(dir + "/numpy_i4.npy", i), bad += wrong(i);
  scramble(l), dmap::read_npy(dir + "/numpy_i8.npy", l), bad += wrong(l);
  scramble(z), dmap::read_npy(dir + "/numpy_c16.npy", z), bad += wrong(z);
  dmap::hdf5_reader r(dir + "/h5py.h5");
  scramble(d), r.read("/f8", d), bad += wrong(d);
  scramble(f), r.read("/group/f4", f), bad += wrong(f);
  scramble(i), r.read("/group/i4", i), bad += wrong(i);
  scramble(l), r.read("/group/deeper/i8", l), bad += wrong(l);
  scramble(z), r.read("/c16", z), bad += wrong(z);
  scramble(d), r.read("/chunked/f8", d), bad += wrong(d);  // gzip chunks of 5 x 7, big-endian: HDF5 decodes
  if (r.attribute<std::int64_t>("/group", "step") != 7) ++bad;
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const std::string mode = argc == 3 ? argv[1] : "";
  if (mode != "write" && mode != "read") {
    if (dmap::here() == 0) std::fprintf(stderr, "usage: dmap_io_interop write|read DIR\n");
    return 2;
  }
  try {
    if (mode == "write") {
      write_all(argv[2]);
    } else if (const index_t bad = read_all(argv[2]); bad != 0) {
      if (dmap::here() == 0) std::printf("io_interop: %lld elements differ\n", static_cast<long long>(bad));
      return 1;
    }
  } catch (const dmap::error& e) {
    if (dmap::here() == 0) std::printf("io_interop: %s\n", e.what());
    return 1;
  }
  if (dmap::here() == 0) std::printf("io_interop: ok\n");
  return 0;
}
