// .npy files written and read by every locale at once (io/npy.hpp): for every 2-D map, a file
// written under one map is byte for byte the serial row-major dump (header included), and reads
// back bit-exact under every other map, through both routes (each locale's own blocks, or a
// row-major slab); the element types NumPy names; views (a strided slice, a rank-reducing
// section) as source and destination; each locale writes only its own elements (file counters);
// the header NumPy's format asks for; errors on every locale for missing, foreign, truncated,
// mistyped and misshapen files, and writes that never leave a partial file behind; rewrites and
// their recovery rule (<path>.dmap-previous).
#include "../support.hpp"

#include <unistd.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../file_support.hpp"
#include "../maps_2d.hpp"

namespace test_npy {

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::detail::file_route;
using namespace dmap::testing::files;

const rect<2> space{range{-3, 11, 2}, range{5, 10}};  // 7 x 5, strided rows, shifted

}  // namespace

TEST_CASE("an .npy file written under any map is the serial dump and reads back under any map", "[npy]") {
  scratch_dir dir;
  const auto makers = dmap::testing::maps::makers();
  const std::string expected = serial_dump<double>({7, 5});
  for (const auto& from : makers) {
    for (const file_route route : {file_route::direct, file_route::staged}) {
      INFO("written under " << from.name << (route == file_route::direct ? " (direct)" : " (staged)"));
      dmap::domain<2> d = from.make(space);
      dmap::array<double, 2> a{d};
      fill_by_position(a);
      const std::string path = dir / "a.npy";
      dmap::detail::write_npy(path, a, route);
      DMAP_CHECK_ALL(dmap::here() != 0 || file_bytes(path) == expected);
      for (const auto& to : makers) {
        INFO("read under " << to.name);
        dmap::array<double, 2> b{to.make(space)};
        dmap::detail::read_npy(path, b, route);
        CHECK_NO_FAILURE(check_by_position(b));
      }
    }
  }
}

