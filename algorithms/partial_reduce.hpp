// Partial reductions (Chapel's dsiPartialReduce): fold a rank-N array, view or zip along
// chosen dimensions into a rank-(N-k) array of any map (row sums, column maxima), with one
// message per pair of locales that share output indices.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../dsi/array.hpp"
#include "../dsi/detail/access.hpp"
#include "../dsi/detail/domain_state.hpp"
#include "../dsi/detail/locator.hpp"
#include "../iterators/concepts.hpp"
#include "../iterators/reduce.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/byte_exchange.hpp"
#include "detail/partial_reduce.hpp"
#include "detail/reduction_loop.hpp"

namespace dmap {

/// Collective: folds the elements of `in` (an array, an array view or a zip) along the
/// dimensions `Reduced...` into `out`, whose rank is the rest:
///   dmap::partial_reduce<1>(A, row_sums, 0.0);                      out[i] = sum over j of A[i, j]
///   dmap::partial_reduce<0>(A, col_max, -inf, dmap::maximum{});      out[j] = max over i of A[i, j]
///   dmap::partial_reduce<1, 2>(B, s, 0.0, std::plus<>{}, [](double b) { return b * b; });
/// `out` may have any map; its index set must have the shape of the input's index set
/// projected onto the kept dimensions (shape_error otherwise), and the two pair by position
/// as zipped operands do (an output over the projection itself pairs index with index).
/// Each element of `out` becomes `op(...op(op(init, p0), p1)..., pk)`: `init` first, then
/// the partial results of the locales holding input elements for it, in locale order, each
/// folded over that locale's elements in a fixed order (chunk by chunk, row-major within a
/// chunk, four accumulators along a reduced last dimension, as dmap::reduce). So `op` must be
/// associative and commutative, and repeated runs give bit-identical results for a given
/// number of locales and threads. An output element no input element reaches (a reduced
/// dimension of size 0) becomes `init`. `transform` maps the elements (one argument per
/// zipped iterand) to T; a zip needs one.
/// Communication: each locale sends each output owner one message with all its partial
/// results for that owner (none to itself), through one `exchange`, then one agreement: three
/// collective calls (plus a directory lookup when `out`'s map has no formula). An input
/// whose locales hold copies contributes, for each output owner, from that owner's copy
/// layer only. Errors: an exception from `op` or `transform` on any locale, or a failure to
/// allocate, is thrown on every locale and leaves `out` unchanged.
template <std::size_t... Reduced, class Iterand, class T, std::size_t K, class Op = std::plus<>,
          class Transform = detail::identity_transform>
  requires loop_iterand<Iterand> && reduction_op<Op, T> && reduction_transform<Transform, Iterand, T>
void partial_reduce(Iterand&& in, array<T, K>& out, T init, Op op = {}, Transform transform = {}) {
  const detail::collective_scope scope;
  static_assert(std::is_trivially_copyable_v<T>, "dmap::partial_reduce: the element type must be trivially copyable");
  using ops_type = decltype(detail::operands_of(in));
  constexpr std::size_t N = ops_type::N;
  using dims = detail::kept_dims<N, Reduced...>;
  static_assert(dims::K == K, "dmap::partial_reduce: the output's rank must be the input's rank minus the number "
                              "of reduced dimensions");
  const auto ops = detail::operands_agreed(in, "dmap::partial_reduce", [&out](const auto& checked) {
    if (!detail::state_of(out.domain()))
      throw argument_error("dmap::partial_reduce: out is a moved-from array; it has no domain or elements");
    const auto& first = std::get<0>(checked.ops);
    const rect<N> in_whole = first.whole();
    const rect<K> out_indices = out.domain().indices();
    if (dims::project(in_whole).shape() != out_indices.shape()) {
      std::ostringstream s;
      s << "dmap::partial_reduce: out has the index set " << out_indices << " but the input (" << first.describe()
        << ") projected onto the kept dimensions has the shape of " << dims::project(in_whole)
        << "; out must have that shape";
      throw shape_error(s.str());
    }
  }, detail::access::serial(out));
  const auto& lead = std::get<0>(ops.ops);
  const rect<K> out_whole = out.domain().indices();
  const int p = num_locales(), me = here();

  // 1. Each chunk folds its elements into one value per kept position of the chunk.
  std::vector<dense_rect<N>> pieces;
  std::vector<detail::work_chunk<N>> chunks;
  std::vector<std::vector<T>> chunk_values;
  std::exception_ptr failure = detail::run_positioned_loop(
      ops,
      [&](const auto& dense_pieces, const auto& cut) {
        pieces = dense_pieces;
        chunks = cut;
        chunk_values.resize(cut.size());
      },
      [&](std::size_t c, auto&& each_row) {
        const auto extents = chunks[c].orders.shape();
        std::array<index_t, K> kept_extents{};
        for (std::size_t j = 0; j < K; ++j) kept_extents[j] = extents[dims::kept[j]];
        const auto stride = detail::row_major_strides<K>(kept_extents);
        auto& values = chunk_values[c];
        values.assign(static_cast<std::size_t>(stride[0] * kept_extents[0]), init);
        each_row([&](const std::array<index_t, N>& k, index_t length, const auto&... rows) {
          // The first row reaching a kept position has every reduced coordinate at 0.
          bool first = true;
          index_t q = 0;
          for (std::size_t d = 0; d + 1 < N; ++d)
            if (dims::reduced[d] && k[d] != 0) first = false;
          for (std::size_t j = 0; j < K; ++j) q += k[dims::kept[j]] * stride[j];
          T* v = values.data() + q;
          if constexpr (dims::reduced[N - 1]) {
            bool has = !first;
            detail::reduce_row(*v, has, op, transform, length, rows...);
          } else if ((rows.contiguous() && ...)) {
            if (first)
              for (index_t e = 0; e < length; ++e) v[e] = static_cast<T>(transform(rows.unit(e)...));
            else
              for (index_t e = 0; e < length; ++e) v[e] = op(v[e], static_cast<T>(transform(rows.unit(e)...)));
          } else {
            if (first)
              for (index_t e = 0; e < length; ++e) v[e] = static_cast<T>(transform(rows.at(e)...));
            else
              for (index_t e = 0; e < length; ++e) v[e] = op(v[e], static_cast<T>(transform(rows.at(e)...)));
          }
        });
      });

  // 2. Chunks fold into bins, one per distinct projection of a piece (the pieces of one
  //    block row of BlockCyclic share one), in chunk order.
  std::vector<rect<K>> bins;
  std::vector<std::vector<T>> bin_values;
  detail::byte_buffers outgoing(static_cast<std::size_t>(p));
  const auto bin_value = [&](std::size_t b, const idx<K>& i) {
    const rect<K>& B = bins[b];
    index_t pos = 0;
    for (std::size_t j = 0; j < K; ++j)
      pos = pos * B.dim(j).size() + B.dim(j).order_of(out_whole.dim(j).order_of(i[j]));
    return bin_values[b][static_cast<std::size_t>(pos)];
  };
  const auto loc = detail::state_of(out.domain())->locate();
  const std::vector<int>* in_layers = lead.copy_layers();
  const auto takes = [&](int q) {
    return !in_layers || (*in_layers)[static_cast<std::size_t>(q)] == (*in_layers)[static_cast<std::size_t>(me)];
  };
  std::vector<index_t> orders;  // with a directory: the output orders of every bin's indices
  if (!failure) {
    try {
      std::map<std::array<index_t, 3 * K>, std::size_t> bin_index;
      std::vector<std::size_t> bin_of(pieces.size(), SIZE_MAX);
      for (std::size_t j = 0; j < pieces.size(); ++j) {
        if (pieces[j].empty()) continue;
        const rect<K> P = dims::project(pieces[j]);
        std::array<index_t, 3 * K> key{};
        for (std::size_t d = 0; d < K; ++d)
          key[3 * d] = P.dim(d).first(), key[3 * d + 1] = P.dim(d).size(), key[3 * d + 2] = P.dim(d).stride();
        const auto [at, fresh] = bin_index.try_emplace(key, bins.size());
        if (fresh) {
          bins.push_back(P);
          bin_values.emplace_back(static_cast<std::size_t>(P.size()), init);
        }
        bin_of[j] = at->second;
      }
      std::vector<std::vector<char>> has(bins.size());
      for (std::size_t b = 0; b < bins.size(); ++b) has[b].assign(bin_values[b].size(), 0);
      for (std::size_t c = 0; c < chunks.size(); ++c) {
        const std::size_t b = bin_of[chunks[c].piece];
        const rect<K>& B = bins[b];
        const rect<K> Q = dims::project(chunks[c].orders);
        detail::for_each_index<K>(Q, [&](const idx<K>& x, index_t n) {
          index_t pos = 0;
          for (std::size_t j = 0; j < K; ++j) pos = pos * B.dim(j).size() + B.dim(j).order_of(x[j]);
          T& v = bin_values[b][static_cast<std::size_t>(pos)];
          const T& w = chunk_values[c][static_cast<std::size_t>(n)];
          v = has[b][static_cast<std::size_t>(pos)] ? op(v, w) : w;
          has[b][static_cast<std::size_t>(pos)] = 1;
        });
        std::vector<T>().swap(chunk_values[c]);
      }
      // 3. Each bin's values go to the owners of its output indices, one segment per
      //    region of an owner, all segments for one owner in one message.
      if (loc.peers) {
        for (std::size_t b = 0; b < bins.size(); ++b) {
          const rect<K> R = undensify(out_whole, dense_rect<K>(bins[b]));
          for (const int q : loc.peers->meeting(R)) {
            if (!takes(q)) continue;
            std::vector<rect<K>> seen;
            for (const auto& g : loc.peers->regions(q, R)) {
              const rect<K> S = g.owned.intersect(R);
              if (S.empty() || std::find(seen.begin(), seen.end(), S) != seen.end()) continue;
              seen.push_back(S);
              detail::append_segment<T, K>(outgoing[static_cast<std::size_t>(q)], S,
                                           [&](const idx<K>& i) { return bin_value(b, i); });
            }
          }
        }
      } else {
        for (std::size_t b = 0; b < bins.size(); ++b)
          detail::for_each_index<K>(undensify(out_whole, dense_rect<K>(bins[b])),
                                    [&](const idx<K>& i, index_t) { orders.push_back(out_whole.order_of(i)); });
      }
    } catch (...) {
      failure = std::current_exception();
      for (auto& o : outgoing) o.clear();
      orders.clear();
    }
  }
  if (!loc.peers) {
    // A map without a formula: the directory names each output index's owner (collective).
    const auto where = loc.lookup(orders);
    if (!failure) {
      try {
        std::size_t n = 0;
        for (std::size_t b = 0; b < bins.size(); ++b)
          detail::for_each_index<K>(undensify(out_whole, dense_rect<K>(bins[b])), [&](const idx<K>& i, index_t) {
            const auto& l = where[n++];
            if (l.holders > 1)
              throw unsupported_error("dmap::partial_reduce: out (" + out.domain().name() +
                                      ") holds copies of some indices through its directory; use an output whose "
                                      "map keeps each index once or in copy layers");
            if (l.locale < 0 || !takes(l.locale)) return;
            rect<K> one;
            for (std::size_t j = 0; j < K; ++j) one.set_dim(j, range::counted(i[j], 1, 1));
            detail::append_segment<T, K>(outgoing[static_cast<std::size_t>(l.locale)], one,
                                         [&](const idx<K>& x) { return bin_value(b, x); });
          });
      } catch (...) {
        failure = std::current_exception();
        for (auto& o : outgoing) o.clear();
      }
    }
  }
  bins.clear();
  bin_values.clear();

  // 4. One exchange; each owner folds what it received, in locale order, into a copy of its
  //    storage, and the copy replaces the storage once every locale succeeded.
  const detail::byte_buffers incoming = p == 1 ? std::move(outgoing) : detail::exchange(std::move(outgoing));
  const auto& state = *detail::state_of(out.domain());
  T* base = out.local_data();
  std::vector<T> result;
  if (!failure) {
    try {
      result.assign(base, base + state.storage_size);
      const auto& owned = state.my_subdomains;
      const auto& layouts = state.my_layouts;
      for (std::size_t k = 0; k < owned.size(); ++k)
        detail::for_each_index<K>(owned[k], [&](const idx<K>& i, index_t) {
          result[static_cast<std::size_t>(layouts[k].offset_of(i))] = init;
        });
      for (int q = 0; q < p; ++q) {
        const auto& bytes = incoming[static_cast<std::size_t>(q)];
        std::size_t at = 0;
        std::size_t hint = 0;
        while (at < bytes.size()) {
          rect<K> S;
          for (std::size_t j = 0; j < K; ++j) {
            index_t h[3];
            std::memcpy(h, bytes.data() + at, sizeof h);
            at += sizeof h;
            S.set_dim(j, range::counted(h[0], h[1], h[2]));
          }
          if (!(hint < owned.size() && owned[hint].contains(S))) {
            hint = owned.size();
            for (std::size_t k = 0; k < owned.size(); ++k)
              if (owned[k].contains(S)) hint = k;
          }
          detail::for_each_index<K>(S, [&](const idx<K>& i, index_t) {
            T w;
            std::memcpy(&w, bytes.data() + at, sizeof(T));
            at += sizeof(T);
            const index_t offset =
                hint < owned.size() ? layouts[hint].offset_of(i) : static_cast<index_t>(&out.local(i) - base);
            T& v = result[static_cast<std::size_t>(offset)];
            v = op(v, w);
          });
        }
      }
    } catch (...) {
      failure = std::current_exception();
    }
  }
  agree(failure);
  std::copy(result.begin(), result.end(), base);
}

}  // namespace dmap
