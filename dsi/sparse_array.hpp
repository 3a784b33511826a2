// sparse_array<T, N>: values over a sparse domain, with an implicit value for the indices
// of the parent that are not in the set (Chapel's IRV). Each locale keeps the values of its
// indices contiguously, in the domain's position order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "sparse_domain.hpp"

namespace dmap {

/// An array over a sparse domain: one value per index of the set, and the implicit value
/// (`irv()`) for every other index of the parent. Values follow the set as it changes:
/// present indices keep theirs, added ones start at the implicit value. Reading an absent
/// index gives the implicit value; writing one is an out_of_bounds_error naming the index.
/// Copies are deep (values, same domain). Collective: construction, `get`, `set`, loops.
template <transferable T, std::size_t N>
class sparse_array {
 public:
  /// Loops over sparse arrays are dmap::forall / reduce overloads of their own.
  using own_loops = void;
  /// The element type.
  using value_type = T;
  /// The number of dimensions.
  static constexpr std::size_t rank = N;

  /// An array over `d` whose every value, and the implicit value, is `irv`.
  explicit sparse_array(const sparse_domain<N>& d, const T& irv = T{})
      : dom_(d), values_(std::make_unique<values>(dom_.live("dmap::sparse_array"), irv)) {
    values_->current.assign(static_cast<std::size_t>(values_->owner->local_size()), irv);
  }
  /// A copy of `other`'s values over the same domain.
  sparse_array(const sparse_array& other) : sparse_array(other.domain(), other.irv()) {
    values_->current = other.values_->current;
  }
  /// Takes over `other`'s values; `other` is left without a domain.
  sparse_array(sparse_array&&) noexcept = default;
  /// Copies `other`'s values and implicit value; both must be over the same sparse domain
  /// (argument_error otherwise).
  sparse_array& operator=(const sparse_array& other) {
    if (this == &other) return *this;
    if (!(domain() == other.domain()))
      throw argument_error("dmap::sparse_array::operator=: the arrays are over different sparse domains; "
                           "assignment needs the same domain");
    values_->current = other.values_->current;
    values_->irv = other.values_->irv;
    return *this;
  }
  /// Copies `other`'s values (arrays keep their domain: see operator=(const sparse_array&)).
  sparse_array& operator=(sparse_array&& other) { return *this = static_cast<const sparse_array&>(other); }

  /// The sparse domain the array is declared over.
  const sparse_domain<N>& domain() const noexcept { return dom_; }
  /// The value of every index not in the set.
  const T& irv() const { return live("dmap::sparse_array::irv").irv; }
  /// Sets the implicit value on this locale (call it on every locale to keep them alike).
  void set_irv(const T& value) { live("dmap::sparse_array::set_irv").irv = value; }

  /// This locale's values, in the domain's position order.
  std::span<T> local_values() { return live("dmap::sparse_array::local_values").current; }
  /// This locale's values, in the domain's position order.
  std::span<const T> local_values() const { return live("dmap::sparse_array::local_values").current; }

  /// The value of `i`, an index this locale owns in the parent: its value when `i` is in the
  /// set, the implicit value otherwise. Throws out_of_bounds_error outside the parent and
  /// not_local_error when another locale owns `i` (read it with `get`).
  const T& operator[](const idx<N>& i) const {
    const auto& v = live("dmap::sparse_array::operator[]");
    const index_t p = dom_.local_position(i);
    return p < 0 ? v.irv : v.current[static_cast<std::size_t>(p)];
  }
  /// The element of `i`, an index in the set that this locale owns. Throws
  /// out_of_bounds_error when `i` is not in the set (absent indices read as the implicit
  /// value and cannot be written), not_local_error when another locale owns it.
  T& local(const idx<N>& i) {
    auto& v = live("dmap::sparse_array::local");
    const index_t p = dom_.local_position(i);
    if (p < 0) {
      std::ostringstream m;
      m << "dmap::sparse_array::local: index " << i << " is not in the sparse domain; an absent index reads as the "
        << "implicit value and cannot be written (add it to the domain first)";
      throw out_of_bounds_error(m.str());
    }
    return v.current[static_cast<std::size_t>(p)];
  }
  /// The value of `i` (which this locale owns): see operator[].
  const T& local(const idx<N>& i) const { return (*this)[i]; }

