#include "evaluate_program.h"

#include <string>

#include <dmap/runtime/errors.hpp>

namespace dmap::python::evaluation {

namespace {

/// The kernel of instruction i with the accumulator on the right when `reversed`.
kernel kernel_of(instruction i, bool reversed) {
  switch (i) {
    case instruction::add: return kernel::add;
    case instruction::multiply: return kernel::multiply;
    case instruction::subtract: return reversed ? kernel::subtract_from : kernel::subtract;
    case instruction::divide: return reversed ? kernel::divide_into : kernel::divide;
    default: return kernel::negate;
  }
}

}  // namespace

// At most one chain is open at a time: an operation on two finished values closes the open
// chain into a scratch register (a free one, if any) and opens a new one.
program checked_program(const std::vector<std::pair<int, std::size_t>>& code, std::size_t arrays,
                        std::size_t constants) {
  struct entry {  // a finished value, or the open chain's running value
    operand value;
    bool open = false;
  };
  program p;
  p.constants = constants;
  std::vector<entry> stack;
  std::vector<std::size_t> free_scratch;
  const auto release = [&](const operand& x) {
    if (x.from == source::scratch) free_scratch.push_back(x.index);
  };
  const auto close_open_chain = [&] {  // its value into a scratch register
    for (entry& e : stack) {
      if (!e.open) continue;
      std::size_t r = p.scratch;
      if (free_scratch.empty()) ++p.scratch;
      else r = free_scratch.back(), free_scratch.pop_back();
      p.chains.back().into = r;
      e = {{source::scratch, r}, false};
    }
  };
  const auto open_chain = [&](const operand& first) {
    close_open_chain();
    p.chains.push_back({first, {}, 0, false});
    release(first);
  };
  for (const auto& [op, arg] : code) {
    if (op < 0 || op > static_cast<int>(instruction::negate))
      throw argument_error("dmap._evaluate_blocks: unknown instruction " + std::to_string(op));
    const auto i = static_cast<instruction>(op);
    if (i == instruction::array || i == instruction::constant) {
      if (arg >= (i == instruction::array ? arrays : constants))
        throw argument_error("dmap._evaluate_blocks: operand " + std::to_string(arg) + " past the end");
      stack.push_back({{i == instruction::array ? source::array : source::constant, arg}, false});
      continue;
    }
    if (stack.size() < (i == instruction::negate ? 1u : 2u))
      throw argument_error("dmap._evaluate_blocks: an operation with too few operands");
    if (i == instruction::negate) {
      if (!stack.back().open) {
        const operand x = stack.back().value;
        stack.pop_back();
        open_chain(x);
        stack.push_back({{}, true});
      }
      p.chains.back().steps.push_back({kernel::negate, {source::none, 0}});
      continue;
    }
    const entry y = stack.back();
    stack.pop_back();
    const entry x = stack.back();
    stack.pop_back();
    if (x.open || y.open) {  // the open chain goes on with the other operand
      const operand other = x.open ? y.value : x.value;
      p.chains.back().steps.push_back({kernel_of(i, y.open), other});
      release(other);
    } else {
      open_chain(x.value);
      p.chains.back().steps.push_back({kernel_of(i, false), y.value});
      release(y.value);
    }
    stack.push_back({{}, true});
  }
  if (stack.size() != 1) throw argument_error("dmap._evaluate_blocks: the program does not leave one value");
  if (!stack.back().open) open_chain(stack.back().value);  // one operand: a copy
  p.chains.back().into_output = true;
  return p;
}

bool divides(const program& p) {
  for (const chain& c : p.chains)
    for (const step& s : c.steps)
      if (s.op == kernel::divide || s.op == kernel::divide_into) return true;
  return false;
}

}  // namespace dmap::python::evaluation
