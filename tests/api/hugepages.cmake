# The heap on huge pages, reserved or transparent, and the fallback without them
# (hugepages.sh). The script runs its jobs in both the shared-memory and the ofi
# setting itself, so it is registered once, outside the transport modes.
add_executable(api.hugepages test_hugepages.c)
target_link_libraries(api.hugepages PRIVATE shoal)
target_include_directories(api.hugepages PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/../common)
# 12 jobs of up to 30 s each, and the wait for another run's lock.
shoal_test_limits(500 job ctest)
add_test(NAME api.hugepages
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/hugepages.sh ${SHOAL_OSHRUN}
    $<TARGET_FILE:api.hugepages>)
set_tests_properties(api.hugepages PROPERTIES TIMEOUT ${ctest} SKIP_RETURN_CODE 77
  LABELS "oshrun")
