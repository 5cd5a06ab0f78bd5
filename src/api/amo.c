/* Atomic memory operations: standard, extended and bitwise families, fetching and
 * non-fetching, and the _nbi fetching forms. When every PE shares this node they are
 * CPU atomics on the peer's mapping (sequentially consistent, so they also order like
 * the spec's fence, and an _nbi result is ready on return); in a job that spans
 * nodes every AMO goes through the network (transport/transport.h says why). */
#include <shmemx.h>
#include <string.h>

#include "api/pair.h"

#define SEQ __ATOMIC_SEQ_CST

/* The provider datatype of a C type: floating-point AMOs only move bits. */
#define SHOAL_AMO_TYPE_OF(T)                                                                 \
    _Generic((T)0, float                                                                     \
             : SHOAL_AMO_UINT32, double                                                      \
             : SHOAL_AMO_UINT64, default                                                     \
             : sizeof(T) == 4 ? ((T)-1 < (T)1 ? SHOAL_AMO_INT32 : SHOAL_AMO_UINT32)          \
                              : ((T)-1 < (T)1 ? SHOAL_AMO_INT64 : SHOAL_AMO_UINT64))

/* The bits of x, a T of 4 or 8 bytes, as the low bytes of a word. */
#define AMO_BITS(T, x)                                                                       \
    __extension__({                                                                          \
        T x_ = (x);                                                                          \
        uint64_t b_;                                                                         \
        if (sizeof(T) == 4) {                                                                \
            uint32_t u_;                                                                     \
            memcpy(&u_, &x_, 4);                                                             \
            b_ = u_;                                                                         \
        } else {                                                                             \
            memcpy(&b_, &x_, 8);                                                             \
        }                                                                                    \
        b_;                                                                                  \
    })

/* One AMO on dest (in scope as d) at pe through transport.h's one word-AMO helper.
 * FETCH (a T *, or NULL) receives the old value; NBI lets the network deliver it at
 * the next quiet. Every AMO of the API is sequentially consistent on the CPU path,
 * so it also orders like the spec's fence. */
#define AMO_DO(T, OP, operand, compare, FETCH, NBI)                                          \
    if (SHOAL_UNLIKELY((uintptr_t)d & (sizeof(T) - 1)))                                      \
        shoal_fatal(fn, "AMO target %p is not aligned to its %zu-byte type", (void *)d,      \
                    sizeof(T));                                                              \
    struct shoal_rref r_;                                                                    \
    shoal_remote(fn, ctx, d, sizeof(T), pe, &r_);                                            \
    if (FETCH)                                                                               \
        shoal_check_local(fn, FETCH);                                                        \
    shoal_tp_amo(ctx, &r_, OP, SHOAL_AMO_TYPE_OF(T), AMO_BITS(T, operand),                   \
                 AMO_BITS(T, compare), FETCH, (NBI) | SHOAL_AMO_FROM_USER, SEQ);

