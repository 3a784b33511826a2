// dmap.evaluate's portable runner: evaluate_runner_impl.h compiled with the build's own flags.
#define DMAP_EVALUATE_RUN_ROWS run_rows_portable
#include "evaluate_runner_impl.h"
