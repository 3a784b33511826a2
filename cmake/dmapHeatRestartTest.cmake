# ctest driver for `example_heat_restart_identical` (run with cmake -P):
#   runs the heat example on a small grid under MPIEXEC with 2 ranks, writing a checkpoint every K
#   iterations, then restarts from its last checkpoint under 3 ranks and as one locale (no mpirun),
#   and continues a 1-locale run stopped by --max-iter=K from its final .h5 under 3 ranks; fails
#   unless the four PNGs, and the four .npy files of the final field, are byte-identical, the .npy file has the header and size of the (n-2) x (n-2) float64 interior,
#   and a restart from a missing file, from a file that is not HDF5 and from a checkpoint of
#   another --n each ends with status 2 and a message (without hanging).
#   -DHEAT_EXE=<heat binary> -DWORK_DIR=<dir> -DMPIEXEC=<mpiexec> [-DMPIEXEC_NUMPROC_FLAG=-n]
#   [-DMPIEXEC_FLAGS=a|b|c]  ('|'-separated, e.g. --oversubscribe|--bind-to|none) [-DH5DUMP=<h5dump>]
cmake_minimum_required(VERSION 3.21)

include("${CMAKE_CURRENT_LIST_DIR}/dmapTestDriver.cmake")
dmap_driver_start(dmapHeatRestartTest.cmake HEAT_EXE WORK_DIR MPIEXEC)

# A 64 x 64 grid that stops on the tolerance after about 2500 iterations (a fraction of a second
# of computing); the last checkpoint (K = 1000: two of them, the second replacing the first) is
# some 500 iterations before that, and --check=7 does not divide K, so the restarted runs go
# through convergence tests and progress lines of their own.
set(_n 64)
set(_k 1000)
set(_args --n=${_n} --tol=2e-5 --max-iter=6000 --every=400 --check=7)

# run_heat(<label> <expected exit status> <output variable> <command...>): runs the command in
# WORK_DIR (60 s at most: a hang fails), echoes its output and checks its exit status.
function(run_heat label expect out_var)
  string(REPLACE ";" " " _pretty "${ARGN}")
  message(STATUS "[heat-restart] ${label}: ${_pretty}")
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK_DIR}" TIMEOUT 60
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  message("${_out}${_err}")
  if(NOT "${_rc}" STREQUAL "${expect}")
    message(FATAL_ERROR "[heat-restart] ${label}: exit status '${_rc}', expected ${expect}")
  endif()
  set(${out_var} "${_out}${_err}" PARENT_SCOPE)
endfunction()

set(_np2 "${MPIEXEC}" ${MPIEXEC_NUMPROC_FLAG} 2 ${_mpi_flags} "${HEAT_EXE}")
set(_np3 "${MPIEXEC}" ${MPIEXEC_NUMPROC_FLAG} 3 ${_mpi_flags} "${HEAT_EXE}")

# The uninterrupted run, checkpointing.
run_heat("2 locales, checkpoint every ${_k}" 0 _log ${_np2} ${_args} --checkpoint-every=${_k} --out=full)
if(NOT _log MATCHES "converged after ([0-9]+) iterations")
  message(FATAL_ERROR "[heat-restart] the uninterrupted run did not converge")
endif()
set(_final ${CMAKE_MATCH_1})
math(EXPR _last "${_final} / ${_k} * ${_k}")
if(_last EQUAL _final)
  math(EXPR _last "${_last} - ${_k}")  # a checkpoint is never written at the converged iteration
endif()
if(_last LESS_EQUAL 0)
  message(FATAL_ERROR "[heat-restart] converged after ${_final} iterations: no checkpoint was due")
endif()
foreach(_f full.png full.npy full.h5 full-checkpoint.h5)
  if(NOT EXISTS "${WORK_DIR}/${_f}")
    message(FATAL_ERROR "[heat-restart] ${WORK_DIR}/${_f} was not written")
  endif()
endforeach()
file(GLOB _leftovers "${WORK_DIR}/.*.tmp")
if(_leftovers)
  message(FATAL_ERROR "[heat-restart] temporary files were left behind: ${_leftovers}")
endif()

# Restarts from its last checkpoint, at other locale counts.
run_heat("3 locales, restart" 0 _log ${_np3} ${_args} --restart=full-checkpoint.h5 --out=restart_np3)
if(NOT _log MATCHES "restarting from full-checkpoint.h5 at iteration ${_last}[^0-9]")
  message(FATAL_ERROR "[heat-restart] the 3-locale run did not restart at iteration ${_last}")
endif()
if(NOT _log MATCHES "converged after ${_final} iterations")
  message(FATAL_ERROR "[heat-restart] the 3-locale restart did not converge after ${_final} iterations")
endif()
run_heat("1 locale, restart" 0 _log "${HEAT_EXE}" ${_args} --restart=full-checkpoint.h5 --out=restart_np1)
if(NOT _log MATCHES "restarting from full-checkpoint.h5 at iteration ${_last}[^0-9]" OR
   NOT _log MATCHES "converged after ${_final} iterations")
  message(FATAL_ERROR "[heat-restart] the 1-locale run did not restart at ${_last} and converge after ${_final}")
endif()

# An interrupted run: stopped by --max-iter at the first checkpoint, continued from its final
# <out>.h5 (which holds the same state as its checkpoint) with the full --max-iter.
run_heat("1 locale, stopped at iteration ${_k}" 0 _log "${HEAT_EXE}" --n=${_n} --tol=2e-5 --max-iter=${_k} --every=400
         --check=7 --checkpoint-every=${_k} --out=part)
