/* Point-to-point synchronization: wait_until/test and their _all/_any/_some and
 * _vector forms, and the signal wait. ivars are local symmetric objects that other
 * PEs update with AMOs or signals, so every read is an acquire load. */
#include "api/api.h"

static _Noreturn void bad_cmp(const char *fn, int cmp)
{
    shoal_fatal(fn, "cmp %d is not one of SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE", cmp);
}

/* SHMEM_DEBUG: an ivar outside symmetric memory no other PE can update, so a wait on
 * it would never end. */
static void check_ivar(const char *fn, const void *ivar)
{
    uint64_t off;
    if (shoal_seg_of(ivar, &off) < 0)
        shoal_fatal(fn,
                    "ivar %p is not symmetric, so no other PE can update it and the wait "
                    "would never end; use a global or shmem_malloc'd variable",
                    ivar);
}

/* The array of the multi-element forms lies inside one symmetric segment: a count
 * past its end would read other mappings, or fault. */
static void check_ivars(const char *fn, const void *ivars, size_t n, size_t size)
{
    size_t len;
    if (__builtin_mul_overflow(n, size, &len))
        len = SIZE_MAX;
    shoal_check_range(fn, ivars, len);
}

/* An ivar in the device heap is read by a device copy, any other by an acquire load. */
#define SHOAL_CMP_FN(T, N)                                                                   \
    static inline T load_##N(T *ivar)                                                        \
    {                                                                                        \
        T x;                                                                                 \
        if (SHOAL_UNLIKELY(shoal_dev_sym(ivar)))                                             \
            shoal_dev_read_sym(&x, ivar, sizeof x);                                          \
        else                                                                                 \
            x = __atomic_load_n(ivar, __ATOMIC_ACQUIRE);                                     \
        return x;                                                                            \
    }                                                                                        \
    static inline int holds_##N(const char *fn, T x, int cmp, T v)                           \
    {                                                                                        \
        switch (cmp) {                                                                       \
        case SHMEM_CMP_EQ: return x == v;                                                    \
        case SHMEM_CMP_NE: return x != v;                                                    \
        case SHMEM_CMP_GT: return x > v;                                                     \
        case SHMEM_CMP_GE: return x >= v;                                                    \
        case SHMEM_CMP_LT: return x < v;                                                     \
        case SHMEM_CMP_LE: return x <= v;                                                    \
        }                                                                                    \
        bad_cmp(fn, cmp);                                                                    \
    }                                                                                        \
    static inline int cmp_##N(const char *fn, T *ivar, int cmp, T v)                         \
    {                                                                                        \
        if (SHOAL_UNLIKELY(shoal.cfg.debug))                                                 \
            check_ivar(fn, ivar);                                                            \
        shoal_progress();                                                                    \
        return holds_##N(fn, load_##N(ivar), cmp, v);                                        \
    }                                                                                        \
    /* Returns the value that satisfied the condition, not a later reload. */                \
    static inline T wait_##N(const char *fn, T *ivar, int cmp, T v)                          \
    {                                                                                        \
        SHOAL_LOG_SCOPE(fn);                                                                 \
        struct shoal_backoff b = { 0 };                                                      \
        T x;                                                                                 \
        if (SHOAL_UNLIKELY(shoal.cfg.debug))                                                 \
            check_ivar(fn, ivar);                                                            \
        while (!holds_##N(fn, x = load_##N(ivar), cmp, v)) {                                 \
            if (b.polls == 0) /* outside init/finalize the wait would never end */           \
                shoal_require_init(fn);                                                      \
            shoal_backoff(&b);                                                               \
        }                                                                                    \
        if (SHOAL_UNLIKELY(shoal_dev_sym(ivar)))                                             \
            shoal_dev_settle_nic_writes();                                                   \
        return x;                                                                            \
    }

