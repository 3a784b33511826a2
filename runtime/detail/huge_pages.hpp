// Large buffers on transparent huge pages. A loop that streams through tens of megabytes on 4
// KiB pages misses the TLB every 4 KiB; on 2 MiB pages it rarely does. Debian's kernel gives
// huge pages only to memory that asks for them (transparent_hugepage=madvise), and NumPy asks
// for every array from 4 MiB up: without the same advice, dmap's arrays streamed 15-25 %
// slower than NumPy's (a column sum of a 2048 x 4096 block of doubles: 7.5 ms against 6.6 ms
// for the same values in a NumPy array, 2-core VM, 2026-11-29).
#pragma once

#include <cstddef>

namespace dmap::detail {

/// Buffers from this size on ask for huge pages (NumPy's threshold).
inline constexpr std::size_t huge_pages_from_bytes = std::size_t{1} << 22;

/// Asks the system to back the 2 MiB-aligned interior of [data, data + bytes) with huge pages,
/// when `bytes` reaches huge_pages_from_bytes; to be called before the buffer's first touch.
/// Advice only: where the system has none to take (not Linux, huge pages disabled), nothing
/// changes.
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

}  // namespace dmap::detail
