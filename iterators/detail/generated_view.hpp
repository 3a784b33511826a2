// generated_view<F>: the random-access view f(0), f(1), ..., f(n - 1) behind dmap's serial
// views. It models the standard range concepts (std::ranges::random_access_range, view,
// sized_range, borrowed_range: iterators carry their own copy of f) and range-v3's view
// concept, so both libraries' algorithms and adaptors take it.
#pragma once

#include <compare>
#include <cstddef>
#include <iterator>
#include <ranges>
#include <type_traits>
#include <utility>

#include <range/v3/range_fwd.hpp>

#include "../../dsi/range.hpp"

namespace dmap::detail {

/// The values f(0), ..., f(n - 1) of a default-constructible, copyable function object f.
template <class F>
class generated_view : public std::ranges::view_interface<generated_view<F>>, public ::ranges::view_base {
 public:
  /// The type of the values.
  using value_type = std::remove_cvref_t<std::invoke_result_t<const F&, index_t>>;

  /// A random-access iterator whose values are computed when read (prvalues).
  class iterator {
   public:
    using iterator_concept = std::random_access_iterator_tag;
    using iterator_category = std::input_iterator_tag;  // values are not references
    using value_type = generated_view::value_type;
    using difference_type = std::ptrdiff_t;

    iterator() = default;
    iterator(F f, index_t k) : f_(std::move(f)), k_(k) {}
    value_type operator*() const { return f_(k_); }
    value_type operator[](difference_type n) const { return f_(k_ + n); }
    iterator& operator++() { return ++k_, *this; }
    iterator operator++(int) { return {f_, k_++}; }
    iterator& operator--() { return --k_, *this; }
    iterator operator--(int) { return {f_, k_--}; }
    iterator& operator+=(difference_type n) { return k_ += n, *this; }
    iterator& operator-=(difference_type n) { return k_ -= n, *this; }
    friend iterator operator+(iterator i, difference_type n) { return i += n; }
    friend iterator operator+(difference_type n, iterator i) { return i += n; }
    friend iterator operator-(iterator i, difference_type n) { return i -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) { return a.k_ - b.k_; }
    friend bool operator==(const iterator& a, const iterator& b) { return a.k_ == b.k_; }
    friend std::strong_ordering operator<=>(const iterator& a, const iterator& b) { return a.k_ <=> b.k_; }

   private:
    F f_{};
    index_t k_ = 0;
  };

  generated_view() = default;
  /// The values f(0), ..., f(size - 1).
  generated_view(F f, index_t size) : f_(std::move(f)), size_(size) {}
  iterator begin() const { return {f_, 0}; }
  iterator end() const { return {f_, size_}; }
  /// The number of values.
  std::size_t size() const noexcept { return static_cast<std::size_t>(size_); }

 private:
  F f_{};
  index_t size_ = 0;
};

}  // namespace dmap::detail

template <class F>
inline constexpr bool std::ranges::enable_borrowed_range<dmap::detail::generated_view<F>> = true;
