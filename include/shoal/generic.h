/* C11 type-generic interface, derived from the C11 tables in shoal/type_tables.h.
 * A call whose first argument is a shmem_ctx_t dispatches on the second argument to
 * the ctx_ form; otherwise it dispatches on the first. A type outside the table
 * selects shoal_shmem_OP_unsupported_argument_type, an object that is not a function,
 * so the call fails to compile instead of converting silently, and the compiler's
 * message names the routine: gcc "called object
 * 'shoal_shmem_put_unsupported_argument_type' is not a function", clang "called
 * object type 'struct shoal_shmem_put_unsupported_argument_type'"; the caret points
 * at the call, whose argument has the type the routine lacks. A generic call cannot appear inside an
 * expansion of the SHMEM_C11_* table it dispatches on (the preprocessor does not
 * expand a macro within itself); code generated from a table should iterate over the
 * full SHMEM_* tables instead. */
#ifndef SHOAL_GENERIC_H
#define SHOAL_GENERIC_H

#define SHOAL_G_UNSUPPORTED(op) shoal_shmem_##op##_unsupported_argument_type
#define SHOAL_G_DECLARE_UNSUPPORTED(op) \
    extern const struct SHOAL_G_UNSUPPORTED(op) { char never_defined; } SHOAL_G_UNSUPPORTED(op);
SHOAL_G_DECLARE_UNSUPPORTED(alltoall) SHOAL_G_DECLARE_UNSUPPORTED(alltoalls) SHOAL_G_DECLARE_UNSUPPORTED(and_reduce) SHOAL_G_DECLARE_UNSUPPORTED(atomic_add)
SHOAL_G_DECLARE_UNSUPPORTED(atomic_and) SHOAL_G_DECLARE_UNSUPPORTED(atomic_compare_swap) SHOAL_G_DECLARE_UNSUPPORTED(atomic_compare_swap_nbi) SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch)
SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_add) SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_add_nbi) SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_and) SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_and_nbi)
SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_inc) SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_inc_nbi) SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_nbi) SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_or)
SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_or_nbi) SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_xor) SHOAL_G_DECLARE_UNSUPPORTED(atomic_fetch_xor_nbi) SHOAL_G_DECLARE_UNSUPPORTED(atomic_inc)
SHOAL_G_DECLARE_UNSUPPORTED(atomic_or) SHOAL_G_DECLARE_UNSUPPORTED(atomic_set) SHOAL_G_DECLARE_UNSUPPORTED(atomic_swap) SHOAL_G_DECLARE_UNSUPPORTED(atomic_swap_nbi)
SHOAL_G_DECLARE_UNSUPPORTED(atomic_xor) SHOAL_G_DECLARE_UNSUPPORTED(broadcast) SHOAL_G_DECLARE_UNSUPPORTED(collect) SHOAL_G_DECLARE_UNSUPPORTED(fcollect)
SHOAL_G_DECLARE_UNSUPPORTED(g) SHOAL_G_DECLARE_UNSUPPORTED(get) SHOAL_G_DECLARE_UNSUPPORTED(get_nbi) SHOAL_G_DECLARE_UNSUPPORTED(ibget)
SHOAL_G_DECLARE_UNSUPPORTED(ibput) SHOAL_G_DECLARE_UNSUPPORTED(iget) SHOAL_G_DECLARE_UNSUPPORTED(iput) SHOAL_G_DECLARE_UNSUPPORTED(max_reduce)
SHOAL_G_DECLARE_UNSUPPORTED(min_reduce) SHOAL_G_DECLARE_UNSUPPORTED(or_reduce) SHOAL_G_DECLARE_UNSUPPORTED(p) SHOAL_G_DECLARE_UNSUPPORTED(prod_reduce)
SHOAL_G_DECLARE_UNSUPPORTED(put) SHOAL_G_DECLARE_UNSUPPORTED(put_nbi) SHOAL_G_DECLARE_UNSUPPORTED(put_signal) SHOAL_G_DECLARE_UNSUPPORTED(put_signal_nbi)
SHOAL_G_DECLARE_UNSUPPORTED(sum_exscan) SHOAL_G_DECLARE_UNSUPPORTED(sum_inscan) SHOAL_G_DECLARE_UNSUPPORTED(sum_reduce) SHOAL_G_DECLARE_UNSUPPORTED(test)
SHOAL_G_DECLARE_UNSUPPORTED(test_all) SHOAL_G_DECLARE_UNSUPPORTED(test_all_vector) SHOAL_G_DECLARE_UNSUPPORTED(test_any) SHOAL_G_DECLARE_UNSUPPORTED(test_any_vector)
SHOAL_G_DECLARE_UNSUPPORTED(test_some) SHOAL_G_DECLARE_UNSUPPORTED(test_some_vector) SHOAL_G_DECLARE_UNSUPPORTED(wait_until) SHOAL_G_DECLARE_UNSUPPORTED(wait_until_all)
SHOAL_G_DECLARE_UNSUPPORTED(wait_until_all_vector) SHOAL_G_DECLARE_UNSUPPORTED(wait_until_any) SHOAL_G_DECLARE_UNSUPPORTED(wait_until_any_vector) SHOAL_G_DECLARE_UNSUPPORTED(wait_until_some)
SHOAL_G_DECLARE_UNSUPPORTED(wait_until_some_vector) SHOAL_G_DECLARE_UNSUPPORTED(xor_reduce)

