/* Put-with-signal over libfabric: the payload put, then the 64-bit signal AMO
 * (set or add), which must land after the payload. How it is ordered depends on
 * what the provider offers, best first:
 *   FI_ORDER_WAW   writes and atomics to a target land in issue order: nothing to do;
 *   FI_FENCE       the signal carries FI_FENCE, so it starts after the payload completes;
 *   neither        (tcp;ofi_rxm) wait for the payload's delivery completion, then signal.
 * The last costs one round trip before the signal even for the nbi variant.
 * Inside a session with SHMEM_SESSION_OP_PWS the signal is held back instead, and
 * the held-back signals follow their payloads behind one fence (ofi_bundle.c). */
#include "transport/ofi/ofi.h"

void ofi_put_signal(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
                    int sig_seg, uint64_t sig_off, uint64_t signal, enum shoal_amo_op sig_op,
                    int nbi, int pe)
{
    struct shoal_amo sig = { .op = sig_op, .type = SHOAL_AMO_UINT64, .seg = sig_seg,
                             .off = sig_off, .operand = &signal };
    uint64_t flags = 0;
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    int direct = len ? ofi_put_locked(c, seg, off, src, len, pe) : 0;
    if (SHOAL_UNLIKELY(c->pws_defer)) {
        if (direct && !nbi)
            ofi_wait_cntr(c, c->wcntr, c->writes, "a put-with-signal");
        ofi_pws_defer(c, sig_seg, sig_off, signal, sig_op, pe);
        ofi_unlock(c);
        return;
    }
    if (!ofi.writes_ordered) {
        /* The compare-and-swap fallback cannot carry the fence. */
        if (ofi.fence_flag && ofi.native[OFI_AMO_PLAIN][sig_op][SHOAL_AMO_UINT64])
            flags = FI_FENCE;
        else
            ofi_wait_cntr(c, c->wcntr, c->writes, "a put-with-signal payload");
    }
    ofi_amo_locked(c, &sig, pe, nbi, flags);
    if (direct && !nbi)
        ofi_wait_cntr(c, c->wcntr, c->writes, "a put-with-signal");
    ofi_unlock(c);
}
