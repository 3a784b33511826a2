// Parallel HDF5 files written and read by every locale at once (io/hdf5.hpp): for every 2-D
// map and both routes (each locale's own blocks as hyperslabs, or a row-major slab), a dataset
// written under one map holds the serial row-major values (read back on locale 0 alone through
// HDF5's serial driver) and reads back bit-exact under every other map; the element types;
// views (a strided slice, Stencil with ghosts, a rank-reducing section); groups, several
// datasets and attributes in one file; each locale moves only its own elements (file
// counters); errors on every locale for missing, foreign and truncated files, missing
// datasets, other element types and shapes, and writes that never leave a partial file;
// rewrites and their recovery rule (<path>.dmap-previous); shares of long runs through each
// locale's own MPI-IO calls.
#include "../support.hpp"

#include <hdf5.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../io/hdf5.hpp"
#include "../file_support.hpp"
#include "../maps_2d.hpp"

namespace test_hdf5 {

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::detail::file_route;
using namespace dmap::testing::files;

/// Locale 0 alone: the elements of dataset `name` of file `path` in row-major order, read
/// through HDF5's serial (POSIX) driver, independent of dmap's reader; empty on failure.
template <class T>
std::vector<T> serial_values(const std::string& path, const std::string& name) {
  if (dmap::here() != 0) return {};
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return {};
  const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  const hid_t s = H5Dget_space(d);
  const auto n = H5Sget_simple_extent_npoints(s);
  std::vector<T> out(static_cast<std::size_t>(n < 0 ? 0 : n));
  const auto type = dmap::detail::h5_type_of<T>();
  if (H5Dread(d, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) out.clear();
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

/// "" when `got` holds value_at(k) at every position k of n, else what differs.
template <class T>
std::string check_values(const std::vector<T>& got, index_t n) {
  if (dmap::here() != 0) return "";
  if (static_cast<index_t>(got.size()) != n) return "read " + std::to_string(got.size()) + " elements, not " + std::to_string(n);
  for (index_t k = 0; k < n; ++k)
    if (const T want = value_at<T>(k); std::memcmp(&got[static_cast<std::size_t>(k)], &want, sizeof(T)) != 0)
      return "position " + std::to_string(k) + " differs";
  return "";
}

const rect<2> space{range{-3, 11, 2}, range{5, 10}};  // 7 x 5, strided rows, shifted

}  // namespace

TEST_CASE("an HDF5 dataset written under any map holds the row-major values and reads back under any map", "[hdf5]") {
  scratch_dir dir;
  const auto makers = dmap::testing::maps::makers();
  for (const auto& from : makers) {
    for (const file_route route : {file_route::direct, file_route::staged}) {
      INFO("written under " << from.name << (route == file_route::direct ? " (direct)" : " (staged)"));
      dmap::array<double, 2> a{from.make(space)};
      fill_by_position(a);
      const std::string path = dir / "a.h5";
      {
        dmap::hdf5_writer w(path);
        w.write_dataset("/fields/a", a, route);
        w.commit();
      }
      CHECK_NO_FAILURE(check_values(serial_values<double>(path, "/fields/a"), space.size()));
      dmap::hdf5_reader r(path);
      const auto info = r.info("/fields/a");
      CHECK(info.type == "<f8");
      CHECK(info.shape == std::vector<index_t>{7, 5});
      CHECK(info.map == a.domain().name());
      CHECK(info.first == std::vector<index_t>{-3, 5});
      CHECK(info.stride == std::vector<index_t>{2, 1});
      for (const auto& to : makers) {
        INFO("read under " << to.name);
        dmap::array<double, 2> b{to.make(space)};
        r.read_dataset("/fields/a", b, route);
        CHECK_NO_FAILURE(check_by_position(b));
      }
    }
  }
}

TEMPLATE_TEST_CASE("HDF5 round trips keep every element type bit-exact", "[hdf5]", float, double, std::int32_t,
                   std::int64_t, std::complex<double>, std::uint8_t) {
  scratch_dir dir;
  const rect<2> r{range{0, 13}, range{0, 6}};
  dmap::array<TestType, 2> a{dmap::domain<2>{dmap::block<2>{}, r}};
  fill_by_position(a);
  dmap::write_hdf5(dir / "t.h5", "t", a);
  CHECK_NO_FAILURE(check_values(serial_values<TestType>(dir / "t.h5", "/t"), r.size()));
  dmap::array<TestType, 2> b{dmap::domain<2>{dmap::cyclic<2>{}, r}};
  dmap::read_hdf5(dir / "t.h5", "/t", b);
  CHECK_NO_FAILURE(check_by_position(b));
  dmap::hdf5_reader reader(dir / "t.h5");
  CHECK(reader.info("/t").type == dmap::npy_descr<TestType>());
}

TEST_CASE("HDF5 files hold several datasets in groups, with attributes, and take views", "[hdf5]") {
  scratch_dir dir;
  const rect<2> big{range{0, 20}, range{0, 9}};
  dmap::array<double, 2> a{dmap::domain<2>{dmap::block_cyclic<2>{{3, 2}}, big}};
  dmap::forall(dmap::zip(a.domain(), a), [](const idx<2>& i, double& v) { v = grid_value(i); });
  const rect<2> slice{range{1, 20, 3}, range{2, 8}};  // 7 x 6
  dmap::array<std::int32_t, 1> counts{dmap::domain<1>{dmap::cyclic<1>{}, rect<1>{range{0, 11}}}};
  dmap::forall(dmap::zip(counts.domain(), counts), [](const idx<1>& i, std::int32_t& v) { v = static_cast<std::int32_t>(i[0] * i[0]); });
  {
    dmap::hdf5_writer w(dir / "many.h5");
    w.write("/run/fields/a", a);
    w.write("/run/fields/slice", a[slice]);
    w.write("/run/counts", counts);
    w.set_attribute("/run", "step", std::int64_t{42});
    w.set_attribute("/run/fields/a", "time", 0.125);
    w.set_attribute("/", "code", "dmap test");
    CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>([&] { w.write("/run/counts", counts); },
                                                                      "exists already"));
    CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>([&] { w.write("/run//x", counts); },
                                                                      "empty, '.' or '..'"));
    CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
        [&] { w.set_attribute("/nothing/here", "x", std::int64_t{1}); }, "no object"));
    w.commit();
    CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>([&] { w.write("/late", counts); },
                                                                      "committed already"));
  }
  dmap::hdf5_reader r(dir / "many.h5");
  CHECK(r.exists("/run/fields"));
  CHECK(!r.exists("/run/nothing"));
  CHECK(r.attribute<std::int64_t>("/run", "step") == 42);
  CHECK(r.attribute<double>("/run/fields/a", "time") == 0.125);
  CHECK(r.attribute<std::string>("/", "code") == "dmap test");
  CHECK(r.attribute<std::string>("/run/fields/a", "dmap_map") == a.domain().name());
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::format_error>(
      [&] { (void)r.attribute<double>("/run", "step"); }, "not a floating-point number"));
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::format_error>(
      [&] { (void)r.attribute<std::int64_t>("/run", "missing"); }, "no attribute 'missing'"));
  const auto info = r.info("/run/fields/slice");
  CHECK(info.shape == std::vector<index_t>{7, 6});
  CHECK(info.first == std::vector<index_t>{1, 2});
  CHECK(info.stride == std::vector<index_t>{3, 1});

  // The slice, read into a slice of a larger Stencil array (ghosts in its layout): the rest is untouched.
  dmap::array<double, 2> c{dmap::domain<2>{dmap::stencil<2>{{1, 1}}, big}};
  dmap::forall(c, [](double& v) { v = -1.0; });
  r.read("/run/fields/slice", c[slice]);
  CHECK_NO_FAILURE(check_slice_read(c, slice, -1.0));

  // A 1-D dataset read into a column of a 3-D Hashed array (a rank-changing view).
  dmap::array<std::int32_t, 3> x{dmap::domain<3>{dmap::hashed<3>{}, rect<3>{range{0, 11}, range{0, 2}, range{0, 3}}}};
  dmap::forall(x, [](std::int32_t& v) { v = -7; });
  dmap::array_view<std::int32_t, 1, 3> col{x, rect<3>{range{0, 11}, range{1, 2}, range{2, 3}}, rect<1>{range{0, 11}}, {0}};
  r.read("/run/counts", col);
  const auto xs = x.gather();
  std::string wrong;
  if (dmap::here() == 0)
    for (index_t i = 0; i < 11; ++i)
      for (index_t j = 0; j < 2; ++j)
        for (index_t k = 0; k < 3; ++k) {
          const auto v = xs[static_cast<std::size_t>(i * 6 + j * 3 + k)];
          if (v != (j == 1 && k == 2 ? i * i : -7)) wrong = "x at " + std::to_string(i) + "," + std::to_string(j) + "," + std::to_string(k);
        }
  CHECK_NO_FAILURE(wrong);
}

