// The runner of dmap.evaluate's programs (evaluate_program.h): a chain runs over a row of
// elements a few registers at a time, every operation applied to accumulators that stay in the
// processor's registers, so a chain reads each operand once and writes its result once, as
// C++'s fused loop does.
//
// Included only by the runner files (evaluate_runner_portable.cpp, evaluate_runner_avx2.cpp),
// each compiled for its instruction set: everything here has internal linkage, so each gets its
// own copy compiled with its own flags, and defines its entry point (evaluate_runners.h) with
// DMAP_EVALUATE_RUN_ROWS.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "evaluate_runners.h"

namespace dmap::python::evaluation {

namespace {

/// The unsigned type of an integer type T; T itself otherwise.
template <class T>
struct unsigned_or_same {
  using type = T;
};
template <class T>
  requires std::is_integral_v<T>
struct unsigned_or_same<T> {
  using type = std::make_unsigned_t<T>;
};

/// Elements per chunk when a program has more than one chain: the chains run one after another
/// over a chunk, so a scratch register (a chunk of elements) stays in the first-level cache
/// between them. A program of one chain runs over a whole row at once.
constexpr std::size_t chunk_elements = 256;

/// The bytes of the target's widest vector register.
#if defined(__AVX512F__)
constexpr std::size_t register_bytes = 64;
#elif defined(__AVX__)
constexpr std::size_t register_bytes = 32;
#else
constexpr std::size_t register_bytes = 16;
#endif

/// One register of elements of T as a GCC vector, its arithmetic as NumPy's lane by lane:
/// integers wrap around (computed in unsigned arithmetic, where C++ defines it), floating point
/// is IEEE's, operation by operation.
template <class T>
struct lanes_of {
  using element = typename unsigned_or_same<T>::type;
  static constexpr std::size_t count = register_bytes / sizeof(T);
  typedef element vector __attribute__((vector_size(register_bytes)));
};

/// A chain's operand as the runner reads it over one stretch of elements: its elements, or a
/// constant (`elements` then points at one register of copies of it).
template <class T>
struct resolved {
  const T* elements = nullptr;
  bool constant = false;
};

/// acc = acc op x (or x op acc, by the kernel) for one element or register of them.
template <class V>
[[gnu::always_inline]] inline V applied(kernel k, V acc, V x) {
  switch (k) {
    case kernel::add: return acc + x;
    case kernel::subtract: return acc - x;
    case kernel::subtract_from: return x - acc;
    case kernel::multiply: return acc * x;
    case kernel::divide: return acc / x;
    case kernel::divide_into: return x / acc;
    default: return V{} - acc;
  }
}

/// Registers of accumulators a chain runs at once: enough to hide the dispatch of each
/// operation, few enough to leave registers for the operands (SSE2 has 16).
constexpr std::size_t accumulators = 8;

/// acc[i] = f(acc[i], i) for each accumulator, the indices constants: so the compiler keeps
/// every accumulator in a register.
template <class V, class F, std::size_t... I>
[[gnu::always_inline]] inline void for_each_accumulator(std::array<V, sizeof...(I)>& acc, F f,
                                                        std::index_sequence<I...>) {
  ((std::get<I>(acc) = f(std::get<I>(acc), I)), ...);
}

/// Runs chain `c` over elements [0, n) of its resolved operands (`first`, then one per step)
/// into `dst`: `accumulators` registers of elements at a time, every operation on them in
/// turn (one dispatch per operation for all of them), then the tail element by element.
template <class T>
void run_chain(const chain& c, const resolved<T>& first, const std::vector<resolved<T>>& xs, T* dst,
               std::size_t n) {
  using L = lanes_of<T>;
  using V = typename L::vector;
  using E = typename L::element;
  constexpr std::size_t lanes = L::count;
  constexpr auto all = std::make_index_sequence<accumulators>{};
  const std::size_t steps = c.steps.size();
  const auto load = [](const T* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  std::size_t at = 0;
  for (; at + accumulators * lanes <= n; at += accumulators * lanes) {
    std::array<V, accumulators> acc;
    if (first.constant) {
      const V value = load(first.elements);
      for_each_accumulator(acc, [&](V, std::size_t) { return value; }, all);
    } else {
      for_each_accumulator(acc, [&](V, std::size_t i) { return load(first.elements + at + i * lanes); }, all);
    }
    for (std::size_t k = 0; k < steps; ++k) {
      const resolved<T>& x = xs[k];
      const auto with = [&](auto f) {  // acc[i] = f(acc[i], x's register i): one loop for arrays, one for constants
        if (x.constant) {
          const V value = load(x.elements);
          for_each_accumulator(acc, [&](V a, std::size_t) { return f(a, value); }, all);
        } else {
          for_each_accumulator(acc, [&](V a, std::size_t i) { return f(a, load(x.elements + at + i * lanes)); }, all);
        }
      };
      switch (c.steps[k].op) {
        case kernel::add: with([](V a, V b) { return a + b; }); break;
        case kernel::subtract: with([](V a, V b) { return a - b; }); break;
        case kernel::subtract_from: with([](V a, V b) { return b - a; }); break;
        case kernel::multiply: with([](V a, V b) { return a * b; }); break;
        case kernel::divide: with([](V a, V b) { return a / b; }); break;
        case kernel::divide_into: with([](V a, V b) { return b / a; }); break;
        default: for_each_accumulator(acc, [](V a, std::size_t) { return V{} - a; }, all); break;
      }
    }
    for_each_accumulator(acc, [&](V a, std::size_t i) { std::memcpy(dst + at + i * lanes, &a, sizeof a); return a; }, all);
  }
  for (; at < n; ++at) {
    E acc, x{};
    std::memcpy(&acc, first.elements + (first.constant ? 0 : at), sizeof acc);
    for (std::size_t k = 0; k < steps; ++k) {
      if (c.steps[k].op != kernel::negate) std::memcpy(&x, xs[k].elements + (xs[k].constant ? 0 : at), sizeof x);
      acc = applied(c.steps[k].op, acc, x);
    }
    std::memcpy(dst + at, &acc, sizeof acc);
  }
}

/// Runs `p` over `count` elements: operand a's elements at arrays[a], constant c's register of
/// copies at constants[c * lanes_of<T>::count], the result into `out`. `registers` (p.scratch
/// chunks) and `xs` are its scratch space.
template <class T>
void run(const program& p, const std::vector<const T*>& arrays, const std::vector<T>& constants, T* out,
         std::size_t count, std::vector<T>& registers, std::vector<resolved<T>>& xs) {
  const std::size_t stretch = p.chains.size() == 1 ? count : chunk_elements;
  const auto at = [&](const operand& x, std::size_t start) -> resolved<T> {
    switch (x.from) {
      case source::array: return {arrays[x.index] + start, false};
      case source::constant: return {constants.data() + x.index * lanes_of<T>::count, true};
      case source::scratch: return {registers.data() + x.index * chunk_elements, false};
      default: return {nullptr, false};  // none: a negation reads nothing
    }
  };
  for (std::size_t start = 0; start < count; start += stretch) {
    const std::size_t n = std::min(stretch, count - start);
    for (const chain& c : p.chains) {
      xs.clear();
      for (const step& s : c.steps) xs.push_back(at(s.x, start));
      T* dst = c.into_output ? out + start : registers.data() + c.into * chunk_elements;
      run_chain<T>(c, at(c.first, start), xs, dst, n);
    }
  }
}

/// Runs `p` over every row of the blocks (all of one shape): operand a's elements in
/// arrays[a], constants as `run` takes them, the result into `out`.
template <class T>
void run_rows(const program& p, const std::vector<strided_block>& arrays, const std::vector<T>& constants,
              const strided_block& out) {
  std::vector<const T*> row(arrays.size());
  std::vector<T> registers(p.scratch * chunk_elements);
  std::vector<resolved<T>> xs;
  const std::size_t rank = out.extents.size();
  std::ptrdiff_t count = 1;
  for (auto e : out.extents) count *= e;
  if (count == 0) return;
  bool contiguous = out.contiguous;
  for (const auto& a : arrays) contiguous = contiguous && a.contiguous;
  if (contiguous) {  // one run of every element
    for (std::size_t k = 0; k < arrays.size(); ++k) row[k] = reinterpret_cast<const T*>(arrays[k].first);
    run<T>(p, row, constants, reinterpret_cast<T*>(out.first), static_cast<std::size_t>(count), registers, xs);
    return;
  }
  const auto length = static_cast<std::size_t>(out.extents.back());
  std::vector<std::ptrdiff_t> position(rank - 1, 0);
  while (true) {
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      std::byte* at = arrays[k].first;
      for (std::size_t d = 0; d + 1 < rank; ++d) at += position[d] * arrays[k].strides[d];
      row[k] = reinterpret_cast<const T*>(at);
    }
    std::byte* to = out.first;
    for (std::size_t d = 0; d + 1 < rank; ++d) to += position[d] * out.strides[d];
    run<T>(p, row, constants, reinterpret_cast<T*>(to), length, registers, xs);
    std::size_t d = rank - 1;  // the next row, the last outer dimension fastest
    while (d > 0 && ++position[d - 1] == out.extents[d - 1]) position[--d] = 0;
    if (d == 0) return;
  }
}

template <class T>
void run_rows_of(const program& p, const std::vector<strided_block>& arrays, const void* constants_in,
                 const strided_block& out) {
  std::vector<T> constants;  // each a register of copies
  const T* given = static_cast<const T*>(constants_in);
  for (std::size_t c = 0; c < p.constants; ++c) constants.insert(constants.end(), lanes_of<T>::count, given[c]);
  run_rows<T>(p, arrays, constants, out);
}

}  // namespace

void DMAP_EVALUATE_RUN_ROWS(const program& p, element_type type, const std::vector<strided_block>& arrays,
                            const void* constants, const strided_block& out) {
  switch (type) {
    case element_type::f64: return run_rows_of<double>(p, arrays, constants, out);
    case element_type::f32: return run_rows_of<float>(p, arrays, constants, out);
    case element_type::i64: return run_rows_of<std::int64_t>(p, arrays, constants, out);
    case element_type::i32: return run_rows_of<std::int32_t>(p, arrays, constants, out);
  }
}

}  // namespace dmap::python::evaluation