#define SHOAL_SYNC_BASIC(T, N)                                                               \
    SHOAL_CMP_FN(T, N)                                                                       \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                               \
    {                                                                                        \
        wait_##N(__func__, ivar, cmp, cmp_value);                                            \
    }                                                                                        \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                      \
    {                                                                                        \
        return cmp_##N(__func__, ivar, cmp, cmp_value);                                      \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_wait_until) SHOAL_PROFILED(shmem_##N##_test)

/* Where the next _any search of an array starts: just past the index the last one
 * returned, so that a series of calls on that array returns every satisfied index in
 * turn (1.5 section 9.10), not always the lowest, even when the thread polls several
 * arrays in turn. Kept per thread for its ANY_ARRAYS most recent arrays (a linear
 * search: the polls themselves cost more); an array pushed out starts again at 0. */
#define ANY_ARRAYS 8
static _Thread_local struct {
    const void *ivars;
    size_t next;
} any_pos[ANY_ARRAYS];
static _Thread_local unsigned any_evict;

static size_t *any_next_of(const void *ivars)
{
    for (unsigned i = 0; i < ANY_ARRAYS; i++)
        if (any_pos[i].ivars == ivars)
            return &any_pos[i].next;
    unsigned v = any_evict++ % ANY_ARRAYS;
    any_pos[v].ivars = ivars;
    any_pos[v].next = 0;
    return &any_pos[v].next;
}

/* The multi-element forms. V(i) is the comparison value for element i: the scalar
 * argument, or cmp_values[i] in the _vector forms. */
#define SHOAL_SYNC_SET(T, N, SFX, VT, V)                                                     \
    static inline int test_all_##N##SFX(const char *fn, T *ivars, size_t n,                  \
                                        const int *status, int cmp, VT vals)                 \
    {                                                                                        \
        for (size_t i = 0; i < n; i++)                                                       \
            if (!(status && status[i]) && !cmp_##N(fn, &ivars[i], cmp, V(i)))                \
                return 0;                                                                    \
        return 1;                                                                            \
    }                                                                                        \
    static inline size_t test_any_##N##SFX(const char *fn, T *ivars, size_t n,               \
                                           const int *status, int cmp, VT vals)              \
    {                                                                                        \
        size_t *next = any_next_of(ivars);                                                   \
        size_t start = *next < n ? *next : 0;                                                \
        for (size_t k = 0; k < n; k++) {                                                     \
            size_t i = start + k < n ? start + k : start + k - n;                            \
            if (!(status && status[i]) && cmp_##N(fn, &ivars[i], cmp, V(i))) {               \
                *next = i + 1;                                                               \
                return i;                                                                    \
            }                                                                                \
        }                                                                                    \
        return SIZE_MAX;                                                                     \
    }                                                                                        \
    static inline size_t test_some_##N##SFX(const char *fn, T *ivars, size_t n,              \
                                            size_t *indices, const int *status, int cmp,     \
                                            VT vals)                                         \
    {                                                                                        \
        size_t found = 0;                                                                    \
        for (size_t i = 0; i < n; i++)                                                       \
            if (!(status && status[i]) && cmp_##N(fn, &ivars[i], cmp, V(i)))                 \
                indices[found++] = i;                                                        \
        return found;                                                                        \
    }                                                                                        \
    static inline int all_masked_##N##SFX(size_t n, const int *status)                       \
    {                                                                                        \
        for (size_t i = 0; i < n; i++)                                                       \
            if (!(status && status[i]))                                                      \
                return 0;                                                                    \
        return 1;                                                                            \
    }                                                                                        \
    void shmem_##N##_wait_until_all##SFX(T *ivars, size_t nelems, const int *status,         \
                                         int cmp, VT vals)                                   \
    {                                                                                        \
        SHOAL_LOG_SCOPE(__func__);                                                           \
        check_ivars(__func__, ivars, nelems, sizeof *ivars);                                 \
        struct shoal_backoff b = { 0 };                                                      \
        while (!test_all_##N##SFX(__func__, ivars, nelems, status, cmp, vals))               \
            shoal_backoff(&b);                                                               \
    }                                                                                        \
    size_t shmem_##N##_wait_until_any##SFX(T *ivars, size_t nelems, const int *status,       \
                                           int cmp, VT vals)                                 \
    {                                                                                        \
        SHOAL_LOG_SCOPE(__func__);                                                           \
        check_ivars(__func__, ivars, nelems, sizeof *ivars);                                 \
        if (all_masked_##N##SFX(nelems, status))                                             \
            return SIZE_MAX;                                                                 \
        struct shoal_backoff b = { 0 };                                                      \
        size_t i;                                                                            \
        while ((i = test_any_##N##SFX(__func__, ivars, nelems, status, cmp, vals)) ==        \
               SIZE_MAX)                                                                     \
            shoal_backoff(&b);                                                               \
        return i;                                                                            \
    }                                                                                        \
    size_t shmem_##N##_wait_until_some##SFX(T *ivars, size_t nelems, size_t *indices,        \
                                            const int *status, int cmp, VT vals)             \
    {                                                                                        \
        SHOAL_LOG_SCOPE(__func__);                                                           \
        check_ivars(__func__, ivars, nelems, sizeof *ivars);                                 \
        if (all_masked_##N##SFX(nelems, status))                                             \
            return 0;                                                                        \
        struct shoal_backoff b = { 0 };                                                      \
        size_t k;                                                                            \
        while ((k = test_some_##N##SFX(__func__, ivars, nelems, indices, status, cmp,        \
                                       vals)) == 0)                                          \
            shoal_backoff(&b);                                                               \
        return k;                                                                            \
    }                                                                                        \
    int shmem_##N##_test_all##SFX(T *ivars, size_t nelems, const int *status, int cmp,       \
                                  VT vals)                                                   \
    {                                                                                        \
        check_ivars(__func__, ivars, nelems, sizeof *ivars);                                 \
        return test_all_##N##SFX(__func__, ivars, nelems, status, cmp, vals);                \
    }                                                                                        \
    size_t shmem_##N##_test_any##SFX(T *ivars, size_t nelems, const int *status, int cmp,    \
                                     VT vals)                                                \
    {                                                                                        \
        check_ivars(__func__, ivars, nelems, sizeof *ivars);                                 \
        return test_any_##N##SFX(__func__, ivars, nelems, status, cmp, vals);                \
    }                                                                                        \
    size_t shmem_##N##_test_some##SFX(T *ivars, size_t nelems, size_t *indices,              \
                                      const int *status, int cmp, VT vals)                   \
    {                                                                                        \
        check_ivars(__func__, ivars, nelems, sizeof *ivars);                                 \
        return test_some_##N##SFX(__func__, ivars, nelems, indices, status, cmp, vals);      \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_wait_until_all##SFX)                                          \
    SHOAL_PROFILED(shmem_##N##_wait_until_any##SFX)                                          \
    SHOAL_PROFILED(shmem_##N##_wait_until_some##SFX)                                         \
    SHOAL_PROFILED(shmem_##N##_test_all##SFX)                                                \
    SHOAL_PROFILED(shmem_##N##_test_any##SFX)                                                \
    SHOAL_PROFILED(shmem_##N##_test_some##SFX)

#define SHOAL_SCALAR(i) vals
#define SHOAL_VECTOR(i) vals[i]
#define SHOAL_SYNC(T, N)                                                                     \
    SHOAL_SYNC_BASIC(T, N)                                                                   \
    SHOAL_SYNC_SET(T, N, , T, SHOAL_SCALAR)                                                  \
    SHOAL_SYNC_SET(T, N, _vector, const T *, SHOAL_VECTOR)

SHMEM_SYNC_TYPES(SHOAL_SYNC)
SHMEM_SYNC_DEPR_TYPES(SHOAL_SYNC_BASIC)

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    return wait_uint64(__func__, sig_addr, cmp, cmp_value);
}
SHOAL_PROFILED(shmem_signal_wait_until)

/* Deprecated (1.4) waits. */
void shmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    wait_long(__func__, ivar, cmp, cmp_value);
}
SHOAL_PROFILED(shmem_wait_until)

void shmem_wait(long *ivar, long cmp_value)
{
    wait_long(__func__, ivar, SHMEM_CMP_NE, cmp_value);
}
SHOAL_PROFILED(shmem_wait)

#define SHOAL_DEPR_WAIT(T, N)                                                                \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                              \
    {                                                                                        \
        wait_##N(__func__, ivar, SHMEM_CMP_NE, cmp_value);                                   \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_wait)
SHMEM_DEPR_WAIT_TYPES(SHOAL_DEPR_WAIT)
