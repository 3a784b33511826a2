// The machinery behind foreign_buffer.hpp (not part of the API): check_foreign_buffer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "../index.hpp"
#include "domain_state.hpp"

namespace dmap {

template <class T, std::size_t N>
struct foreign_buffer;

namespace detail {

/// Throws argument_error, naming `who`'s argument and the rule, unless `buffer` can hold this
/// locale's storage of `dom`: size >= 0 and at least the storage's length, data not null
/// when it holds elements and aligned for T, and strides equal to the local layouts' along
/// each dimension the storage steps through (a layout's extent > 1, or layouts at different
/// positions). A map known through a
/// directory stores its indices one after the other: stride 1.
template <class T, std::size_t N>
void check_foreign_buffer(const domain_state<N>& dom, const foreign_buffer<T, N>& buffer, const std::string& who) {
  const auto fail = [&](const std::string& what) {
    throw argument_error(who + ": on locale " + std::to_string(here()) + ", " + what);
  };
  if (buffer.size < 0) fail("buffer.size is " + std::to_string(buffer.size) + "; it must be >= 0");
  if (buffer.size < dom.storage_size)
    fail("buffer.size is " + std::to_string(buffer.size) + "; the domain's local storage needs " +
         std::to_string(dom.storage_size) + " elements (the end of its last local layout)");
  if (dom.storage_size > 0 && buffer.data == nullptr)
    fail("buffer.data is null; it must point at the " + std::to_string(dom.storage_size) + " local elements");
  if (reinterpret_cast<std::uintptr_t>(buffer.data) % alignof(T) != 0)
    fail("buffer.data is not aligned for the element type (alignment " + std::to_string(alignof(T)) + ")");
  const auto check_stride = [&](std::size_t d, index_t want, const std::string& why) {
    if (buffer.strides[d] == want) return;
    std::ostringstream s;
    s << "buffer.strides[" << d << "] is " << buffer.strides[d] << "; it must be " << want << ' ' << why;
    fail(s.str());
  };
  if (dom.dir) {
    if constexpr (N >= 1)
      if (dom.dir->stored().size() > 1) check_stride(0, 1, "(a directory map stores its indices one after the other)");
    return;
  }
  // A dimension matters where the storage steps along it: inside a layout, or between
  // layouts placed at different positions along it (their offsets use the stride).
  const auto& layouts = dom.my_layouts;
  for (std::size_t d = 0; d < N; ++d)
    for (std::size_t b = 0; b < layouts.size(); ++b) {
      const range& r = layouts[b].indices.dim(d);
      const bool steps = r.size() > 1 || (!r.empty() && !layouts[0].indices.dim(d).empty() &&
                                          r.first() != layouts[0].indices.dim(d).first());
      if (steps) {
        check_stride(d, layouts[b].strides[d],
                     "(the stride of local layout " + std::to_string(b) + " of " + dom.model->name() + ")");
        break;
      }
    }
}

}  // namespace detail
}  // namespace dmap
