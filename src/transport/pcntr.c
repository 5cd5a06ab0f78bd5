/* Performance counters (shmemx_pcntr_*, api/pcntr.c) and the wrapper of the paths
 * that feeds them.
 *
 * SHOAL_PCNTR=1 makes transport start-up wrap this PE's paths in this file's, so
 * counting costs nothing while it is off. While it is on, every put, get, AMO and
 * put-with-signal leaves the inline path and comes here: it is done by the table
 * below, then counted in its context (one write or one read; put-with-signal
 * counts its payload and its signal). Counting after the operation was handed to the
 * transport means that whatever a reader sees counted, the transport's own counters
 * already include.
 *
 * Completion: a same-node operation is complete when its call returns, and so is a
 * blocking get or fetching AMO over the network. The other network operations are
 * complete after a quiet on their context (pc_quiet records how many), or
 * earlier when the network transport's counters show fewer of the context's messages
 * outstanding than it has such operations (each of them is at least one message). So
 * the completed counts never run ahead of the truth, and equal the issued ones after
 * a quiet. */
#include "transport/transport.h"

/* Threads may count on this context at once. */
static int shared(shmem_ctx_t ctx)
{
    return (shoal.thread_level == SHMEM_THREAD_MULTIPLE || shoal.threads_inside) &&
            !(ctx->options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED));
}

static uint64_t load(const uint64_t *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* A reader (another thread) may look at any time: relaxed stores, which are plain
 * ones on every machine Shoal runs on; an atomic add only where threads share ctx. */
static void add(int sh, uint64_t *c)
{
    if (sh)
        __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
    else
        __atomic_store_n(c, load(c) + 1, __ATOMIC_RELAXED);
}

/* One operation of ctx, done; net: it may complete after its call returned. The
 * network count goes first, so a reader never sees it missing from an issued count. */
static void count(shmem_ctx_t ctx, int write, int net)
{
    struct shoal_pcntr *p = &ctx->pcntr;
    int sh = shared(ctx);
    if (net)
        add(sh, write ? &p->net_writes : &p->net_reads);
    add(sh, write ? &p->writes : &p->reads);
}

static const struct shoal_path *inner;

static int remote(const struct shoal_rref *r)
{
    return r->tp != &shoal_transport_shm;
}

/* Where an AMO goes: a device-heap one by its PE's transport (dev_route.c), a host
 * one as shoal_tp_amo_host decides. */
static int amo_remote(const struct shoal_rref *r)
{
    return r->seg == SHOAL_SEG_DEVICE ? remote(r) : !shoal_amo_on_cpu(r);
}

static void pc_put(shmem_ctx_t ctx, const struct shoal_rref *r, const void *src, size_t len,
                   int nbi)
{
    inner->put(ctx, r, src, len, nbi);
    count(ctx, 1, remote(r));
}

static void pc_get(shmem_ctx_t ctx, void *dst, const struct shoal_rref *r, size_t len,
                   int nbi)
{
    inner->get(ctx, dst, r, len, nbi);
    count(ctx, 0, nbi && remote(r));
}

static void pc_amo(shmem_ctx_t ctx, const struct shoal_rref *r, enum shoal_amo_op op,
                   enum shoal_amo_type type, uint64_t v, uint64_t cmp, void *fetch, int nbi)
{
    inner->amo(ctx, r, op, type, v, cmp, fetch, nbi);
    /* A non-fetching AMO is complete at quiet; a fetching one when it returns,
     * unless it is non-blocking. */
    int net = amo_remote(r) && (!fetch || (nbi & ~(SHOAL_AMO_FROM_USER | SHOAL_AMO_SIGNAL)));
    count(ctx, fetch == NULL, net);
}

static void pc_put_signal(shmem_ctx_t ctx, const struct shoal_put_signal *ps)
{
    inner->put_signal(ctx, ps);
    /* The network carries both parts when the payload goes there. */
    int net = remote(&ps->dst);
    if (ps->len)
        count(ctx, 1, net);
    count(ctx, 1, net || amo_remote(&ps->sig));
}

static void pc_fence(shmem_ctx_t ctx)
{
    inner->fence(ctx);
}

/* *c = max(*c, v): quiets of several threads may end in any order. */
static void raise_to(uint64_t *c, uint64_t v)
{
    uint64_t cur = load(c);
    while (cur < v &&
           !__atomic_compare_exchange_n(c, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* Afterwards the counters know that every network operation issued before it is
 * complete. */
static void pc_quiet(shmem_ctx_t ctx)
{
    struct shoal_pcntr *p = &ctx->pcntr;
    uint64_t w = load(&p->net_writes), r = load(&p->net_reads);
    inner->quiet(ctx);
    raise_to(&p->settled_writes, w);
    raise_to(&p->settled_reads, r);
}

static const struct shoal_path pcntr_path = {
    .put = pc_put,
    .get = pc_get,
    .amo = pc_amo,
    .put_signal = pc_put_signal,
    .fence = pc_fence,
    .quiet = pc_quiet,
};

const struct shoal_path *shoal_path_pcntr_wrap(const struct shoal_path *in)
{
    inner = in;
    return &pcntr_path;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* One direction's counts, loaded in the order count() does not write them: an
 * operation counted meanwhile can only make completed smaller. */
struct snap {
    uint64_t all, pending;
};

static struct snap snap(const uint64_t *all, const uint64_t *net, const uint64_t *settled)
{
    uint64_t n = load(all), nn = load(net), s = load(settled);
    return (struct snap){ n, s < nn ? nn - s : 0 };
}

/* outstanding: the transport's messages of ctx's resources not complete, sampled
 * after the snapshot, so every operation in it had been posted (or -1: unknown). */
static void finish(struct snap sn, uint64_t outstanding, uint64_t *issued,
                   uint64_t *completed)
{
    uint64_t pending = min_u64(sn.pending, outstanding);
    *issued = sn.all;
    *completed = sn.all - min_u64(pending, sn.all);
}

void shoal_pcntr_report(shmem_ctx_t ctx, struct shoal_pcntr_report *out)
{
    struct shoal_net_counts nc = { 0 };
    const struct shoal_pcntr *p = &ctx->pcntr;
    if (!shoal.cfg.pcntr) {
        /* Off: what the network transport counts by itself. */
        shoal_tp.net->counters(ctx, &nc);
        *out = (struct shoal_pcntr_report){ .issued_writes = nc.writes,
                                            .completed_writes = nc.writes_done,
                                            .issued_reads = nc.reads,
                                            .completed_reads = nc.reads_done,
                                            .target = nc.target };
        return;
    }
    struct snap w = snap(&p->writes, &p->net_writes, &p->settled_writes);
    struct snap r = snap(&p->reads, &p->net_reads, &p->settled_reads);
    uint64_t ow = UINT64_MAX, orr = UINT64_MAX;
    /* A transport that counts nothing reports held: nothing to bound pending by. */
    shoal_tp.net->counters(ctx, &nc);
    if (!nc.held) {
        ow = nc.writes - min_u64(nc.writes_done, nc.writes);
        orr = nc.reads - min_u64(nc.reads_done, nc.reads);
    }
    finish(w, ow, &out->issued_writes, &out->completed_writes);
    finish(r, orr, &out->issued_reads, &out->completed_reads);
    out->target = nc.target;
}
