// dmap._dmap._evaluate_blocks: the compiled pass of dmap.evaluate. The postfix program is
// checked and grouped into chains (evaluate_program.h), each block checked and handed to the
// fastest runner the processor can use (evaluate_runners.h), without the interpreter lock.
#include "evaluate.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "evaluate_program.h"
#include "evaluate_runners.h"

namespace dmap::python {

namespace {

using namespace evaluation;

/// `a` checked: of element type T, of the output's `shape` (empty: `a` gives it), its last
/// dimension contiguous.
template <class T>
strided_block strided_block_of(const py::array& a, const std::vector<std::ptrdiff_t>& shape, const char* what) {
  const auto fail = [&] {
    throw argument_error(std::string("dmap._evaluate_blocks: ") + what +
                         " is not a block of the output's dtype and shape with contiguous rows");
  };
  if (!py::isinstance<py::array_t<T>>(a) || a.ndim() == 0) fail();
  strided_block b;
  b.first = static_cast<std::byte*>(const_cast<void*>(a.data()));
  for (py::ssize_t d = 0; d < a.ndim(); ++d) b.extents.push_back(a.shape(d)), b.strides.push_back(a.strides(d));
  if (!shape.empty() && b.extents != shape) fail();
  if (b.extents.back() > 1 && b.strides.back() != static_cast<py::ssize_t>(sizeof(T))) fail();
  b.contiguous = (a.flags() & py::array::c_style) != 0;
  return b;
}

/// The runner called `name`, or by default the one DMAP_EVALUATE_RUNNER names, else the fastest;
/// argument_error for a name this build or processor has no runner of.
rows_runner chosen_runner(const std::optional<std::string>& name) {
  static const char* from_environment = std::getenv("DMAP_EVALUATE_RUNNER");
  std::string wanted = name ? *name : from_environment ? from_environment : "";
  if (wanted.empty()) wanted = runner_names().front();
  if (const rows_runner r = runner_named(wanted)) return r;
  std::string known;
  for (const auto& n : runner_names()) known += (known.empty() ? "" : ", ") + n;
  throw argument_error("dmap._evaluate_blocks: runner is '" + wanted + "' (" +
                       (name ? "the runner argument" : "DMAP_EVALUATE_RUNNER") + "); this build and processor have " +
                       known);
}

template <class T>
void evaluate_blocks(const program& p, element_type type, rows_runner runner, const std::vector<py::object>& constants_in,
                     const std::vector<std::vector<py::array>>& operands, const std::vector<py::array>& outputs) {
  if (std::is_integral_v<T> && divides(p))  // NumPy's / of integers gives floats: never fused
    throw argument_error("dmap._evaluate_blocks: / on integer blocks");
  std::vector<T> constants;
  for (const auto& c : constants_in) constants.push_back(c.cast<T>());
  for (std::size_t b = 0; b < outputs.size(); ++b) {
    if (!outputs[b].writeable()) throw argument_error("dmap._evaluate_blocks: an output block is read-only");
    const strided_block out = strided_block_of<T>(outputs[b], {}, "an output block");
    std::vector<strided_block> arrays;
    for (const auto& blocks : operands) {
      if (blocks.size() != outputs.size())
        throw argument_error("dmap._evaluate_blocks: an operand has another number of blocks than the output");
      arrays.push_back(strided_block_of<T>(blocks[b], out.extents, "an operand block"));
    }
    py::gil_scoped_release unlocked;
    runner(p, type, arrays, constants.data(), out);
  }
}

}  // namespace

void register_evaluate(py::module_& m) {
  m.def(
      "_evaluate_blocks",
      [](const std::vector<std::pair<int, std::size_t>>& code, const std::vector<py::object>& constants,
         const std::vector<std::vector<py::array>>& operands, const std::vector<py::array>& outputs,
         const std::optional<std::string>& runner) {
        const program p = checked_program(code, operands.size(), constants.size());
        const rows_runner run = chosen_runner(runner);
        if (outputs.empty()) return;
        const py::dtype kind = outputs.front().dtype();
        if (kind.is(py::dtype::of<double>()))
          evaluate_blocks<double>(p, element_type::f64, run, constants, operands, outputs);
        else if (kind.is(py::dtype::of<float>()))
          evaluate_blocks<float>(p, element_type::f32, run, constants, operands, outputs);
        else if (kind.is(py::dtype::of<std::int64_t>()))
          evaluate_blocks<std::int64_t>(p, element_type::i64, run, constants, operands, outputs);
        else if (kind.is(py::dtype::of<std::int32_t>()))
          evaluate_blocks<std::int32_t>(p, element_type::i32, run, constants, operands, outputs);
        else
          throw argument_error("dmap._evaluate_blocks: blocks of dtype " + kind.attr("name").cast<std::string>() +
                               " are evaluated by NumPy, not here");
      },
      py::arg("code"), py::arg("constants"), py::arg("operands"), py::arg("outputs"), py::arg("runner") = py::none(),
      "Not collective: runs an element-wise postfix program (dmap.evaluate's) over this locale's "
      "blocks in one pass; the k-th block of every operand has the shape and dtype of the k-th "
      "output block, and contiguous rows. runner: a name from _evaluate_runners() (default: "
      "DMAP_EVALUATE_RUNNER, else the first).");
  m.def("_evaluate_runners", &runner_names,
        "Not collective: the names of the runners dmap.evaluate can use on this processor, the "
        "fastest (the default) first.");
}

}  // namespace dmap::python
