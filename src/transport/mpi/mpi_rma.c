/* Puts, gets, AMOs, put-with-signal and completion over MPI-3 RMA (mpi_tr.h).
 *   put             MPI_Put, then MPI_Win_flush_local (the source may be reused);
 *   get             MPI_Get, then MPI_Win_flush_local (the data has arrived);
 *   *_nbi           the call alone (small puts from a copy); quiet completes it;
 *   AMO             as Shoal's own messages (mpi_amo.c) where mt.msg is set; else
 *                   MPI_Fetch_and_op / MPI_Compare_and_swap / MPI_Accumulate, always
 *                   on set 0's windows; fetching ones flush_local for the result;
 *   put-with-signal the put, MPI_Win_flush to that PE (the payload is in place),
 *                   then the signal as an accumulate;
 *   pe_quiet        MPI_Win_flush to that PE alone, on the windows it was targeted on;
 *   fence, quiet    MPI_Win_flush to each PE with operations outstanding (MPI
 *                   orders neither puts nor accumulates to different places, so
 *                   fence must complete them too, as in the paper).
 * Fetching AMOs and quiet, which a program may poll its own memory with, also drive
 * MPI progress every POLL_PROGRESS calls, and same-node gets (local copies that come
 * here through local_poll) every LOCAL_POLL_PROGRESS (poll_tick). */
#include <string.h>

#include "transport/mpi/mpi_tr.h"

/* MPI counts are int: larger transfers go in pieces of this many bytes. */
#define CHUNK ((size_t)1 << 30)

/* Open MPI 4.1's osc/ucx serves peers' operations on this PE's windows only inside
 * this PE's MPI progress, which an AMO on its own memory does not make: it completes
 * at once, so its flush waits for nothing. A program that polls its own memory with
 * fetching AMOs alone (a user's spin loop or lock) would hold up every peer's
 * operation on that PE for ever; so one call in this many makes progress.
 * 64: MPI_Iprobe costs about half a fetching AMO to self (Open MPI 4.1, osc/ucx), so
 * about 1% on the hot path, and a starved peer waits some 64 polls at most. The count
 * is a relaxed load and store: a decrement lost between threads only delays one. */
#define POLL_PROGRESS 64
/* A get from same-node memory is a local copy that makes no MPI call either, but of a
 * few ns, a hundred times cheaper than a fetching AMO: probing once in 64 of them cost
 * many times the copy (8-byte get, rma_latency in mode mpi-mixed on 2 busy cores:
 * 6 ns inline before, 13-30 ns out of line with no probe, 90-340 ns probing once in
 * 64, 14-70 ns once in 1024), and a loop of gets still probes about as often in time
 * as a loop of fetching AMOs. */
#define LOCAL_POLL_PROGRESS 1024

static inline void poll_tick(unsigned *left, unsigned period)
{
    unsigned n = __atomic_load_n(left, __ATOMIC_RELAXED);
    if (__builtin_expect(n == 0, 0)) {
        mpi_progress();
        n = period;
    }
    __atomic_store_n(left, n - 1, __ATOMIC_RELAXED);
}

static MPI_Datatype amo_dtype(enum shoal_amo_type t)
{
    switch (t) {
    case SHOAL_AMO_INT32: return MPI_INT32_T;
    case SHOAL_AMO_UINT32: return MPI_UINT32_T;
    case SHOAL_AMO_INT64: return MPI_INT64_T;
    case SHOAL_AMO_UINT64: return MPI_UINT64_T;
    }
    MT_FATAL("shoal", "internal: AMO type %d", (int)t);
}

static MPI_Op amo_op(enum shoal_amo_op op)
{
    switch (op) {
    case SHOAL_AMO_READ: return MPI_NO_OP;
    case SHOAL_AMO_WRITE: return MPI_REPLACE;
    case SHOAL_AMO_ADD: return MPI_SUM;
    case SHOAL_AMO_AND: return MPI_BAND;
    case SHOAL_AMO_OR: return MPI_BOR;
    case SHOAL_AMO_XOR: return MPI_BXOR;
    case SHOAL_AMO_CSWAP: break;
    }
    MT_FATAL("shoal", "internal: AMO operation %d", (int)op);
}

static void rma_put(struct mpi_ctx *c, int seg, uint64_t off, const void *src, size_t len,
                    int pe)
{
    MPI_Win w = c->rma->win[seg];
    const char *p = src;
    while (len) {
        size_t n = len < CHUNK ? len : CHUNK;
        MPI_Put(p, (int)n, MPI_BYTE, pe, (MPI_Aint)off, (int)n, MPI_BYTE, w);
        p += n, off += n, len -= n;
    }
    mpi_mark(c->rma, seg, pe);
}

static void rma_get(struct mpi_ctx *c, void *dst, int seg, uint64_t off, size_t len, int pe)
{
    MPI_Win w = c->rma->win[seg];
    char *p = dst;
    while (len) {
        size_t n = len < CHUNK ? len : CHUNK;
        MPI_Get(p, (int)n, MPI_BYTE, pe, (MPI_Aint)off, (int)n, MPI_BYTE, w);
        p += n, off += n, len -= n;
    }
}

