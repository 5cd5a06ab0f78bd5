# RMA, signal and static-data tests (multi-PE; see shoal_pe_test in ../CMakeLists.txt).
shoal_pe_test(api.rma_typed SOURCES test_rma_typed.c TIMEOUT 60)
shoal_pe_test(api.rma_sized SOURCES test_rma_sized.c TIMEOUT 60)
# Two 16 MiB symmetric buffers per PE; the heap is sized explicitly.
shoal_pe_test(api.rma_large SOURCES test_rma_large.c TIMEOUT 60 ENV SHMEM_SYMMETRIC_SIZE=64M)
shoal_pe_test(api.rma_generic SOURCES test_rma_generic.c TIMEOUT 60)
shoal_pe_test(api.signal SOURCES test_signal.c TIMEOUT 60)
shoal_pe_test(api.static SOURCES test_static.c TIMEOUT 60)
# The C++ overloads of the generic names (RMA, AMO, signal, wait/test, collectives).
shoal_pe_test(api.cxx_generic SOURCES test_cxx_generic.cpp TIMEOUT 90)
set_target_properties(api.cxx_generic PROPERTIES CXX_STANDARD 11 CXX_EXTENSIONS OFF)

# One-element puts to a same-node peer are one store (test_put_word.c): a test of the
# shared-memory path, so registered without label "pe" and run once, in
# scripts/test.sh's shm mode, at 2 and 4 PEs (4 oversubscribe CI's 2 cores).
add_executable(api.put_word test_put_word.c)
target_link_libraries(api.put_word PRIVATE shoal)
shoal_test_limits(30 job ctest)
foreach(n 2 4)
  add_test(NAME api.put_word.np${n}
    COMMAND ${SHOAL_OSHRUN} -n ${n} --timeout ${job} $<TARGET_FILE:api.put_word>)
  set_tests_properties(api.put_word.np${n} PROPERTIES TIMEOUT ${ctest} SKIP_RETURN_CODE 77
    LABELS "shm;np${n}")
endforeach()