#define SHOAL_AMO_STD(T, N)                                                                  \
    static SHOAL_INLINE void cswap_to_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d,       \
                                          T cond, T v, int pe, int nbi)                      \
    {                                                                                        \
        AMO_DO(T, SHOAL_AMO_CSWAP, v, cond, f, nbi)                                          \
    }                                                                                        \
    static SHOAL_INLINE void fadd_to_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T v,   \
                                         int pe, int nbi)                                    \
    {                                                                                        \
        AMO_DO(T, SHOAL_AMO_ADD, v, 0, f, nbi)                                               \
    }                                                                                        \
    static inline T cswap_##N(const char *fn, shmem_ctx_t ctx, T *d, T cond, T v, int pe)    \
    {                                                                                        \
        T r;                                                                                 \
        cswap_to_##N(fn, ctx, &r, d, cond, v, pe, 0);                                        \
        return r;                                                                            \
    }                                                                                        \
    static inline T fadd_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)             \
    {                                                                                        \
        T r;                                                                                 \
        fadd_to_##N(fn, ctx, &r, d, v, pe, 0);                                               \
        return r;                                                                            \
    }                                                                                        \
    static inline void add_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)           \
    {                                                                                        \
        fadd_to_##N(fn, ctx, NULL, d, v, pe, 0);                                             \
    }                                                                                        \
    static inline T finc_##N(const char *fn, shmem_ctx_t ctx, T *d, int pe)                  \
    {                                                                                        \
        return fadd_##N(fn, ctx, d, 1, pe);                                                  \
    }                                                                                        \
    static inline void inc_##N(const char *fn, shmem_ctx_t ctx, T *d, int pe)                \
    {                                                                                        \
        add_##N(fn, ctx, d, 1, pe);                                                          \
    }                                                                                        \
    static inline void cswap_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T c, T v,  \
                                     int pe)                                                 \
    {                                                                                        \
        cswap_to_##N(fn, ctx, f, d, c, v, pe, 1);                                            \
    }                                                                                        \
    static inline void finc_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, int pe)     \
    {                                                                                        \
        fadd_to_##N(fn, ctx, f, d, 1, pe, 1);                                                \
    }                                                                                        \
    static inline void fadd_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T v,        \
                                    int pe)                                                  \
    {                                                                                        \
        fadd_to_##N(fn, ctx, f, d, v, pe, 1);                                                \
    }                                                                                        \
    SHOAL_DEFINE_PAIR(T, N##_atomic_compare_swap, cswap_##N,                                 \
                      (T * dest, T cond, T value, int pe), (dest, cond, value, pe))          \
    SHOAL_DEFINE_PAIR(T, N##_atomic_fetch_add, fadd_##N, (T * dest, T value, int pe),        \
                      (dest, value, pe))                                                     \
    SHOAL_DEFINE_PAIR(void, N##_atomic_add, add_##N, (T * dest, T value, int pe),            \
                      (dest, value, pe))                                                     \
    SHOAL_DEFINE_PAIR(T, N##_atomic_fetch_inc, finc_##N, (T * dest, int pe), (dest, pe))     \
    SHOAL_DEFINE_PAIR(void, N##_atomic_inc, inc_##N, (T * dest, int pe), (dest, pe))         \
    SHOAL_DEFINE_PAIR(void, N##_atomic_compare_swap_nbi, cswap_nbi_##N,                      \
                      (T * fetch, T * dest, T cond, T value, int pe),                        \
                      (fetch, dest, cond, value, pe))                                        \
    SHOAL_DEFINE_PAIR(void, N##_atomic_fetch_inc_nbi, finc_nbi_##N,                          \
                      (T * fetch, T * dest, int pe), (fetch, dest, pe))                      \
    SHOAL_DEFINE_PAIR(void, N##_atomic_fetch_add_nbi, fadd_nbi_##N,                          \
                      (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))

/* fetch/set/swap use the generic __atomic forms, which also take float and double. */
#define SHOAL_AMO_EXT(T, N)                                                                  \
    static SHOAL_INLINE void fetch_to_##N(const char *fn, shmem_ctx_t ctx, T *f, const T *d, \
                                          int pe, int nbi)                                   \
    {                                                                                        \
        AMO_DO(T, SHOAL_AMO_READ, 0, 0, f, nbi)                                              \
    }                                                                                        \
    static SHOAL_INLINE void swap_to_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T v,   \
                                         int pe, int nbi)                                    \
    {                                                                                        \
        AMO_DO(T, SHOAL_AMO_WRITE, v, 0, f, nbi)                                             \
    }                                                                                        \
    static inline T fetch_##N(const char *fn, shmem_ctx_t ctx, const T *s, int pe)           \
    {                                                                                        \
        T r;                                                                                 \
        fetch_to_##N(fn, ctx, &r, s, pe, 0);                                                 \
        return r;                                                                            \
    }                                                                                        \
    static inline void set_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)           \
    {                                                                                        \
        T *no_fetch = NULL;                                                                  \
        AMO_DO(T, SHOAL_AMO_WRITE, v, 0, no_fetch, 0)                                        \
    }                                                                                        \
    static inline T swap_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)             \
    {                                                                                        \
        T r;                                                                                 \
        swap_to_##N(fn, ctx, &r, d, v, pe, 0);                                               \
        return r;                                                                            \
    }                                                                                        \
    static inline void fetch_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, const T *s,      \
                                     int pe)                                                 \
    {                                                                                        \
        fetch_to_##N(fn, ctx, f, s, pe, 1);                                                  \
    }                                                                                        \
    static inline void swap_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T v,        \
                                    int pe)                                                  \
    {                                                                                        \
        swap_to_##N(fn, ctx, f, d, v, pe, 1);                                                \
    }                                                                                        \
    SHOAL_DEFINE_PAIR(T, N##_atomic_fetch, fetch_##N, (const T *source, int pe),             \
                      (source, pe))                                                          \
    SHOAL_DEFINE_PAIR(void, N##_atomic_set, set_##N, (T * dest, T value, int pe),            \
                      (dest, value, pe))                                                     \
    SHOAL_DEFINE_PAIR(T, N##_atomic_swap, swap_##N, (T * dest, T value, int pe),             \
                      (dest, value, pe))                                                     \
    SHOAL_DEFINE_PAIR(void, N##_atomic_fetch_nbi, fetch_nbi_##N,                             \
                      (T * fetch, const T *source, int pe), (fetch, source, pe))             \
    SHOAL_DEFINE_PAIR(void, N##_atomic_swap_nbi, swap_nbi_##N,                               \
                      (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))

