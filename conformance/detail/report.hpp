// Local reports and their collective agreement. A local check collects its failures (the
// first message and a count) and any exception into a report, never communicating; a
// recorder then agrees on a batch of named reports in one collective and adds each to the
// result, identically on every locale, naming the locales where it failed. So an exception on
// one locale never leaves the others waiting in a collective.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "../../runtime/errors.hpp"
#include "../result.hpp"

namespace dmap::conformance::detail {

/// The failures of one local check on this locale: the first message and how many there were.
struct local_report {
  std::string first;
  long count = 0;
  void fail(const std::string& message) {
    if (count++ == 0) first = message;
  }
  bool ok() const { return count == 0; }
};

/// Runs the local (non-communicating) check `f`, turning any exception into a failure.
template <class F>
void guarded(local_report& rep, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    rep.fail(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    rep.fail("unexpected exception of unknown type");
  }
}

/// Runs `f` and describes what it threw: "" for nothing, "argument_error: ..." and so on.
template <class F>
std::string thrown_by(F&& f) {
  try {
    f();
  } catch (const dmap::argument_error& e) {
    return std::string("argument_error: ") + e.what();
  } catch (const dmap::unsupported_error& e) {
    return std::string("unsupported_error: ") + e.what();
  } catch (const dmap::error& e) {
    return std::string("another dmap::error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("std::exception: ") + e.what();
  } catch (...) {
    return "an exception of unknown type";
  }
  return {};
}

/// True when thrown_by described a dmap::argument_error.
inline bool is_argument_error(const std::string& s) { return s.rfind("argument_error: ", 0) == 0; }

/// A report holding one failure when `err` (what a collective call threw) is not empty.
inline local_report threw(const std::string& call, const std::string& err) {
  local_report r;
  if (!err.empty()) r.fail(call + " threw " + err);
  return r;
}

/// Named local reports, agreed in batches into a result: every locale adds the same names in
/// the same order; flush() adds each to the result as one run, failed when it failed on any
/// locale, with the lowest failing locale's first message prefixed by the context.
class recorder {
 public:
  static constexpr std::size_t capacity = 256;

  explicit recorder(result& out) : out_(out) {}
  recorder(const recorder&) = delete;
  recorder& operator=(const recorder&) = delete;

  /// What the failures of the following reports are about (the case, the resize step).
  void set_context(std::string context) { context_ = std::move(context); }
  const std::string& context() const noexcept { return context_; }

  /// Adds one named report; flushes when the batch is full (collective then).
  void add(std::string name, local_report rep) {
    items_.push_back({std::move(name), std::move(rep), context_});
    if (items_.size() == capacity) flush();
  }

  /// Collective. Adds the pending reports to the result; true when each passed everywhere.
  bool flush() {
    std::array<std::uint64_t, capacity / 64> mine{};
    for (std::size_t k = 0; k < items_.size(); ++k)
      if (!items_[k].rep.ok()) mine[k / 64] |= std::uint64_t{1} << (k % 64);
    const auto all = dmap::all_gather(mine);
    const auto failed_on = [&](std::size_t q, std::size_t k) { return ((all[q][k / 64] >> (k % 64)) & 1u) != 0; };
    bool any = false;
    for (std::size_t q = 0; q < all.size(); ++q)
      for (std::size_t k = 0; k < items_.size(); ++k) any = any || failed_on(q, k);
    // Only on failure: every locale learns every locale's count and first message.
    std::vector<std::vector<std::pair<long, std::string>>> texts;
    if (any) texts = share_failures();
    bool passed = true;
    for (std::size_t k = 0; k < items_.size(); ++k) {
      check_outcome run;
      run.name = items_[k].name;
      run.runs = 1;
      for (std::size_t q = 0; q < all.size(); ++q) {
        if (!failed_on(q, k)) continue;
        run.failing_locales.push_back(static_cast<int>(q));
        const auto& [count, first] = texts[q][k];
        run.failures += count;
        if (run.first_failure.empty())
          run.first_failure = (items_[k].context.empty() ? "" : items_[k].context + ": ") + "locale " +
                              std::to_string(q) + ": " + first;
      }
      run.failed_runs = run.failing_locales.empty() ? 0 : 1;
      passed = passed && run.failed_runs == 0;
      out_.record(run);
    }
    items_.clear();
    return passed;
  }

 private:
  struct item {
    std::string name;
    local_report rep;
    std::string context;
  };

  // Collective: for every locale q and item k, q's failure count and first message.
  std::vector<std::vector<std::pair<long, std::string>>> share_failures() const {
    std::vector<std::byte> bytes;
    const auto put = [&](const void* p, std::size_t n) {
      const auto* b = static_cast<const std::byte*>(p);
      bytes.insert(bytes.end(), b, b + n);
    };
    for (const auto& it : items_) {
      const std::int64_t count = it.rep.count;
      const std::uint64_t length = it.rep.first.size();
      put(&count, sizeof count);
      put(&length, sizeof length);
      put(it.rep.first.data(), it.rep.first.size());
    }
    const auto in = dmap::detail::exchange(dmap::detail::byte_buffers(static_cast<std::size_t>(num_locales()), bytes));
    std::vector<std::vector<std::pair<long, std::string>>> out(in.size());
    for (std::size_t q = 0; q < in.size(); ++q) {
      std::size_t at = 0;
      const auto get = [&](void* p, std::size_t n) {
        std::memcpy(p, in[q].data() + at, n);
        at += n;
      };
      for (std::size_t k = 0; k < items_.size(); ++k) {
        std::int64_t count = 0;
        std::uint64_t length = 0;
        get(&count, sizeof count);
        get(&length, sizeof length);
        std::string text(static_cast<std::size_t>(length), '\0');
        if (length > 0) get(text.data(), static_cast<std::size_t>(length));
        out[q].emplace_back(static_cast<long>(count), std::move(text));
      }
    }
    return out;
  }

  result& out_;
  std::vector<item> items_;
  std::string context_;
};

}  // namespace dmap::conformance::detail
