// The machinery behind npy.hpp (not part of the API): reading and writing .npy headers, the
// checks of a file against the array it fills, and write_npy and read_npy with a chosen route.
#pragma once

#include <bit>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../dsi/array_traits.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/errors.hpp"
#include "../npy_format.hpp"
#include "file_part.hpp"
#include "mpi_file.hpp"

namespace dmap {

namespace detail {

/// Reads the dictionary of an .npy header (`{'descr': '<f8', 'fortran_order': False, 'shape':
/// (2, 3), }`), rejecting anything else with format_error naming `shown` (the file).
class npy_dict_reader {
 public:
  npy_dict_reader(const std::string& text, const std::string& who, const std::string& shown)
      : s_(text), who_(who), shown_(shown) {}

  npy_header read() {
    npy_header h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (true) {
      skip();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      skip();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') fail("the dtype is not a simple type (a structured dtype?)");
        h.descr = quoted();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        seen_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        seen_shape = true;
      } else {
        fail("unexpected key '" + key + "' in the header");
      }
      skip();
      if (peek() == ',') {
        ++at_;
        continue;
      }
      skip();
      if (peek() != '}') fail("expected ',' or '}' in the header");
    }
    ++at_;
    if (!seen_descr || !seen_order || !seen_shape)
      fail("the header lacks one of 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw format_error(who_ + ": '" + shown_ + "' is not a valid .npy file: " + why);
  }
  char peek() const { return at_ < s_.size() ? s_[at_] : '\0'; }
  void skip() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r')) ++at_;
  }
  void expect(char c) {
    skip();
    if (peek() != c) fail(std::string("expected '") + c + "' in the header");
    ++at_;
  }
  std::string quoted() {
    skip();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string in the header");
    const auto end = s_.find(q, at_ + 1);
    if (end == std::string::npos) fail("an unterminated string in the header");
    std::string out = s_.substr(at_ + 1, end - at_ - 1);
    at_ = end + 1;
    return out;
  }
  bool boolean() {
    if (s_.compare(at_, 4, "True") == 0) return at_ += 4, true;
    if (s_.compare(at_, 5, "False") == 0) return at_ += 5, false;
    fail("'fortran_order' is neither True nor False");
  }
  std::vector<index_t> tuple() {
    expect('(');
    std::vector<index_t> out;
    while (true) {
      skip();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail("a shape entry is not a non-negative integer");
      index_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        const index_t digit = peek() - '0';
        if (v > (std::numeric_limits<index_t>::max() - digit) / 10) fail("a shape entry exceeds 2^63 - 1");
        v = v * 10 + digit;
        ++at_;
      }
      if (peek() == 'L') ++at_;  // Python 2 wrote long integers so
      out.push_back(v);
      if (out.size() > 64) fail("the shape has more than 64 dimensions");
      skip();
      if (peek() == ',') {
        ++at_;
        continue;
      }
      skip();
      if (peek() != ')') fail("expected ',' or ')' in the shape");
    }
    ++at_;
    return out;
  }

  const std::string& s_;
  const std::string& who_;
  const std::string& shown_;
  std::size_t at_ = 0;
};

/// Where an .npy file's header dictionary lies: after `prefix` bytes, `length` of them.
struct npy_preamble {
  index_t prefix = 0;
  index_t length = 0;
};

/// The preamble of the .npy file whose first bytes (at least the first 12, or all there are)
/// are `start`; format_error naming `shown` unless they are .npy magic and a known version.
inline npy_preamble read_npy_preamble(const std::string& start, const std::string& who, const std::string& shown) {
  const auto bad = [&](const std::string& why) {
    throw format_error(who + ": '" + shown + "' is not a valid .npy file: " + why);
  };
  if (start.size() < 10 || start.compare(0, 6, "\x93NUMPY") != 0) bad("it does not start with the .npy magic bytes");
  const auto byte = [&](std::size_t k) { return static_cast<index_t>(static_cast<unsigned char>(start[k])); };
  const index_t major = byte(6);
  if (major < 1 || major > 3) bad("unknown format version " + std::to_string(major) + "." + std::to_string(byte(7)));
  if (major == 1) return {10, byte(8) | byte(9) << 8};
  if (start.size() < 12) bad("the header is cut short");
  return {12, byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24};
}

