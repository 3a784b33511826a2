// The machinery behind process_locations.hpp (not part of the API): reject_address,
// address_text, address_rank, is_loopback_text, location_record.
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

#include "../../runtime/collectives.hpp"
#include "../../runtime/environment.hpp"
#include "../../runtime/errors.hpp"

namespace dmap::detail {

/// Throws argument_error "dmap::<who>: the address <text> is not ...; it must be ...".
[[noreturn]] inline void reject_address(const std::string& who, const std::string& text, const std::string& rule) {
  std::string shown;
  for (const char c : text) {
    const auto code = static_cast<unsigned char>(c);
    if (code < 0x20 || code >= 0x7f) {
      constexpr char hex[] = "0123456789abcdef";
      shown += "\\x";
      shown += hex[code >> 4];
      shown += hex[code & 0xf];
    } else {
      shown += c;
    }
  }
  throw argument_error("dmap::" + who + ": the address \"" + shown + "\" " + rule);
}

/// The canonical text of an address in network byte order (inet_ntop; an IPv4-mapped IPv6
/// address as its IPv4 text).
inline std::string address_text(int family, const void* bytes) {
  char text[INET6_ADDRSTRLEN] = {};
  if (family == AF_INET6) {
    const auto* a = static_cast<const in6_addr*>(bytes);
    if (IN6_IS_ADDR_V4MAPPED(a)) return address_text(AF_INET, a->s6_addr + 12);
  }
  if (inet_ntop(family, bytes, text, sizeof(text)) == nullptr) return {};
  return text;
}

/// The preference of an address for the one dmap writes: 0 global IPv4, 1 global IPv6, 2
/// link-local, 3 loopback.
inline int address_rank(int family, const void* bytes) {
  if (family == AF_INET) {
    const auto* b = static_cast<const unsigned char*>(bytes);
    if (b[0] == 127) return 3;
    if (b[0] == 169 && b[1] == 254) return 2;
    return 0;
  }
  const auto* a = static_cast<const in6_addr*>(bytes);
  if (IN6_IS_ADDR_LOOPBACK(a)) return 3;
  if (IN6_IS_ADDR_LINKLOCAL(a)) return 2;
  return 1;
}

/// True for a canonical loopback address (127.0.0.0/8, ::1): on any host, the host itself.
inline bool is_loopback_text(const std::string& canonical) {
  return canonical == "::1" || canonical.rfind("127.", 0) == 0;
}

/// One locale's location as it travels to the others (fixed size).
struct location_record {
  static constexpr std::size_t max_addresses = 16;  ///< addresses kept per host, preferred first
  std::int64_t pid = 0;
  std::int32_t count = 0;
  char host[256] = {};
  char addresses[max_addresses][INET6_ADDRSTRLEN] = {};
};

}  // namespace dmap::detail
