# Collectives: team-based (WORLD and a strided subteam) and active-set (multi-PE; see
# shoal_pe_test in ../CMakeLists.txt).
shoal_pe_test(api.coll_bcast SOURCES test_coll_bcast.c TIMEOUT 90)
shoal_pe_test(api.coll_collect SOURCES test_coll_collect.c TIMEOUT 90)
shoal_pe_test(api.coll_alltoall SOURCES test_coll_alltoall.c TIMEOUT 90)
shoal_pe_test(api.coll_reduce SOURCES test_coll_reduce.c TIMEOUT 90)
shoal_pe_test(api.coll_scan SOURCES test_coll_scan.c TIMEOUT 90)
shoal_pe_test(api.coll_active SOURCES test_coll_active.c TIMEOUT 90)