TEST_CASE("each locale writes and reads only its own elements of an HDF5 dataset", "[hdf5]") {
  scratch_dir dir;
  const rect<2> r{range{0, 37}, range{0, 23}};
  for (const auto& m : dmap::testing::maps::makers()) {
    if (m.directory || m.name == "replicated") continue;
    INFO(m.name);
    dmap::array<double, 2> a{m.make(r)};
    fill_by_position(a);
    index_t own = 0;
    for (const auto& s : a.domain().local_subdomains()) own += s.size();
    dmap::reset_file_statistics();
    dmap::write_hdf5(dir / "c.h5", "/c", a);
    DMAP_CHECK_ALL(dmap::file_statistics().bytes_written == static_cast<std::uint64_t>(own) * 8);
    dmap::reset_file_statistics();
    dmap::read_hdf5(dir / "c.h5", "/c", a);
    DMAP_CHECK_ALL(dmap::file_statistics().bytes_read == static_cast<std::uint64_t>(own) * 8);
    CHECK_NO_FAILURE(check_by_position(a));
  }
}

TEST_CASE("bad HDF5 files and datasets fail with the same error on every locale", "[hdf5]") {
  scratch_dir dir;
  const rect<2> r{range{0, 6}, range{0, 4}};
  dmap::array<double, 2> a{dmap::domain<2>{dmap::block<2>{}, r}};
  fill_by_position(a);
  {
    dmap::hdf5_writer w(dir / "good.h5");
    w.write("/grid/u", a);
    w.commit();
  }
  const std::string good = file_bytes(dir / "good.h5");
  const auto write_raw = [&](const std::string& name, const std::string& bytes) {
    if (dmap::here() == 0) std::ofstream(dir / name, std::ios::binary) << bytes;
    dmap::barrier();
  };
  using dmap::testing::throws_with;
  CHECK_NO_FAILURE(throws_with<dmap::io_error>([&] { dmap::read_hdf5(dir / "missing.h5", "/u", a); }, "cannot open"));
  CHECK_NO_FAILURE(throws_with<dmap::io_error>([&] { dmap::read_hdf5(dir.path, "/u", a); }, "directory"));
  write_raw("text.h5", "hello, this is not an HDF5 file at all");
  CHECK_NO_FAILURE(throws_with<dmap::format_error>([&] { dmap::read_hdf5(dir / "text.h5", "/u", a); },
                                                   "not an HDF5 file"));
  write_raw("short.h5", good.substr(0, good.size() / 2));
  CHECK_NO_FAILURE(throws_with<dmap::io_error>([&] { dmap::read_hdf5(dir / "short.h5", "/grid/u", a); }, "cannot open"));
  CHECK_NO_FAILURE(throws_with<dmap::format_error>([&] { dmap::read_hdf5(dir / "good.h5", "/grid/v", a); },
                                                   "no dataset '/grid/v'"));
  CHECK_NO_FAILURE(throws_with<dmap::format_error>([&] { dmap::read_hdf5(dir / "good.h5", "/grid", a); },
                                                   "not a dataset"));
  dmap::array<float, 2> f{a.domain()};
  CHECK_NO_FAILURE(throws_with<dmap::format_error>([&] { dmap::read_hdf5(dir / "good.h5", "/grid/u", f); },
                                                   "type '<f8'"));
  dmap::array<double, 2> wide{dmap::domain<2>{dmap::block<2>{}, rect<2>{range{0, 4}, range{0, 6}}}};
  CHECK_NO_FAILURE(throws_with<dmap::shape_error>([&] { dmap::read_hdf5(dir / "good.h5", "/grid/u", wide); },
                                                  "shape (6, 4)"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { dmap::read_hdf5(dir / "good.h5", "", a); }, "names no dataset"));
  CHECK_NO_FAILURE(check_by_position(a));  // intact after every failure

  // Writing where no file can be made, and over a directory (refused before anything is written).
  CHECK_NO_FAILURE(throws_with<dmap::io_error>([&] { dmap::write_hdf5(dir / "no/such/dir/x.h5", "/u", a); },
                                               "cannot create"));
  if (dmap::here() == 0) std::filesystem::create_directory(dir / "taken");
  dmap::barrier();
  CHECK_NO_FAILURE(throws_with<dmap::io_error>([&] { dmap::write_hdf5(dir / "taken", "/u", a); },
                                               "not a regular file"));
  // A writer abandoned by an exception leaves an existing file as it was.
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] {
        dmap::hdf5_writer w(dir / "good.h5");
        w.write("/grid/u", a);
        w.write("/grid/u", a);
        w.commit();
      },
      "exists already"));
  DMAP_CHECK_ALL(file_bytes(dir / "good.h5") == good);
  index_t entries = 0;
  if (dmap::here() == 0)
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++entries;
  DMAP_CHECK_ALL(dmap::here() != 0 || entries == 4);  // good, text, short and "taken": no temporary
}

