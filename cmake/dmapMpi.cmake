# The MPI implementation of the build (DMAP_MPI): finds MPI, checks that it is the one asked for,
# and sets what differs between implementations. Included once from the top CMakeLists.txt in
# place of find_package(MPI).
#
#   DMAP_MPI=openmpi (default)  Open MPI    Debian: libopenmpi-dev openmpi-bin
#   DMAP_MPI=mpich              MPICH 4     Debian: libmpich-dev mpich
#
# Debian installs both side by side: the wrappers and launchers carry a suffix (mpicxx.openmpi,
# mpicxx.mpich, mpiexec.openmpi, mpiexec.mpich) and its alternatives point the plain names
# (mpicxx, mpiexec) at one of them (Open MPI unless changed). The suffixed name of the chosen
# implementation, where it exists, is given to FindMPI, so the choice holds whatever the
# alternatives say; elsewhere FindMPI searches as usual and the check below says what it found.
# -DMPI_CXX_COMPILER=... and -DMPIEXEC_EXECUTABLE=... override both.
#
# Sets (for CMakeLists.txt and cmake/dmapPython.cmake):
#   DMAP_MPI_PACKAGE     the implementation's name in Debian's package and pkg-config names
#                        (hdf5-openmpi / hdf5-mpich, scalapack-openmpi / scalapack-mpich)
#   DMAP_MPI_ENV         the environment of every ctest MPI job
#   DMAP_MPIEXEC_FLAGS   (cache) what ctest passes to the launcher after '-n K'
#   DMAP_MPI_LIBRARY_NAME  "Open MPI" or "MPICH", for messages
set(DMAP_MPI "openmpi" CACHE STRING
    "The MPI implementation: openmpi (Open MPI, the default) or mpich (MPICH 4); chooses the compiler wrapper, the launcher and its flags, and the HDF5 and ScaLAPACK builds (docs/building.md)")
set_property(CACHE DMAP_MPI PROPERTY STRINGS openmpi mpich)
if(DMAP_MPI STREQUAL "openmpi")
  set(DMAP_MPI_LIBRARY_NAME "Open MPI")
elseif(DMAP_MPI STREQUAL "mpich")
  set(DMAP_MPI_LIBRARY_NAME "MPICH")
else()
  message(FATAL_ERROR "DMAP_MPI='${DMAP_MPI}': expected openmpi or mpich")
endif()
set(DMAP_MPI_PACKAGE "${DMAP_MPI}")

# The chosen implementation's suffixed wrapper and launcher, unless given or already found:
# dmap_find_suffixed(<FindMPI variable> <dmap's cache variable> <what> <names>...) finds the first of
# <names> into <dmap's cache variable> and hands it to FindMPI.
function(dmap_find_suffixed variable found what)
  if(${variable})
    return()
  endif()
  find_program(${found} NAMES ${ARGN} DOC "The ${what} of DMAP_MPI (Debian's suffixed name), found by dmap")
  mark_as_advanced(${found})
  if(${found})
    set(${variable} "${${found}}" CACHE FILEPATH "MPI ${what} (FindMPI)")
  endif()
endfunction()
dmap_find_suffixed(MPI_CXX_COMPILER DMAP_MPI_CXX_WRAPPER "C++ compiler wrapper" mpicxx.${DMAP_MPI} mpic++.${DMAP_MPI})
dmap_find_suffixed(MPIEXEC_EXECUTABLE DMAP_MPI_LAUNCHER "launcher" mpiexec.${DMAP_MPI} mpirun.${DMAP_MPI})

# MPI_CXX_SKIP_MPICXX drops the deprecated C++ bindings (Open MPI's warn under -Wextra).
set(MPI_CXX_SKIP_MPICXX ON)
find_package(MPI REQUIRED COMPONENTS CXX)

# The implementation found, from its mpi.h (OPEN_MPI, MPICH_VERSION): a build folder configured
# for one implementation keeps its cached wrapper when DMAP_MPI names the other, and on a
# machine without the suffixed names the plain mpicxx may be either.
set(_dmap_mpi_found "")
foreach(_dir IN LISTS MPI_CXX_INCLUDE_DIRS MPI_CXX_COMPILER_INCLUDE_DIRS)
  if(NOT _dmap_mpi_found AND EXISTS "${_dir}/mpi.h")
    file(STRINGS "${_dir}/mpi.h" _dmap_mpi_defines REGEX "^#[ \t]*define[ \t]+(OPEN_MPI|MPICH_VERSION)[ \t]")
    if(_dmap_mpi_defines MATCHES "OPEN_MPI")
      set(_dmap_mpi_found openmpi)
    elseif(_dmap_mpi_defines MATCHES "MPICH_VERSION")
      set(_dmap_mpi_found mpich)
    endif()
  endif()
endforeach()
if(_dmap_mpi_found AND NOT _dmap_mpi_found STREQUAL DMAP_MPI)
  message(FATAL_ERROR "DMAP_MPI=${DMAP_MPI}, but MPI_CXX_COMPILER (${MPI_CXX_COMPILER}) is ${_dmap_mpi_found}'s: "
                      "configure a fresh build folder, or pass -DMPI_CXX_COMPILER= and -DMPIEXEC_EXECUTABLE= "
                      "of ${DMAP_MPI_LIBRARY_NAME} (Debian: mpicxx.${DMAP_MPI}, mpiexec.${DMAP_MPI})")