#define AMO_NET_and SHOAL_AMO_AND
#define AMO_NET_or SHOAL_AMO_OR
#define AMO_NET_xor SHOAL_AMO_XOR
#define SHOAL_AMO_BIT_OP(T, N, op)                                                           \
    static inline void f##op##_to_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T v,      \
                                      int pe, int nbi)                                       \
    {                                                                                        \
        AMO_DO(T, AMO_NET_##op, v, 0, f, nbi)                                                \
    }                                                                                        \
    static inline T f##op##_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)          \
    {                                                                                        \
        T r;                                                                                 \
        f##op##_to_##N(fn, ctx, &r, d, v, pe, 0);                                            \
        return r;                                                                            \
    }                                                                                        \
    static inline void op##_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)          \
    {                                                                                        \
        f##op##_to_##N(fn, ctx, NULL, d, v, pe, 0);                                          \
    }                                                                                        \
    static inline void f##op##_nbi_##N(const char *fn, shmem_ctx_t ctx, T *f, T *d, T v,     \
                                       int pe)                                               \
    {                                                                                        \
        f##op##_to_##N(fn, ctx, f, d, v, pe, 1);                                             \
    }                                                                                        \
    SHOAL_DEFINE_PAIR(T, N##_atomic_fetch_##op, f##op##_##N, (T * dest, T value, int pe),    \
                      (dest, value, pe))                                                     \
    SHOAL_DEFINE_PAIR(void, N##_atomic_##op, op##_##N, (T * dest, T value, int pe),          \
                      (dest, value, pe))                                                     \
    SHOAL_DEFINE_PAIR(void, N##_atomic_fetch_##op##_nbi, f##op##_nbi_##N,                    \
                      (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))
#define SHOAL_AMO_BIT(T, N)                                                                  \
    SHOAL_AMO_BIT_OP(T, N, and) SHOAL_AMO_BIT_OP(T, N, or) SHOAL_AMO_BIT_OP(T, N, xor)

SHMEM_AMO_STD_TYPES(SHOAL_AMO_STD)
SHMEM_AMO_EXT_TYPES(SHOAL_AMO_EXT)
SHMEM_AMO_BIT_TYPES(SHOAL_AMO_BIT)

