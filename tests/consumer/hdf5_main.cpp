// A downstream program using find_package(dmap COMPONENTS hdf5) -> dmap::hdf5: writes a Block
// array to the HDF5 file named by its argument and reads it back into a Cyclic array. Exits 0
// only if every element came back on every locale.
#include <dmap/dmap.hpp>
#include <dmap/io/hdf5.hpp>

#include <cstdio>
#include <functional>
#include <string>

int main(int argc, char* argv[]) {
  dmap::environment env{argc, argv};
  const std::string path = argc > 1 ? argv[1] : "consumer_hdf5.h5";

  const dmap::rect<2> space{{0, 37}, {0, 23}};
  dmap::array<double, 2> written{dmap::domain<2>{dmap::block<2>{}, space}};
  dmap::forall(dmap::zip(written.domain(), written),
               [](const dmap::idx<2>& i, double& x) { x = static_cast<double>(i[0] * 100 + i[1]); });
  dmap::write_hdf5(path, "/consumer/field", written);

  dmap::array<double, 2> read{dmap::domain<2>{dmap::cyclic<2>{}, space}};
  dmap::read_hdf5(path, "/consumer/field", read);
  const long wrong = dmap::reduce(dmap::zip(read.domain(), read), 0L, std::plus<>{},
                                  [](const dmap::idx<2>& i, const double& x) {
                                    return x == static_cast<double>(i[0] * 100 + i[1]) ? 0L : 1L;
                                  });
  if (wrong != 0 && dmap::here() == 0)
    std::fprintf(stderr, "consumer_hdf5: %ld element(s) read back wrong\n", wrong);
  if (wrong == 0 && dmap::here() == 0)
    std::printf("consumer_hdf5: %s written and read back at %d locale(s) (ok)\n", path.c_str(), dmap::num_locales());
  return wrong == 0 ? 0 : 1;
}