#define SHOAL_G_ARG1(a, ...) a
#define SHOAL_G_ARG2(a, b, ...) b

/* One association per table row: TYPE * -> shmem_[ctx_]TYPENAME_OP. */
#define SHOAL_G_ROW(T, F) T *: F,
#define SHOAL_G_CROW(T, F) T *: F, const T *: F,

#define SHOAL_G_OPT_CTX(UNS, TABLE, CASE, CTXCASE, ...)                                  \
    _Generic(SHOAL_G_ARG1(__VA_ARGS__, 0),                                               \
        shmem_ctx_t: _Generic(SHOAL_G_ARG2(__VA_ARGS__, 0, 0),                           \
                              TABLE(CTXCASE) default: UNS),                              \
        default: _Generic(SHOAL_G_ARG1(__VA_ARGS__, 0),                                  \
                          TABLE(CASE) default: UNS))(__VA_ARGS__)
#define SHOAL_G_NO_CTX(UNS, TABLE, CASE, ...)                                            \
    _Generic(SHOAL_G_ARG1(__VA_ARGS__, 0), TABLE(CASE) default: UNS)(__VA_ARGS__)

/* Per-operation row makers (the preprocessor cannot pass the operation through the
 * table, so each operation names its own). */

#define SHOAL_GR_put(T, N) SHOAL_G_ROW(T, shmem_##N##_put)
#define SHOAL_GC_put(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_put)
#define SHOAL_GR_get(T, N) SHOAL_G_ROW(T, shmem_##N##_get)
#define SHOAL_GC_get(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_get)
#define SHOAL_GR_put_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_put_nbi)
#define SHOAL_GC_put_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_put_nbi)
#define SHOAL_GR_get_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_get_nbi)
#define SHOAL_GC_get_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_get_nbi)
#define SHOAL_GR_iput(T, N) SHOAL_G_ROW(T, shmem_##N##_iput)
#define SHOAL_GC_iput(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_iput)
#define SHOAL_GR_iget(T, N) SHOAL_G_ROW(T, shmem_##N##_iget)
#define SHOAL_GC_iget(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_iget)
#define SHOAL_GR_ibput(T, N) SHOAL_G_ROW(T, shmem_##N##_ibput)
#define SHOAL_GC_ibput(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_ibput)
#define SHOAL_GR_ibget(T, N) SHOAL_G_ROW(T, shmem_##N##_ibget)
#define SHOAL_GC_ibget(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_ibget)
#define SHOAL_GR_p(T, N) SHOAL_G_ROW(T, shmem_##N##_p)
#define SHOAL_GC_p(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_p)
#define SHOAL_GR_g(T, N) SHOAL_G_CROW(T, shmem_##N##_g)
#define SHOAL_GC_g(T, N) SHOAL_G_CROW(T, shmem_ctx_##N##_g)
#define SHOAL_GR_put_signal(T, N) SHOAL_G_ROW(T, shmem_##N##_put_signal)
#define SHOAL_GC_put_signal(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_put_signal)
#define SHOAL_GR_put_signal_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_put_signal_nbi)
#define SHOAL_GC_put_signal_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_put_signal_nbi)
#define SHOAL_GR_atomic_fetch(T, N) SHOAL_G_CROW(T, shmem_##N##_atomic_fetch)
#define SHOAL_GC_atomic_fetch(T, N) SHOAL_G_CROW(T, shmem_ctx_##N##_atomic_fetch)
#define SHOAL_GR_atomic_compare_swap(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_compare_swap)
#define SHOAL_GC_atomic_compare_swap(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_compare_swap)
#define SHOAL_GR_atomic_fetch_inc(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_inc)
#define SHOAL_GC_atomic_fetch_inc(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_inc)
#define SHOAL_GR_atomic_inc(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_inc)
#define SHOAL_GC_atomic_inc(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_inc)
#define SHOAL_GR_atomic_fetch_add(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_add)
#define SHOAL_GC_atomic_fetch_add(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_add)
#define SHOAL_GR_atomic_add(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_add)
#define SHOAL_GC_atomic_add(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_add)
#define SHOAL_GR_atomic_compare_swap_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_compare_swap_nbi)
#define SHOAL_GC_atomic_compare_swap_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_compare_swap_nbi)
#define SHOAL_GR_atomic_fetch_inc_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_inc_nbi)
#define SHOAL_GC_atomic_fetch_inc_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_inc_nbi)
#define SHOAL_GR_atomic_fetch_add_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_add_nbi)
#define SHOAL_GC_atomic_fetch_add_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_add_nbi)
#define SHOAL_GR_atomic_set(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_set)
#define SHOAL_GC_atomic_set(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_set)
#define SHOAL_GR_atomic_swap(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_swap)
#define SHOAL_GC_atomic_swap(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_swap)
#define SHOAL_GR_atomic_fetch_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_nbi)
#define SHOAL_GC_atomic_fetch_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_nbi)
#define SHOAL_GR_atomic_swap_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_swap_nbi)
#define SHOAL_GC_atomic_swap_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_swap_nbi)
#define SHOAL_GR_atomic_fetch_and(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_and)
#define SHOAL_GC_atomic_fetch_and(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_and)
#define SHOAL_GR_atomic_and(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_and)
#define SHOAL_GC_atomic_and(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_and)
#define SHOAL_GR_atomic_fetch_or(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_or)
#define SHOAL_GC_atomic_fetch_or(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_or)
#define SHOAL_GR_atomic_or(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_or)
#define SHOAL_GC_atomic_or(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_or)
#define SHOAL_GR_atomic_fetch_xor(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_xor)
#define SHOAL_GC_atomic_fetch_xor(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_xor)
#define SHOAL_GR_atomic_xor(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_xor)
#define SHOAL_GC_atomic_xor(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_xor)
#define SHOAL_GR_atomic_fetch_and_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_and_nbi)
#define SHOAL_GC_atomic_fetch_and_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_and_nbi)
#define SHOAL_GR_atomic_fetch_or_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_or_nbi)
#define SHOAL_GC_atomic_fetch_or_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_or_nbi)
#define SHOAL_GR_atomic_fetch_xor_nbi(T, N) SHOAL_G_ROW(T, shmem_##N##_atomic_fetch_xor_nbi)
#define SHOAL_GC_atomic_fetch_xor_nbi(T, N) SHOAL_G_ROW(T, shmem_ctx_##N##_atomic_fetch_xor_nbi)

