# ctest driver for `example_python_heat_identical` (run with cmake -P; cmake/dmapPython.cmake adds it):
#   runs the C++ heat demo (examples/heat) as one locale and under MPIEXEC with 3 ranks, and the
#   Python heat example (examples/python/heat.py: NumPy on dmap's local blocks, dmap's halo
#   exchange) under MPIEXEC with 1 and 3 ranks, all with the same options, and fails unless the
#   four PNGs are byte-identical and the four .npy files of the final field too.
#   -DHEAT_EXE=<heat binary> -DPYTHON=<python3> -DHEAT_PY=<examples/python/heat.py>
#   -DWORK_DIR=<dir> -DMPIEXEC=<mpiexec> [-DMPIEXEC_NUMPROC_FLAG=-n]
#   [-DMPIEXEC_FLAGS=a|b|c]  ('|'-separated, e.g. --oversubscribe|--bind-to|none)
# The environment must give PYTHONPATH=<build>/python (the packages dmap and heat_png).
cmake_minimum_required(VERSION 3.21)

include("${CMAKE_CURRENT_LIST_DIR}/dmapTestDriver.cmake")
dmap_driver_start(dmapPythonHeatTest.cmake HEAT_EXE PYTHON HEAT_PY WORK_DIR MPIEXEC)

# Small: it stops on the tolerance after a few thousand iterations, with convergence tests
# (every 7th iteration) and progress lines along the way.
set(_args --n=64 --tol=1e-5 --max-iter=6000 --every=1000 --check=7)

dmap_driver_run(python-heat "C++, 1 locale" "${HEAT_EXE}" ${_args} --out=cpp_np1)
dmap_driver_run(python-heat "C++, 3 locales" "${MPIEXEC}" ${MPIEXEC_NUMPROC_FLAG} 3 ${_mpi_flags} "${HEAT_EXE}" ${_args} --out=cpp_np3)
dmap_driver_run(python-heat "Python, 1 locale" "${MPIEXEC}" ${MPIEXEC_NUMPROC_FLAG} 1 ${_mpi_flags} "${PYTHON}" "${HEAT_PY}" ${_args}
         --out=py_np1)
dmap_driver_run(python-heat "Python, 3 locales" "${MPIEXEC}" ${MPIEXEC_NUMPROC_FLAG} 3 ${_mpi_flags} "${PYTHON}" "${HEAT_PY}" ${_args}
         --out=py_np3)

foreach(_ext png npy)
  foreach(_run cpp_np1 cpp_np3 py_np1 py_np3)
    if(NOT EXISTS "${WORK_DIR}/${_run}.${_ext}")
      message(FATAL_ERROR "[python-heat] ${WORK_DIR}/${_run}.${_ext} was not written")
    endif()
    file(SIZE "${WORK_DIR}/${_run}.${_ext}" _size)
    message(STATUS "[python-heat] ${_run}.${_ext}: ${_size} bytes")
  endforeach()
  foreach(_run cpp_np3 py_np1 py_np3)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK_DIR}/cpp_np1.${_ext}" "${WORK_DIR}/${_run}.${_ext}"
                    RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "[python-heat] cpp_np1.${_ext} and ${_run}.${_ext} differ")
    endif()
  endforeach()
endforeach()
message(STATUS "[python-heat] OK: the C++ and Python heat runs at 1 and 3 locales wrote byte-identical PNG and .npy "
               "files (${WORK_DIR})")