  /// Collective: the values of `indices` (each locale its own list, any owners), in the
  /// caller's order; absent indices give the implicit value. One message per peer each way.
  /// An index outside the parent is an out_of_bounds_error on every locale.
  std::vector<T> get(std::span<const idx<N>> indices) const {
    const auto& v = live("dmap::sparse_array::get");
    const auto& s = *v.owner;
    std::vector<std::vector<std::size_t>> asked(static_cast<std::size_t>(num_locales()));
    byte_buffers in = exchange(sparse_domain<N>::route(s, indices, asked, "dmap::sparse_array::get"));
    for (auto& bytes : in) {
      const auto queries = from_bytes<idx<N>>(bytes);
      std::vector<T> answers(queries.size());
      for (std::size_t k = 0; k < queries.size(); ++k) {
        const index_t p = s.position_of(queries[k]);
        answers[k] = p < 0 ? v.irv : v.current[static_cast<std::size_t>(p)];
      }
      bytes = to_bytes(answers);
    }
    byte_buffers back = exchange(std::move(in));
    std::vector<T> result(indices.size());
    for (std::size_t q = 0; q < asked.size(); ++q) {
      const auto answers = from_bytes<T>(back[q]);
      for (std::size_t k = 0; k < asked[q].size(); ++k) result[asked[q][k]] = answers[k];
    }
    return result;
  }
  /// Collective: writes `values[k]` to `indices[k]` (each locale its own lists, any owners);
  /// one message per peer. Lists of different lengths are an argument_error, an index outside
  /// the parent or absent from the set an out_of_bounds_error naming it, on every locale;
  /// then nothing is written. When several locales write one index, the highest locale's
  /// last value wins.
  void set(std::span<const idx<N>> indices, std::span<const T> values_in) {
    auto& v = live("dmap::sparse_array::set");
    const auto& s = *v.owner;
    agreed([&] {
      if (indices.size() != values_in.size())
        throw argument_error("dmap::sparse_array::set: " + std::to_string(indices.size()) + " indices but " +
                             std::to_string(values_in.size()) + " values; give one value per index");
    });
    std::vector<std::vector<std::size_t>> asked(static_cast<std::size_t>(num_locales()));
    byte_buffers indices_in = exchange(sparse_domain<N>::route(s, indices, asked, "dmap::sparse_array::set"));
    byte_buffers out(asked.size());
    for (std::size_t q = 0; q < asked.size(); ++q) {
      std::vector<T> vals;
      vals.reserve(asked[q].size());
      for (std::size_t k : asked[q]) vals.push_back(values_in[k]);
      out[q] = to_bytes(vals);
    }
    byte_buffers values_arrived = exchange(std::move(out));
    std::vector<std::pair<index_t, T>> writes;
    agreed([&] {
      for (std::size_t q = 0; q < asked.size(); ++q) {
        const auto where = from_bytes<idx<N>>(indices_in[q]);
        const auto what = from_bytes<T>(values_arrived[q]);
        for (std::size_t k = 0; k < where.size(); ++k) {
          const index_t p = s.position_of(where[k]);
          if (p < 0) {
            std::ostringstream m;
            m << "dmap::sparse_array::set: index " << where[k] << " is not in the sparse domain; absent indices "
              << "cannot be written (add them to the domain first)";
            throw out_of_bounds_error(m.str());
          }
          writes.emplace_back(p, what[k]);
        }
      }
    });
    for (const auto& [p, value] : writes) v.current[static_cast<std::size_t>(p)] = value;
  }
  /// Collective: set() with braced lists.
  void set(std::initializer_list<idx<N>> indices, std::initializer_list<T> values_in) {
    set(std::span<const idx<N>>(indices.begin(), indices.size()), std::span<const T>(values_in.begin(), values_in.size()));
  }

 private:
  friend struct detail::access;

  // The values, registered with the domain so that they follow its index set.
  struct values final : detail::sparse_array_hook<N> {
    values(detail::sparse_state<N>& s, const T& implicit) : owner(&s), irv(implicit) { s.arrays.push_back(this); }
    values(const values&) = delete;
    values& operator=(const values&) = delete;
    ~values() override {
      auto& a = owner->arrays;
      a.erase(std::find(a.begin(), a.end(), this));
    }
    void prepare(const std::vector<index_t>& moved_from) override {
      prepared.clear();
      prepared.reserve(moved_from.size());
      for (index_t p : moved_from) prepared.push_back(p < 0 ? irv : current[static_cast<std::size_t>(p)]);
    }
    void commit() noexcept override {
      current.swap(prepared);
      std::vector<T>().swap(prepared);
    }
    void abandon() noexcept override { std::vector<T>().swap(prepared); }

    detail::sparse_state<N>* owner;
    T irv;
    std::vector<T> current, prepared;
  };

  values& live(const char* who) const {
    if (!values_) throw argument_error(std::string(who) + ": the sparse array was moved from");
    dom_.live(who);
    return *values_;
  }

  sparse_domain<N> dom_;
  std::unique_ptr<values> values_;
};

}  // namespace dmap
