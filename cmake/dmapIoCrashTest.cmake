# ctest driver for `io_crash_rewrite_<format>` (run with cmake -P): kills writers of an existing
# file part way and checks that the last complete write is what a reader gets, by the recovery
# rule of write_npy / hdf5_writer (io/detail/mpi_file.hpp, file_commit): `path` when it exists,
# otherwise `path`.dmap-previous.
#   -DCRASH_EXE=<dmap_io_crash> -DFORMAT=npy|h5 -DWORK_DIR=<dir> -DMPIEXEC=<mpiexec>
#   [-DMPIEXEC_NUMPROC_FLAG=-n] [-DMPIEXEC_FLAGS=a|b|c]  ('|'-separated)
# Each killed write runs under MPIEXEC with 2 ranks and DMAP_IO_KILL_AT=<step>: locale 0 sends
# itself SIGKILL at that step (detail::io_crash_point), the launcher ends the job. Steps, in the
# order the writer reaches them: created (the temporary exists, nothing written), written (the
# temporary is whole), aside (the old file moved to .dmap-previous, `path` missing), published
# (the new file in place, .dmap-previous not yet removed). After each kill the driver checks
# which files exist and reads the file at 3 ranks (a cut other than the writer's) and as one locale
# (no launcher).
cmake_minimum_required(VERSION 3.21)

include("${CMAKE_CURRENT_LIST_DIR}/dmapTestDriver.cmake")
dmap_driver_start(dmapIoCrashTest.cmake CRASH_EXE FORMAT WORK_DIR MPIEXEC)

set(_path "${WORK_DIR}/checkpoint.${FORMAT}")
set(_previous "${_path}.dmap-previous")
set(_np2 "${MPIEXEC}" ${MPIEXEC_NUMPROC_FLAG} 2 ${_mpi_flags} "${CRASH_EXE}")
set(_np3 "${MPIEXEC}" ${MPIEXEC_NUMPROC_FLAG} 3 ${_mpi_flags} "${CRASH_EXE}")

# crash_run(<label> <expect: ok|killed> <command...>): runs the command in WORK_DIR (60 s at
# most: a hang fails); `ok` wants exit 0, `killed` a non-zero exit without "io_crash: wrote".
function(crash_run label expect)
  string(REPLACE ";" " " _pretty "${ARGN}")
  message(STATUS "[io-crash ${FORMAT}] ${label}: ${_pretty}")
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK_DIR}" TIMEOUT 60
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  message("${_out}")
  if(expect STREQUAL "ok" AND NOT _rc EQUAL 0)
    message("${_err}")
    message(FATAL_ERROR "[io-crash ${FORMAT}] ${label}: exit status '${_rc}', expected 0")
  endif()
  if(expect STREQUAL "killed" AND (_rc EQUAL 0 OR _out MATCHES "io_crash: wrote"))
    message(FATAL_ERROR "[io-crash ${FORMAT}] ${label}: the writer was not killed (exit status '${_rc}')")
  endif()
endfunction()

# check(<gen>): a reader gets generation <gen> at 3 ranks and as one locale.
function(check gen)
  crash_run("read at 3 ranks: generation ${gen}" ok ${_np3} check ${FORMAT} "${_path}" ${gen})
  crash_run("read as one locale: generation ${gen}" ok "${CRASH_EXE}" check ${FORMAT} "${_path}" ${gen})
endfunction()

# files(<path exists: 0|1> <previous exists: 0|1>)
function(files want_path want_previous)
  foreach(_what path previous)
    set(_has 0)
    if(EXISTS "${_${_what}}")
      set(_has 1)
    endif()
    if(NOT _has EQUAL want_${_what})
      message(FATAL_ERROR "[io-crash ${FORMAT}] ${_${_what}}: exists is ${_has}, expected ${want_${_what}}")
    endif()
  endforeach()
endfunction()

function(write gen)
  crash_run("write generation ${gen}" ok ${_np2} write ${FORMAT} "${_path}" ${gen})
endfunction()

function(killed_write gen step)
  set(ENV{DMAP_IO_KILL_AT} ${step})
  crash_run("write generation ${gen}, killed at '${step}'" killed ${_np2} write ${FORMAT} "${_path}" ${gen})
  unset(ENV{DMAP_IO_KILL_AT})
endfunction()

write(1)
files(1 0)
check(1)
killed_write(2 created)   # the old file untouched
files(1 0)
check(1)
killed_write(3 written)   # the new file whole, still under its temporary name
files(1 0)
check(1)
killed_write(4 aside)     # the old file moved aside: only the rule finds it
files(0 1)
check(1)
write(5)                  # a write after that crash: the new file in place, the leftover removed
files(1 0)
check(5)
killed_write(6 published) # the new file in place, the old one not yet removed
files(1 1)
check(6)
write(7)                  # the leftover .dmap-previous removed before the old file is moved aside
files(1 0)
check(7)
# Killed writers leave their temporaries (a later writer cannot tell a dead writer's from a live
# one's); they are never read.
file(GLOB _temps "${WORK_DIR}/.checkpoint.${FORMAT}.dmap-*.tmp")
list(LENGTH _temps _n_temps)
if(NOT _n_temps EQUAL 3)
  message(FATAL_ERROR "[io-crash ${FORMAT}] ${_n_temps} temporaries left, expected 3 (the writers killed at "
                      "'created', 'written' and 'aside'): ${_temps}")
endif()
message(STATUS "[io-crash ${FORMAT}] ok")
