/* collect (per-PE sizes may differ) and fcollect (same size everywhere): every
 * member's block, concatenated in member order, in every member's dest.
 *
 * Team fcollect: Bruck's allgather straight into dest. In round k each member sends
 * the min(2^k, n - 2^k) blocks it holds to member me + 2^k, at their final places:
 * ceil(log2 n) rounds, and each block is copied once into each member, so it suits
 * every message size.
 * Team collect: an exclusive prefix of the sizes over the team (Hillis-Steele on the
 * dis channels) gives each member its offset; then each puts its block into every
 * dest and a barrier completes them.
 * Active sets: the offset is passed member to member through pSync[3] (collect), then
 * the same direct puts and the pSync barrier. */
#include <stdlib.h>

#include "coll/coll_common.h"
#include "coll/coll_device.h"
#include "env/log.h"

void coll_allput(const struct coll *c, void *dest, const void *src, size_t off, size_t len)
{
    char *d = (char *)dest + off;
    for (int i = 1; i < c->n; i++)
        coll_put(c, (c->me + i) % c->n, d, src, len);
    if (len && d != src)
        memcpy(d, src, len);
    coll_barrier(c);
}

static void fcollect_bruck(const struct coll *c, char *dest, const void *source, size_t len)
{
    int n = c->n, me = c->me;
    if (dest + (size_t)me * len != source)
        memcpy(dest + (size_t)me * len, source, len);
    for (int k = 0, have = 1; have < n; k++, have <<= 1) {
        /* This member holds blocks me - have + 1 .. me (mod n); the receiver lacks
         * the cnt of them nearest to me. Blocks that wrap around go as two
         * messages, each signalled, as a signal orders only its own payload. */
        int cnt = have < n - have ? have : n - have, to = (me + have) % n,
            first = me - cnt + 1;
        struct coll_sig sg = coll_tree_sig(c, k);
        if (first >= 0) {
            coll_sig_send(c, &sg, to, dest + (size_t)first * len, dest + (size_t)first * len,
                          (size_t)cnt * len);
        } else {
            coll_sig_send(c, &sg, to, dest, dest, (size_t)(me + 1) * len);
            coll_sig_send(c, &sg, to, dest + (size_t)(n + first) * len,
                          dest + (size_t)(n + first) * len, (size_t)-first * len);
        }
        int from = (me - have + n) % n;
        coll_sig_wait(&sg);
        if (from - cnt + 1 < 0)
            coll_sig_wait(&sg);
    }
}

static int team_fcollect(const char *fn, shmem_team_t team, void *dest, const void *source,
                         size_t nelems, size_t esize)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    if (coll_team_begin(fn, team, &c))
        return -1;
    COLL_AGREE(fn, &c, COLL_ARG_SIZE("nelems", nelems));
    size_t len = nelems * esize;
    if (!len)
        return 0;
    if (coll_dev_needed(dest, source)) {
        if (coll_dev_direct(dest, source, 0)) {
            coll_dev_allput(&c, dest, source, (size_t)c.me * len, len);
            return 0;
        }
        COLL_DEV_STAGED (st, fn, &c, nelems, esize, coll_dev_one(source),
                         coll_dev_blocks(dest, c.n, len), 0)
            team_fcollect(fn, team, st.out, st.in, st.m, esize);
        return 0;
    }
    coll_check_sym(fn, dest, len * (size_t)c.n);
    if (COLL_NET(&c, fcollect, dest, source, len)) {
        SHOAL_LOG(COLL, TRACE, "fcollect over %d: the %s transport's", c.n, shoal_tp_name());
        return 0;
    }
    SHOAL_LOG(COLL, TRACE, "fcollect of %zu bytes each over %d: Bruck", len, c.n);
    fcollect_bruck(&c, dest, source, len);
    return 0;
}

static void size_sum(void *acc, const void *in, size_t n)
{
    size_t *a = acc;
    const size_t *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] += b[i];
}

/* The host fcollect of len bytes per member, on a team or an active set. */
static void host_fcollect(const struct coll *c, void *dest, const void *source, size_t len)
{
    if (COLL_NET(c, fcollect, dest, source, len))
        return;
    if (c->team)
        fcollect_bruck(c, dest, source, len);
    else
        coll_allput(c, dest, source, (size_t)c->me * len, len);
}

/* Device memory (coll_device.h): every member's size by a staged fcollect, then the
 * blocks by staged fcollects of equal pieces (a member whose block is shorter sends
 * padding, which no one copies out). */
