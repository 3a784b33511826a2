// Per-locale state in the file functions (io/npy.hpp, io/hdf5.hpp): arguments that
// differ on one locale (an empty, NUL-bearing or over-long path, a bad dataset or attribute
// name, another path, the same relative path from another working directory), and one path that
// names another file on each locale ("/proc/self/cwd/..." from per-locale working directories:
// another shape or element type of an HDF5 dataset, another .npy header, a truncated .npy copy,
// a file missing on one locale only). Every case must raise a named dmap error on every locale
// (never a hang in MPI_File_open, H5Fclose or an agreement, never a silent read of old or wrong
// values), and a write through such a path must land whole in the directory locale 0 sees.
#include "support.hpp"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../io/hdf5.hpp"
#include "../file_support.hpp"

namespace test_bad_file_locales {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::bad_input::fails_from;
using namespace dmap::testing::files;

namespace {

/// This locale's working directory is `dir` while the guard lives (each locale its own).
struct working_directory {
  std::filesystem::path old;
  explicit working_directory(const std::string& dir) : old(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~working_directory() {
    std::error_code ec;
    std::filesystem::current_path(old, ec);
  }
};

/// The last locale: the one that differs.
int last() { return dmap::num_locales() - 1; }

/// Checks (collectively) that `f` fails with `E` raised on locale `origin` and a remote_failure
/// of the same family elsewhere, and that the library works afterwards; counted as `name`.
template <class E, class F>
void fails_on_one(const std::string& name, int origin, F&& f) {
  INFO("bad input: " << name);
  CHECK(dmap::bad_input::census().insert(name).second);
  CHECK_NO_FAILURE((fails_from<E, E>(origin, f)));
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

/// "" when `f` returns normally, else what it threw.
template <class F>
std::string runs(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
  return "";
}

/// The per-locale directory of locale q below `dir`.
std::string locale_dir(const scratch_dir& dir, int q) { return dir / ("l" + std::to_string(q)); }

}  // namespace

TEST_CASE("bad input: files: a path or name bad on one locale only fails on every locale", "[bad_input][files]") {
  scratch_dir dir;
  const rect<2> r{range(0, 6), range(0, 4)};
  dmap::array<double, 2> a{dmap::domain<2>{dmap::block<2>{}, r}};
  fill_by_position(a);
  dmap::write_npy(dir / "a.npy", a);
  dmap::write_hdf5(dir / "a.h5", "/g/a", a);
  const bool odd = dmap::here() == last();
  const auto path = [&](const std::string& good, const std::string& bad) { return odd ? bad : good; };
  const std::string nul = dir.path + std::string("/a.npy\0x", 8);
  const std::string long_path = dir.path + "/" + std::string(5000, 'x');
  using dmap::argument_error;
  using dmap::io_error;
  fails_on_one<argument_error>("write_npy: an empty path on one locale", last(),
                               [&] { dmap::write_npy(path(dir / "w.npy", ""), a); });
  fails_on_one<argument_error>("read_npy: an empty path on one locale", last(),
                               [&] { dmap::read_npy(path(dir / "a.npy", ""), a); });
  fails_on_one<argument_error>("read_npy_header: an empty path on one locale", last(),
                               [&] { (void)dmap::read_npy_header(path(dir / "a.npy", "")); });
  fails_on_one<argument_error>("write_hdf5: an empty path on one locale", last(),
                               [&] { dmap::write_hdf5(path(dir / "w.h5", ""), "/a", a); });
  fails_on_one<argument_error>("read_hdf5: an empty path on one locale", last(),
                               [&] { dmap::read_hdf5(path(dir / "a.h5", ""), "/g/a", a); });
  fails_on_one<argument_error>("write_npy: a path with a NUL byte on one locale", last(),
                               [&] { dmap::write_npy(path(dir / "w.npy", nul), a); });
  fails_on_one<argument_error>("read_npy: a path with a NUL byte on one locale", last(),
                               [&] { dmap::read_npy(path(dir / "a.npy", nul), a); });
  fails_on_one<argument_error>("hdf5_reader: a path with a NUL byte on one locale", last(),
                               [&] { dmap::hdf5_reader(path(dir / "a.h5", nul)); });
  fails_on_one<io_error>("write_npy: a path of 5000 characters on one locale", last(),
                         [&] { dmap::write_npy(path(dir / "w.npy", long_path), a); });
  fails_on_one<io_error>("read_npy: a path of 5000 characters on one locale", last(),
                         [&] { dmap::read_npy(path(dir / "a.npy", long_path), a); });
  fails_on_one<io_error>("hdf5_reader: a path of 5000 characters on one locale", last(),
                         [&] { dmap::hdf5_reader(path(dir / "a.h5", long_path)); });
  {
    dmap::hdf5_writer w(dir / "names.h5");
    fails_on_one<argument_error>("hdf5 write: an empty dataset name on one locale", last(),
                                 [&] { w.write(path("/d", ""), a); });
    fails_on_one<argument_error>("hdf5 set_attribute: an empty attribute name on one locale", last(),
                                 [&] { w.set_attribute("/", path("x", ""), 1.0); });
    fails_on_one<argument_error>("hdf5 set_attribute: object path 'a//b' on one locale", last(),
                                 [&] { w.set_attribute(path("/", "a//b"), "x", 1.0); });
    w.write("/d", a);
    w.commit();
  }
  {
    dmap::hdf5_reader in(dir / "a.h5");
    fails_on_one<argument_error>("hdf5 read: an empty dataset name on one locale", last(),
                                 [&] { in.read(path("/g/a", ""), a); });
    fails_on_one<argument_error>("hdf5 info: the root group on one locale", last(),
                                 [&] { (void)in.info(path("/g/a", "/")); });
    fails_on_one<argument_error>("hdf5 exists: an empty path on one locale", last(),
                                 [&] { (void)in.exists(path("/g", "")); });
    fails_on_one<argument_error>("hdf5 attribute: object path 'a//b' on one locale", last(),
                                 [&] { (void)in.attribute<std::string>(path("/g/a", "a//b"), "dmap_map"); });
  }
  CHECK_NO_FAILURE(check_by_position(a));
}

TEST_CASE("bad input: files: another path on one locale is an argument_error on every locale", "[bad_input][files]") {
  // Both paths are valid files; a collective file call must name one file on every locale
  // (at one locale there is nothing to differ: the calls work).
  scratch_dir dir;
  const rect<1> r{range(0, 10)};
  dmap::array<double, 1> a{dmap::domain<1>{dmap::block<1>{}, r}};
  fill_by_position(a);
  dmap::write_npy(dir / "a.npy", a);
  dmap::write_npy(dir / "b.npy", a);
  for (const char* name : {"a.h5", "b.h5"}) {
    dmap::hdf5_writer w(dir / name);
    w.write("/a", a);
    w.write("/b", a);
    w.commit();
  }
  if (dmap::here() == 0) {
    std::filesystem::create_directory(dir / "sub");
    std::filesystem::copy_file(dir / "a.npy", dir / "sub/a.npy");
    std::filesystem::copy_file(dir / "a.h5", dir / "sub/a.h5");
  }
  dmap::barrier();
  const bool odd = dmap::here() == last();
  const auto other = [&](const std::string& name) { return dir / (odd ? "b" + name : "a" + name); };
  const auto expect = [&](const std::string& name, auto&& f) {
    INFO("bad input: " << name);
    CHECK(dmap::bad_input::census().insert(name).second);
    if (dmap::num_locales() == 1) CHECK_NO_FAILURE(runs(f));
    else CHECK_NO_FAILURE(dmap::bad_input::mismatch<dmap::argument_error>(f));
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
  };
  expect("read_npy: another file on one locale", [&] { dmap::read_npy(other(".npy"), a); });
  expect("read_npy_header: another file on one locale", [&] { (void)dmap::read_npy_header(other(".npy")); });
  expect("write_npy: another file on one locale", [&] { dmap::write_npy(other("w.npy"), a); });
  expect("read_hdf5: another file on one locale", [&] { dmap::read_hdf5(other(".h5"), "/a", a); });
  expect("write_hdf5: another file on one locale", [&] { dmap::write_hdf5(other("w.h5"), "/a", a); });
  {
    dmap::hdf5_reader in(dir / "a.h5");
    expect("hdf5 read: another dataset on one locale", [&] { in.read(odd ? "/b" : "/a", a); });
    expect("hdf5 info: another dataset on one locale", [&] { (void)in.info(odd ? "/b" : "/a"); });
    CHECK_NO_FAILURE(runs([&] { in.read(odd ? "a" : "/a", a); }));  // the same dataset, spelled otherwise
  }
  {
    // The same relative path from another working directory on one locale: another file.
    const working_directory in(odd ? dir / "sub" : dir.path);
    expect("read_npy: a relative path from another working directory on one locale", [&] { dmap::read_npy("a.npy", a); });
    expect("read_hdf5: a relative path from another working directory on one locale",
           [&] { dmap::read_hdf5("a.h5", "/a", a); });
    expect("write_npy: a relative path from another working directory on one locale",
           [&] { dmap::write_npy("w.npy", a); });
  }
  // Nothing was written where the locales disagreed (at one locale, the writes worked).
  if (dmap::num_locales() > 1)
    DMAP_CHECK_ALL((!std::filesystem::exists(dir / "aw.npy") && !std::filesystem::exists(dir / "bw.npy") &&
                    !std::filesystem::exists(dir / "w.npy") && !std::filesystem::exists(dir / "sub/w.npy")));
  CHECK_NO_FAILURE(check_by_position(a));
}

TEST_CASE("bad input: files: one path naming another file on each locale fails on every locale",
          "[bad_input][files]") {
  // "/proc/self/cwd/f" is one path on every locale and, with a working directory per locale,
  // another file on each: the last locale's copy differs (at one locale it is locale 0's and
  // everything reads right). The metadata each locale reads itself must be agreed.
  scratch_dir dir;
  const int p = dmap::num_locales();
  const rect<2> r{range(0, 6), range(0, 4)};
  dmap::array<double, 2> a{dmap::domain<2>{dmap::block<2>{}, r}};
  fill_by_position(a);
  dmap::array<double, 2> wide{dmap::domain<2>{dmap::block<2>{}, rect<2>{range(0, 6), range(0, 5)}}};
  fill_by_position(wide);
  dmap::array<std::int64_t, 2> ints{dmap::domain<2>{dmap::block<2>{}, r}};
  fill_by_position(ints);
  const bool differs = p > 1;  // the last locale's file differs from locale 0's
  if (dmap::here() == 0)
    for (int q = 0; q < p; ++q) std::filesystem::create_directory(locale_dir(dir, q));
  dmap::barrier();
  for (int q = 0; q < p; ++q) {
    const bool odd = differs && q == p - 1;
    const std::string at = locale_dir(dir, q) + "/";
    dmap::write_hdf5(at + "shape.h5", "/x", odd ? wide : a);
    if (odd) dmap::write_hdf5(at + "type.h5", "/x", ints);
    else dmap::write_hdf5(at + "type.h5", "/x", a);
    if (odd) dmap::write_npy(at + "header.npy", ints);  // the same size, another dtype
    else dmap::write_npy(at + "header.npy", a);
    dmap::write_npy(at + "cut.npy", a);
    dmap::write_hdf5(at + "cut.h5", "/x", a);
    if (!odd) dmap::write_npy(at + "missing.npy", a);
    if (!odd) dmap::write_hdf5(at + "missing.h5", "/x", a);
    dmap::hdf5_writer w(at + "attributes.h5");  // another attribute value, one dataset more
    w.write("/x", a);
    if (odd) w.write("/y", a);
    w.set_attribute("/x", "step", std::int64_t{odd ? 8 : 7});
    w.set_attribute("/x", "label", odd ? "other" : "field");
    w.commit();
  }
  if (dmap::here() == 0 && differs) {  // the last locale's cut.npy: the header and half the elements
    const std::string cut = locale_dir(dir, p - 1) + "/cut.npy";
    std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - 12 * sizeof(double));
    const std::string cut_h5 = locale_dir(dir, p - 1) + "/cut.h5";
    std::filesystem::resize_file(cut_h5, std::filesystem::file_size(cut_h5) / 2);
  }
  dmap::barrier();
  const working_directory here(locale_dir(dir, dmap::here()));
  const std::string self = "/proc/self/cwd/";
  dmap::array<double, 2> b{dmap::domain<2>{dmap::cyclic<2>{}, r}};
  const auto fails_or_reads = [&]<class E>(const std::string& name, auto&& f) {
    if (differs) {
      fails_on_one<E>(name, p - 1, f);
    } else {
      INFO(name);
      CHECK(dmap::bad_input::census().insert(name).second);
      dmap::forall(b, [](double& v) { v = -1.0; });
      f();
      CHECK_NO_FAILURE(check_by_position(b));
    }
  };
  fails_or_reads.operator()<dmap::io_error>("read_hdf5: a dataset of another shape on one locale",
                                            [&] { dmap::read_hdf5(self + "shape.h5", "/x", b); });
  fails_or_reads.operator()<dmap::io_error>("read_hdf5: a dataset of another element type on one locale",
                                            [&] { dmap::read_hdf5(self + "type.h5", "/x", b); });
  fails_or_reads.operator()<dmap::io_error>("hdf5 info: a dataset of another shape on one locale", [&] {
    dmap::hdf5_reader in(self + "shape.h5");
    if (in.info("/x").shape != std::vector<index_t>{6, 4}) throw std::logic_error("wrong shape");
    in.read("/x", b);
  });
  fails_or_reads.operator()<dmap::io_error>("hdf5 exists: another answer on one locale", [&] {
    dmap::hdf5_reader in(self + "attributes.h5");
    if (in.exists("/y")) throw std::logic_error("a dataset that is not there");
    in.read("/x", b);
  });
  // Another attribute value in a file of another layout: HDF5 reads some metadata through
  // locale 0, so which locale notices first varies; every locale must raise a dmap error.
  const auto fails_everywhere = [&](const std::string& name, auto&& f) {
    INFO(name);
    CHECK(dmap::bad_input::census().insert(name).second);
    if (differs) {
      CHECK_NO_FAILURE(dmap::bad_input::mismatch<dmap::error>(f));
      CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
    } else {
      CHECK_NO_FAILURE(runs(f));
    }
  };
  fails_everywhere("hdf5 attribute<int64>: another value on one locale", [&] {
    dmap::hdf5_reader in(self + "attributes.h5");
    if (in.attribute<std::int64_t>("/x", "step") != 7) throw std::logic_error("another value");
  });
  fails_everywhere("hdf5 attribute<string>: another value on one locale", [&] {
    dmap::hdf5_reader in(self + "attributes.h5");
    if (in.attribute<std::string>("/x", "label") != "field") throw std::logic_error("another value");
  });
  fails_or_reads.operator()<dmap::io_error>("read_npy: another .npy header on one locale",
                                            [&] { dmap::read_npy(self + "header.npy", b); });
  fails_or_reads.operator()<dmap::io_error>("read_npy: a truncated copy on one locale",
                                            [&] { dmap::read_npy(self + "cut.npy", b); });
  fails_or_reads.operator()<dmap::io_error>("read_hdf5: a truncated copy on one locale",
                                            [&] { dmap::read_hdf5(self + "cut.h5", "/x", b); });
  fails_or_reads.operator()<dmap::io_error>("read_npy: a file missing on one locale",
                                            [&] { dmap::read_npy(self + "missing.npy", b); });
  fails_or_reads.operator()<dmap::io_error>("read_hdf5: a file missing on one locale",
                                            [&] { dmap::read_hdf5(self + "missing.h5", "/x", b); });
  // A write through the same path lands whole in the directory locale 0 sees, nowhere else.
  CHECK(dmap::bad_input::census().insert("write_npy and write_hdf5: one path naming a directory per locale").second);
  dmap::write_npy(self + "out.npy", a);
  dmap::write_hdf5(self + "out.h5", "/x", a);
  dmap::array<double, 2> c{dmap::domain<2>{dmap::cyclic<2>{}, r}};
  dmap::read_npy(locale_dir(dir, 0) + "/out.npy", c);
  CHECK_NO_FAILURE(check_by_position(c));
  dmap::forall(c, [](double& v) { v = -1.0; });
  dmap::read_hdf5(locale_dir(dir, 0) + "/out.h5", "/x", c);
  CHECK_NO_FAILURE(check_by_position(c));
  bool stray = dmap::here() != 0 && (std::filesystem::exists("out.npy") || std::filesystem::exists("out.h5"));
  for (const auto& e : std::filesystem::directory_iterator(locale_dir(dir, dmap::here())))
    stray = stray || e.path().filename().string().find(".tmp") != std::string::npos;
  DMAP_CHECK_ALL(!stray);
}

}  // namespace test_bad_file_locales
