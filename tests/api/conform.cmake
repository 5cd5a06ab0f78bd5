# OpenSHMEM conformance points: _any fairness, quiet/fence on
# SHMEM_CTX_INVALID, shmem_align below sizeof(void *).
shoal_pe_test(api.conform SOURCES test_conform.c)

# C11 generic calls with an unsupported type fail to compile with a message naming the
# routine (shoal_shmem_put_unsupported_argument_type), not "too many arguments".
add_test(NAME api.c11_unsupported_type
  COMMAND ${CMAKE_C_COMPILER} -std=c11 -fsyntax-only -I${PROJECT_SOURCE_DIR}/include
          ${CMAKE_CURRENT_SOURCE_DIR}/c11_unsupported.c)
set_tests_properties(api.c11_unsupported_type PROPERTIES TIMEOUT 30 PASS_REGULAR_EXPRESSION
  "shoal_shmem_put_unsupported_argument_type.*\n(.*\n)*.*shoal_shmem_atomic_add_unsupported_argument_type")

# Crashes keep their signal (exit status 128+S) and Shoal's message naming the PE,
# and leave no backtrace files, whatever crash handlers providers install.
# A sanitizer's own SEGV handler would report the crash instead of Shoal's: it is
# told to stand aside, as a user debugging with one would not.
set(crash_env "")
if(SHOAL_SANITIZE)
  set(crash_env "ASAN_OPTIONS=handle_segv=0:detect_leaks=0")
endif()
add_executable(api.crash test_crash.c)
target_link_libraries(api.crash PRIVATE shoal)
foreach(n 1 2 4 8)
  foreach(c "segv;139;shoal: PE [0-9]+: killed by signal 11 \\(Segmentation fault\\)"
            "abort;134;shoal: PE [0-9]+: killed by signal 6 \\(Aborted\\)"
            "term;143;was killed by signal 15" "int;130;was killed by signal 2")
    list(GET c 0 how)
    list(GET c 1 status)
    list(GET c 2 msg)
    add_test(NAME api.crash.${how}.np${n}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/crash.sh ${SHOAL_OSHRUN} $<TARGET_FILE:api.crash>
              ${n} ${status} ${msg} ${how})
    # Label oshrun: what they check is oshrun's exit status and report.
    set_tests_properties(api.crash.${how}.np${n} PROPERTIES TIMEOUT 40 LABELS "pe;np${n};oshrun"
      ENVIRONMENT "${crash_env}")
  endforeach()
endforeach()
# Before shmem_init too: the handlers are taken back when libshoal loads.
add_test(NAME api.crash.segv_noinit
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/crash.sh ${SHOAL_OSHRUN} $<TARGET_FILE:api.crash>
          1 139 "shoal: killed by signal 11 \\(Segmentation fault\\)" segv noinit)
set_tests_properties(api.crash.segv_noinit PROPERTIES TIMEOUT 40 ENVIRONMENT "${crash_env}")

# oshrun --timeout asks every PE where it is blocked: every PE waits forever in
# shmem_long_wait_until. Not in sanitizer builds: their instrumented frames hide the
# routine from the report's decoder.
if(NOT SHOAL_SANITIZE)
add_test(NAME api.blocked_report
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/api/test_errors.sh expect 124
    "^shoal: PE [01]: blocked in shmem_long_wait_until$" 2
    -- ${SHOAL_OSHRUN} -n 2 --timeout 3 $<TARGET_FILE:api.crash> hang)
set_tests_properties(api.blocked_report PROPERTIES TIMEOUT 30 LABELS "pe;oshrun")
endif()

# A PE still inside shmem_init answers too, naming the phase: the last PE is held up
# before it gives its host name, so every PE waits in shmem_init's exchange of host
# names (at 1 PE, the lone PE itself). Each must say so; the job ends by --timeout.
# Not under TSan, which runs a signal's handler only once the interrupted call
# returns, and the bootstrap's recv, restarted (SA_RESTART), does not return.
if(NOT SHOAL_SANITIZE STREQUAL "thread")
add_executable(api.init_stall test_init_stall.c)
target_link_libraries(api.init_stall PRIVATE shoal)
shoal_test_limits(3 stall_job stall_ctest)
foreach(n 1 2 4 8)
  add_test(NAME api.blocked_report.init.np${n}
    COMMAND bash ${PROJECT_SOURCE_DIR}/tests/api/test_errors.sh expect 124
      "^shoal: PE [0-9]+: blocked in shmem_init: exchanging host names with the other PEs$" ${n}
      -- ${SHOAL_OSHRUN} -n ${n} --timeout ${stall_job} $<TARGET_FILE:api.init_stall>)
  set_tests_properties(api.blocked_report.init.np${n} PROPERTIES TIMEOUT ${stall_ctest}
    LABELS "pe;np${n};oshrun")
