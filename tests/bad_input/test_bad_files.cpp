// Hostile inputs to the file functions (io/npy.hpp, io/hdf5.hpp): .npy headers crafted byte by
// byte (magic, versions, header lengths, shapes that overflow, dictionaries with missing,
// unknown, nested, unterminated, NUL and non-ASCII parts, dtypes dmap cannot hold, data cut
// short), a valid .npy cut at every byte and a valid .h5 at 56 offsets, files that are other
// things (empty, a directory, /dev/null, a FIFO, the other format, HDF5 datasets that are
// scalars, groups, strings, foreign compounds, links to nowhere), index sets at the int64 limits
// and empty arrays (which must work), one locale out of memory during a staged read or write,
// one locale over its file size limit, and bad arguments (names, paths, attributes, moved-from
// and misshapen arrays). Every failure must be a named dmap error on every locale, never a
// crash, a hang or a silent success, and the library must work afterwards.
#include "../maps_1d.hpp"
#include "support.hpp"

#include <hdf5.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "../../io/hdf5.hpp"
#include "../file_support.hpp"

namespace test_bad_files {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::bad_input::fails_from;
using dmap::bad_input::int64_max;
using dmap::bad_input::int64_min;
using dmap::bad_input::mismatch;
using dmap::detail::file_route;
using dmap::testing::maps::domain_of;
using dmap::testing::maps::map_kind;
using dmap::testing::maps::name_of;
using namespace dmap::testing::files;

namespace {

/// Collective: locale 0 writes `bytes` to `path`; every locale waits until it is there.
void put(const std::string& path, const std::string& bytes) {
  if (dmap::here() == 0) std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  dmap::barrier();
}

/// An .npy file: the magic, version `major`.`minor`, the header length (`length`, or the real
/// one when negative), the dictionary `dict` padded as NumPy pads it, then `data`.
std::string npy_file(const std::string& dict, const std::string& data, int major = 1, int minor = 0,
                     std::int64_t length = -1) {
  const std::size_t prefix = major >= 2 ? 12 : 10;
  std::string body = dict;
  body.append((64 - (prefix + body.size() + 1) % 64) % 64, ' ');
  body += '\n';
  const auto n = static_cast<std::uint64_t>(length >= 0 ? length : static_cast<std::int64_t>(body.size()));
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += static_cast<char>(minor);
  for (std::size_t k = 0; k < prefix - 8; ++k) out += static_cast<char>((n >> (8 * k)) & 0xff);
  return out + body + data;
}

/// The dictionary NumPy writes, with `shape` spelled as given ("(6, 4)").
std::string dict_of(const std::string& descr, const std::string& shape, const std::string& order = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
}

/// The bytes of `n` doubles value_at(0), value_at(1), ...
std::string doubles(index_t n) {
  std::string out;
  for (index_t k = 0; k < n; ++k) {
    const double v = value_at<double>(k);
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  return out;
}

/// Collective: the entries of directory `dir` (locale 0's view, told to all), sorted.
std::vector<std::string> entries(const std::string& dir) {
  std::string all;
  if (dmap::here() == 0) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const auto& n : names) all += n + "\n";
  }
  dmap::broadcast(all, 0);
  std::vector<std::string> out;
  for (std::size_t at = 0; at < all.size();) {
    const auto end = all.find('\n', at);
    out.push_back(all.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

/// Collective: "" when `f` ran without throwing on every locale, else what it threw.
template <class F>
std::string works(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
  return "";
}

/// How a file function ended on this locale.
enum class outcome : int { done = 0, format = 1, io = 2, other_dmap = 3, not_dmap = 4 };

template <class F>
outcome outcome_of(F&& f, std::string& what) {
  try {
    f();
    return outcome::done;
  } catch (const dmap::format_error& e) {
    what = e.what();
    return outcome::format;
  } catch (const dmap::io_error& e) {
    what = e.what();
    return outcome::io;
  } catch (const dmap::error& e) {
    what = e.what();
    return outcome::other_dmap;
  } catch (const std::exception& e) {
    what = e.what();
    return outcome::not_dmap;
  }
}

const char* outcome_name(outcome o) {
  switch (o) {
    case outcome::done: return "succeeded";
    case outcome::format: return "format_error";
    case outcome::io: return "io_error";
    case outcome::other_dmap: return "another dmap error";
    case outcome::not_dmap: return "NOT A DMAP ERROR";
  }
  return "?";
}

/// Collective: `o` if every locale ended the same way, else -1.
int agreed_outcome(outcome o) {
  const auto all = dmap::all_gather(static_cast<int>(o));
  for (const int x : all)
    if (x != all.front()) return -1;
  return all.front();
}

/// The kinds of error a crafted input must raise.
enum class expect { format, io, shape };

}  // namespace

TEST_CASE("bad input: files: crafted .npy headers fail on every locale", "[bad_input][files]") {
  scratch_dir dir;
  const rect<2> r{range(0, 6), range(0, 4)};
  dmap::array<double, 2> a{dmap::domain<2>{dmap::block<2>{}, r}};
  fill_by_position(a);
  const std::string data = doubles(24);
  const std::string good = dict_of("<f8", "(6, 4)");
  const std::string nul(1, '\0');
  std::string sixty_five = "(", sixty_four = "(";
  for (int d = 0; d < 65; ++d) sixty_five += "1, ";
  for (int d = 0; d < 64; ++d) sixty_four += "1, ";
  sixty_five += ")";
  sixty_four += ")";
  struct crafted {
    std::string name;
    std::string bytes;
    expect kind;
    bool header_reads;  // read_npy_header returns it (the failure is the array's, not the header's)
  };
  const std::vector<crafted> files = {
      {"magic \\x93NUMPX", "\x93NUMPX" + npy_file(good, data).substr(6), expect::format, false},
      {"magic with 'x' for \\x93", "x" + npy_file(good, data).substr(1), expect::format, false},
      {"version 0.9", npy_file(good, data, 0, 9), expect::format, false},
      {"version 4.0", npy_file(good, data, 4, 0), expect::format, false},
      {"version 255.255", npy_file(good, data, 255, 255), expect::format, false},
      {"header length 65535, beyond the file (v1)", npy_file(good, data, 1, 0, 65535), expect::io, false},
      {"header length 2^20 + 1 (v2)", npy_file(good, data, 2, 0, (1 << 20) + 1), expect::format, false},
      {"header length 2^32 - 1 (v3)", npy_file(good, data, 3, 0, 0xffffffffLL), expect::format, false},
      {"header length 0 (v1)", npy_file(good, data, 1, 0, 0), expect::format, false},
      {"header length 0 (v2)", npy_file(good, data, 2, 0, 0), expect::format, false},
      {"header length 3, inside the dictionary", npy_file(good, data, 1, 0, 3), expect::format, false},
      {"shape entry 2^63", npy_file(dict_of("<f8", "(9223372036854775808,)"), data), expect::format, false},
      {"shape entry 99999999999999999999", npy_file(dict_of("<f8", "(99999999999999999999, 4)"), data), expect::format,
       false},
      {"shape (2^32, 2^32): 2^64 elements", npy_file(dict_of("<f8", "(4294967296, 4294967296)"), data), expect::format,
       false},
      {"shape (3037000500, 3037000500): just past 2^63 elements",
       npy_file(dict_of("<f8", "(3037000500, 3037000500)"), data), expect::format, false},
      {"shape (2^63 - 1, 2^63 - 1, 0)", npy_file(dict_of("<f8", "(9223372036854775807, 9223372036854775807, 0)"), data),
       expect::format, false},
      {"shape entry 2^63 - 1 (a valid header, not this array's shape)",
       npy_file(dict_of("<f8", "(9223372036854775807,)"), data), expect::shape, true},
      {"shape entry -1", npy_file(dict_of("<f8", "(-1, 4)"), data), expect::format, false},
      {"shape entry 3.0", npy_file(dict_of("<f8", "(3.0, 8)"), data), expect::format, false},
      {"shape entry 0x6", npy_file(dict_of("<f8", "(0x6, 4)"), data), expect::format, false},
      {"shape entry +6", npy_file(dict_of("<f8", "(+6, 4)"), data), expect::format, false},
      {"a nested shape tuple", npy_file(dict_of("<f8", "((6, 4),)"), data), expect::format, false},
      {"a shape list, not a tuple", npy_file(dict_of("<f8", "[6, 4]"), data), expect::format, false},
      {"an unclosed shape tuple", npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (6, 4", data),
       expect::format, false},
      {"65 dimensions", npy_file(dict_of("<f8", sixty_five), data), expect::format, false},
      {"64 dimensions (a valid header, not this array's rank)", npy_file(dict_of("<f8", sixty_four), data),
       expect::shape, true},
      {"no 'shape' key", npy_file("{'descr': '<f8', 'fortran_order': False, }", data), expect::format, false},
      {"no 'descr' key", npy_file("{'fortran_order': False, 'shape': (6, 4), }", data), expect::format, false},
      {"no 'fortran_order' key", npy_file("{'descr': '<f8', 'shape': (6, 4), }", data), expect::format, false},
      {"an empty dictionary", npy_file("{}", data), expect::format, false},
      {"an unknown key", npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (6, 4), 'dmap': 1, }", data),
       expect::format, false},
      {"fortran_order 'maybe'", npy_file(dict_of("<f8", "(6, 4)", "'maybe'"), data), expect::format, false},
      {"fortran_order 1", npy_file(dict_of("<f8", "(6, 4)", "1"), data), expect::format, false},
      {"an unterminated string", npy_file("{'descr': '<f8, \"fortran_order\": False, \"shape\": (6, 4), }", data),
       expect::format, false},
      {"an unterminated dictionary", npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (6, 4)", data),
       expect::format, false},
      {"a dictionary that is a list", npy_file("['<f8', False, (6, 4)]", data), expect::format, false},
      {"descr '|O' (Python objects)", npy_file(dict_of("|O", "(6, 4)"), data), expect::format, true},
      {"a structured descr (a list)",
       npy_file("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (6, 4), }", data), expect::format, false},
      {"descr '>f8' (big-endian), read as '<f8'", npy_file(dict_of(">f8", "(6, 4)"), data), expect::format, true},
      {"descr '<f4', read as '<f8'", npy_file(dict_of("<f4", "(6, 4)"), data), expect::format, true},
      {"descr 'f8' (no byte order)", npy_file(dict_of("f8", "(6, 4)"), data), expect::format, true},
      {"descr '<f8 ' (a trailing space)", npy_file(dict_of("<f8 ", "(6, 4)"), data), expect::format, true},
      {"a NUL byte between the entries",
       npy_file("{'descr': '<f8'," + nul + " 'fortran_order': False, 'shape': (6, 4), }", data), expect::format, false},
      {"a NUL byte inside the descr", npy_file(dict_of("<f8" + nul, "(6, 4)"), data), expect::format, true},
      {"a NUL byte inside a key",
       npy_file("{'de" + nul + "scr': '<f8', 'fortran_order': False, 'shape': (6, 4), }", data), expect::format, false},
      {"a NUL byte before the dictionary", npy_file(nul + good, data), expect::format, false},
      {"a UTF-8 byte order mark before the dictionary", npy_file("\xef\xbb\xbf" + good, data), expect::format, false},
      {"a Latin-1 key 'sh\\xe4pe'", npy_file("{'descr': '<f8', 'fortran_order': False, 'sh\xe4pe': (6, 4), }", data),
       expect::format, false},
      {"a no-break space (\\xa0) in the shape", npy_file(dict_of("<f8", "(6\xa0, 4)"), data), expect::format, false},
      {"fullwidth digits in the shape (UTF-8)", npy_file(dict_of("<f8", "(\xef\xbc\x96, 4)"), data), expect::format,
       false},
      {"the right shape, no data at all", npy_file(good, ""), expect::io, true},
      {"the right shape, data cut after 1 byte", npy_file(good, data.substr(0, 1)), expect::io, true},
      {"the right shape, data cut inside element 1", npy_file(good, data.substr(0, 12)), expect::io, true},
      {"the right shape, one element short", npy_file(good, data.substr(0, data.size() - 8)), expect::io, true},
      {"the right shape, one byte short", npy_file(good, data.substr(0, data.size() - 1)), expect::io, true},
  };
  for (std::size_t k = 0; k < files.size(); ++k)
    if (dmap::here() == 0) std::ofstream(dir / ("c" + std::to_string(k) + ".npy"), std::ios::binary) << files[k].bytes;
  dmap::barrier();
  for (std::size_t k = 0; k < files.size(); ++k) {
    const crafted& c = files[k];
    const std::string path = dir / ("c" + std::to_string(k) + ".npy");
    const std::string name = "read_npy: " + c.name;
    switch (c.kind) {
      case expect::format: BAD_INPUT(name, dmap::format_error, dmap::read_npy(path, a)); break;
      case expect::io: BAD_INPUT(name, dmap::io_error, dmap::read_npy(path, a)); break;
      case expect::shape: BAD_INPUT(name, dmap::shape_error, dmap::read_npy(path, a)); break;
    }
    INFO("read_npy_header of the file with " << c.name);
    if (c.header_reads) {
      CHECK_NO_FAILURE(works([&] { (void)dmap::read_npy_header(path); }));
    } else if (c.kind == expect::io) {
      CHECK_NO_FAILURE(mismatch<dmap::io_error>([&] { (void)dmap::read_npy_header(path); }));
    } else {
      CHECK_NO_FAILURE(mismatch<dmap::format_error>([&] { (void)dmap::read_npy_header(path); }));
    }
  }
  CHECK_NO_FAILURE(check_by_position(a));  // no failed read touched the array

  // What NumPy also accepts must still work: '=f8', Python 2's 'L', double quotes, format
  // versions 2.0 and 3.0, a header of exactly 1 MiB, bytes after the data.
  const std::vector<std::pair<std::string, std::string>> valid = {
      {"descr '=f8'", npy_file(dict_of("=f8", "(6, 4)"), data)},
      {"shape (6L, 4L)", npy_file(dict_of("<f8", "(6L, 4L)"), data)},
      {"double quotes", npy_file("{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (6, 4)}", data)},
      {"version 2.0", npy_file(good, data, 2, 0)},
      {"version 3.0", npy_file(good, data, 3, 0)},
      {"a header of exactly 1 MiB (v2)", std::string("\x93NUMPY\x02\x00\x00\x00\x10\x00", 12) + good +
                                              std::string((1 << 20) - good.size() - 1, ' ') + "\n" + data},
      {"64 bytes after the data", npy_file(good, data + std::string(64, 'x'))},
  };
  for (const auto& [what, bytes] : valid) {
    INFO("a valid .npy file: " << what);
    put(dir / "valid.npy", bytes);
    dmap::array<double, 2> b{dmap::domain<2>{dmap::cyclic<2>{}, r}};
    CHECK_NO_FAILURE(works([&] { dmap::read_npy(dir / "valid.npy", b); }));
    CHECK_NO_FAILURE(check_by_position(b));
  }
}

TEST_CASE("bad input: files: an .npy file cut at every byte fails on every locale", "[bad_input][files]") {
  scratch_dir dir;
  const rect<2> r{range(0, 2), range(0, 3)};
  dmap::array<double, 2> a{dmap::domain<2>{dmap::block<2>{}, r}};
  fill_by_position(a);
  dmap::write_npy(dir / "whole.npy", a);
  const std::string whole = file_bytes(dir / "whole.npy");
  index_t size = static_cast<index_t>(whole.size());
  dmap::broadcast(size, 0);
  REQUIRE(size == 128 + 48);
  if (dmap::here() == 0)
    for (index_t k = 0; k < size; ++k)
      std::ofstream(dir / ("t" + std::to_string(k) + ".npy"), std::ios::binary)
          << whole.substr(0, static_cast<std::size_t>(k));
  dmap::barrier();
  CHECK(dmap::bad_input::census().insert("read_npy: a valid file cut at each of its 176 bytes").second);
  dmap::array<double, 2> b{dmap::domain<2>{dmap::cyclic<2>{}, r}};
  fill_by_position(b);
  std::string failures;
  for (index_t k = 0; k < size; ++k) {
    const std::string path = dir / ("t" + std::to_string(k) + ".npy");
    // Shorter than the magic and the version: not an .npy file; after that: truncated.
    const std::string got = k < 10 ? mismatch<dmap::format_error>([&] { dmap::read_npy(path, b); })
                                   : mismatch<dmap::io_error>([&] { dmap::read_npy(path, b); });
    if (!got.empty()) failures += "cut at byte " + std::to_string(k) + ": " + got + "\n";
    if (k % 32 == 31) CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
  }
  CHECK_NO_FAILURE(failures);
  CHECK_NO_FAILURE(check_by_position(b));
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

TEST_CASE("bad input: files: an HDF5 file cut at 56 offsets never reads wrong", "[bad_input][files]") {
  // Every cut must throw a dmap error on every locale (a cut before the 8-byte signature: a
  // format_error), or read the whole dataset right; the outcomes are reported.
  scratch_dir dir;
  const rect<1> r{range(0, 64)};
  dmap::array<double, 1> a{dmap::domain<1>{dmap::block<1>{}, r}};
  fill_by_position(a);
  dmap::write_hdf5(dir / "whole.h5", "/g/d", a);
  const std::string whole = file_bytes(dir / "whole.h5");
  index_t size = static_cast<index_t>(whole.size());
  dmap::broadcast(size, 0);
  REQUIRE(size > 100);
  std::vector<index_t> cuts;
  for (index_t k = 0; k < 8; ++k) cuts.push_back(k), cuts.push_back(size - 8 + k);
  for (index_t j = 0; j < 40; ++j) cuts.push_back(8 + j * (size - 16) / 40);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  if (dmap::here() == 0)
    for (const index_t k : cuts)
      std::ofstream(dir / ("t" + std::to_string(k) + ".h5"), std::ios::binary)
          << whole.substr(0, static_cast<std::size_t>(k));
  dmap::barrier();
  CHECK(dmap::bad_input::census().insert("read_hdf5: a valid file cut at 56 offsets").second);
  dmap::array<double, 1> b{dmap::domain<1>{dmap::cyclic<1>{}, r}};
  std::string failures;
  std::map<std::string, std::vector<index_t>> seen;
  for (const index_t k : cuts) {
    const std::string path = dir / ("t" + std::to_string(k) + ".h5");
    dmap::forall(b, [](double& v) { v = -1.0; });
    std::string what;
    const outcome o = outcome_of([&] { dmap::read_hdf5(path, "/g/d", b); }, what);
    const int all = agreed_outcome(o);
    std::string wrong;
    if (all == static_cast<int>(outcome::done)) wrong = check_by_position(b);  // collective: every locale read
    if (all < 0)
      failures += "cut at " + std::to_string(k) + ": the locales ended differently (here: " + outcome_name(o) + ")\n";
    else if (!wrong.empty())
      failures += "cut at " + std::to_string(k) + ": read WITHOUT ERROR AND WRONG: " + wrong + "\n";
    else if (o == outcome::other_dmap || o == outcome::not_dmap)
      failures += "cut at " + std::to_string(k) + ": " + outcome_name(o) + ": " + what + "\n";
    else if (k < 8 && o != outcome::format)
      failures += "cut at " + std::to_string(k) + " (inside the signature): " + outcome_name(o) + " " + what + "\n";
    seen[outcome_name(o)].push_back(k);
  }
  CHECK_NO_FAILURE(failures);
  std::string summary =
      "HDF5 file of " + std::to_string(size) + " bytes cut at " + std::to_string(cuts.size()) + " offsets:";
  for (const auto& [name, at] : seen) {
    summary += "\n  " + name + " (" + std::to_string(at.size()) + "):";
    for (const index_t k : at) summary += " " + std::to_string(k);
  }
  if (dmap::here() == 0) WARN(summary);
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

TEST_CASE("bad input: files: files that are other things", "[bad_input][files]") {
  scratch_dir dir;
  const rect<1> r{range(0, 4)};
  dmap::array<double, 1> a{dmap::domain<1>{dmap::block<1>{}, r}};
  dmap::array<std::complex<double>, 1> z{dmap::domain<1>{dmap::cyclic<1>{}, r}};
  dmap::array<std::int32_t, 1> ints{dmap::domain<1>{dmap::block<1>{}, r}};
  fill_by_position(a);
  dmap::write_npy(dir / "a.npy", a);
  dmap::write_hdf5(dir / "a.h5", "/a", a);
  put(dir / "empty", "");
  if (dmap::here() == 0) {
    std::filesystem::copy_file(dir / "a.npy", dir / "npy_named.h5");
    std::filesystem::copy_file(dir / "a.h5", dir / "h5_named.npy");
    ::mkfifo((dir / "fifo").c_str(), 0600);
  }
  dmap::barrier();

  BAD_INPUT("read_npy: an empty file", dmap::format_error, dmap::read_npy(dir / "empty", a));
  BAD_INPUT("read_npy_header: an empty file", dmap::format_error, dmap::read_npy_header(dir / "empty"));
  BAD_INPUT("read_hdf5: an empty file", dmap::format_error, dmap::read_hdf5(dir / "empty", "/a", a));
  BAD_INPUT("read_npy: a directory", dmap::io_error, dmap::read_npy(dir.path, a));
  BAD_INPUT("read_npy_header: a directory", dmap::io_error, dmap::read_npy_header(dir.path));
  BAD_INPUT("hdf5_reader: a directory", dmap::io_error, dmap::hdf5_reader(dir.path));
  BAD_INPUT("read_npy: /dev/null", dmap::format_error, dmap::read_npy("/dev/null", a));
  BAD_INPUT("read_hdf5: /dev/null", dmap::format_error, dmap::read_hdf5("/dev/null", "/a", a));
  BAD_INPUT("read_npy: /dev/zero", dmap::format_error, dmap::read_npy("/dev/zero", a));
  BAD_INPUT("read_hdf5: /dev/zero", dmap::format_error, dmap::read_hdf5("/dev/zero", "/a", a));
  // Opening a FIFO for reading waits for a writer: it must be refused, not hang.
  BAD_INPUT("read_npy: a FIFO", dmap::io_error, dmap::read_npy(dir / "fifo", a));
  BAD_INPUT("read_npy_header: a FIFO", dmap::io_error, dmap::read_npy_header(dir / "fifo"));
  BAD_INPUT("hdf5_reader: a FIFO", dmap::io_error, dmap::hdf5_reader(dir / "fifo"));
  BAD_INPUT("read_hdf5: an .npy file named .h5", dmap::format_error, dmap::read_hdf5(dir / "npy_named.h5", "/a", a));
  BAD_INPUT("read_npy: an HDF5 file named .npy", dmap::format_error, dmap::read_npy(dir / "h5_named.npy", a));
  BAD_INPUT("read_npy_header: an HDF5 file named .npy", dmap::format_error,
            dmap::read_npy_header(dir / "h5_named.npy"));

  // A file of foreign datasets, made by locale 0 alone through HDF5's serial driver.
  const std::string foreign = dir / "foreign.h5";
  int made_huge = 0;
  if (dmap::here() == 0) {
    const hid_t f = H5Fcreate(foreign.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const auto dataset = [&](const char* name, hid_t type, hid_t space, const void* values, hid_t dcpl = H5P_DEFAULT) {
      const hid_t d = H5Dcreate2(f, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      if (d < 0) return false;
      if (values != nullptr) H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
      H5Dclose(d);
      return true;
    };
    const hsize_t four = 4, six = 6;
    const hid_t s4 = H5Screate_simple(1, &four, nullptr);
    const hid_t scalar = H5Screate(H5S_SCALAR), null = H5Screate(H5S_NULL);
    const double one = 1.0;
    dataset("/scalar", H5T_NATIVE_DOUBLE, scalar, &one);
    dataset("/null", H5T_NATIVE_DOUBLE, null, nullptr);
    H5Gclose(H5Gcreate2(f, "/group", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    const hid_t fixed = H5Tcopy(H5T_C_S1);
    H5Tset_size(fixed, 8);
    const char words[4][8] = {"one", "two", "three", "four"};
    dataset("/strings", fixed, s4, words);
    const hid_t variable = H5Tcopy(H5T_C_S1);
    H5Tset_size(variable, H5T_VARIABLE);
    const char* texts[4] = {"one", "two", "three", "four"};
    dataset("/vlstrings", variable, s4, texts);
    const double pairs[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const auto compound = [&](const char* name, const char* first, hid_t t1, const char* second, hid_t t2,
                              std::size_t size) {
      const hid_t c = H5Tcreate(H5T_COMPOUND, size);
      H5Tinsert(c, first, 0, t1);
      H5Tinsert(c, second, size / 2, t2);
      dataset(name, c, s4, nullptr);
      H5Tclose(c);
    };
    compound("/pair", "a", H5T_NATIVE_DOUBLE, "b", H5T_NATIVE_DOUBLE, 16);
    compound("/swapped", "i", H5T_NATIVE_DOUBLE, "r", H5T_NATIVE_DOUBLE, 16);
    compound("/mixed", "r", H5T_NATIVE_DOUBLE, "i", H5T_NATIVE_FLOAT, 16);
    compound("/integers", "r", H5T_NATIVE_INT64, "i", H5T_NATIVE_INT64, 16);
    const hid_t e = H5Tenum_create(H5T_NATIVE_INT32);
    for (int v = 0; v < 4; ++v) H5Tenum_insert(e, ("v" + std::to_string(v)).c_str(), &v);
    const std::int32_t enums[4] = {0, 1, 2, 3};
    dataset("/enum", e, s4, enums);
    const hid_t opaque = H5Tcreate(H5T_OPAQUE, 8);
    dataset("/opaque", opaque, s4, pairs);
    const hid_t s6 = H5Screate_simple(1, &six, nullptr);
    double big_endian[6];
    for (int k = 0; k < 6; ++k) big_endian[k] = value_at<double>(k);
    const hid_t be = H5Dcreate2(f, "/big_endian", H5T_IEEE_F64BE, s6, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(be, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, big_endian);
    H5Dclose(be);
    // Chunked and never written: extents of 2^63 and 2^32 x 2^32 cost nothing.
    const hsize_t unlimited[2] = {H5S_UNLIMITED, H5S_UNLIMITED}, chunk[2] = {1, 1};
    const hsize_t longest = (hsize_t{1} << 63) - 1, wide[2] = {hsize_t{1} << 32, hsize_t{1} << 32};
    const hid_t chunked = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(chunked, 1, chunk);
    const hid_t s_longest = H5Screate_simple(1, &longest, unlimited);  // HDF5 refuses 2^63 and beyond
    made_huge = s_longest >= 0 && dataset("/longest", H5T_NATIVE_DOUBLE, s_longest, nullptr, chunked) ? 1 : 0;
    const hid_t chunked2 = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(chunked2, 2, chunk);
    const hid_t s_wide = H5Screate_simple(2, wide, unlimited);
    made_huge += dataset("/wide", H5T_NATIVE_DOUBLE, s_wide, nullptr, chunked2) ? 2 : 0;
    // Links to nowhere, a cycle of links, an external link to a missing file.
    H5Lcreate_soft("/nowhere", f, "/dangling", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_soft("/loop2", f, "/loop1", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_soft("/loop1", f, "/loop2", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_external("missing.h5", "/x", f, "/external", H5P_DEFAULT, H5P_DEFAULT);
    // dmap's attributes, malformed: dmap_first a string, or 65 integers.
    dataset("/d", H5T_NATIVE_DOUBLE, s4, pairs);
    dataset("/bad_first", H5T_NATIVE_DOUBLE, s4, pairs);
    dataset("/long_first", H5T_NATIVE_DOUBLE, s4, pairs);
    const hid_t bf = H5Dopen2(f, "/bad_first", H5P_DEFAULT);
    const hid_t text = H5Tcopy(H5T_C_S1);
    H5Tset_size(text, 6);
    const hid_t at = H5Acreate2(bf, "dmap_first", text, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(at, text, "hello");
    H5Aclose(at);
    H5Dclose(bf);
    const hid_t lf = H5Dopen2(f, "/long_first", H5P_DEFAULT);
    const hsize_t n65 = 65;
    const hid_t s65 = H5Screate_simple(1, &n65, nullptr);
    const std::vector<std::int64_t> firsts(65, 0);
    const hid_t al = H5Acreate2(lf, "dmap_first", H5T_NATIVE_INT64, s65, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(al, H5T_NATIVE_INT64, firsts.data());
    H5Aclose(al);
    H5Dclose(lf);
    for (const hid_t t : {fixed, variable, e, opaque, text}) H5Tclose(t);
    for (const hid_t s : {s4, scalar, null, s6, s_longest, s_wide, s65}) H5Sclose(s);
    H5Pclose(chunked);
    H5Pclose(chunked2);
    H5Fclose(f);
  }
  dmap::broadcast(made_huge, 0);
  {
    dmap::hdf5_reader in(foreign);
    BAD_INPUT("hdf5 read: a scalar dataset", dmap::format_error, in.read("/scalar", a));
    BAD_INPUT("hdf5 info: a scalar dataset", dmap::format_error, in.info("/scalar"));
    BAD_INPUT("hdf5 read: a dataset with a null dataspace", dmap::format_error, in.read("/null", a));
    BAD_INPUT("hdf5 read: a group in place of a dataset", dmap::format_error, in.read("/group", a));
    BAD_INPUT("hdf5 read: the root group", dmap::argument_error, in.read("/", a));
    BAD_INPUT("hdf5 read: fixed-length strings", dmap::format_error, in.read("/strings", a));
    BAD_INPUT("hdf5 read: variable-length strings", dmap::format_error, in.read("/vlstrings", a));
    BAD_INPUT("hdf5 read: a compound {a, b} as complex", dmap::format_error, in.read("/pair", z));
    BAD_INPUT("hdf5 read: a compound {i, r} as complex", dmap::format_error, in.read("/swapped", z));
    BAD_INPUT("hdf5 read: a compound {r: double, i: float} as complex", dmap::format_error, in.read("/mixed", z));
    BAD_INPUT("hdf5 read: a compound of two int64 as complex", dmap::format_error, in.read("/integers", z));
    BAD_INPUT("hdf5 read: an enum as int32", dmap::format_error, in.read("/enum", ints));
    BAD_INPUT("hdf5 read: an opaque type as double", dmap::format_error, in.read("/opaque", a));
    BAD_INPUT("hdf5 read: a dangling soft link", dmap::format_error, in.read("/dangling", a));
    BAD_INPUT("hdf5 read: a cycle of soft links", dmap::format_error, in.read("/loop1", a));
    BAD_INPUT("hdf5 read: an external link to a missing file", dmap::format_error, in.read("/external", a));
    BAD_INPUT("hdf5 read: a path through a dataset", dmap::format_error, in.read("/d/x", a));
    // dmap's own attributes, malformed by another writer: the read fails, with a named error.
    BAD_INPUT("hdf5 read: attribute dmap_first a string", dmap::error, in.read("/bad_first", a));
    BAD_INPUT("hdf5 read: attribute dmap_first of 65 integers", dmap::format_error, in.read("/long_first", a));
    if (made_huge & 1) {
      BAD_INPUT("hdf5 read: a dataset of 2^63 - 1 elements into 4", dmap::shape_error, in.read("/longest", a));
      std::vector<index_t> shape;
      CHECK_NO_FAILURE(works([&] { shape = in.info("/longest").shape; }));
      DMAP_CHECK_ALL(shape == std::vector<index_t>{int64_max});
    }
    if (made_huge & 2) {
      dmap::array<double, 2> small{dmap::domain<2>{dmap::block<2>{}, rect<2>{range(0, 2), range(0, 2)}}};
      BAD_INPUT("hdf5 read: a 2^32 x 2^32 dataset into a 2 x 2 array", dmap::shape_error, in.read("/wide", small));
      std::vector<index_t> shape;
      CHECK_NO_FAILURE(works([&] { shape = in.info("/wide").shape; }));
      DMAP_CHECK_ALL(shape == (std::vector<index_t>{index_t{1} << 32, index_t{1} << 32}));
    }
    const auto strings = in.info("/strings");
    DMAP_CHECK_ALL(strings.type.rfind("unsupported: an HDF5 string", 0) == 0);
    // A big-endian dataset holds doubles exactly: HDF5 swaps the bytes (unlike .npy, where
    // dmap reads no conversions and '>f8' is a format_error).
    dmap::array<double, 1> six{dmap::domain<1>{dmap::cyclic<1>{}, rect<1>{range(0, 6)}}};
    CHECK_NO_FAILURE(works([&] { in.read("/big_endian", six); }));
    CHECK_NO_FAILURE(check_by_position(six));
    DMAP_CHECK_ALL(in.info("/big_endian").type == ">f8");
  }
  if (dmap::here() == 0 && made_huge != 3)
    WARN("HDF5 refused a foreign dataset of extent 2^63 - 1 or 2^32 x 2^32: " << made_huge);
  CHECK_NO_FAILURE(check_by_position(a));
}

TEST_CASE("bad input: files: index sets at the int64 limits write and read back", "[bad_input][files]") {
  scratch_dir dir;
  const rect<1> sets[] = {rect<1>{range(int64_max - 10, int64_max)}, rect<1>{range(int64_min, int64_min + 9)},
                          rect<1>{range::counted(int64_max - 1, 6, -(int64_max / 8))}};
  const map_kind maps[] = {map_kind::block, map_kind::cyclic, map_kind::hashed};
  for (std::size_t m = 0; m < 3; ++m) {
    for (const rect<1>& r : sets) {
      INFO("written under " << name_of(maps[m]) << ", read under " << name_of(maps[(m + 1) % 3]) << ", indices " << r);
      dmap::array<std::int64_t, 1> x{domain_of(maps[m], r)};
      fill_by_position(x);
      dmap::array<std::int64_t, 1> y{domain_of(maps[(m + 1) % 3], r)};
      for (const file_route route : {file_route::automatic, file_route::staged}) {
        dmap::forall(y, [](std::int64_t& v) { v = 0; });
        CHECK_NO_FAILURE(works([&] { dmap::detail::write_npy(dir / "limits.npy", x, route); }));
        CHECK_NO_FAILURE(works([&] { dmap::detail::read_npy(dir / "limits.npy", y, route); }));
        CHECK_NO_FAILURE(check_by_position(y));
      }
      DMAP_CHECK_ALL(file_bytes(dir / "limits.npy") ==
                     (dmap::here() == 0 ? serial_dump<std::int64_t>({r.size()}) : ""));
      dmap::forall(y, [](std::int64_t& v) { v = 0; });
      CHECK_NO_FAILURE(works([&] { dmap::write_hdf5(dir / "limits.h5", "/limits", x); }));
      CHECK_NO_FAILURE(works([&] { dmap::read_hdf5(dir / "limits.h5", "/limits", y); }));
      CHECK_NO_FAILURE(check_by_position(y));
      dmap::hdf5_reader in(dir / "limits.h5");
      const auto info = in.info("/limits");
      DMAP_CHECK_ALL(info.shape == std::vector<index_t>{r.size()});
      DMAP_CHECK_ALL(info.first == std::vector<index_t>{r.dim(0).first()});
      DMAP_CHECK_ALL(info.stride == std::vector<index_t>{r.dim(0).stride()});
      DMAP_CHECK_ALL(in.attribute<std::int64_t>("/limits", "dmap_first") == r.dim(0).first());
      DMAP_CHECK_ALL(in.attribute<std::int64_t>("/limits", "dmap_stride") == r.dim(0).stride());
    }
  }
  // The recorded values, spelled out.
  DMAP_CHECK_ALL(sets[0].dim(0).first() == int64_max - 10);
  DMAP_CHECK_ALL(sets[1].dim(0).first() == int64_min);
  DMAP_CHECK_ALL(sets[2].dim(0).first() == int64_max - 1 && sets[2].dim(0).stride() == -(int64_max / 8));
}

TEST_CASE("bad input: files: empty arrays write and read back as NumPy's empty files", "[bad_input][files]") {
  scratch_dir dir;
  const auto roundtrip = [&](auto& x, auto& y, const std::vector<index_t>& shape) {
    using X = std::remove_cvref_t<decltype(x)>;
    constexpr std::size_t N = dmap::detail::array_traits_of<X>::rank;
    for (const file_route route : {file_route::direct, file_route::staged}) {
      INFO((route == file_route::direct ? "direct" : "staged"));
      CHECK_NO_FAILURE(works([&] { dmap::detail::write_npy(dir / "empty.npy", x, route); }));
      // Exactly the header NumPy writes for an empty array: numpy.load gives shape (0,) or (0, 5).
      DMAP_CHECK_ALL(file_bytes(dir / "empty.npy") ==
                     (dmap::here() == 0 ? dmap::detail::npy_header_bytes("<f8", shape) : ""));
      CHECK_NO_FAILURE(works([&] { dmap::detail::read_npy(dir / "empty.npy", y, route); }));
      DMAP_CHECK_ALL(dmap::read_npy_header(dir / "empty.npy").shape == shape);
      dmap::hdf5_writer w(dir / "empty.h5");
      CHECK_NO_FAILURE(works([&] { w.write_dataset("/e", x, route); }));
      w.commit();
      dmap::hdf5_reader in(dir / "empty.h5");
      CHECK_NO_FAILURE(works([&] { in.read_dataset("/e", y, route); }));
      DMAP_CHECK_ALL(in.info("/e").shape == shape);
    }
    // What h5py sees: HDF5's serial driver on locale 0 reads a simple dataspace of that shape.
    std::vector<hsize_t> dims(N, 99);
    bool simple = true;
    if (dmap::here() == 0) {
      const hid_t f = H5Fopen((dir / "empty.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      const hid_t d = H5Dopen2(f, "/e", H5P_DEFAULT);
      const hid_t s = H5Dget_space(d);
      simple = H5Sget_simple_extent_type(s) == H5S_SIMPLE && H5Sget_simple_extent_ndims(s) == static_cast<int>(N);
      H5Sget_simple_extent_dims(s, dims.data(), nullptr);
      H5Sclose(s);
      H5Dclose(d);
      H5Fclose(f);
    }
    DMAP_CHECK_ALL(dmap::here() != 0 || (simple && std::equal(dims.begin(), dims.end(), shape.begin())));
  };
  for (const map_kind k : {map_kind::block, map_kind::cyclic, map_kind::hashed}) {
    INFO("1-D, " << name_of(k));
    dmap::array<double, 1> x{domain_of(k, rect<1>{range(0, 0)})}, y{domain_of(map_kind::cyclic, rect<1>{range(5, 5)})};
    roundtrip(x, y, {0});
  }
  {
    dmap::array<double, 2> x{dmap::domain<2>{dmap::block<2>{}, rect<2>{range(0, 0), range(0, 5)}}};
    dmap::array<double, 2> y{dmap::domain<2>{dmap::hashed<2>{}, rect<2>{range(3, 3), range(-5, 0)}}};
    roundtrip(x, y, {0, 5});
    dmap::array<double, 2> t{dmap::domain<2>{dmap::cyclic<2>{}, rect<2>{range(0, 5), range(0, 0)}}};
    dmap::array<double, 2> u{dmap::domain<2>{dmap::block<2>{}, rect<2>{range(0, 0), range(0, 4)}}};
    BAD_INPUT("read_npy: a (0, 5) file into a (5, 0) array", dmap::shape_error, dmap::read_npy(dir / "empty.npy", t));
    BAD_INPUT("read_npy: a (0, 5) file into a (0, 4) array", dmap::shape_error, dmap::read_npy(dir / "empty.npy", u));
    BAD_INPUT("read_hdf5: a (0, 5) dataset into a (5, 0) array", dmap::shape_error,
              dmap::read_hdf5(dir / "empty.h5", "/e", t));
    roundtrip(t, t, {5, 0});
  }
  dmap::array<double, 1> one{dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, 1)}}};
  dmap::array<double, 1> none{dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, 0)}}};
  dmap::write_npy(dir / "zero.npy", none);
  dmap::write_hdf5(dir / "zero.h5", "/z", none);
  BAD_INPUT("read_npy: a (0,) file into a 1-element array", dmap::shape_error, dmap::read_npy(dir / "zero.npy", one));
  BAD_INPUT("read_hdf5: a (0,) dataset into a 1-element array", dmap::shape_error,
            dmap::read_hdf5(dir / "zero.h5", "/z", one));
}

TEST_CASE("bad input: files: one locale out of memory in a staged read or write fails everywhere",
          "[bad_input][files][out_of_memory]") {
  // Each locale's slab holds 2^22 + 1 doubles (32 MiB + 8 bytes): more than glibc's largest
  // mmap threshold, so the allocation cannot come from a free block earlier tests left in the
  // heap, and the last locale may grow its address space by only 2 MiB.
  scratch_dir dir;
  const int p = dmap::num_locales();
  const int origin = p - 1;
  const index_t n = p * ((index_t{1} << 22) + 1);
  dmap::array<double, 1> big{dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, n)}}};
  dmap::forall(big, [](double& v) { v = 2.5; });
  // Files to be replaced (small ones), and big files to read, sparse: a header and a size.
  dmap::array<double, 1> small{dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, 3)}}};
  fill_by_position(small);
  dmap::write_npy(dir / "existing.npy", small);
  dmap::write_hdf5(dir / "existing.h5", "/small", small);
  const std::string existing_npy = file_bytes(dir / "existing.npy"), existing_h5 = file_bytes(dir / "existing.h5");
  if (dmap::here() == 0) {
    const std::string header = dmap::detail::npy_header_bytes("<f8", {n});
    std::ofstream(dir / "big.npy", std::ios::binary) << header;
    std::filesystem::resize_file(dir / "big.npy", header.size() + static_cast<std::uintmax_t>(n) * 8);
    const hid_t f = H5Fcreate((dir / "big.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t extent = static_cast<hsize_t>(n);
    const hid_t s = H5Screate_simple(1, &extent, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    H5Dclose(H5Dcreate2(f, "/big", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    H5Pclose(dcpl);
    H5Sclose(s);
    H5Fclose(f);
  }
  dmap::barrier();
  const auto before = entries(dir.path);
  const auto limited = [&](auto&& f) {  // 2 MiB more than it maps now, on the last locale
    return dmap::bad_input::with_memory_cap(origin, std::size_t{2} << 20, [&] { return fails_from<std::bad_alloc>(origin, f); });
  };
  const auto unchanged = [&] {
    std::string wrong;
    if (entries(dir.path) != before) wrong = "the directory's entries changed (a file published or a temporary left)";
    if (file_bytes(dir / "existing.npy") != existing_npy) wrong += "; existing.npy changed";
    if (file_bytes(dir / "existing.h5") != existing_h5) wrong += "; existing.h5 changed";
    const double lo = dmap::reduce(big, 1e300, dmap::minimum{}), hi = dmap::reduce(big, -1e300, dmap::maximum{});
    if (lo != 2.5 || hi != 2.5) wrong += "; the array changed";
    return wrong;
  };

  CHECK(dmap::bad_input::census().insert("write_npy (staged): the last locale cannot allocate its slab").second);
  CHECK_NO_FAILURE(limited([&] { dmap::detail::write_npy(dir / "new.npy", big, file_route::staged); }));
  CHECK_NO_FAILURE(limited([&] { dmap::detail::write_npy(dir / "existing.npy", big, file_route::staged); }));
  CHECK_NO_FAILURE(unchanged());
  CHECK(dmap::bad_input::census().insert("read_npy (staged): the last locale cannot allocate its slab").second);
  CHECK_NO_FAILURE(limited([&] { dmap::detail::read_npy(dir / "big.npy", big, file_route::staged); }));
  CHECK_NO_FAILURE(unchanged());
  CHECK(dmap::bad_input::census().insert("hdf5 write (staged): the last locale cannot allocate its slab").second);
  for (const char* name : {"new.h5", "existing.h5"}) {
    dmap::hdf5_writer w(dir / name);
    CHECK_NO_FAILURE(limited([&] { w.write_dataset("/big", big, file_route::staged); }));
  }  // the writers are abandoned: nothing is published
  CHECK_NO_FAILURE(unchanged());
  CHECK(dmap::bad_input::census().insert("hdf5 read (staged): the last locale cannot allocate its slab").second);
  {
    dmap::hdf5_reader in(dir / "big.h5");
    CHECK_NO_FAILURE(limited([&] { in.read_dataset("/big", big, file_route::staged); }));
  }
  CHECK_NO_FAILURE(unchanged());
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

TEST_CASE("bad input: files: one locale over its file size limit never publishes a partial file",
          "[bad_input][files]") {
  // RLIMIT_FSIZE on one locale (SIGXFSZ ignored): its write(2) calls fail with EFBIG or write
  // short. OMPIO reports that as a success, so dmap must notice on its own: the write throws
  // io_error on every locale and publishes nothing, or (when another locale did the writing
  // in the collective write) succeeds with the whole file.
  scratch_dir dir;
  const int p = dmap::num_locales();
  const index_t n = index_t{1} << 16;
  dmap::array<double, 1> x{dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, n)}}};
  fill_by_position(x);
  dmap::array<double, 1> small{dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, 3)}}};
  fill_by_position(small);
  dmap::write_npy(dir / "existing.npy", small);
  const std::string existing = file_bytes(dir / "existing.npy");
  const std::string whole = dmap::here() == 0 ? serial_dump<double>({n}) : "";
  rlimit old{};
  getrlimit(RLIMIT_FSIZE, &old);
  std::string report;
  const auto run = [&](const std::string& name, int victim, rlim_t bytes, bool must_fail, auto&& write, auto&& check) {
    INFO(name);
    CHECK(dmap::bad_input::census().insert(name).second);
    const auto before = entries(dir.path);
    std::string what;
    void (*previous)(int) = SIG_DFL;
    if (dmap::here() == victim) {
      previous = std::signal(SIGXFSZ, SIG_IGN);
      rlimit tight = old;
      tight.rlim_cur = bytes;
      setrlimit(RLIMIT_FSIZE, &tight);
    }
    const outcome o = outcome_of(write, what);
    if (dmap::here() == victim) {
      setrlimit(RLIMIT_FSIZE, &old);
      std::signal(SIGXFSZ, previous);
    }
    const int all = agreed_outcome(o);
    DMAP_REQUIRE_ALL(all == static_cast<int>(outcome::io) || (all == static_cast<int>(outcome::done) && !must_fail));
    CHECK_NO_FAILURE(check(all == static_cast<int>(outcome::done), before));
    report += "\n  " + name + ": " + outcome_name(o) + (what.empty() ? "" : " (" + what + ")");
  };
  const auto npy_check = [&](const std::string& file) {
    return [&, file](bool written, const std::vector<std::string>& before) {
      std::string wrong;
      if (written) {
        if (file_bytes(dir / file) != whole) wrong = "a write that succeeded left a wrong file";
      } else {
        if (entries(dir.path) != before) wrong = "a failed write changed the directory";
        if (file_bytes(dir / "existing.npy") != existing) wrong += "; existing.npy changed";
      }
      if (written && file == "existing.npy") put(dir / "existing.npy", existing);  // for the next case
      return wrong;
    };
  };
  run("write_npy: the last locale over a 4 KiB file size limit (a new file)", p - 1, 4096, p == 1,
      [&] { dmap::write_npy(dir / "new.npy", x); }, npy_check("new.npy"));
  if (dmap::here() == 0) std::filesystem::remove(dir / "new.npy");
  dmap::barrier();
  run("write_npy: the last locale over a 4 KiB file size limit (replacing a file)", p - 1, 4096, p == 1,
      [&] { dmap::write_npy(dir / "existing.npy", x); }, npy_check("existing.npy"));
  run("write_npy: locale 0 over a 100-byte file size limit (the header is cut)", 0, 100, true,
      [&] { dmap::write_npy(dir / "existing.npy", x); }, npy_check("existing.npy"));
  // HDF5: the limit holds during write() only (HDF5's collective close cannot survive a
  // locale whose metadata writes fail: it hangs); a failed write() must make commit() refuse.
  {
    const auto before_writer = entries(dir.path);
    std::optional<dmap::hdf5_writer> w;
    w.emplace(dir / "new.h5");
    run("hdf5 write: the last locale over a 4 KiB file size limit", p - 1, 4096, p == 1,
        [&] { w->write("/x", x); },
        [&](bool written, const std::vector<std::string>&) {
          std::string wrong;
          if (written) {
            w->commit();
            dmap::array<double, 1> y{dmap::domain<1>{dmap::cyclic<1>{}, rect<1>{range(0, n)}}};
            wrong = works([&] { dmap::read_hdf5(dir / "new.h5", "/x", y); });
            if (wrong.empty()) wrong = check_by_position(y);
          } else {
            wrong = mismatch<dmap::io_error>([&] { w->commit(); });
            w.reset();
            if (entries(dir.path) != before_writer) wrong += "; a failed write was published or left a temporary";
          }
          return wrong;
        });
  }
  if (dmap::here() == 0) WARN("file size limit outcomes at " << p << " locale(s):" << report);
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

TEST_CASE("bad input: files: bad arguments", "[bad_input][files]") {
  scratch_dir dir;
  const rect<2> r{range(0, 6), range(0, 4)};
  dmap::array<double, 2> a{dmap::domain<2>{dmap::block<2>{}, r}};
  fill_by_position(a);
  dmap::write_npy(dir / "a.npy", a);
  {
    dmap::hdf5_writer w(dir / "a.h5");
    w.write("/g/a", a);
    w.set_attribute("/g", "count", std::int64_t{3});
    w.set_attribute("/g", "label", "grid");
    w.commit();
  }
  const std::string nul_path = dir.path + std::string("/a.npy\0.evil", 11);
  const std::string long_path = dir.path + "/" + std::string(5000, 'x');
  const std::size_t room = 250 - std::min<std::size_t>(dir.path.size(), 200) - 6;  // a 250-character path below dir
  const std::string deep = dir / std::string(room / 2, 'd');
  const std::string deep_npy = deep + "/" + std::string(room - room / 2, 'n') + ".npy";
  const std::string deep_h5 = deep_npy.substr(0, deep_npy.size() - 4) + ".h5";
  if (dmap::here() == 0) {
    std::filesystem::create_directory(dir / "sub");
    std::filesystem::create_directory(deep);
    std::filesystem::copy_file(dir / "a.npy", deep_npy);
    std::filesystem::copy_file(dir / "a.h5", deep_h5);
    ::mkfifo((dir / "pipe").c_str(), 0600);
    std::filesystem::create_directory(dir / "a.npy.dmap-previous");  // where a rewrite moves the old file
    std::filesystem::create_directory(dir / "a.h5.dmap-previous");
  }
  dmap::barrier();
  REQUIRE((deep_npy.size() == 250 || dir.path.size() > 200));
  const auto before = entries(dir.path);

  // Paths.
  BAD_INPUT("write_npy: an empty path", dmap::argument_error, dmap::write_npy("", a));
  BAD_INPUT("read_npy: an empty path", dmap::argument_error, dmap::read_npy("", a));
  BAD_INPUT("read_npy_header: an empty path", dmap::argument_error, dmap::read_npy_header(""));
  BAD_INPUT("hdf5_writer: an empty path", dmap::argument_error, dmap::hdf5_writer(""));
  BAD_INPUT("hdf5_reader: an empty path", dmap::argument_error, dmap::hdf5_reader(""));
  BAD_INPUT("write_npy: a path with a NUL byte", dmap::argument_error, dmap::write_npy(nul_path, a));
  BAD_INPUT("read_npy: a path with a NUL byte", dmap::argument_error, dmap::read_npy(nul_path, a));
  BAD_INPUT("read_npy_header: a path with a NUL byte", dmap::argument_error, dmap::read_npy_header(nul_path));
  BAD_INPUT("hdf5_writer: a path with a NUL byte", dmap::argument_error, dmap::hdf5_writer(nul_path));
  BAD_INPUT("hdf5_reader: a path with a NUL byte", dmap::argument_error,
            dmap::hdf5_reader(dir.path + std::string("/a.h5\0x", 7)));
  BAD_INPUT("write_npy: a path of 5000 characters", dmap::io_error, dmap::write_npy(long_path, a));
  BAD_INPUT("read_npy: a path of 5000 characters", dmap::io_error, dmap::read_npy(long_path, a));
  BAD_INPUT("hdf5_writer: a path of 5000 characters", dmap::io_error, dmap::hdf5_writer(long_path));
  BAD_INPUT("hdf5_reader: a path of 5000 characters", dmap::io_error, dmap::hdf5_reader(long_path));
  // Open MPI's MPI_File_open aborts the process on names of 245 characters or more: dmap must
  // refuse them first, for existing files too.
  BAD_INPUT("read_npy: an existing file under a path of 250 characters", dmap::io_error, dmap::read_npy(deep_npy, a));
  BAD_INPUT("read_npy_header: a path of 250 characters", dmap::io_error, dmap::read_npy_header(deep_npy));
  BAD_INPUT("hdf5_reader: an existing file under a path of 250 characters", dmap::io_error, dmap::hdf5_reader(deep_h5));
  BAD_INPUT("write_npy: a path of 250 characters", dmap::io_error, dmap::write_npy(deep_npy, a));
  BAD_INPUT("hdf5_writer: a path of 250 characters", dmap::io_error, dmap::hdf5_writer(deep_h5));
  BAD_INPUT("write_npy: a path naming a directory", dmap::io_error, dmap::write_npy(dir / "sub", a));
  BAD_INPUT("write_npy: a path naming the scratch directory itself", dmap::io_error, dmap::write_npy(dir.path, a));
  BAD_INPUT("write_npy: a path ending in '/'", dmap::io_error, dmap::write_npy(dir / "sub/", a));
  BAD_INPUT("write_hdf5: a path naming a directory", dmap::io_error, dmap::write_hdf5(dir / "sub", "/a", a));
  // A FIFO (like a device) would be replaced by a regular file if renamed over (as root, nothing
  // else stops it): refused. A FIFO in the scratch directory, not /dev/null, in case it is not.
  BAD_INPUT("write_npy: a FIFO (not a regular file)", dmap::io_error, dmap::write_npy(dir / "pipe", a));
  BAD_INPUT("write_hdf5: a FIFO (not a regular file)", dmap::io_error, dmap::write_hdf5(dir / "pipe", "/a", a));
  // A rewrite moves the old file aside to <path>.dmap-previous, removing a leftover there first:
  // one that is not a regular file is refused (and a reader takes <path>, which exists).
  BAD_INPUT("write_npy: <path>.dmap-previous is a directory", dmap::io_error, dmap::write_npy(dir / "a.npy", a));
  BAD_INPUT("write_hdf5: <path>.dmap-previous is a directory", dmap::io_error, dmap::write_hdf5(dir / "a.h5", "/g/a", a));
  DMAP_CHECK_ALL(entries(dir.path) == before);  // nothing published, no temporary left

  // Dataset and object names.
  {
    dmap::hdf5_writer w(dir / "names.h5");
    for (const std::string& bad : {std::string(""), std::string("/"), std::string("a//b"), std::string(".."),
                                   std::string("/a/./b"), std::string("/a/../b"), std::string("a\0b", 3)}) {
      std::string shown = bad;
      std::replace(shown.begin(), shown.end(), '\0', '@');
      BAD_INPUT("hdf5 write: dataset name '" + shown + "'", dmap::argument_error, w.write(bad, a));
    }
    w.write("/d", a);
    BAD_INPUT("hdf5 write: the same dataset twice", dmap::argument_error, w.write("/d", a));
    BAD_INPUT("hdf5 write: the same dataset twice, spelled 'd'", dmap::argument_error, w.write("d", a));
    BAD_INPUT("hdf5 write: a dataset under a dataset", dmap::io_error, w.write("/d/x", a));
    w.write("/grp/d", a);
    BAD_INPUT("hdf5 write: a dataset named like an existing group", dmap::argument_error, w.write("/grp", a));
    BAD_INPUT("hdf5 set_attribute: a missing object", dmap::argument_error, w.set_attribute("/nothing", "x", 1.0));
    BAD_INPUT("hdf5 set_attribute: an empty attribute name", dmap::argument_error, w.set_attribute("/d", "", 1.0));
    BAD_INPUT("hdf5 set_attribute: an attribute name with a NUL byte", dmap::argument_error,
              w.set_attribute("/d", std::string("x\0y", 3), 1.0));
    BAD_INPUT("hdf5 set_attribute: object path 'a//b'", dmap::argument_error, w.set_attribute("a//b", "x", 1.0));
    w.commit();  // the failures above left the writer usable
    BAD_INPUT("hdf5 commit: twice", dmap::argument_error, w.commit());
    BAD_INPUT("hdf5 write: after commit", dmap::argument_error, w.write("/e", a));
    BAD_INPUT("hdf5 set_attribute: after commit", dmap::argument_error, w.set_attribute("/d", "x", 1.0));
  }
  {
    dmap::hdf5_reader in(dir / "names.h5");
    dmap::array<double, 2> b{dmap::domain<2>{dmap::cyclic<2>{}, r}};
    CHECK_NO_FAILURE(works([&] { in.read("/d", b); }));
    CHECK_NO_FAILURE(check_by_position(b));
    DMAP_CHECK_ALL(!in.exists("/d/x") && !in.exists("/e"));
  }
  {
    dmap::hdf5_reader in(dir / "a.h5");
    for (const std::string& bad : {std::string(""), std::string("/"), std::string("a//b"), std::string("..")})
      BAD_INPUT("hdf5 read: dataset name '" + bad + "'", dmap::argument_error, in.read(bad, a));
    BAD_INPUT("hdf5 read: a dataset name with a NUL byte", dmap::argument_error, in.read(std::string("/g/a\0b", 6), a));
    BAD_INPUT("hdf5 info: the root group", dmap::argument_error, in.info("/"));
    BAD_INPUT("hdf5 exists: an empty path", dmap::argument_error, in.exists(""));
    BAD_INPUT("hdf5 attribute<double>: an integer attribute", dmap::format_error, in.attribute<double>("/g", "count"));
    BAD_INPUT("hdf5 attribute<int64>: a string attribute", dmap::format_error,
              in.attribute<std::int64_t>("/g", "label"));
    BAD_INPUT("hdf5 attribute<string>: an integer attribute", dmap::format_error,
              in.attribute<std::string>("/g", "count"));
    BAD_INPUT("hdf5 attribute: a missing object", dmap::format_error, in.attribute<double>("/nothing", "count"));
    BAD_INPUT("hdf5 attribute: a missing attribute", dmap::format_error, in.attribute<double>("/g", "missing"));
    BAD_INPUT("hdf5 attribute<int64>: dmap_first of a 2-D dataset (two values)", dmap::format_error,
              in.attribute<std::int64_t>("/g/a", "dmap_first"));
    BAD_INPUT("hdf5 attribute: a name with a NUL byte", dmap::argument_error,
              in.attribute<std::int64_t>("/g", std::string("count\0x", 7)));
    DMAP_CHECK_ALL(in.attribute<std::int64_t>("/g", "count") == 3);
  }

  // Arrays: moved from (on every locale, then on one), of another rank.
  {
    dmap::array<double, 2> gone{a.domain()};
    dmap::array<double, 2> taken{std::move(gone)};
    BAD_INPUT("read_npy: into a moved-from array", dmap::argument_error, dmap::read_npy(dir / "a.npy", gone));
    BAD_INPUT("write_npy: a moved-from array", dmap::argument_error, dmap::write_npy(dir / "m.npy", gone));
    BAD_INPUT("read_hdf5: into a moved-from array", dmap::argument_error, dmap::read_hdf5(dir / "a.h5", "/g/a", gone));
    BAD_INPUT("write_hdf5: a moved-from array", dmap::argument_error, dmap::write_hdf5(dir / "m.h5", "/m", gone));
  }
  {
    const int origin = dmap::num_locales() - 1;
    dmap::array<double, 2> half{a.domain()};
    std::optional<dmap::array<double, 2>> taken;
    if (dmap::here() == origin) taken.emplace(std::move(half));
    using dmap::argument_error;
    CHECK(dmap::bad_input::census().insert("read_npy: into an array moved from on one locale").second);
    CHECK_NO_FAILURE(
        (fails_from<argument_error, argument_error>(origin, [&] { dmap::read_npy(dir / "a.npy", half); })));
    CHECK(dmap::bad_input::census().insert("write_npy: an array moved from on one locale").second);
    CHECK_NO_FAILURE(
        (fails_from<argument_error, argument_error>(origin, [&] { dmap::write_npy(dir / "m.npy", half); })));
    CHECK(dmap::bad_input::census().insert("read_hdf5: into an array moved from on one locale").second);
    CHECK_NO_FAILURE((fails_from<argument_error, argument_error>(
        origin, [&] { dmap::read_hdf5(dir / "a.h5", "/g/a", half); })));
    CHECK(dmap::bad_input::census().insert("write_hdf5: an array moved from on one locale").second);
    CHECK_NO_FAILURE((fails_from<argument_error, argument_error>(
        origin, [&] { dmap::write_hdf5(dir / "m.h5", "/m", half); })));
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
  }
  {
    dmap::array<double, 3> cube{dmap::domain<3>{dmap::block<3>{}, rect<3>{range(0, 6), range(0, 4), range(0, 1)}}};
    dmap::array<double, 1> line{dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, 24)}}};
    BAD_INPUT("read_npy: a 2-D file into a 3-D array", dmap::shape_error, dmap::read_npy(dir / "a.npy", cube));
    BAD_INPUT("read_npy: a 2-D file into a 1-D array of as many elements", dmap::shape_error,
              dmap::read_npy(dir / "a.npy", line));
    BAD_INPUT("read_hdf5: a 2-D dataset into a 3-D array", dmap::shape_error,
              dmap::read_hdf5(dir / "a.h5", "/g/a", cube));
    BAD_INPUT("read_hdf5: a 2-D dataset into a 1-D array of as many elements", dmap::shape_error,
              dmap::read_hdf5(dir / "a.h5", "/g/a", line));
  }
  auto now = entries(dir.path);
  now.erase(std::find(now.begin(), now.end(), "names.h5"));
  DMAP_CHECK_ALL(now == before);  // only names.h5 was published: no m.npy, m.h5 or temporary
  CHECK_NO_FAILURE(check_by_position(a));
}

}  // namespace test_bad_files
