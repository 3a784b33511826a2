// The runtime layer: environment, collectives, exchange() with its communication counters,
// and error agreement (an exception on one locale reaches all of them with its message).
#include "../support.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <vector>

namespace test_runtime {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

/// The size of the payload locale `from` sends to locale `to` in the exchange test; zero
/// for several pairs (including some to oneself and some to others).
std::size_t payload_size(int from, int to) {
  return static_cast<std::size_t>(((from + 2 * to) % 4) * (from + to + 1));
}
/// Byte k of that payload.
std::byte payload_byte(int from, int to, std::size_t k) {
  return static_cast<std::byte>((from * 31 + to * 17 + static_cast<int>(k) * 7 + 3) & 0xff);
}

/// What one locale saw of an exception thrown inside a collective.
struct caught {
  bool thrown = false;
  std::string what;
  bool is_dmap_error = false;
  bool is_argument_error = false;
  bool is_remote_argument = false;
  bool is_remote_generic = false;
  bool is_remote_shape = false;
  bool is_std_runtime_error_only = false;  // a plain std::runtime_error, not a dmap::error
  int origin = -1;
  std::type_index type = typeid(void);  // the exception's dynamic type
};

template <class F>
caught catch_agreed(F&& f) {
  caught c;
  try {
    dmap::agreed(f);
  } catch (const std::exception& e) {
    c.thrown = true;
    c.what = e.what();
    c.type = typeid(e);
    c.is_dmap_error = dynamic_cast<const dmap::error*>(&e) != nullptr;
    c.is_argument_error = dynamic_cast<const dmap::argument_error*>(&e) != nullptr;
    if (const auto* r = dynamic_cast<const dmap::remote_failure<dmap::argument_error>*>(&e)) {
      c.is_remote_argument = true;
      c.origin = r->origin();
    }
    if (const auto* r = dynamic_cast<const dmap::remote_failure<dmap::error>*>(&e)) {
      c.is_remote_generic = true;
      c.origin = r->origin();
    }
    if (const auto* r = dynamic_cast<const dmap::remote_failure<dmap::shape_error>*>(&e)) {
      c.is_remote_shape = true;
      c.origin = r->origin();
    }
    c.is_std_runtime_error_only =
        typeid(e) == typeid(std::runtime_error) && !c.is_dmap_error;
  }
  return c;
}

}  // namespace

TEST_CASE("environment basics", "[runtime]") {
  const int p = dmap::num_locales();
  const int me = dmap::here();
  DMAP_CHECK_ALL(p >= 1);
  DMAP_CHECK_ALL(me >= 0 && me < p);
  DMAP_CHECK_ALL(dmap::num_threads() >= 1);
  // Locale ids are distinct and cover [0, P).
  const auto ids = dmap::all_gather(me);
  bool dense = static_cast<int>(ids.size()) == p;
  for (int q = 0; dense && q < p; ++q) dense = ids[static_cast<std::size_t>(q)] == q;
  DMAP_CHECK_ALL(dense);
  // Everyone agrees on the locale count.
  DMAP_CHECK_ALL(dmap::all_reduce_min(p) == p && dmap::all_reduce_max(p) == p);
}

