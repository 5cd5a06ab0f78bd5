/* C++ overloads of the type-generic names (the C11 _Generic interface of
 * shoal/generic.h, for C++): shmem_put(dest, src, n, pe), shmem_put(ctx, dest, ...),
 * shmem_atomic_fetch_add(dest, value, pe), shmem_sum_reduce(team, dest, src, n), ...
 *
 * Each overload is generated from the same C11 type tables as the C interface and
 * forwards its remaining arguments unchanged to the typed routine, so arguments
 * convert exactly as in a direct call to shmem_TYPENAME_OP. Forwarding templates
 * (rather than plain overloads) let the deprecated C routine
 * shmem_wait_until(long *, int, long) keep its name: a non-template function wins
 * over a template with the same parameters. */
#ifndef SHOAL_CXX_H
#define SHOAL_CXX_H

#if __cplusplus >= 201103L

/* OP on a first-argument TYPE *dest (optionally after a ctx). */
#define SHOAL_CXX_FWD(OP, T, N)                                                          \
    template <class... A>                                                                \
    inline auto shmem_##OP(T *dest, A... a)->decltype(shmem_##N##_##OP(dest, a...))     \
    {                                                                                    \
        return shmem_##N##_##OP(dest, a...);                                             \
    }
#define SHOAL_CXX_FWD_CTX(OP, T, N)                                                      \
    SHOAL_CXX_FWD(OP, T, N)                                                              \
    template <class... A>                                                                \
    inline auto shmem_##OP(shmem_ctx_t ctx, T *dest, A... a)                             \
        ->decltype(shmem_ctx_##N##_##OP(ctx, dest, a...))                                \
    {                                                                                    \
        return shmem_ctx_##N##_##OP(ctx, dest, a...);                                    \
    }
/* OP reading a first-argument const TYPE *source (g, atomic_fetch). */
#define SHOAL_CXX_FWD_CTX_CONST(OP, T, N)                                                \
    template <class... A>                                                                \
    inline auto shmem_##OP(const T *src, A... a)->decltype(shmem_##N##_##OP(src, a...))  \
    {                                                                                    \
        return shmem_##N##_##OP(src, a...);                                              \
    }                                                                                    \
    template <class... A>                                                                \
    inline auto shmem_##OP(shmem_ctx_t ctx, const T *src, A... a)                        \
        ->decltype(shmem_ctx_##N##_##OP(ctx, src, a...))                                 \
    {                                                                                    \
        return shmem_ctx_##N##_##OP(ctx, src, a...);                                     \
    }
/* Team routines: the team comes first, dest second. */
#define SHOAL_CXX_FWD_TEAM(OP, T, N)                                                     \
    template <class... A>                                                                \
    inline auto shmem_##OP(shmem_team_t team, T *dest, A... a)                           \
        ->decltype(shmem_##N##_##OP(team, dest, a...))                                   \
    {                                                                                    \
        return shmem_##N##_##OP(team, dest, a...);                                       \
    }

/* RMA and put-with-signal */
#define SHOAL_CXX_RMA(T, N)                                                              \
    SHOAL_CXX_FWD_CTX(put, T, N) SHOAL_CXX_FWD_CTX(get, T, N)                            \
    SHOAL_CXX_FWD_CTX(put_nbi, T, N) SHOAL_CXX_FWD_CTX(get_nbi, T, N)                    \
    SHOAL_CXX_FWD_CTX(iput, T, N) SHOAL_CXX_FWD_CTX(iget, T, N)                          \
    SHOAL_CXX_FWD_CTX(ibput, T, N) SHOAL_CXX_FWD_CTX(ibget, T, N)                        \
    SHOAL_CXX_FWD_CTX(p, T, N) SHOAL_CXX_FWD_CTX_CONST(g, T, N)                          \
    SHOAL_CXX_FWD_CTX(put_signal, T, N) SHOAL_CXX_FWD_CTX(put_signal_nbi, T, N)          \
    SHOAL_CXX_FWD_TEAM(alltoall, T, N) SHOAL_CXX_FWD_TEAM(alltoalls, T, N)               \
    SHOAL_CXX_FWD_TEAM(broadcast, T, N) SHOAL_CXX_FWD_TEAM(collect, T, N)                \
    SHOAL_CXX_FWD_TEAM(fcollect, T, N)
SHMEM_C11_RMA_TYPES(SHOAL_CXX_RMA)

/* AMOs */
#define SHOAL_CXX_AMO_STD(T, N)                                                          \
    SHOAL_CXX_FWD_CTX(atomic_compare_swap, T, N) SHOAL_CXX_FWD_CTX(atomic_fetch_inc, T, N) \
    SHOAL_CXX_FWD_CTX(atomic_inc, T, N) SHOAL_CXX_FWD_CTX(atomic_fetch_add, T, N)        \
    SHOAL_CXX_FWD_CTX(atomic_add, T, N) SHOAL_CXX_FWD_CTX(atomic_compare_swap_nbi, T, N) \
    SHOAL_CXX_FWD_CTX(atomic_fetch_inc_nbi, T, N) SHOAL_CXX_FWD_CTX(atomic_fetch_add_nbi, T, N)
SHMEM_C11_AMO_STD_TYPES(SHOAL_CXX_AMO_STD)
#define SHOAL_CXX_AMO_EXT(T, N)                                                          \
    SHOAL_CXX_FWD_CTX_CONST(atomic_fetch, T, N) SHOAL_CXX_FWD_CTX(atomic_set, T, N)      \
    SHOAL_CXX_FWD_CTX(atomic_swap, T, N) SHOAL_CXX_FWD_CTX(atomic_fetch_nbi, T, N)       \
    SHOAL_CXX_FWD_CTX(atomic_swap_nbi, T, N)
SHMEM_C11_AMO_EXT_TYPES(SHOAL_CXX_AMO_EXT)
#define SHOAL_CXX_AMO_BIT(T, N)                                                          \
    SHOAL_CXX_FWD_CTX(atomic_fetch_and, T, N) SHOAL_CXX_FWD_CTX(atomic_and, T, N)        \
    SHOAL_CXX_FWD_CTX(atomic_fetch_or, T, N) SHOAL_CXX_FWD_CTX(atomic_or, T, N)          \
    SHOAL_CXX_FWD_CTX(atomic_fetch_xor, T, N) SHOAL_CXX_FWD_CTX(atomic_xor, T, N)        \
    SHOAL_CXX_FWD_CTX(atomic_fetch_and_nbi, T, N) SHOAL_CXX_FWD_CTX(atomic_fetch_or_nbi, T, N) \
    SHOAL_CXX_FWD_CTX(atomic_fetch_xor_nbi, T, N)
SHMEM_C11_AMO_BIT_TYPES(SHOAL_CXX_AMO_BIT)

/* Point-to-point synchronization (no ctx forms). The multi-variable forms are written
 * out: their status argument is often NULL, which a forwarding template would pass
 * on as an integer. */
#define SHOAL_CXX_SYNC(T, N)                                                             \
    SHOAL_CXX_FWD(wait_until, T, N) SHOAL_CXX_FWD(test, T, N)                            \
    inline void shmem_wait_until_all(T *v, size_t n, const int *st, int cmp, T x)        \
    { shmem_##N##_wait_until_all(v, n, st, cmp, x); }                                    \
    inline size_t shmem_wait_until_any(T *v, size_t n, const int *st, int cmp, T x)      \
    { return shmem_##N##_wait_until_any(v, n, st, cmp, x); }                             \
    inline size_t shmem_wait_until_some(T *v, size_t n, size_t *idx, const int *st, int cmp, T x) \
    { return shmem_##N##_wait_until_some(v, n, idx, st, cmp, x); }                       \
    inline void shmem_wait_until_all_vector(T *v, size_t n, const int *st, int cmp, T *x) \
    { shmem_##N##_wait_until_all_vector(v, n, st, cmp, x); }                             \
    inline size_t shmem_wait_until_any_vector(T *v, size_t n, const int *st, int cmp, T *x) \
    { return shmem_##N##_wait_until_any_vector(v, n, st, cmp, x); }                      \
    inline size_t shmem_wait_until_some_vector(T *v, size_t n, size_t *idx, const int *st, \
                                               int cmp, T *x)                           \
    { return shmem_##N##_wait_until_some_vector(v, n, idx, st, cmp, x); }                \
    inline int shmem_test_all(T *v, size_t n, const int *st, int cmp, T x)               \
    { return shmem_##N##_test_all(v, n, st, cmp, x); }                                   \
    inline size_t shmem_test_any(T *v, size_t n, const int *st, int cmp, T x)            \
    { return shmem_##N##_test_any(v, n, st, cmp, x); }                                   \
    inline size_t shmem_test_some(T *v, size_t n, size_t *idx, const int *st, int cmp, T x) \
    { return shmem_##N##_test_some(v, n, idx, st, cmp, x); }                             \
    inline int shmem_test_all_vector(T *v, size_t n, const int *st, int cmp, T *x)       \
    { return shmem_##N##_test_all_vector(v, n, st, cmp, x); }                            \
    inline size_t shmem_test_any_vector(T *v, size_t n, const int *st, int cmp, T *x)    \
    { return shmem_##N##_test_any_vector(v, n, st, cmp, x); }                            \
    inline size_t shmem_test_some_vector(T *v, size_t n, size_t *idx, const int *st, int cmp, \
                                         T *x)                                          \
    { return shmem_##N##_test_some_vector(v, n, idx, st, cmp, x); }
SHMEM_C11_SYNC_TYPES(SHOAL_CXX_SYNC)
#define SHOAL_CXX_SYNC_DEPR(T, N) SHOAL_CXX_FWD(wait_until, T, N) SHOAL_CXX_FWD(test, T, N)
SHMEM_SYNC_DEPR_TYPES(SHOAL_CXX_SYNC_DEPR)

/* Reductions and scans */
#define SHOAL_CXX_REDUCE_BITWISE(T, N)                                                   \
    SHOAL_CXX_FWD_TEAM(and_reduce, T, N) SHOAL_CXX_FWD_TEAM(or_reduce, T, N)             \
    SHOAL_CXX_FWD_TEAM(xor_reduce, T, N)
SHMEM_C11_REDUCE_BITWISE_TYPES(SHOAL_CXX_REDUCE_BITWISE)
#define SHOAL_CXX_REDUCE_MINMAX(T, N)                                                    \
    SHOAL_CXX_FWD_TEAM(max_reduce, T, N) SHOAL_CXX_FWD_TEAM(min_reduce, T, N)
SHMEM_C11_REDUCE_MINMAX_TYPES(SHOAL_CXX_REDUCE_MINMAX)
#define SHOAL_CXX_REDUCE_ARITH(T, N)                                                     \
    SHOAL_CXX_FWD_TEAM(sum_reduce, T, N) SHOAL_CXX_FWD_TEAM(prod_reduce, T, N)           \
    SHOAL_CXX_FWD_TEAM(sum_inscan, T, N) SHOAL_CXX_FWD_TEAM(sum_exscan, T, N)
SHMEM_C11_REDUCE_ARITH_TYPES(SHOAL_CXX_REDUCE_ARITH)

/* Untyped routines with a ctx or team form under the same generic name. */
inline void shmem_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_ctx_signal_add(ctx, sig_addr, signal, pe);
}
inline void shmem_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_ctx_signal_set(ctx, sig_addr, signal, pe);
}
inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }

#undef SHOAL_CXX_RMA
#undef SHOAL_CXX_AMO_STD
#undef SHOAL_CXX_AMO_EXT
#undef SHOAL_CXX_AMO_BIT
#undef SHOAL_CXX_SYNC
#undef SHOAL_CXX_SYNC_DEPR
#undef SHOAL_CXX_REDUCE_BITWISE
#undef SHOAL_CXX_REDUCE_MINMAX
#undef SHOAL_CXX_REDUCE_ARITH
#undef SHOAL_CXX_FWD
#undef SHOAL_CXX_FWD_CTX
#undef SHOAL_CXX_FWD_CTX_CONST
#undef SHOAL_CXX_FWD_TEAM

#endif /* C++11 */
#endif
