// dmap.evaluate's runner for AVX2: evaluate_runner_impl.h compiled with -mavx2 (cmake/dmapPython.cmake
// sets the flag and DMAP_EVALUATE_AVX2 where the compiler targets x86-64); empty elsewhere. Not
// -mfma: a fused multiply-add would round a * b + c once, where NumPy rounds twice.
#ifdef DMAP_EVALUATE_AVX2
#define DMAP_EVALUATE_RUN_ROWS run_rows_avx2
#include "evaluate_runner_impl.h"
#endif
