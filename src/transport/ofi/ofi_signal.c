/* Put-with-signal over libfabric: the payload put, then the 64-bit signal AMO
 * (set or add), which must land after the payload. How it is ordered depends on
 * what the provider offers, best first:
 *   FI_ORDER_WAW         writes and atomics to a target land in issue order: nothing to do;
 *   FI_ORDER_ATOMIC_WAW  atomics land in issue order (tcp;ofi_rxm): a payload that fits
 *                        a few atomic writes of bytes (and a bounce slot) goes as those
 *                        atomics, and the signal follows at once: one trip, no wait;
 *   FI_FENCE             the signal carries FI_FENCE, so it starts after the payload completes;
 *   none of these        wait for the payload's delivery completion, then signal.
 * The last costs one round trip before the signal even for the nbi variant; the
 * collectives' channels (transport/route.c) are built on this call, so on
 * tcp;ofi_rxm each of their small messages is one trip.
 * Inside a session with SHMEM_SESSION_OP_PWS the signal is held back instead, and
 * the held-back signals follow their payloads behind one fence (ofi_bundle.c).
 * Where ofi.mode.signal_write is on, a SHMEM_SIGNAL_SET goes as an 8-byte write instead of
 * the atomic when it has no payload or the provider orders writes (FI_ORDER_WAW). */
#include "transport/ofi/ofi.h"

/* The most atomic writes one payload goes as: rxm carries an atomic of at most
 * its buffer size (4 KiB less a header, ofi_init.c), so payloads of up to about
 * 16 KiB follow with their signal in one trip. */
#define OFI_PWS_PIECES 4

/* The payload as native atomic writes of bytes, at most atomic_bytes each (the
 * provider orders them and the signal after them); its source is free at once.
 * With quiet_read always through slots: an injected atomic would complete on the
 * write counter alone, which is not there. */
static int put_as_atomic(struct ofi_ctx *c, int seg, uint64_t off, const void *src,
                         size_t len, int pe)
{
    size_t piece = ofi.mode.atomic_bytes;
    int inject = len <= ofi.mode.inject_size && len <= piece && !ofi.mode.quiet_read;
    if (!ofi.mode.atomics_ordered || ofi.mode.writes_ordered || !piece ||
        len > OFI_PWS_PIECES * piece || (!inject && len > ofi.mode.bounce_size))
        return 0;
    ofi_before_write(c, pe);
    for (size_t at = 0; at < len; at += piece) {
        size_t n = len - at < piece ? len - at : piece;
        struct ofi_slot *s = NULL;
        struct fi_ioc ioc = { (void *)((const char *)src + at), n };
        void *desc = NULL, *context = NULL;
        uint64_t flags = FI_INJECT;
        if (!inject) {
            s = ofi_slot_get(c);
            s->pe = pe;
            s->write = 1;
            memcpy(s->buf, ioc.addr, n);
            ioc.addr = s->buf;
            desc = c->slot_desc;
            context = &s->fctx;
            flags = FI_COMPLETION;
        }
        struct fi_rma_ioc rma = { ofi_raddr(seg, off + at, pe), n, ofi_rkey(seg, pe) };
        struct fi_msg_atomic msg =
                ofi_amsg(&ioc, &desc, &rma, pe, FI_UINT8, FI_ATOMIC_WRITE, context);
        OFI_POST(c, "fi_atomicmsg", fi_atomicmsg(c->ep, &msg, flags | ofi.mode.op_flags));
        c->writes++;
    }
    c->amos_out = 1; /* a fence after it waits for every earlier operation */
    return 1;
}

void ofi_put_signal(struct shoal_ctx *ctx, const struct shoal_put_signal *ps)
{
    /* The payload's names, read many times below. */
    int seg = ps->dst.seg, pe = ps->dst.pe, nbi = ps->nbi;
    uint64_t off = ps->dst.off;
    const void *src = ps->src;
    size_t len = ps->len;
    enum shoal_amo_op sig_op = ps->sig_op;
    struct shoal_amo sig = { .op = sig_op,
                             .type = SHOAL_AMO_UINT64,
                             .seg = ps->sig.seg,
                             .off = ps->sig.off,
                             .operand = &ps->signal };
    uint64_t flags = 0;
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    if (SHOAL_UNLIKELY(c->pws_defer)) {
        SHOAL_LOG(OFI, TRACE, "put-with-signal to PE %d: signal deferred to the flush", pe);
        /* The put-with-signal transform: the payload joins a bundle (or goes now),
         * the signal waits for the session's flush (ofi_bundle.c). */
        if (len && ofi_put_locked(c, seg, off, src, len, pe) && !nbi)
            ofi_wait_writes_local(c, "a put-with-signal");
        ofi_pws_defer(c, ps->sig.seg, ps->sig.off, ps->signal, sig_op, pe);
        ofi_unlock(c);
        return;
    }
    int direct = 0, native = ofi.mode.native[OFI_AMO_PLAIN][sig_op][SHOAL_AMO_UINT64];
    /* A write only where writes land in order: shm's FI_FENCE does not hold its
     * one-range writes (a CMA copy by the caller) behind a payload still in flight. */
    sig.signal = ofi_signal_as_write(sig_op, pe) && (!len || ofi.mode.writes_ordered);
    /* No payload: nothing to order the signal after. */
    if (len && !(native && !sig.signal && put_as_atomic(c, seg, off, src, len, pe))) {
        direct = ofi_put_locked(c, seg, off, src, len, pe);
        if (!ofi.mode.writes_ordered) {
            /* The compare-and-swap fallback cannot carry the fence. */
            SHOAL_LOG(OFI, TRACE, "put-with-signal to PE %d: payload ordered by %s", pe,
                      ofi.mode.fence_flag && native ? "FI_FENCE"
                              : ofi.mode.quiet_read ? "a read from that PE"
                                                    : "a wait for every write");
            if (ofi.mode.fence_flag && native)
                flags = FI_FENCE;
            else if (ofi.mode.quiet_read)
                ofi_settle_pe(c, pe); /* the payload's target only */
            else
                ofi_wait_writes(c, "a put-with-signal payload");
        }
    }
    SHOAL_LOG(OFI, TRACE, "put-with-signal to PE %d: signal as %s", pe,
              sig.signal       ? "an 8-byte write"
                      : native ? "a native atomic"
                               : "a CAS loop");
    ofi_amo_locked(c, &sig, pe, nbi, flags);
    if (direct && !nbi)
        ofi_wait_writes_local(c, "a put-with-signal");
    ofi_unlock(c);
}
