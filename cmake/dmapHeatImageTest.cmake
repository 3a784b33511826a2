# ctest driver for `example_heat_image_identical` (run with cmake -P):
#   runs the heat example on a small grid as one locale (no mpirun), then under MPIEXEC with 2 and
#   3 ranks, each writing its own PNG into WORK_DIR, and fails unless the three files are
#   byte-identical: the Jacobi field, the iteration count and the picture must not depend on
#   the number of locales.
#   -DHEAT_EXE=<heat binary> -DWORK_DIR=<dir> -DMPIEXEC=<mpiexec> [-DMPIEXEC_NUMPROC_FLAG=-n]
#   [-DMPIEXEC_FLAGS=a|b|c]  ('|'-separated, e.g. --oversubscribe|--bind-to|none)
cmake_minimum_required(VERSION 3.21)

include("${CMAKE_CURRENT_LIST_DIR}/dmapTestDriver.cmake")
dmap_driver_start(dmapHeatImageTest.cmake HEAT_EXE WORK_DIR MPIEXEC)

# Small enough for a few seconds in all; tight enough that it stops on the tolerance after
# a few thousand iterations, with convergence tests and progress lines along the way.
set(_args --n=96 --tol=1e-5 --max-iter=6000 --every=1000 --check=7)

dmap_driver_run(heat "1 locale" "${HEAT_EXE}" ${_args} --out=heat_np1)
dmap_driver_run(heat "2 locales" "${MPIEXEC}" ${MPIEXEC_NUMPROC_FLAG} 2 ${_mpi_flags} "${HEAT_EXE}" ${_args} --out=heat_np2)
dmap_driver_run(heat "3 locales" "${MPIEXEC}" ${MPIEXEC_NUMPROC_FLAG} 3 ${_mpi_flags} "${HEAT_EXE}" ${_args} --out=heat_np3)

foreach(_np 1 2 3)
  if(NOT EXISTS "${WORK_DIR}/heat_np${_np}.png")
    message(FATAL_ERROR "[heat] ${WORK_DIR}/heat_np${_np}.png was not written")
  endif()
  file(SIZE "${WORK_DIR}/heat_np${_np}.png" _size)
  message(STATUS "[heat] heat_np${_np}.png: ${_size} bytes")
endforeach()

foreach(_np 2 3)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files
                          "${WORK_DIR}/heat_np1.png" "${WORK_DIR}/heat_np${_np}.png"
                  RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "[heat] heat_np1.png and heat_np${_np}.png differ: the result depends on the "
                        "number of locales")
  endif()
endforeach()
message(STATUS "[heat] OK: heat_np1.png, heat_np2.png and heat_np3.png are byte-identical (${WORK_DIR})")
