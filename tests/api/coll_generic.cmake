# C11 type-generic collective and reduction names, built as strict ISO C11 (multi-PE;
# see shoal_pe_test in ../CMakeLists.txt).
shoal_pe_test(api.coll_generic SOURCES test_coll_generic.c TIMEOUT 90)
set_target_properties(api.coll_generic PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)
