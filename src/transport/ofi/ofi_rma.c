/* Puts and gets, by the protocols of the seed paper (HPE Cray OpenSHMEMX on
 * Slingshot):
 *   inject  len <= inject size: the provider copies the source at once;
 *   bounce  len <= SHMEM_OFI_BOUNCE_SIZE from memory outside the segments: copied
 *           into a registered slot, so even a blocking put returns at once;
 *   direct  sources in the segments (their MR) and larger buffers (registered on
 *           the fly when the provider needs FI_MR_LOCAL).
 * Every get counts on its context's read counter. Puts count on its write counter,
 * except with ofi.mode.quiet_read: then injected puts are not tracked one by one (quiet
 * settles them with a read per target, ofi_order.c) and the others ask for a CQ
 * entry, counted in wdone. */
#include "transport/ofi/ofi.h"

/* A put that may carry FI_MORE while a batch session is open; the last one is
 * remembered so that the batch can be flushed by a zero-length put there. */
static inline uint64_t batch_flags(struct ofi_ctx *c, int pe, uint64_t raddr, uint64_t key)
{
    if (!c->more)
        return 0;
    c->more_pending = 1;
    c->more_pe = pe;
    c->more_addr = raddr;
    c->more_key = key;
    return FI_MORE;
}

/* flags: FI_INJECT, FI_COMPLETION (a slot's, or a direct put's with quiet_read) or
 * 0 (a direct put the write counter counts). Counts the write. */
static inline void post_write(struct ofi_ctx *c, const void *buf, size_t len, void *desc,
                              int pe, uint64_t raddr, uint64_t key, uint64_t flags, void *ctx)
{
    uint64_t f = flags | batch_flags(c, pe, raddr, key);
    if (f == FI_INJECT && ofi.mode.quiet_read) {
        /* rxm passes this straight to its connection only while no write counter
         * is bound and no completion is asked for. */
        OFI_POST(c, "fi_inject_write",
                 fi_inject_write(c->ep, buf, len, (fi_addr_t)pe, raddr, key));
    } else if (!f) {
        OFI_POST(c, "fi_write",
                 fi_write(c->ep, buf, len, desc, (fi_addr_t)pe, raddr, key,
                          ofi_op_ctx(ctx, pe)));
    } else {
        struct iovec iov = { (void *)buf, len };
        struct fi_rma_iov rma = { raddr, len, key };
        struct fi_msg_rma msg = ofi_rmsg(&iov, &desc, &rma, pe, ctx);
        OFI_POST(c, "fi_writemsg", fi_writemsg(c->ep, &msg, f | ofi.mode.put_flags));
    }
    ofi_put_posted(c, pe, !!(flags & FI_INJECT));
}

int ofi_put_locked(struct ofi_ctx *c, int seg, uint64_t off, const void *src, size_t len,
                   int pe)
{
    /* Small puts coalesce (ofi_bundle.c): on tcp;ofi_rxm each message is a send. */
    if ((SHOAL_LIKELY(ofi.mode.bundle_puts) || c->bundling) &&
        ofi_bundle_put(c, seg, off, src, len, pe))
        return 0;
    uint64_t raddr = ofi_raddr(seg, off, pe), key = ofi_rkey(seg, pe);
    void *desc = NULL;
    ofi_before_write(c, pe);
    /* A direct put asks for a CQ entry where no write counter counts it. */
    uint64_t direct = ofi.mode.quiet_read ? FI_COMPLETION : 0;
    if (len <= ofi.mode.inject_size) {
        /* Without quiet_read not fi_inject_write: rxm completes those when they are
         * sent, without the delivery completion quiet counts on. */
        post_write(c, src, len, NULL, pe, raddr, key, FI_INJECT, NULL);
        return 0;
    }
    if (ofi_local_seg(c, src, len, &desc)) {
        post_write(c, src, len, desc, pe, raddr, key, direct, NULL);
        c->direct_pending = 1;
        return 1;
    }
    if (len <= ofi.mode.bounce_size) {
        SHOAL_LOG(OFI, TRACE, "put of %zu bytes to PE %d: through a bounce slot", len, pe);
        struct ofi_slot *s = ofi_slot_get(c);
        s->pe = pe;
        s->write = 1;
        memcpy(s->buf, src, len);
        post_write(c, s->buf, len, c->slot_desc, pe, raddr, key, FI_COMPLETION, &s->fctx);
        return 0;
    }
    SHOAL_LOG(OFI, TRACE, "put of %zu bytes to PE %d: direct from the source", len, pe);
    if (ofi.mode.mr_local)
        desc = ofi_reg_desc(c, src, len);
    post_write(c, src, len, desc, pe, raddr, key, direct, NULL);
    c->direct_pending = 1;
    return 1;
}

