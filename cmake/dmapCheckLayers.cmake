# Checks that the library's headers include one way along the layers of docs/design.md:
#
#   runtime <- dsi <- layouts <- dists        dsi <- iterators <- algorithms
#   algorithms <- io (files); interop and the conformance kit sit on top; dmap.hpp includes
#   everything.
#
# A header may include headers of its own layer and of the layers it sits on, nothing
# upward or sideways. Usage: cmake -DROOT=<source root> -P dmapCheckLayers.cmake
# Exits with an error listing every include that runs against the order.
cmake_minimum_required(VERSION 3.21)
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "dmapCheckLayers: pass -DROOT=<the folder holding the layer folders>")
endif()

set(_allowed_runtime    runtime)
set(_allowed_dsi        runtime dsi)
set(_allowed_layouts    runtime dsi layouts)
set(_allowed_dists      runtime dsi layouts dists)
set(_allowed_iterators  runtime dsi iterators)
set(_allowed_algorithms runtime dsi iterators algorithms)
set(_allowed_io         runtime dsi iterators algorithms io)
set(_allowed_interop    runtime dsi layouts dists iterators algorithms io interop)
set(_allowed_conformance runtime dsi layouts dists iterators algorithms io interop conformance)
set(_layers runtime dsi layouts dists iterators algorithms io interop conformance)

set(_violations "")
set(_checked 0)
foreach(_layer IN LISTS _layers)
  file(GLOB_RECURSE _headers "${ROOT}/${_layer}/*.hpp")
  foreach(_header IN LISTS _headers)
    math(EXPR _checked "${_checked} + 1")
    get_filename_component(_dir "${_header}" DIRECTORY)
    file(STRINGS "${_header}" _includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(_line IN LISTS _includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" _target "${_line}")
      get_filename_component(_resolved "${_dir}/${_target}" ABSOLUTE)
      file(RELATIVE_PATH _relative "${ROOT}" "${_resolved}")
      file(RELATIVE_PATH _from "${ROOT}" "${_header}")
      if(_relative MATCHES "^\\.\\./")
        list(APPEND _violations "${_from} includes ${_target}, outside the library")
        continue()
      endif()
      string(REGEX MATCH "^[^/]+" _target_layer "${_relative}")
      if(NOT _target_layer IN_LIST _allowed_${_layer})
        list(APPEND _violations "${_from} (layer ${_layer}) includes ${_relative} (layer ${_target_layer})")
      endif()
    endforeach()
  endforeach()
endforeach()

if(_checked EQUAL 0)
  message(FATAL_ERROR "dmapCheckLayers: no headers found under ${ROOT}")
endif()
if(_violations)
  list(JOIN _violations "\n  " _text)
  message(FATAL_ERROR "dmapCheckLayers: includes against the layer order:\n  ${_text}")
endif()
message(STATUS "dmapCheckLayers: ${_checked} headers include one way along the layers")