TEST_CASE("an HDF5 rewrite leaves one file; hdf5_reader takes <path>.dmap-previous when <path> is missing", "[hdf5]") {
  scratch_dir dir;
  const rect<1> r{range{0, 10}};
  dmap::array<std::int32_t, 1> a{dmap::domain<1>{dmap::block<1>{}, r}};
  dmap::array<std::int32_t, 1> b{dmap::domain<1>{dmap::cyclic<1>{}, r}};
  const std::string path = dir / "c.h5", previous = path + ".dmap-previous";
  const auto write = [&](std::int32_t v) {
    dmap::forall(a, [v](std::int32_t& x) { x = v; });
    dmap::write_hdf5(path, "/c", a);
  };
  const auto read_sum = [&] {
    dmap::forall(b, [](std::int32_t& x) { x = -1; });
    dmap::read_hdf5(path, "/c", b);
    return dmap::reduce(b, std::int32_t{0});
  };
  const auto entries = [&] {
    index_t n = 0;
    if (dmap::here() == 0)
      for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++n;
    return n;
  };
  write(1);
  write(2);
  DMAP_CHECK_ALL(dmap::here() != 0 || (entries() == 1 && std::filesystem::exists(path)));
  DMAP_CHECK_ALL(read_sum() == 20);
  if (dmap::here() == 0) std::filesystem::rename(path, previous);  // died between the two renames
  dmap::barrier();
  DMAP_CHECK_ALL(read_sum() == 20);
  write(3);
  DMAP_CHECK_ALL(dmap::here() != 0 || (entries() == 1 && std::filesystem::exists(path)));
  DMAP_CHECK_ALL(read_sum() == 30);
}