/// The header of the .npy file whose first bytes (the preamble and the dictionary) are
/// `start`; format_error naming `shown` for anything NumPy would not have written.
inline npy_header parse_npy_header(const std::string& start, const std::string& who, const std::string& shown) {
  const npy_preamble p = read_npy_preamble(start, who, shown);
  npy_header h = npy_dict_reader(start.substr(static_cast<std::size_t>(p.prefix)), who, shown).read();
  h.data_offset = p.prefix + p.length;
  index_t n = 1;
  for (const auto e : h.shape) {
    if (e != 0 && n > std::numeric_limits<index_t>::max() / e)
      throw format_error(who + ": '" + shown + "' is not a valid .npy file: its shape has more than 2^63 - 1 elements");
    n *= e;
  }
  return h;
}

/// The header of an .npy file of `shape` and dtype `descr`, padded as NumPy pads it (the
/// elements start at a multiple of 64 bytes).
inline std::string npy_header_bytes(const std::string& descr, const std::vector<index_t>& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t d = 0; d < shape.size(); ++d) dict += std::to_string(shape[d]) + (shape.size() == 1 ? "," : (d + 1 < shape.size() ? ", " : ""));
  dict += "), }";
  std::size_t prefix = 10;
  std::size_t total = prefix + dict.size() + 1;
  if (total > 65535) prefix = 12, total = prefix + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  const std::size_t length = dict.size();
  out += static_cast<char>(prefix == 10 ? 1 : 2);
  out += '\0';
  out += static_cast<char>(length & 0xff);
  out += static_cast<char>((length >> 8) & 0xff);
  if (prefix == 12) {
    out += static_cast<char>((length >> 16) & 0xff);
    out += static_cast<char>((length >> 24) & 0xff);
  }
  return out + dict;
}

/// Collective. The header of the open .npy file `file` and the bytes it was read from
/// (preamble and dictionary), read by locale 0 and told to all in one broadcast: every locale
/// throws the same error for a bad header. Then each other locale reads the same bytes of the
/// file it opened and compares them (check_npy_same_start, which the caller agrees).
inline std::pair<npy_header, std::string> read_npy_header(mpi_file& file, const std::string& who,
                                                          const std::string& path) {
  std::string start;
  agreed([&] {
    if (here() != 0) return;
    const index_t bytes = file.size_here();
    start = file.read_at(0, std::min<index_t>(bytes, 12));
    const npy_preamble p = read_npy_preamble(start, who, path);
    if (p.length > npy_header_limit)
      throw format_error(who + ": '" + path + "' is not a valid .npy file: its header claims " +
                         std::to_string(p.length) + " bytes, more than 1 MiB");
    if (p.prefix + p.length > bytes) throw io_error(who + ": '" + path + "' is truncated: it ends inside its header");
    start = file.read_at(0, p.prefix + p.length);
  });
  broadcast(start, 0);
  return {parse_npy_header(start, who, path), start};
}

/// Not collective (the caller agrees it). Throws io_error unless the file this locale opened
/// begins with `start` (locale 0's preamble and header): each locale opens the path itself,
/// and a path resolved per locale (a working directory, a link) or a file replaced between the
/// locales' opens may give it another file, whose elements the header would misdescribe.
inline void check_npy_same_start(mpi_file& file, const std::string& start, const std::string& who,
                                 const std::string& path) {
  if (here() == 0) return;
  if (file.read_at(0, static_cast<index_t>(start.size())) != start)
    throw io_error(who + ": locale " + std::to_string(here()) + " reads another header from '" + path +
                   "' than locale 0: the path names another file on some locale (a relative path or link resolved "
                   "per locale?) or the file changed while it was opened; every locale must read one file");
}