elseif(NOT _dmap_mpi_found)
  message(WARNING "dmap: cannot tell which MPI mpi.h belongs to (in ${MPI_CXX_INCLUDE_DIRS}); taking DMAP_MPI=${DMAP_MPI} at its word")
endif()
if(MPIEXEC_EXECUTABLE AND DMAP_MPI STREQUAL "openmpi" AND MPIEXEC_EXECUTABLE MATCHES "mpich|hydra")
  message(FATAL_ERROR "DMAP_MPI=openmpi, but MPIEXEC_EXECUTABLE is ${MPIEXEC_EXECUTABLE}")
elseif(MPIEXEC_EXECUTABLE AND DMAP_MPI STREQUAL "mpich" AND MPIEXEC_EXECUTABLE MATCHES "openmpi|orterun")
  message(FATAL_ERROR "DMAP_MPI=mpich, but MPIEXEC_EXECUTABLE is ${MPIEXEC_EXECUTABLE}")
endif()
message(STATUS "dmap: MPI is ${DMAP_MPI_LIBRARY_NAME} (DMAP_MPI=${DMAP_MPI}): ${MPI_CXX_COMPILER}, launcher ${MPIEXEC_EXECUTABLE}")

# pkg-config's module `mpi`, which Debian's scalapack-openmpi.pc and scalapack-mpich.pc both
# require, is an alternative (mpi.pc, Open MPI's unless changed): scalapack-mpich would bring Open
# MPI's headers and libmpi into an MPICH build. A build-tree mpi.pc that requires the chosen
# implementation's own module (ompi, mpich) comes first on PKG_CONFIG_PATH for the modules this
# configure looks up (HDF5's name its MPI directly).
# Where the implementation has no such module of its own, pkg-config is left as it is.
set(_dmap_mpi_pc_dir "${PROJECT_BINARY_DIR}/pkgconfig-mpi")
if(DMAP_MPI STREQUAL "openmpi")
  set(_dmap_mpi_pc_module ompi)
else()
  set(_dmap_mpi_pc_module mpich)
endif()
find_package(PkgConfig QUIET)
set(_dmap_mpi_pc_rc 1)
if(PKG_CONFIG_EXECUTABLE)
  execute_process(COMMAND "${PKG_CONFIG_EXECUTABLE}" --exists ${_dmap_mpi_pc_module} RESULT_VARIABLE _dmap_mpi_pc_rc
                  OUTPUT_QUIET ERROR_QUIET)
endif()
if(_dmap_mpi_pc_rc EQUAL 0)
  file(CONFIGURE OUTPUT "${_dmap_mpi_pc_dir}/mpi.pc" CONTENT
       "# Written by dmap's configure (cmake/dmapMpi.cmake): pkg-config's `mpi` is DMAP_MPI's (${DMAP_MPI}).\nName: mpi\nDescription: the MPI of dmap's build (${DMAP_MPI_LIBRARY_NAME})\nVersion: ${MPI_CXX_VERSION}\nRequires: ${_dmap_mpi_pc_module}\n")
  if(DEFINED ENV{PKG_CONFIG_PATH} AND NOT "$ENV{PKG_CONFIG_PATH}" STREQUAL "")
    set(ENV{PKG_CONFIG_PATH} "${_dmap_mpi_pc_dir}:$ENV{PKG_CONFIG_PATH}")
  else()
    set(ENV{PKG_CONFIG_PATH} "${_dmap_mpi_pc_dir}")
  endif()
endif()

# How ctest launches MPI jobs.
if(DMAP_MPI STREQUAL "openmpi")
  # Open MPI needs --oversubscribe for more ranks than cores, and --bind-to none so that each
  # rank's oneTBB arena sees every core (binding gives 1 thread/rank). mpi_yield_when_idle: ranks
  # waiting in MPI yield the core instead of spinning, so tests stay quick when ranks and oneTBB
  # threads outnumber the cores (2 ranks on 2 cores is not "oversubscribed" for Open MPI, and
  # spinning ranks there made runs up to 15x slower). Benchmarks do not set it. As root, Open
  # MPI refuses to start without the two ALLOW_RUN_AS_ROOT variables.
  set(DMAP_MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")
  set(_dmap_mpiexec_flags --oversubscribe --bind-to none)
else()
  # MPICH's launcher (Hydra) starts more ranks than cores without a flag and runs as root;
  # -bind-to none (its default, said so that a site default cannot bind) lets each rank's oneTBB
  # arena see every core. MPICH has no setting that makes a waiting rank yield the core (ch4
  # polls; MPIR_CVAR_POLLS_BEFORE_YIELD is ch3's), see docs/building.md.
  set(DMAP_MPI_ENV "")
  set(_dmap_mpiexec_flags -bind-to none)
endif()
set(DMAP_MPIEXEC_FLAGS ${_dmap_mpiexec_flags} CACHE STRING
    "Flags passed to the launcher (MPIEXEC_EXECUTABLE) after '-n K'; the default depends on DMAP_MPI (Open MPI: --oversubscribe --bind-to none; MPICH: -bind-to none)")
