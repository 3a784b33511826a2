// The runners of dmap.evaluate's programs, one per instruction set the build compiled: the
// portable one (the build's own flags) and, on x86-64 with GCC or Clang, one for AVX2, chosen
// when the processor has it. Both compute the same values (NumPy's, operation by operation);
// the wider registers only take fewer instructions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "evaluate_program.h"

namespace dmap::python::evaluation {

/// The element types the runners compute in.
enum class element_type { f64, f32, i64, i32 };

/// A block as a runner walks it: its first element and, per dimension, the extent and the
/// distance in bytes between neighbours; the last dimension contiguous.
struct strided_block {
  std::byte* first = nullptr;
  std::vector<std::ptrdiff_t> extents, strides;
  bool contiguous = false;  // C-contiguous: one row of all its elements
};

/// Runs `p` over every row of the blocks (all of the output's shape and of element type
/// `type`): operand a's elements in arrays[a], constant c at constants[c] (of the element type),
/// the result into `out`. Integer programs must not divide.
using rows_runner = void (*)(const program& p, element_type type, const std::vector<strided_block>& arrays,
                             const void* constants, const strided_block& out);

/// A runner by name: "portable", "avx2"; nullptr when this build or this processor has none of
/// that name.
rows_runner runner_named(const std::string& name);

/// The names of the runners this build and processor can use, the fastest first: the one
/// dmap.evaluate uses, unless DMAP_EVALUATE_RUNNER names another.
std::vector<std::string> runner_names();

/// The portable runner, compiled with the build's flags.
void run_rows_portable(const program& p, element_type type, const std::vector<strided_block>& arrays,
                       const void* constants, const strided_block& out);

#ifdef DMAP_EVALUATE_AVX2
/// The runner compiled for AVX2 (x86-64): to be called only where the processor has AVX2.
void run_rows_avx2(const program& p, element_type type, const std::vector<strided_block>& arrays,
                   const void* constants, const strided_block& out);
#endif

}  // namespace dmap::python::evaluation