void mpi_put(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
             int pe)
{
    struct mpi_ctx *c = mpi_ctx_of(ctx);
    mpi_enter();
    rma_put(c, seg, off, src, len, pe);
    MPI_Win_flush_local(pe, c->rma->win[seg]);
    mpi_leave();
}

/* len bytes of c's arena, after completing what the arena fed if it is full;
 * called with c->lock held where it is needed. */
static void *arena_take(struct mpi_ctx *c, size_t len)
{
    len = (len + 15) & ~(size_t)15;
    if (c->used + len > MPI_ARENA_BYTES) {
        mpi_flush_set(c->rma, ~0u, 1);
        if (c->rma != &mt.sets[0])
            mpi_flush_set(&mt.sets[0], ~0u, 1);
        c->used = 0;
    }
    void *p = c->arena + c->used;
    c->used += len;
    return p;
}

void mpi_put_nbi(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
                 int pe)
{
    struct mpi_ctx *c = mpi_ctx_of(ctx);
    mpi_enter();
    if (len > MPI_BOUNCE_MAX) {
        rma_put(c, seg, off, src, len, pe);
    } else {
        if (mt.locked)
            pthread_mutex_lock(&c->lock);
        void *copy = arena_take(c, len);
        memcpy(copy, src, len);
        rma_put(c, seg, off, copy, len, pe);
        if (mt.locked)
            pthread_mutex_unlock(&c->lock);
    }
    mpi_leave();
}

void mpi_get(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe)
{
    struct mpi_ctx *c = mpi_ctx_of(ctx);
    mpi_enter();
    rma_get(c, dst, seg, off, len, pe);
    MPI_Win_flush_local(pe, c->rma->win[seg]);
    mpi_leave();
}

void mpi_get_nbi(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe)
{
    struct mpi_ctx *c = mpi_ctx_of(ctx);
    mpi_enter();
    rma_get(c, dst, seg, off, len, pe);
    mpi_mark(c->rma, seg, pe);
    mpi_leave();
}

/* An AMO that returns before MPI has read its operands: they are copied into the
 * context's arena first. */
static void amo_deferred(struct mpi_ctx *c, const struct shoal_amo *a, int pe)
{
    struct mpi_set *amo = &mt.sets[0];
    MPI_Win w = amo->win[a->seg];
    MPI_Datatype t = amo_dtype(a->type);
    size_t sz = shoal_amo_width(a->type);
    if (mt.locked)
        pthread_mutex_lock(&c->lock);
    uint64_t *o = arena_take(c, 16);
    if (a->operand)
        memcpy(&o[0], a->operand, sz);
    if (a->op == SHOAL_AMO_CSWAP) {
        memcpy(&o[1], a->compare, sz);
        MPI_Compare_and_swap(&o[0], &o[1], a->fetch, t, pe, (MPI_Aint)a->off, w);
    } else if (a->fetch) {
        MPI_Fetch_and_op(&o[0], a->fetch, t, pe, (MPI_Aint)a->off, amo_op(a->op), w);
    } else {
        MPI_Accumulate(&o[0], 1, t, pe, (MPI_Aint)a->off, 1, t, amo_op(a->op), w);
    }
    if (mt.locked)
        pthread_mutex_unlock(&c->lock);
    mpi_mark(amo, a->seg, pe);
    mpi_mark_bits(&c->amo_dirty, 1u << a->seg);
}

static void amo_mpi(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe)
{
    if (!a->fetch) {
        amo_deferred(mpi_ctx_of(ctx), a, pe);
        return;
    }
    MPI_Win w = mt.sets[0].win[a->seg];
    MPI_Datatype t = amo_dtype(a->type);
    uint64_t none = 0;
    if (a->op == SHOAL_AMO_CSWAP)
        MPI_Compare_and_swap(a->operand, a->compare, a->fetch, t, pe, (MPI_Aint)a->off, w);
    else
        MPI_Fetch_and_op(a->operand ? a->operand : &none, a->fetch, t, pe, (MPI_Aint)a->off,
                         amo_op(a->op), w);
    MPI_Win_flush_local(pe, w);
    poll_tick(&mt.poll_left, POLL_PROGRESS);
}

void mpi_amo(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe)
{
    mpi_enter();
    if (mt.msg)
        mpi_msg_amo(mpi_ctx_of(ctx), a, pe, 0);
    else
        amo_mpi(ctx, a, pe);
    mpi_leave();
}

void mpi_amo_nbi(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe)
{
    mpi_enter();
    if (mt.msg)
        mpi_msg_amo(mpi_ctx_of(ctx), a, pe, 1);
    else
        amo_deferred(mpi_ctx_of(ctx), a, pe);
    mpi_leave();
}