/// Throws (the same error on every locale, from the same header) unless the .npy file `path`
/// holds elements of T in C order with `shape`.
template <class T, std::size_t N>
void check_npy_fits(const npy_header& h, const std::array<index_t, N>& shape, const std::string& who,
                    const std::string& path) {
  const std::string want = npy_descr<T>();
  const bool same_type = h.descr == want || (sizeof(T) > 1 && h.descr.size() == want.size() && h.descr[0] == '=' &&
                                             h.descr.compare(1, std::string::npos, want, 1) == 0);
  if (!same_type)
    throw format_error(who + ": '" + path + "' holds elements of dtype '" + h.descr + "', the array's are '" + want +
                       "'; dmap reads no conversions");
  if (h.fortran_order)
    throw format_error(who + ": '" + path + "' stores its elements in Fortran (column-major) order; dmap reads C order");
  std::ostringstream s;
  bool same = h.shape.size() == N;
  for (std::size_t d = 0; same && d < N; ++d) same = h.shape[d] == shape[d];
  if (!same) {
    s << who << ": '" << path << "' holds an array of shape (";
    for (std::size_t d = 0; d < h.shape.size(); ++d) s << (d ? ", " : "") << h.shape[d];
    s << "), the array has shape (";
    for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << shape[d];
    s << ")";
    throw shape_error(s.str());
  }
}

/// Not collective (the caller agrees it). Throws io_error unless the file this locale opened
/// has `bytes` bytes, enough for the `h.elements()` elements of `element_bytes` its header
/// announces: each locale checks the file it opened (Open MPI's MPI_File_read_all through a
/// file view reports a read past the end as complete, leaving the buffer as it was).
inline void check_npy_size(const npy_header& h, index_t bytes, std::size_t element_bytes, const std::string& who,
                           const std::string& path) {
  const index_t n = h.elements();
  const auto size = static_cast<index_t>(element_bytes);
  if (n > (std::numeric_limits<index_t>::max() - h.data_offset) / size || bytes < h.data_offset + n * size)
    throw io_error(who + ": '" + path + "' is truncated: its header announces " + std::to_string(n) + " elements of " +
                   std::to_string(element_bytes) + " bytes after byte " + std::to_string(h.data_offset) + ", the file has " +
                   std::to_string(bytes) + " bytes" +
                   (here() != 0 ? " as locale " + std::to_string(here()) + " sees it" : std::string()));
}

template <class X>
void check_live_operand(const X& x, const char* who) {  // collective: moved from on one locale fails on all
  if constexpr (array_traits_of<X>::is_array)
    agreed([&] { check_array_live(x, who, "it has no elements to move to or from a file"); });
}

}  // namespace detail

namespace detail {

/// write_npy with the route of every locale's share chosen (tests take both).
template <class X>
void write_npy(const std::string& path, const X& x, file_route route) {
  using T = array_value_t<X>;
  constexpr std::size_t N = array_traits_of<X>::rank;
  const std::string who = "dmap::write_npy";
  check_live_operand(x, who.c_str());
  const auto part = file_part<T, N>::for_writing(x, route);
  const auto shape = part.shape();
  const std::string header = npy_header_bytes(npy_descr<T>(), std::vector<index_t>(shape.begin(), shape.end()));
  file_commit out(path, who);
  mpi_file file(out.temporary(), MPI_MODE_CREATE | MPI_MODE_WRONLY, who, path);
  io_crash_point("created");
  file.write_part(static_cast<index_t>(header.size()), part, [&] {
    if (here() == 0) file.write_at(0, header);
  });
  file.close();
  index_t n = 1;
  for (const auto e : shape) n *= e;
  out.publish(static_cast<index_t>(header.size()) + n * static_cast<index_t>(sizeof(T)));
}

/// read_npy with the route of every locale's share chosen (tests take both).
template <class X>
void read_npy(const std::string& path, X& x, file_route route) {
  const collective_scope scope;
  using T = array_value_t<X>;
  constexpr std::size_t N = array_traits_of<X>::rank;
  const std::string who = "dmap::read_npy";
  check_live_operand(x, who.c_str());
  mpi_file file(committed_file(path), MPI_MODE_RDONLY, who, path, file_arguments(who, path));
  const auto [h, start] = read_npy_header(file, who, path);
  auto part = file_part<T, N>::for_reading(x, route);
  check_npy_fits<T, N>(h, part.shape(), who, path);
  agreed([&] {  // what each locale's own file says, agreed: it may differ per locale
    check_npy_same_start(file, start, who, path);
    check_npy_size(h, file.size_here(), sizeof(T), who, path);
  });
  file.read_part(h.data_offset, part);
  part.finish_reading();
  file.close();
}

}  // namespace detail

}  // namespace dmap
