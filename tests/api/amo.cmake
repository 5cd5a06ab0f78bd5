# AMO, point-to-point synchronization, symmetric memory, setup and error tests.
# Multi-PE tests run at every count in SHOAL_TEST_PES (see ../CMakeLists.txt);
# the script-driven ones go through test_errors.sh, which checks exit status and
# messages.
set(SHOAL_API_ERRORS_SH ${CMAKE_CURRENT_SOURCE_DIR}/test_errors.sh)

shoal_pe_test(api.amo SOURCES test_amo.c TIMEOUT 60)
shoal_pe_test(api.amo_generic SOURCES test_amo_generic.c TIMEOUT 60)
shoal_pe_test(api.wait SOURCES test_wait.c TIMEOUT 60)
# A PE polling its own memory with fetching AMOs only: the peers still progress.
shoal_pe_test(api.self_poll SOURCES test_self_poll.c TIMEOUT 60)
shoal_pe_test(api.malloc SOURCES test_malloc.c TIMEOUT 60)
shoal_pe_test(api.malloc_exhaust SOURCES test_malloc_exhaust.c TIMEOUT 60
  ENV SHMEM_SYMMETRIC_SIZE=1M)

shoal_test_limits(30 job ctest)
# Exhaustion warns on stderr, naming the variable to raise; the job still succeeds.
add_test(NAME api.malloc_exhaust.message
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "heap exhausted.*SHMEM_SYMMETRIC_SIZE" +
    -- env SHMEM_SYMMETRIC_SIZE=1M ${SHOAL_PE_LAUNCH} -n 2 --timeout ${job}
    $<TARGET_FILE:api.malloc_exhaust>)
set_tests_properties(api.malloc_exhaust.message PROPERTIES TIMEOUT ${ctest} LABELS "pe;np2")

# Setup: the default mode through shoal_pe_test, the other modes at every count.
shoal_pe_test(api.setup SOURCES test_setup.c TIMEOUT 30)
foreach(mode thread reinit start_pes)
  foreach(n ${SHOAL_TEST_PES})
    add_test(NAME api.setup.${mode}.np${n}
      COMMAND ${SHOAL_PE_LAUNCH} -n ${n} --timeout ${job} $<TARGET_FILE:api.setup> ${mode})
    set_tests_properties(api.setup.${mode}.np${n} PROPERTIES TIMEOUT ${ctest} LABELS "pe;np${n}")
  endforeach()
endforeach()
# SHMEM_INFO and SHMEM_VERSION: PE 0 alone prints the banner (so exactly one line).
add_test(NAME api.setup.info
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "^ *SHMEM_SYMMETRIC_SIZE " 1
    -- env SHMEM_INFO=1 ${SHOAL_PE_LAUNCH} -n 4 --timeout ${job} $<TARGET_FILE:api.setup>)
add_test(NAME api.setup.info_size
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "^ *SHMEM_SYMMETRIC_SIZE +(3M|3145728)" 1
    -- env SHMEM_INFO=1 SHMEM_SYMMETRIC_SIZE=3M ${SHOAL_PE_LAUNCH} -n 2 --timeout ${job}
    $<TARGET_FILE:api.setup>)
add_test(NAME api.setup.version
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0
    "OpenSHMEM ${SHOAL_SPEC_MAJOR}\\.${SHOAL_SPEC_MINOR}" 1
    -- env SHMEM_VERSION=1 ${SHOAL_PE_LAUNCH} -n 4 --timeout ${job} $<TARGET_FILE:api.setup>)
add_test(NAME api.setup.quiet
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "SHMEM_SYMMETRIC_SIZE|OpenSHMEM" 0
    -- ${SHOAL_PE_LAUNCH} -n 2 --timeout ${job} $<TARGET_FILE:api.setup>)
# How waiting PEs wait (spin with a core each, back off when crowded), per SHMEM_INFO.
add_test(NAME api.setup.wait_policy
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/wait_policy.sh ${SHOAL_OSHRUN}
    $<TARGET_FILE:api.setup>)
# SHOAL_LOG: each PE logs its bootstrap line once at info; a bad value stops shmem_init.
add_test(NAME api.setup.log
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "^shoal: PE [0-3]: \\[boot\\] bootstrap oshrun: PE [0-3] of 4" 4
    -- env SHOAL_LOG=boot:info,mem:off ${SHOAL_OSHRUN} -n 4 --timeout ${job} $<TARGET_FILE:api.setup>)
add_test(NAME api.setup.log_off
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "\\[(boot|mem)\\]" 0
    -- env SHOAL_LOG=boot:off,mem:off,shm:info ${SHOAL_OSHRUN} -n 2 --timeout ${job} $<TARGET_FILE:api.setup>)
add_test(NAME api.setup.log_bad
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect nonzero "SHOAL_LOG=.*unknown level.*channel:level" +
    -- env SHOAL_LOG=ofi:loud ${SHOAL_OSHRUN} -n 2 --timeout ${job} $<TARGET_FILE:api.setup>)
set_tests_properties(api.setup.info api.setup.info_size api.setup.version api.setup.quiet
  PROPERTIES TIMEOUT ${ctest} LABELS "pe")
# They check what oshrun's PEs print: not run in the mpirun test modes.
set_tests_properties(api.setup.log api.setup.log_off api.setup.log_bad api.setup.wait_policy
  PROPERTIES TIMEOUT ${ctest} LABELS "pe;oshrun")

# Error cases: one test per row of error_cases.h, which also says how to run and judge
# it (test_errors.sh asks api.errors --spec MODE).
add_executable(api.errors test_errors.c)
target_link_libraries(api.errors PRIVATE shoal)
file(READ ${CMAKE_CURRENT_SOURCE_DIR}/error_cases.h error_table)
string(REGEX MATCHALL "\n *X\\([a-z0-9_]+," error_rows "${error_table}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${CMAKE_CURRENT_SOURCE_DIR}/error_cases.h)
# Up to three jobs (test_errors.sh mode: PE counts), each with a --timeout of 20 s
# that test_errors.sh stretches by SHOAL_TEST_TIMEOUT_SCALE.
shoal_test_limits(70 job ctest)
foreach(row ${error_rows})
  string(REGEX REPLACE "^\n *X\\(([a-z0-9_]+),$" "\\1" mode "${row}")
  add_test(NAME api.errors.${mode}
    COMMAND bash ${SHOAL_API_ERRORS_SH} mode ${SHOAL_OSHRUN} $<TARGET_FILE:api.errors> ${mode})
  set_tests_properties(api.errors.${mode} PROPERTIES TIMEOUT ${ctest} LABELS "pe;errors")
endforeach()