/* ps->nbi aside: the payload must be in place before the signal: both complete here. */
void mpi_put_signal(struct shoal_ctx *ctx, const struct shoal_put_signal *ps)
{
    struct mpi_ctx *c = mpi_ctx_of(ctx);
    int pe = ps->dst.pe;
    mpi_enter();
    rma_put(c, ps->dst.seg, ps->dst.off, ps->src, ps->len, pe);
    MPI_Win_flush(pe, c->rma->win[ps->dst.seg]);
    struct shoal_amo a = { .op = ps->sig_op,
                           .type = SHOAL_AMO_UINT64,
                           .seg = ps->sig.seg,
                           .off = ps->sig.off,
                           .operand = &ps->signal };
    if (mt.msg)
        mpi_msg_amo(c, &a, pe, 0);
    else
        amo_deferred(c, &a, pe);
    mpi_leave();
}

/* Per target rather than MPI_Win_flush_all: with Open MPI 4.1's osc/ucx, flush_all
 * was seen to leave puts and gets incomplete (api.ext and api.rma_large in test mode
 * mpi), while a flush to each target completes them. */
void mpi_flush_set(struct mpi_set *set, unsigned mask, int local)
{
    unsigned d = __atomic_load_n(&set->dirty, __ATOMIC_RELAXED) & mask;
    if (!d)
        return;
    if (!local)
        __atomic_fetch_and(&set->dirty, ~d, __ATOMIC_RELAXED);
    for (int s = 0; d; s++, d >>= 1) {
        if (!(d & 1))
            continue;
        for (int w = 0; w < mt.nwords; w++) {
            uint64_t *word = &set->targets[s][w];
            uint64_t bits = local ? __atomic_load_n(word, __ATOMIC_RELAXED)
                                  : __atomic_exchange_n(word, 0, __ATOMIC_RELAXED);
            for (; bits; bits &= bits - 1) {
                int pe = w * 64 + __builtin_ctzll(bits);
                if (local)
                    MPI_Win_flush_local(pe, set->win[s]);
                else
                    MPI_Win_flush(pe, set->win[s]);
            }
        }
    }
}

void mpi_quiet(struct shoal_ctx *ctx)
{
    struct mpi_ctx *c = mpi_ctx_of(ctx);
    MT_LOG(TRACE, "quiet: MPI_Win_flush to each PE with operations outstanding");
    mpi_enter();
    mpi_flush_set(c->rma, ~0u, 0);
    unsigned amo = __atomic_exchange_n(&c->amo_dirty, 0, __ATOMIC_RELAXED);
    if (amo)
        mpi_flush_set(&mt.sets[0], amo, 0);
    if (mt.msg)
        mpi_msg_quiet(c);
    poll_tick(&mt.poll_left, POLL_PROGRESS); /* a loop of _nbi fetches and quiet polls too */
    mpi_leave();
}

/* Flushes pe on the windows of set (bits of mask) with operations to it outstanding. */
static void flush_pe(struct mpi_set *set, unsigned mask, int pe)
{
    unsigned d = __atomic_load_n(&set->dirty, __ATOMIC_RELAXED) & mask;
    uint64_t bit = 1ull << (pe % 64);
    for (int s = 0; d; s++, d >>= 1)
        if ((d & 1) &&
            (__atomic_fetch_and(&set->targets[s][pe / 64], ~bit, __ATOMIC_RELAXED) & bit))
            MPI_Win_flush(pe, set->win[s]);
}

/* MPI completes per target: only pe's operations are waited for. */
void mpi_pe_quiet(struct shoal_ctx *ctx, int pe)
{
    struct mpi_ctx *c = mpi_ctx_of(ctx);
    MT_LOG(TRACE, "quiet toward PE %d: MPI_Win_flush to it alone", pe);
    mpi_enter();
    flush_pe(c->rma, ~0u, pe);
    unsigned amo = __atomic_load_n(&c->amo_dirty, __ATOMIC_RELAXED);
    if (amo)
        flush_pe(&mt.sets[0], amo, pe);
    if (mt.msg)
        mpi_msg_pe_quiet(c, pe);
    poll_tick(&mt.poll_left, POLL_PROGRESS);
    mpi_leave();
}

void mpi_local_complete(struct shoal_ctx *ctx)
{
    struct mpi_ctx *c = mpi_ctx_of(ctx);
    mpi_enter();
    mpi_flush_set(c->rma, ~0u, 1);
    mpi_leave();
}

/* Sessions are hints (docs/extensions.md): MPI batches by itself. The end of a
 * session settles what it issued, AMOs sent as messages included. */
void mpi_session_start(struct shoal_ctx *ctx, long options)
{
    (void)ctx, (void)options;
}

void mpi_session_stop(struct shoal_ctx *ctx)
{
    mpi_quiet(ctx);
}

void mpi_local_poll(void)
{
    poll_tick(&mt.local_poll_left, LOCAL_POLL_PROGRESS);
}

void mpi_progress(void)
{
    mpi_enter();
    if (mt.msg) {
        mpi_msg_serve(); /* it drives MPI too */
    } else {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, mt.comm, &flag, MPI_STATUS_IGNORE);
    }
    mpi_leave();
}
