# SHMEM_THREAD_MULTIPLE: pthreads per PE on default, shared and private contexts
# (multi-PE; see shoal_pe_test in ../CMakeLists.txt). Also run under the TSan build.
find_package(Threads REQUIRED)
shoal_pe_test(api.threads SOURCES test_threads.c TIMEOUT 120 LIBS Threads::Threads)
