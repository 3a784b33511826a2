# What the ctest drivers run with `cmake -P` share (include() it first):
#   dmap_driver_start(<script> <required variable>...): fails unless each -D<variable>= was given,
#     defaults MPIEXEC_NUMPROC_FLAG to -n, turns the '|'-separated MPIEXEC_FLAGS into the list
#     _mpi_flags, and makes WORK_DIR anew (empty);
#   dmap_driver_run(<tag> <label> <command>...): runs the command in WORK_DIR and fails, naming
#     it, unless it exits 0.
macro(dmap_driver_start script)
  foreach(_v ${ARGN})
    if(NOT ${_v})
      message(FATAL_ERROR "${script}: -D${_v}=... is required")
    endif()
  endforeach()
  if(NOT MPIEXEC_NUMPROC_FLAG)
    set(MPIEXEC_NUMPROC_FLAG -n)
  endif()
  string(REPLACE "|" ";" _mpi_flags "${MPIEXEC_FLAGS}")
  file(REMOVE_RECURSE "${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}")
endmacro()

function(dmap_driver_run tag label)
  string(REPLACE ";" " " _pretty "${ARGN}")
  message(STATUS "[${tag}] ${label}: ${_pretty}")
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "[${tag}] ${label} failed (${_rc})")
  endif()
endfunction()
