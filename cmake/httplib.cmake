# httplib::httplib: Debian's cpp-httplib (libcpp-httplib-dev), a compiled library whose header
# changes its classes with the feature definitions the library was built with. Those are read
# from the library's pkg-config file rather than through the pkg-config program, which the GPU
# machine's package kit (bench/gpu) does not have.
if(TARGET httplib::httplib)
  return()
endif()
find_path(HTTPLIB_INCLUDE_DIR httplib.h REQUIRED)
find_library(HTTPLIB_LIBRARY cpp-httplib REQUIRED)
get_filename_component(_httplib_libdir "${HTTPLIB_LIBRARY}" DIRECTORY)
set(_httplib_pc "${_httplib_libdir}/pkgconfig/cpp-httplib.pc")
if(NOT EXISTS "${_httplib_pc}")
  message(FATAL_ERROR "petname: ${_httplib_pc} not found (is libcpp-httplib-dev installed?)")
endif()
file(STRINGS "${_httplib_pc}" _httplib_cflags REGEX "^Cflags:")
string(REGEX MATCHALL "-D[A-Za-z0-9_]+" _httplib_defs "${_httplib_cflags}")
list(TRANSFORM _httplib_defs REPLACE "^-D" "")
add_library(httplib::httplib UNKNOWN IMPORTED GLOBAL)
set_target_properties(httplib::httplib PROPERTIES
  IMPORTED_LOCATION "${HTTPLIB_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${HTTPLIB_INCLUDE_DIR}"
  INTERFACE_COMPILE_DEFINITIONS "${_httplib_defs}")