static void dev_collect(const char *fn, const struct coll *c, char *dest, const char *source,
                        size_t len)
{
    size_t n = (size_t)c->n, *lens = malloc(2 * n * sizeof *lens), *off = lens + n;
    if (!lens)
        shoal_fatal(fn, "out of memory for the sizes of %zu members", n);
    COLL_DEV_STAGED (st, fn, c, 1, sizeof len, coll_dev_one(&len),
                     coll_dev_blocks(lens, c->n, sizeof len), 0)
        host_fcollect(c, st.out, st.in, sizeof len);
    size_t at = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        off[i] = at;
        at += lens[i];
        longest = lens[i] > longest ? lens[i] : longest;
    }
    /* The sizes are host words; the blocks go device to device where they may. */
    if (coll_dev_direct(dest, source, 0)) {
        coll_dev_allput(c, dest, source, off[c->me], len);
        free(lens);
        return;
    }
    struct coll_dev_side in = { (char *)source, 1, 0, 0, NULL, &lens[c->me] },
                         out = { dest, c->n, 0, 0, off, lens };
    COLL_DEV_STAGED (st, fn, c, longest, 1, in, out, 0)
        host_fcollect(c, st.out, st.in, st.m);
    free(lens);
}

static int team_collect(const char *fn, shmem_team_t team, void *dest, const void *source,
                        size_t len)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    if (coll_team_begin(fn, team, &c))
        return -1;
    if (coll_dev_needed(dest, source)) {
        dev_collect(fn, &c, dest, source, len);
        return 0;
    }
    if (len)
        coll_check_sym(fn, dest, len);
    if (COLL_NET(&c, collect, dest, source, len)) {
        SHOAL_LOG(COLL, TRACE, "collect over %d: the %s transport's", c.n, shoal_tp_name());
        return 0;
    }
    SHOAL_LOG(COLL, TRACE, "collect over %d: offsets by scan, then puts to all", c.n);
    size_t off = 0;
    if (c.n > 1)
        coll_scan(&c, &off, &len, 1, sizeof off, size_sum, 1);
    coll_allput(&c, dest, source, off, len);
    return 0;
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return team_fcollect(__func__, team, dest, source, nelems, 1);
}
SHOAL_PROFILED(shmem_fcollectmem)

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return team_collect(__func__, team, dest, source, nelems);
}
SHOAL_PROFILED(shmem_collectmem)

#define COLL_COLLECT(T, N)                                                                   \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)     \
    {                                                                                        \
        return team_fcollect(__func__, team, dest, source, nelems, sizeof(T));               \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_fcollect)                                                     \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)      \
    {                                                                                        \
        return team_collect(__func__, team, dest, source, nelems * sizeof(T));               \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_collect)
SHMEM_RMA_TYPES(COLL_COLLECT)

static void set_fcollect(const char *fn, void *dest, const void *source, size_t len,
                         int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    coll_set_begin(fn, PE_start, logPE_stride, PE_size, pSync, &c);
    if (coll_set_is_world(&c)) {
        team_fcollect(fn, SHMEM_TEAM_WORLD, dest, source, len, 1);
        return;
    }
    if (!len)
        return;
    if (coll_dev_needed(dest, source)) {
        if (coll_dev_direct(dest, source, 0)) {
            coll_dev_allput(&c, dest, source, (size_t)c.me * len, len);
            return;
        }
        COLL_DEV_STAGED (st, fn, &c, len, 1, coll_dev_one(source),
                         coll_dev_blocks(dest, c.n, len), 0)
            host_fcollect(&c, st.out, st.in, st.m);
        return;
    }
    coll_check_sym(fn, dest, len * (size_t)c.n);
    if (COLL_NET(&c, fcollect, dest, source, len))
        return;
    coll_allput(&c, dest, source, (size_t)c.me * len, len);
}

static void set_collect(const char *fn, void *dest, const void *source, size_t len,
                        int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    coll_set_begin(fn, PE_start, logPE_stride, PE_size, pSync, &c);
    if (coll_set_is_world(&c)) {
        team_collect(fn, SHMEM_TEAM_WORLD, dest, source, len);
        return;
    }
    if (coll_dev_needed(dest, source)) {
        dev_collect(fn, &c, dest, source, len);
        return;
    }
    if (len)
        coll_check_sym(fn, dest, len);
    if (COLL_NET(&c, collect, dest, source, len))
        return;
    /* pSync[3] carries offset + 1, as zero means "not yet". */
    size_t off = c.me ? (size_t)coll_psync_take(&pSync[COLL_PS_OFFSET]) - 1 : 0;
    if (c.me + 1 < c.n)
        coll_psync_give(&c, c.me + 1, &pSync[COLL_PS_OFFSET], (long)(off + len + 1), 0);
    coll_allput(&c, dest, source, off, len);
}

#define COLL_SET_COLLECT(BITS, BYTES)                                                        \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,   \
                              int logPE_stride, int PE_size, long *pSync)                    \
    {                                                                                        \
        set_fcollect(__func__, dest, source, nelems *BYTES, PE_start, logPE_stride, PE_size, \
                     pSync);                                                                 \
    }                                                                                        \
    SHOAL_PROFILED(shmem_fcollect##BITS)                                                     \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                             int logPE_stride, int PE_size, long *pSync)                     \
    {                                                                                        \
        set_collect(__func__, dest, source, nelems *BYTES, PE_start, logPE_stride, PE_size,  \
                    pSync);                                                                  \
    }                                                                                        \
    SHOAL_PROFILED(shmem_collect##BITS)
COLL_SET_SIZES(COLL_SET_COLLECT)
