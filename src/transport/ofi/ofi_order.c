/* Ordering and completion: fence, quiet, local completion, and the flush of
 * puts posted with FI_MORE in a session (ofi_session.c).
 *
 * Completion, two ways (chosen at start-up, ofi_init.c):
 * - counters: the endpoint's operations complete at FI_DELIVERY_COMPLETE where
 *   the provider grants it, so a counter that has caught up with the issued count
 *   means the data is visible at the target; quiet is exactly that wait. On
 *   tcp;ofi_rxm this costs every small put: rxm sends an inject through a buffer
 *   with a completion whenever a write counter is bound, and tcp acknowledges each
 *   delivery-complete write only when the target drives its progress.
 * - quiet_read, where the provider grants delivery completion and processes an RMA
 *   read after the RMA writes before it to the same target (FI_ORDER_RMA_RAW or
 *   FI_ORDER_RAW: tcp;ofi_rxm, sockets): no write counter; small puts are true
 *   injects, the others complete at transmission (a CQ entry, counted in wdone),
 *   and every put marks its target dirty. Quiet settles them: one small read per
 *   dirty PE, all posted before any is waited for; when a read completes, the puts
 *   before it to that PE are visible. A fence and a put-with-signal's payload
 *   settle one PE that way (ofi_settle_pe). AMOs keep
 *   delivery completion: rxm applies them from messages and answers each, so a
 *   read could overtake one, and its answer is what completes it; a non-fetching
 *   one is sent as a fetching one with the result dropped (ofi_amo.c), so that
 *   the read counter counts it.
 * Fence is free where the provider orders writes and atomics to a target by
 * itself (FI_ORDER_WAW: sockets). Otherwise it waits lazily, in the next put or AMO
 * of the context (ofi_fence_wait, behind one flag on the hot path), and only for
 * what OpenSHMEM's fence orders, operations to the same PE:
 * - quiet_read: a fence starts a new epoch; every PE in the dirty set then owes a
 *   settle (dirty_since[pe] below the epoch), paid by the next put or AMO to that
 *   PE: one read to it, waited for on the read counter (with the gets and AMOs in
 *   flight, if any). Puts to other PEs go on, and theirs stay in flight: the loop
 *   "payload to x, fence, flag to x" over many x waits for one read per x, to x.
 *   A settled PE stays in the set, dirty from the new
 *   epoch (the put that paid is usually to it), so fence costs O(1) and a settle
 *   never walks the set. AMOs are not ordered with puts by those reads: a fence
 *   after AMOs left in flight since the last full wait (amos_out) makes the
 *   next put or AMO wait for every earlier operation (OFI_FENCE_ALL).
 *   Asking the read counter whether they are done would cost a provider progress
 *   call per fence, which in an "AMO flag" loop finds the last flag still in
 *   flight: measured 1.4x slower per message at 4 PEs;
 * - counters: no per-target completion; the next put or AMO waits for every
 *   earlier operation (OFI_FENCE_ALL).
 * Puts to this PE and the PEs of its node are stores, which no lazy wait can hold
 * back: AMOs the network still carries there (amos_local) complete at the fence. */
#include "transport/ofi/ofi.h"

/* With quiet_read a put is visible once settled: wdone may hold unsettled ones that
 * completed locally (all of them, at most). */
uint64_t ofi_writes_done(struct ofi_ctx *c)
{
    if (!ofi.mode.quiet_read)
        return fi_cntr_read(c->wcntr);
    uint64_t local = c->wunsettled - c->winject;
    return c->wdone - (local < c->wdone ? local : c->wdone);
}

/* Waits until wdone + extra reaches c->writes (quiet_read), for at most
 * SHMEM_OFI_STALL_TIMEOUT seconds without headway. */
static void wait_wdone(struct ofi_ctx *c, uint64_t extra, const char *what)
{
    ofi_flush_deferred(c);
    if (c->more_pending)
        ofi_flush_more(c);
    struct shoal_backoff b = { 0 };
    struct timespec since = { 0, 0 };
    uint64_t seen = c->wdone;
    while (c->wdone + extra < c->writes) {
        if (c->wdone != seen) {
            seen = c->wdone;
            since = (struct timespec){ 0, 0 };
        }
        ofi_drain_cq(c);
        ofi_progress_others(c);
        ofi_backoff_done(c, &b);
        ofi_stalled(c, what, &since, -1);
    }
}

/* quiet_read: one read from each dirty PE, posted before any is waited for, so
 * that every put issued before it is visible at its target once it completes. The
 * reads land in the context's discard buffer; any heap address will do. */
