// dmap.evaluate's program: the postfix code of an element-wise expression (+ - * /, negation,
// arrays and constants) checked and grouped into chains, each one pass over the elements that
// keeps its running value in the processor's registers (see `chain`). The runners
// (evaluate_runner_impl.h) execute it; evaluate.cpp binds it to Python.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace dmap::python::evaluation {

/// One instruction of the postfix code: push an operand array, push a constant, or an
/// operation on the top of the stack.
enum class instruction : int { array = 0, constant = 1, add = 2, subtract = 3, multiply = 4, divide = 5, negate = 6 };

/// Where a chain's operand comes from; `none` for negation, which takes no other operand.
enum class source : unsigned char { array, constant, scratch, none };

/// A chain's operand: an operand array, a constant or a scratch register, by index.
struct operand {
  source from = source::array;
  std::size_t index = 0;
};

/// A chain's operation: accumulator = accumulator op x, or x op accumulator (subtract_from,
/// divide_into); negate ignores x.
enum class kernel : unsigned char { add, subtract, subtract_from, multiply, divide, divide_into, negate };

/// One operation of a chain and its other operand.
struct step {
  kernel op = kernel::add;
  operand x;
};

/// A chain: its first operand, its operations in order, and where its result goes (scratch
/// register `into`, or the output when `into_output`). A chain starts from one operand and
/// applies one operation after another to its running value (its accumulator), each with one
/// more operand, so it is one pass over the elements that reads each operand once.
/// `0.25 * (a + b + c + d)` is one chain, and so is `b + 0.5 * t` (0.5 * t, then b + that).
/// Only an operation whose two operands are both results of other operations, as in
/// (a + b) * (c + d), needs a second chain, whose input is the first chain's result kept in a
/// chunk-sized scratch register.
struct chain {
  operand first;
  std::vector<step> steps;
  std::size_t into = 0;
  bool into_output = false;
};

/// A checked program: its chains in the order they run, the scratch registers they use, and
/// the number of constants it reads.
struct program {
  std::vector<chain> chains;
  std::size_t scratch = 0;
  std::size_t constants = 0;
};

/// The chains of the postfix `code` ((instruction, operand index) pairs) over `arrays` operand
/// arrays and `constants` constants; argument_error when an instruction is unknown, an operand
/// past the end, an operation short of operands, or more or less than one value is left.
program checked_program(const std::vector<std::pair<int, std::size_t>>& code, std::size_t arrays,
                        std::size_t constants);

/// True when the program divides (which integer blocks refuse: NumPy's / of integers gives floats).
bool divides(const program& p);

}  // namespace dmap::python::evaluation
