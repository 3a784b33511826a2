// dense_order_layout<N>: the plain local layout. Each piece is stored whole, row- or
// column-major, its rows optionally padded (row_padding), the pieces one after another in the
// buffer. Block stores its one chunk this way; a user map with pieces of its own may too.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "../dsi/layout.hpp"
#include "../dsi/local_layout.hpp"
#include "../dsi/rect.hpp"

namespace dmap {

/// Pieces stored whole and in turn: piece k starts where piece k - 1 ends (the first at offset
/// 0), each row- or column-major with rows padded as the policy says (compact by default).
template <std::size_t N>
class dense_order_layout {
 public:
  /// Row-major, compact.
  dense_order_layout() = default;
  /// Each piece in `order`, its rows padded as `padding` says.
  explicit dense_order_layout(storage_order order, const row_padding& padding = row_padding::none())
      : order_(order), padding_(padding) {}

  /// The storage order of each piece.
  storage_order order() const noexcept { return order_; }
  /// How each piece's rows are padded.
  const row_padding& padding() const noexcept { return padding_; }
  /// "dense(row-major)", "dense(column-major, row padding automatic)", ...
  std::string name() const {
    std::ostringstream s;
    s << "dense(" << (order_ == storage_order::row_major ? "row-major" : "column-major");
    if (padding_ != row_padding::none()) s << ", row padding " << padding_;
    s << ")";
    return s.str();
  }
  /// The layout of one piece stored at `offset` (dense_layout::make; throws argument_error
  /// when fixed padding makes its end exceed int64).
  dense_layout<N> of(const rect<N>& piece, index_t offset = 0) const {
    return dense_layout<N>::make(piece, offset, order_, padding_);
  }
  /// One part per non-empty piece, owning it, stored after the previous one.
  std::vector<placed_piece<N>> place(const std::vector<rect<N>>& pieces) const {
    std::vector<placed_piece<N>> out;
    index_t offset = 0;
    for (const auto& piece : pieces) {
      if (piece.empty()) continue;
      out.push_back({piece, of(piece, offset)});
      offset = out.back().layout.end();
    }
    return out;
  }

  /// Equal layouts store pieces in the same order with the same padding.
  friend bool operator==(const dense_order_layout&, const dense_order_layout&) = default;

 private:
  storage_order order_ = storage_order::row_major;
  row_padding padding_ = row_padding::none();
};

static_assert(local_layout<dense_order_layout<1>, 1>);
static_assert(local_layout<dense_order_layout<2>, 2>);
static_assert(local_layout<dense_order_layout<3>, 3>);

}  // namespace dmap
