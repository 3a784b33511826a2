// The instantiations the compiled library holds. dmap is templates over the rank N and the
// element type T; the type-independent machinery (plans, locators, directories, domain
// states, the transfer engine) and the storage of the common element types are compiled once
// into the library of the `dmap::dmap` target for the common ranks, and a program that links
// it (DMAP_PRECOMPILED defined) only declares them (`extern template`). Other ranks and
// element types instantiate in the program as before: the definitions stay in the headers.
#pragma once

#include <cstdint>

/// Calls X(N, args...) for each rank the library holds: 1, 2 and 3.
#define DMAP_PRECOMPILED_RANKS(X, ...) X(1, __VA_ARGS__) X(2, __VA_ARGS__) X(3, __VA_ARGS__)

/// Calls X(N, M, args...) for each pair of ranks N <= M the library holds: an N-D view of
/// an M-D array (slices, rank changes).
#define DMAP_PRECOMPILED_RANK_PAIRS(X, ...)                                                  \
  X(1, 1, __VA_ARGS__) X(1, 2, __VA_ARGS__) X(2, 2, __VA_ARGS__) X(1, 3, __VA_ARGS__)        \
  X(2, 3, __VA_ARGS__) X(3, 3, __VA_ARGS__)

/// Calls X(T, N, args...) for each element type the library holds (double, float, int,
/// std::int64_t) at rank N.
#define DMAP_PRECOMPILED_ELEMENTS(X, N, ...)                                                 \
  X(double, N, __VA_ARGS__) X(float, N, __VA_ARGS__) X(int, N, __VA_ARGS__)                  \
  X(std::int64_t, N, __VA_ARGS__)

/// Declares (in a program: `extern template`) the instantiations that `INSTANCES(N, how)`
/// lists for every precompiled rank; nothing when the program does not link the library.
/// The library's sources define them with DMAP_DEFINE_PRECOMPILED.
#if defined(DMAP_PRECOMPILED)
#define DMAP_DECLARE_PRECOMPILED(INSTANCES) DMAP_PRECOMPILED_RANKS(INSTANCES, extern template)
#else
#define DMAP_DECLARE_PRECOMPILED(INSTANCES)
#endif

/// Declares (in a program: `extern template`) the instantiations that `INSTANCES(N, M, how)`
/// lists for every precompiled pair of ranks (see DMAP_PRECOMPILED_RANK_PAIRS).
#if defined(DMAP_PRECOMPILED)
#define DMAP_DECLARE_PRECOMPILED_PAIRS(INSTANCES) DMAP_PRECOMPILED_RANK_PAIRS(INSTANCES, extern template)
#else
#define DMAP_DECLARE_PRECOMPILED_PAIRS(INSTANCES)
#endif

/// Defines the instantiations that `INSTANCES(N, how)` lists for every precompiled rank (in
/// the library's sources).
#define DMAP_DEFINE_PRECOMPILED(INSTANCES) DMAP_PRECOMPILED_RANKS(INSTANCES, template)

/// Defines the instantiations that `INSTANCES(N, M, how)` lists for every precompiled pair of
/// ranks (in the library's sources).
#define DMAP_DEFINE_PRECOMPILED_PAIRS(INSTANCES) DMAP_PRECOMPILED_RANK_PAIRS(INSTANCES, template)
