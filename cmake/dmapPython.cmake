# The Python package `dmap`: the pybind11 extension dmap._dmap (interop/python/*.cpp)
# and the package files (interop/python/dmap/*.py), both placed in <build>/python/dmap, so that
#
#   PYTHONPATH=<build>/python mpirun -n 4 <Python3_EXECUTABLE> -c "import dmap"
#
# works. Needs Debian's python3-dev, pybind11-dev, python3-numpy, python3-mpi4py (and python3-pytest
# for the tests); scripts/install-deps.sh installs them. The module is built for Python3_EXECUTABLE,
# the interpreter CMakeLists.txt chose (the system's unless -DPython3_EXECUTABLE=... says otherwise).
# The tests (tests/python, pytest) run under mpirun at 1-4 ranks: ctest python_np1 .. python_np4.
option(DMAP_PYTHON "Build the Python module dmap (pybind11 + NumPy + mpi4py)" ON)
if(NOT DMAP_PYTHON)
  return()
endif()
if(DMAP_SANITIZE)
  # An ASan/UBSan-instrumented extension needs the sanitizer runtime preloaded into python3; the
  # sanitizer pass of scripts/test.sh runs the C++ tests only.
  message(STATUS "dmap: no Python module in a sanitizer build (DMAP_SANITIZE=${DMAP_SANITIZE})")
  return()
endif()

find_package(Python3 COMPONENTS Interpreter Development.Module NumPy)
if(Python3_FOUND)
  find_package(pybind11 CONFIG QUIET)
endif()
set(_dmap_mpi4py_include "")
if(Python3_FOUND)
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import mpi4py; print(mpi4py.get_include())"
                  OUTPUT_VARIABLE _dmap_mpi4py_include OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _dmap_mpi4py_rc ERROR_QUIET)
  if(NOT _dmap_mpi4py_rc EQUAL 0)
    set(_dmap_mpi4py_include "")
  endif()
endif()
if(NOT Python3_FOUND OR NOT pybind11_FOUND OR NOT _dmap_mpi4py_include)
  dmap_missing_test_tool("no Python module (needs python3-dev, python3-numpy, pybind11-dev and python3-mpi4py for "
                         "${Python3_EXECUTABLE}; scripts/install-deps.sh installs them, -DDMAP_PYTHON=OFF silences this)")
  return()
endif()
# mpi4py must be built for the MPI of the build (DMAP_MPI): the module and mpi4py share one MPI in
# one process. Debian builds python3-mpi4py for Open MPI only, so under DMAP_MPI=mpich the module
# needs an mpi4py built for MPICH (e.g. in a virtual environment given as Python3_EXECUTABLE).
# MPI_Get_library_version may be called before MPI_Init: loading mpi4py.MPI starts no MPI.
execute_process(COMMAND "${Python3_EXECUTABLE}" -c
                        "import mpi4py; mpi4py.rc.initialize = mpi4py.rc.finalize = False; from mpi4py import MPI; print(MPI.Get_library_version().splitlines()[0])"
                OUTPUT_VARIABLE _dmap_mpi4py_library OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE _dmap_mpi4py_rc ERROR_QUIET)
string(FIND "${_dmap_mpi4py_library}" "${DMAP_MPI_LIBRARY_NAME}" _dmap_mpi4py_at)
if(NOT _dmap_mpi4py_rc EQUAL 0 OR _dmap_mpi4py_at EQUAL -1)
  dmap_missing_test_tool("no Python module: the mpi4py of ${Python3_EXECUTABLE} runs on '${_dmap_mpi4py_library}', "
                         "not on ${DMAP_MPI_LIBRARY_NAME} (DMAP_MPI=${DMAP_MPI}); Debian's python3-mpi4py is built for "
                         "Open MPI only. Give -DPython3_EXECUTABLE= an interpreter whose mpi4py is built for "
                         "${DMAP_MPI_LIBRARY_NAME} (docs/building.md), or -DDMAP_PYTHON=OFF to silence this")
  return()
endif()

