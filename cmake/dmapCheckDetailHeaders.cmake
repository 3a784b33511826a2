# Checks that the library's machinery lives in detail/ headers only (docs/design.md): a public
# header (one not under a detail/ folder) of a layer must not open `namespace detail` (nor
# `namespace dmap::detail`, `namespace dmap::<x>::detail`). A public header declares what a
# user may name and includes its machinery from detail/.
#
# _not_yet_moved lists the public headers whose machinery still waits to move; the list may
# only shrink: a header on it that no longer opens `namespace detail` is an error too, so
# the list stays true. Usage: cmake -DROOT=<source root> -P dmapCheckDetailHeaders.cmake
cmake_minimum_required(VERSION 3.21)
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "dmapCheckDetailHeaders: pass -DROOT=<the folder holding the layer folders>")
endif()

set(_layers runtime dsi layouts dists iterators algorithms io interop conformance)
set(_not_yet_moved)
if(DEFINED NOT_YET_MOVED)  # a fixture names its own list (or none: -DNOT_YET_MOVED=)
  set(_not_yet_moved ${NOT_YET_MOVED})
endif()

set(_violations "")
set(_checked 0)
foreach(_layer IN LISTS _layers)
  file(GLOB_RECURSE _headers "${ROOT}/${_layer}/*.hpp")
  foreach(_header IN LISTS _headers)
    file(RELATIVE_PATH _from "${ROOT}" "${_header}")
    if(_from MATCHES "(^|/)detail/")
      continue()
    endif()
    math(EXPR _checked "${_checked} + 1")
    file(STRINGS "${_header}" _opens REGEX "^[ \t]*namespace[ \t]+([A-Za-z_0-9]+::)*detail[ \t]*\\{")
    if(_from IN_LIST _not_yet_moved)
      if(NOT _opens)
        list(APPEND _violations "${_from} opens no namespace detail any more: take it off _not_yet_moved")
      endif()
    elseif(_opens)
      list(APPEND _violations "${_from} is a public header and opens namespace detail: move that block to a ${_layer}/detail/ header")
    endif()
  endforeach()
endforeach()

if(_checked EQUAL 0)
  message(FATAL_ERROR "dmapCheckDetailHeaders: no public headers found under ${ROOT}")
endif()
if(_violations)
  list(JOIN _violations "\n  " _text)
  message(FATAL_ERROR "dmapCheckDetailHeaders: machinery outside detail/ headers:\n  ${_text}")
endif()
list(LENGTH _not_yet_moved _waiting)
message(STATUS "dmapCheckDetailHeaders: ${_checked} public headers keep their machinery in detail/ (${_waiting} still to move)")
