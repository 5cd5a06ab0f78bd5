# 1.6 sessions and pe_quiet, and the shmemx_ extensions (shmemx.h).
shoal_pe_test(api.ext SOURCES test_ext.c)
