# FindLASzip: LASzip (https://laszip.org) ships no CMake config.
#
# Defines LASzip::LASzip (imported) and LASzip_FOUND, LASzip_INCLUDE_DIR, LASzip_LIBRARY.
# The target links liblaszip itself: the DLL-style liblaszip_api wrapper loads liblaszip at run
# time, and linking it first makes every call crash, so it is deliberately not used.
find_path(LASzip_INCLUDE_DIR NAMES laszip/laszip_api.h)
find_library(LASzip_LIBRARY NAMES laszip)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LASzip REQUIRED_VARS LASzip_LIBRARY LASzip_INCLUDE_DIR)

if(LASzip_FOUND AND NOT TARGET LASzip::LASzip)
  add_library(LASzip::LASzip UNKNOWN IMPORTED)
  set_target_properties(LASzip::LASzip PROPERTIES
    IMPORTED_LOCATION "${LASzip_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LASzip_INCLUDE_DIR}")
endif()
mark_as_advanced(LASzip_INCLUDE_DIR LASzip_LIBRARY)
