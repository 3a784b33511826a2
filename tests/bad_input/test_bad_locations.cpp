// Bad inputs to the __partitioned__ draft's locations (interop/process_locations.hpp): (IP, PID)
// pairs whose IP is a malformed address (IPv4 or IPv6 text), empty or holding a NUL, that
// name no locale or several, and tables that do not cover a description's locations. Every
// locale gets the same input and must throw the named error; nothing is collective here
// except the table (process_locations) made once.
#include "support.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace test_bad_locations {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::index_t;

TEST_CASE("bad input: malformed IP addresses in __partitioned__ locations", "[bad_input][partitioned]") {
  const std::vector<std::pair<std::string, std::string>> malformed = {
      {"1.2.3.256", "IPv4: a part above 255"},
      {"256.0.0.1", "IPv4: the first part above 255"},
      {"1.2.3", "IPv4: three parts"},
      {"1.2.3.4.5", "IPv4: five parts"},
      {"01.2.3.4", "IPv4: a leading zero"},
      {"1..2.3", "IPv4: an empty part"},
      {"1.2.3.", "IPv4: a trailing dot"},
      {".1.2.3", "IPv4: a leading dot"},
      {"4294967297.1.1.1", "IPv4: a part past 32 bits"},
      {std::string(60000, '1') + ".1.1.1", "IPv4: a part of 60000 digits"},
      {"::g", "IPv6: a group that is not hex"},
      {"1::2::3", "IPv6: two '::'"},
      {":::", "IPv6: three colons"},
      {"12345::1", "IPv6: a group of five digits"},
      {"1:2:3:4:5:6:7:8:9", "IPv6: nine groups"},
      {"1:2:3:4:5:6:7", "IPv6: seven groups without '::'"},
      {"::1.2.3.256", "IPv6: an embedded IPv4 part above 255"},
      {"[::1]", "IPv6: in brackets"},
      {"127.0.0.1:80", "IPv4 with a port"},
      {"fe80::1%", "IPv6: an empty zone"},
      {std::string("127.0.0.1\0x", 11), "a NUL inside"},
      {std::string(":\xff", 2), "IPv6: a byte above ASCII"},
  };
  for (const auto& [text, what] : malformed) {
    BAD_INPUT("canonical_ip_address: " + what, dmap::argument_error, dmap::canonical_ip_address(text));
  }
  const auto table = dmap::process_locations();  // collective, once
  const auto pid = table[static_cast<std::size_t>(dmap::here())].pid;
  for (const auto& [text, what] : malformed) {
    BAD_INPUT("locale_of_location: " + what, dmap::argument_error, dmap::locale_of_location(table, text, pid));
  }
}

TEST_CASE("bad input: __partitioned__ locations that name no locale, or several", "[bad_input][partitioned]") {
  const auto table = dmap::process_locations();  // collective, once
  const auto& me = table[static_cast<std::size_t>(dmap::here())];
  BAD_INPUT("locale_of_location: an empty IP", dmap::argument_error, dmap::locale_of_location(table, "", me.pid));
  BAD_INPUT("locale_of_location: this host's address, a PID no locale has", dmap::argument_error,
            dmap::locale_of_location(table, me.address(), -1));
  BAD_INPUT("locale_of_location: this host's name, a PID no locale has", dmap::argument_error,
            dmap::locale_of_location(table, me.host, std::int64_t{1} << 62));
  BAD_INPUT("locale_of_location: a documentation IPv4 address (no host)", dmap::argument_error,
            dmap::locale_of_location(table, "203.0.113.77", me.pid));
  BAD_INPUT("locale_of_location: a documentation IPv6 address (no host)", dmap::argument_error,
            dmap::locale_of_location(table, "2001:db8::77", me.pid));
  BAD_INPUT("locale_of_location: a host name no locale runs on", dmap::argument_error,
            dmap::locale_of_location(table, "no-such-host.invalid", me.pid));
  BAD_INPUT("locale_of_location: a host name with a space", dmap::argument_error,
            dmap::locale_of_location(table, " " + me.host, me.pid));
  BAD_INPUT("locale_of_location: an empty table", dmap::argument_error,
            dmap::locale_of_location(std::vector<dmap::process_location>{}, "127.0.0.1", me.pid));
  // Two hosts that share an address (loopback) and, by chance, a PID: the address names both.
  const std::vector<dmap::process_location> twins = {{"node-a", {"192.0.2.10", "127.0.0.1"}, 4242},
                                                     {"node-b", {"192.0.2.11", "127.0.0.1"}, 4242}};
  CHECK(dmap::locale_of_location(twins, "192.0.2.11", 4242) == 1);
  CHECK(dmap::locale_of_location(twins, "node-a", 4242) == 0);
  BAD_INPUT("locale_of_location: a loopback address, with one PID on two hosts", dmap::argument_error,
            dmap::locale_of_location(twins, "::ffff:127.0.0.1", 4242));
  BAD_INPUT("locale_of_location: an unlisted loopback address (127.0.1.1), with one PID on two hosts",
            dmap::argument_error, dmap::locale_of_location(twins, "127.0.1.1", 4242));
  const std::vector<dmap::process_location> shared = {{"node-a", {"10.0.0.1"}, 7}, {"node-b", {"10.0.0.1"}, 7}};
  BAD_INPUT("locale_of_location: an address two locales' hosts share, with one PID on each", dmap::argument_error,
            dmap::locale_of_location(shared, "10.0.0.1", 7));
  // to_json with the draft's locations: a table that does not hold a partition's locale.
  dmap::domain<1> D(dmap::block<1>{}, dmap::rect<1>{dmap::range(0, 4 * dmap::num_locales())});
  dmap::array<double, 1> A(D, 1.0);
  const auto P = dmap::partitioned_export(A);
  BAD_INPUT("to_json(partitioned, locations): an empty table", dmap::argument_error,
            dmap::to_json(P, std::vector<dmap::process_location>{}));
  BAD_INPUT("to_json(partitioned, locations): a table one locale short", dmap::argument_error,
            dmap::to_json(P, std::vector<dmap::process_location>(table.begin(), table.end() - 1)));
}

}  // namespace test_bad_locations
