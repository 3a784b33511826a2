# ctest driver for `consumer_find_package` (run with cmake -P):
#   0. build the no-op target dmap_headers in DMAP_BUILD_DIR (re-globs headers, re-configures if needed),
#   1. install the dmap build tree DMAP_BUILD_DIR into DMAP_PREFIX (stale headers removed first),
#   2. configure + build tests/consumer against that prefix only (find_package(dmap) -> dmap::dmap),
#   3. run the consumer once as an MPI singleton and once under MPIEXEC -n 2,
#   4. with DMAP_WITH_HDF5: the same with find_package(dmap COMPONENTS hdf5) -> consumer_hdf5,
#   5. find_package(dmap COMPONENTS python) and an unknown component must fail, saying why,
#   6. with PKG_CONFIG: build tests/consumer/main.cpp with plain CONSUMER_CXX_COMPILER and
#      `pkg-config --cflags --libs dmap` (PKG_CONFIG_PATH=<prefix>/DMAP_PKGCONFIGDIR), run it as in 3.
# Re-running is incremental: installed headers keep their timestamps, the consumer build dirs are reused.
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

# 2. configure + build the consumer against the prefix only. consumer_configure_args(<out> <binary dir>
#    <args...>) sets <out> to the arguments that configure tests/consumer in that folder, against
#    DMAP_PREFIX, with the extra arguments.
set(_cfg_build_type "")
if(CONSUMER_CONFIG)
  set(_cfg_build_type "-DCMAKE_BUILD_TYPE=${CONSUMER_CONFIG}")
endif()
set(_cfg_compiler "")
if(CONSUMER_CXX_COMPILER)
  set(_cfg_compiler "-DCMAKE_CXX_COMPILER=${CONSUMER_CXX_COMPILER}")
endif()
function(consumer_configure_args out binary_dir)
  set(_gen_args "")
  if(CONSUMER_GENERATOR AND NOT EXISTS "${binary_dir}/CMakeCache.txt")
    set(_gen_args -G "${CONSUMER_GENERATOR}")
  endif()
  set(${out}
    -S "${CONSUMER_SOURCE_DIR}" -B "${binary_dir}" ${_gen_args}
    "-DCMAKE_PREFIX_PATH=${DMAP_PREFIX}"
    "-DDMAP_EXPECTED_PREFIX=${DMAP_PREFIX}"
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON ${_cfg_build_type} ${_cfg_compiler} ${ARGN} PARENT_SCOPE)
endfunction()

# run_program(<what> <exe> [args...]): runs it once as an MPI singleton and once under MPIEXEC -n 2.
function(run_program what exe)
  run_step("run ${what} (singleton)" "${exe}" ${ARGN})
  if(MPIEXEC)
    string(REPLACE "|" ";" _mpi_flags "${MPIEXEC_FLAGS}")
    run_step("run ${what} (2 ranks)" "${MPIEXEC}" -n 2 ${_mpi_flags} "${exe}" ${ARGN})
  endif()
endfunction()

# The program `name` built in `binary_dir` (single- or multi-config generator).
function(consumer_exe out binary_dir name)
  set(_exe "${binary_dir}/${name}")
  if(CONSUMER_CONFIG AND NOT EXISTS "${_exe}" AND EXISTS "${binary_dir}/${CONSUMER_CONFIG}/${name}")
    set(_exe "${binary_dir}/${CONSUMER_CONFIG}/${name}")
  endif()
  set(${out} "${_exe}" PARENT_SCOPE)
endfunction()

consumer_configure_args(_conf_args "${CONSUMER_BINARY_DIR}" -DDMAP_CONSUMER_COMPONENTS=)
run_step("configure (no components)" "${CMAKE_COMMAND}" ${_conf_args})
run_step("build" "${CMAKE_COMMAND}" --build "${CONSUMER_BINARY_DIR}" ${_cfg_args} --parallel 2)

# 3. run it
consumer_exe(_exe "${CONSUMER_BINARY_DIR}" consumer)
run_program(consumer "${_exe}")

# 4. COMPONENTS hdf5: dmap::hdf5 writes and reads a file.
if(DMAP_WITH_HDF5)
  set(_hdf5_dir "${CONSUMER_BINARY_DIR}-hdf5")
  consumer_configure_args(_conf_args "${_hdf5_dir}" -DDMAP_CONSUMER_COMPONENTS=hdf5)
  run_step("configure (COMPONENTS hdf5)" "${CMAKE_COMMAND}" ${_conf_args})
  run_step("build consumer_hdf5" "${CMAKE_COMMAND}" --build "${_hdf5_dir}" --target consumer_hdf5 ${_cfg_args})
  consumer_exe(_exe "${_hdf5_dir}" consumer_hdf5)
  run_program(consumer_hdf5 "${_exe}" "${_hdf5_dir}/consumer_hdf5.h5")
endif()

# 5. components that dmap does not provide: configuring fails with the reason (the text expected).
foreach(_case "python|python: no C++ component" "no_such_part|unknown component(s) no_such_part")
  string(REPLACE "|" ";" _case "${_case}")
  list(GET _case 0 _component)
  list(GET _case 1 _expect)
  set(_refuse_dir "${CONSUMER_BINARY_DIR}-refuse-${_component}")
  file(REMOVE_RECURSE "${_refuse_dir}")
  consumer_configure_args(_conf_args "${_refuse_dir}" "-DDMAP_CONSUMER_COMPONENTS=${_component}")
  message(STATUS "[consumer] configure (COMPONENTS ${_component}), which must fail")
  execute_process(COMMAND "${CMAKE_COMMAND}" ${_conf_args} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out
                  ERROR_VARIABLE _err)
  string(FIND "${_out}${_err}" "${_expect}" _at)
  if(_rc EQUAL 0 OR _at EQUAL -1)
    message(FATAL_ERROR "[consumer] find_package(dmap COMPONENTS ${_component}) did not fail with "
                        "'${_expect}' (exit ${_rc}):\n${_out}${_err}")
  endif()
  file(REMOVE_RECURSE "${_refuse_dir}")
endforeach()

# 6. a build without CMake: the compiler and pkg-config's flags for dmap.
if(PKG_CONFIG)
  if(NOT DMAP_PKGCONFIGDIR OR NOT CONSUMER_CXX_COMPILER)
    message(FATAL_ERROR "dmapConsumerTest.cmake: -DDMAP_PKGCONFIGDIR= and -DCONSUMER_CXX_COMPILER= are required with PKG_CONFIG")
  endif()
  set(ENV{PKG_CONFIG_PATH} "${DMAP_PREFIX}/${DMAP_PKGCONFIGDIR}")
  execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs dmap RESULT_VARIABLE _rc OUTPUT_VARIABLE _flags
                  ERROR_VARIABLE _err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "[consumer] pkg-config --cflags --libs dmap failed:\n${_err}")
  endif()
  separate_arguments(_flags UNIX_COMMAND "${_flags}")
  set(_pc_dir "${CONSUMER_BINARY_DIR}-pkg-config")
  file(MAKE_DIRECTORY "${_pc_dir}")
  run_step("build with pkg-config" "${CONSUMER_CXX_COMPILER}" -O1 "${CONSUMER_SOURCE_DIR}/main.cpp" -o "${_pc_dir}/consumer"
           ${_flags})
  run_program("consumer (pkg-config)" "${_pc_dir}/consumer")
endif()
message(STATUS "[consumer] OK")