TEST_CASE("npy headers are NumPy's: version 1.0, C order, data aligned to 64 bytes", "[npy]") {
  const std::string h = dmap::detail::npy_header_bytes("<f8", {4096, 4096});
  CHECK(h.size() % 64 == 0);
  CHECK(h.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
  CHECK(h.substr(10, h.find('}') - 9) == "{'descr': '<f8', 'fortran_order': False, 'shape': (4096, 4096), }");
  CHECK(h.back() == '\n');
  CHECK(dmap::detail::npy_header_bytes("<i4", {7}).find("'shape': (7,)") != std::string::npos);
  const auto parsed = dmap::detail::parse_npy_header(h, "test", "h");
  CHECK(parsed.descr == "<f8");
  CHECK(parsed.shape == std::vector<index_t>{4096, 4096});
  CHECK(parsed.data_offset == static_cast<index_t>(h.size()));
  CHECK(dmap::npy_descr<std::complex<double>>() == "<c16");
  CHECK(dmap::npy_descr<std::int32_t>() == "<i4");
  CHECK(dmap::npy_descr<std::uint8_t>() == "|u1");
}

TEMPLATE_TEST_CASE("npy round trips keep every element type bit-exact", "[npy]", float, double, std::int32_t,
                   std::int64_t, std::complex<double>, std::uint8_t) {
  scratch_dir dir;
  const rect<2> r{range{0, 13}, range{0, 6}};
  const std::string expected = serial_dump<TestType>({13, 6});
  dmap::array<TestType, 2> a{dmap::domain<2>{dmap::block<2>{}, r}};
  fill_by_position(a);
  dmap::write_npy(dir / "t.npy", a);
  DMAP_CHECK_ALL(dmap::here() != 0 || file_bytes(dir / "t.npy") == expected);
  dmap::array<TestType, 2> b{dmap::domain<2>{dmap::cyclic<2>{}, r}};
  dmap::read_npy(dir / "t.npy", b);
  CHECK_NO_FAILURE(check_by_position(b));
  const auto h = dmap::read_npy_header(dir / "t.npy");
  CHECK(h.descr == dmap::npy_descr<TestType>());
  CHECK(h.shape == std::vector<index_t>{13, 6});
}

TEST_CASE("npy files take views: a strided slice and a rank-reducing section", "[npy]") {
  scratch_dir dir;
  const rect<2> big{range{0, 20}, range{0, 9}};
  dmap::array<double, 2> a{dmap::domain<2>{dmap::block_cyclic<2>{{3, 2}}, big}};
  dmap::forall(dmap::zip(a.domain(), a), [](const idx<2>& i, double& v) { v = grid_value(i); });
  const rect<2> slice{range{1, 20, 3}, range{2, 8}};  // 7 x 6
  dmap::write_npy(dir / "slice.npy", a[slice]);
  dmap::array<double, 2> b{dmap::domain<2>{dmap::block<2>{}, rect<2>{range{0, 7}, range{0, 6}}}};
  dmap::read_npy(dir / "slice.npy", b);
  const auto got = b.gather();
  std::string wrong;
  if (dmap::here() == 0)
    for (index_t k = 0; k < 42; ++k) {
      const index_t i = 1 + (k / 6) * 3, j = 2 + k % 6;
      if (got[static_cast<std::size_t>(k)] != static_cast<double>(i * 100 + j)) wrong = "position " + std::to_string(k);
    }
  CHECK_NO_FAILURE(wrong);

  // Read a file into a slice of a larger Stencil array: the rest is untouched.
  dmap::array<double, 2> c{dmap::domain<2>{dmap::stencil<2>{{1, 1}}, big}};
  dmap::forall(c, [](double& v) { v = -1.0; });
  dmap::read_npy(dir / "slice.npy", c[slice]);
  CHECK_NO_FAILURE(check_slice_read(c, slice, -1.0));

  // A 1-D section of a 3-D array (a row), written and read back into another 3-D array's column.
  const rect<3> cube{range{0, 4}, range{0, 5}, range{0, 6}};
  dmap::array<std::int64_t, 3> x{dmap::domain<3>{dmap::block<3>{}, cube}};
  dmap::forall(dmap::zip(x.domain(), x), [](const idx<3>& i, std::int64_t& v) { v = i[0] * 100 + i[1] * 10 + i[2]; });
  const dmap::array_view<std::int64_t, 1, 3> row{x, rect<3>{range{2, 3}, range{1, 2}, range{0, 6}}, rect<1>{range{0, 6}}, {2}};
  dmap::write_npy(dir / "row.npy", row);
  const auto h = dmap::read_npy_header(dir / "row.npy");
  CHECK(h.shape == std::vector<index_t>{6});
  dmap::array<std::int64_t, 3> y{dmap::domain<3>{dmap::cyclic<3>{}, rect<3>{range{0, 6}, range{0, 2}, range{0, 2}}}};
  dmap::forall(y, [](std::int64_t& v) { v = 0; });
  dmap::array_view<std::int64_t, 1, 3> col{y, rect<3>{range{0, 6}, range{1, 2}, range{0, 1}}, rect<1>{range{0, 6}}, {0}};
  dmap::read_npy(dir / "row.npy", col);
  const auto ys = y.gather();
  wrong.clear();
  if (dmap::here() == 0)
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 2; ++j)
        for (index_t k = 0; k < 2; ++k) {
          const auto v = ys[static_cast<std::size_t>(i * 4 + j * 2 + k)];
          const std::int64_t want = j == 1 && k == 0 ? 210 + i : 0;
          if (v != want) wrong = "y at " + std::to_string(i) + "," + std::to_string(j) + "," + std::to_string(k);
        }
  CHECK_NO_FAILURE(wrong);
}

