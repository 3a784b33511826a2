// Framed storage: a locale's rect stored together with a frame of ghost positions around it
// (DAP padding), `fluff[d]` positions of the rect's stride on both sides along dimension d.
// Stencil stores its chunks this way (ghost_frame_layout, the local_layout model); the frame's
// cells are filled by halo updates (algorithms/halos.hpp) or hold boundary values. A frame
// never reaches past the int64 limits: a chunk at INT64_MIN has no ghost positions below it.
#pragma once

#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "../dsi/index.hpp"
#include "../dsi/layout.hpp"
#include "../dsi/local_layout.hpp"
#include "../dsi/rect.hpp"

namespace dmap {

/// `owned` widened by fluff[d] >= 0 positions on both sides of every dimension d (same
/// stride and alignment); empty when `owned` is. Ghost positions past the int64 limits
/// cannot be named, so the frame stops at the first and last representable aligned index
/// (INT64_MIN and INT64_MAX - 1 at most). Throws argument_error when a dimension of the
/// frame would span more than 2^63 - 1 integers or its size would not fit int64.
template <std::size_t N>
rect<N> framed(const rect<N>& owned, const idx<N>& fluff) {
  if (owned.empty()) return owned;
  using detail::wide_int;
  constexpr wide_int lowest = std::numeric_limits<index_t>::min();
  constexpr wide_int highest = wide_int{std::numeric_limits<index_t>::max()} - 1;  // largest index of a range
  rect<N> frame = owned;
  for (std::size_t d = 0; d < N; ++d) {
    const range& r = owned.dim(d);
    const wide_int step = detail::abs_index(r.stride());
    const wide_int reach = static_cast<wide_int>(fluff[d]) * step;
    wide_int low = static_cast<wide_int>(r.aligned_low()) - reach;
    wide_int high = static_cast<wide_int>(r.aligned_high()) + reach;  // the last ghost index
    if (low < lowest) low += (lowest - low + step - 1) / step * step;
    if (high > highest) high -= (high - highest + step - 1) / step * step;
    if (high + 1 - low > std::numeric_limits<index_t>::max()) {
      std::ostringstream s;
      s << "dmap::framed: dimension " << d << " of " << owned << " with " << fluff[d]
        << " ghost positions on each side spans more than 2^63 - 1 integers; a frame must be a valid range";
      throw argument_error(s.str());
    }
    frame.set_dim(d, range(static_cast<index_t>(low), static_cast<index_t>(high + 1), r.stride(), r.alignment()));
  }
  return frame;
}

/// The storage of framed(owned, fluff) in `order`, starting at offset 0, its rows padded as
/// `padding` says (compact by default).
template <std::size_t N>
dense_layout<N> framed_layout(const rect<N>& owned, const idx<N>& fluff, storage_order order,
                              const row_padding& padding = row_padding::none()) {
  return dense_layout<N>::make(framed(owned, fluff), 0, order, padding);
}

/// Pieces stored with a ghost frame each (the local_layout model of framed storage): piece k's
/// frame, framed(piece, fluff), starts where piece k - 1's ends (the first at offset 0), in
/// `order`, rows padded as the policy says. A part owns its piece; the frame's other indices
/// are ghost cells.
template <std::size_t N>
class ghost_frame_layout {
 public:
  /// Frames of fluff[d] >= 0 positions on both sides of dimension d (argument_error naming
  /// `fluff` otherwise), in `order`, rows padded as `padding` says.
  explicit ghost_frame_layout(const idx<N>& fluff, storage_order order = storage_order::row_major,
                              const row_padding& padding = row_padding::none())
      : fluff_(fluff), order_(order), padding_(padding) {
    for (std::size_t d = 0; d < N; ++d)
      if (fluff[d] < 0) {
        std::ostringstream s;
        s << "dmap::ghost_frame_layout: fluff is " << fluff << "; the ghost width of every dimension must be >= 0";
        throw argument_error(s.str());
      }
  }

  /// The ghost positions on each side, per dimension.
  const idx<N>& fluff() const noexcept { return fluff_; }
  /// The storage order of each frame.
  storage_order order() const noexcept { return order_; }
  /// How each frame's rows are padded.
  const row_padding& padding() const noexcept { return padding_; }
  /// "framed(fluff (1, 1), row-major)", with ", row padding ..." when padded.
  std::string name() const {
    std::ostringstream s;
    s << "framed(fluff " << fluff_ << ", " << (order_ == storage_order::row_major ? "row-major" : "column-major");
    if (padding_ != row_padding::none()) s << ", row padding " << padding_;
    s << ")";
    return s.str();
  }
  /// The frame of one piece stored at offset 0 (what framed_layout returns).
  dense_layout<N> of(const rect<N>& piece) const { return framed_layout(piece, fluff_, order_, padding_); }
  /// One part per non-empty piece, owning it, its frame stored after the previous one.
  std::vector<placed_piece<N>> place(const std::vector<rect<N>>& pieces) const {
    std::vector<placed_piece<N>> out;
    index_t offset = 0;
    for (const auto& piece : pieces) {
      if (piece.empty()) continue;
      out.push_back({piece, dense_layout<N>::make(framed(piece, fluff_), offset, order_, padding_)});
      offset = out.back().layout.end();
    }
    return out;
  }

  /// Equal layouts frame pieces alike.
  friend bool operator==(const ghost_frame_layout&, const ghost_frame_layout&) = default;

 private:
  idx<N> fluff_{};
  storage_order order_ = storage_order::row_major;
  row_padding padding_ = row_padding::none();
};

static_assert(local_layout<ghost_frame_layout<1>, 1>);
static_assert(local_layout<ghost_frame_layout<2>, 2>);
static_assert(local_layout<ghost_frame_layout<3>, 3>);

}  // namespace dmap