set(DMAP_PYTHON_DIR "${PROJECT_BINARY_DIR}/python")
file(GLOB _dmap_py_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/interop/python/*.cpp")
# NO_EXTRAS: no link-time optimisation (it would recompile the whole module at link time).
pybind11_add_module(dmap_python MODULE NO_EXTRAS ${_dmap_py_sources})
set_target_properties(dmap_python PROPERTIES
  OUTPUT_NAME _dmap
  LIBRARY_OUTPUT_DIRECTORY "${DMAP_PYTHON_DIR}/dmap")
target_link_libraries(dmap_python PRIVATE dmap::dmap)
target_include_directories(dmap_python SYSTEM PRIVATE "${_dmap_mpi4py_include}")
dmap_project_options(dmap_python)
# The six element types' files (array_<dtype>.cpp) compile as one unit: they instantiate the
# same library templates, so together they compile in 51 s against 93 s one by one (-Og, 2-core
# VM, 2026-11-28). The other files, each with its own anonymous namespace, compile alone.
file(GLOB _dmap_py_array_sources "${PROJECT_SOURCE_DIR}/interop/python/array_*.cpp")
set_source_files_properties(${_dmap_py_array_sources} PROPERTIES UNITY_GROUP dtypes)
set_target_properties(dmap_python PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
if(DMAP_LARGE_UNIT_FLAGS AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")  # the dtypes' unit is large
  target_compile_options(dmap_python PRIVATE ${DMAP_LARGE_UNIT_FLAGS})
endif()
# Release: DMAP_PYTHON_OPTIMIZATION after the build type's flags. Its g++ default, -O2 with -O3's
# vectoriser cost model: the element loops vectorise as at -O3, and the module, mostly bindings,
# compiles in about 83 % of the time (a dtype unit: 30 s instead of 36 s, measured on 2026-11-27).
# The suite preset builds the module only to test it, at -Og (a dtype unit: 17 s instead of 32 s,
# measured on 2026-11-28).
dmap_release_flags("${DMAP_PYTHON_OPTIMIZATION}" dmap_python)
# dmap.evaluate's runner for AVX2 (interop/python/evaluate_runners.h): one file compiled with
# -mavx2, chosen at run time where the processor has AVX2, so the module still loads everywhere.
# Twice the elements per instruction of the baseline x86-64 (SSE2). The 5-point sweep's pass
# alone (2 ranks, 4096 x 4096, 2-core VM, 2026-11-29): 19.2 ms with SSE2, 15.3-18.3 ms with AVX2,
# against 16-18 ms for C++'s whole sweep; where memory is the limit (bench_python's sweep on huge
# pages) both reach C++ (0.97 and 1.00-1.11).
# Both runners without contraction: a fused multiply-add would round a * b + c once, where NumPy
# rounds twice.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set_source_files_properties("${PROJECT_SOURCE_DIR}/interop/python/evaluate_runner_portable.cpp"
                              PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    target_compile_definitions(dmap_python PRIVATE DMAP_EVALUATE_AVX2=1)
    set_source_files_properties("${PROJECT_SOURCE_DIR}/interop/python/evaluate_runner_avx2.cpp"
                                PROPERTIES COMPILE_OPTIONS "-mavx2;-ffp-contract=off")
  endif()
endif()

# The package's Python files, copied next to the extension whenever they change.
file(GLOB _dmap_py_files CONFIGURE_DEPENDS RELATIVE "${PROJECT_SOURCE_DIR}/interop/python/dmap"
     "${PROJECT_SOURCE_DIR}/interop/python/dmap/*.py")
set(_dmap_py_outputs "")
foreach(_f IN LISTS _dmap_py_files)
  add_custom_command(OUTPUT "${DMAP_PYTHON_DIR}/dmap/${_f}"
                     COMMAND "${CMAKE_COMMAND}" -E copy "${PROJECT_SOURCE_DIR}/interop/python/dmap/${_f}"
                             "${DMAP_PYTHON_DIR}/dmap/${_f}"
                     DEPENDS "${PROJECT_SOURCE_DIR}/interop/python/dmap/${_f}"
                     COMMENT "dmap python: ${_f}")
  list(APPEND _dmap_py_outputs "${DMAP_PYTHON_DIR}/dmap/${_f}")
endforeach()
add_custom_target(dmap_python_files ALL DEPENDS ${_dmap_py_outputs})
add_dependencies(dmap_python dmap_python_files)

# pytest under mpirun: every rank runs the same tests (tests/python/conftest.py makes a failure on
# one rank a failure on all, so none waits for the others). Same scheduling as the unit tests.
if(DMAP_BUILD_TESTS)
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import pytest"
                  RESULT_VARIABLE _dmap_pytest_rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT _dmap_pytest_rc EQUAL 0)
    dmap_missing_test_tool("pytest is missing for ${Python3_EXECUTABLE} (python3-pytest): no python_np* tests")
  else()
    foreach(np 1 2 3 4)
      add_test(NAME python_np${np}
               COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${DMAP_MPIEXEC_FLAGS_ALL}
                       "${Python3_EXECUTABLE}" -m pytest -q -p no:cacheprovider "${PROJECT_SOURCE_DIR}/tests/python"
               WORKING_DIRECTORY "${PROJECT_BINARY_DIR}")
      set_tests_properties(python_np${np} PROPERTIES
                           ENVIRONMENT "${DMAP_MPI_ENV};PYTHONPATH=${DMAP_PYTHON_DIR};PYTHONDONTWRITEBYTECODE=1"
                           RESOURCE_LOCK dmap_mpirun PROCESSORS 2 TIMEOUT 300 LABELS "python;mpi")
      if(np GREATER 2)
        set_tests_properties(python_np${np} PROPERTIES RUN_SERIAL ON)
      endif()
    endforeach()
  endif()
endif()

# The heat example in Python (examples/python/heat.py): NumPy on dmap's local blocks and
# dmap's halo exchange; its picture goes through the C++ demo's own colour map and PNG encoder, the
# pybind11 module heat_png (examples/python/heat_png.cpp over examples/heat/png_writer.hpp, libpng),
# placed in <build>/python next to the package. ctest example_python_heat_identical runs the C++
# demo and heat.py at 1 and 3 locales and fails unless their PNG and .npy files are byte-identical
# (the driver is cmake/dmapPythonHeatTest.cmake).
if(TARGET heat)
  find_package(PNG REQUIRED)
  pybind11_add_module(heat_png MODULE NO_EXTRAS "${PROJECT_SOURCE_DIR}/examples/python/heat_png.cpp")
  set_target_properties(heat_png PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${DMAP_PYTHON_DIR}")
  target_link_libraries(heat_png PRIVATE PNG::PNG)
  dmap_project_options(heat_png)
  string(JOIN "|" _pyheat_mpi_flags ${DMAP_MPIEXEC_FLAGS_ALL})    # ';' does not survive the ctest command line
  add_test(NAME example_python_heat_identical
           COMMAND "${CMAKE_COMMAND}"
                   "-DHEAT_EXE=$<TARGET_FILE:heat>"
                   "-DPYTHON=${Python3_EXECUTABLE}"
                   "-DHEAT_PY=${PROJECT_SOURCE_DIR}/examples/python/heat.py"
                   "-DWORK_DIR=${PROJECT_BINARY_DIR}/python_heat_test"
                   "-DMPIEXEC=${MPIEXEC_EXECUTABLE}"
                   "-DMPIEXEC_NUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG}"
                   "-DMPIEXEC_FLAGS=${_pyheat_mpi_flags}"
                   -P "${PROJECT_SOURCE_DIR}/cmake/dmapPythonHeatTest.cmake")
  set_tests_properties(example_python_heat_identical PROPERTIES
                       ENVIRONMENT "${DMAP_MPI_ENV};PYTHONPATH=${DMAP_PYTHON_DIR};PYTHONDONTWRITEBYTECODE=1"
                       RESOURCE_LOCK dmap_mpirun PROCESSORS 2 RUN_SERIAL ON TIMEOUT 300
                       LABELS "example;python;mpi")
endif()
