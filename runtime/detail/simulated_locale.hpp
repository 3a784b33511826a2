// Simulated locales: one locale of a machine that is not running, for the scale model.
#pragma once

namespace dmap::detail {

/// A locale of a machine that is not running: while one is set on a thread, here() and
/// num_locales() answer for it there (the scale model computes one locale's plans for any
/// locale count without the other processes; see algorithms/plan_model.hpp).
struct simulated_locale {
  int locale = 0;
  int locales = 1;
};
inline thread_local const simulated_locale* simulated = nullptr;

/// Sets `s` as this thread's simulated locale until destroyed (then the previous one again).
class simulating {
 public:
  explicit simulating(const simulated_locale& s) : previous_(simulated), mine_(s) { simulated = &mine_; }
  ~simulating() { simulated = previous_; }
  simulating(const simulating&) = delete;
  simulating& operator=(const simulating&) = delete;

 private:
  const simulated_locale* previous_;
  simulated_locale mine_;
};

}  // namespace dmap::detail