/* Deprecated (1.4) names: thin forwards to the current routines. */
#define SHOAL_DEPR_EXT(T, N)                                                                 \
    T shmem_##N##_fetch(const T *source, int pe)                                             \
    {                                                                                        \
        return fetch_##N(__func__, shoal_default_ctx(), source, pe);                         \
    }                                                                                        \
    void shmem_##N##_set(T *dest, T value, int pe)                                           \
    {                                                                                        \
        set_##N(__func__, shoal_default_ctx(), dest, value, pe);                             \
    }                                                                                        \
    T shmem_##N##_swap(T *dest, T value, int pe)                                             \
    {                                                                                        \
        return swap_##N(__func__, shoal_default_ctx(), dest, value, pe);                     \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_fetch)                                                        \
    SHOAL_PROFILED(shmem_##N##_set) SHOAL_PROFILED(shmem_##N##_swap)
/* clang-format off */
#define SHOAL_DEPR_STD(T, N)                                                                 \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                                    \
    {                                                                                        \
        return cswap_##N(__func__, shoal_default_ctx(), dest, cond, value, pe);                \
    }                                                                                        \
    T shmem_##N##_finc(T *dest, int pe)                                                      \
    {                                                                                        \
        return finc_##N(__func__, shoal_default_ctx(), dest, pe);                              \
    }                                                                                        \
    void shmem_##N##_inc(T *dest, int pe)                                                    \
    {                                                                                        \
        inc_##N(__func__, shoal_default_ctx(), dest, pe);                                      \
    }                                                                                        \
    T shmem_##N##_fadd(T *dest, T value, int pe)                                             \
    {                                                                                        \
        return fadd_##N(__func__, shoal_default_ctx(), dest, value, pe);                       \
    }                                                                                        \
    void shmem_##N##_add(T *dest, T value, int pe)                                           \
    {                                                                                        \
        add_##N(__func__, shoal_default_ctx(), dest, value, pe);                               \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_cswap)                                                        \
    SHOAL_PROFILED(shmem_##N##_finc)                                                         \
    SHOAL_PROFILED(shmem_##N##_inc)                                                          \
    SHOAL_PROFILED(shmem_##N##_fadd)                                                         \
    SHOAL_PROFILED(shmem_##N##_add)
/* clang-format on */
SHMEM_DEPR_AMO_EXT_TYPES(SHOAL_DEPR_EXT)
SHMEM_DEPR_AMO_STD_TYPES(SHOAL_DEPR_STD)

/* Cray OpenSHMEMX's 16-bit AMOs (shmemx_short_*). No transport has 16-bit atomics,
 * so each is a compare-and-swap loop on the aligned 32-bit word that holds the
 * short: atomic with respect to every other short AMO on that word, and a store
 * to the neighbouring short only makes the loop go round again. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "short AMOs: little-endian words");

enum short_op { SHORT_ADD, SHORT_SWAP, SHORT_CSWAP };

static short short_amo(const char *fn, short *target, enum short_op op, short value,
                       short cond, int pe)
{
    if (SHOAL_UNLIKELY((uintptr_t)target & 1))
        shoal_fatal(fn, "AMO target %p is not aligned to its 2-byte type", (void *)target);
    uint32_t *word = (uint32_t *)((uintptr_t)target & ~(uintptr_t)3);
    unsigned shift = (unsigned)((uintptr_t)target & 2) * 8;
    uint32_t old = fetch_uint32(fn, shoal_default_ctx(), word, pe);
    for (;;) {
        uint16_t cur = (uint16_t)(old >> shift);
        if (op == SHORT_CSWAP && cur != (uint16_t)cond)
            return (short)cur;
        uint16_t next = op == SHORT_ADD ? (uint16_t)(cur + (uint16_t)value) : (uint16_t)value;
        uint32_t want = (old & ~(0xffffu << shift)) | (uint32_t)next << shift;
        uint32_t seen = cswap_uint32(fn, shoal_default_ctx(), word, old, want, pe);
        if (seen == old)
            return (short)cur;
        old = seen;
    }
}

void shmemx_short_add(short *target, short value, int pe)
{
    short_amo(__func__, target, SHORT_ADD, value, 0, pe);
}
SHOAL_PROFILED(shmemx_short_add)

void shmemx_short_inc(short *target, int pe)
{
    short_amo(__func__, target, SHORT_ADD, 1, 0, pe);
}
SHOAL_PROFILED(shmemx_short_inc)

short shmemx_short_fadd(short *target, short value, int pe)
{
    return short_amo(__func__, target, SHORT_ADD, value, 0, pe);
}
SHOAL_PROFILED(shmemx_short_fadd)

short shmemx_short_finc(short *target, int pe)
{
    return short_amo(__func__, target, SHORT_ADD, 1, 0, pe);
}
SHOAL_PROFILED(shmemx_short_finc)

short shmemx_short_swap(short *target, short value, int pe)
{
    return short_amo(__func__, target, SHORT_SWAP, value, 0, pe);
}
SHOAL_PROFILED(shmemx_short_swap)

short shmemx_short_cswap(short *target, short cond, short value, int pe)
{
    return short_amo(__func__, target, SHORT_CSWAP, value, cond, pe);
}
SHOAL_PROFILED(shmemx_short_cswap)
