# The docs check: scripts/check_docs.py keeps the docs true to the sources (README size and
# commands, no issue numbers or outside paths, the census threshold, the test counts, every CMake
# option in docs/building.md, every public header in docs/api.md, relative links and anchors,
# dated times). Included from the top CMakeLists.txt after enable_testing().
#
#   docs_check                      the repository passes every rule
#   docs_check_catches_violations   tests/docs_fixture breaks every rule, and the script says so
if(NOT Python3_EXECUTABLE)
  find_package(Python3 COMPONENTS Interpreter)
endif()
if(NOT Python3_EXECUTABLE)
  message(STATUS "dmap: no Python 3 interpreter; no docs_check test")
  return()
endif()

add_test(NAME docs_check
         COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/check_docs.py"
                 --root "${PROJECT_SOURCE_DIR}")
add_test(NAME docs_check_catches_violations
         COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/check_docs.py"
                 --root "${PROJECT_SOURCE_DIR}/tests/docs_fixture")
set_tests_properties(docs_check docs_check_catches_violations PROPERTIES LABELS "docs;quick")
set_tests_properties(docs_check_catches_violations PROPERTIES
  PASS_REGULAR_EXPRESSION
  "violations of rules: api-headers, census, cmake-options, counts, issue-numbers, links, outside-paths, readme-commands, readme-size, times")
