# 1.6 sessions and pe_quiet, and the shmemx_ extensions (shmemx.h).
shoal_pe_test(api.ext SOURCES test_ext.c)
# Sessions that bundle puts, transform put-with-signal, send AMOs single-transmit.
shoal_pe_test(api.sessions SOURCES test_sessions.c TIMEOUT 120)
# Triggered put-with-signal: fired by the NIC (sockets: FI_TRIGGER) or the library.
shoal_pe_test(api.trigger SOURCES test_trigger.c)
add_test(NAME api.trigger_quiet_early
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect nonzero "PE [0-9]+: shmem_ctx_quiet: a triggered put-with-signal.*shmemx_trigger_increment" +
          -- ${SHOAL_OSHRUN} -n 2 --timeout 60 $<TARGET_FILE:api.trigger> quiet_early)
set_tests_properties(api.trigger_quiet_early PROPERTIES TIMEOUT 90 LABELS "pe;np2;errors")
# HPE Cray OpenSHMEMX's documented routines (source compatibility): a program that
# uses them must not lean on implicit declarations.
shoal_pe_test(api.cx SOURCES test_cx.c)
target_compile_options(api.cx PRIVATE -Werror=implicit-function-declaration)
# Its colour/key split with every kind of result (explicit member lists), at odd sizes
# too; the failure cases do not depend on the transport: once, in mode shm.
shoal_pe_test(api.cx_split SOURCES test_cx_split.c PES 1 2 3 4 5 8)
add_test(NAME api.cx_split_bad_pe
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect nonzero "PE [0-9]+: shmem_ctx_long_p: PE 3 is out of range for the context's team: valid PEs are 0..2" +
          -- ${SHOAL_OSHRUN} -n 3 --timeout 60 $<TARGET_FILE:api.cx_split> bad_pe)
add_test(NAME api.cx_split_null_team
  COMMAND bash ${SHOAL_API_ERRORS_SH} expect nonzero "PE [0-9]+: shmemx_team_split: newteam is NULL" +
          -- ${SHOAL_OSHRUN} -n 2 --timeout 60 $<TARGET_FILE:api.cx_split> null_team)
set_tests_properties(api.cx_split_bad_pe api.cx_split_null_team PROPERTIES TIMEOUT 90
                     LABELS "errors")
# Sandia OpenSHMEM's shmemx.h names (source compatibility).
shoal_pe_test(api.sos_compat SOURCES test_sos_compat.c TIMEOUT 60)
# Sandia OpenSHMEM's performance counters, counting (SHOAL_PCNTR=1) and not.
find_package(Threads REQUIRED)
shoal_pe_test(api.pcntr SOURCES test_pcntr.c ENV SHOAL_PCNTR=1 LIBS Threads::Threads)
shoal_test_limits(60 job ctest)
foreach(n ${SHOAL_TEST_PES})
  add_test(NAME api.pcntr_off.np${n}
    COMMAND ${SHOAL_PE_LAUNCH} -n ${n} --timeout ${job} $<TARGET_FILE:api.pcntr>)
  set_tests_properties(api.pcntr_off.np${n} PROPERTIES TIMEOUT ${ctest} LABELS "pe;np${n}"
                       ENVIRONMENT SHOAL_PCNTR=0)
endforeach()