TEST_CASE("each locale writes and reads only its own elements; locale 0 adds the header", "[npy]") {
  scratch_dir dir;
  const rect<2> r{range{0, 37}, range{0, 23}};
  for (const auto& m : dmap::testing::maps::makers()) {
    if (m.directory || m.name == "replicated") continue;
    INFO(m.name);
    dmap::array<double, 2> a{m.make(r)};
    fill_by_position(a);
    index_t own = 0;
    for (const auto& s : a.domain().local_subdomains()) own += s.size();
    const std::string header = dmap::detail::npy_header_bytes("<f8", {37, 23});
    dmap::reset_file_statistics();
    dmap::write_npy(dir / "c.npy", a);
    const auto w = dmap::file_statistics();
    const auto expect = static_cast<std::uint64_t>(own) * 8 + (dmap::here() == 0 ? header.size() : 0);
    DMAP_CHECK_ALL(w.bytes_written == expect);
    dmap::reset_file_statistics();
    dmap::read_npy(dir / "c.npy", a);
    const auto rd = dmap::file_statistics();
    // every other locale reads the header again, to compare it with locale 0's
    DMAP_CHECK_ALL(rd.bytes_read == static_cast<std::uint64_t>(own) * 8 + (dmap::here() == 0 ? 12 : 0) + header.size());
    CHECK_NO_FAILURE(check_by_position(a));
  }
}

TEST_CASE("bad npy files fail with the same error on every locale", "[npy]") {
  scratch_dir dir;
  const rect<2> r{range{0, 6}, range{0, 4}};
  dmap::array<double, 2> a{dmap::domain<2>{dmap::block<2>{}, r}};
  fill_by_position(a);
  dmap::write_npy(dir / "good.npy", a);
  const std::string good = file_bytes(dir / "good.npy");
  const auto write_raw = [&](const std::string& name, const std::string& bytes) {
    if (dmap::here() == 0) std::ofstream(dir / name, std::ios::binary) << bytes;
    dmap::barrier();
  };

  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::io_error>([&] { dmap::read_npy(dir / "missing.npy", a); },
                                                              "cannot open"));
  write_raw("text.npy", "hello, this is not a NumPy file at all");
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::format_error>([&] { dmap::read_npy(dir / "text.npy", a); },
                                                                  "magic"));
  write_raw("short.npy", good.substr(0, good.size() - 8));
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::io_error>([&] { dmap::read_npy(dir / "short.npy", a); },
                                                              "truncated"));
  write_raw("headless.npy", good.substr(0, 40));
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::io_error>([&] { dmap::read_npy(dir / "headless.npy", a); },
                                                              "inside its header"));
  dmap::array<float, 2> f{a.domain()};
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::format_error>([&] { dmap::read_npy(dir / "good.npy", f); },
                                                                  "dtype '<f8'"));
  dmap::array<double, 2> wide{dmap::domain<2>{dmap::block<2>{}, rect<2>{range{0, 4}, range{0, 6}}}};
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::shape_error>([&] { dmap::read_npy(dir / "good.npy", wide); },
                                                                 "shape (6, 4)"));
  std::string fortran = good;  // locale 0's bytes (the others write nothing)
  if (dmap::here() == 0) fortran.replace(fortran.find("False"), 5, "True ");
  write_raw("fortran.npy", fortran);
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::format_error>([&] { dmap::read_npy(dir / "fortran.npy", a); },
                                                                  "Fortran"));
  // The array is still usable and intact after every failure.
  CHECK_NO_FAILURE(check_by_position(a));

  // Writing where no file can be made: a missing directory, then over a directory (refused
  // before anything is written).
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::io_error>(
      [&] { dmap::write_npy(dir / "no/such/dir/x.npy", a); }, "cannot create"));
  if (dmap::here() == 0) std::filesystem::create_directory(dir / "taken");
  dmap::barrier();
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::io_error>([&] { dmap::write_npy(dir / "taken", a); },
                                                              "not a regular file"));
  index_t entries = 0;
  if (dmap::here() == 0)
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++entries;
  DMAP_CHECK_ALL(dmap::here() != 0 || entries == 6);  // the 5 files above and "taken", no temporary
}

