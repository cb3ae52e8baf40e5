# Included by ctest after gtest_discover_tests ran: engine tests measure sampling rates, so they run
# alone (RUN_SERIAL).
get_property(_tests DIRECTORY PROPERTY TESTS)
foreach(_t IN LISTS _tests)
  if(_t MATCHES "^profiler_tests\\.EngineTest\\.")
    set_tests_properties(${_t} PROPERTIES RUN_SERIAL ON)
  endif()
endforeach()
