/* What the libfabric transport counts for shmemx_pcntr_* (transport/pcntr.c): the
 * messages a context's endpoint posted and its completion counters' values. */
#include "transport/ofi/ofi.h"

void ofi_counters(struct shoal_ctx *ctx, struct shoal_net_counts *n)
{
    struct ofi_ctx *c = ofi_ctx_used(ctx);
    if (c) {
        n->writes = c->writes;
        n->writes_done = fi_cntr_read(c->wcntr);
        n->reads = c->reads;
        n->reads_done = fi_cntr_read(c->rcntr);
        /* Bundled puts share a message, held-back ones have none yet, single-transmit
         * AMOs and triggered operations are not counted when posted. */
        n->held = c->bundling || c->bundle.slot != NULL || c->npws || c->unreliable ||
                c->trig_ops != NULL;
        ofi_unlock(c);
    }
}
