/* Ordering and completion: fence, quiet, local completion, and the flush of
 * puts posted with FI_MORE in a session (ofi_session.c).
 *
 * Completion levels: the endpoint's operations complete at FI_DELIVERY_COMPLETE
 * where the provider grants it (tcp;ofi_rxm and sockets do), so a counter that
 * has caught up with the issued count means the data is visible at the target;
 * quiet is exactly that wait. Fence waits lazily: the next put or AMO of the
 * context first waits for the earlier ones, unless the provider orders writes
 * and atomics to a target by itself (FI_ORDER_WAW), in which case fence is free. */
#include "transport/ofi/ofi.h"

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
    c->writes++;
    c->more = more;
}

void ofi_wait_issued(struct ofi_ctx *c)
{
    ofi_wait_cntr(c, c->wcntr, c->writes, "a put or AMO");
    ofi_wait_cntr(c, c->rcntr, c->reads, "a get or fetching AMO");
}

void ofi_quiet_locked(struct ofi_ctx *c)
{
    c->direct_pending = 0; /* the waits below cover them */
    if (SHOAL_UNLIKELY(c->trig_ops != NULL))
        ofi_trigger_check(c);
    ofi_wait_issued(c);
    /* Counters can run ahead of the CQ entries that copy gets out of slots. */
    struct shoal_backoff b = { 0 };
    while (c->slots_busy) {
        ofi_drain_cq(c);
        ofi_progress_others(c);
        ofi_backoff(&b);
    }
    c->fence_pending = 0;
    ofi_trigger_release(c);
    if (shoal.cfg.ofi_mr_cache <= 0)
        ofi_reg_release(c);
}

void ofi_quiet(struct shoal_ctx *ctx)
{
    struct ofi_ctx *c = ofi_ctx_used(ctx);
    if (!c)
        return;
    ofi_quiet_locked(c);
    ofi_unlock(c);
}

void ofi_fence(struct shoal_ctx *ctx)
{
    struct ofi_ctx *c = ofi_ctx_used(ctx);
    if (!c)
        return;
    /* What a session holds back is issued before the fence. */
    ofi_flush_deferred(c);
    if (!ofi.writes_ordered &&
        (c->writes != fi_cntr_read(c->wcntr) || c->reads != fi_cntr_read(c->rcntr)))
        c->fence_pending = 1;
    ofi_unlock(c);
}

/* Inject and bounce sources are free at once; direct ones once the write
 * counter catches up. */
void ofi_local_complete(struct shoal_ctx *ctx)
{
    struct ofi_ctx *c = ofi_ctx_used(ctx);
    if (!c)
        return;
    /* Nothing to wait for when every put since the last wait was injected, bounced
     * or bundled: their sources were copied when they were issued. */
    if (c->direct_pending) {
        ofi_wait_cntr(c, c->wcntr, c->writes, "a put");
        c->direct_pending = 0;
    }
    ofi_unlock(c);
}