TEST_CASE("collectives: reductions, all_gather, broadcast", "[runtime]") {
  const int p = dmap::num_locales();
  const int me = dmap::here();

  DMAP_CHECK_ALL(dmap::all_reduce_sum(me + 1) == p * (p + 1) / 2);
  DMAP_CHECK_ALL(dmap::all_reduce_min(10 - me) == 10 - (p - 1));
  DMAP_CHECK_ALL(dmap::all_reduce_max(10 - me) == 10);
  DMAP_CHECK_ALL(dmap::all_reduce_sum(0.5 * me) == 0.25 * p * (p - 1));
  DMAP_CHECK_ALL(dmap::all_reduce_min(-1.5 * me) == -1.5 * (p - 1));
  DMAP_CHECK_ALL(dmap::all_reduce_max(static_cast<long long>(me) << 40) ==
                 static_cast<long long>(p - 1) << 40);
  DMAP_CHECK_ALL(dmap::all_reduce_sum(std::uint64_t{1} << 33) == (std::uint64_t{1} << 33) * p);
  DMAP_CHECK_ALL(dmap::all_of_locales(true));
  DMAP_CHECK_ALL(!dmap::all_of_locales(me != p - 1));
  DMAP_CHECK_ALL(dmap::any_of_locales(me == p - 1));
  DMAP_CHECK_ALL(!dmap::any_of_locales(false));

  struct pair_t {
    int rank;
    double half;
  };
  const auto all = dmap::all_gather(pair_t{me, me / 2.0});
  bool gathered = static_cast<int>(all.size()) == p;
  for (int q = 0; gathered && q < p; ++q)
    gathered = all[static_cast<std::size_t>(q)].rank == q &&
               all[static_cast<std::size_t>(q)].half == q / 2.0;
  DMAP_CHECK_ALL(gathered);

  // A value from the last locale.
  long value = me == p - 1 ? 4242L + p : -1L;
  dmap::broadcast(value, p - 1);
  DMAP_CHECK_ALL(value == 4242L + p);

  // A string from the last locale; the others start with longer, shorter or empty text.
  std::string text = me == p - 1 ? "from the last locale, " + std::to_string(p - 1)
                                 : std::string(static_cast<std::size_t>(me) * 40, 'x');
  dmap::broadcast(text, p - 1);
  DMAP_CHECK_ALL(text == "from the last locale, " + std::to_string(p - 1));
  // An empty string travels as well.
  std::string none = me == 0 ? std::string() : std::string("not empty");
  dmap::broadcast(none, 0);
  DMAP_CHECK_ALL(none.empty());
}

TEST_CASE("exchange delivers payloads and counts them", "[runtime]") {
  const int p = dmap::num_locales();
  const int me = dmap::here();
  dmap::detail::byte_buffers out(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) {
    auto& b = out[static_cast<std::size_t>(q)];
    b.resize(payload_size(me, q));
    for (std::size_t k = 0; k < b.size(); ++k) b[k] = payload_byte(me, q, k);
  }
  std::uint64_t expect_msgs_sent = 0, expect_bytes_sent = 0, expect_msgs_recv = 0,
                expect_bytes_recv = 0;
  for (int q = 0; q < p; ++q) {
    if (q == me) continue;
    if (payload_size(me, q) > 0) ++expect_msgs_sent, expect_bytes_sent += payload_size(me, q);
    if (payload_size(q, me) > 0) ++expect_msgs_recv, expect_bytes_recv += payload_size(q, me);
  }

  dmap::reset_counters();
  DMAP_CHECK_ALL(dmap::counters() == dmap::comm_counters{});
  const auto in = dmap::detail::exchange(out);
  const auto c = dmap::counters();

  bool contents = static_cast<int>(in.size()) == p;
  std::string bad;
  for (int q = 0; contents && q < p; ++q) {
    const auto& b = in[static_cast<std::size_t>(q)];
    if (b.size() != payload_size(q, me)) {
      contents = false;
      bad = "from " + std::to_string(q) + ": size " + std::to_string(b.size());
      break;
    }
    for (std::size_t k = 0; k < b.size(); ++k)
      if (b[k] != payload_byte(q, me, k)) {
        contents = false;
        bad = "from " + std::to_string(q) + ": byte " + std::to_string(k);
        break;
      }
  }
  INFO("first bad payload: " << bad);
  DMAP_CHECK_ALL(contents);
  INFO("sent " << c.messages_sent << " msgs / " << c.bytes_sent << " bytes, received "
               << c.messages_received << " msgs / " << c.bytes_received << " bytes; expected "
               << expect_msgs_sent << "/" << expect_bytes_sent << " and " << expect_msgs_recv
               << "/" << expect_bytes_recv);
  DMAP_CHECK_ALL(c.messages_sent == expect_msgs_sent);
  DMAP_CHECK_ALL(c.bytes_sent == expect_bytes_sent);
  DMAP_CHECK_ALL(c.messages_received == expect_msgs_recv);
  DMAP_CHECK_ALL(c.bytes_received == expect_bytes_recv);
  DMAP_CHECK_ALL(c.collectives >= 1);

  // The counters are resettable.
  dmap::reset_counters();
  DMAP_CHECK_ALL(dmap::counters() == dmap::comm_counters{});

  // All-empty exchange: nothing travels, nothing is counted but the size agreement.
  const auto empty = dmap::detail::exchange(dmap::detail::byte_buffers(static_cast<std::size_t>(p)));
  const auto c2 = dmap::counters();
  bool all_empty = static_cast<int>(empty.size()) == p;
  for (const auto& b : empty) all_empty = all_empty && b.empty();
  DMAP_CHECK_ALL(all_empty);
  DMAP_CHECK_ALL(c2.messages_sent == 0 && c2.bytes_sent == 0 && c2.messages_received == 0 &&
                 c2.bytes_received == 0);

  // The wrong number of buffers is an argument error (raised before any communication,
  // on every locale alike).
  CHECK_THROWS_AS(dmap::detail::exchange(dmap::detail::byte_buffers(static_cast<std::size_t>(p) + 1)),
                  dmap::argument_error);
  CHECK_THROWS_WITH(dmap::detail::exchange(dmap::detail::byte_buffers(static_cast<std::size_t>(p) + 1)),
                    Catch::Contains("outgoing") && Catch::Contains("one per locale"));
  DMAP_CHECK_ALL(dmap::all_reduce_sum(1) == p);
}

