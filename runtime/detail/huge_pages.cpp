// The compiled part of runtime/detail/huge_pages.hpp: madvise(MADV_HUGEPAGE) where Linux has it.
#include "huge_pages.hpp"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace dmap::detail {

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < huge_pages_from_bytes) return;
  constexpr std::uintptr_t huge = std::uintptr_t{1} << 21;
  const auto first = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t begin = (first + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (first + bytes) & ~(huge - 1);
  if (begin < end) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: errors ignored
#else
  (void)data, (void)bytes;
#endif
}

}  // namespace dmap::detail
