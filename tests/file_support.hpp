// Shared by the file tests (test_npy, test_hdf5, the bad-input file cases): a scratch
// directory every locale names, the bytes of a file, and arrays whose every element is a
// known function of its row-major position, checked bit for bit.
#pragma once

#include <unistd.h>

#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include "support.hpp"

namespace dmap::testing::files {

/// Collective: a fresh directory every locale names (made by locale 0), removed at the end.
struct scratch_dir {
  std::string path;
  scratch_dir() {
    if (dmap::here() == 0) {
      std::string templ = (std::filesystem::temp_directory_path() / "dmap-files-XXXXXX").string();
      if (::mkdtemp(templ.data()) == nullptr) templ.clear();
      path = templ;
    }
    dmap::broadcast(path, 0);
    REQUIRE(!path.empty());
  }
  ~scratch_dir() {
    dmap::barrier();
    if (dmap::here() == 0) {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

/// The bytes of file `path` (locale 0 only; empty elsewhere).
inline std::string file_bytes(const std::string& path) {
  if (dmap::here() != 0) return {};
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The element at row-major position k: distinct, exact in every type tried.
template <class T>
T value_at(index_t k) {
  if constexpr (std::is_same_v<T, std::complex<double>>)
    return {static_cast<double>(k) * 0.5 + 0.125, -static_cast<double>(k)};
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(k) * static_cast<T>(0.75) - static_cast<T>(3.5);
  else
    return static_cast<T>(k * 7 - 40);
}

/// The serial dump NumPy writes for `n` elements of shape `shape`: header then the elements.
template <class T>
std::string serial_dump(const std::vector<index_t>& shape) {
  index_t n = 1;
  for (auto e : shape) n *= e;
  std::string out = dmap::detail::npy_header_bytes(dmap::npy_descr<T>(), shape);
  for (index_t k = 0; k < n; ++k) {
    const T v = value_at<T>(k);
    out.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  return out;
}

/// Fills `a` with value_at(position of each index in its domain).
template <class T, std::size_t N>
void fill_by_position(dmap::array<T, N>& a) {
  const dmap::rect<N> whole = a.domain().indices();
  dmap::forall(dmap::zip(a.domain(), a), [&](const idx<N>& i, T& x) { x = value_at<T>(whole.order_of(i)); });
}

/// Collective: "" when every element of `a` is value_at(its position), else the first wrong one.
template <class T, std::size_t N>
std::string check_by_position(const dmap::array<T, N>& a) {
  const std::vector<T> all = a.gather();
  if (dmap::here() != 0) return "";
  for (std::size_t k = 0; k < all.size(); ++k)
    if (const T want = value_at<T>(static_cast<index_t>(k)); std::memcmp(&all[k], &want, sizeof(T)) != 0)
      return "position " + std::to_string(k) + " differs";
  return "";
}

/// The value the view tests store at index (i, j) of a 2-D array: i * 100 + j.
inline double grid_value(const idx<2>& i) { return static_cast<double>(i[0] * 100 + i[1]); }

/// Collective: "" when every element of `c` holds grid_value at the indices of `slice` and
/// `outside` elsewhere (a file read into a slice, the rest untouched), else the first wrong index.
inline std::string check_slice_read(const dmap::array<double, 2>& c, const dmap::rect<2>& slice, double outside) {
  const std::vector<double> all = c.gather();
  if (dmap::here() != 0) return "";
  const dmap::rect<2> whole = c.domain().indices();
  for (index_t k = 0; k < whole.size(); ++k) {
    const idx<2> i = whole.index_at(k);
    if (all[static_cast<std::size_t>(k)] != (slice.contains(i) ? grid_value(i) : outside))
      return "index " + std::to_string(i[0]) + "," + std::to_string(i[1]);
  }
  return "";
}

}  // namespace dmap::testing::files