void ofi_put_word(struct ofi_ctx *c, int seg, uint64_t off, const void *src, int pe,
                  uint64_t flags)
{
    uint64_t raddr = ofi_raddr(seg, off, pe), key = ofi_rkey(seg, pe);
    ofi_before_write(c, pe);
    if (ofi.mode.inject_size >= 8) {
        post_write(c, src, 8, NULL, pe, raddr, key, FI_INJECT | flags, NULL);
        return;
    }
    struct ofi_slot *s = ofi_slot_get(c);
    s->pe = pe;
    s->write = 1;
    memcpy(s->buf, src, 8);
    post_write(c, s->buf, 8, c->slot_desc, pe, raddr, key, FI_COMPLETION | flags, &s->fctx);
}

void ofi_put(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
             int pe)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    if (ofi_put_locked(c, seg, off, src, len, pe))
        ofi_wait_writes_local(c, "a put");
    ofi_unlock(c);
}

void ofi_put_nbi(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
                 int pe)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    ofi_put_locked(c, seg, off, src, len, pe);
    ofi_unlock(c);
}

static inline void post_read(struct ofi_ctx *c, void *buf, size_t len, void *desc, int pe,
                             uint64_t raddr, uint64_t key, void *ctx)
{
    if (!ctx) {
        OFI_POST(c, "fi_read",
                 fi_read(c->ep, buf, len, desc, (fi_addr_t)pe, raddr, key, ofi.pe_tag + pe));
    } else {
        struct iovec iov = { buf, len };
        struct fi_rma_iov rma = { raddr, len, key };
        struct fi_msg_rma msg = ofi_rmsg(&iov, &desc, &rma, pe, ctx);
        OFI_POST(c, "fi_readmsg", fi_readmsg(c->ep, &msg, FI_COMPLETION | ofi.mode.op_flags));
    }
    c->reads++;
}

/* Gets land directly where the provider can write them (anywhere without
 * FI_MR_LOCAL); otherwise small ones go through a slot copied out at completion.
 * done: a blocking caller's flag for the slot case; returns 1 when the caller
 * must wait for the read counter instead. */
static inline int get_common(struct ofi_ctx *c, void *dst, int seg, uint64_t off, size_t len,
                             int pe, volatile int *done)
{
    uint64_t raddr = ofi_raddr(seg, off, pe), key = ofi_rkey(seg, pe);
    void *desc = NULL;
    /* A get may read what a bundled put or a held-back AMO writes. */
    if (SHOAL_UNLIKELY(c->uheld))
        ofi_unreliable_flush(c);
    if (SHOAL_UNLIKELY(c->bundle.slot != NULL))
        ofi_bundle_flush(c);
    if (!ofi.mode.mr_local || ofi_local_seg(c, dst, len, &desc)) {
        post_read(c, dst, len, desc, pe, raddr, key, NULL);
        return 1;
    }
    if (len <= ofi.mode.bounce_size) {
        struct ofi_slot *s = ofi_slot_get(c);
        s->pe = pe;
        s->copy_to = dst;
        s->copy_len = len;
        s->done = done;
        post_read(c, s->buf, len, c->slot_desc, pe, raddr, key, &s->fctx);
        return 0;
    }
    post_read(c, dst, len, ofi_reg_desc(c, dst, len), pe, raddr, key, NULL);
    return 1;
}

void ofi_get(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe)
{
    volatile int done = 0;
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    if (get_common(c, dst, seg, off, len, pe, &done))
        ofi_wait_cntr(c, c->rcntr, c->reads, "a get", pe);
    else
        ofi_wait_flag(c, &done);
    ofi_unlock(c);
}

void ofi_get_nbi(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    get_common(c, dst, seg, off, len, pe, NULL);
    ofi_unlock(c);
}
