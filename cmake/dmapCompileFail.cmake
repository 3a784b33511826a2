# Compiles SOURCE with the command the build uses for it (BUILD_DIR/compile_commands.json), prints
# what the compiler said and fails when the compiler fails. The compile-fail tests run this instead
# of `cmake --build --target ...`, which takes the build tree and so ran them one at a time.
#
#   cmake -DBUILD_DIR=<build> -DSOURCE=<absolute path of the .cpp> -P dmapCompileFail.cmake
foreach(_var BUILD_DIR SOURCE)
  if(NOT ${_var})
    message(FATAL_ERROR "dmapCompileFail.cmake: set -D${_var}=...")
  endif()
endforeach()
file(READ "${BUILD_DIR}/compile_commands.json" _json)

# CMake writes one object per source: "directory", "command", "file", "output", in that order.
string(FIND "${_json}" "\"file\": \"${SOURCE}\"" _at)
if(_at EQUAL -1)
  message(FATAL_ERROR "dmapCompileFail.cmake: ${SOURCE} is not in ${BUILD_DIR}/compile_commands.json")
endif()
string(SUBSTRING "${_json}" 0 ${_at} _before)
string(FIND "${_before}" "\"command\": \"" _command_at REVERSE)
string(FIND "${_before}" "\"directory\": \"" _directory_at REVERSE)
math(EXPR _command_at "${_command_at} + 12")
math(EXPR _directory_at "${_directory_at} + 14")
string(SUBSTRING "${_before}" ${_command_at} -1 _command)
string(SUBSTRING "${_before}" ${_directory_at} -1 _directory)
string(REGEX REPLACE "\",[ \t\r\n]*$" "" _command "${_command}")
string(REGEX REPLACE "\",.*$" "" _directory "${_directory}")
# JSON escapes of the command line: \" and \\.
string(REPLACE "\\\"" "\"" _command "${_command}")
string(REPLACE "\\\\" "\\" _command "${_command}")

# The object and its dependency file go where the build puts them; make their folder.
if(_command MATCHES " -o ([^ ]+)")
  get_filename_component(_object_dir "${CMAKE_MATCH_1}" DIRECTORY BASE_DIR "${_directory}")
  file(MAKE_DIRECTORY "${_object_dir}")
endif()
separate_arguments(_args UNIX_COMMAND "${_command}")
execute_process(COMMAND ${_args} WORKING_DIRECTORY "${_directory}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out
                ERROR_VARIABLE _out)
message("${_out}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "dmapCompileFail.cmake: the compiler failed (${_rc}) on ${SOURCE}")
endif()