endforeach()
# Over libfabric (every PE on a node of its own), the last PE is held up where the
# transport asks for its host name: every PE waits while opening its endpoint.
if(NOT SHOAL_OFI STREQUAL "OFF")
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(OFI_STALL QUIET libfabric>=1.10)
  endif()
  if(OFI_STALL_FOUND)
    foreach(n 2 4)
      add_test(NAME api.blocked_report.init_ofi.np${n}
        COMMAND bash ${PROJECT_SOURCE_DIR}/tests/api/test_errors.sh expect 124
          "^shoal: PE [0-9]+: blocked in shmem_init: opening the libfabric endpoint$" ${n}
          -- ${SHOAL_OSHRUN} -n ${n} --timeout ${stall_job} $<TARGET_FILE:api.init_stall> 2)
      set_tests_properties(api.blocked_report.init_ofi.np${n} PROPERTIES
        TIMEOUT ${stall_ctest} LABELS "np${n};oshrun"
        ENVIRONMENT "SHOAL_NODE_MAP=pe;SHMEM_OFI_PROVIDER=tcp\\;ofi_rxm")
    endforeach()
  endif()
endif()
endif()

# Mismatched collectives end the job with a message instead of a hang: PE 0's
# extra barrier leaves it in shmem_finalize after the others finalized;
# the others' reduction (or active-set barrier) after the last PE finalized (its
# finalize matched their barrier) can never complete: each of them may say so before
# the job ends, hence "+". The message names the PE, the routine and the counts;
# test_errors.sh fails a job that takes 10 s or more to end after the message (or
# runs into its --timeout). staggered: PEs that finalize
# at different times after working alone are no mismatch.
set(mismatch_cause "the PEs made different numbers of collective calls")
# Sanitizer builds' instrumented frames may hide the routine from the stack walk.
set(mm_fin "shmem_finalize")
set(mm_red "shmem_long_sum_reduce")
set(mm_psync "shmem_broadcast64")
if(SHOAL_SANITIZE)
  set(mm_fin "[a-z_ ]+")
  set(mm_red "[a-z_ ]+")
  set(mm_psync "[a-z0-9_ ]+")
endif()
foreach(n 2 4 8)
  math(EXPR last "${n} - 1")
  add_test(NAME api.coll_mismatch.barrier.np${n}
    COMMAND bash ${PROJECT_SOURCE_DIR}/tests/api/test_errors.sh expect 1
      "^shoal: PE 0: ${mm_fin}: PE [1-9] has already finalized after 3 synchronisations of SHMEM_TEAM_WORLD .*, while this PE waits in its 4th; ${mismatch_cause}" 1
      -- ${SHOAL_OSHRUN} -n ${n} --timeout 20 $<TARGET_FILE:api.crash> extra_barrier)
  add_test(NAME api.coll_mismatch.reduce.np${n}
    COMMAND bash ${PROJECT_SOURCE_DIR}/tests/api/test_errors.sh expect 1
      "^shoal: PE [0-9]: ${mm_red}: PE ${last} has already finalized after 2 synchronisations of SHMEM_TEAM_WORLD .*, while this PE waits in its 3rd; ${mismatch_cause}" +
      -- ${SHOAL_OSHRUN} -n ${n} --timeout 20 $<TARGET_FILE:api.crash> extra_reduce)
  add_test(NAME api.coll_mismatch.psync.np${n}
    COMMAND bash ${PROJECT_SOURCE_DIR}/tests/api/test_errors.sh expect 1
      "^shoal: PE [0-9]: ${mm_psync}: PE ${last} has already finalized, at its 3rd synchronisation of SHMEM_TEAM_WORLD, which this PE made as its 3rd and passed before this collective, so this PE's own shmem_finalize can never match it; ${mismatch_cause}" +
      -- ${SHOAL_OSHRUN} -n ${n} --timeout 20 $<TARGET_FILE:api.crash> extra_psync)
  add_test(NAME api.coll_mismatch.staggered.np${n}
    COMMAND bash ${PROJECT_SOURCE_DIR}/tests/api/test_errors.sh expect 0
      "^staggered: PE [0-9]+ done$" ${n}
      -- ${SHOAL_OSHRUN} -n ${n} --timeout 20 $<TARGET_FILE:api.crash> staggered)
  set_tests_properties(api.coll_mismatch.barrier.np${n} api.coll_mismatch.reduce.np${n}
    api.coll_mismatch.psync.np${n} api.coll_mismatch.staggered.np${n} PROPERTIES TIMEOUT 40 LABELS "pe;np${n};oshrun")
endforeach()