#define SHOAL_G_RMA(op, ...) SHOAL_G_OPT_CTX(SHOAL_G_UNSUPPORTED(op), SHMEM_C11_RMA_TYPES, SHOAL_GR_##op, SHOAL_GC_##op, __VA_ARGS__)
#define SHOAL_G_STD(op, ...) SHOAL_G_OPT_CTX(SHOAL_G_UNSUPPORTED(op), SHMEM_C11_AMO_STD_TYPES, SHOAL_GR_##op, SHOAL_GC_##op, __VA_ARGS__)
#define SHOAL_G_EXT(op, ...) SHOAL_G_OPT_CTX(SHOAL_G_UNSUPPORTED(op), SHMEM_C11_AMO_EXT_TYPES, SHOAL_GR_##op, SHOAL_GC_##op, __VA_ARGS__)
#define SHOAL_G_BIT(op, ...) SHOAL_G_OPT_CTX(SHOAL_G_UNSUPPORTED(op), SHMEM_C11_AMO_BIT_TYPES, SHOAL_GR_##op, SHOAL_GC_##op, __VA_ARGS__)

/* RMA */
#define shmem_put(...)            SHOAL_G_RMA(put, __VA_ARGS__)
#define shmem_get(...)            SHOAL_G_RMA(get, __VA_ARGS__)
#define shmem_put_nbi(...)        SHOAL_G_RMA(put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...)        SHOAL_G_RMA(get_nbi, __VA_ARGS__)
#define shmem_iput(...)           SHOAL_G_RMA(iput, __VA_ARGS__)
#define shmem_iget(...)           SHOAL_G_RMA(iget, __VA_ARGS__)
#define shmem_ibput(...)          SHOAL_G_RMA(ibput, __VA_ARGS__)
#define shmem_ibget(...)          SHOAL_G_RMA(ibget, __VA_ARGS__)
#define shmem_p(...)              SHOAL_G_RMA(p, __VA_ARGS__)
#define shmem_g(...)              SHOAL_G_RMA(g, __VA_ARGS__)
#define shmem_put_signal(...)     SHOAL_G_RMA(put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SHOAL_G_RMA(put_signal_nbi, __VA_ARGS__)