TEST_CASE("error agreement: a dmap error on one locale reaches every locale", "[runtime]") {
  const int p = dmap::num_locales();
  const int me = dmap::here();
  const caught c = catch_agreed([&] {
    if (dmap::here() == p - 1) throw dmap::argument_error("bad value 7: must be even");
  });
  INFO("what() = '" << c.what << "', origin " << c.origin);
  DMAP_CHECK_ALL(c.thrown);
  DMAP_CHECK_ALL(c.what == "bad value 7: must be even");
  DMAP_CHECK_ALL(c.is_argument_error);  // catchable as dmap::argument_error everywhere
  // The raising locale sees its own exception, not a remote_failure; the others see a
  // remote_failure<argument_error> naming the raising locale.
  DMAP_CHECK_ALL(me == p - 1 ? !c.is_remote_argument && c.origin == -1
                             : c.is_remote_argument && c.origin == p - 1);
  DMAP_CHECK_ALL(c.type == (me == p - 1 ? std::type_index(typeid(dmap::argument_error))
                                        : std::type_index(typeid(
                                              dmap::remote_failure<dmap::argument_error>))));
  // Still catchable as dmap::argument_error through the ordinary path.
  CHECK_THROWS_AS(dmap::agreed([&] {
                    if (dmap::here() == p - 1) throw dmap::argument_error("again");
                  }),
                  dmap::argument_error);
  // And the communicator is healthy afterwards.
  DMAP_CHECK_ALL(dmap::all_reduce_sum(2) == 2 * p);
}

TEST_CASE("error agreement: a std::runtime_error arrives as dmap::error", "[runtime]") {
  const int p = dmap::num_locales();
  const int me = dmap::here();
  const int raiser = p / 2;
  const caught c = catch_agreed([&] {
    if (dmap::here() == raiser) throw std::runtime_error("disk on fire");
  });
  INFO("what() = '" << c.what << "', origin " << c.origin);
  DMAP_CHECK_ALL(c.thrown && c.what == "disk on fire");
  // The raising locale sees the original std::runtime_error; the others a dmap::error
  // (remote_failure<dmap::error>) naming the raising locale.
  DMAP_CHECK_ALL(me == raiser ? c.is_std_runtime_error_only
                              : c.is_dmap_error && c.is_remote_generic && c.origin == raiser &&
                                    !c.is_argument_error);
  DMAP_CHECK_ALL(c.type == (me == raiser ? std::type_index(typeid(std::runtime_error))
                                         : std::type_index(typeid(
                                               dmap::remote_failure<dmap::error>))));
}

