# The `docs` target: the API reference from the header comments (Doxygen, warnings as errors),
# written to <build>/docs/html. The ctest test `docs_api_reference` builds it, so an undocumented
# public entity fails the test suite.
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  if(DMAP_BUILD_TESTS)
    dmap_missing_test_tool("Doxygen not found (doxygen): no `docs` target and no docs_api_reference test")
  else()
    message(STATUS "dmap: Doxygen not found; no `docs` target (scripts/install-deps.sh installs it)")
  endif()
  return()
endif()

set(DMAP_DOCS_OUTPUT "${PROJECT_BINARY_DIR}/docs")
set(_inputs "${PROJECT_SOURCE_DIR}/docs/api-mainpage.md" "${PROJECT_SOURCE_DIR}/dmap.hpp" "${PROJECT_SOURCE_DIR}/core.hpp")
foreach(_dir IN LISTS DMAP_HEADER_DIRS)
  list(APPEND _inputs "${PROJECT_SOURCE_DIR}/${_dir}")
endforeach()
list(JOIN _inputs " " DMAP_DOCS_INPUT)
file(MAKE_DIRECTORY "${DMAP_DOCS_OUTPUT}")
configure_file("${PROJECT_SOURCE_DIR}/docs/Doxyfile.in" "${DMAP_DOCS_OUTPUT}/Doxyfile" @ONLY)

add_custom_target(docs
  COMMAND "${DOXYGEN_EXECUTABLE}" "${DMAP_DOCS_OUTPUT}/Doxyfile"
  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
  COMMENT "Generating the API reference in ${DMAP_DOCS_OUTPUT}/html"
  VERBATIM)

if(DMAP_BUILD_TESTS)
  add_test(NAME docs_api_reference COMMAND "${DOXYGEN_EXECUTABLE}" "${DMAP_DOCS_OUTPUT}/Doxyfile"
           WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
  set_tests_properties(docs_api_reference PROPERTIES LABELS docs TIMEOUT 300)
endif()