/* AMO */
#define shmem_atomic_compare_swap(...)     SHOAL_G_STD(atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)        SHOAL_G_STD(atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...)              SHOAL_G_STD(atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...)        SHOAL_G_STD(atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...)              SHOAL_G_STD(atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) SHOAL_G_STD(atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)    SHOAL_G_STD(atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)    SHOAL_G_STD(atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch(...)            SHOAL_G_EXT(atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...)              SHOAL_G_EXT(atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...)             SHOAL_G_EXT(atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...)        SHOAL_G_EXT(atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)         SHOAL_G_EXT(atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)        SHOAL_G_BIT(atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...)              SHOAL_G_BIT(atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)         SHOAL_G_BIT(atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...)               SHOAL_G_BIT(atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)        SHOAL_G_BIT(atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...)              SHOAL_G_BIT(atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)    SHOAL_G_BIT(atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)     SHOAL_G_BIT(atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)    SHOAL_G_BIT(atomic_fetch_xor_nbi, __VA_ARGS__)

/* Point-to-point synchronization (no ctx forms). */
#define SHOAL_GW_wait_until(T, N) SHOAL_G_ROW(T, shmem_##N##_wait_until)
#define SHOAL_GW_test(T, N) SHOAL_G_ROW(T, shmem_##N##_test)
#define SHOAL_GW_wait_until_all(T, N) SHOAL_G_ROW(T, shmem_##N##_wait_until_all)
#define SHOAL_GW_wait_until_any(T, N) SHOAL_G_ROW(T, shmem_##N##_wait_until_any)
#define SHOAL_GW_wait_until_some(T, N) SHOAL_G_ROW(T, shmem_##N##_wait_until_some)
#define SHOAL_GW_wait_until_all_vector(T, N) SHOAL_G_ROW(T, shmem_##N##_wait_until_all_vector)
#define SHOAL_GW_wait_until_any_vector(T, N) SHOAL_G_ROW(T, shmem_##N##_wait_until_any_vector)
#define SHOAL_GW_wait_until_some_vector(T, N) SHOAL_G_ROW(T, shmem_##N##_wait_until_some_vector)
#define SHOAL_GW_test_all(T, N) SHOAL_G_ROW(T, shmem_##N##_test_all)
#define SHOAL_GW_test_any(T, N) SHOAL_G_ROW(T, shmem_##N##_test_any)
#define SHOAL_GW_test_some(T, N) SHOAL_G_ROW(T, shmem_##N##_test_some)
#define SHOAL_GW_test_all_vector(T, N) SHOAL_G_ROW(T, shmem_##N##_test_all_vector)
#define SHOAL_GW_test_any_vector(T, N) SHOAL_G_ROW(T, shmem_##N##_test_any_vector)
#define SHOAL_GW_test_some_vector(T, N) SHOAL_G_ROW(T, shmem_##N##_test_some_vector)
#define SHOAL_G_SYNC(op, ...) \
    SHOAL_G_NO_CTX(SHOAL_G_UNSUPPORTED(op), SHMEM_C11_SYNC_TYPES, SHOAL_GW_##op, __VA_ARGS__)
#define SHOAL_G_SYNC_DEPR(op, ...) \
    SHOAL_G_NO_CTX(SHOAL_G_UNSUPPORTED(op), SHOAL_G_SYNC_WITH_DEPR, SHOAL_GW_##op, __VA_ARGS__)
#define SHOAL_G_SYNC_WITH_DEPR(X) SHMEM_C11_SYNC_TYPES(X) SHMEM_SYNC_DEPR_TYPES(X)

#define shmem_wait_until(...)              SHOAL_G_SYNC_DEPR(wait_until, __VA_ARGS__)
#define shmem_test(...)                    SHOAL_G_SYNC_DEPR(test, __VA_ARGS__)
#define shmem_wait_until_all(...)          SHOAL_G_SYNC(wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...)          SHOAL_G_SYNC(wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...)         SHOAL_G_SYNC(wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...)   SHOAL_G_SYNC(wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...)   SHOAL_G_SYNC(wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...)  SHOAL_G_SYNC(wait_until_some_vector, __VA_ARGS__)
#define shmem_test_all(...)                SHOAL_G_SYNC(test_all, __VA_ARGS__)
#define shmem_test_any(...)                SHOAL_G_SYNC(test_any, __VA_ARGS__)
#define shmem_test_some(...)               SHOAL_G_SYNC(test_some, __VA_ARGS__)
#define shmem_test_all_vector(...)         SHOAL_G_SYNC(test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...)         SHOAL_G_SYNC(test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...)        SHOAL_G_SYNC(test_some_vector, __VA_ARGS__)

/* Signals: shmem_signal_add/set take an optional leading ctx. */
#define shmem_signal_add(...)                                                             \
    _Generic(SHOAL_G_ARG1(__VA_ARGS__, 0), shmem_ctx_t: shmem_ctx_signal_add,             \
             default: (shmem_signal_add))(__VA_ARGS__)
#define shmem_signal_set(...)                                                             \
    _Generic(SHOAL_G_ARG1(__VA_ARGS__, 0), shmem_ctx_t: shmem_ctx_signal_set,             \
             default: (shmem_signal_set))(__VA_ARGS__)

/* Team collectives and reductions take the team first, so they dispatch on the second
 * argument, dest (no ctx forms). */
#define SHOAL_G_ON_DEST(UNS, TABLE, CASE, ...)                                           \
    _Generic(SHOAL_G_ARG2(__VA_ARGS__, 0, 0), TABLE(CASE) default: UNS)(__VA_ARGS__)
#define SHOAL_GT_alltoall(T, N) SHOAL_G_ROW(T, shmem_##N##_alltoall)
#define SHOAL_GT_alltoalls(T, N) SHOAL_G_ROW(T, shmem_##N##_alltoalls)
#define SHOAL_GT_broadcast(T, N) SHOAL_G_ROW(T, shmem_##N##_broadcast)
#define SHOAL_GT_collect(T, N) SHOAL_G_ROW(T, shmem_##N##_collect)
#define SHOAL_GT_fcollect(T, N) SHOAL_G_ROW(T, shmem_##N##_fcollect)
#define SHOAL_GT_and_reduce(T, N) SHOAL_G_ROW(T, shmem_##N##_and_reduce)
#define SHOAL_GT_or_reduce(T, N) SHOAL_G_ROW(T, shmem_##N##_or_reduce)
#define SHOAL_GT_xor_reduce(T, N) SHOAL_G_ROW(T, shmem_##N##_xor_reduce)
#define SHOAL_GT_max_reduce(T, N) SHOAL_G_ROW(T, shmem_##N##_max_reduce)
#define SHOAL_GT_min_reduce(T, N) SHOAL_G_ROW(T, shmem_##N##_min_reduce)
#define SHOAL_GT_sum_reduce(T, N) SHOAL_G_ROW(T, shmem_##N##_sum_reduce)
#define SHOAL_GT_prod_reduce(T, N) SHOAL_G_ROW(T, shmem_##N##_prod_reduce)
#define SHOAL_GT_sum_inscan(T, N) SHOAL_G_ROW(T, shmem_##N##_sum_inscan)
#define SHOAL_GT_sum_exscan(T, N) SHOAL_G_ROW(T, shmem_##N##_sum_exscan)
#define SHOAL_G_TEAM(TABLE, op, ...) \
    SHOAL_G_ON_DEST(SHOAL_G_UNSUPPORTED(op), TABLE, SHOAL_GT_##op, __VA_ARGS__)

#define shmem_alltoall(...)    SHOAL_G_TEAM(SHMEM_C11_RMA_TYPES, alltoall, __VA_ARGS__)
#define shmem_alltoalls(...)   SHOAL_G_TEAM(SHMEM_C11_RMA_TYPES, alltoalls, __VA_ARGS__)
#define shmem_broadcast(...)   SHOAL_G_TEAM(SHMEM_C11_RMA_TYPES, broadcast, __VA_ARGS__)
#define shmem_collect(...)     SHOAL_G_TEAM(SHMEM_C11_RMA_TYPES, collect, __VA_ARGS__)
#define shmem_fcollect(...)    SHOAL_G_TEAM(SHMEM_C11_RMA_TYPES, fcollect, __VA_ARGS__)
#define shmem_and_reduce(...)  SHOAL_G_TEAM(SHMEM_C11_REDUCE_BITWISE_TYPES, and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...)   SHOAL_G_TEAM(SHMEM_C11_REDUCE_BITWISE_TYPES, or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...)  SHOAL_G_TEAM(SHMEM_C11_REDUCE_BITWISE_TYPES, xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...)  SHOAL_G_TEAM(SHMEM_C11_REDUCE_MINMAX_TYPES, max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...)  SHOAL_G_TEAM(SHMEM_C11_REDUCE_MINMAX_TYPES, min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...)  SHOAL_G_TEAM(SHMEM_C11_REDUCE_ARITH_TYPES, sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) SHOAL_G_TEAM(SHMEM_C11_REDUCE_ARITH_TYPES, prod_reduce, __VA_ARGS__)
#define shmem_sum_inscan(...)  SHOAL_G_TEAM(SHMEM_C11_REDUCE_ARITH_TYPES, sum_inscan, __VA_ARGS__)
#define shmem_sum_exscan(...)  SHOAL_G_TEAM(SHMEM_C11_REDUCE_ARITH_TYPES, sum_exscan, __VA_ARGS__)

/* shmem_sync(team) is shmem_team_sync; shmem_sync(PE_start, ...) stays the deprecated
 * active-set routine of that name. */
#define shmem_sync(...)                                                                   \
    _Generic(SHOAL_G_ARG1(__VA_ARGS__, 0), shmem_team_t: shmem_team_sync,                \
             default: (shmem_sync))(__VA_ARGS__)

#endif
