// expect: transferable<T>
// Elements travel between locales as bytes.
#include <dmap/dmap.hpp>

#include <string>

void misuse(const dmap::domain<1>& d) {
  dmap::array<std::string, 1> a(d);
  (void)a;
}
