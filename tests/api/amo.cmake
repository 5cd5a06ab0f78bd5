# AMO, point-to-point synchronization, symmetric memory, setup and error tests.
# Multi-PE tests run at every count in SHOAL_TEST_PES (see ../CMakeLists.txt);
# the script-driven ones go through test_errors.sh, which checks exit status and
# messages.
set(SHOAL_API_ERRORS_SH ${CMAKE_CURRENT_SOURCE_DIR}/test_errors.sh)

shoal_pe_test(api.amo SOURCES test_amo.c TIMEOUT 60)
shoal_pe_test(api.amo_generic SOURCES test_amo_generic.c TIMEOUT 60)
shoal_pe_test(api.wait SOURCES test_wait.c TIMEOUT 60)
shoal_pe_test(api.malloc SOURCES test_malloc.c TIMEOUT 60)
shoal_pe_test(api.malloc_exhaust SOURCES test_malloc_exhaust.c TIMEOUT 60
  ENV SHMEM_SYMMETRIC_SIZE=1M)

# Exhaustion warns on stderr, naming the variable to raise; the job still succeeds.
add_test(NAME api.malloc_exhaust.message
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "heap exhausted.*SHMEM_SYMMETRIC_SIZE" +
    -- env SHMEM_SYMMETRIC_SIZE=1M ${SHOAL_OSHRUN} -n 2 --timeout 30
    $<TARGET_FILE:api.malloc_exhaust>)
set_tests_properties(api.malloc_exhaust.message PROPERTIES TIMEOUT 30 LABELS "pe;np2")

# Setup: the default mode through shoal_pe_test, the other modes at every count.
shoal_pe_test(api.setup SOURCES test_setup.c TIMEOUT 30)
foreach(mode thread reinit start_pes)
  foreach(n ${SHOAL_TEST_PES})
    add_test(NAME api.setup.${mode}.np${n}
      COMMAND ${SHOAL_OSHRUN} -n ${n} --timeout 30 $<TARGET_FILE:api.setup> ${mode})
    set_tests_properties(api.setup.${mode}.np${n} PROPERTIES TIMEOUT 30 LABELS "pe;np${n}")
  endforeach()
endforeach()
# SHMEM_INFO and SHMEM_VERSION: PE 0 alone prints the banner (so exactly one line).
add_test(NAME api.setup.info
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "^ *SHMEM_SYMMETRIC_SIZE " 1
    -- env SHMEM_INFO=1 ${SHOAL_OSHRUN} -n 4 --timeout 30 $<TARGET_FILE:api.setup>)
add_test(NAME api.setup.info_size
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "^ *SHMEM_SYMMETRIC_SIZE +(3M|3145728)" 1
    -- env SHMEM_INFO=1 SHMEM_SYMMETRIC_SIZE=3M ${SHOAL_OSHRUN} -n 2 --timeout 30
    $<TARGET_FILE:api.setup>)
add_test(NAME api.setup.version
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0
    "OpenSHMEM ${SHOAL_SPEC_MAJOR}\\.${SHOAL_SPEC_MINOR}" 1
    -- env SHMEM_VERSION=1 ${SHOAL_OSHRUN} -n 4 --timeout 30 $<TARGET_FILE:api.setup>)
add_test(NAME api.setup.quiet
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "SHMEM_SYMMETRIC_SIZE|OpenSHMEM" 0
    -- ${SHOAL_OSHRUN} -n 2 --timeout 30 $<TARGET_FILE:api.setup>)
# SHOAL_LOG: each PE logs its bootstrap line once at info; a bad value stops shmem_init.
add_test(NAME api.setup.log
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "^shoal: PE [0-3]: \\[boot\\] bootstrap oshrun: PE [0-3] of 4" 4
    -- env SHOAL_LOG=boot:info,mem:off ${SHOAL_OSHRUN} -n 4 --timeout 30 $<TARGET_FILE:api.setup>)
add_test(NAME api.setup.log_off
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect 0 "\\[(boot|mem)\\]" 0
    -- env SHOAL_LOG=boot:off,mem:off,shm:info ${SHOAL_OSHRUN} -n 2 --timeout 30 $<TARGET_FILE:api.setup>)
add_test(NAME api.setup.log_bad
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect nonzero "SHOAL_LOG=.*unknown level.*subsystem:level" +
    -- env SHOAL_LOG=ofi:loud ${SHOAL_OSHRUN} -n 2 --timeout 30 $<TARGET_FILE:api.setup>)
set_tests_properties(api.setup.info api.setup.info_size api.setup.version api.setup.quiet
  api.setup.log api.setup.log_off api.setup.log_bad
  PROPERTIES TIMEOUT 30 LABELS "pe")

# Error cases: each mode of test_errors.c at 1, 2 and 4 PEs.
add_executable(api.errors test_errors.c)
target_link_libraries(api.errors PRIVATE shoal)
foreach(mode before_init after_finalize pe_range pe_negative not_symmetric
    not_symmetric_malloc debug_range debug_range_static misaligned misaligned_global
    bad_size bad_size_suffix bad_cmp ctx_invalid global_exit global_exit_all
    free_nonheap free_global free_twice free_interior realloc_nonheap
    # contexts used after shmem_ctx_destroy / shmem_team_destroy
    ctx_destroyed ctx_destroyed_nodebug ctx_destroyed_quiet ctx_destroy_twice
    ctx_team_destroyed team_destroyed team_destroyed_coll typed_overflow
    # arguments of collective routines that differ between PEs (SHMEM_DEBUG)
    malloc_mismatch calloc_mismatch align_mismatch realloc_mismatch
    free_mismatch bcast_root_mismatch reduce_mismatch fcollect_mismatch
    alltoalls_mismatch scan_mismatch
    # zero and huge sizes
    put_overflow zero_and_huge zero_and_huge_debug
    # each family before shmem_init and after shmem_finalize
    before_init_put before_init_p before_init_get before_init_ctx_put before_init_amo
    before_init_reduce before_init_bcast before_init_malloc before_init_free
    after_finalize_put after_finalize_p after_finalize_get after_finalize_ctx_put
    after_finalize_amo after_finalize_quiet after_finalize_reduce after_finalize_bcast
    after_finalize_malloc after_finalize_free)
  add_test(NAME api.errors.${mode}
    COMMAND bash ${SHOAL_API_ERRORS_SH} mode ${SHOAL_OSHRUN} $<TARGET_FILE:api.errors> ${mode})
  set_tests_properties(api.errors.${mode} PROPERTIES TIMEOUT 90 LABELS "pe;errors")
endforeach()
