# 1.6 sessions and pe_quiet, and the shmemx_ extensions (shmemx.h).
shoal_pe_test(api.ext SOURCES test_ext.c)
# Sandia OpenSHMEM's shmemx.h names (source compatibility).
shoal_pe_test(api.sos_compat SOURCES test_sos_compat.c TIMEOUT 60)