static void settle(struct ofi_ctx *c)
{
    ofi_flush_deferred(c);
    if (c->more_pending)
        ofi_flush_more(c);
    if (!c->ndirty)
        return;
    /* Nothing posts a put on c while this runs: what a session held back went
     * above, and the waits below flush only other contexts' (c is locked, or
     * flushed). So the set and counts taken here stay whole. */
    uint64_t injected = c->winject, unsettled = c->wunsettled;
    unsigned n = c->ndirty;
    SHOAL_LOG(OFI, TRACE, "settling puts to %u PEs", n);
    c->ndirty = 0;
    if (c->fence_owed != OFI_FENCE_ALL)
        c->fence_owed = 0; /* no PE is left in dirty */
    for (unsigned i = 0; i < n; i++) {
        int pe = c->dirty[i];
        c->dirty_since[pe] = 0;
        OFI_POST(c, "fi_read (completing puts)",
                 fi_read(c->ep, c->discard, 8, c->slot_desc, (fi_addr_t)pe,
                         ofi_raddr(SHOAL_SEG_HEAP, 0, pe), ofi_rkey(SHOAL_SEG_HEAP, pe),
                         ofi.pe_tag + shoal.n_pes + pe));
        c->reads++;
    }
    ofi_wait_cntr(c, c->rcntr, c->reads, "a put", n == 1 ? c->dirty[0] : -1);
    c->winject -= injected;
    c->wunsettled -= unsettled;
    c->wdone += injected;
}

/* quiet_read: one read from pe, so that every put issued to it before is visible
 * there once it completes. pe stays in dirty, as dirty from now on: the next full
 * settle reads it again, which costs one read where no put to it followed. Waits on
 * the read counter: for this read and the context's gets and fetching AMOs in
 * flight, no other PE's puts. */
void ofi_settle_pe(struct ofi_ctx *c, int pe)
{
    SHOAL_LOG(OFI, TRACE, "settling puts to PE %d", pe);
    ofi_flush_deferred(c);
    if (c->more_pending)
        ofi_flush_more(c);
    OFI_POST(c, "fi_read (completing puts)",
             fi_read(c->ep, c->discard, 8, c->slot_desc, (fi_addr_t)pe,
                     ofi_raddr(SHOAL_SEG_HEAP, 0, pe), ofi_rkey(SHOAL_SEG_HEAP, pe),
                     ofi.pe_tag + shoal.n_pes + pe));
    c->reads++;
    ofi_wait_cntr(c, c->rcntr, c->reads, "a put", pe);
    /* A full settle on the way (a wait sends held-back signals) may have taken pe
     * out of dirty already; otherwise it no longer owes the fence. */
    uint64_t since = c->dirty_since[pe];
    if (since && since < c->epoch) {
        c->dirty_since[pe] = c->epoch;
        if (c->fence_owed != OFI_FENCE_ALL)
            c->fence_owed--;
    }
}

void ofi_fence_wait(struct ofi_ctx *c, int pe)
{
    if (c->fence_owed == OFI_FENCE_ALL) {
        c->fence_owed = 0;
        ofi_wait_issued(c);
        return;
    }
    uint64_t since = c->dirty_since[pe];
    if (since && since < c->epoch)
        ofi_settle_pe(c, pe);
}

void ofi_wait_writes(struct ofi_ctx *c, const char *what)
{
    if (!ofi.mode.quiet_read) {
        ofi_wait_cntr(c, c->wcntr, c->writes, what, -1);
        return;
    }
    settle(c);
    wait_wdone(c, 0, what);
}

void ofi_wait_writes_local(struct ofi_ctx *c, const char *what)
{
    if (!ofi.mode.quiet_read)
        ofi_wait_cntr(c, c->wcntr, c->writes, what, -1);
    else
        wait_wdone(c, c->winject, what); /* injected sources were copied at once */
}

void ofi_flush_more(struct ofi_ctx *c)
{
    static const char nothing;
    uint64_t more = c->more;
    c->more_pending = 0;
    c->more = 0;
    /* An operation without FI_MORE releases the ones the provider held back. */
    OFI_POST(c, "fi_inject_write",
             fi_inject_write(c->ep, &nothing, 0, (fi_addr_t)c->more_pe, c->more_addr,
                             c->more_key));
    ofi_put_posted(c, c->more_pe, 1);
    c->more = more;
}

void ofi_wait_issued(struct ofi_ctx *c)
{
    ofi_wait_writes(c, "a put or AMO");
    ofi_wait_cntr(c, c->rcntr, c->reads, "a get or fetching AMO", -1);
    c->amos_out = c->amos_local = 0;
}

