# Splits a fixture library the way distributions ship theirs (cmake -P, at build time):
#   OUTPUT          INPUT with every symbol table but .dynsym stripped, and a .gnu_debuglink
#                   naming DEBUGLINK_NAME
#   ROOTS/by_id     a debug root holding INPUT's debug file by build-id: .build-id/ab/cdef....debug
#   ROOTS/by_link   a debug root holding it by .gnu_debuglink: <root><OUTPUT's directory>/DEBUGLINK_NAME
#   ROOTS/mismatched  both places, but holding VARIANT's debug file (another build-id): never to be used
# Arguments: INPUT VARIANT OUTPUT DEBUGLINK_NAME ROOTS OBJCOPY READELF.

foreach(argument INPUT VARIANT OUTPUT DEBUGLINK_NAME ROOTS OBJCOPY READELF)
  if(NOT DEFINED ${argument})
    message(FATAL_ERROR "split_debug.cmake: ${argument} is not set")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "split_debug.cmake: ${ARGN} failed: ${output}")
  endif()
endfunction()

# The relative path of FILE's debug file in a build-id tree: .build-id/ab/cdef....debug.
function(build_id_path file out)
  execute_process(COMMAND "${READELF}" -n "${file}" OUTPUT_VARIABLE notes RESULT_VARIABLE result)
  string(REGEX MATCH "Build ID: ([0-9a-f]+)" match "${notes}")
  if(NOT result EQUAL 0 OR NOT CMAKE_MATCH_1)
    message(FATAL_ERROR "split_debug.cmake: ${file} has no build-id")
  endif()
  string(SUBSTRING "${CMAKE_MATCH_1}" 0 2 head)
  string(SUBSTRING "${CMAKE_MATCH_1}" 2 -1 tail)
  set(${out} ".build-id/${head}/${tail}.debug" PARENT_SCOPE)
endfunction()

# Copies FILE to each of the remaining arguments (full paths), creating their directories.
function(place file)
  foreach(destination IN LISTS ARGN)
    get_filename_component(directory "${destination}" DIRECTORY)
    file(MAKE_DIRECTORY "${directory}")
    file(COPY_FILE "${file}" "${destination}")
  endforeach()
endfunction()

get_filename_component(output_dir "${OUTPUT}" DIRECTORY)
set(scratch "${ROOTS}/scratch")
file(REMOVE_RECURSE "${ROOTS}")
file(MAKE_DIRECTORY "${scratch}/variant" "${output_dir}")

build_id_path("${INPUT}" id_path)
run("${OBJCOPY}" --only-keep-debug "${INPUT}" "${scratch}/${DEBUGLINK_NAME}")
run("${OBJCOPY}" --strip-all "--add-gnu-debuglink=${scratch}/${DEBUGLINK_NAME}" "${INPUT}" "${OUTPUT}")
place("${scratch}/${DEBUGLINK_NAME}" "${ROOTS}/by_id/${id_path}" "${ROOTS}/by_link${output_dir}/${DEBUGLINK_NAME}")

run("${OBJCOPY}" --only-keep-debug "${VARIANT}" "${scratch}/variant/${DEBUGLINK_NAME}")
place("${scratch}/variant/${DEBUGLINK_NAME}" "${ROOTS}/mismatched/${id_path}"
      "${ROOTS}/mismatched${output_dir}/${DEBUGLINK_NAME}")
