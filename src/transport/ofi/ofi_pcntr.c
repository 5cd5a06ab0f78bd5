/* What the libfabric transport counts for shmemx_pcntr_* (transport/pcntr.c): the
 * messages a context's endpoint posted (a bundle as the puts in it) and its
 * completion counters' values, and,
 * where the provider offers FI_RMA_EVENT and SHOAL_PCNTR asked for it, a counter of
 * the RMA and atomic operations that targeted this PE (the default endpoint's). */
#include "transport/ofi/ofi.h"

void ofi_counters(struct shoal_ctx *ctx, struct shoal_net_counts *n)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    uint64_t rdone = fi_cntr_read(c->rcntr);
    /* A bundle is one message for many puts: counted as its puts, complete once
     * every message is (until then done messages undercount done puts). */
    uint64_t wdone = ofi_writes_done(c);
    n->writes = c->writes + c->bundle_surplus;
    n->writes_done =
            wdone == c->writes && !c->bundle.slot ? wdone + c->bundle_surplus : wdone;
    n->reads = c->reads;
    n->reads_done = rdone;
    if (ofi.mode.plain_amo_fetches) {
        /* Non-fetching AMOs went as fetching ones: they are writes here, and
         * any of the read counter's outstanding operations may be one of them. */
        uint64_t out = c->reads - rdone, a = c->amo_reads;
        n->writes += a;
        n->writes_done += a - (out < a ? out : a);
        n->reads -= a;
        n->reads_done = n->reads - (out < n->reads ? out : n->reads);
    }
    /* Bundled puts share a message, held-back ones have none yet, single-transmit
     * AMOs and triggered operations are not counted when posted. */
    n->held = c->bundling || c->bundle.slot != NULL || c->npws || c->unreliable ||
            c->trig_ops != NULL;
    ofi_unlock(c);
    if (ofi.target_cntr)
        n->target = fi_cntr_read(ofi.target_cntr);
}

int ofi_pcntr_bind(struct ofi_ctx *c)
{
    /* Providers may report FI_RMA_EVENT unasked (shm does): only SHOAL_PCNTR binds. */
    if (c != ofi.dflt || !shoal.cfg.pcntr || !(ofi.info->caps & FI_RMA_EVENT))
        return 0;
    struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE };
    int rc = fi_cntr_open(ofi.domain, &attr, &ofi.target_cntr, NULL);
    if (rc)
        return rc;
    /* Peers target the default endpoint only. The counter counts messages, so puts
     * outside sessions are not bundled: it would miss some (SHMEM_INFO says so). */
    ofi.mode.bundle_puts = 0;
    ofi.mode.bundle_off_why = "SHOAL_PCNTR counts the operations that target each PE";
    return fi_ep_bind(c->ep, &ofi.target_cntr->fid, FI_REMOTE_WRITE | FI_REMOTE_READ);
}
