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
