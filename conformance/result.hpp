// The verdict of a conformance run: named checks, how often each ran, and for a failed one the
// first failure, a count and the locales it failed on. Every locale holds the same result.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dmap::conformance {

/// One named check of a conformance run: how often it ran and, when it failed, where and how.
struct check_outcome {
  std::string name;                  ///< what is checked, numbered as in conformance.hpp's list
  long runs = 0;                     ///< how many times it ran (once per index set it applies to)
  long failed_runs = 0;              ///< the runs in which it failed on at least one locale
  long failures = 0;                 ///< the failures counted over every run and every locale
  std::vector<int> failing_locales{};  ///< the locales on which it failed at least once, ascending
  std::string first_failure{};         ///< the first failure: the case, the locale and the message

  /// True when the check never failed.
  bool ok() const noexcept { return failed_runs == 0; }
};

/// The outcome of the checks of one conformance run, in the order they first ran. The kit
/// agrees on every check collectively, so every locale holds the same result.
class result {
 public:
  /// An empty result about `subject` (the name given to dmap::conformance::check).
  explicit result(std::string subject = {}) : subject_(std::move(subject)) {}

  /// What was checked: the name given to dmap::conformance::check.
  const std::string& subject() const noexcept { return subject_; }
  /// Every check, in the order each first ran.
  const std::vector<check_outcome>& checks() const noexcept { return checks_; }
  /// How many index sets (random cases, the large case) were checked.
  long cases() const noexcept { return cases_; }
  /// True when every check passed (on every locale).
  bool ok() const noexcept {
    return std::all_of(checks_.begin(), checks_.end(), [](const check_outcome& c) { return c.ok(); });
  }
  /// The check named `name`, or nullptr when no check of that name ran.
  const check_outcome* find(std::string_view name) const noexcept {
    for (const auto& c : checks_)
      if (c.name == name) return &c;
    return nullptr;
  }
  /// True when a check named `name` ran and failed.
  bool failed(std::string_view name) const noexcept {
    const check_outcome* c = find(name);
    return c != nullptr && !c->ok();
  }
  /// The names of the failed checks, in order.
  std::vector<std::string> failed_checks() const {
    std::vector<std::string> out;
    for (const auto& c : checks_)
      if (!c.ok()) out.push_back(c.name);
    return out;
  }

  /// Adds the runs of `outcome` to the check of the same name (a new check when none has it).
  /// Not collective: every locale must record the same outcomes to keep one verdict.
  void record(const check_outcome& outcome) {
    check_outcome* c = nullptr;
    for (auto& existing : checks_)
      if (existing.name == outcome.name) c = &existing;
    if (c == nullptr) {
      check_outcome fresh;
      fresh.name = outcome.name;
      checks_.push_back(std::move(fresh));
      c = &checks_.back();
    }
    c->runs += outcome.runs;
    c->failed_runs += outcome.failed_runs;
    c->failures += outcome.failures;
    if (c->first_failure.empty()) c->first_failure = outcome.first_failure;
    std::vector<int> locales;
    std::set_union(c->failing_locales.begin(), c->failing_locales.end(), outcome.failing_locales.begin(),
                   outcome.failing_locales.end(), std::back_inserter(locales));
    c->failing_locales = std::move(locales);
  }
  /// Counts one more checked index set.
  void count_case() noexcept { ++cases_; }

  /// Adds every check and case of `other` (another run, such as another dimension count).
  result& operator+=(const result& other) {
    for (const auto& c : other.checks_) record(c);
    cases_ += other.cases_;
    return *this;
  }

  /// Writes a summary line, then one line per check ("ok" or "FAILED" with where and how).
  friend std::ostream& operator<<(std::ostream& os, const result& r) {
    const auto failed = r.failed_checks();
    os << "conformance of " << r.subject_ << ": " << (failed.empty() ? "passed" : "FAILED") << ", "
       << r.checks_.size() << " checks over " << r.cases_ << " index sets";
    if (!failed.empty()) os << ", " << failed.size() << " failed";
    os << "\n";
    for (const auto& c : r.checks_) {
      os << (c.ok() ? "  ok      " : "  FAILED  ") << c.name << " (" << c.runs << (c.runs == 1 ? " run" : " runs");
      if (!c.ok()) {
        os << ", failed in " << c.failed_runs << ", " << c.failures << (c.failures == 1 ? " failure" : " failures")
           << ", on locale(s) ";
        for (std::size_t k = 0; k < c.failing_locales.size(); ++k) os << (k ? ", " : "") << c.failing_locales[k];
        os << ")\n          first: " << c.first_failure << "\n";
      } else {
        os << ")\n";
      }
    }
    return os;
  }

 private:
  std::string subject_;
  std::vector<check_outcome> checks_;
  long cases_ = 0;
};

}  // namespace dmap::conformance
