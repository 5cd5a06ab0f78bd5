# Collectives: team-based (WORLD and a strided subteam) and active-set (multi-PE; see
# shoal_pe_test in ../CMakeLists.txt).
shoal_pe_test(api.coll_bcast SOURCES test_coll_bcast.c TIMEOUT 90)
shoal_pe_test(api.coll_collect SOURCES test_coll_collect.c TIMEOUT 90)
shoal_pe_test(api.coll_alltoall SOURCES test_coll_alltoall.c TIMEOUT 90)
shoal_pe_test(api.coll_reduce SOURCES test_coll_reduce.c TIMEOUT 90)
shoal_pe_test(api.coll_scan SOURCES test_coll_scan.c TIMEOUT 90)
shoal_pe_test(api.coll_active SOURCES test_coll_active.c TIMEOUT 90)
# Every strided alltoalls block packed (SHOAL_COLL_ALLTOALLS_PACK_MIN=1), at odd PE
# counts: in the network modes the 1- and 7-element blocks, the teams of three, the
# odd-sized active sets and the active sets sharing a PE all take the packed path
# (coll/alltoall.c), with 3 and 5 members in a round.
shoal_test_limits(120 job ctest)
foreach(prog api.coll_alltoall api.coll_active)
  foreach(n 3 5)
    add_test(NAME ${prog}_pack_all.np${n}
      COMMAND ${SHOAL_PE_LAUNCH} -n ${n} --timeout ${job} $<TARGET_FILE:${prog}>)
    set_tests_properties(${prog}_pack_all.np${n} PROPERTIES TIMEOUT ${ctest}
      LABELS "pe;np${n}" ENVIRONMENT "SHOAL_COLL_ALLTOALLS_PACK_MIN=1")
  endforeach()
endforeach()
# Variable-size alltoall: in every mode with the receivers' limits cutting blocks
# (trunc reads them over the transport too); once, in mode shm (no "pe" label), with
# no check and with limits equal to the lengths, which must not abort: these differ
# only in what the sender does before the same puts.
shoal_pe_test(api.alltoallv SOURCES test_alltoallv.c TIMEOUT 60
  ENV SHMEM_ALLTOALLV_TSIZE_CHK=trunc)
shoal_test_limits(60 job ctest)
foreach(chk none abort)
  foreach(n 1 2 4 8)
    add_test(NAME api.alltoallv_${chk}.np${n}
      COMMAND ${SHOAL_PE_LAUNCH} -n ${n} --timeout ${job} $<TARGET_FILE:api.alltoallv>)
    set_tests_properties(api.alltoallv_${chk}.np${n} PROPERTIES TIMEOUT ${ctest}
      LABELS "np${n}" ENVIRONMENT "SHMEM_ALLTOALLV_TSIZE_CHK=${chk}")
  endforeach()
endforeach()