void ofi_quiet_locked(struct ofi_ctx *c)
{
    c->direct_pending = 0; /* the waits below cover them */
    if (ofi.mode.quiet_read && c->bundle.slot)
        ofi_bundle_flush_settled(c);
    ofi_flush_deferred(c);
    if (SHOAL_UNLIKELY(c->nutouched))
        ofi_unreliable_settle(c);
    if (SHOAL_UNLIKELY(c->trig_ops != NULL))
        ofi_trigger_quiet(c);
    ofi_wait_issued(c);
    /* Counters can run ahead of the CQ entries that copy gets out of slots. */
    struct shoal_backoff b = { 0 };
    while (c->slots_busy) {
        ofi_drain_cq(c);
        ofi_progress_others(c);
        ofi_backoff_done(c, &b);
    }
    c->fence_owed = 0;
    if (shoal.cfg.ofi_mr_cache <= 0)
        ofi_reg_release(c);
}

void ofi_quiet(struct shoal_ctx *ctx)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    SHOAL_LOG(OFI, TRACE, "quiet: %s",
              ofi.mode.quiet_read ? "reads settle the puts" : "counters catch up");
    ofi_quiet_locked(c);
    /* Nothing in flight: drivers pass c by until its next use (progress_all). */
    __atomic_store_n(&c->done_uses, c->uses, __ATOMIC_RELAXED);
    ofi_unlock(c);
}

/* Completes what the context issued to pe alone, where the provider can tell: with
 * quiet_read, one read settles pe's puts (none when pe has no put since the last
 * settle), and the read counter then covers the context's AMOs and gets, to every PE,
 * which are on it. The counters mode, triggered operations and single-transmit AMOs
 * have no per-target completion: a full quiet completes pe's with the rest. */
void ofi_pe_quiet(struct shoal_ctx *ctx, int pe)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    if (!ofi.mode.quiet_read || c->trig_ops || c->nutouched) {
        SHOAL_LOG(OFI, TRACE, "quiet toward PE %d: a full quiet (%s)", pe,
                  !ofi.mode.quiet_read ? "counters complete no single PE"
                                       : "triggered or single-transmit operations");
        ofi_quiet_locked(c);
        __atomic_store_n(&c->done_uses, c->uses, __ATOMIC_RELAXED);
        ofi_unlock(c);
        return;
    }
    ofi_flush_deferred(c);
    if (c->more_pending)
        ofi_flush_more(c);
    if (c->dirty_since[pe])
        ofi_settle_pe(c, pe); /* waits on the read counter too */
    else if (c->reads != fi_cntr_read(c->rcntr))
        ofi_wait_cntr(c, c->rcntr, c->reads, "a get or AMO", pe);
    struct shoal_backoff b = { 0 };
    while (c->slots_busy) { /* gets copied out of slots at their CQ entries */
        ofi_drain_cq(c);
        ofi_progress_others(c);
        ofi_backoff_done(c, &b);
    }
    ofi_unlock(c);
}

void ofi_fence(struct shoal_ctx *ctx)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    /* What a session holds back is issued before the fence, and single-transmit
     * AMOs are applied before anything after it. */
    ofi_flush_deferred(c);
    if (SHOAL_UNLIKELY(c->nutouched))
        ofi_unreliable_settle(c);
    /* A put to this PE or one on its node is a store, which waits for no lazy
     * fence: AMOs the network carries there complete now. */
    if (c->amos_local) {
        if (ofi.mode.quiet_read) /* every such AMO is on the read counter */
            ofi_wait_cntr(c, c->rcntr, c->reads, "an AMO", -1);
        else
            ofi_wait_issued(c);
        c->amos_local = 0;
    }
    if (ofi.mode.writes_ordered) {
        /* The provider orders them. */
    } else if (ofi.mode.quiet_read && !c->amos_out) {
        SHOAL_LOG(OFI, TRACE, "fence: %u PE(s) owe a read to the next put to them",
                  c->ndirty);
        /* Every PE in dirty now owes a settle to the next put or AMO to it, unless
         * an earlier fence's wait for everything still stands. */
        if (c->ndirty) {
            c->epoch++;
            if (c->fence_owed != OFI_FENCE_ALL)
                c->fence_owed = c->ndirty;
        }
    } else if (c->writes != ofi_writes_done(c) || c->reads != fi_cntr_read(c->rcntr)) {
        SHOAL_LOG(OFI, TRACE, "fence: the next put or AMO waits for every one before");
        c->fence_owed = OFI_FENCE_ALL;
    }
    ofi_unlock(c);
}

/* Inject and bounce sources are free at once; direct ones once the write
 * counter (or, with quiet_read, their CQ entries) catches up. */
void ofi_local_complete(struct shoal_ctx *ctx)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    /* Nothing to wait for when every put since the last wait was injected, bounced
     * or bundled: their sources were copied when they were issued. */
    if (c->direct_pending) {
        ofi_wait_writes_local(c, "a put");
        c->direct_pending = 0;
    }
    ofi_unlock(c);
}
