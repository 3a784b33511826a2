// Where a locale lives, as the __partitioned__ draft names it: `location` entries are
// (IP, PID[, device]) tuples, "IP: a string identifying the address of the node in the
// network". dmap writes the address of the locale's host (its preferred interface address)
// and reads an address in either textual form (IPv4 dotted quad, IPv6 as RFC 4291 writes it,
// an IPv6 zone allowed) or a host name, matched to the one locale whose host has that address
// (or name; any loopback address names every host's own) and whose process id is PID. Used by
// the Python protocols (interop/python/protocols.cpp) and by dmap::to_json of a partitioned
// description.
#pragma once

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../runtime/collectives.hpp"
#include "../runtime/environment.hpp"
#include "../runtime/errors.hpp"
#include "detail/process_locations.hpp"

namespace dmap {

/// One locale's location: the host it runs on (its name and IP addresses) and its process id.
struct process_location {
  std::string host;                    ///< the host name (gethostname)
  std::vector<std::string> addresses;  ///< the host's interface addresses, canonical text, preferred first
  std::int64_t pid = 0;                ///< the process id

  /// The draft's IP as dmap writes it: the preferred address (a global IPv4 address, else a
  /// global IPv6 one, else a link-local one, else loopback); the host name when the host
  /// reports no address.
  const std::string& address() const noexcept { return addresses.empty() ? host : addresses.front(); }

  friend bool operator==(const process_location&, const process_location&) = default;
};

/// The textual IP address `text` in canonical form (IPv4 dotted quad; IPv6 as inet_ntop
/// writes it, lower case and compressed, without its zone; an IPv4-mapped IPv6 address as
/// its IPv4 text), or nothing when `text` is not written as an address (then it is a host
/// name): text with a ':' is IPv6, text of digits and dots with a dot is IPv4. Throws
/// argument_error naming the text and the rule when it is written as an address but is not
/// one (an IPv4 part above 255 or with a leading zero, fewer or more than four parts, an
/// IPv6 text with a bad group, two "::", brackets or a port, an empty zone), or holds a NUL.
inline std::optional<std::string> canonical_ip_address(const std::string& text) {
  const std::string who = "canonical_ip_address";
  if (text.find('\0') != std::string::npos) detail::reject_address(who, text, "holds a NUL character; no address or host name does");
  if (text.find(':') != std::string::npos) {
    std::string address = text;
    if (const auto zone = text.find('%'); zone != std::string::npos) {
      address = text.substr(0, zone);
      if (zone + 1 == text.size())
        detail::reject_address(who, text, "has an empty zone after '%'; an IPv6 zone names an interface, as in fe80::1%eth0");
    }
    in6_addr bytes{};
    if (inet_pton(AF_INET6, address.c_str(), &bytes) != 1)
      detail::reject_address(who, text,
                             "is not an IPv6 address; it must be eight groups of up to four hex digits separated by "
                             "':' (one run of zero groups may be '::', the last two may be an IPv4 dotted quad), "
                             "without brackets or a port, optionally followed by %zone");
    return detail::address_text(AF_INET6, &bytes);
  }
  const bool dotted = !text.empty() && text.find('.') != std::string::npos &&
                      std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
  if (!dotted) return std::nullopt;
  in_addr bytes{};
  if (inet_pton(AF_INET, text.c_str(), &bytes) != 1)
    detail::reject_address(who, text,
                           "is not an IPv4 address; it must be four decimal numbers from 0 to 255 without leading "
                           "zeros, separated by dots (a dotted quad, such as 192.0.2.1)");
  return detail::address_text(AF_INET, &bytes);
}

/// This locale's location (not collective): the host name, the addresses of the host's
/// interfaces that are up (getifaddrs: IPv4 and IPv6, canonical text, at most 16, preferred
/// first as process_location::address() says, then in the order the system lists them) and
/// the process id.
inline process_location this_process_location() {
  process_location out;
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) out.host = host;
  out.pid = static_cast<std::int64_t>(getpid());
  std::vector<std::pair<int, std::string>> found;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (const ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
      if (a->ifa_addr == nullptr || (a->ifa_flags & IFF_UP) == 0) continue;
      const int family = a->ifa_addr->sa_family;
      const void* bytes = nullptr;
      if (family == AF_INET) bytes = &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr;
      else if (family == AF_INET6) bytes = &reinterpret_cast<const sockaddr_in6*>(a->ifa_addr)->sin6_addr;
      else continue;
      std::string text = detail::address_text(family, bytes);
      if (text.empty()) continue;
      const bool seen = std::any_of(found.begin(), found.end(), [&](const auto& f) { return f.second == text; });
      if (!seen) found.emplace_back(detail::address_rank(family, bytes), std::move(text));
    }
    freeifaddrs(list);
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t k = 0; k < found.size() && k < detail::location_record::max_addresses; ++k)
    out.addresses.push_back(found[k].second);
  return out;
}

