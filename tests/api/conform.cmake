# OpenSHMEM conformance points (issue 15 item 8): _any fairness, quiet/fence on
# SHMEM_CTX_INVALID, shmem_align below sizeof(void *).
shoal_pe_test(api.conform SOURCES test_conform.c)
