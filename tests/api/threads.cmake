# SHMEM_THREAD_MULTIPLE: pthreads per PE on default, shared and private contexts
# (multi-PE; see shoal_pe_test in ../CMakeLists.txt). Also run under the TSan build.
find_package(Threads REQUIRED)
shoal_pe_test(api.threads SOURCES test_threads.c TIMEOUT 120 LIBS Threads::Threads)
# Cray OpenSHMEMX's thread-hot routines: 2 and 4 registered threads per PE, and the
# misuses, each ending the job with a message naming the routine and the remedy.
shoal_pe_test(api.thread_hot SOURCES test_thread_hot.c PES 1 2 4 8 TIMEOUT 60 LIBS Threads::Threads)
shoal_test_limits(60 job ctest)
foreach(n 2 4)
  add_test(NAME api.thread_hot.t2.np${n}
    COMMAND ${SHOAL_PE_LAUNCH} -n ${n} --timeout ${job} $<TARGET_FILE:api.thread_hot> 2)
  set_tests_properties(api.thread_hot.t2.np${n} PROPERTIES TIMEOUT ${ctest} LABELS "pe;np${n}")
endforeach()
# 16 registered threads, the most the test program has: once, on one node (and under
# the TSan build).
add_test(NAME api.thread_hot.t16.np2
  COMMAND ${SHOAL_PE_LAUNCH} -n 2 --timeout ${job} $<TARGET_FILE:api.thread_hot> 16)
set_tests_properties(api.thread_hot.t16.np2 PROPERTIES TIMEOUT ${ctest} LABELS "np2")
foreach(case
    "double|shmemx_thread_register: this thread is registered already.*shmemx_thread_unregister"
    "unregistered|shmemx_thread_unregister: this thread is not registered"
    "unbalanced|shmem_finalize: 1 thread is still registered.*shmemx_thread_unregister"
    "single|shmemx_thread_register: needs SHMEM_THREAD_MULTIPLE.*shmem_init_thread"
    "limit|shmemx_thread_register: 2 threads are registered already.*raise SHOAL_MAX_THREADS"
    "pending|shmemx_thread_quiet: a triggered put-with-signal on this context still waits for its trigger.*shmemx_trigger_increment")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 mode)
  list(GET parts 1 regex)
  add_test(NAME api.thread_hot.${mode}
    COMMAND bash ${SHOAL_API_ERRORS_SH} expect nonzero "PE [0-9]+: ${regex}" +
            -- env SHOAL_MAX_THREADS=2 ${SHOAL_PE_LAUNCH} -n 2 --timeout ${job}
            $<TARGET_FILE:api.thread_hot> 3 ${mode})
  # Only the limit case depends on the transport (its contexts' resources): the others
  # run once, in shm mode, not in every network mode.
  if(mode STREQUAL "limit")
    set(labels "pe;np2;errors")
  else()
    set(labels "np2;errors")
  endif()
  set_tests_properties(api.thread_hot.${mode} PROPERTIES TIMEOUT ${ctest} LABELS "${labels}")
endforeach()