TEST_CASE("writing through a symbolic link replaces its target and keeps the link", "[npy]") {
  scratch_dir dir;
  const rect<1> r{range{0, 10}};
  dmap::array<std::int32_t, 1> a{dmap::domain<1>{dmap::block<1>{}, r}};
  dmap::forall(a, [](std::int32_t& v) { v = 5; });
  dmap::write_npy(dir / "target.npy", a);
  if (dmap::here() == 0) std::filesystem::create_symlink("target.npy", dir / "link.npy");
  dmap::barrier();
  dmap::forall(a, [](std::int32_t& v) { v = 9; });
  dmap::write_npy(dir / "link.npy", a);
  DMAP_CHECK_ALL(dmap::here() != 0 || std::filesystem::is_symlink(dir / "link.npy"));
  dmap::array<std::int32_t, 1> b{dmap::domain<1>{dmap::cyclic<1>{}, r}};
  dmap::read_npy(dir / "target.npy", b);
  DMAP_CHECK_ALL(dmap::reduce(b, std::int32_t{0}) == 90);
}

TEST_CASE("a failed write leaves an existing file as it was", "[npy]") {
  scratch_dir dir;
  const rect<1> r{range{0, 10}};
  dmap::array<std::int32_t, 1> a{dmap::domain<1>{dmap::block<1>{}, r}};
  dmap::forall(a, [](std::int32_t& v) { v = 5; });
  dmap::write_npy(dir / "keep.npy", a);
  const std::string before = file_bytes(dir / "keep.npy");
  dmap::array<std::int32_t, 1> moved{std::move(a)};
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>([&] { dmap::write_npy(dir / "keep.npy", a); },
                                                                    "moved from"));
  DMAP_CHECK_ALL(file_bytes(dir / "keep.npy") == before);
}

TEST_CASE("a rewrite leaves one file; read_npy takes <path>.dmap-previous when <path> is missing", "[npy]") {
  scratch_dir dir;
  const rect<1> r{range{0, 10}};
  dmap::array<std::int32_t, 1> a{dmap::domain<1>{dmap::block<1>{}, r}};
  dmap::array<std::int32_t, 1> b{dmap::domain<1>{dmap::cyclic<1>{}, r}};
  const std::string path = dir / "c.npy", previous = path + ".dmap-previous";
  const auto write = [&](std::int32_t v, const std::string& to) {
    dmap::forall(a, [v](std::int32_t& x) { x = v; });
    dmap::write_npy(to, a);
  };
  const auto read_sum = [&] {
    dmap::forall(b, [](std::int32_t& x) { x = -1; });
    dmap::read_npy(path, b);
    return dmap::reduce(b, std::int32_t{0});
  };
  const auto only = [&](std::vector<std::string> names) {  // locale 0: the directory holds exactly `names`
    if (dmap::here() != 0) return true;
    std::vector<std::string> seen;
    for (const auto& e : std::filesystem::directory_iterator(dir.path)) seen.push_back(e.path().filename().string());
    std::sort(seen.begin(), seen.end()), std::sort(names.begin(), names.end());
    return seen == names;
  };
  write(1, path);
  write(2, path);  // over the existing file: moved aside, replaced, removed
  DMAP_CHECK_ALL(only({"c.npy"}) && read_sum() == 20);
  // A writer that died between moving the old file aside and renaming its temporary.
  if (dmap::here() == 0) std::filesystem::rename(path, previous);
  dmap::barrier();
  DMAP_CHECK_ALL(read_sum() == 20);
  DMAP_CHECK_ALL(dmap::read_npy_header(path).shape == std::vector<index_t>{10});
  write(3, path);  // the next write puts its file in place and removes the leftover
  DMAP_CHECK_ALL(only({"c.npy"}) && read_sum() == 30);
  // Died after renaming its temporary: both exist, <path> is the newer and wins.
  write(4, dir / "older.npy");
  if (dmap::here() == 0) std::filesystem::rename(dir / "older.npy", previous);
  dmap::barrier();
  DMAP_CHECK_ALL(read_sum() == 30);
  write(5, path);
  DMAP_CHECK_ALL(only({"c.npy"}) && read_sum() == 50);
  // A leftover that is not a regular file is never removed: the write fails, nothing changes.
  if (dmap::here() == 0) std::filesystem::create_directory(previous);
  dmap::barrier();
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::io_error>([&] { write(6, path); }, "not a regular file"));
  DMAP_CHECK_ALL(only({"c.npy", "c.npy.dmap-previous"}) && read_sum() == 50);
}

}  // namespace test_npy