if(NOT _log MATCHES "stopped \\(max-iter\\) after ${_k} iterations")
  message(FATAL_ERROR "[heat-restart] the interrupted run did not stop at iteration ${_k}")
endif()
run_heat("3 locales, continued" 0 _log ${_np3} ${_args} --restart=part.h5 --out=continued_np3)
if(NOT _log MATCHES "restarting from part.h5 at iteration ${_k}[^0-9]" OR
   NOT _log MATCHES "converged after ${_final} iterations")
  message(FATAL_ERROR "[heat-restart] the continued run did not restart at ${_k} and converge after ${_final}")
endif()

foreach(_np restart_np3 restart_np1 continued_np3)
  foreach(_ext png npy)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files
                            "${WORK_DIR}/full.${_ext}" "${WORK_DIR}/${_np}.${_ext}"
                    RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "[heat-restart] full.${_ext} and ${_np}.${_ext} differ: the restart "
                          "does not resume the uninterrupted run")
    endif()
  endforeach()
endforeach()

# full.npy: version 1.0, '<f8' in C order, shape (n-2, n-2), the elements right after the header.
math(EXPR _m "${_n} - 2")
file(READ "${WORK_DIR}/full.npy" _magic LIMIT 8 HEX)
if(NOT _magic STREQUAL "934e554d50590100")
  message(FATAL_ERROR "[heat-restart] full.npy does not start with the .npy 1.0 magic (${_magic})")
endif()
file(READ "${WORK_DIR}/full.npy" _len OFFSET 8 LIMIT 2 HEX)
string(SUBSTRING "${_len}" 0 2 _lo)
string(SUBSTRING "${_len}" 2 2 _hi)
math(EXPR _header "0x${_hi} * 256 + 0x${_lo} + 10")
file(READ "${WORK_DIR}/full.npy" _dict OFFSET 10 LIMIT 64)
if(NOT _dict MATCHES "^{'descr': '<f8', 'fortran_order': False, 'shape': \\(${_m}, ${_m}\\), }")
  message(FATAL_ERROR "[heat-restart] full.npy has an unexpected header: ${_dict}")
endif()
math(EXPR _want "${_header} + ${_m} * ${_m} * 8")
file(SIZE "${WORK_DIR}/full.npy" _size)
if(NOT _size EQUAL _want OR NOT _header EQUAL 128)
  message(FATAL_ERROR "[heat-restart] full.npy: ${_size} bytes with a ${_header}-byte header, expected "
                      "${_want} bytes with a 128-byte header")
endif()

# full.h5: /heat/u is the 62 x 62 interior with attribute "iteration" (checked when the HDF5 tools,
# Debian's hdf5-tools, are installed: H5DUMP, required by the complete suite).
if(H5DUMP)
  execute_process(COMMAND "${H5DUMP}" -A -d /heat/u full.h5 WORKING_DIRECTORY "${WORK_DIR}"
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _dump ERROR_VARIABLE _dump_err)
  if(NOT _rc EQUAL 0 OR NOT _dump MATCHES "DATASPACE  SIMPLE { \\( ${_m}, ${_m} \\)" OR
     NOT _dump MATCHES "ATTRIBUTE \"iteration\" {[^}]*DATA {[ \n]*\\(0\\): ${_final}[ \n]")
    message(FATAL_ERROR "[heat-restart] full.h5 does not hold /heat/u of shape (${_m}, ${_m}) with iteration "
                        "${_final}:\n${_dump}${_dump_err}")
  endif()
endif()

# Unusable restart files: status 2 on every locale, with the reason.
run_heat("2 locales, missing restart file" 2 _log ${_np2} ${_args} --restart=no-such-file.h5 --out=bad)
if(NOT _log MATCHES "heat: cannot restart from 'no-such-file.h5': .*no-such-file.h5")
  message(FATAL_ERROR "[heat-restart] no message for the missing restart file")
endif()
run_heat("3 locales, restart from an .npy file" 2 _log ${_np3} ${_args} --restart=full.npy --out=bad)
if(NOT _log MATCHES "heat: cannot restart from 'full.npy': .*not an HDF5 file")
  message(FATAL_ERROR "[heat-restart] no message for the restart file that is not HDF5")
endif()
run_heat("2 locales, restart with another --n" 2 _log ${_np2} --n=48 --restart=full-checkpoint.h5 --out=bad)
if(NOT _log MATCHES "heat: cannot restart from 'full-checkpoint.h5': .*\\(${_m}, ${_m}\\).*--n=48")
  message(FATAL_ERROR "[heat-restart] no message for the checkpoint of another --n")
endif()
if(EXISTS "${WORK_DIR}/bad.png" OR EXISTS "${WORK_DIR}/bad.npy" OR EXISTS "${WORK_DIR}/bad.h5")
  message(FATAL_ERROR "[heat-restart] a failed restart wrote output files")
endif()

message(STATUS "[heat-restart] OK: restarts at 3 and 1 locale(s) from the checkpoint at iteration ${_last} "
               "of a 2-locale run, and a 1-locale run stopped at ${_k} and continued at 3 locales, end after "
               "${_final} iterations with byte-identical PNG and .npy files (${WORK_DIR})")
