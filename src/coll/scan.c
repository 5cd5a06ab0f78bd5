/* Prefix sums over a team (1.6 sum_inscan / sum_exscan), and the exclusive prefix
 * collect uses for its offsets.
 *
 * Hillis-Steele: in round k each member sends its partial (the sum over members
 * me - 2^k + 1 .. me) to member me + 2^k through dis channel k and adds the one from
 * me - 2^k: ceil(log2 n) rounds. Data larger than a channel slot goes in slot-sized
 * chunks, which pipeline since a sender may run one slot ahead of its receiver. */
#include "coll/coll_common.h"
#include "coll/coll_device.h"
#include "env/log.h"

void coll_scan(const struct coll *c, void *dest, const void *source, size_t nelems,
               size_t esize, coll_op_fn *op, int exclusive)
{
    int n = c->n, me = c->me, K = coll_log2_ceil(n);
    struct coll_chan ch[COLL_KMAX];
    for (int k = 0; k < K; k++)
        ch[k] = coll_dis_chan(c, k);
    /* The running partial; an exclusive scan accumulates dest separately from it. */
    _Alignas(64) unsigned char partial[COLL_HALF_BYTES];
    size_t chunk = (K ? ch[0].slot_bytes : sizeof partial) / esize;
    for (size_t off = 0; off < nelems; off += chunk) {
        size_t m = nelems - off < chunk ? nelems - off : chunk, bytes = m * esize;
        char *d = (char *)dest + off * esize;
        const char *s = (const char *)source + off * esize;
        void *t = d;
        if (exclusive) {
            t = partial;
            memcpy(t, s, bytes);
            memset(d, 0, bytes);
        } else if (d != s) {
            memcpy(d, s, bytes);
        }
        for (int k = 0; k < K; k++) {
            int dist = 1 << k;
            if (me + dist < n)
                coll_chan_send(c, &ch[k], me + dist, t, bytes);
            if (me - dist >= 0) {
                const void *in = coll_chan_recv(&ch[k]);
                op(t, in, m);
                if (exclusive)
                    op(d, in, m);
                coll_chan_release(c, &ch[k], me - dist);
            }
        }
    }
}

static int team_scan(const char *fn, shmem_team_t team, void *dest, const void *source,
                     size_t nelems, size_t esize, coll_op_fn *op, enum shoal_red_kind kind,
                     int exclusive)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    if (coll_team_begin(fn, team, &c))
        return -1;
    COLL_AGREE(fn, &c, COLL_ARG_SIZE("nelems", nelems));
    if (coll_dev_needed(dest, source)) {
        COLL_DEV_STAGED (st, fn, &c, nelems, esize, coll_dev_one(source), coll_dev_one(dest),
                         0)
            team_scan(fn, team, st.out, st.in, st.m, esize, op, kind, exclusive);
        return 0;
    }
    if (COLL_NET(&c, scan, dest, source, nelems, esize, kind, exclusive)) {
        SHOAL_LOG(COLL, TRACE, "%s over %d: the %s transport's", fn, c.n, shoal_tp_name());
        return 0;
    }
    SHOAL_LOG(COLL, TRACE, "%s of %zu elements over %d: recursive doubling", fn, nelems, c.n);
    coll_scan(&c, dest, source, nelems, esize, op, exclusive);
    return 0;
}

#define COLL_SCAN(T, N)                                                                      \
    COLL_DEFINE_OP(T, N, sum)                                                                \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                        \
        return team_scan(__func__, team, dest, source, nelems, sizeof(T), coll_##N##_sum,    \
                         COLL_RED_KIND(T), 0);                                               \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_sum_inscan)                                                   \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                        \
        return team_scan(__func__, team, dest, source, nelems, sizeof(T), coll_##N##_sum,    \
                         COLL_RED_KIND(T), 1);                                               \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_sum_exscan)
SHMEM_REDUCE_ARITH_TYPES(COLL_SCAN)
