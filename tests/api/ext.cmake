# 1.6 sessions and pe_quiet, and the shmemx_ extensions (shmemx.h).
shoal_pe_test(api.ext SOURCES test_ext.c)
# Sessions that bundle puts, transform put-with-signal, send AMOs single-transmit.
shoal_pe_test(api.sessions SOURCES test_sessions.c TIMEOUT 120)