/// Collective: every locale's location, indexed by locale (one all-gather of about 1 KiB per
/// locale).
inline std::vector<process_location> process_locations() {
  const process_location me = this_process_location();
  detail::location_record record;
  record.pid = me.pid;
  std::memcpy(record.host, me.host.data(), std::min(me.host.size(), sizeof(record.host) - 1));
  for (const auto& a : me.addresses) {
    std::memcpy(record.addresses[record.count], a.data(), std::min(a.size(), sizeof(record.addresses[0]) - 1));
    ++record.count;
  }
  std::vector<process_location> out;
  for (const auto& r : all_gather(record)) {
    process_location l;
    l.host = r.host;
    l.pid = r.pid;
    for (std::int32_t k = 0; k < r.count; ++k) l.addresses.emplace_back(r.addresses[k]);
    out.push_back(std::move(l));
  }
  return out;
}

/// The locale (index into `locations`, as process_locations() gives them) whose process is
/// the draft's (IP, PID) `where`, `pid` (not collective). `where` is an IP address (any
/// textual form canonical_ip_address reads: it matches a locale whose host has that address;
/// a loopback address, 127.0.0.0/8 or ::1, matches every locale, as it names any host's own,
/// such as the 127.0.1.1 Debian resolves a host name to) or a host name (matched exactly);
/// the locale's process id must be `pid`. Throws argument_error naming the location and the
/// rule when `where` is empty or a malformed address, when no locale matches, and when
/// several do (a loopback address, or an address more than one host has, with the same PID on
/// each: name the process by an address of its own host).
inline int locale_of_location(const std::vector<process_location>& locations, const std::string& where,
                              std::int64_t pid) {
  if (where.empty())
    throw argument_error("dmap::locale_of_location: the location's IP is empty; it must be an IP address of a "
                         "locale's host (or the host's name)");
  const std::optional<std::string> address = canonical_ip_address(where);
  std::vector<int> hits;
  for (std::size_t q = 0; q < locations.size(); ++q) {
    const process_location& l = locations[q];
    if (l.pid != pid) continue;
    const bool here = address ? detail::is_loopback_text(*address) ||
                                    std::find(l.addresses.begin(), l.addresses.end(), *address) != l.addresses.end()
                              : l.host == where;
    if (here) hits.push_back(static_cast<int>(q));
  }
  const std::string shown = "(\"" + where + "\", " + std::to_string(pid) + ")";
  if (hits.empty())
    throw argument_error("dmap::locale_of_location: the location " + shown + " names no locale; it must be (IP, PID) "
                         "of one of the " + std::to_string(locations.size()) + " locales: an address of its host" +
                         (address ? " (read as " + *address + ")" : std::string(" or the host's name")) +
                         " and its process id");
  if (hits.size() > 1)
    throw argument_error("dmap::locale_of_location: the location " + shown + " names locales " +
                         std::to_string(hits[0]) + " and " + std::to_string(hits[1]) + " (an address their hosts " +
                         "share, with the same process id on each); it must name one process: use an address of its " +
                         "own host");
  return hits.front();
}

}  // namespace dmap
