/* Atomic memory operations on same-node PEs: CPU atomics on the peer's mapping.
 * Standard, extended and bitwise families, fetching and non-fetching, and the _nbi
 * fetching forms (whose result is ready on return, which a quiet then trivially
 * confirms). Sequentially consistent, so AMOs also order like the spec's fence. */
#include "api/pair.h"

#define SEQ __ATOMIC_SEQ_CST

static inline void *amo_target(const char *fn, shmem_ctx_t ctx, const void *dest, size_t size,
                               int pe)
{
    if (SHOAL_UNLIKELY((uintptr_t)dest & (size - 1)))
        shoal_fatal(fn, "AMO target %p is not aligned to its %zu-byte type", dest, size);
    return shoal_remote(fn, ctx, dest, size, pe);
}

#define SHOAL_AMO_STD(T, N)                                                                   \
    static inline T cswap_##N(const char *fn, shmem_ctx_t ctx, T *d, T cond, T v, int pe)     \
    {                                                                                         \
        __atomic_compare_exchange_n((T *)amo_target(fn, ctx, d, sizeof(T), pe), &cond, v, 0,  \
                                    SEQ, SEQ);                                                \
        return cond;                                                                          \
    }                                                                                         \
    static inline T fadd_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)              \
    {                                                                                         \
        return __atomic_fetch_add((T *)amo_target(fn, ctx, d, sizeof(T), pe), v, SEQ);        \
    }                                                                                         \
    static inline void add_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)            \
    {                                                                                         \
        fadd_##N(fn, ctx, d, v, pe);                                                          \
    }                                                                                         \
    static inline T finc_##N(const char *fn, shmem_ctx_t ctx, T *d, int pe)                   \
    {                                                                                         \
        return fadd_##N(fn, ctx, d, 1, pe);                                                   \
    }                                                                                         \
    static inline void inc_##N(const char *fn, shmem_ctx_t ctx, T *d, int pe)                 \
    {                                                                                         \
        fadd_##N(fn, ctx, d, 1, pe);                                                          \
    }                                                                                         \
    static inline void cswap_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T c, T v,   \
                                     int pe)                                                  \
    {                                                                                         \
        *f = cswap_##N(fn, ctx, d, c, v, pe);                                                 \
    }                                                                                         \
    static inline void finc_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, int pe)      \
    {                                                                                         \
        *f = fadd_##N(fn, ctx, d, 1, pe);                                                     \
    }                                                                                         \
    static inline void fadd_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T v, int pe) \
    {                                                                                         \
        *f = fadd_##N(fn, ctx, d, v, pe);                                                     \
    }                                                                                         \
    SHOAL_DEFINE_PAIR(T, N##_atomic_compare_swap, cswap_##N,                                  \
                      (T *dest, T cond, T value, int pe), (dest, cond, value, pe))            \
    SHOAL_DEFINE_PAIR(T, N##_atomic_fetch_add, fadd_##N, (T *dest, T value, int pe),          \
                      (dest, value, pe))                                                      \
    SHOAL_DEFINE_PAIR(void, N##_atomic_add, add_##N, (T *dest, T value, int pe),              \
                      (dest, value, pe))                                                      \
    SHOAL_DEFINE_PAIR(T, N##_atomic_fetch_inc, finc_##N, (T *dest, int pe), (dest, pe))       \
    SHOAL_DEFINE_PAIR(void, N##_atomic_inc, inc_##N, (T *dest, int pe), (dest, pe))           \
    SHOAL_DEFINE_PAIR(void, N##_atomic_compare_swap_nbi, cswap_nbi_##N,                       \
                      (T *fetch, T *dest, T cond, T value, int pe),                           \
                      (fetch, dest, cond, value, pe))                                         \
    SHOAL_DEFINE_PAIR(void, N##_atomic_fetch_inc_nbi, finc_nbi_##N,                           \
                      (T *fetch, T *dest, int pe), (fetch, dest, pe))                         \
    SHOAL_DEFINE_PAIR(void, N##_atomic_fetch_add_nbi, fadd_nbi_##N,                           \
                      (T *fetch, T *dest, T value, int pe), (fetch, dest, value, pe))

/* fetch/set/swap use the generic __atomic forms, which also take float and double. */
#define SHOAL_AMO_EXT(T, N)                                                                   \
    static inline T fetch_##N(const char *fn, shmem_ctx_t ctx, const T *s, int pe)            \
    {                                                                                         \
        T r;                                                                                  \
        __atomic_load((T *)amo_target(fn, ctx, s, sizeof(T), pe), &r, SEQ);                   \
        return r;                                                                             \
    }                                                                                         \
    static inline void set_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)            \
    {                                                                                         \
        __atomic_store((T *)amo_target(fn, ctx, d, sizeof(T), pe), &v, SEQ);                  \
    }                                                                                         \
    static inline T swap_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)              \
    {                                                                                         \
        T r;                                                                                  \
        __atomic_exchange((T *)amo_target(fn, ctx, d, sizeof(T), pe), &v, &r, SEQ);           \
        return r;                                                                             \
    }                                                                                         \
    static inline void fetch_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, const T *s,       \
                                     int pe)                                                  \
    {                                                                                         \
        *f = fetch_##N(fn, ctx, s, pe);                                                       \
    }                                                                                         \
    static inline void swap_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T v, int pe) \
    {                                                                                         \
        *f = swap_##N(fn, ctx, d, v, pe);                                                     \
    }                                                                                         \
    SHOAL_DEFINE_PAIR(T, N##_atomic_fetch, fetch_##N, (const T *source, int pe), (source, pe)) \
    SHOAL_DEFINE_PAIR(void, N##_atomic_set, set_##N, (T *dest, T value, int pe),              \
                      (dest, value, pe))                                                      \
    SHOAL_DEFINE_PAIR(T, N##_atomic_swap, swap_##N, (T *dest, T value, int pe),               \
                      (dest, value, pe))                                                      \
    SHOAL_DEFINE_PAIR(void, N##_atomic_fetch_nbi, fetch_nbi_##N,                              \
                      (T *fetch, const T *source, int pe), (fetch, source, pe))               \
    SHOAL_DEFINE_PAIR(void, N##_atomic_swap_nbi, swap_nbi_##N,                                \
                      (T *fetch, T *dest, T value, int pe), (fetch, dest, value, pe))

#define SHOAL_AMO_BIT_OP(T, N, op)                                                            \
    static inline T f##op##_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)           \
    {                                                                                         \
        return __atomic_fetch_##op((T *)amo_target(fn, ctx, d, sizeof(T), pe), v, SEQ);      \
    }                                                                                         \
    static inline void op##_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)           \
    {                                                                                         \
        f##op##_##N(fn, ctx, d, v, pe);                                                       \
    }                                                                                         \
    static inline void f##op##_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T v,      \
                                       int pe)                                                \
    {                                                                                         \
        *f = f##op##_##N(fn, ctx, d, v, pe);                                                  \
    }                                                                                         \
    SHOAL_DEFINE_PAIR(T, N##_atomic_fetch_##op, f##op##_##N, (T *dest, T value, int pe),      \
                      (dest, value, pe))                                                      \
    SHOAL_DEFINE_PAIR(void, N##_atomic_##op, op##_##N, (T *dest, T value, int pe),            \
                      (dest, value, pe))                                                      \
    SHOAL_DEFINE_PAIR(void, N##_atomic_fetch_##op##_nbi, f##op##_nbi_##N,                     \
                      (T *fetch, T *dest, T value, int pe), (fetch, dest, value, pe))
