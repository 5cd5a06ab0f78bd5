/* Deprecated active-set barrier, sync and reductions (shmem_TYPENAME_OP_to_all). An
 * active set of every PE runs them as the world team's (coll_set_is_world).
 *
 * to_all is a reduce-scatter by gets and an allgather by puts: after a pSync barrier
 * (every source is ready), member i gets piece i (ceil(nreduce / n) elements) of every
 * member's source and reduces it into its own pWrk, which the spec sizes for exactly
 * that (nreduce/2 + 1 >= ceil(nreduce / n) for n >= 2); then it puts the piece into
 * every dest, and a last barrier completes them. An in-place call adds a barrier
 * between the two phases, so that no source is overwritten while still being read.
 * pWrk is used only locally; no team scratch is touched (see coll_common.h). */
#include "coll/coll_common.h"
#include "coll/coll_device.h"
#include "env/log.h"

/* The world team's barrier for a set of every PE, else the pSync barrier; both
 * complete the default context's operations. */
static void set_barrier(const char *fn, int PE_start, int logPE_stride, int PE_size,
                        long *pSync)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    coll_set_begin(fn, PE_start, logPE_stride, PE_size, pSync, &c);
    SHOAL_LOG(COLL, TRACE, "%s: active set of %d from PE %d, %s", fn, PE_size, PE_start,
              coll_set_is_world(&c) ? "the world barrier" : "its pSync");
    if (coll_set_is_world(&c))
        shoal_barrier_world();
    else
        coll_barrier(&c);
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    set_barrier(__func__, PE_start, logPE_stride, PE_size, pSync);
}
SHOAL_PROFILED(shmem_barrier)

/* Parenthesized: shmem_sync is also the C11 generic name for team_sync. */
void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    set_barrier(__func__, PE_start, logPE_stride, PE_size, pSync);
}
SHOAL_PROFILED(shmem_sync)

#define TO_ALL_GET_BYTES 2048 /* bytes of a peer's piece fetched per get */

static void set_reduce(const char *fn, char *dest, const char *source, int nreduce,
                       size_t esize, int PE_start, int logPE_stride, int PE_size, char *pWrk,
                       long *pSync, coll_op_fn *op, enum shoal_red_kind kind,
                       enum shoal_red_op rop)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    coll_set_begin(fn, PE_start, logPE_stride, PE_size, pSync, &c);
    if (nreduce <= 0)
        return;
    if (coll_set_is_world(&c)) {
        coll_team_reduce(fn, SHMEM_TEAM_WORLD, dest, source, (size_t)nreduce, esize, op, kind,
                         rop);
        return;
    }
    size_t total = (size_t)nreduce, n = (size_t)c.n;
    if (coll_dev_needed(dest, source)) {
        if (coll_dev_direct(dest, source, 1) &&
            !coll_dev_reduce(&c, dest, source, total, esize, kind, rop))
            return;
        /* pWrk too lives on the staging: it may be device memory. */
        COLL_DEV_STAGED (st, fn, &c, total, esize, coll_dev_one(source), coll_dev_one(dest),
                         1)
            set_reduce(fn, st.out, st.in, (int)st.m, esize, PE_start, logPE_stride, PE_size,
                       st.wrk, pSync, op, kind, rop);
        return;
    }
    if (n == 1) {
        if (dest != source)
            memcpy(dest, source, total * esize);
        return;
    }
    coll_check_sym(fn, dest, total * esize);
    coll_check_sym(fn, source, total * esize);
    if (COLL_NET(&c, reduce, dest, source, total, esize, kind, rop))
        return;
    size_t piece = (total + n - 1) / n, lo = (size_t)c.me * piece;
    size_t m = lo >= total ? 0 : (total - lo < piece ? total - lo : piece);
    coll_barrier(&c);
    if (m) {
        _Alignas(64) unsigned char in[TO_ALL_GET_BYTES];
        size_t step = sizeof in / esize;
        memcpy(pWrk, source + lo * esize, m * esize);
        for (int i = 1; i < c.n; i++)
            for (size_t at = 0; at < m; at += step) {
                size_t cnt = m - at < step ? m - at : step;
                coll_get(&c, (c.me + i) % c.n, in, source + (lo + at) * esize, cnt * esize);
                op(pWrk + at * esize, in, cnt);
            }
    }
    if (dest == source)
        coll_barrier(&c);
    for (int i = 0; m && i < c.n; i++)
        coll_put(&c, (c.me + i) % c.n, dest + lo * esize, pWrk, m * esize);
    coll_barrier(&c);
}

#define COLL_TO_ALL(T, N, OP)                                                                \
    COLL_DEFINE_OP(T, N, OP)                                                                 \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,      \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)      \
    {                                                                                        \
        set_reduce(__func__, (char *)dest, (const char *)source, nreduce, sizeof(T),         \
                   PE_start, logPE_stride, PE_size, (char *)pWrk, pSync, coll_##N##_##OP,    \
                   COLL_RED_KIND(T), COLL_RED_##OP);                                         \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_##OP##_to_all)
#define COLL_TO_ALL_BITWISE(T, N)                                                            \
    COLL_TO_ALL(T, N, and) COLL_TO_ALL(T, N, or) COLL_TO_ALL(T, N, xor)
#define COLL_TO_ALL_MINMAX(T, N) COLL_TO_ALL(T, N, max) COLL_TO_ALL(T, N, min)
#define COLL_TO_ALL_ARITH(T, N) COLL_TO_ALL(T, N, sum) COLL_TO_ALL(T, N, prod)
SHMEM_TO_ALL_BITWISE_TYPES(COLL_TO_ALL_BITWISE)
SHMEM_TO_ALL_MINMAX_TYPES(COLL_TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(COLL_TO_ALL_ARITH)
