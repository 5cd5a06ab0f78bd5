# Teams, contexts and distributed locks (multi-PE; see shoal_pe_test in ../CMakeLists.txt).
shoal_pe_test(api.team SOURCES test_team.c TIMEOUT 60)
shoal_pe_test(api.ctx SOURCES test_ctx.c TIMEOUT 60)
shoal_pe_test(api.lock SOURCES test_lock.c TIMEOUT 60)