TEST_CASE("error agreement: the lowest failing locale wins; success returns the value",
          "[runtime]") {
  const int p = dmap::num_locales();
  const int me = dmap::here();
  // Every odd locale fails with its own message; with one locale nothing fails.
  const caught c = catch_agreed([&] {
    if (dmap::here() % 2 == 1) throw dmap::shape_error("odd " + std::to_string(dmap::here()));
  });
  INFO("what() = '" << c.what << "', origin " << c.origin);
  // Locale 3 raised its own error too, but receives locale 1's (a remote_failure).
  DMAP_CHECK_ALL(p == 1 ? !c.thrown
                        : c.thrown && c.what == "odd 1" && c.is_dmap_error &&
                              (me == 1 ? !c.is_remote_shape && c.origin == -1
                                       : c.is_remote_shape && c.origin == 1));
  bool remote_shape = false;
  int origin = -2;
  try {
    dmap::agreed([&] {
      if (dmap::here() == p - 1) throw dmap::shape_error("shapes differ");
    });
  } catch (const dmap::remote_failure<dmap::shape_error>& e) {
    remote_shape = true;
    origin = e.origin();
  } catch (const dmap::shape_error&) {
  }
  DMAP_CHECK_ALL(remote_shape == (me != p - 1));
  DMAP_CHECK_ALL(me == p - 1 || origin == p - 1);

  // Without failure, agreed returns the local part's value.
  const int v = dmap::agreed([&] { return 3 * dmap::here(); });
  DMAP_CHECK_ALL(v == 3 * me);
}

TEST_CASE("an exception in a forall body on one locale reaches every locale", "[runtime]") {
  const int p = dmap::num_locales();
  const dmap::domain<1> D{dmap::block<1>{}, dmap::rect<1>{{0, 100}}};
  const dmap::idx<1> last{99};
  const bool mine = D.locale_of(last) == dmap::here();
  DMAP_REQUIRE_ALL(D.locale_of(last) == p - 1);

  int seen_last = 0;
  CHECK_THROWS_WITH(dmap::forall(D,
                                 [&](dmap::idx<1> i) {
                                   if (i[0] == 99) {
                                     ++seen_last;
                                     throw dmap::argument_error("index 99 is rejected");
                                   }
                                 }),
                    "index 99 is rejected");
  DMAP_CHECK_ALL(seen_last == (mine ? 1 : 0));

  // The type survives: catchable as dmap::argument_error on every locale.
  CHECK_THROWS_AS(dmap::forall(D,
                               [&](dmap::idx<1> i) {
                                 if (i[0] == 99) throw dmap::argument_error("again");
                               }),
                  dmap::argument_error);
  // A non-dmap exception on one locale arrives as dmap::error elsewhere.
  CHECK_THROWS_AS(dmap::forall(D,
                               [&](dmap::idx<1> i) {
                                 if (i[0] == 0) throw std::runtime_error("first index");
                               }),
                  std::runtime_error);

  // Collectives and loops still work afterwards.
  DMAP_CHECK_ALL(dmap::all_reduce_sum(dmap::here()) == p * (p - 1) / 2);
  dmap::array<long, 1> A{D};
  dmap::forall(D, [&](dmap::idx<1> i) { A.local(i) = i[0]; });
  long local_sum = 0;
  for (const auto& r : D.local_subdomains())
    for (dmap::index_t i = r.dim(0).lo(); i < r.dim(0).hi(); ++i) local_sum += A.local({i});
  DMAP_CHECK_ALL(dmap::all_reduce_sum(local_sum) == 99L * 100 / 2);
}

}  // namespace test_runtime