TEST_CASE("HDF5 shares of long runs go through each locale's own MPI-IO calls and read back exact", "[hdf5]") {
  scratch_dir dir;
  // 2^19 doubles (4 MiB): at 1-4 locales every Block share is one run of at least 1 MiB.
  const rect<1> r{range{0, index_t{1} << 19}};
  dmap::array<double, 1> block{dmap::domain<1>{dmap::block<1>{}, r}};
  dmap::array<double, 1> cyclic{dmap::domain<1>{dmap::cyclic<1>{}, r}};
  fill_by_position(block);
  DMAP_CHECK_ALL(dmap::detail::h5_individual_io(dmap::detail::h5_part<double, 1>(block, true, file_route::automatic)));
  if (dmap::num_locales() > 1)  // one element per run: two-phase I/O
    DMAP_CHECK_ALL(!dmap::detail::h5_individual_io(dmap::detail::h5_part<double, 1>(cyclic, false, file_route::direct)));
  dmap::write_hdf5(dir / "long.h5", "/x", block);
  CHECK_NO_FAILURE(check_values(serial_values<double>(dir / "long.h5", "/x"), r.size()));
  dmap::array<double, 1> again{block.domain()};
  dmap::read_hdf5(dir / "long.h5", "/x", again);  // individual
  CHECK_NO_FAILURE(check_by_position(again));
  dmap::hdf5_reader in(dir / "long.h5");
  in.read_dataset("/x", cyclic, file_route::direct);  // two-phase at 2-4 locales
  CHECK_NO_FAILURE(check_by_position(cyclic));
}

}  // namespace test_hdf5