#define SHOAL_AMO_BIT(T, N) \
    SHOAL_AMO_BIT_OP(T, N, and) SHOAL_AMO_BIT_OP(T, N, or) SHOAL_AMO_BIT_OP(T, N, xor)

SHMEM_AMO_STD_TYPES(SHOAL_AMO_STD)
SHMEM_AMO_EXT_TYPES(SHOAL_AMO_EXT)
SHMEM_AMO_BIT_TYPES(SHOAL_AMO_BIT)

/* Deprecated (1.4) names: thin forwards to the current routines. */
#define SHOAL_DEPR_EXT(T, N)                                                                  \
    T shmem_##N##_fetch(const T *source, int pe) { return fetch_##N(__func__, SHMEM_CTX_DEFAULT, source, pe); } \
    void shmem_##N##_set(T *dest, T value, int pe) { set_##N(__func__, SHMEM_CTX_DEFAULT, dest, value, pe); } \
    T shmem_##N##_swap(T *dest, T value, int pe) { return swap_##N(__func__, SHMEM_CTX_DEFAULT, dest, value, pe); } \
    SHOAL_PROFILED(shmem_##N##_fetch) SHOAL_PROFILED(shmem_##N##_set) SHOAL_PROFILED(shmem_##N##_swap)
#define SHOAL_DEPR_STD(T, N)                                                                  \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                                     \
    {                                                                                         \
        return cswap_##N(__func__, SHMEM_CTX_DEFAULT, dest, cond, value, pe);                 \
    }                                                                                         \
    T shmem_##N##_finc(T *dest, int pe) { return finc_##N(__func__, SHMEM_CTX_DEFAULT, dest, pe); } \
    void shmem_##N##_inc(T *dest, int pe) { inc_##N(__func__, SHMEM_CTX_DEFAULT, dest, pe); } \
    T shmem_##N##_fadd(T *dest, T value, int pe) { return fadd_##N(__func__, SHMEM_CTX_DEFAULT, dest, value, pe); } \
    void shmem_##N##_add(T *dest, T value, int pe) { add_##N(__func__, SHMEM_CTX_DEFAULT, dest, value, pe); } \
    SHOAL_PROFILED(shmem_##N##_cswap) SHOAL_PROFILED(shmem_##N##_finc)                        \
    SHOAL_PROFILED(shmem_##N##_inc) SHOAL_PROFILED(shmem_##N##_fadd) SHOAL_PROFILED(shmem_##N##_add)
SHMEM_DEPR_AMO_EXT_TYPES(SHOAL_DEPR_EXT)
SHMEM_DEPR_AMO_STD_TYPES(SHOAL_DEPR_STD)
