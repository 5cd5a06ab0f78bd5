# OpenSHMEM conformance points (issue 15 item 8): _any fairness, quiet/fence on
# SHMEM_CTX_INVALID, shmem_align below sizeof(void *).
shoal_pe_test(api.conform SOURCES test_conform.c)

# C11 generic calls with an unsupported type fail to compile with a message naming the
# routine (shoal_shmem_put_unsupported_argument_type), not "too many arguments".
add_test(NAME api.c11_unsupported_type
  COMMAND ${CMAKE_C_COMPILER} -std=c11 -fsyntax-only -I${PROJECT_SOURCE_DIR}/include
          ${CMAKE_CURRENT_SOURCE_DIR}/c11_unsupported.c)
set_tests_properties(api.c11_unsupported_type PROPERTIES TIMEOUT 30 PASS_REGULAR_EXPRESSION
  "shoal_shmem_put_unsupported_argument_type.*\n(.*\n)*.*shoal_shmem_atomic_add_unsupported_argument_type")
