# ctest driver for `consumer_find_package` (run with cmake -P):
#   0. build the no-op target dmap_headers in DMAP_BUILD_DIR (re-globs headers, re-configures if needed),
#   1. install the dmap build tree DMAP_BUILD_DIR into DMAP_PREFIX (stale headers removed first),
#   2. configure + build tests/consumer against that prefix only (find_package(dmap) -> dmap::dmap),
#   3. run the consumer once as an MPI singleton and once under MPIEXEC -n 2.
# Re-running is incremental: installed headers keep their timestamps, the consumer build dir is reused.
cmake_minimum_required(VERSION 3.21)

foreach(_v DMAP_BUILD_DIR DMAP_PREFIX CONSUMER_SOURCE_DIR CONSUMER_BINARY_DIR)
  if(NOT ${_v})
    message(FATAL_ERROR "dmapConsumerTest.cmake: -D${_v}=... is required")
  endif()
endforeach()

function(run_step what)
  string(REPLACE ";" " " _pretty "${ARGN}")
  message(STATUS "[consumer] ${what}: ${_pretty}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "[consumer] ${what} failed (${_rc})")
  endif()
endfunction()

# 0. refresh the build tree's header globs (a no-op unless headers were added or removed since the build)
set(_cfg_args "")
if(CONSUMER_CONFIG)
  set(_cfg_args --config "${CONSUMER_CONFIG}")
endif()
run_step("refresh header list" "${CMAKE_COMMAND}" --build "${DMAP_BUILD_DIR}" --target dmap_headers ${_cfg_args})

# 1. install. Headers that no longer exist in the source tree must not linger in the prefix.
file(REMOVE_RECURSE "${DMAP_PREFIX}/include/dmap")
run_step("install" "${CMAKE_COMMAND}" --install "${DMAP_BUILD_DIR}" --prefix "${DMAP_PREFIX}" ${_cfg_args})

# 2. configure + build the consumer against the prefix only
set(_gen_args "")
if(CONSUMER_GENERATOR AND NOT EXISTS "${CONSUMER_BINARY_DIR}/CMakeCache.txt")
  set(_gen_args -G "${CONSUMER_GENERATOR}")
endif()
set(_conf_args
  -S "${CONSUMER_SOURCE_DIR}" -B "${CONSUMER_BINARY_DIR}" ${_gen_args}
  "-DCMAKE_PREFIX_PATH=${DMAP_PREFIX}"
  "-DDMAP_EXPECTED_PREFIX=${DMAP_PREFIX}"
  -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
if(CONSUMER_CONFIG)
  list(APPEND _conf_args "-DCMAKE_BUILD_TYPE=${CONSUMER_CONFIG}")
endif()
if(CONSUMER_CXX_COMPILER)
  list(APPEND _conf_args "-DCMAKE_CXX_COMPILER=${CONSUMER_CXX_COMPILER}")
endif()
run_step("configure" "${CMAKE_COMMAND}" ${_conf_args})
run_step("build" "${CMAKE_COMMAND}" --build "${CONSUMER_BINARY_DIR}" ${_cfg_args} --parallel 2)

# 3. run it
set(_exe "${CONSUMER_BINARY_DIR}/consumer")
if(CONSUMER_CONFIG AND NOT EXISTS "${_exe}" AND EXISTS "${CONSUMER_BINARY_DIR}/${CONSUMER_CONFIG}/consumer")
  set(_exe "${CONSUMER_BINARY_DIR}/${CONSUMER_CONFIG}/consumer")      # multi-config generators
endif()
run_step("run (singleton)" "${_exe}")
if(MPIEXEC)
  string(REPLACE "|" ";" _mpi_flags "${MPIEXEC_FLAGS}")
  run_step("run (2 ranks)" "${MPIEXEC}" -n 2 ${_mpi_flags} "${_exe}")
endif()
message(STATUS "[consumer] OK")
